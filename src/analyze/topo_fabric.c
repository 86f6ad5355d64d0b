/* The NVSwitch fabric in `topo` (analyze/topo_fabric.h).
 *
 * There is an NVSwitch fabric when NVSwitches sit on the PCI bus, a GPU has
 * an active NVLink to a switch, or NVML reports a fabric state other than
 * "not supported" for a GPU. Without one, the section says "no NVSwitch
 * fabric" and no fabric finding is made (a single H200 in a VM, a PCIe
 * box). With one: a GPU whose state is not "completed" (the fabric manager
 * has not registered it; CUDA then fails with error 802), a completed
 * registration with an error status, a health mask that reports degraded
 * bandwidth or an unhealthy route, fewer NVLinks than the model has, a link
 * slower than the others, rising error counters, and multicast (NVLS) off. */
#include "analyze/topo_fabric.h"
#include "kb/findings.h"
#include "kb/nvlink_models.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const err_keys[NVL_ERR_N] = { "replay", "recovery", "crc_flit", "crc_data" };

void topo_nvlink_details(struct topo_nvlink *x, json_t *lk)
{
	x->speed_mbps = json_get_int(lk, "speed_mbps", -1);
	x->version = (int)json_get_int(lk, "version", -1);
	json_t *e = json_object_get(lk, "errors"), *a = json_object_get(lk, "errors_after");
	for (int k = 0; k < NVL_ERR_N; k++) {
		x->err[k] = json_get_int(e, err_keys[k], -1);
		long long after = json_get_int(a, err_keys[k], -1);
		if (x->err[k] >= 0 && after >= 0)
			x->grew[k] = after > x->err[k] ? after - x->err[k] : 0;
	}
}

void topo_fabric_gpu(struct topo_model *m, int index, const char *name, json_t *gpu_nvml, json_t *cuda_dev)
{
	struct topo_fabric *f = topo_add_fabric(m);
	f->gpu = index;
	json_t *fo = json_object_get(gpu_nvml, "fabric");
	const char *err = json_string_value(json_object_get(fo, "error"));
	if (err) {
		f->error = xstrdup(err);
		/* NOT_SUPPORTED is the answer of a GPU outside any fabric */
		if (strcmp(err, "NVML_ERROR_NOT_SUPPORTED") == 0)
			f->state = 0;
	} else if (fo) {
		f->state = (int)json_get_int(fo, "state", -1);
		const char *st = json_string_value(json_object_get(fo, "status_name"));
		if (st && f->state == 3)
			f->status = xstrdup(st);
		f->clique_id = json_get_int(fo, "clique_id", -1);
		f->health_mask = json_get_int(fo, "health_mask", -1);
		const char *u = json_string_value(json_object_get(fo, "cluster_uuid"));
		f->cluster_uuid = u ? xstrdup(u) : NULL;
	}
	json_t *mc = json_object_get(cuda_dev, "multicast_supported");
	f->multicast = json_is_boolean(mc) ? json_is_true(mc) : -1;
	json_t *links = json_object_get(gpu_nvml, "nvlinks");
	if (json_is_array(links)) {
		long long count = json_get_int(gpu_nvml, "nvlink_count", -1);
		f->links_present = count >= 0 ? (int)count : (int)json_array_size(links);
		f->links_active = 0;
		json_t *lk;
		size_t i;
		json_array_foreach(links, i, lk) {
			if (!json_is_true(json_object_get(lk, "active")))
				continue;
			f->links_active++;
			long long sp = json_get_int(lk, "speed_mbps", -1);
			if (sp > f->link_speed_mbps)
				f->link_speed_mbps = sp;
		}
	}
	const struct nvlink_model *nm = kb_nvlink_model(name);
	if (nm) {
		f->links_expected = nm->links;
		f->expected_source = xstrdup(nm->source);
	}
}

static const struct topo_gpu *gpu_of(const struct topo_model *m, int index)
{
	int p = topo_pos(m, index);
	return p >= 0 ? &m->gpus[p] : NULL;
}

/* The reference speed of a GPU's links: the fastest active link of any shown
 * GPU of the same model. Peers, not the model table, decide: a platform
 * whose every link reports another rate than the table's is not downtrained
 * (a note says it, topo_speed_note). */
