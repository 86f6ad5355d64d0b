/* nccl-doctor topo: the GPUs and how they connect.
 *
 * Two workers run at once under a deadline: `nvml-topo` (NVML's devices,
 * matrix, P2P status, NVLink) and `cuda-info` (cuInit, CUDA's view, peer
 * access). The PCI tree in sysfs is read here (probe/pci.h) and gives a
 * second matrix; when NVML is unavailable (no driver, NVML hung, a recorded
 * sysroot) the GPUs and the matrix come from sysfs alone, and the output says
 * so. The matrix uses the legend of `nvidia-smi topo -m`. */
#include "cmd/cmd.h"
#include "probe/driver.h"
#include "probe/pci.h"
#include "run/worker.h"
#include "util/jsonx.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 64

enum cls { CL_UNKNOWN, CL_X, CL_NV, CL_PIX, CL_PXB, CL_PHB, CL_NODE, CL_SYS };
static const char *cls_names[] = { "?", "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS" };

struct tgpu {
	int index;
	char bdf[PCI_BDF_LEN + 16];
	const char *name, *uuid;
	int numa;                 /* host NUMA node, -1 unknown */
	int gpu_numa_id;          /* the GPU memory's own node (Grace Hopper), -1 none */
	char cpus[256];
	int cur_gen, max_gen, cur_width, max_width; /* 0 unknown */
	long long memory, bar1;   /* -1 unknown */
	int persistence, mig, ecc, remap_pending; /* -1 unknown */
	bool lost;
	const char *lost_at;
	json_t *nvlinks;          /* borrowed from the worker result */
	const struct pci_dev *pci;
};

struct topo {
	struct tgpu g[MAX_GPUS];
	int n;
	bool from_nvml;
	enum cls nvml[MAX_GPUS][MAX_GPUS], sysfs[MAX_GPUS][MAX_GPUS];
	int nv[MAX_GPUS][MAX_GPUS];
	json_t *nvml_res, *cuda_res;
	struct pci_list pci;
	bool have_pci;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor topo [--sysfs | --driver]\n"
		"\n"
		"Shows every GPU (name, PCI address, UUID, NUMA node and CPU affinity, PCIe\n"
		"generation and width, memory, BAR1, persistence, MIG, ECC, pending row\n"
		"remaps), the GPU-to-GPU matrix with the legend of 'nvidia-smi topo -m', NVML's\n"
		"P2P status per pair and the state of each NVLink. NVML and CUDA are queried\n"
		"in worker processes under a deadline (--timeout, default 20 s); when NVML is\n"
		"unavailable or hangs, the matrix comes from the PCI tree in sysfs.\n"
		"\n"
		"options:\n"
		"  --sysfs        do not query the driver: sysfs only\n"
		"  --driver       query this machine's driver even with --sysroot (a tree\n"
		"                 recorded here, or the fake GPU stack's tests)\n"
		"  -h, --help     this help\n"
		"\n"
		"legend:\n"
		"  X    = self\n"
		"  SYS  = through PCIe and the SMP interconnect between NUMA nodes (QPI/UPI)\n"
		"  NODE = through PCIe and the interconnect between host bridges in a NUMA node\n"
		"  PHB  = through PCIe and a PCIe host bridge (typically the CPU)\n"
		"  PXB  = through several PCIe bridges, without a host bridge\n"
		"  PIX  = through at most one PCIe bridge\n"
		"  NV#  = through a bonded set of # NVLinks\n"
		"\n"
		"exit status: 0 healthy, 1 warnings only, 2 a problem was found, 3 could not\n"
		"run, or no NVIDIA GPU and no driver here (\"nothing to check\"), 64 bad usage\n");
}

/* --- the PCI view ---------------------------------------------------- */

/* "pci0000:00" of a device's canonical sysfs path, or "" */
static void host_bridge(const struct pci_dev *d, char *out, size_t outsz)
{
	out[0] = '\0';
	const char *p = d->syspath ? strstr(d->syspath, "/devices/pci") : NULL;
	if (!p)
		return;
	p += strlen("/devices/");
	size_t n = strcspn(p, "/");
	snprintf(out, outsz, "%.*s", (int)n, p);
}

static enum cls sysfs_class(const struct pci_list *l, const struct pci_dev *a, const struct pci_dev *b)
{
	if (a == b)
		return CL_X;
	char ha[64], hb[64];
	host_bridge(a, ha, sizeof(ha));
	host_bridge(b, hb, sizeof(hb));
	if (!ha[0] || !hb[0])
		return CL_UNKNOWN;
	if (strcmp(ha, hb) != 0)
		return a->numa_node == b->numa_node ? CL_NODE : CL_SYS;
	const struct pci_dev *pa[32], *pb[32];
	int na = pci_path_to_root(l, a, pa, 32), nb = pci_path_to_root(l, b, pb, 32);
	int k = 0; /* common bridges from the root down */
	while (k < na && k < nb && pa[na - 1 - k] == pb[nb - 1 - k])
		k++;
	if (k == 0)
		return CL_PHB;
	return na - k <= 1 && nb - k <= 1 ? CL_PIX : CL_PXB;
}

static enum cls nvml_level(json_int_t lvl)
{
	switch (lvl) {
	case 0: case 10: return CL_PIX;
	case 20: return CL_PXB;
	case 30: return CL_PHB;
	case 40: return CL_NODE;
	case 50: return CL_SYS;
	default: return CL_UNKNOWN;
	}
}

static const char *cls_text(enum cls c, int nv, char *buf, size_t bufsz)
{
	if (nv > 0)
		snprintf(buf, bufsz, "NV%d", nv);
	else
		snprintf(buf, bufsz, "%s", cls_names[c]);
	return buf;
}

