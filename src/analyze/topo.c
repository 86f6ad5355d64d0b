/* The GPU topology (see analyze/topo.h).
 *
 * From the machine model: the answers of the two workers collect_gpus()
 * ran at once under a deadline, `nvml-topo` (NVML's devices, matrix, P2P
 * status, NVLink) and `cuda-info` (cuInit, CUDA's view, peer access), and
 * the PCI tree, which gives a second matrix; when NVML is unavailable (no driver, NVML hung, a recorded
 * sysroot) the GPUs and the matrix come from sysfs alone, and a note says
 * so. The matrix uses the legend of `nvidia-smi topo -m`. */
#include "analyze/sys.h"
#include "analyze/topo.h"
#include "analyze/topo_fabric.h"
#include "analyze/worker_findings.h"
#include "kb/findings.h"
#include "util/strbuf.h"
#include "util/errtext.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/jsonx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 64

/* A GPU while it is collected; strings borrowed from the worker results. */
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
	json_t *nvml;             /* the GPU's whole nvml-topo object, borrowed; NULL from sysfs */
	const struct pci_dev *pci;
};

struct topo {
	struct tgpu g[MAX_GPUS];
	int n;
	bool from_nvml;
	enum link_class nvml[MAX_GPUS][MAX_GPUS], sysfs[MAX_GPUS][MAX_GPUS];
	int nv[MAX_GPUS][MAX_GPUS];
	json_t *nvml_res, *cuda_res;
	const struct pci_list *pci; /* the machine model's */
	bool have_pci;
	int sel[MAX_GPUS], nsel;  /* the GPUs shown */
};

/* --- building the GPU list ------------------------------------------- */

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
		g->index = (int)json_get_int(o, "index", (long long)i);
		const char *bdf = json_string_value(json_object_get(o, "bdf"));
		str_copy(g->bdf, bdf ? bdf : "", sizeof(g->bdf));
		g->name = json_string_value(json_object_get(o, "name"));
		g->uuid = json_string_value(json_object_get(o, "uuid"));
		g->gpu_numa_id = (int)json_get_int(o, "gpu_numa_id", -1);
		const char *na = json_string_value(json_object_get(o, "numa_affinity"));
		long long node = -1;
		if (na && parse_ll(na, 10, &node) < 0)
			node = -1; /* several nodes: leave it to sysfs */
		g->numa = (int)node;
		const char *c = json_string_value(json_object_get(o, "cpu_affinity"));
		str_copy(g->cpus, c ? c : "", sizeof(g->cpus));
		g->cur_gen = (int)json_get_int(o, "pcie_cur_gen", 0);
		g->max_gen = (int)json_get_int(o, "pcie_max_gen", 0);
		g->cur_width = (int)json_get_int(o, "pcie_cur_width", 0);
		g->max_width = (int)json_get_int(o, "pcie_max_width", 0);
		g->memory = json_get_int(o, "memory_total", -1);
		g->bar1 = json_get_int(o, "bar1_total", -1);
		g->persistence = jbool(o, "persistence");
		g->mig = jbool(o, "mig_current");
		g->ecc = jbool(o, "ecc_current");
		json_t *rr = json_object_get(o, "remapped_rows");
		g->remap_pending = rr ? jbool(rr, "pending") : -1;
		g->lost = json_is_true(json_object_get(o, "lost"));
		g->lost_at = json_string_value(json_object_get(o, "lost_at"));
		g->nvlinks = json_object_get(o, "nvlinks");
		g->nvml = o;
		g->pci = t->have_pci && g->bdf[0] ? pci_find(t->pci, g->bdf) : NULL;
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
	for (size_t i = 0; i < t->pci->n && t->n < MAX_GPUS; i++) {
		const struct pci_dev *d = &t->pci->devs[i];
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
			t->nvml[a][b] = t->sysfs[a][b] = a == b ? LINK_X : LINK_UNKNOWN;
			t->nv[a][b] = 0;
			if (a != b && t->g[a].pci && t->g[b].pci)
				t->sysfs[a][b] = topo_sysfs_class(t->pci, t->g[a].pci, t->g[b].pci);
		}
	if (!t->from_nvml)
		return;
	json_t *p;
	size_t i;
	json_array_foreach(json_object_get(t->nvml_res, "pairs"), i, p) {
		int a = (int)json_get_int(p, "a", -1), b = (int)json_get_int(p, "b", -1);
		if (a < 0 || b < 0 || a >= t->n || b >= t->n || !json_object_get(p, "level"))
			continue;
		t->nvml[a][b] = t->nvml[b][a] = link_of_nvml_level(json_get_int(p, "level", -1));
	}
	/* NV#: active links to a GPU, or through NVSwitch */
	int *nv = xcalloc((size_t)t->n * (size_t)t->n + 1, sizeof(*nv));
	link_nv_matrix(json_object_get(t->nvml_res, "gpus"), t->n, nv);
	for (int a = 0; a < t->n; a++)
		for (int b = 0; b < t->n; b++)
			t->nv[a][b] = nv[a * t->n + b];
	free(nv);
}

