/* Worker task `bench`: one rank of `nccl-doctor bench`, timed the way
 * nccl-tests times (src/common.cu: BenchTime, TimeTest).
 *
 *   bench --nranks N --rank R --device D --count C --id HEX|create [--nccl P]
 *         --op OP --type T --redop OP --root R --sizes B1,B2,...
 *         [--iters N] [--warmup N] [--agg N] [--check N] [--cycles N]
 *         [--blocking 0..3] [--timer wall|event] [--init-timeout S]
 *         [--coll-timeout S] [--comm-nonblocking] [--cuda-alloc] [--host-check]
 *         [--graph N] [--unalign N] [--per-iter] [--memory] [--stream-null]
 *         [--register 1|2] [--cta-policy 0..2] [--split-colors C0,C1,...]
 *         [--a2av-matrix B00,B01,...]
 *
 * --split-colors (NCCL_TESTS_SPLIT): the communicator is split by color
 * (ncclCommSplit) and the rank runs in its group; --a2av-matrix
 * (NCCL_TESTS_ALLTOALLV_MATRIX_FILE): alltoallv's bytes per pair of ranks.
 * The communicator is blocking, as nccl-tests' (--comm-nonblocking: created
 * with blocking=0, NCCL 2.14+, and ncclCommGetAsyncError polled after each
 * call). Every row waits for its stream under the per-collective deadline
 * and calls ncclCommAbort when it passes; a call that blocks inside NCCL
 * (init, a first connect, a send whose peer never comes) is ended by the
 * rank's watchdog thread a second later. Either way the rank reports which
 * phase hung, with NCCL's lines, and exits by itself (the parent's stage
 * deadline, 5 s after the rank's, is the backstop). Results go to the
 * parent as they come:
 *   {"kind":"rank", pid, host, device, busid, name, nccl_version, nccl_code, devices (visible GPUs, -1 unknown)}
 *   {"kind":"init", "init_s", "nonblocking", "cta_policy" (-x set, -1 none)}
 *   {"kind":"register", "how":"local"|"symmetric", "why"}  (--register, -R)
 *   {"kind":"cell", "row", "inplace", "bytes", "count", "time_s", "cputime_s", "wrong"[, "iter_s":[...]]}
 *     (iter_s with --per-iter, -I: each iteration's time per call by CUDA events)
 *   {"kind":"nccl_lines", "lines":[...]}   (NCCL's INFO/WARN lines, captured;
 *     "split_from": true: those of the communicator a group was split from)
 *   {"kind":"checker", "where":"gpu"|"host", "why"}  (with --check > 0)
 *   {"kind":"memory", "init", "buffers", "collective"}  (--memory, -M: bytes of GPU memory each took)
 *   {"kind":"done"}
 * Time per call = elapsed / (iters * agg) of this rank; with --graph N (-G)
 * the iterations are captured into a CUDA graph once and the graph is
 * launched N times, time = elapsed / (iters * agg * N), as nccl-tests'
 * BenchTime does; the parent combines
 * the ranks (-a). --timer wall (default) is nccl-tests' CPU clock around the
 * launches and the final wait; --timer event uses CUDA events on the stream.
 * Each row is preceded by its warm-up (nccl-tests warms every size before
 * the first row; here a size that hangs leaves the rows before it printed).
 * Checking is outside the timed region: a fresh input, one call, and the
 * result compared on the GPU by the PTX kernels of gpu/bench_ptx.h; where
 * they do not load (or with --host-check) the input is written from the host
 * and the result copied back and compared there (bench_check_result). */
#include "gpu/bench_capture.h"
#include "gpu/bench_data.h"
#include "gpu/bench_args.h"
#include "gpu/bench_ptx.h"
#include "gpu/tasks.h"
#include "model/vendor_reason.h"
#include "gpu/wmsg.h"
#include "nvlib/nvlib.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#include "gpu/bench_rank.h"


/* Reports a deadline passed in the current stage, aborts the communicator. */
static int timed_out(struct rank_state *s, double limit)
{
	br_error(s, "worker", 0, "timeout", "%s did not finish within %g s; ncclCommAbort", s->stage, limit);
	br_result(s, json_pack("{s:s,s:o}", "kind", "nccl_lines", "lines", capture_take()));
	if (s->comm) {
		br_cleanup_stage(s, "ncclCommAbort");
		s->nc->ncclCommAbort(s->comm);
		s->comm = NULL;
	}
	return 1;
}

/* Polls ncclCommGetAsyncError until the communicator leaves ncclInProgress
 * (nonblocking mode), under a deadline. */
static int wait_async(struct rank_state *s, double limit)
{
	double end = nd_now_s() + limit;
	for (unsigned spins = 0;; spins++) {
		ncclResult_t ae = ncclSuccess;
		ncclResult_t r = s->nc->ncclCommGetAsyncError(s->comm, &ae);
		if (r != ncclSuccess)
			return br_nccl_fail(s, "ncclCommGetAsyncError", r);
		if (ae == ncclSuccess)
			return 0;
		if (ae != ncclInProgress)
			return br_nccl_fail(s, s->stage, ae);
		if (nd_now_s() > end)
			return timed_out(s, limit);
		if (spins > 1000)
			usleep(100);
	}
}

/* Waits for the stream like nccl-tests' testStreamSynchronize: spins on
 * cuStreamQuery, checks NCCL's asynchronous error, gives up at the deadline.
 * The communicator's state and the clock are read every 16th query, and the
 * CPU is yielded only after 4096 (a short wait is not lengthened by them:
 * the final wait of an 8 B row is a few microseconds). */