static long long ref_speed(const struct topo_model *m, const struct topo_fabric *f)
{
	const struct topo_gpu *g = gpu_of(m, f->gpu);
	long long ref = f->link_speed_mbps;
	for (size_t k = 0; k < m->nfabric; k++) {
		const struct topo_gpu *o = gpu_of(m, m->fabric[k].gpu);
		if (o && g && o->name && g->name && strcmp(o->name, g->name) == 0 && m->fabric[k].link_speed_mbps > ref)
			ref = m->fabric[k].link_speed_mbps;
	}
	return ref;
}

/* A note when the fastest link of a model's GPUs is below the model's
 * trained speed (kb/nvlink_models): every link slow alike. */
static void speed_note(struct section *s, const struct topo_model *m)
{
	for (size_t k = 0; k < m->nfabric; k++) {
		const struct topo_gpu *g = gpu_of(m, m->fabric[k].gpu);
		const struct nvlink_model *nm = kb_nvlink_model(g ? g->name : NULL);
		long long ref = ref_speed(m, &m->fabric[k]);
		if (!nm || nm->speed_mbps <= 0 || ref <= 0 || ref * 100 >= nm->speed_mbps * 99)
			continue;
		section_note(s, "the fastest NVLink of the %s GPUs runs at %lld MB/s, a trained link of that model at %lld MB/s: "
			     "compare with `nvidia-smi nvlink -s`", g->name, ref, nm->speed_mbps);
		return; /* once */
	}
}

/* State, status and health of each GPU's registration. */
static void fabric_state_findings(struct result *r, const struct topo_model *m)
{
	struct finding *nr = NULL, *fl = NULL, *dg = NULL;
	int nnr = 0, nfl = 0, ndg = 0;
	struct finding *ci = finding_get(r, FID_CUDA_INIT_FAILED);
	bool cuda802 = ci && strstr(ci->title, "SYSTEM_NOT_READY");
	bool sure = m->switch_seen || cuda802;
	for (size_t k = 0; k < m->nfabric; k++) {
		const struct topo_fabric *f = &m->fabric[k];
		const struct topo_gpu *g = gpu_of(m, f->gpu);
		const char *bdf = g && g->bdf ? g->bdf : "?";
		if (f->state == 1 || f->state == 2) {
			/* a state alone, with no switch in sight and CUDA working, is
			 * a warning: a GPU of an HGX board passed into a VM alone */
			if (!nnr++)
				nr = finding_add(r, FID_GPU_FABRIC_NOT_READY, sure ? SEV_ERROR : SEV_WARNING,
						 "GPU %d (%s): NVLink fabric registration %s", f->gpu, bdf, topo_fabric_state_name(f->state));
			finding_evidence(nr, NULL, 0, "nvmlDeviceGetGpuFabricInfoV GPU %d (%s): state %s", f->gpu, bdf,
					 topo_fabric_state_name(f->state));
		} else if (f->state == 3 && f->status && strcmp(f->status, "NVML_SUCCESS") != 0) {
			if (!nfl++)
				fl = finding_add(r, FID_GPU_FABRIC_FAILED, SEV_ERROR, "GPU %d (%s): fabric registration failed (%s)",
						 f->gpu, bdf, f->status);
			finding_evidence(fl, NULL, 0, "nvmlDeviceGetGpuFabricInfoV GPU %d (%s): state completed, status %s", f->gpu,
					 bdf, f->status);
		}
		if (f->health_mask > 0) {
			unsigned long long h = (unsigned long long)f->health_mask;
			char why[160] = "";
			size_t len = 0;
			if ((h & 3) == 1)
				str_appendf(why, sizeof(why), &len, "%sbandwidth degraded", len ? ", " : "");
			if ((h >> 2 & 3) == 1)
				str_appendf(why, sizeof(why), &len, "%sroute recovery in progress", len ? ", " : "");
			if ((h >> 4 & 3) == 1)
				str_appendf(why, sizeof(why), &len, "%sroute unhealthy", len ? ", " : "");
			if ((h >> 6 & 3) == 1)
				str_appendf(why, sizeof(why), &len, "%saccess timeout recovery in progress", len ? ", " : "");
			if ((h >> 8 & 0xf) >= 2)
				str_appendf(why, sizeof(why), &len, "%sincorrect configuration (code %llu)", len ? ", " : "", h >> 8 & 0xf);
			if (why[0]) {
				if (!ndg++)
					dg = finding_add(r, FID_GPU_FABRIC_DEGRADED, SEV_WARNING, "GPU %d (%s): fabric health: %s", f->gpu, bdf, why);
				finding_evidence(dg, NULL, 0, "GPU %d: health mask 0x%llx (%s)", f->gpu, h, why);
			}
		}
	}
	if (nnr > 1)
		free(nr->title), nr->title = xasprintf("%d GPUs are not registered with the NVLink fabric", nnr);
	if (nfl > 1)
		free(fl->title), fl->title = xasprintf("%d GPUs failed their NVLink fabric registration", nfl);
	if (nr && !sure)
		finding_evidence(nr, NULL, 0, "no NVSwitch on the PCI bus and no active NVLink to a switch: "
				 "a GPU of an NVSwitch board seen without its switches (a VM)?");
	if (nr && cuda802) {
		finding_evidence(nr, NULL, 0, "cuInit returned CUDA_ERROR_SYSTEM_NOT_READY (802): CUDA waits for the fabric registration");
		/* the failed cuInit is this fabric's doing, not a driver fault:
		 * rank it with the fabric (check's causes, the verdict) */
		ci->cause = kb_finding_def(FID_GPU_FABRIC_NOT_READY)->cause;
		finding_evidence(ci, NULL, 0, "NVML: GPUs not registered with the NVLink fabric (GPU_FABRIC_NOT_READY): error 802 is the fabric's");
	}
	struct finding *both[2] = { nr, fl };
	for (int i = 0; i < 2; i++) {
		if (!both[i])
			continue;
		finding_fix(both[i], "shell", "is it running, and of the driver's version", "nccl-doctor sys");
		finding_fix(both[i], "shell", "after stopping every GPU job: reset, then let the fabric manager register the GPUs again",
			    "sudo systemctl stop nvidia-fabricmanager; sudo nvidia-smi -r && sudo systemctl start nvidia-fabricmanager");
		finding_fix(both[i], "env", "the immediate work-around for NVLS (multicast) failures", "export NCCL_NVLS_ENABLE=0");
	}
}

