/* The machine facts the NCCL log analysis weighs its hang priors with
 * (struct nl_host of analyze/nccllog.h), from the machine model: NVLink from
 * the nvml-topo worker's answer, ACS and the IOMMU from sys's own PCI
 * analysis, so that `watch` and `sys` never disagree. Pure: reads only m. */
#ifndef ND_ANALYZE_HOST_HINT_H
#define ND_ANALYZE_HOST_HINT_H
#include "analyze/nccllog.h"
#include "model/machine.h"

/* Fills h from m (its PCI tree, IOMMU groups and host facts gathered, the
 * GPU workers' answers when have_gpus). xid: 1 an Xid, PCIe or IOMMU event
 * since the job started, 0 none, -1 the kernel log was not read. */
void host_hint_from_machine(const struct machine *m, int xid, struct nl_host *h);

#endif