/* --- workers ---------------------------------------------------------- */

static const char *error_reason(const struct worker *w)
{
	json_t *e = worker_error(w);
	return e ? json_string_value(json_object_get(e, "name")) : NULL;
}

static const char *error_lib(const struct worker *w)
{
	json_t *e = worker_error(w);
	return e ? json_string_value(json_object_get(e, "lib")) : NULL;
}

static void add_worker_evidence(struct finding *f, const struct worker *w)
{
	finding_evidence(f, NULL, 0, "worker '%s': %s after %.1f s%s%s", w->spec.task, worker_status_name(w->status),
			 worker_elapsed(w), w->stage[0] ? ", last stage " : "", w->stage);
	if (w->why[0])
		finding_evidence(f, NULL, 0, "%s", w->why);
	if (w->tail.len) {
		/* the last line of what the libraries printed */
		char *t = xstrndup(w->tail.buf, w->tail.len);
		str_rtrim(t);
		char *last = strrchr(t, '\n');
		if (*t)
			finding_evidence(f, NULL, 0, "output: %.300s", last ? last + 1 : t);
		free(t);
	}
}

static void nvml_findings(struct result *r, const struct worker *w)
{
	struct finding *f = NULL;
	const char *lib = error_lib(w), *reason = error_reason(w);
	switch (w->status) {
	case WORKER_OK:
		return;
	case WORKER_HANG:
		f = result_add_finding(r, "NVML_HANG", SEV_ERROR, "NVML hung in '%s'", w->stage[0] ? w->stage : "start");
		break;
	case WORKER_CRASH:
		f = result_add_finding(r, "GPU_WORKER_CRASHED", SEV_ERROR, "the NVML worker died of signal %d in '%s'", w->signal, w->stage);
		break;
	default:
		if (lib && strcmp(lib, "loader") == 0 && reason && strcmp(reason, "symbol_missing") == 0)
			f = result_add_finding(r, "VENDOR_SYMBOL_MISSING", SEV_ERROR, "libnvidia-ml.so.1 lacks a required entry point");
		else if (lib && strcmp(lib, "loader") == 0)
			f = result_add_finding(r, "NVML_NOT_AVAILABLE", SEV_ERROR, "NVML cannot be loaded: no usable NVIDIA driver here");
		else
			f = result_add_finding(r, "NVML_FAILED", SEV_ERROR, "NVML failed in '%s'%s%s", w->stage, reason ? ": " : "", reason ? reason : "");
		break;
	}
	add_worker_evidence(f, w);
}

static void cuda_findings(struct result *r, const struct worker *w, bool nvml_missing)
{
	struct finding *f = NULL;
	const char *lib = error_lib(w), *reason = error_reason(w);
	switch (w->status) {
	case WORKER_OK:
		return;
	case WORKER_HANG:
		f = result_add_finding(r, "CUDA_HANG", SEV_ERROR, "the CUDA driver hung in '%s'", w->stage);
		break;
	case WORKER_CRASH:
		f = result_add_finding(r, "GPU_WORKER_CRASHED", SEV_ERROR, "the CUDA worker died of signal %d in '%s'", w->signal, w->stage);
		break;
	default:
		if (lib && strcmp(lib, "loader") == 0 && reason && strcmp(reason, "symbol_missing") == 0) {
			f = result_add_finding(r, "VENDOR_SYMBOL_MISSING", SEV_ERROR, "libcuda.so.1 lacks a required entry point");
		} else if (lib && strcmp(lib, "loader") == 0) {
			if (nvml_missing)
				return; /* one finding for "no driver" is enough: NVML_NOT_AVAILABLE */
			f = result_add_finding(r, "CUDA_INIT_FAILED", SEV_ERROR, "libcuda.so.1 cannot be loaded although NVML works");
		} else {
			f = result_add_finding(r, "CUDA_INIT_FAILED", SEV_ERROR, "%s failed%s%s", w->stage[0] ? w->stage : "cuInit",
					       reason ? ": " : "", reason ? reason : "");
		}
		break;
	}
	add_worker_evidence(f, w);
}

/* --- building the GPU list ------------------------------------------- */

static long long jint(json_t *o, const char *k, long long def)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? json_integer_value(v) : def;
}

