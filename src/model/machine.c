/* The machine model: see model/machine.h. */
#include "model/machine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void machine_init(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	m->libs.ld_default = -1;
	m->libs.vllm_lib = -1;
}

static void vars_free(struct machine_var *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}

void machine_release(struct machine *m)
{
	pci_list_release(&m->pci);
	net_release(&m->net);
	ncclib_scan_release(&m->libs);
	free(m->gpu_info);
	for (size_t i = 0; i < m->niommu_units; i++)
		free(m->iommu_units[i]);
	free(m->iommu_units);
	free(m->iommu_groups);
	vars_free(m->env, m->nenv);
	for (size_t i = 0; i < m->nconf; i++)
		vars_free(m->conf[i].v, m->conf[i].n);
	worker_outcome_release(&m->nvml);
	worker_outcome_release(&m->cuda);
	machine_init(m);
}

const char *machine_env(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nenv; i++)
		if (strcmp(m->env[i].name, name) == 0)
			return m->env[i].value;
	return NULL;
}

int machine_iommu_group_type(const struct machine *m, const char *g, const char **type)
{
	for (size_t i = 0; i < m->niommu_groups; i++)
		if (strcmp(m->iommu_groups[i].group, g) == 0) {
			*type = m->iommu_groups[i].type;
			return m->iommu_groups[i].err;
		}
	return -ENOENT;
}

int machine_iommu_unit_count(const struct machine *m)
{
	if (!m->have_iommu)
		return -ENOENT;
	if (m->iommu_err < 0)
		return m->iommu_err;
	int n = 0;
	for (size_t i = 0; i < m->niommu_units; i++)
		n += m->iommu_units[i][0] != '.';
	return n;
}

const struct machine_gpu_info *machine_gpu_info(const struct machine *m, const char *bdf)
{
	for (size_t i = 0; i < m->ngpu_info; i++)
		if (strcmp(m->gpu_info[i].bdf, bdf) == 0)
			return &m->gpu_info[i];
	return NULL;
}

json_t *machine_answer(const struct worker_outcome *o)
{
	return o->status == WORKER_OK ? o->result : NULL;
}
