/* Unit tests of probe/pci: the pure parsers on constructed bytes and text
 * (extended capability walk with loops, overruns and all-ones headers;
 * resource, link speed, generation, BDF, ACS control text) and pci_scan /
 * pci_path_to_root on the committed sysroots (pcie-4gpu-acs, unprivileged)
 * and on a constructed tree of garbage files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/pci.h"
#include "util/sysroot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ECAP_AER 0x0001
#define ECAP_VC 0x0002
#define ECAP_ACS 0x000D

static void put_ecap(uint8_t *cfg, size_t off, uint16_t id, unsigned ver, unsigned next)
{
	uint32_t h = (uint32_t)id | (uint32_t)(ver & 0xf) << 16 | (uint32_t)(next & 0xfff) << 20;
	cfg[off] = (uint8_t)h;
	cfg[off + 1] = (uint8_t)(h >> 8);
	cfg[off + 2] = (uint8_t)(h >> 16);
	cfg[off + 3] = (uint8_t)(h >> 24);
}

static void test_find_ext_cap(void **state)
{
	(void)state;
	uint8_t cfg[4096];

	/* ACS first */
	memset(cfg, 0, sizeof(cfg));
	put_ecap(cfg, 0x100, ECAP_ACS, 1, 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0x100);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_AER), 0);

	/* ACS after AER (the bytes of the recorded PLX switch port) */
	memset(cfg, 0, sizeof(cfg));
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0x148);
	put_ecap(cfg, 0x148, ECAP_ACS, 1, 0);
	assert_int_equal(cfg[0x100], 0x01);
	assert_int_equal(cfg[0x102], 0x82);
	assert_int_equal(cfg[0x103], 0x14);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0x148);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_AER), 0x100);
	/* a chain of three */
	put_ecap(cfg, 0x148, ECAP_VC, 1, 0x300);
	put_ecap(cfg, 0x300, ECAP_ACS, 1, 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0x300);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_VC), 0x148);
	/* the low two bits of the next pointer are reserved */
	put_ecap(cfg, 0x148, ECAP_VC, 1, 0x303);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0x300);

	/* no ACS */
	memset(cfg, 0, sizeof(cfg));
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0);
	/* no extended capabilities at all */
	memset(cfg, 0, sizeof(cfg));
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), 0), 0);

	/* a list that loops back */
	memset(cfg, 0, sizeof(cfg));
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0x140);
	put_ecap(cfg, 0x140, ECAP_VC, 1, 0x100);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_VC), 0x140);
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0x100); /* points at itself */
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0);
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0x040); /* into the standard header */
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0);

	/* next pointer beyond the bytes we have */
	memset(cfg, 0, sizeof(cfg));
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0x148);
	put_ecap(cfg, 0x148, ECAP_ACS, 1, 0);
	assert_int_equal(pci_find_ext_cap(cfg, 0x148, ECAP_ACS), 0);
	assert_int_equal(pci_find_ext_cap(cfg, 0x14b, ECAP_ACS), 0);
	assert_int_equal(pci_find_ext_cap(cfg, 0x14c, ECAP_ACS), 0x148);
	/* the last dword of config space */
	memset(cfg, 0, sizeof(cfg));
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0xffc);
	put_ecap(cfg, 0xffc, ECAP_ACS, 1, 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0xffc);
	/* cut configs: 64 (unprivileged) and 256 bytes */
	assert_int_equal(pci_find_ext_cap(cfg, 64, ECAP_AER), 0);
	assert_int_equal(pci_find_ext_cap(cfg, 256, ECAP_AER), 0);
	assert_int_equal(pci_find_ext_cap(cfg, 0x103, ECAP_AER), 0);
	assert_int_equal(pci_find_ext_cap(cfg, 0x104, ECAP_AER), 0x100);
	assert_int_equal(pci_find_ext_cap(cfg, 0, ECAP_AER), 0);

	/* 0xffffffff: a device that fell off the bus */
	memset(cfg, 0xff, sizeof(cfg));
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), 0xffff), 0);
	/* all-ones after a valid first entry */
	memset(cfg, 0xff, sizeof(cfg));
	put_ecap(cfg, 0x100, ECAP_AER, 2, 0x200);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_ACS), 0);
	assert_int_equal(pci_find_ext_cap(cfg, sizeof(cfg), ECAP_AER), 0x100);

	/* random garbage never reads out of bounds (ASan watches) and ends */
	srand(12345);
	for (int round = 0; round < 2000; round++) {
		size_t len = 0x100 + (size_t)(rand() % 0xf01);
		uint8_t *g = malloc(len);
		for (size_t i = 0; i < len; i++)
			g[i] = (uint8_t)rand();
		int off = pci_find_ext_cap(g, len, ECAP_ACS);
		assert_true(off == 0 || (off >= 0x100 && (size_t)off + 4 <= len && (off & 3) == 0));
		if (off)
			assert_int_equal(g[off] | g[off + 1] << 8, ECAP_ACS);
		free(g);
	}
}