/* --- the typed model -------------------------------------------------- */

static char *dup_or_null(const char *s)
{
	return s && s[0] ? xstrdup(s) : NULL;
}

static void model_gpus(struct topo_model *m, const struct topo *t)
{
	for (int k = 0; k < t->nsel; k++) {
		const struct tgpu *g = &t->g[t->sel[k]];
		struct topo_gpu *x = topo_add_gpu(m);
		x->index = g->index;
		x->name = g->name ? xstrdup(g->name) : NULL;
		x->bdf = dup_or_null(g->bdf);
		x->uuid = g->uuid ? xstrdup(g->uuid) : NULL;
		x->numa_node = g->numa >= 0 ? g->numa : -1;
		x->cpu_affinity = dup_or_null(g->cpus);
		x->gpu_numa_id = g->gpu_numa_id >= 0 ? g->gpu_numa_id : -1;
		x->pcie_cur_gen = g->cur_gen;
		x->pcie_max_gen = g->max_gen;
		x->pcie_cur_width = g->cur_width;
		x->pcie_max_width = g->max_width;
		x->memory_bytes = g->memory;
		x->bar1_bytes = g->bar1;
		x->persistence = g->persistence;
		x->mig = g->mig;
		x->ecc = g->ecc;
		x->remap_pending = g->remap_pending;
		x->lost = g->lost;
	}
}

static void model_matrices(struct topo_model *m, const struct topo *t)
{
	topo_alloc_matrices(m, t->from_nvml, t->have_pci);
	for (int i = 0; i < t->nsel; i++)
		for (int j = 0; j < t->nsel; j++) {
			int a = t->sel[i], b = t->sel[j];
			/* shown: NV# first, then NVML's class, else sysfs */
			struct link *c = topo_cell(m, m->matrix, (size_t)i, (size_t)j);
			c->nvlinks = t->from_nvml ? t->nv[a][b] : 0;
			c->cls = t->from_nvml && t->nvml[a][b] != LINK_UNKNOWN ? t->nvml[a][b] : t->sysfs[a][b];
			if (m->nvml_matrix)
				*topo_cell(m, m->nvml_matrix, (size_t)i, (size_t)j) = (struct link){ t->nvml[a][b], t->nv[a][b] };
			if (m->sysfs_matrix)
				*topo_cell(m, m->sysfs_matrix, (size_t)i, (size_t)j) = (struct link){ t->sysfs[a][b], 0 };
		}
}

static const char *pair_status(json_t *p, const char *k)
{
	const char *s = json_string_value(json_object_get(json_object_get(p, "p2p"), k));
	return s ? s : "?";
}

static int can_access_peer(const struct topo *t, int a, int b)
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
		if (json_get_int(p, "a", -1) == ca && json_get_int(p, "b", -1) == cb)
			return jbool(p, "can_access_peer");
	return -1;
}