static int wait_stream(struct rank_state *s, double end, double limit)
{
	for (unsigned spin = 0;; spin++) {
		CUresult e = s->cu->cuStreamQuery(s->st);
		if (e == CUDA_SUCCESS)
			return 0;
		if (e != CUDA_ERROR_NOT_READY)
			return br_cu_fail(s, "cuStreamQuery", e);
		if (spin % 16 != 15)
			continue;
		ncclResult_t ae = ncclSuccess;
		if (s->nc->ncclCommGetAsyncError(s->comm, &ae) == ncclSuccess && ae != ncclSuccess && ae != ncclInProgress)
			return br_nccl_fail(s, s->stage, ae);
		if (nd_now_s() > end)
			return timed_out(s, limit);
		if (spin > 4096)
			sched_yield();
	}
}

/* br_launch + the nonblocking protocol: ncclInProgress means poll the
 * communicator's state before anything else. */
static int call(struct rank_state *s, const struct bench_geom *g, size_t bytes_max, bool inplace, long long iter,
		double limit)
{
	ncclResult_t r = br_launch(s, g, bytes_max, inplace, iter);
	if (r == ncclInProgress)
		return wait_async(s, limit);
	return r == ncclSuccess ? 0 : br_nccl_fail(s, s->stage, r);
}

static void geometry(const struct rank_state *s, long long bytes, struct bench_geom *g)
{
	bench_geometry(s->a->op, (size_t)bytes / s->es, s->es, s->cranks, g);
}

/* Fills the input of one checked call, runs it and counts the wrong
 * elements of its result (-1 on a failure, reported): by the check kernels,
 * else on the host from a copy. */