static void test_parse_resource(void **state)
{
	(void)state;
	struct pci_bar bars[6];
	const char *text = "0x00000000f0000000 0x00000000f0ffffff 0x0000000000040200\n"
			   "0x0000038000000000 0x0000039fffffffff 0x000000000014220c\n"
			   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
	memset(bars, 0xee, sizeof(bars));
	assert_int_equal(pci_parse_resource(text, bars, 6), 3);
	assert_true(bars[0].start == 0xf0000000ULL);
	assert_true(bars[0].end == 0xf0ffffffULL);
	assert_true(bars[0].flags == 0x40200);
	assert_true(bars[1].start == 0x38000000000ULL);
	assert_true(bars[1].end - bars[1].start + 1 == 128ULL << 30);
	assert_true(bars[1].flags == 0x14220c);
	assert_true(bars[2].start == 0 && bars[2].end == 0);
	/* max entries */
	assert_int_equal(pci_parse_resource(text, bars, 2), 2);
	assert_int_equal(pci_parse_resource(text, bars, 0), 0);
	/* no final newline */
	assert_int_equal(pci_parse_resource("0x1 0x2 0x3", bars, 6), 1);
	assert_true(bars[0].end == 2);
	/* garbage, truncation, empty */
	assert_int_equal(pci_parse_resource("", bars, 6), 0);
	assert_int_equal(pci_parse_resource("garbage\n0x1 0x2 0x3\n", bars, 6), 0);
	assert_int_equal(pci_parse_resource("0x1 0x2 0x3\n0x4 0x5", bars, 6), 1);
	assert_int_equal(pci_parse_resource("0x1 0x2 0x3\n\n0x4 0x5 0x6\n", bars, 6), 1);
	/* 13 lines (a real device), only max read */
	char many[2048] = "";
	for (int i = 0; i < 13; i++)
		strcat(many, "0x0000000000001000 0x0000000000001fff 0x0000000000000100\n");
	assert_int_equal(pci_parse_resource(many, bars, 6), 6);
}

static void test_parse_link_speed(void **state)
{
	(void)state;
	assert_true(pci_parse_link_speed("32.0 GT/s PCIe") == 32.0);
	assert_true(pci_parse_link_speed("16.0 GT/s PCIe\n") == 16.0);
	assert_true(pci_parse_link_speed("8 GT/s") == 8.0);
	assert_true(pci_parse_link_speed("8.0 GT/s PCIe") == 8.0);
	assert_true(pci_parse_link_speed("5.0 GT/s PCIe") == 5.0);
	assert_true(pci_parse_link_speed("2.5 GT/s PCIe") == 2.5);
	assert_true(pci_parse_link_speed("64.0 GT/s PCIe") == 64.0);
	assert_true(pci_parse_link_speed("Unknown") == 0);
	assert_true(pci_parse_link_speed("Unknown speed") == 0);
	assert_true(pci_parse_link_speed("") == 0);
	assert_true(pci_parse_link_speed("GT/s") == 0);
	assert_true(pci_parse_link_speed("-8 GT/s") == 0);
	assert_true(pci_parse_link_speed("0 GT/s") == 0);
	/* strtod words are garbage here, not speeds */
	assert_true(pci_parse_link_speed("nan GT/s") == 0);
	assert_true(pci_parse_link_speed("inf") == 0);
	assert_true(pci_parse_link_speed("infinity GT/s") == 0);
}

