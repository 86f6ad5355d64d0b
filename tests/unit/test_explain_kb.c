/* Unit tests of the knowledge-base tables behind `explain`: the Xid catalog
 * (every code of kernel-log.md's Ampere+ table and the named legacy ones,
 * valid cause classes, an XID_<code> finding for each), the finding catalog
 * (unique ids, valid causes, complete text), every variable of nccl-env.md,
 * and the quick-reference symptoms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kb/causes.h"
#include "kb/findings.h"
#include "kb/nccl_env.h"
#include "kb/symptoms.h"
#include "kb/xid.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* kernel-log.md, "Xid table (Ampere+ catalog)", ranges expanded */
static const int catalog_codes[] = {
	8, 11, 13, 14, 25, 31, 32, 37, 38, 39, 40, 41, 43, 44, 45, 46, 48, 54, 60, 62, 63, 64, 66, 67,
	68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 80, 82, 83, 84, 88, 89, 85, 86, 92, 93, 94, 95,
	96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 119, 120, 121, 126,
	127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 139, 140, 141, 142, 143, 144, 145, 146,
	147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165,
	166, 170, 167, 168, 169, 171, 172,
	/* legacy codes the knowledge base names */
	59, 61, 90, 125,
};

/* nccl-env.md, every variable named (abbreviated rows expanded) */
static const char *const env_names[] = {
	"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE", "NCCL_NET",
	"NCCL_NET_PLUGIN", "NCCL_SOCKET_IFNAME", "NCCL_SOCKET_FAMILY", "NCCL_COMM_ID", "NCCL_HOSTID",
	"NCCL_CUMEM_ENABLE", "NCCL_CUMEM_HOST_ENABLE", "NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE",
	"NCCL_IGNORE_CPU_AFFINITY", "NCCL_COMM_BLOCKING", "NCCL_RUNTIME_CONNECT", "NCCL_DEBUG",
	"NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_DEBUG_TIMESTAMP_FORMAT", "NCCL_DEBUG_TIMESTAMP_LEVELS",
	"NCCL_WARN_ENABLE_DEBUG_INFO", "NCCL_TOPO_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_TOPO_DUMP_FILE_RANK",
	"NCCL_GRAPH_DUMP_FILE", "NCCL_GRAPH_FILE", "NCCL_PROTO", "NCCL_ALGO", "NCCL_MIN_NCHANNELS",
	"NCCL_MAX_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_BUFFSIZE", "NCCL_NTHREADS",
	"NCCL_P2P_USE_CUDA_MEMCPY", "NCCL_P2P_NET_CHUNKSIZE", "NCCL_P2P_PCI_CHUNKSIZE",
	"NCCL_P2P_NVL_CHUNKSIZE", "NCCL_P2P_READ_ENABLE", "NCCL_P2P_DIRECT_DISABLE",
	"NCCL_IGNORE_DISABLED_P2P", "NCCL_NET_DISABLE_INTRA", "NCCL_NVB_DISABLE", "NCCL_PXN_DISABLE",
	"NCCL_P2P_PXN_LEVEL", "NCCL_CROSS_NIC", "NCCL_NET_GDR_LEVEL", "NCCL_IB_GDR_LEVEL",
	"NCCL_NET_GDR_READ", "NCCL_DMABUF_ENABLE", "NCCL_LAUNCH_MODE", "NCCL_SET_STACK_SIZE",
	"NCCL_LAUNCH_ORDER_IMPLICIT", "NCCL_IPC_USE_ABSTRACT_SOCKET", "NCCL_MULTI_RANK_GPU_ENABLE",
	"NCCL_RUN_DIAGNOSTICS", "NCCL_SOCKET_RETRY_CNT", "NCCL_SOCKET_RETRY_SLEEP_MSEC", "NCCL_IB_TIMEOUT",
	"NCCL_IB_RETRY_CNT", "NCCL_PROXY_DUMP_SIGNAL", "NCCL_RAS_ENABLE", "NCCL_RAS_ADDR", "NCCL_CONF_FILE",
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "TORCH_NCCL_ASYNC_ERROR_HANDLING",
	"TORCH_NCCL_BLOCKING_WAIT", "TORCH_NCCL_ENABLE_MONITORING", "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC",
	"TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DESYNC_DEBUG",
	"TORCH_DISTRIBUTED_DEBUG", "VLLM_SKIP_P2P_CHECK", "VLLM_HOST_IP", "GLOO_SOCKET_IFNAME",
};

