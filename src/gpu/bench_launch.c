/* The NCCL calls of each bench operation (bench_rank.h): the collectives,
 * NCCL 2.28's alltoall, gather and scatter where the library has them, and
 * grouped send/recv as nccl-tests builds the others. */
#include "gpu/bench_rank.h"

#include <stdint.h>

static bool ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

/* Inside a group: sends scount elements to peer and receives rcount from it
 * (a count of 0 or a NULL buffer: that side is skipped); peer -1 is the
 * ring of sendrecv (send to rank+1, receive from rank-1). */
static ncclResult_t p2p(const struct rank_state *s, const char *send, size_t scount, char *recv, size_t rcount, int peer)
{
	const struct nccl_api *nc = s->nc;
	int t = bench_type_nccl(s->type), n = s->cranks;
	int to = peer < 0 ? (s->crank + 1) % n : peer, from = peer < 0 ? (s->crank - 1 + n) % n : peer;
	ncclResult_t res = ncclSuccess;
	if (send && scount)
		res = nc->ncclSend(send, scount, t, to, s->comm, s->st);
	if (recv && rcount && ok(res))
		res = nc->ncclRecv(recv, rcount, t, from, s->comm, s->st);
	return res;
}

/* Ends a group opened for p2p calls; the first failure wins. */
static ncclResult_t group_end(const struct nccl_api *nc, ncclResult_t res)
{
	ncclResult_t r2 = nc->ncclGroupEnd();
	return res != ncclSuccess ? res : r2;
}

/* The NCCL call an op with a choice runs as: the library's own collective
 * where it has one (bench_native_call: NCCL 2.28+), else grouped
 * ncclSend/ncclRecv, as nccl-tests falls back; NULL for the other ops. */
const char *br_entry_point(const struct nccl_api *nc, int op)
{
	const char *native = bench_native_call(op);
	bool has = (op == BOP_ALLTOALL && nc->ncclAlltoAll) || (op == BOP_GATHER && nc->ncclGather) ||
		   (op == BOP_SCATTER && nc->ncclScatter);
	if (!native)
		return NULL;
	return has ? native : "ncclSend/ncclRecv";
}

/* One call of the operation at iteration iter (the buffer offset moves with
 * it, as nccl-tests' startColl does). */
ncclResult_t br_launch(struct rank_state *s, const struct bench_geom *g, size_t bytes_max, bool inplace, long long iter)
{
	const struct bench_args *a = s->a;
	const struct nccl_api *nc = s->nc;
	size_t es = s->es, total = (g->send_count > g->recv_count ? g->send_count : g->recv_count) * es;
	size_t steps = total ? bytes_max / total : 1;
	size_t shift = steps ? total * (size_t)(iter % (long long)steps) : 0;
	char *recv = (char *)(uintptr_t)s->recvbuf + shift;
	char *send = inplace ? recv + g->send_inplace_off * (size_t)s->crank * es : (char *)(uintptr_t)s->sendbuf + shift;
	recv += inplace ? g->recv_inplace_off * (size_t)s->crank * es : 0;
	int t = bench_type_nccl(s->type), op = bench_redop_nccl(s->redop), n = s->cranks, r = s->crank;
	size_t cnt = g->param_count;
	ncclResult_t res = ncclSuccess;
	switch (a->op) {
	case BOP_ALL_REDUCE: return nc->ncclAllReduce(send, recv, cnt, t, op, s->comm, s->st);
	case BOP_ALL_GATHER: return nc->ncclAllGather(send, recv, cnt, t, s->comm, s->st);
	case BOP_REDUCE_SCATTER: return nc->ncclReduceScatter(send, recv, cnt, t, op, s->comm, s->st);
	case BOP_BROADCAST: return nc->ncclBroadcast(send, recv, cnt, t, s->root, s->comm, s->st);
	case BOP_REDUCE: return nc->ncclReduce(send, recv, cnt, t, op, s->root, s->comm, s->st);
	case BOP_SENDRECV:
		if ((res = nc->ncclGroupStart()) != ncclSuccess)
			return res;
		res = p2p(s, send, cnt, recv, cnt, -1);
		return group_end(nc, res);
	case BOP_ALLTOALL:
		if (nc->ncclAlltoAll)
			return nc->ncclAlltoAll(send, recv, cnt, t, s->comm, s->st);
		if ((res = nc->ncclGroupStart()) != ncclSuccess)
			return res;
		for (int p = 0; p < n && ok(res); p++)
			res = p2p(s, send + (size_t)p * cnt * es, cnt, recv + (size_t)p * cnt * es, cnt, p);
		return group_end(nc, res);
	case BOP_GATHER:
		if (nc->ncclGather)
			return nc->ncclGather(send, recv, cnt, t, s->root, s->comm, s->st);
		if (!cnt || (res = nc->ncclGroupStart()) != ncclSuccess)
			return res;
		res = p2p(s, send, cnt, NULL, 0, s->root);
		for (int p = 0; r == s->root && p < n && ok(res); p++)
			res = p2p(s, NULL, 0, recv + (size_t)p * cnt * es, cnt, p);
		return group_end(nc, res);
	case BOP_SCATTER:
		if (nc->ncclScatter)
			return nc->ncclScatter(send, recv, cnt, t, s->root, s->comm, s->st);
		if (!cnt || (res = nc->ncclGroupStart()) != ncclSuccess)
			return res;
		for (int p = 0; r == s->root && p < n && ok(res); p++)
			res = p2p(s, send + (size_t)p * cnt * es, cnt, NULL, 0, p);
		if (ok(res))
			res = p2p(s, NULL, 0, recv, cnt, s->root);
		return group_end(nc, res);
	case BOP_ALLTOALLV: { /* each peer its share of the pattern, packed in rank order */
		size_t all = cnt * (size_t)n * es;
		if ((res = nc->ncclGroupStart()) != ncclSuccess)
			return res;
		for (int p = 0; p < n && ok(res); p++) {
			size_t sc = bench_alltoallv_bytes(r, p, n, all) / es, rc = bench_alltoallv_bytes(p, r, n, all) / es;
			res = p2p(s, send, sc, recv, rc, p);
			send += sc * es;
			recv += rc * es;
		}
		return group_end(nc, res);
	}
	case BOP_HYPERCUBE: { /* an all-gather by recursive doubling, as nccl-tests' hypercube.cu */
		size_t chunk = cnt * es;
		char *own = recv + (size_t)r * chunk; /* in place: the send pointer */
		CUresult e;
		if (own != send && chunk &&
		    (e = s->cu->cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)own, (CUdeviceptr)(uintptr_t)send, chunk, s->st)) != CUDA_SUCCESS)
			return ncclUnhandledCudaError;
		for (int mask = 1; mask < n && ok(res); mask <<= 1) {
			int lo = r & ~(mask - 1), peer = r ^ mask;
			if ((res = nc->ncclGroupStart()) != ncclSuccess)
				return res;
			res = p2p(s, recv + (size_t)lo * chunk, cnt * (size_t)mask, recv + (size_t)(lo ^ mask) * chunk,
				  cnt * (size_t)mask, peer);
			res = group_end(nc, res);
		}
		return res;
	}
	}
	return ncclInvalidArgument;
}