static void test_speed_gen(void **state)
{
	(void)state;
	assert_int_equal(pci_speed_gen(2.5), 1);
	assert_int_equal(pci_speed_gen(5.0), 2);
	assert_int_equal(pci_speed_gen(8.0), 3);
	assert_int_equal(pci_speed_gen(16.0), 4);
	assert_int_equal(pci_speed_gen(32.0), 5);
	assert_int_equal(pci_speed_gen(64.0), 6);
	assert_int_equal(pci_speed_gen(0), 0);
	assert_int_equal(pci_speed_gen(-5), 0);
	assert_int_equal(pci_speed_gen(pci_parse_link_speed("Unknown")), 0);
	assert_int_equal(pci_speed_gen(pci_parse_link_speed("16.0 GT/s PCIe")), 4);
}

static void check_bdf(const char *in, const char *want)
{
	char out[PCI_BDF_LEN];
	memset(out, 'Z', sizeof(out));
	bool ok = pci_bdf_normalize(in, out, sizeof(out));
	if (!want) {
		if (ok)
			fail_msg("'%s' was accepted as '%s'", in, out);
		return;
	}
	if (!ok)
		fail_msg("'%s' was refused", in);
	assert_string_equal(out, want);
}

static void test_bdf_normalize(void **state)
{
	(void)state;
	check_bdf("3a:00.0", "0000:3a:00.0");
	check_bdf("0000:3A:00.0", "0000:3a:00.0");
	check_bdf("0000:3a:00.0", "0000:3a:00.0");
	check_bdf("3:0.1", "0000:03:00.1");
	check_bdf("0001:c1:1f.7", "0001:c1:1f.7");
	check_bdf("ffff:ff:1f.7", "ffff:ff:1f.7");
	check_bdf("10000:00:00.0", NULL);
	check_bdf("0000:100:00.0", NULL);
	check_bdf("0000:3a:20.0", NULL);
	check_bdf("0000:3a:00.8", NULL);
	check_bdf("3a:00", NULL);
	check_bdf("0000:3a:00", NULL);
	check_bdf("", NULL);
	check_bdf("zz:00.0", NULL);
	check_bdf("0000:3a:00.0x", NULL);
	check_bdf("0000:3a:00.0 ", NULL);
	check_bdf("0000:3a:00.0/config", NULL);
	check_bdf("pci0000:00", NULL);
	check_bdf("-1:00.0", NULL);
	check_bdf("0000:-1:00.0", NULL);
	check_bdf("0000:3a.00.0", NULL);
	/* what sscanf's %x would take on its own */
	check_bdf("3a:00.0x7", NULL);
	check_bdf("0x3a:00.0", NULL);
	check_bdf(" 3a:00.0", NULL);
	check_bdf("+3a:00.0", NULL);
	check_bdf("0000:3a:00.+1", NULL);
}

