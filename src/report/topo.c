/* Rendering of the typed topology (model/topo.h): the text tables of `topo`
 * (GPUs, the matrix as `nvidia-smi topo -m` prints it, P2P status with
 * nvidia-smi's codes, NVLinks per GPU) and its JSON members. */
#include "report/report.h"
#include "util/jsonx.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---- */

static struct value tri(int v, const char *yes, const char *no, const char *why)
{
	return v < 0 ? val_unknown(why) : val_with_display(val_bool(v == 1), v == 1 ? yes : no);
}

static struct table *gpus_table(const struct topo_model *m)
{
	static const struct column cols[] = {
		{ "index", "GPU", 0 }, { "name", "name", 0 }, { "bdf", "PCI", 0 }, { "numa_node", "NUMA", 0 },
		{ "cpu_affinity", "CPUs", 0 }, { "pcie", "PCIe now/max", 0 }, { "memory_bytes", "memory", 0 },
		{ "bar1_bytes", "BAR1", 0 }, { "persistence", "persist", 0 }, { "mig", "MIG", 0 }, { "ecc", "ECC", 0 },
		{ "remapped_rows_pending", "remap pending", 0 },
	};
	struct table *tb = table_new("gpus", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	const char *nv = m->from_nvml ? "not reported" : "no NVML";
	for (size_t k = 0; k < m->n; k++) {
		const struct topo_gpu *g = &m->gpus[k];
		size_t row = table_add_row(tb);
		char buf[64];
		table_set(tb, row, "index", val_int(g->index));
		table_set(tb, row, "name", g->name ? val_str(g->name) : val_unknown(nv));
		table_set(tb, row, "bdf", g->bdf ? val_str(g->bdf) : val_unknown("not reported"));
		table_set(tb, row, "numa_node", g->numa_node >= 0 ? val_int(g->numa_node) : val_unknown("none"));
		table_set(tb, row, "cpu_affinity", g->cpu_affinity ? val_str(g->cpu_affinity) : val_unknown("not reported"));
		if (g->pcie_cur_gen || g->pcie_cur_width)
			table_set(tb, row, "pcie", val_strf("gen%d x%d / gen%d x%d", g->pcie_cur_gen, g->pcie_cur_width,
							    g->pcie_max_gen, g->pcie_max_width));
		else
			table_set(tb, row, "pcie", val_unknown("not reported"));
		if (g->pcie_cur_width && g->pcie_max_width && g->pcie_cur_width < g->pcie_max_width)
			table_mark(tb, row, "pcie", MARK_WARN);
		table_set(tb, row, "memory_bytes", g->memory_bytes >= 0 ?
			  val_with_display(val_int(g->memory_bytes), fmt_bytes((uint64_t)g->memory_bytes, buf, sizeof(buf))) :
			  val_unknown(nv));
		table_set(tb, row, "bar1_bytes", g->bar1_bytes >= 0 ?
			  val_with_display(val_int(g->bar1_bytes), fmt_bytes((uint64_t)g->bar1_bytes, buf, sizeof(buf))) :
			  val_unknown("not reported"));
		table_set(tb, row, "persistence", tri(g->persistence, "on", "off", nv));
		table_set(tb, row, "mig", tri(g->mig, "on", "off", nv));
		if (g->mig == 1)
			table_mark(tb, row, "mig", MARK_WARN);
		table_set(tb, row, "ecc", tri(g->ecc, "on", "off", nv));
		table_set(tb, row, "remapped_rows_pending", tri(g->remap_pending, "yes", "no", nv));
		if (g->remap_pending == 1)
			table_mark(tb, row, "remapped_rows_pending", MARK_BAD);
		if (g->lost)
			table_mark(tb, row, "name", MARK_BAD);
	}
	return tb;
}

/* Columns "gpu", "GPU<index>"... (+ extra) of a GPU-by-GPU table. */
static struct table *square_table(const struct topo_model *m, const char *key, const struct column *extra, size_t nextra)
{
	size_t nc = m->n + 1 + nextra;
	struct column *cols = xcalloc(nc, sizeof(*cols));
	char **names = xcalloc(m->n ? m->n : 1, sizeof(char *));
	cols[0] = (struct column){ "gpu", "", 0 };
	for (size_t i = 0; i < m->n; i++) {
		names[i] = xasprintf("GPU%d", m->gpus[i].index);
		cols[1 + i] = (struct column){ names[i], names[i], 0 };
	}
	for (size_t i = 0; i < nextra; i++)
		cols[1 + m->n + i] = extra[i];
	struct table *tb = table_new(key, NULL, cols, nc);
	for (size_t i = 0; i < m->n; i++) {
		size_t row = table_add_row(tb);
		table_set(tb, row, "gpu", val_str(names[i]));
		free(names[i]);
	}
	free(names);
	free(cols);
	return tb;
}

static const char *col_of(const struct table *tb, size_t j)
{
	return tb->cols[1 + j].key;
}

static struct table *matrix_table(const struct topo_model *m)
{
	static const struct column extra[] = { { "cpu_affinity", "CPU Affinity", 0 }, { "numa_affinity", "NUMA Affinity", 0 } };
	struct table *tb = square_table(m, "matrix", extra, 2);
	char buf[16];
	for (size_t i = 0; i < m->n; i++) {
		const struct topo_gpu *g = &m->gpus[i];
		for (size_t j = 0; j < m->n; j++) {
			struct link c = *topo_cell(m, m->matrix, i, j);
			table_set(tb, i, col_of(tb, j), link_cell_known(c) ? val_str(link_cell_text(c, buf, sizeof(buf)))
									: val_unknown("unknown"));
			/* NVML and the PCI tree disagree on this pair */
			if (i != j && m->from_nvml && m->nvml_matrix && m->sysfs_matrix) {
				enum link_class a = topo_cell(m, m->nvml_matrix, i, j)->cls;
				enum link_class b = topo_cell(m, m->sysfs_matrix, i, j)->cls;
				if (a != LINK_UNKNOWN && b != LINK_UNKNOWN && a != b)
					table_mark(tb, i, col_of(tb, j), MARK_WARN);
			}
		}
		table_set(tb, i, "cpu_affinity", g->cpu_affinity ? val_str(g->cpu_affinity) : val_str("N/A"));
		table_set(tb, i, "numa_affinity", g->numa_node >= 0 ? val_int(g->numa_node) : val_str("N/A"));
	}
	return tb;
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

static struct table *p2p_table(const struct topo_model *m)
{
	struct table *tb = square_table(m, "p2p_matrix", NULL, 0);
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->n; j++)
			table_set(tb, i, col_of(tb, j), val_str(i == j ? "X" : "?"));
	for (size_t k = 0; k < m->np2p; k++) {
		const struct topo_p2p *p = &m->p2p[k];
		int a = topo_pos(m, p->a), b = topo_pos(m, p->b);
		if (a < 0 || b < 0)
			continue;
		bool good = strcmp(p->read, "OK") == 0 && strcmp(p->write, "OK") == 0;
		table_set(tb, (size_t)a, col_of(tb, (size_t)b),
			  val_str(good ? "OK" : p2p_code(strcmp(p->read, "OK") ? p->read : p->write)));
		if (!good)
			table_mark(tb, (size_t)a, col_of(tb, (size_t)b), MARK_WARN);
	}
	return tb;
}

static struct table *nvlink_table(const struct topo_model *m)
{
	static const struct column cols[] = {
		{ "gpu", "GPU", 0 }, { "links", "links", 0 }, { "active", "active", 0 }, { "down", "down", 0 },
		{ "remote", "remote", 0 },
	};
	struct table *tb = table_new("nvlink", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t k = 0; k < m->n; k++) {
		int idx = m->gpus[k].index, n = 0, active = 0, sw = 0, gpu = 0;
		char down[512] = "";
		size_t len = 0;
		for (size_t i = 0; i < m->nlinks; i++) {
			const struct topo_nvlink *l = &m->links[i];
			if (l->gpu != idx)
				continue;
			n++;
			if (l->active) {
				active++;
				if (l->remote_type && strcmp(l->remote_type, "switch") == 0)
					sw++;
				else
					gpu++;
			} else if (len < sizeof(down)) {
				int w = snprintf(down + len, sizeof(down) - len, "%s%d", len ? "," : "", l->link);
				len += w > 0 ? (size_t)w : 0;
			}
		}
		if (!n)
			continue;
		size_t row = table_add_row(tb);
		table_set(tb, row, "gpu", val_int(idx));
		table_set(tb, row, "links", val_int(n));
		table_set(tb, row, "active", val_int(active));
		table_set(tb, row, "down", val_str(down[0] ? down : "-"));
		table_set(tb, row, "remote", val_str(sw && gpu ? "NVSwitch and GPUs" : sw ? "NVSwitch" : gpu ? "GPUs" : "-"));
		if (down[0] && active > 0)
			table_mark(tb, row, "down", MARK_BAD);
	}
	return tb;
}

static struct table *fabric_table(const struct topo_model *m)
{
	static const struct column cols[] = {
		{ "gpu", "GPU", 0 }, { "state", "fabric state", 0 }, { "status", "status", 0 }, { "clique", "clique", 0 },
		{ "multicast", "multicast", 0 }, { "nvlinks", "NVLinks active/listed/model", 0 }, { "speed", "link MB/s", 0 },
	};
	struct table *tb = table_new("fabric", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t k = 0; k < m->nfabric; k++) {
		const struct topo_fabric *f = &m->fabric[k];
		size_t row = table_add_row(tb);
		table_set(tb, row, "gpu", val_int(f->gpu));
		if (f->state >= 0)
			table_set(tb, row, "state", val_str(topo_fabric_state_name(f->state)));
		else
			table_set(tb, row, "state", val_unknown(f->error ? f->error : "not reported"));
		if (f->state == 1 || f->state == 2)
			table_mark(tb, row, "state", MARK_BAD);
		table_set(tb, row, "status", f->status ? val_str(strncmp(f->status, "NVML_", 5) == 0 ? f->status + 5 : f->status)
						    : val_str("-"));
		if (f->status && strcmp(f->status, "NVML_SUCCESS") != 0)
			table_mark(tb, row, "status", MARK_BAD);
		table_set(tb, row, "clique", f->clique_id >= 0 && f->state == 3 ? val_int(f->clique_id) : val_str("-"));
		table_set(tb, row, "multicast", f->multicast < 0 ? val_str("?") : val_str(f->multicast ? "yes" : "no"));
		char a[16] = "?", p[16] = "?", e[16] = "-";
		if (f->links_active >= 0)
			snprintf(a, sizeof(a), "%d", f->links_active);
		if (f->links_present >= 0)
			snprintf(p, sizeof(p), "%d", f->links_present);
		if (f->links_expected >= 0)
			snprintf(e, sizeof(e), "%d", f->links_expected);
		table_set(tb, row, "nvlinks", val_strf("%s/%s/%s", a, p, e));
		if (m->switch_seen && f->links_expected > 0 && f->links_present >= 0 && f->links_present < f->links_expected)
			table_mark(tb, row, "nvlinks", MARK_WARN);
		bool slow = false;
		for (size_t i = 0; i < m->nlinks; i++)
			slow |= m->links[i].gpu == f->gpu && m->links[i].downtrained;
		table_set(tb, row, "speed", f->link_speed_mbps > 0 ? val_strf("%lld%s", f->link_speed_mbps, slow ? " (a link lower)" : "")
								 : val_str("-"));
		if (slow)
			table_mark(tb, row, "speed", MARK_WARN);
	}
	return tb;
}

struct table *report_topo_table(const struct topo_model *m, enum section_kind kind)
{
	switch (kind) {
	case SECTION_TOPO_GPUS: return gpus_table(m);
	case SECTION_TOPO_MATRIX: return matrix_table(m);
	case SECTION_TOPO_P2P: return m->have_p2p ? p2p_table(m) : NULL;
	case SECTION_TOPO_NVLINK: return m->have_nvlinks ? nvlink_table(m) : NULL;
	case SECTION_TOPO_FABRIC: return m->have_fabric ? fabric_table(m) : NULL;
	default: return NULL;
	}
}

/* ---- JSON ---- */

static json_t *int_or_null(long long v, bool ok)
{
	return ok ? json_integer(v) : json_null();
}

static json_t *tri_json(int v)
{
	return v < 0 ? json_null() : json_boolean(v == 1);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_str_lossy(s) : json_null();
}

/* One GPU as the documented "gpus" member (docs/gpu.md): null when unknown. */
static json_t *gpu_json(const struct topo_gpu *g)
{
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(g->index));
	json_object_set_new(o, "name", str_or_null(g->name));
	json_object_set_new(o, "bdf", str_or_null(g->bdf));
	json_object_set_new(o, "uuid", str_or_null(g->uuid));
	json_object_set_new(o, "numa_node", int_or_null(g->numa_node, g->numa_node >= 0));
	json_object_set_new(o, "cpu_affinity", str_or_null(g->cpu_affinity));
	json_object_set_new(o, "gpu_numa_id", int_or_null(g->gpu_numa_id, g->gpu_numa_id >= 0));
	json_object_set_new(o, "pcie_cur_gen", int_or_null(g->pcie_cur_gen, g->pcie_cur_gen > 0));
	json_object_set_new(o, "pcie_max_gen", int_or_null(g->pcie_max_gen, g->pcie_max_gen > 0));
	json_object_set_new(o, "pcie_cur_width", int_or_null(g->pcie_cur_width, g->pcie_cur_width > 0));
	json_object_set_new(o, "pcie_max_width", int_or_null(g->pcie_max_width, g->pcie_max_width > 0));
	json_object_set_new(o, "memory_bytes", int_or_null(g->memory_bytes, g->memory_bytes >= 0));
	json_object_set_new(o, "bar1_bytes", int_or_null(g->bar1_bytes, g->bar1_bytes >= 0));
	json_object_set_new(o, "persistence", tri_json(g->persistence));
	json_object_set_new(o, "mig", tri_json(g->mig));
	json_object_set_new(o, "ecc", tri_json(g->ecc));
	json_object_set_new(o, "remapped_rows_pending", tri_json(g->remap_pending));
	json_object_set_new(o, "lost", json_boolean(g->lost));
	return o;
}

