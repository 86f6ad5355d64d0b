/* Worker task `nvml-topo`: everything `topo` asks of NVML, one call per
 * stage so that a call that hangs is named by the parent. Per GPU: name,
 * UUID, PCI bus id, NUMA node, CPU affinity, PCIe gen/width, memory, BAR1,
 * persistence, MIG, ECC, remapped rows, NVLink state and remote end, and
 * for the NVLink fabric: the GPU's fabric state (nvmlDeviceGetGpuFabricInfoV,
 * else the older call), the link count, each link's speed, version and
 * error counters (read twice, a second apart, when any is not zero, so the
 * parent can tell rising counters from old ones). Per ordered pair: the common ancestor level and the P2P status for read,
 * write, NVLink and atomics. A GPU that answers NVML_ERROR_GPU_IS_LOST is
 * marked lost and not asked again. Raw facts only: the parent interprets. */
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "model/vendor_reason.h"
#include "util/jsonx.h"
#include "util/strbuf.h"
#include "nvlib/nvlib.h"

#include <ctype.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MAX_GPUS 64

struct gpu {
	nvmlDevice_t h;
	json_t *o;
	json_t *errors;
	bool lost;
};

static const struct nvml_api *nv;

/* Records a failed call; true when the call succeeded. */
static bool ok(struct gpu *g, const char *what, nvmlReturn_t r)
{
	if (r == NVML_SUCCESS)
		return true;
	json_object_set_new(g->errors, what, json_string(nvml_error_name(r)));
	if (r == NVML_ERROR_GPU_IS_LOST && !g->lost) {
		g->lost = true;
		json_object_set_new(g->o, "lost", json_true());
		json_object_set_new(g->o, "lost_at", json_str_lossy(wmsg_current_stage()));
	}
	return false;
}