static int jbool(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

static void gpus_from_nvml(struct topo *t)
{
	json_t *gpus = json_object_get(t->nvml_res, "gpus"), *o;
	size_t i;
	json_array_foreach(gpus, i, o) {
		if (t->n >= MAX_GPUS)
			break;
		struct tgpu *g = &t->g[t->n++];
		g->index = (int)jint(o, "index", (long long)i);
		str_copy(g->bdf, json_string_value(json_object_get(o, "bdf")) ? json_string_value(json_object_get(o, "bdf")) : "", sizeof(g->bdf));
		g->name = json_string_value(json_object_get(o, "name"));
		g->uuid = json_string_value(json_object_get(o, "uuid"));
		g->gpu_numa_id = (int)jint(o, "gpu_numa_id", -1);
		const char *na = json_string_value(json_object_get(o, "numa_affinity"));
		long long node = -1;
		if (na && parse_ll(na, 10, &node) < 0)
			node = -1; /* several nodes: leave it to sysfs */
		g->numa = (int)node;
		const char *c = json_string_value(json_object_get(o, "cpu_affinity"));
		str_copy(g->cpus, c ? c : "", sizeof(g->cpus));
		g->cur_gen = (int)jint(o, "pcie_cur_gen", 0);
		g->max_gen = (int)jint(o, "pcie_max_gen", 0);
		g->cur_width = (int)jint(o, "pcie_cur_width", 0);
		g->max_width = (int)jint(o, "pcie_max_width", 0);
		g->memory = jint(o, "memory_total", -1);
		g->bar1 = jint(o, "bar1_total", -1);
		g->persistence = jbool(o, "persistence");
		g->mig = jbool(o, "mig_current");
		g->ecc = jbool(o, "ecc_current");
		json_t *rr = json_object_get(o, "remapped_rows");
		g->remap_pending = rr ? jbool(rr, "pending") : -1;
		g->lost = json_is_true(json_object_get(o, "lost"));
		g->lost_at = json_string_value(json_object_get(o, "lost_at"));
		g->nvlinks = json_object_get(o, "nvlinks");
		g->pci = t->have_pci && g->bdf[0] ? pci_find(&t->pci, g->bdf) : NULL;
		/* the kernel's view of the device's node first, as nvidia-smi */
		if (g->pci && g->pci->numa_node >= 0)
			g->numa = g->pci->numa_node;
		if (!g->cpus[0] && g->pci)
			str_copy(g->cpus, g->pci->local_cpulist, sizeof(g->cpus));
	}
}

static void gpus_from_sysfs(struct topo *t)
{
	if (!t->have_pci)
		return;
	for (size_t i = 0; i < t->pci.n && t->n < MAX_GPUS; i++) {
		const struct pci_dev *d = &t->pci.devs[i];
		if (!pci_is_nvidia_gpu(d))
			continue;
		struct tgpu *g = &t->g[t->n];
		g->index = t->n++;
		str_copy(g->bdf, d->bdf, sizeof(g->bdf));
		g->numa = d->numa_node;
		str_copy(g->cpus, d->local_cpulist, sizeof(g->cpus));
		g->cur_gen = pci_speed_gen(d->cur_speed);
		g->max_gen = pci_speed_gen(d->max_speed);
		g->cur_width = d->cur_width;
		g->max_width = d->max_width;
		g->memory = -1;
		g->gpu_numa_id = -1;
		/* BAR1 is an NVIDIA GPU's largest BAR (BAR0 16 MiB, BAR3 32 MiB); its
		 * resource line moves when BAR0 is 64-bit (line 2 in the H200 VM) */
		g->bar1 = -1;
		for (int k = 0; k < d->nbars; k++)
			if (d->bars[k].start && (long long)(d->bars[k].end - d->bars[k].start + 1) > g->bar1)
				g->bar1 = (long long)(d->bars[k].end - d->bars[k].start + 1);
		g->persistence = g->mig = g->ecc = g->remap_pending = -1;
		g->pci = d;
	}
}

static void build_matrices(struct topo *t)
{
	for (int a = 0; a < t->n; a++)
		for (int b = 0; b < t->n; b++) {
			t->nvml[a][b] = t->sysfs[a][b] = a == b ? CL_X : CL_UNKNOWN;
			t->nv[a][b] = 0;
			if (a != b && t->g[a].pci && t->g[b].pci)
				t->sysfs[a][b] = sysfs_class(&t->pci, t->g[a].pci, t->g[b].pci);
		}
	if (!t->from_nvml)
		return;
	json_t *p;
	size_t i;
	json_array_foreach(json_object_get(t->nvml_res, "pairs"), i, p) {
		int a = (int)jint(p, "a", -1), b = (int)jint(p, "b", -1);
		if (a < 0 || b < 0 || a >= t->n || b >= t->n || !json_object_get(p, "level"))
			continue;
		t->nvml[a][b] = t->nvml[b][a] = nvml_level(jint(p, "level", -1));
	}
	/* NV#: active links to a GPU, or through NVSwitch (every switch is
	 * taken to reach every GPU, as nvidia-smi and PyTorch assume) */
	int sw[MAX_GPUS] = { 0 };
	for (int a = 0; a < t->n; a++) {
		json_t *lk;
		json_array_foreach(t->g[a].nvlinks, i, lk) {
			if (!json_is_true(json_object_get(lk, "active")))
				continue;
			const char *rb = json_string_value(json_object_get(lk, "remote_bdf"));
			const char *rt = json_string_value(json_object_get(lk, "remote_type"));
			int peer = -1;
			for (int b = 0; rb && b < t->n; b++)
				if (b != a && strcmp(t->g[b].bdf, rb) == 0)
					peer = b;
			if (peer >= 0)
				t->nv[a][peer]++;
			else if (!rt || strcmp(rt, "switch") == 0)
				sw[a]++;
		}
	}
	for (int a = 0; a < t->n; a++)
		for (int b = 0; b < t->n; b++)
			if (a != b && sw[a] && sw[b])
				t->nv[a][b] += sw[a] < sw[b] ? sw[a] : sw[b];
}

/* --- output ------------------------------------------------------------ */

static struct value tri(int v, const char *yes, const char *no, const char *why)
{
	return v < 0 ? val_unknown(why) : val_with_display(val_bool(v == 1), v == 1 ? yes : no);
}

/* One GPU as the documented "gpus" member (docs/gpu.md): null when unknown. */
static json_t *gpu_json(const struct tgpu *g)
{
#define INT_OR_NULL(v, ok) ((ok) ? json_integer(v) : json_null())
#define TRI(v) ((v) < 0 ? json_null() : json_boolean((v) == 1))
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(g->index));
	json_object_set_new(o, "name", g->name ? json_str_lossy(g->name) : json_null());
	json_object_set_new(o, "bdf", g->bdf[0] ? json_string(g->bdf) : json_null());
	json_object_set_new(o, "uuid", g->uuid ? json_str_lossy(g->uuid) : json_null());
	json_object_set_new(o, "numa_node", INT_OR_NULL(g->numa, g->numa >= 0));
	json_object_set_new(o, "cpu_affinity", g->cpus[0] ? json_string(g->cpus) : json_null());
	json_object_set_new(o, "gpu_numa_id", INT_OR_NULL(g->gpu_numa_id, g->gpu_numa_id >= 0));
	json_object_set_new(o, "pcie_cur_gen", INT_OR_NULL(g->cur_gen, g->cur_gen > 0));
	json_object_set_new(o, "pcie_max_gen", INT_OR_NULL(g->max_gen, g->max_gen > 0));
	json_object_set_new(o, "pcie_cur_width", INT_OR_NULL(g->cur_width, g->cur_width > 0));
	json_object_set_new(o, "pcie_max_width", INT_OR_NULL(g->max_width, g->max_width > 0));
	json_object_set_new(o, "memory_bytes", INT_OR_NULL(g->memory, g->memory >= 0));
	json_object_set_new(o, "bar1_bytes", INT_OR_NULL(g->bar1, g->bar1 >= 0));
	json_object_set_new(o, "persistence", TRI(g->persistence));
	json_object_set_new(o, "mig", TRI(g->mig));
	json_object_set_new(o, "ecc", TRI(g->ecc));
	json_object_set_new(o, "remapped_rows_pending", TRI(g->remap_pending));
	json_object_set_new(o, "lost", json_boolean(g->lost));
	return o;
#undef INT_OR_NULL
#undef TRI
}