static long long bench_check_result(struct rank_state *s, const struct bench_geom *g, size_t bytes_max, bool inplace,
				    int rep)
{
	const struct bench_args *a = s->a;
	struct bench_data d = { a->op, s->type, s->redop, s->root, s->crank, s->cranks, rep };
	size_t es = s->es;
	CUresult e;
	char *recv = (char *)(uintptr_t)s->recvbuf;
	char *send = inplace ? recv + g->send_inplace_off * (size_t)s->crank * es : (char *)(uintptr_t)s->sendbuf;
	recv += inplace ? g->recv_inplace_off * (size_t)s->crank * es : 0;
	/* poison what the call must overwrite, then write the input */
	if ((e = s->cu->cuMemsetD8(s->recvbuf, 0xa5, g->recv_count * es + (inplace ? g->recv_inplace_off * (size_t)s->crank * es : 0))) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuMemsetD8", e), -1;
	bool gpu = s->kern.mod != NULL;
	if (!gpu)
		bench_fill(&d, g, s->host);
	if (!gpu && g->send_count && (e = s->cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)send, s->host, g->send_count * es)) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuMemcpyHtoD", e), -1;
	/* the memset and a pageable copy may still be in flight on the legacy
	 * stream, which our non-blocking stream does not wait for */
	if ((e = s->cu->cuCtxSynchronize()) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuCtxSynchronize", e), -1;
	if (gpu && (e = bench_kern_fill(&s->kern, &d, g, (CUdeviceptr)(uintptr_t)send, s->st)) != CUDA_SUCCESS)
		return br_cu_fail(s, BENCH_PTX_FILL, e), -1;
	if (call(s, g, bytes_max, inplace, 0, s->limit))
		return -1;
	if (gpu && (e = bench_kern_check(&s->kern, &d, g, (CUdeviceptr)(uintptr_t)recv, s->st)) != CUDA_SUCCESS)
		return br_cu_fail(s, BENCH_PTX_CHECK, e), -1;
	if (wait_stream(s, nd_now_s() + s->limit, s->limit))
		return -1;
	if (gpu)
		return bench_kern_count(&s->kern);
	if (g->recv_count && (e = s->cu->cuMemcpyDtoH(s->host, (CUdeviceptr)(uintptr_t)recv, g->recv_count * es)) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuMemcpyDtoH", e), -1;
	return bench_check(&d, g, s->host);
}

/* The timed iterations (-n, -m): launches, and with -z 1..3 a wait after
 * each (not while a graph is captured: waits is false). There is no barrier
 * between the rank processes: -z 1 and 3 wait as -z 2 does. ev (-I): an
 * event before each iteration and one after the last, or with -z 3 a start
 * and a stop around each iteration's launches and wait (nccl-tests' pairs). */
static int iterations(struct rank_state *s, const struct bench_geom *g, size_t bytes_max, bool inplace, double end,
		      bool waits, CUevent *ev)
{
	const struct bench_args *a = s->a;
	double limit = s->limit;
	bool paired = a->blocking == 3;
	int rc = 0;
	for (long long it = 0; it < a->iters && !rc; it++) {
		if (a->agg > 1 && s->nc->ncclGroupStart() != ncclSuccess)
			rc = br_nccl_fail(s, "ncclGroupStart", ncclInvalidUsage);
		if (ev && !rc)
			s->cu->cuEventRecord(ev[paired ? 2 * it : it], s->st);
		for (long long k = 0; k < a->agg && !rc; k++)
			rc = call(s, g, bytes_max, inplace, it * a->agg + k, limit);
		if (!rc && a->agg > 1) {
			ncclResult_t r = s->nc->ncclGroupEnd();
			rc = r == ncclInProgress ? wait_async(s, limit) : r != ncclSuccess ? br_nccl_fail(s, "ncclGroupEnd", r) : 0;
		}
		if (!rc && a->blocking && waits)
			rc = wait_stream(s, end, limit);
		if (ev && !rc && paired)
			s->cu->cuEventRecord(ev[2 * it + 1], s->st);
	}
	if (ev && !rc && !paired)
		s->cu->cuEventRecord(ev[a->iters], s->st);
	return rc;
}

/* -I: the events of one cell's iterations (as iterations() records them) */
static int iter_events(struct rank_state *s, CUevent **evp, long long *nev)
{
	const struct bench_args *a = s->a;
	long long n = a->blocking == 3 ? 2 * a->iters : a->iters + 1;
	CUevent *ev = xcalloc((size_t)n, sizeof(*ev));
	*evp = ev, *nev = n;
	for (long long i = 0; i < n; i++) {
		CUresult e = s->cu->cuEventCreate(&ev[i], CU_EVENT_DEFAULT);
		if (e != CUDA_SUCCESS)
			return br_cu_fail(s, "cuEventCreate", e);
	}
	return 0;
}

/* -I: each iteration's time per call (seconds), as a JSON array; the
 * stream has finished. NULL after a failure (reported). */
static json_t *iter_times(struct rank_state *s, CUevent *ev)
{
	const struct bench_args *a = s->a;
	bool paired = a->blocking == 3;
	json_t *t = json_array();
	for (long long it = 0; it < a->iters; it++) {
		float ms = 0;
		CUresult e = s->cu->cuEventElapsedTime(&ms, ev[paired ? 2 * it : it], ev[paired ? 2 * it + 1 : it + 1]);
		if (e != CUDA_SUCCESS) {
			json_decref(t);
			br_cu_fail(s, "cuEventElapsedTime", e);
			return NULL;
		}
		json_array_append_new(t, json_real((double)ms / 1e3 / (double)a->agg));
	}
	return t;
}

static void iter_events_free(struct rank_state *s, CUevent *ev, long long n)
{
	for (long long i = 0; ev && i < n; i++)
		if (ev[i])
			s->cu->cuEventDestroy(ev[i]);
	free(ev);
}

/* -G: the iterations captured into a graph (thread-local capture mode, as
 * nccl-tests), instantiated into *exec. */
static int capture(struct rank_state *s, const struct bench_geom *g, size_t bytes_max, bool inplace, double end,
		   CUgraphExec *exec)
{
	const struct cuda_api *cu = s->cu;
	if (!cu->cuStreamBeginCapture || !cu->cuStreamEndCapture || !cu->cuGraphInstantiate || !cu->cuGraphLaunch ||
	    !cu->cuGraphExecDestroy || !cu->cuGraphDestroy) {
		br_error(s, "cuda", CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
			"-G needs CUDA graphs in libcuda.so.1 (cuStreamBeginCapture_v2, cuGraphInstantiateWithFlags: CUDA 11.4+)");
		return 1;
	}
	CUresult e = cu->cuStreamBeginCapture(s->st, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
	if (e != CUDA_SUCCESS)
		return br_cu_fail(s, "cuStreamBeginCapture", e);
	int rc = iterations(s, g, bytes_max, inplace, end, false, NULL);
	CUgraph graph = NULL;
	e = cu->cuStreamEndCapture(s->st, &graph);
	if (!rc && e != CUDA_SUCCESS)
		rc = br_cu_fail(s, "cuStreamEndCapture", e);
	if (!rc && (e = cu->cuGraphInstantiate(exec, graph, 0)) != CUDA_SUCCESS)
		rc = br_cu_fail(s, "cuGraphInstantiate", e);
	if (graph)
		cu->cuGraphDestroy(graph);
	return rc;
}

/* One cell of the table: sync call, timed iterations (or -G graph
 * launches of them), check. */
static int run_cell(struct rank_state *s, long long bytes, size_t bytes_max, bool inplace, int row, int rep)
{
	const struct bench_args *a = s->a;
	struct bench_geom g;
	geometry(s, bytes, &g);
	double limit = s->limit, t_cell = nd_now_s(), end = t_cell + limit;
	if (call(s, &g, bytes_max, inplace, 0, limit) || wait_stream(s, end, limit))
		return 1;
	CUevent ev0 = NULL, ev1 = NULL;
	CUresult e;
	if (a->event_timer && ((e = s->cu->cuEventCreate(&ev0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
			       (e = s->cu->cuEventCreate(&ev1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS))
		return br_cu_fail(s, "cuEventCreate", e);
	CUgraphExec gexec = NULL;
	CUevent *iev = NULL; /* -I (not with -G: refused by the parent, as nccl-tests disables it) */
	long long niev = 0;
	int rc = a->per_iter && !a->graph ? iter_events(s, &iev, &niev) : 0;
	if (!rc && a->graph > 0)
		rc = capture(s, &g, bytes_max, inplace, end, &gexec);
	double t0 = nd_now_s();
	if (ev0 && !rc)
		s->cu->cuEventRecord(ev0, s->st);
	for (long long l = 0; gexec && l < a->graph && !rc; l++)
		if ((e = s->cu->cuGraphLaunch(gexec, s->st)) != CUDA_SUCCESS)
			rc = br_cu_fail(s, "cuGraphLaunch", e);
	if (!gexec && !rc)
		rc = iterations(s, &g, bytes_max, inplace, end, true, iev);
	double cpu = nd_now_s() - t0;
	if (ev1 && !rc)
		s->cu->cuEventRecord(ev1, s->st);
	if (!rc)
		rc = wait_stream(s, end, limit);
	double wall = nd_now_s() - t0, n = (double)(a->iters * a->agg * (a->graph > 0 ? a->graph : 1));
	double t = wall / n;
	float ms = 0;
	if (!rc && ev1) {
		if ((e = s->cu->cuEventSynchronize(ev1)) != CUDA_SUCCESS || (e = s->cu->cuEventElapsedTime(&ms, ev0, ev1)) != CUDA_SUCCESS)
			rc = br_cu_fail(s, "cuEventElapsedTime", e);
		t = ms / 1e3 / n;
	}
	json_t *itimes = !rc && iev ? iter_times(s, iev) : NULL;
	if (iev && !itimes)
		rc = 1;
	iter_events_free(s, iev, niev);
	if (ev0)
		s->cu->cuEventDestroy(ev0);
	if (ev1)
		s->cu->cuEventDestroy(ev1);
	if (gexec)
		s->cu->cuGraphExecDestroy(gexec);
	if (rc)
		return rc;
	long long wrong = -1; /* -1: not checked ("N/A") */
	bool checks = a->check > 0 && (!inplace || bench_checks_inplace(a->op));
	for (long long c = 0; checks && c < a->check; c++) {
		wrong = bench_check_result(s, &g, bytes_max, inplace, rep + (int)c);
		if (wrong != 0)
			break;
	}
	if (checks && wrong < 0) {
		json_decref(itimes);
		return 1;
	}
	s->prev2_bytes = s->prev_bytes;
	s->prev2_cell_s = s->prev_cell_s;
	s->prev_bytes = bytes;
	s->prev_cell_s = nd_now_s() - t_cell;
	json_t *res = json_pack("{s:s,s:i,s:b,s:I,s:I,s:f,s:f,s:I}", "kind", "cell", "row", row, "inplace", inplace, "bytes",
				(json_int_t)bytes, "count", (json_int_t)g.param_count, "time_s", t, "cputime_s", cpu / n,
				"wrong", (json_int_t)wrong);
	if (itimes)
		json_object_set_new(res, "iter_s", itimes);
	br_result(s, res);
	return 0;
}


/* cuInit, device, context; reports {"kind":"rank"}. */
static int open_device(struct rank_state *s, CUdevice *dev)
{
	const struct vendor_lib *lib;
	CUresult e;
	br_stage(s, 0, "load libcuda.so.1");
	if (cuda_load(&s->cu, &lib) < 0) {
		br_error(s, VENDOR_LOADER, lib->err, vendor_err_reason(lib->err), "%s", lib->error);
		return 1;
	}
	br_stage(s, 0, "cuInit");
	if ((e = s->cu->cuInit(0)) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuInit", e);
	br_stage(s, 0, "cuDeviceGet");
	if ((e = s->cu->cuDeviceGet(dev, (int)s->device)) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuDeviceGet", e);
	CUcontext ctx;
	br_stage(s, 0, "cuDevicePrimaryCtxRetain");
	if ((e = s->cu->cuDevicePrimaryCtxRetain(&ctx, *dev)) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuDevicePrimaryCtxRetain", e);
	if ((e = s->cu->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuCtxSetCurrent", e);
	char name[128] = "", busid[64] = "", host[256] = "", vbuf[32];
	s->cu->cuDeviceGetName(name, sizeof(name), *dev);
	s->cu->cuDeviceGetPCIBusId(busid, sizeof(busid), *dev);
	const char *node = getenv("NCCL_DOCTOR_NODE"); /* under a launcher: the node's name as the rendezvous knows it */
	if (node)
		snprintf(host, sizeof(host), "%s", node);
	else
		gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	int ndev = -1; /* the GPUs this process sees: a one-rank run names the rest */
	if (s->cu->cuDeviceGetCount(&ndev) != CUDA_SUCCESS)
		ndev = -1;
	br_result(s, json_pack("{s:s,s:i,s:i,s:s,s:i,s:s,s:s,s:s,s:i,s:i}", "kind", "rank", "rank", (int)s->rank, "pid",
			      (int)getpid(), "host", host, "device", (int)s->device, "busid", busid, "name", name,
			      "nccl_version", nccl_version_text(s->nccl_code, vbuf, sizeof(vbuf)), "nccl_code",
			      s->nccl_code, "devices", ndev));
	return 0;
}

/* -x: the CTA policy to set, as nccl-tests: 0 and 1 from NCCL 2.27, 2
 * from 2.28; -1 (not set) otherwise, which the parent says */
static int cta_policy(const struct rank_state *s)
{
	long long p = s->a->cta_policy;
	if (p < 0 || s->nccl_code < ND_NCCL_VERSION(2, 27, 0) || (p > 1 && s->nccl_code < ND_NCCL_VERSION(2, 28, 0)))
		return -1;
	return (int)p;
}

/* NCCL_TESTS_SPLIT (--split-colors): the communicator of every rank is
 * split by color with the rank as key, the groups nccl-tests' MPI_Comm_split
 * makes, and the benchmark runs on this rank's group. ncclCommSplit (NCCL
 * 2.18) with no config: the group inherits the communicator's. */
static int split_comm(struct rank_state *s)
{
	const struct bench_args *a = s->a;
	char vbuf[32];
	if (!s->nc->ncclCommSplit) {
		br_error(s, "worker", 0, NULL, "NCCL_TESTS_SPLIT needs ncclCommSplit (NCCL 2.18+); NCCL %s has none",
			 nccl_version_text(s->nccl_code, vbuf, sizeof(vbuf)));
		return 1;
	}
	/* the first communicator's lines apart: its transports are not the
	 * group's (--threads: one capture for the process, sent at the end) */
	if (!br_threads_mode)
		br_result(s, json_pack("{s:s,s:b,s:o}", "kind", "nccl_lines", "split_from", 1, "lines", capture_take()));
	br_stage(s, a->init_timeout + 5, "ncclCommSplit");
	s->world = s->comm;
	s->comm = NULL;
	ncclResult_t r = s->nc->ncclCommSplit(s->world, a->colors[s->rank], s->rank, &s->comm, NULL);
	if (r == ncclInProgress && s->comm) {
		if (wait_async(s, a->init_timeout))
			return 1;
	} else if (r != ncclSuccess) {
		return br_nccl_fail(s, "ncclCommSplit", r);
	}
	if ((r = s->nc->ncclCommUserRank(s->comm, &s->crank)) != ncclSuccess ||
	    (r = s->nc->ncclCommCount(s->comm, &s->cranks)) != ncclSuccess)
		return br_nccl_fail(s, "ncclCommCount", r);
	return 0;
}

/* The communicator: nonblocking under the init deadline where NCCL has
 * ncclCommInitRankConfig (2.14), with nccl-tests' config otherwise; plain
 * ncclCommInitRank before 2.14 (the parent's deadline covers it). */
static int init_comm(struct rank_state *s, ncclUniqueId id)
{
	int cta = -1; /* -x: the CTA policy set, -1 none */
	const struct bench_args *a = s->a;
	double t0 = nd_now_s();
	br_stage(s, a->init_timeout + 5, "init");
	ncclResult_t r;
	/* Blocking, as nccl-tests' communicator, unless --comm-nonblocking:
	 * on a nonblocking one every group (a lone collective is one) returns
	 * ncclInProgress and must be polled before the next call; grouped
	 * point-to-point calls paid 170 us per iteration for it on the H200
	 * (8 B sendrecv: 178 us against nccl-tests' 8.5 us, 2026-12-02), and
	 * NCCL 2.2x starts a thread per nonblocking group. The watchdog
	 * (watchdog_arm) ends a call that blocks; grouped point-to-point ops
	 * stay blocking even with --comm-nonblocking. */
	bool grouped_p2p = a->op == BOP_SENDRECV || a->op == BOP_ALLTOALL || a->op == BOP_ALLTOALLV ||
			   a->op == BOP_HYPERCUBE || a->op == BOP_GATHER || a->op == BOP_SCATTER;
	bool nonblocking = s->nc->ncclCommInitRankConfig && a->comm_nonblocking && !grouped_p2p;
	if (s->nc->ncclCommInitRankConfig) {
		ncclConfig_t cfg = ND_NCCL_CONFIG_INIT;
		if (nonblocking)
			cfg.blocking = 0;
		if (s->nccl_code >= ND_NCCL_VERSION(2, 28, 0))
			cfg.nvlinkCentricSched = 1; /* as nccl-tests sets it since 2.28 */
		if ((cta = cta_policy(s)) >= 0)
			cfg.CTAPolicy = cta;
		r = s->nc->ncclCommInitRankConfig(&s->comm, (int)a->nranks, id, s->rank, &cfg);
		if (r == ncclInProgress && s->comm) {
			if (wait_async(s, a->init_timeout))
				return 1;
		} else if (r != ncclSuccess) {
			return br_nccl_fail(s, s->stage, r); /* "init failed: ...", as when polled */
		}
	} else {
		r = s->nc->ncclCommInitRank(&s->comm, (int)a->nranks, id, s->rank);
		if (r != ncclSuccess)
			return br_nccl_fail(s, "ncclCommInitRank", r);
	}
	s->crank = s->rank, s->cranks = (int)a->nranks;
	if (a->ncolors && split_comm(s))
		return 1;
	json_t *init = json_pack("{s:s,s:f,s:b,s:i}", "kind", "init", "init_s", nd_now_s() - t0, "nonblocking", nonblocking,
				 "cta_policy", cta);
	if (br_entry_point(s->nc, a->op))
		json_object_set_new(init, "entry", json_string(br_entry_point(s->nc, a->op)));
	br_result(s, init);
	if (!br_threads_mode) /* threads: the first rank reports the process's lines at the end */
		br_result(s, json_pack("{s:s,s:o}", "kind", "nccl_lines", "lines", capture_take()));
	return 0;
}

/* The check kernels, or the host check when they do not load (reported
 * once per rank: {"kind":"checker"}). */
static void setup_checker(struct rank_state *s)
{
	if (s->a->check <= 0)
		return;
	const char *what = "--host-check";
	CUresult e = CUDA_SUCCESS;
	if (!s->a->host_check) {
		CUdevice dev;
		int sms = 0;
		if (s->cu->cuDeviceGet(&dev, s->device) == CUDA_SUCCESS)
			s->cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
		e = bench_kern_load(&s->kern, s->cu, sms, &what);
	}
	char why[256] = "";
	if (!s->kern.mod && e != CUDA_SUCCESS)
		snprintf(why, sizeof(why), "%s failed: %s %d", what, cuda_error_name(e), e);
	else if (!s->kern.mod)
		snprintf(why, sizeof(why), "%s", what);
	br_result(s, json_pack("{s:s,s:s,s:s}", "kind", "checker", "where", s->kern.mod ? "gpu" : "host", "why", why));
}

/* -R: both buffers registered with the communicator, as nccl-tests does
 * after allocating them: 1 ncclCommRegister, 2 ncclCommWindowRegister
 * (symmetric, NCCL 2.27+; before it local, as nccl-tests falls back).
 * Reports {"kind":"register", "how": "local"|"symmetric", "why"}. */
static int register_buffers(struct rank_state *s)
{
	const struct nccl_api *nc = s->nc;
	long long how = s->a->reg;
	const char *why = "";
	if (!how)
		return 0;
	if (how == 2 && !(nc->ncclCommWindowRegister && nc->ncclCommWindowDeregister))
		how = 1, why = "symmetric registration needs NCCL 2.27 (ncclCommWindowRegister): registered locally";
	if (how == 1 && !(nc->ncclCommRegister && nc->ncclCommDeregister)) {
		br_error(s, "nccl", ncclInvalidUsage, "ncclInvalidUsage",
			"-R needs ncclCommRegister (NCCL 2.19+), which this libnccl lacks");
		return 1;
	}
	CUdeviceptr bufs[2] = { s->sendbuf, s->recvbuf };
	br_stage(s, s->a->init_timeout, "%s of the buffers", how == 2 ? "ncclCommWindowRegister" : "ncclCommRegister");
	for (int i = 0; i < 2; i++) {
		void *p = (void *)(uintptr_t)bufs[i];
		ncclResult_t r = how == 2 ? nc->ncclCommWindowRegister(s->comm, p, s->bufbytes, &s->win[i],
								       ND_NCCL_WIN_COLL_SYMMETRIC)
					  : nc->ncclCommRegister(s->comm, p, s->bufbytes, &s->reg[i]);
		if (r == ncclInProgress && wait_async(s, s->a->init_timeout))
			return 1;
		if (r != ncclSuccess && r != ncclInProgress)
			return br_nccl_fail(s, how == 2 ? "ncclCommWindowRegister" : "ncclCommRegister", r);
	}
	br_result(s, json_pack("{s:s,s:s,s:s}", "kind", "register", "how", how == 2 ? "symmetric" : "local", "why", why));
	return 0;
}

static void deregister_buffers(struct rank_state *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->win[i])
			s->nc->ncclCommWindowDeregister(s->comm, s->win[i]);
		if (s->reg[i])
			s->nc->ncclCommDeregister(s->comm, s->reg[i]);
		s->win[i] = NULL, s->reg[i] = NULL;
	}
}

static int alloc_buffers(struct rank_state *s, size_t *bytes_max)
{
	const struct bench_args *a = s->a;
	size_t maxb = 0, send = 0, recv = 0;
	for (int t = 0; t < a->ntypes; t++)
		for (int i = 0; i < a->nsizes; i++) {
			size_t es = bench_type_size(a->types[t]);
			struct bench_geom g;
			bench_geometry(a->op, (size_t)a->sizes[i] / es, es, s->cranks, &g);
			maxb = (size_t)a->sizes[i] > maxb ? (size_t)a->sizes[i] : maxb;
			send = g.send_count * es > send ? g.send_count * es : send;
			recv = g.recv_count * es > recv ? g.recv_count * es : recv;
		}
	*bytes_max = maxb;
	s->bufbytes = maxb > send ? maxb : send;
	s->bufbytes = recv > s->bufbytes ? recv : s->bufbytes;
	s->bufbytes += 64 + 8 * (size_t)a->unalign; /* -u: room for unalign elements of the largest type */
	CUresult e;
	if (s->nc->ncclMemAlloc && s->nc->ncclMemFree && !a->cuda_alloc) {
		/* as nccl-tests allocates since NCCL 2.19 */
		void *p1 = NULL, *p2 = NULL;
		ncclResult_t r;
		br_stage(s, 0, "ncclMemAlloc %zu bytes", s->bufbytes);
		if ((r = s->nc->ncclMemAlloc(&p1, s->bufbytes)) != ncclSuccess)
			return br_nccl_fail(s, "ncclMemAlloc", r);
		s->nccl_alloc = true;
		s->sendbuf = (CUdeviceptr)(uintptr_t)p1;
		if ((r = s->nc->ncclMemAlloc(&p2, s->bufbytes)) != ncclSuccess)
			return br_nccl_fail(s, "ncclMemAlloc", r);
		s->recvbuf = (CUdeviceptr)(uintptr_t)p2;
	} else {
		br_stage(s, 0, "cuMemAlloc %zu bytes", s->bufbytes);
		if ((e = s->cu->cuMemAlloc(&s->sendbuf, s->bufbytes)) != CUDA_SUCCESS ||
		    (e = s->cu->cuMemAlloc(&s->recvbuf, s->bufbytes)) != CUDA_SUCCESS)
			return br_cu_fail(s, "cuMemAlloc", e);
	}
	setup_checker(s);
	s->hostbytes = s->kern.mod ? 64 : s->bufbytes; /* the host check needs a copy of the result */
	s->host = malloc(s->hostbytes);
	if (!s->host) {
		br_error(s, "worker", ENOMEM, NULL, "cannot allocate %zu bytes of host memory", s->hostbytes);
		return 1;
	}
	if ((e = s->cu->cuMemsetD8(s->sendbuf, 0, s->bufbytes)) != CUDA_SUCCESS ||
	    (e = s->cu->cuMemsetD8(s->recvbuf, 0, s->bufbytes)) != CUDA_SUCCESS || (e = s->cu->cuCtxSynchronize()) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuMemsetD8", e);
	if (a->stream_null) /* -y 1: NULL, the legacy default stream, as nccl-tests */
		return register_buffers(s);
	br_stage(s, 0, "cuStreamCreate");
	if ((e = s->cu->cuStreamCreate(&s->st, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		return br_cu_fail(s, "cuStreamCreate", e);
	return register_buffers(s);
}

/* The deadline of each step of one size: -T (--deadline-coll), longer where
 * the size before it ran slow: ten times what this size should take at the
 * speed measured there. A slow or loaded machine is then not taken for a
 * hang, and a size that stops making progress still ends at -T once the
 * sizes before it were quick. How the time grows with the bytes is read
 * off the two sizes before (time ~ bytes^g, g in [0, 1]): small sizes cost
 * their launch latency whatever their bytes (g near 0), large ones their
 * bytes (g near 1). With one size before, the bytes scale the time (g = 1).
 * Scaling a latency-bound size by its bytes made a loaded machine's 8 KiB
 * cell of 0.75 s a 60 s deadline for 64 KiB (t603, seen once under load). */
static double size_limit(const struct rank_state *s, long long bytes)
{
	double lim = s->a->coll_timeout;
	if (s->prev_bytes > 0 && s->prev_cell_s > 0) {
		double ratio = (double)bytes / (double)s->prev_bytes;
		double g = 1;
		if (s->prev2_bytes > 0 && s->prev2_bytes < s->prev_bytes && s->prev2_cell_s > 0) {
			g = log(s->prev_cell_s / s->prev2_cell_s) / log((double)s->prev_bytes / (double)s->prev2_bytes);
			g = g < 0 ? 0 : g > 1 ? 1 : g;
		}
		double expect = s->prev_cell_s * (ratio > 1 ? pow(ratio, g) : 1);
		if (10 * expect > lim)
			lim = 10 * expect;
	}
	return lim;
}

/* Warm-up right before each row (nccl-tests warms every size first; here a
 * size that hangs leaves the rows before it done and printed). */
static int warm_up(struct rank_state *s, long long bytes, size_t bytes_max)
{
	const struct bench_args *a = s->a;
	if (a->warmup <= 0)
		return 0;
	struct bench_geom g;
	geometry(s, bytes, &g);
	br_stage(s, s->limit + 5, "size %lld of op %s warm-up", bytes, bench_op_info(a->op)->name);
	double end = nd_now_s() + s->limit;
	for (long long it = 0; it < a->warmup; it++)
		if (call(s, &g, bytes_max, false, it, s->limit))
			return 1;
	return wait_stream(s, end, s->limit);
}

/* -u: both buffers start off bytes into their allocation (nccl-tests moves
 * them by unalign elements of the type being run) */
static void unalign(struct rank_state *s, size_t off)
{
	s->sendbuf = s->sendbuf - s->unalign_off + off;
	s->recvbuf = s->recvbuf - s->unalign_off + off;
	s->unalign_off = off;
}

/* Rows in nccl-tests' order: type, reduction, root, cycle, size (row index
 * ((config * cycles) + cycle) * sizes + size, as the parent counts them). */
static int sweep(struct rank_state *s, size_t bytes_max)
{
	const struct bench_args *a = s->a;
	const char *op = bench_op_info(a->op)->name;
	int rep = 1, conf = 0;
	for (int ti = 0; ti < a->ntypes; ti++)
		for (int ri = 0; ri < a->nredops; ri++)
			for (int oi = 0; oi < a->nroots; oi++, conf++) {
				s->type = a->types[ti], s->redop = a->redops[ri], s->root = a->roots[oi];
				s->es = bench_type_size(s->type);
				unalign(s, (size_t)a->unalign * s->es);
				s->prev_bytes = s->prev2_bytes = 0;
				for (long long cyc = 0; cyc < a->cycles; cyc++)
					for (int i = 0; i < a->nsizes; i++) {
						s->limit = size_limit(s, a->sizes[i]);
						if (cyc == 0 && warm_up(s, a->sizes[i], bytes_max))
							return 1;
						int row = (int)((conf * a->cycles + cyc) * a->nsizes + i);
						for (int ip = 0; ip < 2; ip++) {
							br_stage(s, s->limit + 5, "size %lld of op %s %s", a->sizes[i], op,
								ip ? "in-place" : "out-of-place");
							if (run_cell(s, a->sizes[i], bytes_max, ip, row, rep))
								return 1;
							rep += (int)(a->check > 0 ? a->check : 1);
						}
					}
			}
	return 0;
}

static void release_state(struct rank_state *s)
{
	unalign(s, 0); /* what was allocated is freed */
	if (s->comm) {
		deregister_buffers(s);
		br_cleanup_stage(s, "ncclCommDestroy");
		s->nc->ncclCommDestroy(s->comm);
	}
	if (s->world) /* the communicator the group was split from */
		s->nc->ncclCommDestroy(s->world);
	if (s->st)
		s->cu->cuStreamDestroy(s->st);
	bench_kern_unload(&s->kern);
	if (s->nccl_alloc) {
		if (s->sendbuf)
			s->nc->ncclMemFree((void *)(uintptr_t)s->sendbuf);
		if (s->recvbuf)
			s->nc->ncclMemFree((void *)(uintptr_t)s->recvbuf);
	} else {
		if (s->sendbuf)
			s->cu->cuMemFree(s->sendbuf);
		if (s->recvbuf)
			s->cu->cuMemFree(s->recvbuf);
	}
	free(s->host);
	br_watchdog_forget(s);
}

/* The unique id: made here and reported (--id create), or decoded. */
static int get_id(struct rank_state *s, const char *idhex, ncclUniqueId *id)
{
	memset(id, 0, sizeof(*id));
	char hex[2 * NCCL_UNIQUE_ID_BYTES + 1];
	if (strcmp(idhex, "create") == 0) {
		br_stage(s, 0, "ncclGetUniqueId");
		ncclResult_t nr = s->nc->ncclGetUniqueId(id);
		if (nr != ncclSuccess)
			return br_nccl_fail(s, "ncclGetUniqueId", nr);
		gpu_hex_encode(id, sizeof(*id), hex, sizeof(hex));
		if (!br_threads_mode)
			br_result(s, json_pack("{s:s}", "unique_id", hex));
	} else if (gpu_hex_decode(idhex, id, sizeof(*id)) < 0) {
		br_error(s, "worker", 0, NULL, "--id is not %d hex digits", 2 * NCCL_UNIQUE_ID_BYTES);
		return 1;
	}
	return 0;
}

/* One rank from the device to the last row; the caller releases s. */
/* -M: free memory of this rank's GPU (cuMemGetInfo, as nccl-tests'
 * cudaMemGetInfo), 0 where it does not answer */
static long long free_mem(const struct rank_state *s)
{
	size_t fr = 0, total = 0;
	if (!s->a->memory || !s->cu->cuMemGetInfo || s->cu->cuMemGetInfo(&fr, &total) != CUDA_SUCCESS)
		return 0;
	return (long long)fr;
}

static int bench_rank(struct rank_state *s, ncclUniqueId id)
{
	CUdevice dev;
	long long f[4] = { 0 }; /* -M: free before init, after it, after the buffers, after the sweep */
	if (open_device(s, &dev) || ((f[0] = free_mem(s)), init_comm(s, id)))
		return 1;
	size_t bytes_max;
	f[1] = free_mem(s);
	int rc = alloc_buffers(s, &bytes_max);
	f[2] = free_mem(s);
	rc = rc || sweep(s, bytes_max);
	f[3] = free_mem(s);
	if (!rc && s->a->memory) /* nccl-tests' three amounts: Initialization, User-Allocated, Collective */
		br_result(s, json_pack("{s:s,s:I,s:I,s:I}", "kind", "memory", "init", (json_int_t)(f[0] - f[1]), "buffers",
				      (json_int_t)(f[1] - f[2]), "collective", (json_int_t)(f[2] - f[3])));
	if (!br_threads_mode || s->rank == s->a->rank) /* one process, one output: its first rank reports it */
		br_result(s, json_pack("{s:s,s:o}", "kind", "nccl_lines", "lines", capture_take()));
	if (!rc)
		br_result(s, json_pack("{s:s}", "kind", "done"));
	return rc;
}

struct rank_thread {
	struct rank_state s;
	ncclUniqueId id;
	pthread_t thread;
	int rc;
};

static void *rank_thread_main(void *arg)
{
	struct rank_thread *t = arg;
	t->rc = bench_rank(&t->s, t->id);
	release_state(&t->s);
	return NULL;
}

/* --local-ranks K: ranks rank..rank+K-1 as threads of this process. */
static int run_threads(const struct rank_state *proto, ncclUniqueId id)
{
	const struct bench_args *a = proto->a;
	/* the driver once, before the threads (they would all race to it) */
	const struct cuda_api *cu;
	const struct vendor_lib *lib;
	CUresult e;
	wmsg_stage("cuInit");
	if (cuda_load(&cu, &lib) < 0) {
		wmsg_error(VENDOR_LOADER, lib->err, vendor_err_reason(lib->err), "%s", lib->error);
		return 1;
	}
	if ((e = cu->cuInit(0)) != CUDA_SUCCESS) {
		wmsg_error("cuda", e, cuda_error_name(e), "cuInit failed: %s %d", cuda_error_name(e), e);
		return 1;
	}
	struct rank_thread *t = xcalloc((size_t)a->local, sizeof(*t));
	int rc = 0;
	long long started = 0;
	for (long long i = 0; i < a->local; i++) {
		t[i].s = *proto;
		t[i].s.rank = (int)(a->rank + i);
		t[i].s.device = a->devices[i];
		t[i].id = id;
		if (pthread_create(&t[i].thread, NULL, rank_thread_main, &t[i]) != 0) {
			br_error(&t[i].s, "worker", EAGAIN, NULL, "cannot start the thread of rank %d", t[i].s.rank);
			rc = 1;
			break;
		}
		started++;
	}
	for (long long i = 0; i < started; i++) {
		pthread_join(t[i].thread, NULL);
		rc |= t[i].rc;
	}
	free(t);
	return rc;
}

int gpu_task_bench(int argc, char **argv, const char *nccl_path)
{
	static struct bench_args a;
	wmsg_stage("arguments");
	int pr = bench_parse_args(argc, argv, &a);
	if (pr == -2)
		return 1;
	if (pr < 0) {
		wmsg_error("worker", 0, NULL,
			   "bench needs --nranks N --rank R --id HEX|create --op OP --type T --sizes LIST and valid options");
		return 1;
	}
	const char *spread = getenv("NCCL_TESTS_ALLTOALLV_SPREAD"); /* checked by the parent */
	if (spread)
		bench_alltoallv_spread(strtod(spread, NULL));
	struct rank_state s = { .a = &a, .limit = a.coll_timeout, .type = a.types[0], .redop = a.redops[0], .root = a.roots[0],
				.es = bench_type_size(a.types[0]) };
	const struct vendor_lib *lib;
	if (gpu_load_nccl(a.nccl ? a.nccl : nccl_path, &s.nc, &lib))
		return 1;
	s.nccl_code = lib->version;
	s.rank = (int)a.rank;
	s.device = a.ndevices ? a.devices[0] : (int)a.device;
	br_threads_mode = a.local > 1;
	bool captured = capture_start() == 0;
	ncclUniqueId id;
	int rc = get_id(&s, a.idhex, &id);
	if (!rc && br_threads_mode)
		rc = run_threads(&s, id);
	else if (!rc)
		rc = bench_rank(&s, id);
	if (!br_threads_mode)
		release_state(&s);
	if (captured)
		capture_stop();
	return rc;
}