/* "0000:3a:00.0" from NVML's "00000000:3A:00.0" */
static void norm_bdf(const char *in, char *out, size_t outsz)
{
	unsigned dom, bus, dev, fn;
	if (sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
		snprintf(out, outsz, "%04x:%02x:%02x.%x", dom & 0xffff, bus, dev, fn);
	else
		snprintf(out, outsz, "%s", in);
}

static void cpulist_from_mask(const unsigned long *mask, unsigned words, char *out, size_t outsz)
{
	struct strbuf sb;
	strbuf_init(&sb, outsz - 1);
	unsigned bits = words * 8 * sizeof(unsigned long);
	for (unsigned i = 0; i < bits;) {
		if (!(mask[i / (8 * sizeof(unsigned long))] >> (i % (8 * sizeof(unsigned long))) & 1UL)) {
			i++;
			continue;
		}
		unsigned j = i;
		while (j + 1 < bits && (mask[(j + 1) / (8 * sizeof(unsigned long))] >> ((j + 1) % (8 * sizeof(unsigned long))) & 1UL))
			j++;
		if (sb.len)
			strbuf_addch(&sb, ',');
		if (j > i)
			strbuf_addf(&sb, "%u-%u", i, j);
		else
			strbuf_addf(&sb, "%u", i);
		i = j + 1;
	}
	snprintf(out, outsz, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

#define STAGE(call) wmsg_stage("gpu %u %s", i, call)

/* Name, UUID and PCI address. */
static void query_identity(unsigned i, struct gpu *g)
{
	json_t *o = g->o;
	char buf[256];
	STAGE("nvmlDeviceGetName");
	if (ok(g, "name", nv->nvmlDeviceGetName(g->h, buf, NVML_DEVICE_NAME_V2_BUFFER_SIZE)))
		json_object_set_new(o, "name", json_str_lossy(buf));
	if (g->lost) return;
	STAGE("nvmlDeviceGetUUID");
	if (ok(g, "uuid", nv->nvmlDeviceGetUUID(g->h, buf, NVML_DEVICE_UUID_V2_BUFFER_SIZE)))
		json_object_set_new(o, "uuid", json_str_lossy(buf));
	if (g->lost) return;
	nvmlPciInfo_t pci;
	memset(&pci, 0, sizeof(pci));
	STAGE("nvmlDeviceGetPciInfo");
	if (ok(g, "pci", nv->nvmlDeviceGetPciInfo(g->h, &pci))) {
		char bdf[64];
		pci.busId[sizeof(pci.busId) - 1] = '\0';
		norm_bdf(pci.busId, bdf, sizeof(bdf));
		json_object_set_new(o, "bdf", json_string(bdf));
		json_object_set_new(o, "pci_device_id", json_integer(pci.pciDeviceId));
	}
	if (g->lost) return;
}

/* NUMA node, GPU memory node and CPU affinity. */
static void query_affinity(unsigned i, struct gpu *g)
{
	json_t *o = g->o;
	char buf[256];
	nvmlReturn_t r;
	/* the host NUMA node the GPU is attached to (nvidia-smi's "NUMA
	 * Affinity"); nvmlDeviceGetNumaNodeId is another thing: the node of the
	 * GPU's own memory where it is onlined (Grace Hopper), "GPU NUMA ID" */
	if (nv->nvmlDeviceGetMemoryAffinity) {
		unsigned long set[16];
		memset(set, 0, sizeof(set));
		STAGE("nvmlDeviceGetMemoryAffinity");
		if (ok(g, "numa_affinity", nv->nvmlDeviceGetMemoryAffinity(g->h, 16, set, NVML_AFFINITY_SCOPE_NODE))) {
			cpulist_from_mask(set, 16, buf, sizeof(buf));
			json_object_set_new(o, "numa_affinity", json_string(buf));
		}
		if (g->lost) return;
	}
	if (nv->nvmlDeviceGetNumaNodeId) {
		unsigned node;
		STAGE("nvmlDeviceGetNumaNodeId");
		r = nv->nvmlDeviceGetNumaNodeId(g->h, &node);
		if (r == NVML_SUCCESS)
			json_object_set_new(o, "gpu_numa_id", json_integer(node));
		else if (r == NVML_ERROR_GPU_IS_LOST)
			ok(g, "gpu_numa_id", r);
		if (g->lost) return;
	}
	if (nv->nvmlDeviceGetCpuAffinity) {
		unsigned long mask[16];
		memset(mask, 0, sizeof(mask));
		STAGE("nvmlDeviceGetCpuAffinity");
		if (ok(g, "cpu_affinity", nv->nvmlDeviceGetCpuAffinity(g->h, 16, mask))) {
			cpulist_from_mask(mask, 16, buf, sizeof(buf));
			json_object_set_new(o, "cpu_affinity", json_string(buf));
		}
		if (g->lost) return;
	}
}

/* PCIe link generation and width, current and maximum. */
static void query_pcie(unsigned i, struct gpu *g)
{
	json_t *o = g->o;
	struct { const char *key, *call; nvmlReturn_t (*fn)(nvmlDevice_t, unsigned *); } pcie[] = {
		{ "pcie_cur_gen", "nvmlDeviceGetCurrPcieLinkGeneration", nv->nvmlDeviceGetCurrPcieLinkGeneration },
		{ "pcie_max_gen", "nvmlDeviceGetMaxPcieLinkGeneration", nv->nvmlDeviceGetMaxPcieLinkGeneration },
		{ "pcie_cur_width", "nvmlDeviceGetCurrPcieLinkWidth", nv->nvmlDeviceGetCurrPcieLinkWidth },
		{ "pcie_max_width", "nvmlDeviceGetMaxPcieLinkWidth", nv->nvmlDeviceGetMaxPcieLinkWidth },
	};
	for (size_t k = 0; k < sizeof(pcie) / sizeof(pcie[0]); k++) {
		unsigned v;
		if (!pcie[k].fn)
			continue;
		STAGE(pcie[k].call);
		if (ok(g, pcie[k].key, pcie[k].fn(g->h, &v)))
			json_object_set_new(o, pcie[k].key, json_integer(v));
		if (g->lost) return;
	}
}

/* Memory and BAR1 sizes. */
static void query_memory(unsigned i, struct gpu *g)
{
	json_t *o = g->o;
	nvmlReturn_t r;
	/* memory: the versioned call first (version = sizeof | 2 << 24) */
	bool mem = false;
	if (nv->nvmlDeviceGetMemoryInfo_v2) {
		nvmlMemory_v2_t m2;
		memset(&m2, 0, sizeof(m2));
		m2.version = nvmlMemory_v2;
		STAGE("nvmlDeviceGetMemoryInfo_v2");
		r = nv->nvmlDeviceGetMemoryInfo_v2(g->h, &m2);
		if (r == NVML_SUCCESS) {
			json_object_set_new(o, "memory_total", json_integer((json_int_t)m2.total));
			json_object_set_new(o, "memory_reserved", json_integer((json_int_t)m2.reserved));
			mem = true;
		} else if (r == NVML_ERROR_GPU_IS_LOST) {
			ok(g, "memory", r);
			return;
		}
	}
	if (!mem) {
		nvmlMemory_t m;
		STAGE("nvmlDeviceGetMemoryInfo");
		if (ok(g, "memory", nv->nvmlDeviceGetMemoryInfo(g->h, &m)))
			json_object_set_new(o, "memory_total", json_integer((json_int_t)m.total));
		if (g->lost) return;
	}
	if (nv->nvmlDeviceGetBAR1MemoryInfo) {
		nvmlBAR1Memory_t b;
		STAGE("nvmlDeviceGetBAR1MemoryInfo");
		if (ok(g, "bar1", nv->nvmlDeviceGetBAR1MemoryInfo(g->h, &b)))
			json_object_set_new(o, "bar1_total", json_integer((json_int_t)b.bar1Total));
		if (g->lost) return;
	}
}

/* Persistence, MIG and ECC modes, remapped rows. */
static void query_modes(unsigned i, struct gpu *g)
{
	json_t *o = g->o;
	if (nv->nvmlDeviceGetPersistenceMode) {
		nvmlEnableState_t e;
		STAGE("nvmlDeviceGetPersistenceMode");
		if (ok(g, "persistence", nv->nvmlDeviceGetPersistenceMode(g->h, &e)))
			json_object_set_new(o, "persistence", json_boolean(e == NVML_FEATURE_ENABLED));
		if (g->lost) return;
	}
	if (nv->nvmlDeviceGetMigMode) {
		unsigned cur, pend;
		STAGE("nvmlDeviceGetMigMode");
		if (ok(g, "mig", nv->nvmlDeviceGetMigMode(g->h, &cur, &pend))) {
			json_object_set_new(o, "mig_current", json_boolean(cur == 1));
			json_object_set_new(o, "mig_pending", json_boolean(pend == 1));
		}
		if (g->lost) return;
	}
	if (nv->nvmlDeviceGetEccMode) {
		nvmlEnableState_t cur, pend;
		STAGE("nvmlDeviceGetEccMode");
		if (ok(g, "ecc", nv->nvmlDeviceGetEccMode(g->h, &cur, &pend))) {
			json_object_set_new(o, "ecc_current", json_boolean(cur == NVML_FEATURE_ENABLED));
			json_object_set_new(o, "ecc_pending", json_boolean(pend == NVML_FEATURE_ENABLED));
		}
		if (g->lost) return;
	}
	if (nv->nvmlDeviceGetRemappedRows) {
		unsigned corr, unc, pend, fail;
		STAGE("nvmlDeviceGetRemappedRows");
		if (ok(g, "remapped_rows", nv->nvmlDeviceGetRemappedRows(g->h, &corr, &unc, &pend, &fail)))
			json_object_set_new(o, "remapped_rows", json_pack("{s:i,s:i,s:b,s:b}", "correctable", (int)corr,
									  "uncorrectable", (int)unc, "pending", pend != 0, "failure", fail != 0));
		if (g->lost) return;
	}
}

/* One NVML field of a device (scope: the link for per-link fields); true
 * with *v set when NVML gave it. */
static bool field_u64(struct gpu *g, unsigned id, unsigned scope, unsigned long long *v)
{
	if (!nv->nvmlDeviceGetFieldValues)
		return false;
	nvmlFieldValue_t f;
	memset(&f, 0, sizeof(f));
	f.fieldId = id;
	f.scopeId = scope;
	if (nv->nvmlDeviceGetFieldValues(g->h, 1, &f) != NVML_SUCCESS || f.nvmlReturn != NVML_SUCCESS)
		return false;
	switch (f.valueType) {
	case NVML_VALUE_TYPE_UNSIGNED_INT: *v = f.value.uiVal; return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG: *v = f.value.ulVal; return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *v = f.value.ullVal; return true;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *v = f.value.sllVal < 0 ? 0 : (unsigned long long)f.value.sllVal; return true;
	case NVML_VALUE_TYPE_SIGNED_INT: *v = f.value.siVal < 0 ? 0 : (unsigned long long)f.value.siVal; return true;
	default: return false;
	}
}

static const struct { const char *key; nvmlNvLinkErrorCounter_t c; } nvl_counters[] = {
	{ "replay", NVML_NVLINK_ERROR_DL_REPLAY }, { "recovery", NVML_NVLINK_ERROR_DL_RECOVERY },
	{ "crc_flit", NVML_NVLINK_ERROR_DL_CRC_FLIT }, { "crc_data", NVML_NVLINK_ERROR_DL_CRC_DATA },
};

/* The error counters of link l as an object (NULL when NVML gives none);
 * *nonzero is set when one is not zero. */
static json_t *nvlink_errors(unsigned i, struct gpu *g, unsigned l, bool *nonzero)
{
	if (!nv->nvmlDeviceGetNvLinkErrorCounter)
		return NULL;
	json_t *e = NULL;
	for (size_t k = 0; k < sizeof(nvl_counters) / sizeof(nvl_counters[0]); k++) {
		unsigned long long v;
		wmsg_stage("gpu %u nvmlDeviceGetNvLinkErrorCounter link %u %s", i, l, nvl_counters[k].key);
		nvmlReturn_t r = nv->nvmlDeviceGetNvLinkErrorCounter(g->h, l, nvl_counters[k].c, &v);
		if (r == NVML_ERROR_GPU_IS_LOST)
			ok(g, "nvlink_errors", r);
		if (r != NVML_SUCCESS)
			continue; /* CRC counters are gone on Blackwell: NOT_SUPPORTED */
		if (!e)
			e = json_object();
		json_object_set_new(e, nvl_counters[k].key, json_integer((json_int_t)v));
		*nonzero |= v != 0;
	}
	return e;
}

/* Speed, version and error counters of link l, into lk. */
static void nvlink_details(unsigned i, struct gpu *g, unsigned l, json_t *lk, bool *nonzero)
{
	unsigned long long v;
	wmsg_stage("gpu %u nvmlDeviceGetFieldValues NVLINK_GET_SPEED link %u", i, l);
	if (field_u64(g, NVML_FI_DEV_NVLINK_GET_SPEED, l, &v))
		json_object_set_new(lk, "speed_mbps", json_integer((json_int_t)v));
	if (nv->nvmlDeviceGetNvLinkVersion) {
		unsigned ver;
		wmsg_stage("gpu %u nvmlDeviceGetNvLinkVersion link %u", i, l);
		if (nv->nvmlDeviceGetNvLinkVersion(g->h, l, &ver) == NVML_SUCCESS)
			json_object_set_new(lk, "version", json_integer(ver));
	}
	json_t *e = nvlink_errors(i, g, l, nonzero);
	if (e)
		json_object_set_new(lk, "errors", e);
}

/* NVLink state and remote end of each link. */
static void query_nvlinks(unsigned i, struct gpu *g)
{
	json_t *o = g->o;
	nvmlReturn_t r;
	nvmlPciInfo_t pci;
	unsigned long long v;
	wmsg_stage("gpu %u nvmlDeviceGetFieldValues NVLINK_LINK_COUNT", i);
	if (field_u64(g, NVML_FI_DEV_NVLINK_LINK_COUNT, 0, &v))
		json_object_set_new(o, "nvlink_count", json_integer((json_int_t)v));
	wmsg_stage("gpu %u nvmlDeviceGetFieldValues NVLINK_SPEED_MBPS_COMMON", i);
	if (field_u64(g, NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON, 0, &v))
		json_object_set_new(o, "nvlink_speed_common_mbps", json_integer((json_int_t)v));
	bool nonzero = false;
	if (nv->nvmlDeviceGetNvLinkState) {
		json_t *links = json_array();
		for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			nvmlEnableState_t a;
			wmsg_stage("gpu %u nvmlDeviceGetNvLinkState link %u", i, l);
			r = nv->nvmlDeviceGetNvLinkState(g->h, l, &a);
			if (r == NVML_ERROR_GPU_IS_LOST) {
				ok(g, "nvlink", r);
				break;
			}
			if (r != NVML_SUCCESS)
				break; /* NOT_SUPPORTED or INVALID_ARGUMENT: no (more) links */
			json_t *lk = json_pack("{s:i,s:b}", "link", (int)l, "active", a == NVML_FEATURE_ENABLED);
			if (nv->nvmlDeviceGetNvLinkRemotePciInfo) {
				memset(&pci, 0, sizeof(pci));
				wmsg_stage("gpu %u nvmlDeviceGetNvLinkRemotePciInfo link %u", i, l);
				if (nv->nvmlDeviceGetNvLinkRemotePciInfo(g->h, l, &pci) == NVML_SUCCESS) {
					char bdf[64];
					pci.busId[sizeof(pci.busId) - 1] = '\0';
					norm_bdf(pci.busId, bdf, sizeof(bdf));
					json_object_set_new(lk, "remote_bdf", json_string(bdf));
				}
			}
			if (nv->nvmlDeviceGetNvLinkRemoteDeviceType) {
				nvmlIntNvLinkDeviceType_t t;
				wmsg_stage("gpu %u nvmlDeviceGetNvLinkRemoteDeviceType link %u", i, l);
				if (nv->nvmlDeviceGetNvLinkRemoteDeviceType(g->h, l, &t) == NVML_SUCCESS)
					json_object_set_new(lk, "remote_type", json_string(t == NVML_NVLINK_DEVICE_TYPE_GPU ? "gpu" : t == NVML_NVLINK_DEVICE_TYPE_SWITCH ? "switch" : "other"));
			}
			nvlink_details(i, g, l, lk, &nonzero);
			json_array_append_new(links, lk);
			if (g->lost)
				break;
		}
		json_object_set_new(o, "nvlinks", links);
		if (nonzero)
			json_object_set_new(o, "nvlink_errors_nonzero", json_true());
	}
}

/* The GPU's place in the NVLink fabric: state, status (meaningful once the
 * state is COMPLETED), clique, cluster UUID, health mask. The versioned call
 * first (v3, then v2 for drivers that know only that), else the first one. */
static void query_fabric(unsigned i, struct gpu *g)
{
	json_t *f = json_object();
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	nvmlGpuFabricInfo_v3_t v3;
	const char *call = NULL;
	if (nv->nvmlDeviceGetGpuFabricInfoV) {
		memset(&v3, 0, sizeof(v3));
		v3.version = nvmlGpuFabricInfo_v3;
		wmsg_stage("gpu %u nvmlDeviceGetGpuFabricInfoV", i);
		r = nv->nvmlDeviceGetGpuFabricInfoV(g->h, &v3);
		call = "nvmlDeviceGetGpuFabricInfoV v3";
		if (r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
			nvmlGpuFabricInfo_v2_t v2;
			memset(&v2, 0, sizeof(v2));
			v2.version = nvmlGpuFabricInfo_v2;
			wmsg_stage("gpu %u nvmlDeviceGetGpuFabricInfoV v2", i);
			r = nv->nvmlDeviceGetGpuFabricInfoV(g->h, (nvmlGpuFabricInfoV_t *)(void *)&v2);
			call = "nvmlDeviceGetGpuFabricInfoV v2";
			memcpy(&v3, &v2, sizeof(v2)); /* the same fields up to healthMask */
			v3.healthSummary = 0;
		}
		if (r == NVML_SUCCESS)
			json_object_set_new(f, "health_mask", json_integer(v3.healthMask));
	}
	if (r == NVML_ERROR_FUNCTION_NOT_FOUND && nv->nvmlDeviceGetGpuFabricInfo) {
		nvmlGpuFabricInfo_t v1;
		memset(&v1, 0, sizeof(v1));
		wmsg_stage("gpu %u nvmlDeviceGetGpuFabricInfo", i);
		r = nv->nvmlDeviceGetGpuFabricInfo(g->h, &v1);
		call = "nvmlDeviceGetGpuFabricInfo";
		memcpy(v3.clusterUuid, v1.clusterUuid, sizeof(v1.clusterUuid));
		v3.status = v1.status;
		v3.cliqueId = v1.cliqueId;
		v3.state = v1.state;
	}
	if (!call) {
		json_decref(f);
		return; /* this NVML has neither call (before driver 525) */
	}
	json_object_set_new(f, "call", json_string(call));
	if (r != NVML_SUCCESS) {
		if (r == NVML_ERROR_GPU_IS_LOST)
			ok(g, "fabric", r);
		json_object_set_new(f, "error", json_string(nvml_error_name(r)));
		json_object_set_new(g->o, "fabric", f);
		return;
	}
	json_object_set_new(f, "state", json_integer(v3.state));
	json_object_set_new(f, "status", json_integer(v3.status));
	json_object_set_new(f, "status_name", json_string(nvml_error_name(v3.status)));
	json_object_set_new(f, "clique_id", json_integer(v3.cliqueId));
	char uuid[40];
	const unsigned char *u = v3.clusterUuid;
	snprintf(uuid, sizeof(uuid), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	json_object_set_new(f, "cluster_uuid", json_string(uuid));
	json_object_set_new(g->o, "fabric", f);
}

/* Second read of the NVLink error counters of the GPUs that had some not
 * zero, a second after the first: "errors_after" beside "errors". */
static void resample_nvlink_errors(struct gpu *g, unsigned n)
{
	bool any = false;
	for (unsigned i = 0; i < n; i++)
		any |= !g[i].lost && json_is_true(json_object_get(g[i].o, "nvlink_errors_nonzero"));
	if (!any)
		return;
	wmsg_stage("waiting 1 s to read the NVLink error counters again");
	sleep(1);
	for (unsigned i = 0; i < n; i++) {
		if (g[i].lost || !json_is_true(json_object_get(g[i].o, "nvlink_errors_nonzero")))
			continue;
		json_t *lk;
		size_t k;
		json_array_foreach(json_object_get(g[i].o, "nvlinks"), k, lk) {
			if (!json_object_get(lk, "errors"))
				continue;
			bool nz = false;
			json_t *e = nvlink_errors(i, &g[i], (unsigned)json_integer_value(json_object_get(lk, "link")), &nz);
			if (e)
				json_object_set_new(lk, "errors_after", e);
			if (g[i].lost)
				break;
		}
	}
}
#undef STAGE

/* Every fact NVML gives of GPU i, section by section; stops at a lost GPU. */
static void query_gpu(unsigned i, struct gpu *g)
{
	static void (*const sections[])(unsigned, struct gpu *) = {
		query_identity, query_affinity, query_pcie, query_memory, query_modes, query_fabric, query_nvlinks,
	};
	for (size_t k = 0; k < sizeof(sections) / sizeof(sections[0]) && !g->lost; k++)
		sections[k](i, g);
}

static const char *p2p_status_name(nvmlGpuP2PStatus_t s)
{
	switch (s) {
	case NVML_P2P_STATUS_OK: return "OK";
	case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED: return "CHIPSET_NOT_SUPPORTED";
	case NVML_P2P_STATUS_GPU_NOT_SUPPORTED: return "GPU_NOT_SUPPORTED";
	case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED: return "IOH_TOPOLOGY_NOT_SUPPORTED";
	case NVML_P2P_STATUS_DISABLED_BY_REGKEY: return "DISABLED_BY_REGKEY";
	case NVML_P2P_STATUS_NOT_SUPPORTED: return "NOT_SUPPORTED";
	default: return "UNKNOWN";
	}
}

int gpu_task_nvml_topo(int argc, char **argv, const char *nccl_path)
{
	(void)argc;
	(void)argv;
	(void)nccl_path;
	const struct vendor_lib *lib;
	if (gpu_load_nvml(&nv, &lib))
		return 1;
	wmsg_stage("nvmlInit");
	nvmlReturn_t e = nv->nvmlInit();
	if (e != NVML_SUCCESS) {
		wmsg_error("nvml", e, nvml_error_name(e), "nvmlInit failed: %s", nv->nvmlErrorString(e));
		return 1;
	}
	json_t *out = json_object();
	json_object_set_new(out, "library", json_str_lossy(lib->path));
	char dv[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
	wmsg_stage("nvmlSystemGetDriverVersion");
	if (nv->nvmlSystemGetDriverVersion(dv, sizeof(dv)) == NVML_SUCCESS)
		json_object_set_new(out, "driver_version", json_str_lossy(dv));
	if (nv->nvmlSystemGetCudaDriverVersion) {
		int cv;
		wmsg_stage("nvmlSystemGetCudaDriverVersion");
		if (nv->nvmlSystemGetCudaDriverVersion(&cv) == NVML_SUCCESS)
			json_object_set_new(out, "cuda_driver_version", json_integer(cv));
	}
	unsigned n = 0;
	wmsg_stage("nvmlDeviceGetCount");
	e = nv->nvmlDeviceGetCount(&n);
	if (e != NVML_SUCCESS) {
		wmsg_error("nvml", e, nvml_error_name(e), "nvmlDeviceGetCount failed: %s", nv->nvmlErrorString(e));
		json_decref(out);
		return 1;
	}
	if (n > MAX_GPUS)
		n = MAX_GPUS;
	struct gpu g[MAX_GPUS];
	json_t *gpus = json_array();
	for (unsigned i = 0; i < n; i++) {
		g[i].o = json_pack("{s:i}", "index", (int)i);
		g[i].errors = json_object();
		g[i].lost = false;
		g[i].h = NULL;
		wmsg_stage("gpu %u nvmlDeviceGetHandleByIndex", i);
		if (ok(&g[i], "handle", nv->nvmlDeviceGetHandleByIndex(i, &g[i].h)))
			query_gpu(i, &g[i]);
		json_object_set_new(g[i].o, "errors", g[i].errors);
		json_array_append_new(gpus, g[i].o);
	}
	resample_nvlink_errors(g, n);
	json_object_set_new(out, "gpus", gpus);

	json_t *pairs = json_array();
	static const struct { const char *key; nvmlGpuP2PCapsIndex_t idx; } caps[] = {
		{ "read", NVML_P2P_CAPS_INDEX_READ }, { "write", NVML_P2P_CAPS_INDEX_WRITE },
		{ "nvlink", NVML_P2P_CAPS_INDEX_NVLINK }, { "atomics", NVML_P2P_CAPS_INDEX_ATOMICS },
	};
	for (unsigned a = 0; a < n; a++) {
		for (unsigned b = 0; b < n; b++) {
			if (a == b || g[a].lost || g[b].lost || !g[a].h || !g[b].h)
				continue;
			json_t *p = json_pack("{s:i,s:i}", "a", (int)a, "b", (int)b);
			if (a < b) {
				nvmlGpuTopologyLevel_t lvl;
				wmsg_stage("gpu %u-%u nvmlDeviceGetTopologyCommonAncestor", a, b);
				e = nv->nvmlDeviceGetTopologyCommonAncestor(g[a].h, g[b].h, &lvl);
				if (e == NVML_SUCCESS)
					json_object_set_new(p, "level", json_integer(lvl));
				else
					json_object_set_new(p, "level_error", json_string(nvml_error_name(e)));
			}
			json_t *ps = json_object();
			for (size_t k = 0; k < 4; k++) {
				nvmlGpuP2PStatus_t s;
				wmsg_stage("gpu %u-%u nvmlDeviceGetP2PStatus %s", a, b, caps[k].key);
				e = nv->nvmlDeviceGetP2PStatus(g[a].h, g[b].h, caps[k].idx, &s);
				json_object_set_new(ps, caps[k].key, json_string(e == NVML_SUCCESS ? p2p_status_name(s) : nvml_error_name(e)));
			}
			json_object_set_new(p, "p2p", ps);
			json_array_append_new(pairs, p);
		}
	}
	json_object_set_new(out, "pairs", pairs);
	wmsg_stage("nvmlShutdown");
	nv->nvmlShutdown();
	wmsg_result(out);
	return 0;
}