/* The cuda-info device with this bus id, or NULL. */
static json_t *cuda_device(const struct topo *t, const char *bdf)
{
	json_t *p;
	size_t i;
	json_array_foreach(json_object_get(t->cuda_res, "devices"), i, p) {
		const char *b = json_string_value(json_object_get(p, "bdf"));
		if (b && bdf && strcmp(b, bdf) == 0)
			return p;
	}
	return NULL;
}

/* The fabric rows and findings of the shown GPUs (analyze/topo_fabric.c). */
static void model_fabric(struct result *r, struct topo_model *m, const struct topo *t)
{
	if (!t->from_nvml)
		return;
	for (int k = 0; k < t->nsel; k++) {
		const struct tgpu *g = &t->g[t->sel[k]];
		topo_fabric_gpu(m, g->index, g->name, g->nvml, t->cuda_res ? cuda_device(t, g->bdf) : NULL);
	}
	int nsw = 0;
	for (size_t i = 0; t->have_pci && i < t->pci->n; i++)
		nsw += pci_is_nvswitch(&t->pci->devs[i]);
	topo_fabric_finish(r, m, t->have_pci ? nsw : -1);
}

/* NVML's P2P status per ordered pair, CUDA's answer beside it; a note where
 * they disagree, one finding for the pairs without P2P. */
static void model_p2p(struct result *r, struct topo_model *m, const struct topo *t)
{
	if (!t->from_nvml)
		return;
	struct section *s = result_topo_section(r, SECTION_TOPO_P2P, "p2p", "P2P read/write (NVML, as nvidia-smi topo -p2p rw)");
	m->have_p2p = true;
	json_t *p;
	size_t i;
	struct finding *f = NULL;
	int nbad = 0;
	json_array_foreach(json_object_get(t->nvml_res, "pairs"), i, p) {
		int a = (int)json_get_int(p, "a", -1), b = (int)json_get_int(p, "b", -1);
		if (a < 0 || b < 0 || a >= t->n || b >= t->n || topo_pos(m, t->g[a].index) < 0 || topo_pos(m, t->g[b].index) < 0)
			continue;
		const char *rd = pair_status(p, "read"), *wr = pair_status(p, "write");
		int can = t->cuda_res ? can_access_peer(t, a, b) : -1;
		struct topo_p2p *x = topo_add_p2p(m);
		x->a = t->g[a].index;
		x->b = t->g[b].index;
		x->read = xstrdup(rd);
		x->write = xstrdup(wr);
		x->nvlink = xstrdup(pair_status(p, "nvlink"));
		x->atomics = xstrdup(pair_status(p, "atomics"));
		x->cuda_can_access_peer = can;
		bool good = strcmp(rd, "OK") == 0 && strcmp(wr, "OK") == 0;
		if (can >= 0 && can != good)
			section_note(s, "GPU %d -> GPU %d: CUDA says peer access is %spossible, NVML says %s", t->g[a].index,
				     t->g[b].index, can ? "" : "not ", good ? "OK" : rd);
		if (a < b && !good) {
			nbad++;
			if (!f)
				f = finding_add(r, FID_P2P_NOT_SUPPORTED, SEV_WARNING, "P2P not supported between GPU %d and GPU %d",
						t->g[a].index, t->g[b].index);
			if (nbad <= 16)
				finding_evidence(f, NULL, 0, "nvmlDeviceGetP2PStatus GPU %d -> GPU %d: read %s, write %s",
						 t->g[a].index, t->g[b].index, rd, wr);
		}
	}
	section_note(s, "legend: X = self, OK = supported, CNS = chipset not supported, GNS = GPU not supported, "
			"TNS = topology not supported, DRK = disabled by a registry key, NS = not supported, U = unknown");
	if (f && nbad > 1) {
		free(f->title);
		f->title = xasprintf("P2P not supported for %d GPU pairs", nbad);
	}
	if (f)
		finding_fix(f, "vllm", "vLLM's custom all-reduce trusts P2P; keep it off while P2P is unsupported",
			    "--disable-custom-all-reduce");
}

