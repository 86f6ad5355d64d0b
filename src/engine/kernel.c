/* The kernel log engine of `nccl-doctor kernel` (cmd/kernel.c) and of
 * check's kernel stage: reads the kernel log (the live ring buffer through
 * <sysroot>/dev/kmsg, or saved dmesg / journalctl -k / kern.log files, or
 * stdin) and reports GPU and platform events: Xid, fallen off the bus, PCIe
 * AER, IOMMU faults, EDAC, hung tasks in the GPU stack; each mapped to its
 * GPU, counted, with first and last time. Formats: docs/kernel.md. */
#include "analyze/kernel_analyze.h"
#include "analyze/kmsg.h"
#include "engine/kernel.h"
#include "collect/collect.h"
#include "kb/findings.h"
#include "probe/pci.h"
#include "report/report.h"
#include "util/input.h"
#include "util/strbuf.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EVENT_CAP 20000 /* most recent events kept for analysis */
#define MAX_FILES 4096  /* FILE arguments read */

struct kctx {
	struct kparser kp;
	bool have_boot, have_wall;
	double max_boot, max_wall;
};

static void on_line(void *p, const struct kline *l)
{
	struct kctx *c = p;
	if (l->ts_kind == TS_BOOT && (!c->have_boot || l->ts > c->max_boot)) {
		c->have_boot = true;
		c->max_boot = l->ts;
	} else if (l->ts_kind == TS_WALL && (!c->have_wall || l->ts > c->max_wall)) {
		c->have_wall = true;
		c->max_wall = l->ts;
	}
	kparser_line(&c->kp, l);
}

#define KMSG_DENIED "cannot read '/dev/kmsg': permission denied; run 'sudo nccl-doctor kernel', " \
	"or save the log with 'sudo dmesg > dmesg.txt' and run 'nccl-doctor kernel dmesg.txt'"

/* Reads the kernel ring buffer; returns 0 or sets an error on r. */
static int read_kmsg(struct result *r, struct kreader *kr, bool *live, double timeout)
{
	int fd = sr_open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		if (fd == -EACCES || fd == -EPERM)
			result_set_error(r, KMSG_DENIED);
		else if ((fd == -ENOENT || fd == -SR_ESPECIAL) && !sysroot_is_live())
			result_set_error(r, "cannot read '/dev/kmsg' in the sysroot '%s': %s; give a saved log: 'nccl-doctor kernel --sysroot DIR FILE'",
					 sysroot_get(), fd == -ENOENT ? "missing" : sr_strerror(fd));
		else
			result_set_error(r, "cannot read '/dev/kmsg': %s", sr_strerror(fd));
		return -1;
	}
	struct stat st;
	int rc;
	const char *why = NULL;
	if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) {
		/* sr_open lets a character device through only as the live kmsg */
		*live = true;
		rc = input_read_kmsg(fd, kreader_take, kr, &kr->st.overruns);
		close(fd);
	} else {
		/* a recorded copy: the same checks as any file */
		struct input in;
		rc = input_from_fd(&in, fd, "/dev/kmsg", "kernel", timeout, true);
		if (rc == 0)
			rc = input_read_lines(&in, KLINE_MAX, kreader_take, kr);
		if (rc < 0 && rc != -EACCES && rc != -EPERM)
			why = input_error_text(&in, rc);
		input_close(&in);
	}
	if (rc == -EACCES || rc == -EPERM) {
		result_set_error(r, KMSG_DENIED);
		return -1;
	}
	if (rc < 0) {
		if (why)
			result_set_error(r, "%s", why);
		else
			result_set_error(r, "cannot read '/dev/kmsg': %s", sr_strerror(rc));
		return -1;
	}
	return 0;
}

/* Reads one FILE argument ('-' is stdin); the live /dev/kmsg named as a
 * file is read as records. Returns 0 or sets an error on r. */
