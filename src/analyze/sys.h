/* `sys` analysis: turns host facts into report sections and findings. Each
 * area has its own file (sys_pci.c, sys_host.c, ...); sys_run() runs them in
 * report order over the machine model that collect_sys() filled. */
#ifndef ND_ANALYZE_SYS_H
#define ND_ANALYZE_SYS_H
#include "model/result.h"
#include "model/machine.h"

/* The parts of the machine model `sys` reads (borrowed from m). */
struct sys_ctx {
	const struct machine *m;
	const struct pci_list *pci;
	int pci_err;           /* listing /sys/bus/pci/devices failed */
	int ngpus;
	const struct host_facts *host;
	const struct driver_facts *drv;
	const struct net_facts *net;
	bool has_ib;           /* an IB/RoCE port exists */
};

/* Neither an NVIDIA GPU (or NVSwitch) on the PCI bus nor any trace of the
 * driver: there is nothing to check (sys, topo and check say NO_NVIDIA_TEXT
 * and exit 3). An unreadable bus proves nothing (false). */
#define NO_NVIDIA_TEXT "no NVIDIA GPU or driver here: nothing to check"
bool sys_no_nvidia_here(const struct pci_list *pl, const struct driver_facts *d);

/* c over m, which collect_sys() filled and the caller keeps alive. */
void sys_ctx_init(struct sys_ctx *c, const struct machine *m);
/* Adds every section and finding of `sys` to r. */
void sys_run(struct result *r, struct sys_ctx *c);

void sys_report_host(struct result *r, struct sys_ctx *c);
void sys_report_driver(struct result *r, struct sys_ctx *c);
void sys_report_pci(struct result *r, struct sys_ctx *c);
/* NVSwitches, fabric manager, IMEX (analyze/sys_fabric.c). */
void sys_report_fabric(struct result *r, struct sys_ctx *c);
void sys_report_limits(struct result *r, struct sys_ctx *c);
void sys_report_env(struct result *r, struct sys_ctx *c);
void sys_report_net(struct result *r, struct sys_ctx *c);

/* NCCL_SOCKET_IFNAME matching (prefix list, '^' excludes, '=' exact). */
bool ifname_matches(const char *spec, const char *name);
/* NCCL_P2P_LEVEL values NCCL accepts. */
bool nccl_p2p_level_valid(const char *v);
/* Checks a CUDA_VISIBLE_DEVICES value against ngpus (0: unknown); returns
 * 0 when fine, else writes the problem into why and returns -1 (invalid)
 * or -2 (duplicate). */
int cuda_visible_devices_check(const char *v, int ngpus, char *why, size_t whysz);

/* Marketing name of an NVIDIA PCI device id, or NULL. */
const char *nvidia_device_name(unsigned device);

#endif