/* Every NVLink of the shown GPUs; a finding for a GPU with some links down,
 * a note for one with none active. */
static void model_nvlinks(struct result *r, struct topo_model *m, const struct topo *t)
{
	if (!t->from_nvml)
		return;
	bool any = false;
	for (int k = 0; k < t->nsel; k++)
		any |= json_array_size(t->g[t->sel[k]].nvlinks) > 0;
	if (!any)
		return;
	struct section *s = result_topo_section(r, SECTION_TOPO_NVLINK, "nvlink", "NVLink");
	m->have_nvlinks = true;
	for (int k = 0; k < t->nsel; k++) {
		const struct tgpu *g = &t->g[t->sel[k]];
		size_t n = json_array_size(g->nvlinks), i;
		if (!n)
			continue;
		int active = 0;
		struct strbuf down = STRBUF_INIT;
		strbuf_init(&down, 512);
		json_t *lk;
		json_array_foreach(g->nvlinks, i, lk) {
			struct topo_nvlink *x = topo_add_nvlink(m);
			x->gpu = g->index;
			x->link = (int)json_get_int(lk, "link", (long long)i);
			x->active = json_is_true(json_object_get(lk, "active"));
			x->remote_bdf = dup_or_null(json_string_value(json_object_get(lk, "remote_bdf")));
			x->remote_type = dup_or_null(json_string_value(json_object_get(lk, "remote_type")));
			topo_nvlink_details(x, lk);
			if (x->active)
				active++;
			else
				strbuf_addf(&down, "%s%d", down.len ? "," : "", x->link);
		}
		if (down.len && active > 0) {
			struct finding *f = finding_add(r, FID_NVLINK_DOWN, SEV_ERROR, "GPU %d: NVLink %s down (%d of %zu active)",
							g->index, strbuf_str(&down), active, n);
			finding_evidence(f, NULL, 0, "nvmlDeviceGetNvLinkState GPU %d (%s): links %s inactive", g->index, g->bdf,
					 strbuf_str(&down));
		} else if (down.len) {
			section_note(s, "GPU %d: none of its %zu NVLinks is active (no NVLink partner here, e.g. a VM without the fabric)",
				     g->index, n);
		}
		strbuf_release(&down);
	}
}

/* --- findings about the GPUs ---------------------------------------------- */