static json_t *matrix_json(const struct topo_model *m, struct link *matrix)
{
	json_t *rows = json_array();
	char buf[16];
	for (size_t i = 0; i < m->n; i++) {
		json_t *row = json_array();
		for (size_t j = 0; j < m->n; j++) {
			struct link c = *topo_cell(m, matrix, i, j);
			json_array_append_new(row, link_cell_known(c) ? json_string(link_cell_text(c, buf, sizeof(buf))) : json_null());
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

void report_topo_json(const struct topo_model *m, json_t *doc)
{
	json_t *gpus = json_array();
	for (size_t i = 0; i < m->n; i++)
		json_array_append_new(gpus, gpu_json(&m->gpus[i]));
	json_object_set_new(doc, "gpus", gpus);
	json_object_set_new(doc, "matrix", matrix_json(m, m->matrix));
	json_object_set_new(doc, "matrix_source", json_string(m->from_nvml ? "nvml" : "sysfs"));
	if (m->nvml_matrix)
		json_object_set_new(doc, "nvml_matrix", matrix_json(m, m->nvml_matrix));
	json_object_set_new(doc, "sysfs_matrix", m->sysfs_matrix ? matrix_json(m, m->sysfs_matrix) : json_null());
	if (m->have_p2p) {
		json_t *all = json_array();
		for (size_t i = 0; i < m->np2p; i++) {
			const struct topo_p2p *p = &m->p2p[i];
			json_t *o = json_pack("{s:i,s:i,s:s,s:s,s:s,s:s}", "a", p->a, "b", p->b, "read", p->read,
					      "write", p->write, "nvlink", p->nvlink, "atomics", p->atomics);
			json_object_set_new(o, "cuda_can_access_peer",
					    p->cuda_can_access_peer < 0 ? json_null() : json_boolean(p->cuda_can_access_peer));
			json_array_append_new(all, o);
		}
		json_object_set_new(doc, "p2p", all);
	}
	if (m->have_nvlinks) {
		json_t *all = json_array();
		for (size_t i = 0; i < m->nlinks; i++) {
			const struct topo_nvlink *l = &m->links[i];
			json_t *o = json_pack("{s:i,s:i,s:b}", "gpu", l->gpu, "link", l->link, "active", l->active);
			if (l->remote_bdf)
				json_object_set_new(o, "remote_bdf", json_str_lossy(l->remote_bdf));
			if (l->remote_type)
				json_object_set_new(o, "remote_type", json_str_lossy(l->remote_type));
			if (l->speed_mbps >= 0)
				json_object_set_new(o, "speed_mbps", json_integer(l->speed_mbps));
			if (l->version >= 0)
				json_object_set_new(o, "version", json_integer(l->version));
			if (l->err[0] >= 0 || l->err[1] >= 0 || l->err[2] >= 0 || l->err[3] >= 0) {
				static const char *const keys[NVL_ERR_N] = { "replay", "recovery", "crc_flit", "crc_data" };
				json_t *e = json_object(), *gr = json_object();
				bool reread = false;
				for (int k = 0; k < NVL_ERR_N; k++) {
					json_object_set_new(e, keys[k], int_or_null(l->err[k], l->err[k] >= 0));
					json_object_set_new(gr, keys[k], int_or_null(l->grew[k], l->grew[k] >= 0));
					reread |= l->grew[k] >= 0;
				}
				json_object_set_new(o, "errors", e);
				if (reread) /* read a second time only where a counter was not zero */
					json_object_set_new(o, "errors_grew", gr);
				else
					json_decref(gr);
			}
			json_object_set_new(o, "downtrained", json_boolean(l->downtrained));
			json_array_append_new(all, o);
		}
		json_object_set_new(doc, "nvlinks", all);
	}
	if (m->have_fabric) {
		json_t *fab = json_object(), *gs = json_array();
		json_object_set_new(fab, "nvswitch_fabric", json_boolean(m->nvswitch_fabric));
		json_object_set_new(fab, "nvswitches", int_or_null(m->nvswitches, m->nvswitches >= 0));
		for (size_t k = 0; k < m->nfabric; k++) {
			const struct topo_fabric *f = &m->fabric[k];
			json_t *o = json_object();
			json_object_set_new(o, "gpu", json_integer(f->gpu));
			json_object_set_new(o, "state", f->state >= 0 && f->state <= 3 ? json_string(topo_fabric_state_name(f->state)) : json_null());
			json_object_set_new(o, "state_code", int_or_null(f->state, f->state >= 0));
			json_object_set_new(o, "error", str_or_null(f->error));
			json_object_set_new(o, "status", str_or_null(f->status));
			json_object_set_new(o, "clique_id", int_or_null(f->clique_id, f->clique_id >= 0));
			json_object_set_new(o, "cluster_uuid", str_or_null(f->cluster_uuid));
			json_object_set_new(o, "health_mask", int_or_null(f->health_mask, f->health_mask >= 0));
			json_object_set_new(o, "multicast", tri_json(f->multicast));
			json_object_set_new(o, "nvlinks_active", int_or_null(f->links_active, f->links_active >= 0));
			json_object_set_new(o, "nvlinks_listed", int_or_null(f->links_present, f->links_present >= 0));
			json_object_set_new(o, "nvlinks_expected", int_or_null(f->links_expected, f->links_expected >= 0));
			json_object_set_new(o, "nvlink_speed_mbps", int_or_null(f->link_speed_mbps, f->link_speed_mbps >= 0));
			json_array_append_new(gs, o);
		}
		json_object_set_new(fab, "gpus", gs);
		json_object_set_new(doc, "fabric", fab);
	}
}
