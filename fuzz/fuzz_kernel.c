/* Fuzz harness: kernel log text, as `kernel FILE` reads it: every line form
 * (dmesg, dmesg -T/-x, journalctl, syslog, /dev/kmsg records with their
 * \xNN escapes and dictionary lines) through the line reader, the event
 * parser (Xid, AER, DMAR, AMD-Vi, EDAC, hung tasks, SXid groups) and the
 * analysis onto a made-up machine of two GPUs below one bridge, then both
 * renderers. */
#include "fuzz.h"

#include "analyze/kernel_analyze.h"
#include "analyze/kmsg.h"
#include "model/result.h"
#include "report/report.h"
#include "util/linereader.h"

#include <stdlib.h>
#include <string.h>

static void on_line(void *ctx, const struct kline *l)
{
	kparser_line(ctx, l);
}

static void fake_machine(struct pci_list *pl, struct pci_dev *devs)
{
	memset(devs, 0, 3 * sizeof(*devs));
	static char p0[] = "/sys/devices/pci0000:16/0000:16:00.0/0000:17:00.0";
	static char p1[] = "/sys/devices/pci0000:16/0000:16:00.0/0000:17:00.0/0000:18:00.0";
	static char p2[] = "/sys/devices/pci0000:16/0000:16:00.0/0000:17:00.0/0000:19:00.0";
	strcpy(devs[0].bdf, "0000:17:00.0");
	devs[0].syspath = p0;
	devs[0].vendor = 0x10b5;
	devs[0].class_code = 0x060400;
	devs[0].is_bridge = true;
	for (int i = 1; i < 3; i++) {
		struct pci_dev *d = &devs[i];
		snprintf(d->bdf, sizeof(d->bdf), "0000:%02x:00.0", 0x17 + i);
		d->syspath = i == 1 ? p1 : p2;
		d->vendor = 0x10de;
		d->device = 0x2335;
		d->class_code = 0x030200;
		strcpy(d->parent, "0000:17:00.0");
		d->nbars = 1;
		d->bars[0].start = 0x90000000ull * (uint64_t)i;
		d->bars[0].end = d->bars[0].start + 0xffffff;
		d->numa_node = 0;
	}
	pl->devs = devs;
	pl->n = pl->alloc = 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_sysroot();
	struct kparser kp;
	kparser_init(&kp, 64);
	struct kreader kr;
	kreader_init(&kr, on_line, &kp);
	struct fz_mem m;
	fz_mem_init(&m, data, size);
	struct linereader lr;
	linereader_init(&lr, -1, 2048);
	linereader_set_source(&lr, fz_mem_read, &m);
	char *line;
	size_t len;
	while (linereader_next(&lr, &line, &len) > 0)
		kreader_line(&kr, line, len, lr.lineno);
	linereader_release(&lr);

	struct pci_dev devs[3];
	struct machine mach; /* in memory: the analysis reads no file (not released: devs is ours) */
	machine_init(&mach);
	fake_machine(&mach.pci, devs);
	mach.have_pci = true;
	struct kgpu_map map;
	kgpu_map_build(&map, &mach);
	const char *names[] = { "dmesg.txt" };
	struct kernel_analyze_opts o = {
		.src_names = names,
		.nsrc = 1,
		.since = size % 3 == 0 ? 3600 : 0,
		.have_ref_boot = true,
		.ref_boot = 86400,
		.have_ref_wall = true,
		.ref_wall = 1.8e9,
	};
	struct result *r = result_new("kernel");
	kernel_analyze(r, &kp, &map, &o);
	result_sort_findings(r);
	/* every other input renders for a narrow terminal (report/text.c fits tables) */
	if (size % 2 == 0)
		setenv("COLUMNS", size % 4 == 0 ? "40" : "72", 1);
	else
		unsetenv("COLUMNS");
	report_text(r, &(struct render_opts){ .full = true }, fz_null());
	json_t *j = report_json(r);
	char *s = json_dumps(j, JSON_COMPACT);
	free(s);
	json_decref(j);
	result_free(r);
	kgpu_map_release(&map);
	kparser_release(&kp);
	return 0;
}
