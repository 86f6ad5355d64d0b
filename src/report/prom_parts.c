/* The Prometheus families of the commands' own JSON members (docs/json.md):
 * host facts and versions (sys, check), GPUs, PCIe links, NVLinks and the
 * fabric (sys, topo, check), pairs (p2p, check's p2p_test), collectives
 * (bench) and nodes (merge). Each part does nothing where its member is
 * absent, so one walk serves every command. Units become base units here:
 * GB/s (1e9 bytes, as nccl-tests and p2p count them) to bytes per second,
 * microseconds and GT/s to seconds and transfers per second. */
#include "report/prom_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const json_t *member(const json_t *o, const char *a, const char *b)
{
	const json_t *x = json_object_get(o, a);
	return b ? json_object_get(x, b) : x;
}

/* A JSON number as a double, NAN when it is null or absent (no sample). */
static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double boolnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_boolean(v) ? (double)json_is_true(v) : NAN;
}

/* ---- host: versions, libraries, stages ---- */

static const char *nccl_version(const json_t *doc)
{
	const json_t *ranks = member(member(doc, "facts", "bench"), "ranks", NULL);
	const char *v = json_get_str(json_array_get(ranks, 0), "nccl");
	if (v[0])
		return v;
	/* the library the dynamic linker gives a program that asks for none */
	size_t i;
	json_t *l;
	json_array_foreach(member(member(doc, "facts", "nccl_libraries"), "libraries", NULL), i, l)
		if (strncmp(json_get_str(l, "loaded_by"), "ld.so", 5) == 0)
			return json_get_str(l, "version");
	return "";
}

void prom_host_parts(struct prom *p, const json_t *doc)
{
	const json_t *facts = json_object_get(doc, "facts");
	const char *driver = json_get_str(member(facts, "driver", NULL), "version");
	if (!driver[0])
		driver = json_get_str(member(facts, "source", NULL), "driver_version");
	const char *cuda = json_get_str(member(facts, "source", NULL), "cuda_driver_version");
	const char *nccl = nccl_version(doc);
	if (driver[0] || cuda[0] || nccl[0]) {
		struct prom_labels l = { 0 };
		prom_label(&l, "driver", driver);
		prom_label(&l, "cuda", cuda);
		prom_label(&l, "nccl", nccl);
		prom_sample(p, PF_VERSIONS_INFO, &l, 1);
	}
	size_t i;
	json_t *x;
	json_array_foreach(member(member(facts, "nccl_libraries", NULL), "libraries", NULL), i, x) {
		struct prom_labels l = { 0 };
		prom_label(&l, "path", json_get_str(x, "path"));
		prom_label(&l, "version", json_get_str(x, "version"));
		prom_label(&l, "loaded_by", json_get_str(x, "loaded_by"));
		prom_sample(p, PF_NCCL_LIBRARY_INFO, &l, 1);
	}
	json_array_foreach(member(member(facts, "check", NULL), "stages", NULL), i, x) {
		struct prom_labels l = { 0 };
		prom_label(&l, "stage", json_get_str(x, "stage"));
		prom_sample(p, PF_STAGE_DURATION, &l, num(x, "seconds"));
	}
	/* topo's fabric member, else sys's facts */
	double nvs = boolnum(member(doc, "fabric", NULL), "nvswitch_fabric");
	prom_sample(p, PF_NVSWITCH_FABRIC, NULL, isfinite(nvs) ? nvs : boolnum(member(facts, "fabric", NULL), "nvswitch_fabric"));
}

/* ---- GPUs, PCIe links, NVLinks, fabric ---- */

/* One sample of family f for GPU g (NULL: known by its index only), with
 * one more label when lname is given. */
static void gpu_sample_of(enum prom_fam f, struct prom *p, const struct prom_gpu *g, long long index, const char *lname,
			  const char *lvalue, double v)
{
	char ix[24];
	struct prom_labels l = { 0 };
	prom_gpu_labels_of(&l, g, index, ix, sizeof(ix));
	if (lname)
		prom_label(&l, lname, lvalue);
	prom_sample(p, f, &l, v);
}

/* The same for the GPU of NVML index gpu. */
static void gpu_sample(struct prom *p, enum prom_fam f, long long gpu, const char *lname, const char *lvalue, double v)
{
	gpu_sample_of(f, p, prom_gpu_by_index(p, gpu), gpu, lname, lvalue, v);
}

