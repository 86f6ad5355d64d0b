/* Scenario parsing for the fake GPU stack (see README.md). */
#include "fake.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct fg_scenario sc;
static bool parsed;

static enum fg_link parse_link(const char *s, int *nvl)
{
	*nvl = 0;
	if (!s)
		return FG_SYS;
	if (strncmp(s, "NV", 2) == 0 && s[2] >= '0' && s[2] <= '9') {
		*nvl = atoi(s + 2);
		return FG_NVL;
	}
	if (strcmp(s, "X") == 0) return FG_X;
	if (strcmp(s, "PIX") == 0) return FG_PIX;
	if (strcmp(s, "PXB") == 0) return FG_PXB;
	if (strcmp(s, "PHB") == 0) return FG_PHB;
	if (strcmp(s, "NODE") == 0) return FG_NODE;
	return FG_SYS;
}

static int p2p_code(const char *s)
{
	if (!s || strcmp(s, "OK") == 0) return 0;
	if (strcmp(s, "CHIPSET_NOT_SUPPORTED") == 0) return 1;
	if (strcmp(s, "GPU_NOT_SUPPORTED") == 0) return 2;
	if (strcmp(s, "IOH_TOPOLOGY_NOT_SUPPORTED") == 0) return 3;
	if (strcmp(s, "DISABLED_BY_REGKEY") == 0) return 4;
	if (strcmp(s, "NOT_SUPPORTED") == 0) return 5;
	return 6;
}

static void pairs(json_t *arr, bool m[FG_MAX_GPUS][FG_MAX_GPUS])
{
	size_t i;
	json_t *p;
	json_array_foreach(arr, i, p) {
		int a = (int)json_integer_value(json_array_get(p, 0)), b = (int)json_integer_value(json_array_get(p, 1));
		if (a >= 0 && b >= 0 && a < FG_MAX_GPUS && b < FG_MAX_GPUS)
			m[a][b] = m[b][a] = true;
	}
}

static const char *str(json_t *o, const char *k, const char *def)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : def;
}

static long long num(json_t *o, const char *k, long long def)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? json_integer_value(v) : def;
}

static bool flag(json_t *o, const char *k, bool def)
{
	json_t *v = json_object_get(o, k);
	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* CUDA_VISIBLE_DEVICES as the driver applies it: a comma-separated list of
 * CUDA ordinals or GPU UUIDs (a unique prefix is enough); the list stops at
 * the first entry that names no GPU; the order of the list is the new
 * ordinal order. Unset: every GPU in cuda_order. */
static void visible_devices(struct fg_scenario *s)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	if (!v)
		return;
	int order[FG_MAX_GPUS], n = 0;
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", v);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t && n < FG_MAX_GPUS; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		int g = -1;
		if (strncmp(t, "GPU-", 4) == 0) {
			for (int k = 0; k < s->ngpus; k++)
				if (strncmp(s->gpus[k].uuid, t, strlen(t)) == 0)
					g = g < 0 ? k : -2; /* ambiguous prefix: no GPU */
		} else {
			char *end;
			long o = strtol(t, &end, 10);
			if (end != t && *end == 0 && o >= 0 && o < s->ngpus)
				g = s->cuda_order[o];
		}
		if (g < 0)
			break;
		order[n++] = g;
	}
	for (int k = 0; k < n; k++)
		s->cuda_order[k] = order[k];
	s->ncuda = n;
}

static int fabric_state_code(const char *s, int def)
{
	if (!s) return def;
	if (strcmp(s, "not_supported") == 0) return 0;
	if (strcmp(s, "not_started") == 0) return 1;
	if (strcmp(s, "in_progress") == 0) return 2;
	return 3;
}

/* NVLink fabric facts of one GPU: "fabric": {"state", "status", "clique",
 * "health_mask"}, "nvlink_speed_mbps" (every link), "nvlink_speeds":
 * {"LINK": MBPS}, "nvlink_errors": {"LINK": {"replay": N, "replay_rate": R,
 * ...}}, "multicast" */