/* Link counts, speeds and error counters. */
static void link_findings(struct result *r, struct topo_model *m)
{
	struct finding *miss = NULL, *slow = NULL, *grow = NULL, *seen = NULL;
	int nslow = 0, ngrow = 0, nseen = 0;
	for (size_t k = 0; k < m->nfabric; k++) {
		struct topo_fabric *f = &m->fabric[k];
		const struct topo_gpu *g = gpu_of(m, f->gpu);
		if (f->links_expected > 0 && f->links_present >= 0 && f->links_present < f->links_expected &&
		    (m->switch_seen || f->links_active > 0)) {
			if (!miss)
				miss = finding_add(r, FID_NVLINK_MISSING, SEV_WARNING, "GPU %d: %d NVLinks of the %d its model has",
						   f->gpu, f->links_present, f->links_expected);
			finding_evidence(miss, NULL, 0, "GPU %d (%s): NVML lists %d links; %s", f->gpu, g && g->name ? g->name : "?",
					 f->links_present, f->expected_source);
		}
		long long ref = ref_speed(m, f);
		for (size_t i = 0; i < m->nlinks; i++) {
			struct topo_nvlink *l = &m->links[i];
			if (l->gpu != f->gpu)
				continue;
			if (l->active && l->speed_mbps > 0 && ref > 0 && l->speed_mbps * 100 < ref * 99) {
				l->downtrained = true;
				if (!nslow++)
					slow = finding_add(r, FID_NVLINK_DOWNTRAINED, SEV_WARNING, "GPU %d NVLink %d at %lld MB/s of %lld",
							   f->gpu, l->link, l->speed_mbps, ref);
				if (nslow <= 16)
					finding_evidence(slow, NULL, 0, "GPU %d link %d: %lld MB/s (its model's other links reach %lld MB/s)", f->gpu,
							 l->link, l->speed_mbps, ref);
			}
			long long grew = 0, total = 0;
			for (int e = 0; e < NVL_ERR_N; e++) {
				grew += l->grew[e] > 0 ? l->grew[e] : 0;
				total += l->err[e] > 0 ? l->err[e] : 0;
			}
			if (grew > 0) {
				if (!ngrow++)
					grow = finding_add(r, FID_NVLINK_ERRORS_GROWING, SEV_WARNING, "GPU %d NVLink %d: error counters rose by %lld in 1 s",
							   f->gpu, l->link, grew);
				if (ngrow <= 16)
					finding_evidence(grow, NULL, 0, "GPU %d link %d: replay %lld (+%lld), recovery %lld (+%lld), CRC flit %lld (+%lld), CRC data %lld (+%lld)",
							 f->gpu, l->link, l->err[0], l->grew[0] > 0 ? l->grew[0] : 0, l->err[1],
							 l->grew[1] > 0 ? l->grew[1] : 0, l->err[2], l->grew[2] > 0 ? l->grew[2] : 0, l->err[3],
							 l->grew[3] > 0 ? l->grew[3] : 0);
			} else if (total > 0) {
				if (!nseen++)
					seen = finding_add(r, FID_NVLINK_ERRORS_SEEN, SEV_INFO, "GPU %d NVLink %d: %lld errors counted since the driver loaded",
							   f->gpu, l->link, total);
				if (nseen <= 16)
					finding_evidence(seen, NULL, 0, "GPU %d link %d: replay %lld, recovery %lld, CRC flit %lld, CRC data %lld",
							 f->gpu, l->link, l->err[0], l->err[1], l->err[2], l->err[3]);
			}
		}
	}
	if (nslow > 1)
		free(slow->title), slow->title = xasprintf("%d NVLinks run below their speed", nslow);
	if (ngrow > 1)
		free(grow->title), grow->title = xasprintf("%d NVLinks' error counters are rising", ngrow);
	if (nseen > 1)
		free(seen->title), seen->title = xasprintf("%d NVLinks counted errors since the driver loaded", nseen);
	if (miss)
		finding_fix(miss, "shell", "which links NVML lists, and their state", "nvidia-smi nvlink -s");
	if (slow)
		finding_fix(slow, "shell", "per-link state and speed, to compare", "nvidia-smi nvlink -s");
	if (grow)
		finding_fix(grow, "shell", "the counters per link", "nvidia-smi nvlink -e");
}

