/* Fake libnvidia-ml.so.1: NVML answers from the scenario (see README.md).
 * Faults: nvml_init_error, nvml_hang (any function name, "nvmlInit" too),
 * gpu_lost (NVML_ERROR_GPU_IS_LOST after N device calls). Compute processes
 * and utilisation come from the scenario's "processes" and "utilization"
 * (wedge_on_hang: the GPUs of p2p_hang and nccl_p2p_hang pairs show 100 % and
 * no process). Built twice: the
 * second copy (lib-nosym/) lacks nvmlDeviceGetP2PStatus, a required symbol. */
#include "fake.h"
#include "nvlib/nvml_api.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct nvmlDevice_st {
	int index;
};
static struct nvmlDevice_st devs[FG_MAX_GPUS];
static int inited;
static int calls[FG_MAX_GPUS];

#define HANG_IF(fn) do { if (strcmp(fg_scenario()->nvml_hang, fn) == 0) fg_hang(fn); } while (0)

/* Checks a handle and counts the call for the gpu_lost fault. */
static nvmlReturn_t dev_check(nvmlDevice_t d, const char *fn)
{
	const struct fg_scenario *s = fg_scenario();
	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	if (!d || d->index < 0 || d->index >= s->ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	HANG_IF(fn);
	if (s->lost_gpu == d->index && ++calls[d->index] > s->lost_after)
		return NVML_ERROR_GPU_IS_LOST;
	return NVML_SUCCESS;
}
#define CHECK(d) do { nvmlReturn_t r_ = dev_check(d, __func__); if (r_ != NVML_SUCCESS) return r_; } while (0)

/* A hostile library: a helper process of its own, deaf to SIGTERM and
 * SIGINT, that only SIGKILL ends (some vendor stacks start daemons). */
static void fork_helper(const char *pidfile)
{
	pid_t c = fork();
	if (c != 0)
		return;
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	char tmp[300];
	snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile);
	FILE *f = fopen(tmp, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		rename(tmp, pidfile);
	}
	for (;;)
		pause();
}

FG_API nvmlReturn_t nvmlInit_v2(void)
{
	const struct fg_scenario *s = fg_scenario();
	if (s->nvml_init_fork[0])
		fork_helper(s->nvml_init_fork);
	HANG_IF("nvmlInit");
	if (!s->loaded) {
		fprintf(stderr, "fakegpu: %s\n", s->error);
		return NVML_ERROR_DRIVER_NOT_LOADED;
	}
	if (s->nvml_init_error)
		return s->nvml_init_error;
	for (int i = 0; i < FG_MAX_GPUS; i++)
		devs[i].index = i;
	inited++;
	return NVML_SUCCESS;
}
FG_API nvmlReturn_t nvmlInit(void) { return nvmlInit_v2(); }

FG_API nvmlReturn_t nvmlShutdown(void)
{
	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	inited--;
	return NVML_SUCCESS;
}

FG_API const char *nvmlErrorString(nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
	default: return "Unknown Error";
	}
}

FG_API nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned len)
{
	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	HANG_IF("nvmlSystemGetDriverVersion");
	if (strlen(fg_scenario()->driver_version) >= len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	strcpy(v, fg_scenario()->driver_version);
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	*v = fg_scenario()->cuda_driver_version;
	return NVML_SUCCESS;
}
FG_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return nvmlSystemGetCudaDriverVersion_v2(v); }

FG_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	HANG_IF("nvmlDeviceGetCount");
	*n = (unsigned)fg_scenario()->ngpus;
	return NVML_SUCCESS;
}
FG_API nvmlReturn_t nvmlDeviceGetCount(unsigned *n) { return nvmlDeviceGetCount_v2(n); }

FG_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	if (i >= (unsigned)fg_scenario()->ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	HANG_IF("nvmlDeviceGetHandleByIndex");
	*d = &devs[i];
	return NVML_SUCCESS;
}
FG_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *d) { return nvmlDeviceGetHandleByIndex_v2(i, d); }

