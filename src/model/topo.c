/* Typed topology of the result model: see topo.h. */
#include "model/topo.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct topo_gpu *topo_add_gpu(struct topo_model *m)
{
	XGROW(m->gpus, m->a, m->n + 1);
	struct topo_gpu *g = &m->gpus[m->n++];
	memset(g, 0, sizeof(*g));
	g->numa_node = g->gpu_numa_id = -1;
	g->memory_bytes = g->bar1_bytes = -1;
	g->persistence = g->mig = g->ecc = g->remap_pending = -1;
	return g;
}

static struct link *new_matrix(size_t n)
{
	struct link *m = xcalloc(n > 0 ? n * n : 1, sizeof(*m));
	for (size_t i = 0; i < n; i++)
		m[i * n + i].cls = LINK_X;
	return m;
}

void topo_alloc_matrices(struct topo_model *m, bool nvml, bool sysfs)
{
	free(m->matrix);
	free(m->nvml_matrix);
	free(m->sysfs_matrix);
	m->matrix = new_matrix(m->n);
	m->nvml_matrix = nvml ? new_matrix(m->n) : NULL;
	m->sysfs_matrix = sysfs ? new_matrix(m->n) : NULL;
}

struct link *topo_cell(const struct topo_model *m, struct link *matrix, size_t i, size_t j)
{
	return &matrix[i * m->n + j];
}

int topo_pos(const struct topo_model *m, int index)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->gpus[i].index == index)
			return (int)i;
	return -1;
}

struct topo_p2p *topo_add_p2p(struct topo_model *m)
{
	XGROW(m->p2p, m->ap2p, m->np2p + 1);
	struct topo_p2p *p = &m->p2p[m->np2p++];
	memset(p, 0, sizeof(*p));
	p->cuda_can_access_peer = -1;
	return p;
}

struct topo_nvlink *topo_add_nvlink(struct topo_model *m)
{
	XGROW(m->links, m->alinks, m->nlinks + 1);
	struct topo_nvlink *l = &m->links[m->nlinks++];
	memset(l, 0, sizeof(*l));
	l->speed_mbps = -1;
	l->version = -1;
	for (int k = 0; k < NVL_ERR_N; k++)
		l->err[k] = l->grew[k] = -1;
	return l;
}

struct topo_fabric *topo_add_fabric(struct topo_model *m)
{
	XGROW(m->fabric, m->afabric, m->nfabric + 1);
	struct topo_fabric *f = &m->fabric[m->nfabric++];
	memset(f, 0, sizeof(*f));
	f->state = f->multicast = -1;
	f->clique_id = f->health_mask = f->link_speed_mbps = -1;
	f->links_present = f->links_active = f->links_expected = -1;
	return f;
}

const char *topo_fabric_state_name(int state)
{
	static const char *const names[] = { "not supported", "not started", "in progress", "completed" };
	return state >= 0 && state <= 3 ? names[state] : "?";
}

void topo_model_release(struct topo_model *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->gpus[i].name);
		free(m->gpus[i].bdf);
		free(m->gpus[i].uuid);
		free(m->gpus[i].cpu_affinity);
	}
	for (size_t i = 0; i < m->np2p; i++) {
		free(m->p2p[i].read);
		free(m->p2p[i].write);
		free(m->p2p[i].nvlink);
		free(m->p2p[i].atomics);
	}
	for (size_t i = 0; i < m->nfabric; i++) {
		free(m->fabric[i].error);
		free(m->fabric[i].status);
		free(m->fabric[i].cluster_uuid);
		free(m->fabric[i].expected_source);
	}
	free(m->fabric);
	for (size_t i = 0; i < m->nlinks; i++) {
		free(m->links[i].remote_bdf);
		free(m->links[i].remote_type);
	}
	free(m->gpus);
	free(m->matrix);
	free(m->nvml_matrix);
	free(m->sysfs_matrix);
	free(m->p2p);
	free(m->links);
	memset(m, 0, sizeof(*m));
}