static void multicast_findings(struct result *r, const struct topo_model *m)
{
	struct finding *x = NULL;
	for (size_t k = 0; k < m->nfabric; k++) {
		const struct topo_fabric *f = &m->fabric[k];
		if (f->multicast != 0 || f->state != 3 || (f->status && strcmp(f->status, "NVML_SUCCESS") != 0))
			continue;
		if (!x) {
			x = finding_add(r, FID_NVLS_UNSUPPORTED, SEV_INFO, "GPU %d: no NVSwitch multicast (NVLS) although its fabric is up", f->gpu);
			finding_fix(x, "env", "states NCCL's choice explicitly", "export NCCL_NVLS_ENABLE=0");
		}
		finding_evidence(x, NULL, 0, "GPU %d: CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0, fabric state completed", f->gpu);
	}
}

void topo_fabric_finish(struct result *r, struct topo_model *m, int nvswitches)
{
	m->have_fabric = m->nfabric > 0;
	m->nvswitches = nvswitches;
	bool to_switch = false, state = false;
	for (size_t i = 0; i < m->nlinks; i++)
		to_switch |= m->links[i].active && m->links[i].remote_type && strcmp(m->links[i].remote_type, "switch") == 0;
	for (size_t k = 0; k < m->nfabric; k++)
		state |= m->fabric[k].state >= 1;
	m->switch_seen = nvswitches > 0 || to_switch;
	m->nvswitch_fabric = m->switch_seen || state;
	if (!m->have_fabric)
		return;
	struct section *s = result_topo_section(r, SECTION_TOPO_FABRIC, "fabric", "NVSwitch fabric");
	if (!m->nvswitch_fabric) {
		struct strbuf why = STRBUF_INIT;
		strbuf_init(&why, 256);
		size_t ns = 0;
		for (size_t k = 0; k < m->nfabric; k++)
			ns += m->fabric[k].state == 0;
		strbuf_addf(&why, "%s", ns == m->nfabric ? "NVML reports fabric state 'not supported' for every GPU"
				       : ns ? "NVML reports fabric state 'not supported' for every GPU that answered"
					    : "no GPU reports a fabric state");
		strbuf_addf(&why, ", %s", nvswitches == 0 ? "no NVSwitch on the PCI bus" : "the PCI bus could not be read");
		strbuf_addf(&why, ", no NVLink to a switch");
		section_note(s, "no NVSwitch fabric: %s", strbuf_str(&why));
		strbuf_release(&why);
		return;
	}
	fabric_state_findings(r, m);
	link_findings(r, m);
	speed_note(s, m);
	multicast_findings(r, m);
}