#define G(d) (&fg_scenario()->gpus[(d)->index])

FG_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned len)
{
	CHECK(d);
	snprintf(name, len, "%s", G(d)->name);
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned len)
{
	CHECK(d);
	snprintf(uuid, len, "%s", G(d)->uuid);
	return NVML_SUCCESS;
}

static void fill_pci(nvmlPciInfo_t *p, const char *bdf)
{
	unsigned dom = 0, bus = 0, dev = 0, fn = 0;
	sscanf(bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
	memset(p, 0, sizeof(*p));
	/* NVML's own spelling: 8-digit domain, upper case */
	snprintf(p->busId, sizeof(p->busId), "%08X:%02X:%02X.%X", dom, bus, dev, fn);
	snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "%04X:%02X:%02X.%X", dom, bus, dev, fn);
	p->domain = dom;
	p->bus = bus;
	p->device = dev;
	p->pciDeviceId = 0x233010de;
}

FG_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
	CHECK(d);
	fill_pci(p, G(d)->bdf);
	return NVML_SUCCESS;
}
FG_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t d, nvmlPciInfo_t *p) { return nvmlDeviceGetPciInfo_v3(d, p); }

/* the GPU's memory as a NUMA node of its own: not on these (PCIe/SXM) GPUs */
FG_API nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t d, unsigned *node)
{
	(void)node;
	CHECK(d);
	return NVML_ERROR_NOT_SUPPORTED;
}

FG_API nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t d, unsigned n, unsigned long *set, nvmlAffinityScope_t scope)
{
	CHECK(d);
	if (scope != NVML_AFFINITY_SCOPE_NODE || n == 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(set, 0, n * sizeof(unsigned long));
	int node = G(d)->numa_node;
	if (node < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if ((unsigned)node < n * 8 * sizeof(unsigned long))
		set[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t d, unsigned n, unsigned long *set)
{
	CHECK(d);
	memset(set, 0, n * sizeof(unsigned long));
	const char *p = G(d)->cpus;
	while (*p) {
		unsigned a = 0, b = 0;
		int used = 0;
		if (sscanf(p, "%u-%u%n", &a, &b, &used) == 2 || (sscanf(p, "%u%n", &a, &used) == 1 && (b = a, 1))) {
			for (unsigned c = a; c <= b && c < n * 8 * sizeof(unsigned long); c++)
				set[c / (8 * sizeof(unsigned long))] |= 1UL << (c % (8 * sizeof(unsigned long)));
			p += used;
		} else {
			break;
		}
		if (*p == ',')
			p++;
	}
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *v) { CHECK(d); *v = (unsigned)G(d)->cur_gen; return NVML_SUCCESS; }
FG_API nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned *v) { CHECK(d); *v = (unsigned)G(d)->max_gen; return NVML_SUCCESS; }
FG_API nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned *v) { CHECK(d); *v = (unsigned)G(d)->cur_width; return NVML_SUCCESS; }
FG_API nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned *v) { CHECK(d); *v = (unsigned)G(d)->max_width; return NVML_SUCCESS; }

FG_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	CHECK(d);
	m->total = G(d)->memory;
	m->used = 0;
	for (int i = 0; i < fg_scenario()->nprocs; i++)
		if (fg_proc_on(&fg_scenario()->procs[i], d->index))
			m->used += fg_scenario()->procs[i].used;
	m->free = m->total - m->used;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
	CHECK(d);
	/* like the real library: a wrong version field is an error */
	if (m->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	m->total = G(d)->memory;
	m->reserved = 512ULL << 20;
	m->used = 0;
	m->free = m->total - m->reserved;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t d, nvmlBAR1Memory_t *b)
{
	CHECK(d);
	b->bar1Total = G(d)->bar1;
	b->bar1Used = 0;
	b->bar1Free = b->bar1Total;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, nvmlEnableState_t *m) { CHECK(d); *m = G(d)->persistence; return NVML_SUCCESS; }

