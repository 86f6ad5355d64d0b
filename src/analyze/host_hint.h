/* The machine facts the NCCL log analysis weighs its causes with (struct
 * nl_host of analyze/nccllog.h), from the machine model: NVLink from the
 * nvml-topo worker's answer, ACS and the IOMMU from sys's own PCI analysis,
 * /dev/shm from sys's host analysis, the RDMA devices and NCCL_NET, so that
 * `watch`, `check --log`, `logs --sysroot` and `sys` never disagree. Pure:
 * reads only m. */
#ifndef ND_ANALYZE_HOST_HINT_H
#define ND_ANALYZE_HOST_HINT_H
#include "analyze/nccllog.h"
#include "model/machine.h"

/* Fills h from m (its PCI tree, IOMMU groups and host facts gathered, the
 * network facts and environment when gathered, the GPU workers' answers
 * when have_gpus); a part m lacks stays unknown. xid: 1 an Xid, PCIe or
 * IOMMU event since the job started, 0 none, -1 the kernel log was not
 * read. origin names the machine in every fact ("this machine"). h->known
 * stays false when m holds none of these facts (an empty tree). */
void host_hint_from_machine(const struct machine *m, int xid, const char *origin, struct nl_host *h);
/* Sets what the kernel log says (xid as above) and the reason a hardware
 * prior of a PCIe-only box goes with it: span says what the kernel log
 * covered ("since the job started", "since boot"). */
void host_hint_set_xid(struct nl_host *h, int xid, const char *span);

#endif
