/* Unit tests of analyze/topo*.c, analyze/worker_findings.c and the typed
 * topology of the result model: the sysfs path classes on recorded sysroots
 * (PIX, PXB, PHB, NODE, SYS), NVML's levels, topo_run without a driver
 * (GPUs, matrices, findings, --gpus), the worker-outcome findings and the
 * library-loading reasons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/topo.h"
#include "analyze/worker_findings.h"
#include "collect/collect.h"
#include "kb/findings.h"
#include "model/vendor_reason.h"
#include "util/sysroot.h"

#include <errno.h>
#include <string.h>

/* The sysfs matrix of every NVIDIA GPU of a sysroot, as class names. */
static void sysfs_matrix(const char *root, const char *want[][4], int n)
{
	assert_int_equal(sysroot_set(root), 0);
	struct machine mach;
	machine_init(&mach);
	collect_pci(&mach);
	const struct pci_list l = mach.pci;
	assert_true(l.n > 0);
	const struct pci_dev *g[8];
	int ng = 0;
	for (size_t i = 0; i < l.n && ng < 8; i++)
		if (pci_is_nvidia_gpu(&l.devs[i]))
			g[ng++] = &l.devs[i];
	assert_int_equal(ng, n);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			const char *got = link_class_name(topo_sysfs_class(&l, g[a], g[b]));
			if (strcmp(got, want[a][b]) != 0)
				fail_msg("%s: GPU %d - GPU %d is %s, wanted %s", root, a, b, got, want[a][b]);
		}
	machine_release(&mach);
	sysroot_set(NULL);
}

static void test_sysfs_class(void **state)
{
	(void)state;
	/* two switches, two GPUs each, under one host bridge */
	const char *acs[][4] = {
		{ "X", "PIX", "PHB", "PHB" }, { "PIX", "X", "PHB", "PHB" },
		{ "PHB", "PHB", "X", "PIX" }, { "PHB", "PHB", "PIX", "X" },
	};
	sysfs_matrix(ND_FIXTURES "/sysroot/pcie-4gpu-acs", acs, 4);
	/* two switch levels, another host bridge of node 0, a GPU on node 1 */
	const char *pxb[][4] = {
		{ "X", "PXB", "NODE", "SYS" }, { "PXB", "X", "NODE", "SYS" },
		{ "NODE", "NODE", "X", "SYS" }, { "SYS", "SYS", "SYS", "X" },
	};
	sysfs_matrix(ND_FIXTURES "/fakegpu/sysroot-pxb", pxb, 4);
	/* one GPU: only itself */
	const char *one[][4] = { { "X" } };
	sysfs_matrix(ND_FIXTURES "/sysroot/h200-vm", one, 1);
}