FG_API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *cur, unsigned *pend)
{
	CHECK(d);
	*cur = *pend = G(d)->mig ? 1 : 0;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, nvmlEnableState_t *cur, nvmlEnableState_t *pend)
{
	CHECK(d);
	*cur = *pend = G(d)->ecc;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corr, unsigned *unc, unsigned *pend, unsigned *fail)
{
	CHECK(d);
	*corr = 0;
	*unc = G(d)->remapped_pending ? 1 : 0;
	*pend = G(d)->remapped_pending ? 1 : 0;
	*fail = 0;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, nvmlGpuTopologyLevel_t *l)
{
	CHECK(a);
	CHECK(b);
	static const int lvl[] = { NVML_TOPOLOGY_INTERNAL, NVML_TOPOLOGY_NODE, NVML_TOPOLOGY_SINGLE, NVML_TOPOLOGY_MULTIPLE,
				   NVML_TOPOLOGY_HOSTBRIDGE, NVML_TOPOLOGY_NODE, NVML_TOPOLOGY_SYSTEM };
	*l = lvl[fg_scenario()->pci[a->index][b->index]];
	return NVML_SUCCESS;
}

#ifndef FAKEGPU_OMIT_P2PSTATUS
FG_API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, nvmlGpuP2PCapsIndex_t idx, nvmlGpuP2PStatus_t *s)
{
	CHECK(a);
	CHECK(b);
	const struct fg_scenario *sc = fg_scenario();
	if (idx == NVML_P2P_CAPS_INDEX_NVLINK)
		*s = sc->nvl[a->index][b->index] > 0 ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
	else
		*s = sc->p2p[a->index][b->index];
	return NVML_SUCCESS;
}
#endif

/* link l of GPU i: with NVSwitch every link goes to a switch; without, the
 * links are dealt to the peers in index order */
static int link_peer(int i, unsigned l)
{
	const struct fg_scenario *s = fg_scenario();
	if (s->nvswitch)
		return -1;
	unsigned k = 0;
	for (int b = 0; b < s->ngpus; b++) {
		if (l < k + (unsigned)s->nvl[i][b])
			return b;
		k += (unsigned)s->nvl[i][b];
	}
	return -2;
}