static void test_xid_table(void **state)
{
	(void)state;
	size_t n;
	const struct xid_def *xs = kb_xids(&n);
	assert_true(n >= sizeof(catalog_codes) / sizeof(catalog_codes[0]));
	for (size_t i = 0; i < n; i++) {
		if (i)
			assert_true(xs[i].code > xs[i - 1].code); /* sorted, unique */
		assert_true(kb_cause_valid(xs[i].cause));
		assert_true(strlen(xs[i].name) > 3 && strlen(xs[i].meaning) > 10);
		assert_true(*xs[i].action && *xs[i].investigate && *xs[i].xclass);
		char id[32];
		snprintf(id, sizeof(id), "XID_%d", xs[i].code);
		const struct finding_def *f = kb_finding(id);
		assert_non_null(f);
		assert_string_equal(f->cause, xs[i].cause);
		assert_int_equal(f->severity, xs[i].severity);
	}
	for (size_t i = 0; i < sizeof(catalog_codes) / sizeof(catalog_codes[0]); i++) {
		const struct xid_def *x = kb_xid(catalog_codes[i]);
		if (!x)
			fail_msg("Xid %d of the catalog is missing", catalog_codes[i]);
	}
	assert_string_equal(kb_xid(79)->name, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
	assert_string_equal(kb_xid(79)->action, "RESTART_BM");
	assert_string_equal(kb_xid(48)->xclass, "MEM");
	assert_string_equal(kb_xid(74)->cause, "nvlink_fabric");
	/* schema 3: the GPU's own faults, the PCIe bus and the application's
	 * kernels are classes of their own */
	assert_string_equal(kb_xid(79)->cause, "gpu_hardware");
	assert_string_equal(kb_xid(48)->cause, "gpu_hardware");
	assert_string_equal(kb_xid(167)->cause, "pcie_link");
	assert_string_equal(kb_xid(13)->cause, "app_gpu_fault");
	assert_string_equal(kb_xid(31)->cause, "app_gpu_fault");
	assert_true(xid_is_legacy(kb_xid(59)));
	assert_false(xid_is_legacy(kb_xid(79)));
	assert_null(kb_xid(5));
	assert_non_null(xid_action_text("RESET_GPU"));
	assert_non_null(xid_action_text("WORKFLOW_XID_48 (reset the GPU or reboot)"));
	assert_null(xid_action_text("RESET"));
}

static void test_finding_catalog(void **state)
{
	(void)state;
	size_t n;
	const struct finding_def *fs = kb_findings(&n);
	for (size_t i = 0; i < n; i++) {
		for (const char *p = fs[i].id; *p; p++)
			assert_true(isupper((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_');
		for (size_t k = 0; k < i; k++)
			if (strcmp(fs[i].id, fs[k].id) == 0)
				fail_msg("finding %s is defined twice", fs[i].id);
		if (!kb_cause_valid(fs[i].cause))
			fail_msg("finding %s has an unknown cause class %s", fs[i].id, fs[i].cause);
		assert_true(*fs[i].summary && *fs[i].meaning && *fs[i].fix);
	}
	static const char *const kernel_ids[] = { "XID_UNKNOWN", "GPU_FALLEN_OFF_BUS", "PCIE_AER_CORRECTABLE",
		"PCIE_AER_NONFATAL", "PCIE_AER_FATAL", "PCIE_ACS_VIOLATION", "P2P_IOMMU_FAULT", "GPU_IOMMU_FAULT",
		"EDAC_UE", "EDAC_CE", "IOMMU_DEFAULT_TRANSLATED", "HUNG_TASK_NVIDIA", "KMSG_RECORDS_LOST" };
	for (size_t i = 0; i < sizeof(kernel_ids) / sizeof(kernel_ids[0]); i++)
		assert_non_null(kb_finding(kernel_ids[i]));
	assert_string_equal(kb_finding("P2P_IOMMU_FAULT")->cause, "p2p_pcie_acs_iommu");
}

static void test_env(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++) {
		const struct nccl_env_def *v = kb_nccl_env(env_names[i]);
		if (!v)
			fail_msg("variable %s of nccl-env.md is missing", env_names[i]);
		assert_true(*v->values && *v->dflt && *v->effect && *v->source && *v->scope);
	}
	size_t n;
	const struct nccl_env_def *vs = kb_nccl_envs(&n);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(vs[i].name, vs[k].name);
	const struct nccl_env_def *lvl = kb_nccl_env("nccl_p2p_level");
	assert_non_null(lvl);
	assert_non_null(strstr(lvl->values, "PXB"));
	assert_string_equal(lvl->since, "2.3.4");
	assert_null(kb_nccl_env("NCCL_NOT_A_VARIABLE"));
}

/* Every cause class has a first step (a line that names it through a
 * table gets it as its Next), a sentence that ends, naming no other class. */
static void test_cause_next(void **state)
{
	(void)state;
	size_t n;
	const struct cause_def *c = kb_causes(&n);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(c[i].next);
		size_t len = strlen(c[i].next);
		assert_true(len > 40);
		assert_int_equal(c[i].next[len - 1], '.');
		for (size_t k = 0; k < n; k++)
			if (k != i && strcmp(c[k].name, "unknown") != 0)
				assert_null(strstr(c[i].next, c[k].name));
	}
}

static void test_symptoms(void **state)
{
	(void)state;
	static const char *const ids[] = { "HANG_AT_INIT", "MEMORY_USED_NO_RESPONSE", "SOME_GPUS_NOT_WORKING",
					   "THROUGHPUT_FLUCTUATING", "OCCASIONAL_CRASHES" };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct symptom_def *s = kb_symptom(ids[i]);
		assert_non_null(s);
		assert_true(*s->symptom && *s->cause && *s->guide_fix && *s->better);
		/* every related entry exists somewhere in the knowledge base */
		char rel[512];
		snprintf(rel, sizeof(rel), "%s", s->related);
		for (char *t = strtok(rel, ", "); t; t = strtok(NULL, ", "))
			if (!kb_finding(t) && !kb_nccl_env(t))
				fail_msg("%s names %s, which is no finding or variable", ids[i], t);
	}
	assert_non_null(strstr(kb_symptom("HANG_AT_INIT")->guide_fix, "NCCL_P2P_DISABLE=1"));
	assert_non_null(strstr(kb_symptom("SOME_GPUS_NOT_WORKING")->guide_fix, "numactl"));
	assert_non_null(strstr(kb_symptom("THROUGHPUT_FLUCTUATING")->guide_fix, "ibstatus"));
	const struct symptom_def *ecc = kb_symptom("OCCASIONAL_CRASHES");
	assert_non_null(strstr(ecc->caveat, "nvidia-smi -e 0"));
	assert_non_null(strstr(ecc->caveat, "hides the problem"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xid_table),
		cmocka_unit_test(test_finding_catalog),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_symptoms),
		cmocka_unit_test(test_cause_next),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