static int read_file(struct result *r, struct kreader *kr, const char *path, double timeout, bool *live)
{
	struct input in;
	int rc = input_open(&in, path, "kernel", timeout, INPUT_ALLOW_KMSG);
	if (rc == 0 && in.kind == INPUT_KMSG) {
		*live = true;
		rc = input_read_kmsg(in.fd, kreader_take, kr, &kr->st.overruns);
		if (rc == -EACCES || rc == -EPERM) {
			input_close(&in);
			result_set_error(r, KMSG_DENIED);
			return -1;
		}
	} else if (rc == 0) {
		rc = input_read_lines(&in, KLINE_MAX, kreader_take, kr);
	}
	if (rc < 0)
		result_set_error(r, "%s", input_error_text(&in, rc));
	input_close(&in);
	return rc < 0 ? -1 : 0;
}

#define NO_RECORDS_HINT "not the output of dmesg, journalctl -k, a syslog kern.log or /dev/kmsg"

/* Reads every input: the FILE arguments through the shared input layer
 * ('-', files, globs the shell left alone; a directory is an error), or the
 * ring buffer when there is none. *il and *names (each source's name, a heap
 * array) are the caller's to release. 0, or -1 with the error set on r: an
 * input that cannot be read, nothing read at all (an empty input is no
 * evidence of health), or no kernel log record in what was read (text that
 * is no kernel log is no evidence either: "cannot tell"). */
static int read_inputs(struct result *r, struct kctx *ctx, struct kreader *kr, int nargs, char **args,
		       struct input_list *il, const char ***names_out, double timeout, bool *live)
{
	input_list_init(il, MAX_FILES, 0);
	for (int i = 0; i < nargs; i++)
		input_list_add(il, args[i]);
	int nfiles = (int)il->n, rc = 0;
	const char **names = xcalloc((size_t)(nfiles > 0 ? nfiles : 1), sizeof(char *));
	*names_out = names;
	bool no_files = nargs == 0;
	if (il->nerr) {
		for (size_t i = 1; i < il->nerr; i++)
			report_say(stderr, "nccl-doctor kernel: %s", il->errors[i]);
		result_set_error(r, "%s", il->errors[0]);
		return -1;
	}
	if (no_files) {
		names[0] = "/dev/kmsg";
		rc = read_kmsg(r, kr, live, timeout);
	} else {
		for (int i = 0; i < nfiles && rc == 0; i++) {
			names[i] = il->paths[i];
			ctx->kp.cur_src = i;
			rc = read_file(r, kr, names[i], timeout, live);
		}
	}
	if (rc == 0 && kr->st.lines == 0) {
		if (nfiles <= 1)
			result_set_error(r, "nothing was read: '%s' is empty%s",
					 nfiles == 0 ? "/dev/kmsg" : strcmp(names[0], "-") == 0 ? "stdin" : names[0],
					 nfiles == 0 && *live ? " (no records in the ring buffer)" : "");
		else
			result_set_error(r, "nothing was read: the %d inputs are empty", nfiles);
		r->verdict = RESULT_NOTHING_TO_CHECK; /* an empty input: nothing given to read */
		rc = -1;
	} else if (rc == 0 && kr->st.records == 0 && ctx->kp.total == 0) {
		/* prose, an NCCL log: no line in a kernel log's form and no
		 * kernel message recognised is no evidence of health either */
		if (nfiles <= 1)
			result_set_error(r, "cannot tell: no kernel log records found in '%s' (%s)",
					 nfiles == 0 ? "/dev/kmsg" : strcmp(names[0], "-") == 0 ? "stdin" : names[0],
					 NO_RECORDS_HINT);
		else
			result_set_error(r, "cannot tell: no kernel log records found in the %d inputs (%s)", nfiles,
					 NO_RECORDS_HINT);
		rc = -1;
	}
	return rc;
}