FG_API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned l, nvmlEnableState_t *a)
{
	CHECK(d);
	if (G(d)->nvlinks == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (l >= (unsigned)G(d)->nvlinks)
		return NVML_ERROR_INVALID_ARGUMENT;
	*a = G(d)->link_down[l] ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned l, nvmlPciInfo_t *p)
{
	CHECK(d);
	if (l >= (unsigned)G(d)->nvlinks)
		return NVML_ERROR_INVALID_ARGUMENT;
	int peer = link_peer(d->index, l);
	if (peer >= 0) {
		fill_pci(p, fg_scenario()->gpus[peer].bdf);
	} else {
		char sw[32];
		snprintf(sw, sizeof(sw), "0000:%02x:00.0", 0xa0 + (l % 4));
		fill_pci(p, sw);
	}
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned l, nvmlIntNvLinkDeviceType_t *t)
{
	CHECK(d);
	if (l >= (unsigned)G(d)->nvlinks)
		return NVML_ERROR_INVALID_ARGUMENT;
	*t = link_peer(d->index, l) >= 0 ? NVML_NVLINK_DEVICE_TYPE_GPU : NVML_NVLINK_DEVICE_TYPE_SWITCH;
	return NVML_SUCCESS;
}

/* NVLink fabric: fabric state from the scenario ("fabric"), per-link speed,
 * version (NVLink 4.0 = 6) and error counters that grow by their "_rate" at
 * every read after the first */
FG_API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t d, nvmlGpuFabricInfoV_t *f)
{
	CHECK(d);
	unsigned want = fg_scenario()->fabric_info_max_version >= 3 ? nvmlGpuFabricInfo_v3 : nvmlGpuFabricInfo_v2;
	if (f->version != want && !(f->version == nvmlGpuFabricInfo_v2 && want == nvmlGpuFabricInfo_v3))
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (G(d)->fabric_state == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	memset(f->clusterUuid, 0, sizeof(f->clusterUuid));
	f->clusterUuid[0] = 0xc1;
	f->clusterUuid[15] = 0x01;
	f->status = G(d)->fabric_status;
	f->cliqueId = G(d)->clique;
	f->state = (nvmlGpuFabricState_t)G(d)->fabric_state;
	f->healthMask = G(d)->health_mask;
	if (f->version == nvmlGpuFabricInfo_v3)
		f->healthSummary = G(d)->health_mask ? 2 : 1;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t d, nvmlGpuFabricInfo_t *f)
{
	CHECK(d);
	if (G(d)->fabric_state == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	memset(f, 0, sizeof(*f));
	f->status = G(d)->fabric_status;
	f->cliqueId = G(d)->clique;
	f->state = (nvmlGpuFabricState_t)G(d)->fabric_state;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t d, unsigned l, unsigned *v)
{
	CHECK(d);
	if (l >= (unsigned)G(d)->nvlinks)
		return G(d)->nvlinks ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_SUPPORTED;
	*v = 6;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t d, unsigned l, nvmlNvLinkErrorCounter_t c, unsigned long long *v)
{
	static int reads[FG_MAX_GPUS][32][4];
	CHECK(d);
	if (l >= (unsigned)G(d)->nvlinks)
		return G(d)->nvlinks ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_SUPPORTED;
	if (c < 0 || c > 3)
		return NVML_ERROR_INVALID_ARGUMENT;
	*v = (unsigned long long)(G(d)->link_err[l][c] + G(d)->link_err_rate[l][c] * reads[d->index][l][c]++);
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t *f)
{
	CHECK(d);
	for (int k = 0; k < n; k++) {
		unsigned l = f[k].scopeId;
		f[k].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
		f[k].nvmlReturn = NVML_SUCCESS;
		if (G(d)->nvlinks == 0)
			f[k].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
		else if (f[k].fieldId == NVML_FI_DEV_NVLINK_LINK_COUNT)
			f[k].value.uiVal = (unsigned)G(d)->nvlinks;
		else if (f[k].fieldId == NVML_FI_DEV_NVLINK_GET_SPEED && l < (unsigned)G(d)->nvlinks)
			f[k].value.uiVal = G(d)->link_down[l] ? 0 : (unsigned)G(d)->link_speed[l];
		else if (f[k].fieldId == NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON)
			f[k].value.uiVal = (unsigned)G(d)->link_speed[0];
		else
			f[k].nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
	}
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_t *infos)
{
	CHECK(d);
	const struct fg_scenario *s = fg_scenario();
	unsigned n = 0;
	for (int i = 0; i < s->nprocs; i++)
		if (fg_proc_on(&s->procs[i], d->index))
			n++;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (*count < n || (n && !infos)) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	unsigned k = 0;
	for (int i = 0; i < s->nprocs; i++)
		if (fg_proc_on(&s->procs[i], d->index) && k < n)
			infos[k++] = (nvmlProcessInfo_t){ .pid = s->procs[i].pid, .usedGpuMemory = s->procs[i].used,
							 .gpuInstanceId = 0xffffffffu, .computeInstanceId = 0xffffffffu };
	*count = n;
	return NVML_SUCCESS;
}

FG_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	CHECK(d);
	const struct fg_scenario *s = fg_scenario();
	u->gpu = (unsigned)s->util[d->index];
	u->memory = 0;
	for (int b = 0; s->wedge_on_hang && b < s->ngpus; b++)
		if (s->p2p_hang[d->index][b] || s->nccl_p2p_hang[d->index][b])
			u->gpu = 100;
	return NVML_SUCCESS;
}