static void test_acs_ctrl_text(void **state)
{
	(void)state;
	char buf[128];
	assert_string_equal(pci_acs_ctrl_text(0x001d, buf, sizeof(buf)),
			    "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
	assert_string_equal(pci_acs_ctrl_text(0, buf, sizeof(buf)),
			    "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-");
	assert_string_equal(pci_acs_ctrl_text(0xffff, buf, sizeof(buf)),
			    "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+");
	assert_string_equal(pci_acs_ctrl_text(ACS_EC | ACS_DT, buf, sizeof(buf)),
			    "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl+ DirectTrans+");
	char small[12];
	assert_string_equal(pci_acs_ctrl_text(0x1, small, sizeof(small)), "SrcValid+ T");
	assert_int_equal(ACS_REDIRECT_BITS, 0x2c);
}

/* ---- the recorded trees ---- */

static void test_scan_fixture(void **state)
{
	(void)state;
	assert_int_equal(sysroot_set(ND_FIXTURES "/sysroot/pcie-4gpu-acs"), 0);
	struct pci_list l;
	assert_int_equal(pci_scan(&l), 12);
	assert_int_equal(l.n, 12);
	/* sorted like the directory listing */
	assert_string_equal(l.devs[0].bdf, "0000:00:01.0");
	assert_string_equal(l.devs[11].bdf, "0000:14:00.0");

	int gpus = 0, bridges = 0;
	for (size_t i = 0; i < l.n; i++) {
		gpus += pci_is_nvidia_gpu(&l.devs[i]);
		bridges += l.devs[i].is_bridge;
		assert_false(pci_is_nvswitch(&l.devs[i]));
		assert_false(pci_is_nic(&l.devs[i]));
	}
	assert_int_equal(gpus, 4);
	assert_int_equal(bridges, 8);

	struct pci_dev *g = pci_find(&l, "0000:03:00.0");
	assert_non_null(g);
	assert_ptr_equal(pci_find(&l, "03:00.0"), g);
	assert_ptr_equal(pci_find(&l, "0000:03:00.0"), g);
	assert_null(pci_find(&l, "0000:05:00.0"));
	assert_null(pci_find(&l, "garbage"));
	assert_int_equal(g->vendor, 0x10de);
	assert_int_equal(g->device, 0x2331);
	assert_int_equal(g->class_code, 0x030200);
	assert_true(pci_is_nvidia_gpu(g));
	assert_false(g->is_bridge);
	assert_int_equal(g->numa_node, 0);
	assert_string_equal(g->local_cpulist, "0-7");
	assert_true(g->cur_speed == 32.0 && g->max_speed == 32.0);
	assert_int_equal(g->cur_width, 16);
	assert_int_equal(g->max_width, 16);
	assert_int_equal(g->nbars, 6);
	assert_true(g->bars[0].start == 0xf0000000ULL);
	assert_true(g->bars[1].end - g->bars[1].start + 1 == 128ULL << 30);
	assert_true(g->bars[3].start == 0x3a000000000ULL);
	assert_int_equal(g->aer_correctable, 0);
	assert_int_equal(g->aer_fatal, 0);
	assert_int_equal(g->aer_nonfatal, 0);
	assert_int_equal(g->sriov_totalvfs, -1);
	assert_int_equal(g->sriov_numvfs, -1);
	assert_string_equal(g->driver, "nvidia");
	assert_string_equal(g->iommu_group, "");
	assert_string_equal(g->parent, "0000:02:08.0");
	assert_string_equal(g->syspath, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0");
	/* the GPU has AER only: no ACS */
	assert_int_equal(g->config_len, 4096);
	assert_int_equal(g->acs, ACS_ABSENT);
	assert_int_equal(g->acs_offset, 0);

	struct pci_dev *sw = pci_find(&l, "0000:02:08.0");
	assert_non_null(sw);
	assert_true(sw->is_bridge);
	assert_false(pci_is_nvidia_gpu(sw));
	assert_int_equal(sw->vendor, 0x10b5);
	assert_int_equal(sw->acs, ACS_PRESENT);
	assert_int_equal(sw->acs_offset, 0x148);
	assert_int_equal(sw->acs_cap, 0x005f);
	assert_int_equal(sw->acs_ctrl, 0x001d);
	assert_true(sw->acs_ctrl & ACS_REDIRECT_BITS);
	assert_string_equal(sw->parent, "0000:01:00.0");
	assert_string_equal(sw->driver, "");
	struct pci_dev *up = pci_find(&l, "0000:01:00.0");
	assert_int_equal(up->acs, ACS_PRESENT);
	assert_int_equal(up->acs_ctrl, 0);
	struct pci_dev *root = pci_find(&l, "0000:00:01.0");
	assert_int_equal(root->acs_ctrl, 0x0001);
	assert_string_equal(root->parent, "");

	const struct pci_dev *path[8];
	assert_int_equal(pci_path_to_root(&l, g, path, 8), 3);
	assert_string_equal(path[0]->bdf, "0000:02:08.0");
	assert_string_equal(path[1]->bdf, "0000:01:00.0");
	assert_string_equal(path[2]->bdf, "0000:00:01.0");
	assert_int_equal(pci_path_to_root(&l, g, path, 2), 2);
	assert_int_equal(pci_path_to_root(&l, g, path, 0), 0);
	assert_int_equal(pci_path_to_root(&l, root, path, 8), 0);
	struct pci_dev *g4 = pci_find(&l, "0000:14:00.0");
	assert_int_equal(pci_path_to_root(&l, g4, path, 8), 3);
	assert_string_equal(path[0]->bdf, "0000:12:10.0");
	assert_string_equal(path[1]->bdf, "0000:11:00.0");
	assert_string_equal(path[2]->bdf, "0000:00:03.0");
	pci_list_release(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.devs);
	sysroot_set(NULL);
}

static void test_scan_unprivileged(void **state)
{
	(void)state;
	assert_int_equal(sysroot_set(ND_FIXTURES "/sysroot/unprivileged"), 0);
	struct pci_list l;
	assert_true(pci_scan(&l) > 0);
	struct pci_dev *sw = pci_find(&l, "0000:02:08.0");
	assert_non_null(sw);
	assert_int_equal(sw->config_len, 64);
	assert_int_equal(sw->acs, ACS_UNKNOWN_NEEDS_ROOT);
	assert_int_equal(sw->acs_ctrl, 0);
	pci_list_release(&l);
	sysroot_set(NULL);
}

static void test_path_cycle(void **state)
{
	(void)state;
	/* parents that form a cycle (a corrupt tree) end within max */
	struct pci_dev devs[3];
	memset(devs, 0, sizeof(devs));
	strcpy(devs[0].bdf, "0000:01:00.0");
	strcpy(devs[0].parent, "0000:02:00.0");
	strcpy(devs[1].bdf, "0000:02:00.0");
	strcpy(devs[1].parent, "0000:01:00.0");
	strcpy(devs[2].bdf, "0000:03:00.0");
	strcpy(devs[2].parent, "0000:03:00.0");
	struct pci_list l = { devs, 3, 3 };
	const struct pci_dev *path[8];
	assert_int_equal(pci_path_to_root(&l, &devs[0], path, 8), 1);
	assert_ptr_equal(path[0], &devs[1]);
	assert_int_equal(pci_path_to_root(&l, &devs[2], path, 8), 0);
	/* a parent that is not in the list ends the path */
	strcpy(devs[1].parent, "0000:09:00.0");
	assert_int_equal(pci_path_to_root(&l, &devs[0], path, 8), 1);
}

/* ---- a constructed tree of garbage ---- */

static char g_tmp[256];

static void mkfile(const char *rel, const void *data, size_t len)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", g_tmp, rel);
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void mkfiles(const char *rel, const char *s)
{
	mkfile(rel, s, strlen(s));
}

static void test_scan_garbage(void **state)
{
	(void)state;
	snprintf(g_tmp, sizeof(g_tmp), "%s/nd-pci.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(g_tmp));
	/* no /sys/bus/pci/devices at all */
	assert_int_equal(sysroot_set(g_tmp), 0);
	struct pci_list l;
	assert_int_equal(pci_scan(&l), -ENOENT);
	assert_int_equal(l.n, 0);
	pci_list_release(&l);

	const char *d = "sys/bus/pci/devices/0000:0a:00.0";
	char p[512];
	snprintf(p, sizeof(p), "%s/vendor", d);
	mkfiles(p, "0x10de\n");
	snprintf(p, sizeof(p), "%s/class", d);
	mkfiles(p, "0x030200\n");
	snprintf(p, sizeof(p), "%s/numa_node", d);
	mkfiles(p, "banana\n");
	snprintf(p, sizeof(p), "%s/current_link_speed", d);
	mkfiles(p, "nan GT/s\n");
	snprintf(p, sizeof(p), "%s/max_link_speed", d);
	mkfiles(p, "\xff\xfe\n");
	snprintf(p, sizeof(p), "%s/current_link_width", d);
	mkfiles(p, "255\n");
	snprintf(p, sizeof(p), "%s/max_link_width", d);
	mkfiles(p, "-3\n");
	snprintf(p, sizeof(p), "%s/resource", d);
	mkfiles(p, "not a resource file\n");
	snprintf(p, sizeof(p), "%s/aer_dev_correctable", d);
	mkfiles(p, "TOTAL_ERR_COR x\n");
	snprintf(p, sizeof(p), "%s/aer_dev_fatal", d);
	mkfiles(p, "TOTAL_ERR_FATAL 7\nTOTAL_ERR_FATAL 9");
	snprintf(p, sizeof(p), "%s/config", d);
	mkfile(p, "\x00\x01\x02", 3);
	/* a 300-byte config: conventional PCI, no extended space */
	const char *e = "sys/bus/pci/devices/0000:0b:00.0";
	uint8_t cfg[300];
	memset(cfg, 0xab, sizeof(cfg));
	snprintf(p, sizeof(p), "%s/vendor", e);
	mkfiles(p, "0x15b3\n");
	snprintf(p, sizeof(p), "%s/class", e);
	mkfiles(p, "0x020000\n");
	snprintf(p, sizeof(p), "%s/config", e);
	mkfile(p, cfg, 256);
	/* a looping capability list in a full config space */
	const char *f = "sys/bus/pci/devices/0000:0c:00.0";
	uint8_t big[4096];
	memset(big, 0, sizeof(big));
	put_ecap(big, 0x100, ECAP_AER, 2, 0x100);
	snprintf(p, sizeof(p), "%s/vendor", f);
	mkfiles(p, "0x10de\n");
	snprintf(p, sizeof(p), "%s/class", f);
	mkfiles(p, "0x068000\n");
	snprintf(p, sizeof(p), "%s/config", f);
	mkfile(p, big, sizeof(big));
	/* ACS at the very end, its control word cut off */
	const char *h = "sys/bus/pci/devices/0000:0d:00.0";
	memset(big, 0, sizeof(big));
	put_ecap(big, 0x100, ECAP_ACS, 1, 0);
	snprintf(p, sizeof(p), "%s/class", h);
	mkfiles(p, "0x060400\n");
	snprintf(p, sizeof(p), "%s/config", h);
	mkfile(p, big, 0x106);
	/* names that are not BDFs are skipped */
	mkfiles("sys/bus/pci/devices/not-a-device", "x");
	mkfiles("sys/bus/pci/devices/0000:0e:00.0x", "x");

	assert_int_equal(pci_scan(&l), 4);
	struct pci_dev *a = pci_find(&l, "0000:0a:00.0");
	assert_non_null(a);
	assert_true(pci_is_nvidia_gpu(a));
	assert_int_equal(a->numa_node, -1);
	assert_true(a->cur_speed == 0);
	assert_true(a->max_speed == 0);
	assert_int_equal(a->cur_width, 0);
	assert_int_equal(a->max_width, 0);
	assert_int_equal(a->nbars, 0);
	assert_int_equal(a->aer_correctable, -1);
	assert_int_equal(a->aer_fatal, 9);
	assert_int_equal(a->aer_nonfatal, -1);
	assert_int_equal(a->config_len, 3);
	assert_int_equal(a->acs, ACS_UNREADABLE);
	assert_string_equal(a->parent, "");
	assert_string_equal(a->local_cpulist, "");
	struct pci_dev *b = pci_find(&l, "0000:0b:00.0");
	assert_true(pci_is_nic(b));
	assert_int_equal(b->config_len, 256);
	assert_int_equal(b->acs, ACS_ABSENT);
	struct pci_dev *c = pci_find(&l, "0000:0c:00.0");
	assert_true(pci_is_nvswitch(c));
	assert_int_equal(c->acs, ACS_ABSENT);
	struct pci_dev *dd = pci_find(&l, "0000:0d:00.0");
	assert_true(dd->is_bridge);
	assert_int_equal(dd->config_len, 0x106);
	assert_int_not_equal(dd->acs, ACS_PRESENT); /* no control word to read */
	/* a device with no files at all: vendor 0, not interesting */
	pci_list_release(&l);

	sysroot_set(NULL);
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_ext_cap),
		cmocka_unit_test(test_parse_resource),
		cmocka_unit_test(test_parse_link_speed),
		cmocka_unit_test(test_speed_gen),
		cmocka_unit_test(test_bdf_normalize),
		cmocka_unit_test(test_acs_ctrl_text),
		cmocka_unit_test(test_scan_fixture),
		cmocka_unit_test(test_scan_unprivileged),
		cmocka_unit_test(test_path_cycle),
		cmocka_unit_test(test_scan_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