/* model/link.c: the one path class, NVML's levels to it, its NCCL level */
static void test_nvml_level(void **state)
{
	(void)state;
	/* every level nvmlGpuTopologyLevel_t defines, and numbers it does not */
	static const struct { long long lvl; enum link_class want; } lv[] = {
		{ 0, LINK_PIX }, { 10, LINK_PIX }, { 20, LINK_PXB }, { 30, LINK_PHB }, { 40, LINK_NODE }, { 50, LINK_SYS },
		{ -1, LINK_UNKNOWN }, { 5, LINK_UNKNOWN }, { 7, LINK_UNKNOWN }, { 60, LINK_UNKNOWN },
		{ 1LL << 40, LINK_UNKNOWN }, { -(1LL << 62), LINK_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof(lv) / sizeof(lv[0]); i++)
		if (link_of_nvml_level(lv[i].lvl) != lv[i].want)
			fail_msg("NVML level %lld is %s, wanted %s", lv[i].lvl, link_class_name(link_of_nvml_level(lv[i].lvl)),
				 link_class_name(lv[i].want));
	assert_string_equal(link_class_name(LINK_X), "X");
	assert_string_equal(link_class_name(LINK_NODE), "NODE");
	assert_string_equal(link_class_name(LINK_UNKNOWN), "?");
	assert_string_equal(link_class_name((enum link_class)99), "?");
	char buf[16];
	assert_string_equal(link_cell_text((struct link){ LINK_PHB, 0 }, buf, sizeof(buf)), "PHB");
	assert_string_equal(link_cell_text((struct link){ LINK_PIX, 18 }, buf, sizeof(buf)), "NV18");
	assert_false(link_cell_known((struct link){ LINK_UNKNOWN, 0 }));
	assert_true(link_cell_known((struct link){ LINK_UNKNOWN, 2 }));
	/* the cell words read back */
	struct link l;
	assert_true(link_cell_parse("NV18", &l));
	assert_int_equal(l.cls, LINK_NV);
	assert_int_equal(l.nvlinks, 18);
	assert_string_equal(link_cell_text(l, buf, sizeof(buf)), "NV18");
	for (int c = LINK_PIX; c <= LINK_SYS; c++) {
		assert_true(link_cell_parse(link_class_name((enum link_class)c), &l));
		assert_int_equal(l.cls, c);
		assert_int_equal(l.nvlinks, 0);
	}
	const char *bad[] = { NULL, "", "X", "?", "NV", "NV0", "NV1000", "NVx", "NVB", "pix", "PIX ", "SYS1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		l = (struct link){ LINK_SYS, 3 };
		if (link_cell_parse(bad[i], &l) || l.cls != LINK_UNKNOWN || l.nvlinks != 0)
			fail_msg("'%s' read as a cell", bad[i] ? bad[i] : "(null)");
	}
	/* the NCCL_P2P_LEVEL that admits each class: NODE counts as PHB */
	static const struct { enum link_class c, lvl; const char *name; } nl[] = {
		{ LINK_UNKNOWN, LINK_UNKNOWN, "none" }, { LINK_X, LINK_UNKNOWN, "none" }, { LINK_NV, LINK_NV, "NVL" },
		{ LINK_PIX, LINK_PIX, "PIX" }, { LINK_PXB, LINK_PXB, "PXB" }, { LINK_PHB, LINK_PHB, "PHB" },
		{ LINK_NODE, LINK_PHB, "PHB" }, { LINK_SYS, LINK_SYS, "SYS" }, { (enum link_class)42, LINK_UNKNOWN, "none" },
	};
	for (size_t i = 0; i < sizeof(nl) / sizeof(nl[0]); i++) {
		assert_int_equal(link_nccl_level(nl[i].c), nl[i].lvl);
		assert_string_equal(link_nccl_level_name(nl[i].c), nl[i].name);
	}
	/* the levels keep NCCL's order */
	assert_true(LINK_NV < LINK_PIX && LINK_PIX < LINK_PXB && LINK_PXB < LINK_PHB && LINK_PHB < LINK_NODE &&
		    LINK_NODE < LINK_SYS);
}

/* model/link.c: the one builder of the NV# matrix from nvml-topo's answer */
static void test_nv_matrix(void **state)
{
	(void)state;
	/* GPU 0-1: 2 direct links (one more inactive); GPU 2 and 3: 4 and 6
	 * links to NVSwitches, GPU 1 one to a remote of no type (a switch as far
	 * as anyone knows); a link to a GPU not in the list counts nowhere */
	json_error_t err;
	json_t *gpus = json_loads(
		"[{\"bdf\":\"0000:01:00.0\",\"nvlinks\":["
		"{\"active\":true,\"remote_bdf\":\"0000:02:00.0\",\"remote_type\":\"gpu\"},"
		"{\"active\":true,\"remote_bdf\":\"0000:02:00.0\"},"
		"{\"active\":false,\"remote_bdf\":\"0000:02:00.0\"},"
		"{\"active\":true,\"remote_bdf\":\"0000:99:00.0\",\"remote_type\":\"gpu\"}]},"
		" {\"bdf\":\"0000:02:00.0\",\"nvlinks\":[{\"active\":true,\"remote_bdf\":\"0000:aa:00.0\"}]},"
		" {\"bdf\":\"0000:03:00.0\",\"nvlinks\":["
		"{\"active\":true,\"remote_bdf\":\"0000:aa:00.0\",\"remote_type\":\"switch\"},"
		"{\"active\":true,\"remote_bdf\":\"0000:aa:00.0\",\"remote_type\":\"switch\"},"
		"{\"active\":true,\"remote_type\":\"switch\"},{\"active\":true}]},"
		" {\"bdf\":\"0000:04:00.0\",\"nvlinks\":["
		"{\"active\":true},{\"active\":true},{\"active\":true},"
		"{\"active\":true},{\"active\":true},{\"active\":true}]},"
		" {\"nvlinks\":[{\"active\":true,\"remote_bdf\":\"0000:01:00.0\"}]}]",
		0, &err);
	assert_non_null(gpus);
	int nv[25];
	memset(nv, 0x55, sizeof(nv));
	link_nv_matrix(gpus, 4, nv);
	static const int want4[16] = {
		0, 2, 0, 0,
		0, 0, 1, 1,
		0, 1, 0, 4,
		0, 1, 4, 0,
	};
	for (int k = 0; k < 16; k++)
		if (nv[k] != want4[k])
			fail_msg("NV# of GPU %d - GPU %d is %d, wanted %d", k / 4, k % 4, nv[k], want4[k]);
	/* all five: the fifth (no address) has a link to GPU 0 */
	link_nv_matrix(gpus, 5, nv);
	assert_int_equal(nv[4 * 5 + 0], 1);
	assert_int_equal(nv[0 * 5 + 1], 2);
	assert_int_equal(nv[0 * 5 + 4], 0);
	assert_int_equal(nv[4 * 5 + 4], 0);
	/* a single GPU, and no answer at all: zeros */
	link_nv_matrix(gpus, 1, nv);
	assert_int_equal(nv[0], 0);
	memset(nv, 0x55, sizeof(nv));
	link_nv_matrix(NULL, 3, nv);
	for (int k = 0; k < 9; k++)
		assert_int_equal(nv[k], 0);
	link_nv_matrix(gpus, 0, nv); /* nothing to fill, nothing touched */
	json_decref(gpus);
}

static struct result *collect(const char *root, const char *gpus, int want_rc)
{
	assert_int_equal(sysroot_set(root), 0);
	struct gpusel sel;
	char err[128];
	assert_int_equal(gpusel_parse(gpus, &sel, err, sizeof(err)), 0);
	struct topo_params p = { .sysfs_only = false, .ask_driver = false, .gpus = &sel };
	struct result *r = result_new("topo");
	struct machine mach;
	machine_init(&mach);
	collect_pci(&mach);
	collect_driver(&mach);
	assert_int_equal(topo_run(r, &p, &mach), want_rc);
	machine_release(&mach);
	sysroot_set(NULL);
	return r;
}

static void test_collect_sysfs(void **state)
{
	(void)state;
	struct result *r = collect(ND_FIXTURES "/fakegpu/sysroot-pxb", NULL, 0);
	const struct topo_model *m = r->topo;
	assert_non_null(m);
	assert_false(m->from_nvml);
	assert_int_equal(m->n, 4);
	assert_null(m->nvml_matrix);
	assert_non_null(m->sysfs_matrix);
	assert_false(m->have_p2p);
	char buf[16];
	assert_string_equal(link_cell_text(*topo_cell(m, m->matrix, 0, 1), buf, sizeof(buf)), "PXB");
	assert_string_equal(link_cell_text(*topo_cell(m, m->matrix, 2, 3), buf, sizeof(buf)), "SYS");
	assert_int_equal(m->gpus[3].numa_node, 1);
	assert_string_equal(m->gpus[3].cpu_affinity, "16-31");
	assert_int_equal(m->gpus[0].bar1_bytes, 128LL << 30);
	/* GPU 3 runs at x8 of x16: the only finding */
	assert_int_equal(r->nfindings, 1);
	assert_non_null(finding_get(r, FID_PCIE_LINK_DOWNTRAINED));
	assert_non_null(strstr(r->findings[0]->title, "GPU 3"));
	assert_null(r->error);
	result_free(r);

	/* --gpus picks by index and by bus id; the matrix follows */
	r = collect(ND_FIXTURES "/fakegpu/sysroot-pxb", "1,3", 0);
	assert_int_equal(r->topo->n, 2);
	assert_int_equal(r->topo->gpus[0].index, 1);
	assert_int_equal(r->topo->gpus[1].index, 3);
	assert_string_equal(link_cell_text(*topo_cell(r->topo, r->topo->matrix, 0, 1), buf, sizeof(buf)), "SYS");
	result_free(r);

	/* a selection that matches nothing: an error, no model */
	r = collect(ND_FIXTURES "/fakegpu/sysroot-pxb", "7", -ENODEV);
	assert_non_null(r->error);
	assert_non_null(strstr(r->error, "selects none of the 4 GPUs"));
	assert_null(r->topo);
	result_free(r);
}

static void test_worker_findings(void **state)
{
	(void)state;
	struct result *r = result_new("topo");
	/* in memory: an outcome as run/worker.c would report it */
	struct worker_outcome w = { .task = "nvml-topo" };
	w.status = WORKER_OK;
	assert_null(worker_findings(r, &w, WLIB_NVML, false));

	w.status = WORKER_HANG;
	strcpy(w.stage, "nvmlInit");
	struct finding *f = worker_findings(r, &w, WLIB_NVML, false);
	assert_string_equal(f->id, "NVML_HANG");
	assert_string_equal(f->title, "NVML hung in 'nvmlInit'");

	/* loader errors: a missing symbol, a missing library */
	w.status = WORKER_ERROR;
	json_decref(w.error);
	w.error = json_pack("{s:s,s:s}", "lib", VENDOR_LOADER, "name", vendor_reason_name(VENDOR_SYMBOL_MISSING));
	f = worker_findings(r, &w, WLIB_CUDA, false);
	assert_string_equal(f->id, "VENDOR_SYMBOL_MISSING");
	assert_string_equal(f->title, "libcuda.so.1 lacks a required entry point");
	json_decref(w.error);
	w.error = json_pack("{s:s,s:s}", "lib", VENDOR_LOADER, "name", vendor_err_reason(-ENOENT));
	f = worker_findings(r, &w, WLIB_NVML, false);
	assert_string_equal(f->id, "NVML_NOT_AVAILABLE");
	/* no CUDA finding on top of "no driver" */
	assert_null(worker_findings(r, &w, WLIB_CUDA, true));
	f = worker_findings(r, &w, WLIB_CUDA, false);
	assert_string_equal(f->id, "CUDA_INIT_FAILED");
	/* a vendor call that failed */
	json_decref(w.error);
	w.error = json_pack("{s:s,s:s}", "lib", "cuda", "name", "CUDA_ERROR_NO_DEVICE");
	strcpy(w.stage, "cuInit");
	f = worker_findings(r, &w, WLIB_CUDA, false);
	assert_string_equal(f->title, "cuInit failed: CUDA_ERROR_NO_DEVICE");
	/* evidence names the worker and its stage */
	assert_true(f->nev >= 1);
	assert_non_null(strstr(f->ev[0].text, "worker 'nvml-topo': error after"));
	worker_outcome_release(&w);
	result_free(r);
}

static void test_reasons(void **state)
{
	(void)state;
	assert_string_equal(vendor_err_reason(-ENOENT), "not_installed");
	assert_string_equal(vendor_err_reason(-ENOSYS), "symbol_missing");
	assert_string_equal(vendor_err_reason(-ELIBBAD), "cannot_load");
	assert_int_equal(vendor_reason_of(0), VENDOR_LOADED);
	for (int r = VENDOR_LOADED; r <= VENDOR_SYMBOL_MISSING; r++)
		assert_int_equal(vendor_reason_parse(vendor_reason_name((enum vendor_reason)r)), r);
	assert_int_equal(vendor_reason_parse("nonsense"), VENDOR_CANNOT_LOAD);
	assert_int_equal(vendor_reason_parse(NULL), VENDOR_CANNOT_LOAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_class),
		cmocka_unit_test(test_nvml_level),
		cmocka_unit_test(test_nv_matrix),
		cmocka_unit_test(test_collect_sysfs),
		cmocka_unit_test(test_worker_findings),
		cmocka_unit_test(test_reasons),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