static void nvlink_parts(struct prom *p, const json_t *doc)
{
	static const char *const counters[] = { "replay", "recovery", "crc_flit", "crc_data" };
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(doc, "nvlinks"), i, x) {
		char link[24];
		long long gpu = json_get_int(x, "gpu", -1);
		snprintf(link, sizeof(link), "%lld", json_get_int(x, "link", -1));
		gpu_sample(p, PF_NVLINK_ACTIVE, gpu, "link", link, boolnum(x, "active"));
		gpu_sample(p, PF_NVLINK_DOWNTRAINED, gpu, "link", link, boolnum(x, "downtrained"));
		for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
			char ix[24];
			struct prom_labels l = { 0 };
			prom_gpu_labels(p, &l, gpu, ix, sizeof(ix));
			prom_label(&l, "link", link);
			prom_label(&l, "counter", counters[c]);
			prom_sample(p, PF_NVLINK_ERRORS, &l, num(json_object_get(x, "errors"), counters[c]));
		}
	}
	json_array_foreach(member(doc, "fabric", "gpus"), i, x) {
		long long gpu = json_get_int(x, "gpu", -1);
		gpu_sample(p, PF_FABRIC_STATE, gpu, NULL, NULL, num(x, "state_code"));
		gpu_sample(p, PF_FABRIC_LINKS_ACTIVE, gpu, NULL, NULL, num(x, "nvlinks_active"));
		gpu_sample(p, PF_FABRIC_LINKS_EXPECTED, gpu, NULL, NULL, num(x, "nvlinks_expected"));
	}
}

/* kernel's events (kernel, check): the counts of each kind per GPU, and of
 * the events no GPU owns (gpu="") */
static void kernel_parts(struct prom *p, const json_t *doc)
{
	const json_t *ev = member(member(doc, "facts", "kernel"), "events", NULL);
	size_t i, j;
	json_t *x, *y;
	json_array_foreach(ev, i, x) {
		const json_t *g = json_object_get(x, "gpu");
		const char *kind = json_get_str(x, "kind");
		double n = 0;
		bool first = true;
		json_array_foreach(ev, j, y) {
			bool same = json_equal(json_object_get(y, "gpu"), (json_t *)g) && strcmp(json_get_str(y, "kind"), kind) == 0;
			first &= !(same && j < i);
			n += same ? num(y, "count") : 0;
		}
		if (!first)
			continue;
		char ix[24];
		struct prom_labels l = { 0 };
		if (json_is_integer(g)) {
			prom_gpu_labels(p, &l, json_integer_value(g), ix, sizeof(ix));
		} else {
			prom_label(&l, "gpu", "");
			prom_label(&l, "UUID", "");
			prom_label(&l, "pci_bus_id", "");
		}
		prom_label(&l, "kind", kind);
		prom_sample(p, PF_KERNEL_EVENTS, &l, n);
	}
}

void prom_gpu_parts(struct prom *p, const json_t *doc)
{
	if (p->ngpus)
		prom_sample(p, PF_GPUS, NULL, (double)p->ngpus);
	for (size_t i = 0; i < p->ngpus; i++)
		gpu_sample_of(PF_GPU_INFO, p, &p->gpus[i], 0, "modelName", p->gpus[i].model, 1);
	size_t i;
	json_t *g;
	/* NVML's view (topo, check): generations, lost GPUs */
	json_array_foreach(json_object_get(doc, "gpus"), i, g) {
		const struct prom_gpu *k = prom_gpu_of_row(p, g, "index");
		gpu_sample_of(PF_GPU_LOST, p, k, 0, NULL, NULL, boolnum(g, "lost"));
		double cg = num(g, "pcie_cur_gen"), mg = num(g, "pcie_max_gen");
		/* 0: unknown (model/topo.h) */
		gpu_sample_of(PF_PCIE_GEN, p, k, 0, NULL, NULL, cg > 0 ? cg : NAN);
		gpu_sample_of(PF_PCIE_MAX_GEN, p, k, 0, NULL, NULL, mg > 0 ? mg : NAN);
		if (!json_object_get(json_object_get(doc, "facts"), "gpus")) { /* sys has the widths too */
			double cw = num(g, "pcie_cur_width"), mw = num(g, "pcie_max_width");
			gpu_sample_of(PF_PCIE_WIDTH, p, k, 0, NULL, NULL, cw > 0 ? cw : NAN);
			gpu_sample_of(PF_PCIE_MAX_WIDTH, p, k, 0, NULL, NULL, mw > 0 ? mw : NAN);
		}
	}
	/* the PCI tree's view (sys, check): speeds and widths, AER */
	json_array_foreach(member(member(doc, "facts", "gpus"), "gpus", NULL), i, g) {
		const struct prom_gpu *k = prom_gpu_of_row(p, g, "index");
		gpu_sample_of(PF_PCIE_WIDTH, p, k, 0, NULL, NULL, num(g, "link_width"));
		gpu_sample_of(PF_PCIE_MAX_WIDTH, p, k, 0, NULL, NULL, num(g, "max_link_width"));
		gpu_sample_of(PF_PCIE_SPEED, p, k, 0, NULL, NULL, num(g, "link_speed_gts") * 1e9);
		gpu_sample_of(PF_PCIE_MAX_SPEED, p, k, 0, NULL, NULL, num(g, "max_link_speed_gts") * 1e9);
		static const char *const aer[] = { "correctable", "nonfatal", "fatal" };
		for (size_t a = 0; a < 3; a++) {
			char key[32];
			snprintf(key, sizeof(key), "aer_%s", aer[a]);
			gpu_sample_of(PF_PCIE_AER, p, k, 0, "kind", aer[a], num(g, key));
		}
	}
	nvlink_parts(p, doc);
	kernel_parts(p, doc);
}