static void parse_fabric(json_t *g, struct fg_gpu *d, int idx)
{
	static const char *const ctr[4] = { "replay", "recovery", "crc_flit", "crc_data" };
	json_t *f = json_object_get(g, "fabric");
	d->fabric_state = fabric_state_code(str(f, "state", NULL), sc.nvswitch ? 3 : 0);
	d->fabric_status = (int)num(f, "status", 0);
	d->clique = (unsigned)num(f, "clique", sc.nvswitch ? 1 : 0);
	d->health_mask = (unsigned)num(f, "health_mask", 0);
	int speed = (int)num(g, "nvlink_speed_mbps", 26562);
	for (int l = 0; l < 32; l++)
		d->link_speed[l] = speed;
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(g, "nvlink_speeds"), k, v) {
		int l = atoi(k);
		if (l >= 0 && l < 32)
			d->link_speed[l] = (int)json_integer_value(v);
	}
	json_object_foreach(json_object_get(g, "nvlink_errors"), k, v) {
		int l = atoi(k);
		if (l < 0 || l >= 32)
			continue;
		for (int c = 0; c < 4; c++) {
			char rate[32];
			snprintf(rate, sizeof(rate), "%s_rate", ctr[c]);
			d->link_err[l][c] = num(v, ctr[c], 0);
			d->link_err_rate[l][c] = num(v, rate, 0);
		}
	}
	d->multicast = flag(g, "multicast", sc.nvswitch);
	d->nvlinks_override = (int)num(g, "nvlinks", -1);
	(void)idx;
}

