/* NCCL's start-up stages T0..T10 (see kb/nccl_signatures.h, "Stage
 * timeline"): their names, what a hang at each means, the log lines that
 * mark them and what to collect next when a log stops there. */
#include "kb/nccl_signatures.h"

#include <stddef.h>

/* Stage timeline, kb/nccl-log.md (derived from N:init.cc, N:group.cc). */
static const char *stage_names[] = {
	"T0 library loaded", "T1 bootstrap interface", "T2 network picked", "T3 init start",
	"T4 bootstrap done", "T5 all ranks joined", "T6 graphs computed", "T7 transports connected",
	"T8 channels set up", "T9 init complete", "T10 first collective",
};

static const char *stage_hang[] = {
	"stopped before or right after loading NCCL: the framework's rendezvous or a missing rank",
	"stopped in bootstrap: a rank missing or unreachable, wrong interface, firewall, port clash",
	"stopped in bootstrap: a rank missing or unreachable, wrong interface, firewall, port clash",
	"stopped in bootstrap: waiting for the other ranks (missing rank, interface, firewall)",
	"stopped in bootstrap: waiting for the other ranks (missing rank, interface, firewall)",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped after init: runtime connection at the first collective (proxy, UDS fd passing, /dev/shm)",
	"stopped in the data path: P2P blocked by ACS/IOMMU, GPU/NVLink fault, a dead rank, or mismatched collectives",
};

/* The NCCL log lines that mark each stage (kb/nccl-log.md, "Stage
 * timeline"). */
static const char *stage_lines[] = {
	"\"NCCL version\" / \"cudaDriverVersion\"",
	"\"Bootstrap : Using\" / \"Bootstrap: Using\" (the out-of-band interface chosen)",
	"the NET plugin, \"NET/IB\", \"NET/Socket\", \"Using network\"",
	"\"... - Init START\" (2.18.3+): this rank begins creating its communicator",
	"\"Bootstrap timings\" (2.23+), the CPU affinity line, the NVLS support line",
	"\"comm .. rank .. nRanks .. nNodes .. localRanks\" (2.20+): all ranks joined the bootstrap all-gather",
	"ring order \"Channel 00/02 : 0 1\", \"Trees ...\", \"P2P Chunksize set to\"",
	"\"Channel xx/y : a[i] -> b[j] via ...\", \"Connected all rings/trees\" (up to 2.21, or with runtime connect off / no cuMem)",
	"\"threadThresholds\", \"N coll channels ...\", \"CC Off, workFifoBytes\"",
	"\"... - Init COMPLETE\", \"Init timings\"",
	"(2.22+ default) at the first collective: \"Channel .. via ..\" lines, \"Connected all rings, use ring PXN x GDR y\"",
};

/* What to collect next, by stage (nccl_stage_collect): NCCL_DEBUG_SUBSYS
 * names the subsystems whose INFO lines say what that stage did (NCCL's
 * environment variables documentation: INIT, BOOTSTRAP, NET, GRAPH, P2P,
 * SHM, PROXY, ENV), the files those of the stage's causes that the log
 * cannot show (ACS, IOMMU, /dev/shm, Xid: the machine's). */
static const char collect_none[] =
	"every rank's output with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV (NCCL_DEBUG_FILE=/tmp/nccl.%h.%p writes "
	"one file a process) and the launcher's output of every rank (which rank never started; MASTER_ADDR and "
	"MASTER_PORT), dmesg of each host (`nccl-doctor kernel`) and `nccl-doctor snapshot` of each host";
static const char collect_bootstrap[] =
	"every rank's log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET,ENV (the interface and address each "
	"rank chose, which rank never joined), the logs of the ranks that are missing, `ip -br addr` and `nccl-doctor "
	"snapshot` of each host; `nccl-doctor check --log FILE` on a host weighs the log with its facts";
static const char collect_connect[] =
	"every rank's log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET,GRAPH,ENV (the transport of each "
	"channel, the one that stops), `nvidia-smi topo -m`, dmesg (`nccl-doctor kernel`: Xid, IOMMU faults) and "
	"`nccl-doctor snapshot` of the host (ACS, IOMMU, /dev/shm); `nccl-doctor check --log FILE` on the host "
	"measures P2P between its GPUs and weighs the log with the machine's facts";
static const char collect_runtime[] =
	"every rank's log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET,PROXY,ENV and NCCL_RUNTIME_CONNECT=0 "
	"(the connections are made at init, so the log shows the one that stops), TORCH_NCCL_DUMP_ON_TIMEOUT=1, dmesg "
	"(`nccl-doctor kernel`) and `nccl-doctor snapshot` of the host; `nccl-doctor check --log FILE` on the host";
static const char collect_data[] =
	"every rank's log with NCCL_DEBUG=INFO (transports, versions, where each rank stopped), the flight recorder of "
	"every rank (TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1; `nccl-doctor logs` reads the "
	"dumps), the kernel log of each host (`nccl-doctor kernel`) and `nccl-doctor check` on each host (NCCL, CUDA "
	"and driver versions must agree across hosts)";

const char *nccl_stage_collect(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return collect_none;
	if (stage <= 4)
		return collect_bootstrap;
	if (stage <= 8)
		return collect_connect;
	return stage == 9 ? collect_runtime : collect_data;
}

const char *nccl_stage_lines(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return NULL;
	return stage_lines[stage];
}

const char *nccl_stage_name(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return "no NCCL line";
	return stage_names[stage];
}

const char *nccl_stage_hang_meaning(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return "no NCCL output: hung before NCCL init (rendezvous) or NCCL_DEBUG not set";
	return stage_hang[stage];
}
