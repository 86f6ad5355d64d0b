/* collect: each fact of the machine gathered once (see collect/collect.h). */
#include "collect/collect.h"
#include "probe/driver.h"
#include "probe/environ.h"
#include "probe/fabric.h"
#include "probe/host.h"
#include "probe/iommu.h"
#include "probe/ncclib.h"
#include "probe/net.h"
#include "probe/pci.h"
#include "run/worker.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void collect_pci(struct machine *m)
{
	if (m->have_pci)
		return;
	m->have_pci = true;
	m->live = sysroot_is_live();
	int r = pci_scan(&m->pci);
	m->pci_err = r < 0 ? r : 0;
	for (size_t i = 0; i < m->pci.n; i++)
		m->ngpus += pci_is_nvidia_gpu(&m->pci.devs[i]);
}

void collect_host(struct machine *m)
{
	if (m->have_host)
		return;
	m->have_host = true;
	host_probe(&m->host);
	m->host.kubernetes = environ_get("KUBERNETES_SERVICE_HOST") != NULL;
}

void collect_uptime(struct machine *m)
{
	if (m->have_uptime)
		return;
	m->have_uptime = true;
	m->uptime_err = host_uptime(&m->uptime);
}

void collect_driver(struct machine *m)
{
	if (m->have_driver)
		return;
	m->have_driver = true;
	driver_probe(&m->drv);
}

void collect_gpu_info(struct machine *m)
{
	if (m->have_gpu_info)
		return;
	m->have_gpu_info = true;
	collect_pci(m);
	size_t alloc = 0;
	for (size_t i = 0; i < m->pci.n; i++) {
		const struct pci_dev *d = &m->pci.devs[i];
		if (!pci_is_nvidia_gpu(d))
			continue;
		XGROW(m->gpu_info, alloc, m->ngpu_info + 1);
		struct machine_gpu_info *g = &m->gpu_info[m->ngpu_info++];
		memset(g, 0, sizeof(*g));
		str_copy(g->bdf, d->bdf, sizeof(g->bdf));
		driver_gpu_info(g->bdf, g->model, sizeof(g->model), g->uuid, sizeof(g->uuid));
	}
}

void collect_net(struct machine *m)
{
	if (m->have_net)
		return;
	m->have_net = true;
	net_probe(&m->net);
}

void collect_libs(struct machine *m)
{
	if (m->have_libs)
		return;
	m->have_libs = true;
	ncclib_scan(&m->libs);
}

void collect_fabric(struct machine *m)
{
	if (m->have_fabric)
		return;
	m->have_fabric = true;
	fabric_probe(&m->fabric);
}

void collect_iommu(struct machine *m)
{
	if (m->have_iommu)
		return;
	m->have_iommu = true;
	int r = iommu_units(&m->iommu_units, &m->niommu_units);
	if (r < 0) {
		m->iommu_err = r;
		m->iommu_units = NULL;
		m->niommu_units = 0;
	}
	collect_pci(m);
	size_t alloc = 0;
	for (size_t i = 0; i < m->pci.n; i++) {
		const struct pci_dev *d = &m->pci.devs[i];
		if (!pci_is_nvidia_gpu(d) || !d->iommu_group[0])
			continue;
		const char *t;
		if (machine_iommu_group_type(m, d->iommu_group, &t) != -ENOENT)
			continue;
		XGROW(m->iommu_groups, alloc, m->niommu_groups + 1);
		struct machine_iommu_group *g = &m->iommu_groups[m->niommu_groups++];
		memset(g, 0, sizeof(*g));
		str_copy(g->group, d->iommu_group, sizeof(g->group));
		g->err = iommu_group_type(g->group, g->type, sizeof(g->type));
		if (g->err > 0)
			g->err = 0;
		if (g->err < 0)
			g->type[0] = '\0';
	}
}

struct varlist {
	struct machine_var *v;
	size_t n, alloc;
};

static void var_add(struct varlist *l, const char *name, size_t namelen, const char *value)
{
	XGROW(l->v, l->alloc, l->n + 1);
	l->v[l->n].name = xstrndup(name, namelen);
	l->v[l->n].value = xstrdup(value);
	l->n++;
}