static void parse(void)
{
	memset(&sc, 0, sizeof(sc));
	sc.lost_gpu = -1;
	sc.cuda_lost_gpu = -1;
	const char *path = getenv("NCCL_DOCTOR_FAKEGPU_SCENARIO");
	if (!path || !*path) {
		snprintf(sc.error, sizeof(sc.error), "NCCL_DOCTOR_FAKEGPU_SCENARIO is not set");
		return;
	}
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root || !json_is_object(root)) {
		snprintf(sc.error, sizeof(sc.error), "cannot read scenario '%s': %s", path, err.text);
		json_decref(root);
		return;
	}
	snprintf(sc.driver_version, sizeof(sc.driver_version), "%s", str(root, "driver_version", "570.86.15"));
	sc.cuda_driver_version = (int)num(root, "cuda_driver_version", 12080);
	sc.nccl_version = (int)num(root, "nccl_version", 22803);
	sc.nvswitch = flag(root, "nvswitch", false);
	sc.fabric_info_max_version = (int)num(root, "fabric_info_max_version", 3);
	json_t *gpus = json_object_get(root, "gpus");
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g) {
		if (i >= FG_MAX_GPUS)
			break;
		struct fg_gpu *d = &sc.gpus[i];
		snprintf(d->name, sizeof(d->name), "%s", str(g, "name", "NVIDIA H100 80GB HBM3"));
		snprintf(d->bdf, sizeof(d->bdf), "%s", str(g, "bdf", "0000:00:00.0"));
		char defuuid[96];
		snprintf(defuuid, sizeof(defuuid), "GPU-fa4e0000-0000-4000-8000-%012zx", i);
		snprintf(d->uuid, sizeof(d->uuid), "%s", str(g, "uuid", defuuid));
		d->memory = (unsigned long long)num(g, "memory_mib", 81559) << 20;
		d->bar1 = (unsigned long long)num(g, "bar1_mib", 131072) << 20;
		d->numa_node = (int)num(g, "numa_node", 0);
		snprintf(d->cpus, sizeof(d->cpus), "%s", str(g, "cpus", "0-15"));
		d->cur_gen = (int)num(g, "pcie_cur_gen", 5);
		d->max_gen = (int)num(g, "pcie_max_gen", 5);
		d->cur_width = (int)num(g, "pcie_cur_width", 16);
		d->max_width = (int)num(g, "pcie_max_width", 16);
		d->persistence = flag(g, "persistence", true);
		d->mig = flag(g, "mig", false);
		d->ecc = flag(g, "ecc", true);
		d->remapped_pending = flag(g, "remapped_pending", false);
		size_t k;
		json_t *l;
		json_array_foreach(json_object_get(g, "nvlinks_down"), k, l)
			if (json_integer_value(l) >= 0 && json_integer_value(l) < 32)
				d->link_down[json_integer_value(l)] = true;
		parse_fabric(g, d, (int)i);
		sc.ngpus = (int)i + 1;
	}
	json_t *m = json_object_get(root, "matrix"), *pm = json_object_get(root, "pci_matrix");
	for (int a = 0; a < sc.ngpus; a++)
		for (int b = 0; b < sc.ngpus; b++) {
			int nvl = 0, dummy;
			enum fg_link l = a == b ? FG_X : parse_link(json_string_value(json_array_get(json_array_get(m, a), b)), &nvl);
			sc.link[a][b] = l;
			sc.nvl[a][b] = nvl;
			const char *ps = json_string_value(json_array_get(json_array_get(pm, a), b));
			if (a == b)
				sc.pci[a][b] = FG_X;
			else if (ps)
				sc.pci[a][b] = parse_link(ps, &dummy);
			else if (l == FG_NVL)
				sc.pci[a][b] = sc.gpus[a].numa_node == sc.gpus[b].numa_node ? FG_NODE : FG_SYS;
			else
				sc.pci[a][b] = l;
		}
	for (int a = 0; a < sc.ngpus; a++) {
		int links = 0;
		for (int b = 0; b < sc.ngpus; b++) {
			if (!sc.nvswitch)
				links += sc.nvl[a][b];
			else if (sc.nvl[a][b] > links)
				links = sc.nvl[a][b];
		}
		if (sc.gpus[a].nvlinks_override >= 0)
			links = sc.gpus[a].nvlinks_override;
		sc.gpus[a].nvlinks = links > 32 ? 32 : links;
	}
	json_t *p2p = json_object_get(root, "p2p");
	int def = p2p_code(str(p2p, "default", "OK"));
	for (int a = 0; a < sc.ngpus; a++)
		for (int b = 0; b < sc.ngpus; b++)
			sc.p2p[a][b] = def;
	json_t *pp;
	json_array_foreach(json_object_get(p2p, "pairs"), i, pp) {
		int a = (int)num(pp, "a", -1), b = (int)num(pp, "b", -1);
		if (a >= 0 && b >= 0 && a < FG_MAX_GPUS && b < FG_MAX_GPUS)
			sc.p2p[a][b] = sc.p2p[b][a] = p2p_code(str(pp, "status", "OK"));
	}
	json_t *f = json_object_get(root, "faults");
	sc.cuinit_error = (int)num(f, "cuinit_error", 0);
	sc.module_error = (int)num(f, "module_error", 0);
	sc.cuinit_hang = flag(f, "cuinit_hang", false);
	sc.nvml_init_error = (int)num(f, "nvml_init_error", 0);
	snprintf(sc.nvml_hang, sizeof(sc.nvml_hang), "%s", str(f, "nvml_hang", ""));
	snprintf(sc.nvml_init_fork, sizeof(sc.nvml_init_fork), "%s", str(f, "nvml_init_fork", ""));
	json_t *lost = json_object_get(f, "gpu_lost");
	if (lost) {
		sc.lost_gpu = (int)num(lost, "gpu", -1);
		sc.lost_after = (int)num(lost, "after_calls", 0);
	}
	pairs(json_object_get(f, "p2p_hang"), sc.p2p_hang);
	pairs(json_object_get(f, "p2p_corrupt"), sc.p2p_corrupt);
	pairs(json_object_get(f, "p2p_slow"), sc.p2p_slow);
	pairs(json_object_get(f, "nccl_p2p_hang"), sc.nccl_p2p_hang);
	sc.nccl_init_hang = flag(f, "nccl_init_hang", false);
	sc.nccl_init_hang_rank = (int)num(f, "nccl_init_hang_rank", -1);
	sc.nccl_p2p_hang_min_bytes = num(f, "nccl_p2p_hang_min_bytes", 0);
	sc.nccl_slow_ms_per_mib = num(f, "nccl_slow_ms_per_mib", 0);
	json_t *cg;
	json_array_foreach(json_object_get(f, "nccl_corrupt"), i, cg) {
		long long d = json_integer_value(cg);
		if (d >= 0 && d < FG_MAX_GPUS)
			sc.nccl_corrupt[d] = true;
	}
	sc.shm_bytes = num(f, "shm_bytes", 0);
	snprintf(sc.bootstrap_ifname_ok, sizeof(sc.bootstrap_ifname_ok), "%s", str(f, "bootstrap_ifname_ok", ""));
	json_t *clost = json_object_get(f, "cuda_lost");
	if (clost) {
		sc.cuda_lost_gpu = (int)num(clost, "gpu", -1);
		sc.cuda_lost_after = (int)num(clost, "after_calls", 0);
	}
	sc.wedge_on_hang = flag(f, "wedge_on_hang", false);
	json_array_foreach(json_object_get(root, "processes"), i, pp) {
		if (sc.nprocs >= 16)
			break;
		struct fg_proc *pr = &sc.procs[sc.nprocs++];
		pr->gpu = (int)num(pp, "gpu", -1);
		pr->pid = (unsigned)num(pp, "pid", 4242);
		pr->used = (unsigned long long)num(pp, "used_mib", 0) << 20;
		pr->live = flag(pp, "live", false);
	}
	for (int k = 0; k < FG_MAX_GPUS; k++)
		sc.cuda_order[k] = k;
	json_array_foreach(json_object_get(root, "cuda_order"), i, pp)
		if (i < FG_MAX_GPUS && json_is_integer(pp) && json_integer_value(pp) >= 0 && json_integer_value(pp) < sc.ngpus)
			sc.cuda_order[i] = (int)json_integer_value(pp);
	sc.ncuda = sc.ngpus;
	if (!json_is_true(json_object_get(root, "cuda_visible_ignored")))
		visible_devices(&sc);
	json_array_foreach(json_object_get(root, "utilization"), i, pp)
		if (i < FG_MAX_GPUS && json_is_integer(pp))
			sc.util[i] = (int)json_integer_value(pp);
	sc.loaded = true;
	json_decref(root);
}

