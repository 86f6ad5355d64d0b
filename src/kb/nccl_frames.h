/* Function names of NCCL (and of the PyTorch and vLLM layers right above
 * it) as stack frames show them (gdb, py-spy, a glibc back-trace, PyTorch's
 * C++ stack, Python's traceback or faulthandler), each with the stage of
 * NCCL's work it belongs to. A process dumped while it waits, or a crash
 * back-trace, tells where it stopped even when NCCL printed nothing: a
 * thread in p2pRecvConnect is connecting a P2P transport, one in
 * bootstrapAllGather is waiting for the other ranks in bootstrap.
 *
 * The names are NCCL's own (src/ of NVIDIA/nccl, the releases named per
 * row: many were renamed over the years), PyTorch's (distributed_c10d.py,
 * TCPStore, ProcessGroupNCCL) and vLLM's custom all-reduce
 * (custom_all_reduce.cuh / .py). Background threads (the proxy service,
 * the proxy progress thread, the IB async thread) are listed with their
 * own kind: they sit in the same calls in a healthy run and say nothing of
 * where the process stopped. */
#ifndef ND_KB_NCCL_FRAMES_H
#define ND_KB_NCCL_FRAMES_H
#include <stddef.h>

/* The stage a frame belongs to. The order is the order of specificity: when
 * the frames of a log name several, the highest speaks (a thread in
 * ncclProxyCallBlocking under p2pSendSetup is in P2P set-up). */
enum nccl_frame_kind {
	NFK_BACKGROUND = 0, /* a thread that always exists: no stage */
	NFK_PY_COLLECTIVE,  /* a torch.distributed collective that did not return */
	NFK_INIT,           /* communicator init, the part not said */
	NFK_COLLECTIVE,     /* a collective launched or waited for */
	NFK_ABORT,          /* communicator destroy or abort */
	NFK_STORE,          /* PyTorch's store / rendezvous, before NCCL */
	NFK_CONNECT,        /* transport connection set-up, the transport not said */
	NFK_BOOTSTRAP,      /* NCCL's bootstrap: the ranks exchanging addresses */
	NFK_TOPO,           /* topology detection and graph search */
	NFK_NVLS,           /* NVLink SHARP (multicast) set-up */
	NFK_NET_SOCKET,     /* the socket network transport */
	NFK_NET_IB,         /* the IB / RoCE network transport, verbs */
	NFK_P2P,            /* the P2P transport, CUDA IPC / cuMem import */
	NFK_SHM,            /* the shared-memory transport (/dev/shm) */
	NFK_CUSTOM_AR,      /* vLLM's custom all-reduce */
	NFK_COUNT
};

struct nccl_frame {
	const char *name;   /* the function's name as a frame shows it (last part of a C++ name) */
	enum nccl_frame_kind kind;
	const char *source; /* where it is: "N:transport/p2p.cc 2.4-2.29" (kb/README.md keys) */
};

const struct nccl_frame *kb_nccl_frames(size_t *n);
/* The row of a function name name[0..n), NULL none (exact, case matters). */
const struct nccl_frame *kb_nccl_frame(const char *name, size_t n);
/* "P2P transport set-up" */
const char *nccl_frame_kind_name(enum nccl_frame_kind k);

/* The causes a process stopped in frames of kind k points to, with their
 * weights (0..1), ending with a NULL cause; what it means in one line. */
struct nccl_frame_cause {
	const char *cause;
	double w;
};
const struct nccl_frame_cause *nccl_frame_causes(enum nccl_frame_kind k);
const char *nccl_frame_kind_meaning(enum nccl_frame_kind k);
/* What to do about a process stopped in frames of kind k: the test or the
 * fix of the stage's first cause, in one line. */
const char *nccl_frame_kind_fix(enum nccl_frame_kind k);

#endif