static void gpu_findings(struct result *r, const struct topo *t)
{
	for (int k = 0; k < t->nsel; k++) {
		const struct tgpu *g = &t->g[t->sel[k]];
		struct finding *f;
		if (g->lost) {
			f = finding_add(r, FID_GPU_LOST, SEV_ERROR, "GPU %d (%s) is lost", g->index, g->bdf[0] ? g->bdf : "?");
			finding_evidence(f, NULL, 0, "%s returned NVML_ERROR_GPU_IS_LOST", g->lost_at ? g->lost_at : "an NVML call");
		}
		if (g->cur_width && g->max_width && g->cur_width < g->max_width) {
			f = finding_add(r, FID_PCIE_LINK_DOWNTRAINED, SEV_WARNING, "GPU %d (%s) PCIe link at x%d of x%d",
					g->index, g->bdf, g->cur_width, g->max_width);
			finding_evidence(f, NULL, 0, "%s: current width x%d, maximum x%d", t->from_nvml ? "NVML" : "sysfs",
					 g->cur_width, g->max_width);
		}
		if (g->cur_gen && g->max_gen && g->cur_gen < g->max_gen) {
			f = finding_add(r, FID_PCIE_LINK_SPEED_REDUCED, SEV_INFO, "GPU %d (%s) PCIe link at gen%d of gen%d",
					g->index, g->bdf, g->cur_gen, g->max_gen);
			finding_evidence(f, NULL, 0, "%s: current generation %d, maximum %d (lower at idle is normal)",
					 t->from_nvml ? "NVML" : "sysfs", g->cur_gen, g->max_gen);
		}
		if (g->remap_pending == 1) {
			f = finding_add(r, FID_REMAPPED_ROWS_PENDING, SEV_ERROR, "GPU %d (%s) has a row remap pending: reset needed",
					g->index, g->bdf);
			finding_evidence(f, NULL, 0, "nvmlDeviceGetRemappedRows: isPending=1");
		}
		if (g->mig == 1) {
			f = finding_add(r, FID_MIG_ENABLED, SEV_WARNING, "GPU %d (%s) is in MIG mode", g->index, g->bdf);
			finding_evidence(f, NULL, 0, "nvmlDeviceGetMigMode: current mode 1 (enabled)");
			finding_fix(f, "shell", "disables MIG; the GPU must be idle and is reset", "sudo nvidia-smi -i %d -mig 0", g->index);
		}
	}
	if (!t->from_nvml || !t->have_pci)
		return;
	struct finding *f = NULL;
	int n = 0;
	for (int i = 0; i < t->nsel; i++)
		for (int j = i + 1; j < t->nsel; j++) {
			int a = t->sel[i], b = t->sel[j];
			if (t->nvml[a][b] == LINK_UNKNOWN || t->sysfs[a][b] == LINK_UNKNOWN || t->nvml[a][b] == t->sysfs[a][b])
				continue;
			if (!f)
				f = finding_add(r, FID_TOPO_SOURCES_DISAGREE, SEV_WARNING,
						"NVML and the PCI tree disagree on the path between GPUs");
			if (++n <= 16)
				finding_evidence(f, NULL, 0, "GPU %d - GPU %d: NVML says %s, sysfs says %s", t->g[a].index, t->g[b].index,
						 link_class_name(t->nvml[a][b]), link_class_name(t->sysfs[a][b]));
		}
	if (f)
		finding_fix(f, "env", "gives NCCL the real topology when the guest's PCI tree is invented",
			    "export NCCL_TOPO_FILE=/var/run/nvidia-topologyd/virtualTopology.xml");
}

/* --- collection --------------------------------------------------------------- */

/* The workers' answers (collect_gpus); their outcomes become findings and
 * "workers". */
static void driver_answers(struct result *r, struct topo *t, const struct machine *m, bool *nothing)
{
	json_t *workers = json_object_get(r->extra, "workers");
	json_array_append_new(workers, json_deep_copy(m->nvml.summary));
	json_array_append_new(workers, json_deep_copy(m->cuda.summary));
	t->nvml_res = machine_answer(&m->nvml);
	t->cuda_res = machine_answer(&m->cuda);
	*nothing = *nothing && m->nvml.status != WORKER_OK;
	if (*nothing)
		return;
	worker_findings(r, &m->nvml, WLIB_NVML, false);
	worker_findings(r, &m->cuda, WLIB_CUDA, finding_get(r, FID_NVML_NOT_AVAILABLE) != NULL);
}

static void source_section(struct result *r, const struct topo *t, const struct topo_params *p,
			   const struct worker_outcome *wn)
{
	const char *dv = t->nvml_res ? json_string_value(json_object_get(t->nvml_res, "driver_version")) : NULL;
	struct section *s = result_section(r, "source", "Source");
	/* text only: the top-level matrix_source says it in JSON */
	section_add(s, "matrix_source", "matrix from", val_str(t->from_nvml ? "NVML" : "sysfs"))->show = SHOW_TEXT_ONLY;
	if (dv)
		section_add(s, "driver_version", "driver", val_str(dv));
	json_t *cv = t->cuda_res ? json_object_get(t->cuda_res, "driver_version") : NULL;
	if (cv)
		section_add(s, "cuda_driver_version", "CUDA driver API", val_str(json_string_value(cv)));
	if (!p->ask_driver)
		section_note(s, p->sysfs_only ? "--sysfs: the driver was not asked"
					      : "a recorded sysroot: the driver of that machine cannot be asked, facts are from its sysfs");
	else if (!t->from_nvml && worker_lib_missing(wn))
		section_note(s, NVML_LIB_TEXT " %s (%s): the GPUs and the matrix below come from the PCI tree in sysfs; "
			     "GPU names, memory, NVLink and P2P status need NVML", worker_lib_missing(wn),
			     wn->why[0] ? wn->why : "not loaded");
	else if (!t->from_nvml)
		section_note(s, "NVML %s (%s): the GPUs and the matrix below come from the PCI tree in sysfs; GPU names, "
			     "memory, NVLink and P2P status need NVML", wn->status == WORKER_HANG ? "did not answer" : "failed",
			     wn->why[0] ? wn->why : worker_status_name(wn->status));
}