const struct fg_scenario *fg_scenario(void)
{
	if (!parsed) {
		parse();
		parsed = true;
	}
	return &sc;
}

void fg_hang(const char *what)
{
	fprintf(stderr, "fakegpu: %s blocks forever (scenario fault)\n", what);
	fflush(stderr);
	for (;;)
		sleep(1000);
}

double fg_link_bw(enum fg_link l, int nvl)
{
	switch (l) {
	case FG_X: return 1000e9;
	case FG_NVL: return 20e9 * (nvl > 0 ? nvl : 1);
	case FG_PIX: return 24e9;
	case FG_PXB: return 22e9;
	case FG_PHB: return 18e9;
	case FG_NODE: return 16e9;
	case FG_SYS: return 12e9;
	}
	return 10e9;
}

const char *fg_link_name(enum fg_link l, int nvl, char *buf, size_t bufsz)
{
	static const char *names[] = { "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS" };
	if (l == FG_NVL)
		snprintf(buf, bufsz, "NV%d", nvl);
	else
		snprintf(buf, bufsz, "%s", names[l]);
	return buf;
}

bool fg_proc_on(const struct fg_proc *p, int gpu)
{
	if (p->gpu != gpu)
		return false;
	if (!p->live)
		return true;
	/* as the driver: a process that ended (or is a zombie) holds no context */
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%u/stat", p->pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}