int kernel_collect(struct result *r, const struct run_opts *opt, int nargs, char **args, double since, double timeout,
		   struct machine *mach)
{
	struct kctx ctx = { 0 };
	kparser_init(&ctx.kp, EVENT_CAP);
	struct kreader kr;
	kreader_init(&kr, on_line, &ctx);
	bool live = false;
	struct input_list il;
	const char **names;
	int rc = read_inputs(r, &ctx, &kr, nargs, args, &il, &names, timeout, &live);
	int nfiles = (int)il.n;
	if (rc < 0) {
		kparser_release(&ctx.kp);
		free(names);
		input_list_release(&il);
		return -1;
	}

	/* input facts */
	struct section *in = result_section(r, "input", "Input");
	if (nfiles == 0) {
		section_add(in, "source", "source", val_str(live ? "/dev/kmsg (live ring buffer)" : "/dev/kmsg (recorded)"));
		if (!sysroot_is_live())
			section_add(in, "sysroot", "sysroot", val_str(sysroot_get()));
	} else {
		struct strbuf sb;
		strbuf_init(&sb, 4096);
		for (int i = 0; i < nfiles; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", strcmp(names[i], "-") == 0 ? "stdin" : names[i]);
		section_add(in, "source", "source", val_str(strbuf_str(&sb)));
		strbuf_release(&sb);
	}
	section_add(in, "lines", live ? "records" : "lines", val_int((long long)kr.st.lines));
	{
		struct strbuf sb;
		strbuf_init(&sb, 1024);
		for (int f = 0; f < KFMT_N; f++)
			if (kr.st.fmt[f])
				strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", kfmt_name((enum kfmt)f));
		section_add(in, "formats", "formats", sb.len ? val_str(strbuf_str(&sb)) : val_none());
		strbuf_release(&sb);
	}
	char t1[40];
	if (ctx.have_boot)
		section_add(in, "newest_boot_ts", "newest (since boot)", val_with_display(val_double(ctx.max_boot),
			    kts_text(TS_BOOT, ctx.max_boot, t1, sizeof(t1))));
	if (ctx.have_wall)
		section_add(in, "newest_wall_ts", "newest (wall clock)", val_with_display(val_double(ctx.max_wall),
			    kts_text(TS_WALL, ctx.max_wall, t1, sizeof(t1))));
	if (kr.st.truncated) {
		struct kv *kv = section_add(in, "truncated_lines", "lines cut at 64 KiB", val_int((long long)kr.st.truncated));
		kv->mark = MARK_WARN;
	}
	if (kr.st.lost_records || kr.st.overruns) {
		section_add(in, "lost_records", "records overwritten", val_int((long long)kr.st.lost_records));
		struct finding *f = finding_add(r, FID_KMSG_RECORDS_LOST, SEV_INFO,
						       "%llu kernel log records were overwritten before they were read",
						       (unsigned long long)kr.st.lost_records);
		finding_evidence(f, names[0], 0, "sequence numbers skip %llu records%s",
				 (unsigned long long)kr.st.lost_records,
				 kr.st.overruns ? "; /dev/kmsg returned EPIPE" : "");
		finding_fix(f, "shell", "the journal keeps what the ring buffer lost", "journalctl -k -b");
	}

	struct kernel_input ki = {
		.src_names = names,
		.nsrc = (size_t)(nfiles > 0 ? nfiles : 1),
		.from_kmsg = nfiles == 0,
		.live = live,
		.have_boot = ctx.have_boot,
		.have_wall = ctx.have_wall,
		.max_boot = ctx.max_boot,
		.max_wall = ctx.max_wall,
		.since = since,
		.gpus = &opt->gpus,
	};
	size_t ngpus = 0;
	collect_kernel(mach);
	size_t kept = kernel_run(r, in, &ctx.kp, &ki, mach, &ngpus);
	result_set_headline(r, "Kernel log: %llu %s read, %zu GPU/platform event%s, %zu GPU%s on the bus",
			    (unsigned long long)kr.st.lines, live ? "records" : "lines", kept, kept == 1 ? "" : "s",
			    ngpus, ngpus == 1 ? "" : "s");
	kparser_release(&ctx.kp);
	free(names);
	input_list_release(&il);
	return 0;
}