int topo_run(struct result *r, const struct topo_params *p, const struct machine *mach)
{
	struct topo *t = xcalloc(1, sizeof(*t));
	t->pci = &mach->pci;
	t->have_pci = mach->pci_err >= 0;
	json_object_set_new(r->extra, "workers", json_array());
	/* neither a GPU on the bus nor a driver: unless NVML answers all the
	 * same, there is nothing to check (and no driver finding to make) */
	bool nothing = sys_no_nvidia_here(t->have_pci ? t->pci : NULL, &mach->drv);
	if (p->ask_driver && !p->sysfs_only)
		driver_answers(r, t, mach, &nothing);
	t->from_nvml = t->nvml_res != NULL;
	if (t->from_nvml)
		gpus_from_nvml(t);
	else
		gpus_from_sysfs(t);
	build_matrices(t);
	for (int i = 0; i < t->n; i++)
		if (!p->gpus || gpusel_match(p->gpus, t->g[i].index, t->g[i].uuid, t->g[i].bdf))
			t->sel[t->nsel++] = i;

	int rc = 0;
	if (t->n == 0) {
		if (nothing)
			result_set_nothing_to_check(r, NO_NVIDIA_TEXT);
		else if (!t->have_pci && !t->from_nvml)
			result_set_error(r, "cannot read '/sys/bus/pci/devices': %s, and NVML gave nothing", sr_strerror(mach->pci_err));
		else
			result_set_error(r, "no NVIDIA GPU found%s", t->from_nvml ? " by NVML" : " on the PCI bus");
		rc = -ENODEV;
	} else if (t->nsel == 0) {
		result_set_error(r, "--gpus '%s' selects none of the %d GPUs", p->gpus ? p->gpus->text : "", t->n);
		rc = -ENODEV;
	}
	const char *dv = t->nvml_res ? json_string_value(json_object_get(t->nvml_res, "driver_version")) : NULL;
	result_set_headline(r, "%d GPU%s%s%s; matrix from %s", t->n, t->n == 1 ? "" : "s", dv ? ", driver " : "", dv ? dv : "",
			    t->from_nvml ? "NVML" : "sysfs");
	if (t->nsel > 0) {
		source_section(r, t, p, &mach->nvml);
		struct topo_model *m = result_topo(r);
		m->from_nvml = t->from_nvml;
		result_topo_section(r, SECTION_TOPO_GPUS, "gpus", "GPUs");
		model_gpus(m, t);
		struct section *s = result_topo_section(r, SECTION_TOPO_MATRIX, "matrix", "GPU-to-GPU matrix");
		model_matrices(m, t);
		section_note(s, "legend: X = self, SYS = PCIe + the interconnect between NUMA nodes, NODE = PCIe + the "
				"interconnect between host bridges of one NUMA node, PHB = PCIe + a host bridge, PXB = several "
				"PCIe bridges, PIX = at most one PCIe bridge, NV# = # bonded NVLinks");
		model_p2p(r, m, t);
		model_nvlinks(r, m, t);
		model_fabric(r, m, t);
		gpu_findings(r, t);
	}
	free(t);
	return rc;
}