static void show_gpus(struct result *r, struct topo *t, const int *sel, int nsel)
{
	struct section *s = result_section(r, "gpus", "GPUs");
	static const struct column cols[] = {
		{ "index", "GPU", 0 }, { "name", "name", 0 }, { "bdf", "PCI", 0 }, { "uuid", "UUID", SHOW_JSON_ONLY },
		{ "numa_node", "NUMA", 0 }, { "cpu_affinity", "CPUs", 0 }, { "pcie", "PCIe now/max", SHOW_TEXT_ONLY },
		{ "pcie_cur_gen", "gen", SHOW_JSON_ONLY }, { "pcie_max_gen", "max gen", SHOW_JSON_ONLY },
		{ "pcie_cur_width", "width", SHOW_JSON_ONLY }, { "pcie_max_width", "max width", SHOW_JSON_ONLY },
		{ "memory_bytes", "memory", 0 }, { "bar1_bytes", "BAR1", 0 }, { "persistence", "persist", 0 },
		{ "mig", "MIG", 0 }, { "ecc", "ECC", 0 }, { "remapped_rows_pending", "remap pending", 0 },
		{ "lost", "lost", SHOW_JSON_ONLY },
	};
	struct table *tb = section_table(s, "gpus", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	const char *nv = t->from_nvml ? "not reported" : "no NVML";
	json_t *arr = json_array();
	for (int k = 0; k < nsel; k++) {
		struct tgpu *g = &t->g[sel[k]];
		json_array_append_new(arr, gpu_json(g));
		size_t row = table_add_row(tb);
		char buf[64];
		table_set(tb, row, "index", val_int(g->index));
		table_set(tb, row, "name", g->name ? val_str(g->name) : val_unknown(nv));
		table_set(tb, row, "bdf", g->bdf[0] ? val_str(g->bdf) : val_unknown("not reported"));
		table_set(tb, row, "uuid", g->uuid ? val_str(g->uuid) : val_unknown(nv));
		table_set(tb, row, "numa_node", g->numa >= 0 ? val_int(g->numa) : val_unknown("none"));
		table_set(tb, row, "cpu_affinity", g->cpus[0] ? val_str(g->cpus) : val_unknown("not reported"));
		if (g->cur_gen || g->cur_width)
			table_set(tb, row, "pcie", val_strf("gen%d x%d / gen%d x%d", g->cur_gen, g->cur_width, g->max_gen, g->max_width));
		else
			table_set(tb, row, "pcie", val_unknown("not reported"));
		if (g->cur_width && g->max_width && g->cur_width < g->max_width)
			table_mark(tb, row, "pcie", MARK_WARN);
		table_set(tb, row, "pcie_cur_gen", g->cur_gen ? val_int(g->cur_gen) : val_unknown("not reported"));
		table_set(tb, row, "pcie_max_gen", g->max_gen ? val_int(g->max_gen) : val_unknown("not reported"));
		table_set(tb, row, "pcie_cur_width", g->cur_width ? val_int(g->cur_width) : val_unknown("not reported"));
		table_set(tb, row, "pcie_max_width", g->max_width ? val_int(g->max_width) : val_unknown("not reported"));
		table_set(tb, row, "memory_bytes", g->memory >= 0 ? val_with_display(val_int(g->memory), fmt_bytes((uint64_t)g->memory, buf, sizeof(buf))) : val_unknown(nv));
		table_set(tb, row, "bar1_bytes", g->bar1 >= 0 ? val_with_display(val_int(g->bar1), fmt_bytes((uint64_t)g->bar1, buf, sizeof(buf))) : val_unknown("not reported"));
		table_set(tb, row, "persistence", tri(g->persistence, "on", "off", nv));
		table_set(tb, row, "mig", tri(g->mig, "on", "off", nv));
		if (g->mig == 1)
			table_mark(tb, row, "mig", MARK_WARN);
		table_set(tb, row, "ecc", tri(g->ecc, "on", "off", nv));
		table_set(tb, row, "remapped_rows_pending", tri(g->remap_pending, "yes", "no", nv));
		if (g->remap_pending == 1)
			table_mark(tb, row, "remapped_rows_pending", MARK_BAD);
		table_set(tb, row, "lost", val_bool(g->lost));
		if (g->lost)
			table_mark(tb, row, "name", MARK_BAD);
	}
	json_object_set_new(r->extra, "gpus", arr);
}

static json_t *matrix_json(struct topo *t, const int *sel, int nsel, int which)
{
	json_t *m = json_array();
	char buf[16];
	for (int i = 0; i < nsel; i++) {
		json_t *row = json_array();
		for (int j = 0; j < nsel; j++) {
			int a = sel[i], b = sel[j];
			enum cls c = which == 0 ? t->nvml[a][b] : t->sysfs[a][b];
			int nv = which == 0 ? t->nv[a][b] : 0;
			if (which == 2) { /* shown: NV# first, then NVML's class, else sysfs */
				nv = t->from_nvml ? t->nv[a][b] : 0;
				c = t->from_nvml && t->nvml[a][b] != CL_UNKNOWN ? t->nvml[a][b] : t->sysfs[a][b];
			}
			json_array_append_new(row, c == CL_UNKNOWN && !nv ? json_null() : json_string(cls_text(c, nv, buf, sizeof(buf))));
		}
		json_array_append_new(m, row);
	}
	return m;
}

static void show_matrix(struct result *r, struct topo *t, const int *sel, int nsel)
{
	struct section *s = result_section(r, "matrix", "GPU-to-GPU matrix");
	struct column *cols = xcalloc((size_t)nsel + 3, sizeof(*cols));
	char **names = xcalloc((size_t)nsel, sizeof(char *));
	cols[0] = (struct column){ "gpu", "", 0 };
	for (int i = 0; i < nsel; i++) {
		names[i] = xasprintf("GPU%d", t->g[sel[i]].index);
		cols[1 + i] = (struct column){ names[i], names[i], 0 };
	}
	cols[nsel + 1] = (struct column){ "cpu_affinity", "CPU Affinity", 0 };
	cols[nsel + 2] = (struct column){ "numa_affinity", "NUMA Affinity", 0 };
	struct table *tb = section_table(s, "matrix", NULL, cols, (size_t)nsel + 3);
	json_t *shown = matrix_json(t, sel, nsel, 2);
	for (int i = 0; i < nsel; i++) {
		size_t row = table_add_row(tb);
		struct tgpu *g = &t->g[sel[i]];
		table_set(tb, row, "gpu", val_str(names[i]));
		for (int j = 0; j < nsel; j++) {
			const char *c = json_string_value(json_array_get(json_array_get(shown, i), j));
			table_set(tb, row, names[j], c ? val_str(c) : val_unknown("unknown"));
			if (i != j && t->from_nvml && t->nvml[sel[i]][sel[j]] != CL_UNKNOWN &&
			    t->sysfs[sel[i]][sel[j]] != CL_UNKNOWN && t->nvml[sel[i]][sel[j]] != t->sysfs[sel[i]][sel[j]])
				table_mark(tb, row, names[j], MARK_WARN);
		}
		table_set(tb, row, "cpu_affinity", g->cpus[0] ? val_str(g->cpus) : val_str("N/A"));
		table_set(tb, row, "numa_affinity", g->numa >= 0 ? val_int(g->numa) : val_str("N/A"));
	}
	json_object_set_new(r->extra, "matrix", shown);
	json_object_set_new(r->extra, "matrix_source", json_string(t->from_nvml ? "nvml" : "sysfs"));
	if (t->from_nvml)
		json_object_set_new(r->extra, "nvml_matrix", matrix_json(t, sel, nsel, 0));
	json_object_set_new(r->extra, "sysfs_matrix", t->have_pci ? matrix_json(t, sel, nsel, 1) : json_null());
	section_note(s, "legend: X = self, SYS = PCIe + the interconnect between NUMA nodes, NODE = PCIe + the "
			"interconnect between host bridges of one NUMA node, PHB = PCIe + a host bridge, PXB = several "
			"PCIe bridges, PIX = at most one PCIe bridge, NV# = # bonded NVLinks");
	for (int i = 0; i < nsel; i++)
		free(names[i]);
	free(names);
	free(cols);
}

static const char *pair_status(json_t *p, const char *k)
{
	const char *s = json_string_value(json_object_get(json_object_get(p, "p2p"), k));
	return s ? s : "?";
}

static int can_access_peer(struct topo *t, int a, int b)
{
	json_t *p;
	size_t i;
	/* CUDA ordinals follow PCI order here only when they match the BDFs */
	const char *ba = NULL, *bb = NULL;
	int ca = -1, cb = -1;
	json_array_foreach(json_object_get(t->cuda_res, "devices"), i, p) {
		const char *bdf = json_string_value(json_object_get(p, "bdf"));
		if (bdf && strcmp(bdf, t->g[a].bdf) == 0) { ca = (int)i; ba = bdf; }
		if (bdf && strcmp(bdf, t->g[b].bdf) == 0) { cb = (int)i; bb = bdf; }
	}
	if (!ba || !bb)
		return -1;
	json_array_foreach(json_object_get(t->cuda_res, "peers"), i, p)
		if (jint(p, "a", -1) == ca && jint(p, "b", -1) == cb)
			return jbool(p, "can_access_peer");
	return -1;
}

/* nvidia-smi topo -p2p's codes */
static const char *p2p_code(const char *st)
{
	static const struct { const char *name, *code; } codes[] = {
		{ "OK", "OK" }, { "CHIPSET_NOT_SUPPORTED", "CNS" }, { "GPU_NOT_SUPPORTED", "GNS" },
		{ "IOH_TOPOLOGY_NOT_SUPPORTED", "TNS" }, { "DISABLED_BY_REGKEY", "DRK" }, { "NOT_SUPPORTED", "NS" },
	};
	for (size_t k = 0; k < sizeof(codes) / sizeof(codes[0]); k++)
		if (strcmp(st, codes[k].name) == 0)
			return codes[k].code;
	return "U";
}

static void show_p2p(struct result *r, struct topo *t, const int *sel, int nsel)
{
	if (!t->from_nvml)
		return;
	int pos[MAX_GPUS];
	for (int k = 0; k < MAX_GPUS; k++)
		pos[k] = -1;
	for (int k = 0; k < nsel; k++)
		pos[sel[k]] = k;
	struct section *s = result_section(r, "p2p", "P2P read/write (NVML, as nvidia-smi topo -p2p rw)");
	struct column *cols = xcalloc((size_t)nsel + 1, sizeof(*cols));
	char **names = xcalloc((size_t)nsel, sizeof(char *));
	cols[0] = (struct column){ "gpu", "", SHOW_TEXT_ONLY };
	for (int i = 0; i < nsel; i++) {
		names[i] = xasprintf("GPU%d", t->g[sel[i]].index);
		cols[1 + i] = (struct column){ names[i], names[i], SHOW_TEXT_ONLY };
	}
	struct table *tb = section_table(s, "p2p_matrix", NULL, cols, (size_t)nsel + 1);
	for (int i = 0; i < nsel; i++) {
		size_t row = table_add_row(tb);
		table_set(tb, row, "gpu", val_str(names[i]));
		for (int j = 0; j < nsel; j++)
			table_set(tb, row, names[j], val_str(i == j ? "X" : "?"));
	}
	json_t *all = json_array(), *p;
	size_t i;
	struct finding *f = NULL;
	int nbad = 0;
	json_array_foreach(json_object_get(t->nvml_res, "pairs"), i, p) {
		int a = (int)jint(p, "a", -1), b = (int)jint(p, "b", -1);
		if (a < 0 || b < 0 || a >= t->n || b >= t->n || pos[a] < 0 || pos[b] < 0)
			continue;
		const char *rd = pair_status(p, "read"), *wr = pair_status(p, "write");
		int can = t->cuda_res ? can_access_peer(t, a, b) : -1;
		json_t *o = json_pack("{s:i,s:i,s:s,s:s,s:s,s:s}", "a", t->g[a].index, "b", t->g[b].index, "read", rd,
				      "write", wr, "nvlink", pair_status(p, "nvlink"), "atomics", pair_status(p, "atomics"));
		json_object_set_new(o, "cuda_can_access_peer", can < 0 ? json_null() : json_boolean(can));
		json_array_append_new(all, o);
		bool good = strcmp(rd, "OK") == 0 && strcmp(wr, "OK") == 0;
		table_set(tb, (size_t)pos[a], names[pos[b]], val_str(good ? "OK" : p2p_code(strcmp(rd, "OK") ? rd : wr)));
		if (!good)
			table_mark(tb, (size_t)pos[a], names[pos[b]], MARK_WARN);
		if (can >= 0 && can != good)
			section_note(s, "GPU %d -> GPU %d: CUDA says peer access is %spossible, NVML says %s", t->g[a].index,
				     t->g[b].index, can ? "" : "not ", good ? "OK" : rd);
		if (a < b && !good) {
			nbad++;
			if (!f)
				f = result_add_finding(r, "P2P_NOT_SUPPORTED", SEV_WARNING, "P2P not supported between GPU %d and GPU %d",
						       t->g[a].index, t->g[b].index);
			if (nbad <= 16)
				finding_evidence(f, NULL, 0, "nvmlDeviceGetP2PStatus GPU %d -> GPU %d: read %s, write %s",
						 t->g[a].index, t->g[b].index, rd, wr);
		}
	}
	section_note(s, "legend: X = self, OK = supported, CNS = chipset not supported, GNS = GPU not supported, "
			"TNS = topology not supported, DRK = disabled by a registry key, NS = not supported, U = unknown");
	json_object_set_new(r->extra, "p2p", all);
	if (f && nbad > 1) {
		free(f->title);
		f->title = xasprintf("P2P not supported for %d GPU pairs", nbad);
	}
	if (f)
		finding_fix(f, "vllm", "vLLM's custom all-reduce trusts P2P; keep it off while P2P is unsupported",
			    "--disable-custom-all-reduce");
	for (int k = 0; k < nsel; k++)
		free(names[k]);
	free(names);
	free(cols);
}

static void show_nvlinks(struct result *r, struct topo *t, const int *sel, int nsel)
{
	if (!t->from_nvml)
		return;
	bool any = false;
	for (int k = 0; k < nsel; k++)
		any |= json_array_size(t->g[sel[k]].nvlinks) > 0;
	if (!any)
		return;
	struct section *s = result_section(r, "nvlink", "NVLink");
	static const struct column cols[] = {
		{ "gpu", "GPU", 0 }, { "links", "links", 0 }, { "active", "active", 0 }, { "down", "down", 0 },
		{ "remote", "remote", 0 },
	};
	struct table *tb = section_table(s, "nvlink", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	json_t *all = json_array();
	for (int k = 0; k < nsel; k++) {
		struct tgpu *g = &t->g[sel[k]];
		size_t n = json_array_size(g->nvlinks), i;
		if (!n)
			continue;
		int active = 0, sw = 0, gpu = 0;
		struct strbuf down = STRBUF_INIT;
		strbuf_init(&down, 512);
		json_t *lk;
		json_array_foreach(g->nvlinks, i, lk) {
			bool a = json_is_true(json_object_get(lk, "active"));
			const char *rt = json_string_value(json_object_get(lk, "remote_type"));
			json_t *o = json_pack("{s:i,s:i,s:b}", "gpu", g->index, "link", (int)jint(lk, "link", (long long)i), "active", a);
			if (json_object_get(lk, "remote_bdf"))
				json_object_set(o, "remote_bdf", json_object_get(lk, "remote_bdf"));
			if (rt)
				json_object_set_new(o, "remote_type", json_string(rt));
			json_array_append_new(all, o);
			if (a) {
				active++;
				if (rt && strcmp(rt, "switch") == 0)
					sw++;
				else
					gpu++;
			} else {
				strbuf_addf(&down, "%s%lld", down.len ? "," : "", jint(lk, "link", (long long)i));
			}
		}
		size_t row = table_add_row(tb);
		table_set(tb, row, "gpu", val_int(g->index));
		table_set(tb, row, "links", val_int((long long)n));
		table_set(tb, row, "active", val_int(active));
		table_set(tb, row, "down", val_str(down.len ? strbuf_str(&down) : "-"));
		table_set(tb, row, "remote", val_str(sw && gpu ? "NVSwitch and GPUs" : sw ? "NVSwitch" : gpu ? "GPUs" : "-"));
		if (down.len && active > 0) {
			table_mark(tb, row, "down", MARK_BAD);
			struct finding *f = result_add_finding(r, "NVLINK_DOWN", SEV_ERROR, "GPU %d: NVLink %s down (%d of %zu active)",
							      g->index, strbuf_str(&down), active, n);
			finding_evidence(f, NULL, 0, "nvmlDeviceGetNvLinkState GPU %d (%s): links %s inactive", g->index, g->bdf, strbuf_str(&down));
		} else if (down.len) {
			section_note(s, "GPU %d: none of its %zu NVLinks is active (no NVLink partner here, e.g. a VM without the fabric)", g->index, n);
		}
		strbuf_release(&down);
	}
	json_object_set_new(r->extra, "nvlinks", all);
}

static void gpu_findings(struct result *r, struct topo *t, const int *sel, int nsel)
{
	for (int k = 0; k < nsel; k++) {
		struct tgpu *g = &t->g[sel[k]];
		struct finding *f;
		if (g->lost) {
			f = result_add_finding(r, "GPU_LOST", SEV_ERROR, "GPU %d (%s) is lost", g->index, g->bdf[0] ? g->bdf : "?");
			finding_evidence(f, NULL, 0, "%s returned NVML_ERROR_GPU_IS_LOST", g->lost_at ? g->lost_at : "an NVML call");
		}
		if (g->cur_width && g->max_width && g->cur_width < g->max_width) {
			f = result_add_finding(r, "PCIE_LINK_DOWNTRAINED", SEV_WARNING, "GPU %d (%s) PCIe link at x%d of x%d",
					       g->index, g->bdf, g->cur_width, g->max_width);
			finding_evidence(f, NULL, 0, "%s: current width x%d, maximum x%d", t->from_nvml ? "NVML" : "sysfs",
					 g->cur_width, g->max_width);
		}
		if (g->cur_gen && g->max_gen && g->cur_gen < g->max_gen) {
			f = result_add_finding(r, "PCIE_LINK_SPEED_REDUCED", SEV_INFO, "GPU %d (%s) PCIe link at gen%d of gen%d",
					       g->index, g->bdf, g->cur_gen, g->max_gen);
			finding_evidence(f, NULL, 0, "%s: current generation %d, maximum %d (lower at idle is normal)",
					 t->from_nvml ? "NVML" : "sysfs", g->cur_gen, g->max_gen);
		}
		if (g->remap_pending == 1) {
			f = result_add_finding(r, "REMAPPED_ROWS_PENDING", SEV_ERROR, "GPU %d (%s) has a row remap pending: reset needed",
					       g->index, g->bdf);
			finding_evidence(f, NULL, 0, "nvmlDeviceGetRemappedRows: isPending=1");
		}
		if (g->mig == 1) {
			f = result_add_finding(r, "MIG_ENABLED", SEV_WARNING, "GPU %d (%s) is in MIG mode", g->index, g->bdf);
			finding_evidence(f, NULL, 0, "nvmlDeviceGetMigMode: current mode 1 (enabled)");
			finding_fix(f, "shell", "disables MIG; the GPU must be idle and is reset", "sudo nvidia-smi -i %d -mig 0", g->index);
		}
	}
	if (!t->from_nvml || !t->have_pci)
		return;
	struct finding *f = NULL;
	int n = 0;
	char b1[16], b2[16];
	for (int i = 0; i < nsel; i++)
		for (int j = i + 1; j < nsel; j++) {
			int a = sel[i], b = sel[j];
			if (t->nvml[a][b] == CL_UNKNOWN || t->sysfs[a][b] == CL_UNKNOWN || t->nvml[a][b] == t->sysfs[a][b])
				continue;
			if (!f)
				f = result_add_finding(r, "TOPO_SOURCES_DISAGREE", SEV_WARNING,
						       "NVML and the PCI tree disagree on the path between GPUs");
			if (++n <= 16)
				finding_evidence(f, NULL, 0, "GPU %d - GPU %d: NVML says %s, sysfs says %s", t->g[a].index, t->g[b].index,
						 cls_text(t->nvml[a][b], 0, b1, sizeof(b1)), cls_text(t->sysfs[a][b], 0, b2, sizeof(b2)));
		}
	if (f)
		finding_fix(f, "env", "gives NCCL the real topology when the guest's PCI tree is invented",
			    "export NCCL_TOPO_FILE=/var/run/nvidia-topologyd/virtualTopology.xml");
}

int cmd_topo(int argc, char **argv, const struct run_opts *opt)
{
	static const struct option opts[] = {
		{ "sysfs", no_argument, NULL, 's' },
		{ "driver", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool sysfs_only = false, force_driver = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': sysfs_only = true; break;
		case 'd': force_driver = true; break;
		case 'h': usage(stdout); return 0;
		default: return cmd_usage_error("topo", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cmd_usage_error("topo", "unexpected argument '%s'", argv[optind]);

	struct result *r = result_new("topo");
	struct topo *t = xcalloc(1, sizeof(*t));
	int pr = pci_scan(&t->pci);
	t->have_pci = pr >= 0;

	/* the driver is asked only about the live machine */
	bool ask_driver = !sysfs_only && (sysroot_is_live() || force_driver);
	/* neither a GPU on the bus nor a driver: unless NVML answers all the
	 * same, there is nothing to check (and no driver finding to make) */
	struct driver_facts drv;
	driver_probe(&drv);
	bool nothing = cmd_no_nvidia_here(t->have_pci ? &t->pci : NULL, &drv);
	struct worker wn, wc;
	worker_init(&wn);
	worker_init(&wc);
	json_t *workers = json_array();
	if (ask_driver) {
		struct worker_spec sn = { .task = "nvml-topo", .deadline = opt_deadline(opt, DEADLINE_QUERY), .grace = 1 };
		struct worker_spec sc = { .task = "cuda-info", .deadline = opt_deadline(opt, DEADLINE_QUERY), .grace = 1 };
		int e1 = worker_start(&wn, &sn), e2 = worker_start(&wc, &sc);
		struct worker *ws[2];
		size_t nw = 0;
		if (e1 == 0)
			ws[nw++] = &wn;
		if (e2 == 0)
			ws[nw++] = &wc;
		worker_wait(ws, nw);
		json_array_append_new(workers, worker_json(&wn));
		json_array_append_new(workers, worker_json(&wc));
		if (wn.status == WORKER_OK)
			t->nvml_res = worker_result(&wn);
		if (wc.status == WORKER_OK)
			t->cuda_res = worker_result(&wc);
		nothing = nothing && wn.status != WORKER_OK;
		if (!nothing) {
			nvml_findings(r, &wn);
			bool nvml_missing = result_find(r, "NVML_NOT_AVAILABLE") != NULL;
			cuda_findings(r, &wc, nvml_missing);
		}
	}
	t->from_nvml = t->nvml_res != NULL;
	if (t->from_nvml)
		gpus_from_nvml(t);
	else
		gpus_from_sysfs(t);
	build_matrices(t);

	int sel[MAX_GPUS], nsel = 0;
	for (int i = 0; i < t->n; i++)
		if (gpusel_match(&opt->gpus, t->g[i].index, t->g[i].uuid, t->g[i].bdf))
			sel[nsel++] = i;

	if (t->n == 0) {
		if (nothing)
			result_set_error(r, "%s", CMD_NO_GPU_TEXT);
		else if (!t->have_pci && !t->from_nvml)
			result_set_error(r, "cannot read '/sys/bus/pci/devices': %s, and NVML gave nothing", sr_strerror(pr));
		else
			result_set_error(r, "no NVIDIA GPU found%s", t->from_nvml ? " by NVML" : " on the PCI bus");
	} else if (nsel == 0) {
		result_set_error(r, "--gpus '%s' selects none of the %d GPUs", opt->gpus.text, t->n);
	}
	const char *dv = t->nvml_res ? json_string_value(json_object_get(t->nvml_res, "driver_version")) : NULL;
	result_set_headline(r, "%d GPU%s%s%s; matrix from %s", t->n, t->n == 1 ? "" : "s", dv ? ", driver " : "", dv ? dv : "",
			    t->from_nvml ? "NVML" : "sysfs");
	if (nsel > 0) {
		struct section *s = result_section(r, "source", "Source");
		section_add(s, "matrix_source", "matrix from", val_str(t->from_nvml ? "NVML" : "sysfs"));
		if (dv)
			section_add(s, "driver_version", "driver", val_str(dv));
		json_t *cv = t->cuda_res ? json_object_get(t->cuda_res, "driver_version") : NULL;
		if (cv)
			section_add(s, "cuda_driver_version", "CUDA driver API", val_str(json_string_value(cv)));
		if (!ask_driver)
			section_note(s, sysfs_only ? "--sysfs: the driver was not asked"
						   : "a recorded sysroot: the driver of that machine cannot be asked, facts are from its sysfs");
		else if (!t->from_nvml)
			section_note(s, "NVML unavailable (%s): GPUs and matrix derived from the PCI tree in sysfs",
				     wn.why[0] ? wn.why : worker_status_name(wn.status));
		show_gpus(r, t, sel, nsel);
		show_matrix(r, t, sel, nsel);
		show_p2p(r, t, sel, nsel);
		show_nvlinks(r, t, sel, nsel);
		gpu_findings(r, t, sel, nsel);
	}
	json_object_set_new(r->extra, "workers", workers);
	int code = cmd_finish(r, opt);
	worker_release(&wn);
	worker_release(&wc);
	if (t->have_pci)
		pci_list_release(&t->pci);
	free(t);
	return code;
}