/* ---- pairs ---- */

/* p2p's status words (docs/p2p.md) in nccl_doctor_p2p_pair_state's order */
static const char *const pair_words[] = { "OK", "SLOW", "NO_P2P", "ERROR", "CORRUPT", "HANG", "SKIPPED", "VOID" };

static double pair_code(const char *status)
{
	for (size_t i = 0; i < sizeof(pair_words) / sizeof(pair_words[0]); i++)
		if (strncmp(status, pair_words[i], strlen(pair_words[i])) == 0) /* CORRUPT(offset) */
			return (double)i;
	return NAN;
}

static void pair_labels(struct prom *p, struct prom_labels *l, long long a, long long b, char *ix, char *peer)
{
	prom_gpu_labels(p, l, a, ix, 24);
	snprintf(peer, 24, "%lld", b);
	prom_label(l, "peer_gpu", peer);
}

/* bandwidth members of a pair: the engine, P2P on or off, the direction */
static const struct {
	const char *key, *engine, *p2p, *direction;
} bw_members[] = {
	{ "ce_gbs", "copy", "on", "unidirectional" },
	{ "ce_nop2p_gbs", "copy", "off", "unidirectional" },
	{ "sm_gbs", "sm", "on", "unidirectional" },
	{ "bidir_gbs", "copy", "on", "bidirectional" },
	{ "bidir_nop2p_gbs", "copy", "off", "bidirectional" },
	{ "sm_bidir_gbs", "sm", "on", "bidirectional" },
};

void prom_p2p_parts(struct prom *p, const json_t *doc)
{
	/* p2p's own members, or check's copy of them */
	const json_t *pt = json_object_get(doc, "p2p_test");
	const json_t *pairs = json_object_get(pt ? pt : doc, "pairs");
	const json_t *counts = json_object_get(pt ? pt : doc, "status_counts");
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)counts, k, v) {
		struct prom_labels l = { 0 };
		prom_label(&l, "status", k);
		prom_sample(p, PF_P2P_PAIRS, &l, json_is_integer(v) ? (double)json_integer_value(v) : NAN);
	}
	size_t i;
	json_t *x;
	json_array_foreach(pairs, i, x) {
		long long a = json_get_int(x, "src", -1), b = json_get_int(x, "dst", -1);
		char ix[24], peer[24];
		struct prom_labels l = { 0 };
		pair_labels(p, &l, a, b, ix, peer);
		prom_label(&l, "link", json_get_str(x, "link"));
		prom_sample(p, PF_P2P_STATE, &l, pair_code(json_get_str(x, "status")));
		l.n--; /* the link only on the state */
		prom_sample(p, PF_P2P_EXPECTED_BW, &l, num(x, "expected_gbs") * 1e9);
		for (size_t m = 0; m < sizeof(bw_members) / sizeof(bw_members[0]); m++) {
			struct prom_labels lb = l;
			prom_label(&lb, "engine", bw_members[m].engine);
			prom_label(&lb, "p2p", bw_members[m].p2p);
			prom_label(&lb, "direction", bw_members[m].direction);
			prom_sample(p, PF_P2P_BW, &lb, num(x, bw_members[m].key) * 1e9);
		}
		static const char *const lat[][2] = { { "latency_us", "on" }, { "latency_nop2p_us", "off" } };
		for (size_t m = 0; m < 2; m++) {
			struct prom_labels lb = l;
			prom_label(&lb, "p2p", lat[m][1]);
			prom_sample(p, PF_P2P_LATENCY, &lb, num(x, lat[m][0]) * 1e-6);
		}
	}
	/* NVML's P2P capabilities (topo, check) */
	static const char *const caps[] = { "read", "write", "nvlink", "atomics" };
	json_array_foreach(json_object_get(doc, "p2p"), i, x) {
		if (!json_is_object(x) || !json_object_get(x, "a"))
			continue;
		for (size_t c = 0; c < 4; c++) {
			const char *w = json_get_str(x, caps[c]);
			if (!w[0])
				continue;
			char ix[24], peer[24];
			struct prom_labels l = { 0 };
			pair_labels(p, &l, json_get_int(x, "a", -1), json_get_int(x, "b", -1), ix, peer);
			prom_label(&l, "capability", caps[c]);
			prom_sample(p, PF_NVML_P2P, &l, strcmp(w, "OK") == 0);
		}
	}
}

