/* The machine model: every fact about the examined machine (or the recorded
 * sysroot) that analyses need, gathered once per run by collect/ and then
 * shared by every stage of a command. analyze/ reads it and never the files,
 * processes or drivers behind it, so an analysis runs on a machine model
 * built in memory as well.
 *
 * Each part has a `have_` flag: collect/ fills a part the first time a
 * stage asks for it (collect_*), later stages get the same copy. */
#ifndef ND_MODEL_MACHINE_H
#define ND_MODEL_MACHINE_H
#include "model/driver.h"
#include "model/fabric.h"
#include "model/host.h"
#include "model/ncclib.h"
#include "model/net.h"
#include "model/pci.h"
#include "model/worker.h"

#include <stdbool.h>
#include <stddef.h>

/* One NAME=value of the environment, or one setting of an nccl.conf. */
struct machine_var {
	char *name, *value;
};

/* An nccl.conf read (the user's, then /etc/nccl.conf). */
struct machine_conf {
	char path[512];
	int err;                   /* 0 read, else -errno (not read) */
	struct machine_var *v;     /* its settings in file order */
	size_t n;
};

/* What /proc/driver/nvidia/gpus/BDF/information says about one GPU. */
struct machine_gpu_info {
	char bdf[PCI_BDF_LEN];
	char model[64], uuid[48];  /* "" where the file says nothing */
};

/* An IOMMU group's domain type (/sys/kernel/iommu_groups/N/type). */
struct machine_iommu_group {
	char group[32];
	char type[32];             /* "DMA", "identity", ...; "" when err */
	int err;
};

struct machine {
	bool live;                 /* the running machine, not a recorded sysroot */

	bool have_pci;
	struct pci_list pci;
	int pci_err;               /* listing /sys/bus/pci/devices failed: -errno, else 0 */
	int ngpus;                 /* NVIDIA GPUs on the bus */

	bool have_host;
	struct host_facts host;
	bool have_uptime;
	double uptime;             /* seconds since boot */
	int uptime_err;

	bool have_driver;
	struct driver_facts drv;
	bool have_gpu_info;
	struct machine_gpu_info *gpu_info; /* per NVIDIA GPU on the bus, PCI order */
	size_t ngpu_info;

	bool have_net;
	struct net_facts net;

	bool have_libs;
	struct ncclib_scan libs;

	bool have_fabric;
	struct fabric_facts fabric;

	bool have_iommu;
	char **iommu_units;        /* names in /sys/class/iommu */
	size_t niommu_units;
	int iommu_err;             /* listing it failed: -errno (-ENOENT: no IOMMU class) */
	struct machine_iommu_group *iommu_groups; /* of the PCI devices that have one */
	size_t niommu_groups;

	bool have_env;
	bool env_known;            /* the environment could be read */
	struct machine_var *env;   /* NCCL_*, CUDA_*, TORCH_NCCL_*, VLLM_* in order, and HOME */
	size_t nenv;
	struct machine_conf conf[2];
	size_t nconf;

	/* the driver's answers: the nvml-topo and cuda-info workers, run once */
	bool have_gpus;
	bool have_nvml;            /* nvml answered (collect_nvml, or collect_gpus) */
	struct worker_outcome nvml, cuda;
};

void machine_init(struct machine *m);
void machine_release(struct machine *m);

/* Pure lookups in what was gathered. */
/* The environment's value of name, or NULL (not set, or not gathered). */
const char *machine_env(const struct machine *m, const char *name);
/* The domain type of IOMMU group g: 0 and its entry, or -errno (-ENOENT:
 * not gathered). */
int machine_iommu_group_type(const struct machine *m, const char *g, const char **type);
/* The count of IOMMU units, or -errno. */
int machine_iommu_unit_count(const struct machine *m);
/* The driver's model and UUID of the GPU at bdf, or NULL. */
const struct machine_gpu_info *machine_gpu_info(const struct machine *m, const char *bdf);
/* The first result of a worker that answered (status ok), or NULL. */
json_t *machine_answer(const struct worker_outcome *o);

#endif