static void take_env(const char *name, size_t namelen, const char *value, void *arg)
{
	var_add(arg, name, namelen, value);
}

static int take_conf(const char *name, const char *value, void *arg)
{
	var_add(arg, name, strlen(name), value);
	return 1;
}

/* NCCL's own order: NCCL_CONF_FILE, else ~/.nccl.conf; then /etc/nccl.conf.
 * A name too long for the buffer is not read at all (a cut one would name
 * another file). */
static void collect_conf(struct machine *m)
{
	const char *user = machine_env(m, "NCCL_CONF_FILE");
	char userpath[512] = "";
	if (user && *user) {
		if (str_copy(userpath, user, sizeof(userpath)) >= sizeof(userpath))
			userpath[0] = '\0';
	} else if (machine_env(m, "HOME")) {
		xsnprintf(userpath, sizeof(userpath), "%s/.nccl.conf", machine_env(m, "HOME"));
	}
	const char *files[2] = { userpath, "/etc/nccl.conf" };
	for (int i = 0; i < 2; i++) {
		if (!files[i][0] || files[i][0] != '/')
			continue;
		struct machine_conf *c = &m->conf[m->nconf++];
		str_copy(c->path, files[i], sizeof(c->path));
		struct varlist l = { 0 };
		int n = ncclconf_read(files[i], take_conf, &l);
		c->err = n < 0 ? n : 0;
		c->v = l.v;
		c->n = l.n;
	}
}

void collect_env(struct machine *m)
{
	if (m->have_env)
		return;
	m->have_env = true;
	m->env_known = environ_known();
	struct varlist l = { 0 };
	static const char *const prefixes[] = { "NCCL_", "CUDA_", "TORCH_NCCL_", "VLLM_" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		environ_each(prefixes[i], take_env, &l);
	const char *home = environ_get("HOME");
	if (home)
		var_add(&l, "HOME", 4, home);
	m->env = l.v;
	m->nenv = l.n;
	collect_conf(m);
}

void collect_kernel(struct machine *m)
{
	collect_pci(m);
	collect_gpu_info(m);
	collect_iommu(m);
	collect_uptime(m);
}

void collect_sys(struct machine *m)
{
	collect_pci(m);
	collect_host(m);
	collect_driver(m);
	collect_net(m);
	collect_libs(m);
	collect_fabric(m);
	collect_iommu(m);
	collect_env(m);
}

/* every worker numbers GPUs as NVML does: PCI bus order */
static const char *const worker_env[] = { "CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL };

void collect_gpus(struct machine *m, double deadline)
{
	if (m->have_gpus)
		return;
	m->have_gpus = true;
	bool nvml = !m->have_nvml;
	m->have_nvml = true;
	struct worker wn, wc;
	worker_init(&wn);
	worker_init(&wc);
	struct worker_spec sn = { .task = "nvml-topo", .env = worker_env, .deadline = deadline, .grace = 1 };
	struct worker_spec sc = { .task = "cuda-info", .env = worker_env, .deadline = deadline, .grace = 1 };
	int e1 = nvml ? worker_start(&wn, &sn) : -1, e2 = worker_start(&wc, &sc);
	struct worker *ws[2];
	size_t nw = 0;
	if (e1 == 0)
		ws[nw++] = &wn;
	if (e2 == 0)
		ws[nw++] = &wc;
	worker_wait(ws, nw);
	if (nvml)
		worker_outcome_of(&wn, &m->nvml);
	worker_outcome_of(&wc, &m->cuda);
	worker_release(&wn);
	worker_release(&wc);
}

void collect_nvml(struct machine *m, double deadline)
{
	if (m->have_nvml)
		return;
	m->have_nvml = true;
	struct worker wn;
	worker_init(&wn);
	struct worker_spec sn = { .task = "nvml-topo", .env = worker_env, .deadline = deadline, .grace = 1 };
	if (worker_start(&wn, &sn) == 0) {
		struct worker *ws[1] = { &wn };
		worker_wait(ws, 1);
	}
	worker_outcome_of(&wn, &m->nvml);
	worker_release(&wn);
}