/* ---- collectives ---- */

void prom_bench_parts(struct prom *p, const json_t *doc)
{
	const json_t *info = member(doc, "facts", "bench"), *b = json_object_get(doc, "bench");
	if (!json_is_object(b))
		return;
	const char *op = json_get_str(info, "op");
	struct prom_labels lo = { 0 };
	prom_label(&lo, "op", op);
	prom_sample(p, PF_BENCH_AVG_BUSBW, &lo, num(b, "avg_busbw") * 1e9);
	prom_sample(p, PF_BENCH_RANKS, &lo, num(info, "nranks"));
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(b, "rows"), i, row) {
		static const char *const places[] = { "out_of_place", "in_place" };
		char size[32], root[24];
		snprintf(size, sizeof(size), "%lld", json_get_int(row, "size", -1));
		/* -r -1 runs every root: one row per root of a size */
		snprintf(root, sizeof(root), "%lld", json_get_int(row, "root", -1));
		for (size_t k = 0; k < 2; k++) {
			const json_t *m = json_object_get(row, places[k]);
			if (!json_is_object(m))
				continue;
			struct prom_labels l = lo;
			prom_label(&l, "size_bytes", size);
			prom_label(&l, "type", json_get_str(row, "type"));
			prom_label(&l, "redop", json_get_str(row, "redop"));
			prom_label(&l, "root", root);
			prom_label(&l, "placement", places[k]);
			prom_sample(p, PF_BENCH_BUSBW, &l, num(m, "busbw") * 1e9);
			prom_sample(p, PF_BENCH_ALGBW, &l, num(m, "algbw") * 1e9);
			prom_sample(p, PF_BENCH_TIME, &l, num(m, "time_us") * 1e-6);
			prom_sample(p, PF_BENCH_WRONG, &l, num(m, "wrong"));
		}
	}
}

/* ---- nodes of a merge ---- */

void prom_fleet_parts(struct prom *p, const json_t *doc)
{
	const json_t *fleet = member(doc, "facts", "fleet");
	static const char *const states[] = { "healthy", "degraded", "broken", "missing", "unexpected" };
	for (size_t i = 0; json_is_object(fleet) && i < sizeof(states) / sizeof(states[0]); i++) {
		struct prom_labels l = { 0 };
		prom_label(&l, "state", states[i]);
		prom_sample(p, PF_FLEET_NODES, &l, num(fleet, states[i]));
	}
	size_t i;
	json_t *n;
	json_array_foreach(member(member(doc, "facts", "nodes"), "nodes", NULL), i, n) {
		struct prom_labels l = { .host = json_get_str(n, "node") };
		int code = prom_verdict_code(json_get_str(n, "state"));
		prom_sample(p, PF_NODE_VERDICT, &l, code >= 0 ? code : NAN);
		prom_sample(p, PF_NODE_EXIT_CODE, &l, num(n, "exit_code"));
		prom_sample(p, PF_NODE_BUSBW, &l, num(n, "busbw_gbs") * 1e9);
		prom_sample(p, PF_NODE_P2P_BW, &l, num(n, "p2p_ce_gbs") * 1e9);
		struct prom_labels v = { .host = l.host };
		prom_label(&v, "driver", json_get_str(n, "driver"));
		prom_label(&v, "cuda", json_get_str(n, "cuda"));
		prom_label(&v, "nccl", json_get_str(n, "nccl"));
		prom_sample(p, PF_VERSIONS_INFO, &v, 1);
	}
}
