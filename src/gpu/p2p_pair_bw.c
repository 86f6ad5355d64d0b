/* `p2p-pair --bw`: bandwidth and latency between two GPUs, as
 * p2pBandwidthLatencyTest and nvbandwidth measure them. First with P2P off
 * (peer access not enabled: the driver stages copies through the host),
 * then with it on: copy-engine copies (cuMemcpyPeerAsync) one way and both
 * ways at once, an SM copy (a kernel on the source GPU storing into the
 * peer, nvbandwidth's *_sm columns; both ways too), and latency (4-byte
 * copies). Events
 * time each repetition; the median is reported; GB = 1e9 bytes; each byte is
 * counted once (both-ways bandwidth counts the bytes of both directions). */
#include "gpu/p2p_pair.h"
#include "gpu/wmsg.h"

#include <string.h>

#define LAT_BYTES 4
#define LAT_INNER 50

struct bw_op {
	struct pair_ctx *p;
	int x, y;
	size_t bytes;
	int sm;
};

static CUresult one_way(void *arg, CUstream s)
{
	struct bw_op *o = arg;
	struct pair_ctx *p = o->p;
	if (o->sm)
		return ptx_copy(p->cu, &p->g[o->x].m, p->g[o->y].dst, p->g[o->x].src, o->bytes, s);
	return p->cu->cuMemcpyPeerAsync(p->g[o->y].dst, p->g[o->y].ctx, p->g[o->x].src, p->g[o->x].ctx, o->bytes, s);
}

/* median ms of one repetition of `inner` calls; -1 after an error message */
static double timed(struct pair_ctx *p, struct bw_op *o, int reps, int inner)
{
	double ms[P2P_MAX_REPS];
	CUresult e = p->cu->cuCtxSetCurrent(p->g[o->x].ctx);
	if (e == CUDA_SUCCESS)
		e = p2p_time_op(p->cu, p->g[o->x].s, one_way, o, reps, inner, ms);
	if (e != CUDA_SUCCESS) {
		p2p_cu_fail(p->cu, wmsg_current_stage(), e);
		return -1;
	}
	return p2p_median(ms, reps);
}

/* both directions at once: stream b waits for a's start event, a waits for
 * b's end; the time from start to a's end covers both */
static double timed_bidir(struct pair_ctx *p, int sm)
{
	const struct cuda_api *cu = p->cu;
	CUevent ev[3] = { NULL, NULL, NULL };
	double ms[P2P_MAX_REPS];
	struct bw_op ab = { p, 0, 1, p->bytes, sm }, ba = { p, 1, 0, p->bytes, sm };
	CUstream sa = p->g[0].s, sb = p->g[1].s;
	/* an event is recorded on streams of its own device: 0 and 2 on a, 1 on b */
	CUresult e = CUDA_SUCCESS;
	for (int k = 0; k < 3 && e == CUDA_SUCCESS; k++) {
		e = cu->cuCtxSetCurrent(p->g[k == 1].ctx);
		if (e == CUDA_SUCCESS)
			e = cu->cuEventCreate(&ev[k], CU_EVENT_DEFAULT);
	}
	if (e == CUDA_SUCCESS)
		e = cu->cuCtxSetCurrent(p->g[0].ctx);
	for (int r = 0; r <= p->reps && e == CUDA_SUCCESS; r++) {
		e = cu->cuEventRecord(ev[0], sa);
		if (e == CUDA_SUCCESS)
			e = cu->cuStreamWaitEvent(sb, ev[0], 0);
		for (int k = 0; k < p->inner && e == CUDA_SUCCESS; k++) {
			/* a kernel launches in its own GPU's context */
			if (sm)
				e = cu->cuCtxSetCurrent(p->g[0].ctx);
			if (e == CUDA_SUCCESS)
				e = one_way(&ab, sa);
			if (e == CUDA_SUCCESS && sm)
				e = cu->cuCtxSetCurrent(p->g[1].ctx);
			if (e == CUDA_SUCCESS)
				e = one_way(&ba, sb);
		}
		if (e == CUDA_SUCCESS)
			e = cu->cuCtxSetCurrent(p->g[0].ctx);
		if (e == CUDA_SUCCESS)
			e = cu->cuEventRecord(ev[1], sb);
		if (e == CUDA_SUCCESS)
			e = cu->cuStreamWaitEvent(sa, ev[1], 0);
		if (e == CUDA_SUCCESS)
			e = cu->cuEventRecord(ev[2], sa);
		if (e == CUDA_SUCCESS)
			e = cu->cuEventSynchronize(ev[2]);
		float f = 0;
		if (e == CUDA_SUCCESS)
			e = cu->cuEventElapsedTime(&f, ev[0], ev[2]);
		if (r > 0) /* the first is a warm-up */
			ms[r - 1] = f;
	}
	for (int k = 0; k < 3; k++)
		if (ev[k])
			cu->cuEventDestroy(ev[k]);
	if (e != CUDA_SUCCESS) {
		p2p_cu_fail(cu, wmsg_current_stage(), e);
		return -1;
	}
	return p2p_median(ms, p->reps);
}

/* one pass (P2P off or on) over both directions into res[dir] */
static int pass(struct pair_ctx *p, bool on, json_t *res[2], json_t *bidir)
{
	const char *sfx = on ? "" : "_nop2p";
	char key[64];
	double budget = 10 + 4.0 * (double)p->bytes * p->inner * (p->reps + 1) / 1e9;
	for (int x = 0; x < 2; x++) {
		int y = 1 - x;
		struct bw_op o = { p, x, y, p->bytes, 0 };
		wmsg_stage_budget(budget, "%d->%d bandwidth, copy engine, P2P %s", p->g[x].ordinal, p->g[y].ordinal,
				  on ? "on" : "off");
		double ms = timed(p, &o, p->reps, p->inner);
		if (ms < 0)
			return 1;
		snprintf(key, sizeof(key), "ce%s_gbs", sfx);
		json_object_set_new(res[x], key, json_real(p2p_gbs(p->bytes, p->inner, ms)));
		if (on && p->peer_on[x]) {
			o.sm = 1;
			wmsg_stage_budget(budget, "%d->%d bandwidth, SM stores", p->g[x].ordinal, p->g[y].ordinal);
			if ((ms = timed(p, &o, p->reps, p->inner)) < 0)
				return 1;
			json_object_set_new(res[x], "sm_gbs", json_real(p2p_gbs(p->bytes, p->inner, ms)));
			o.sm = 0;
		}
		o.bytes = LAT_BYTES;
		wmsg_stage_budget(budget, "%d->%d latency, P2P %s", p->g[x].ordinal, p->g[y].ordinal, on ? "on" : "off");
		if ((ms = timed(p, &o, p->reps, LAT_INNER)) < 0)
			return 1;
		snprintf(key, sizeof(key), "latency%s_us", sfx);
		json_object_set_new(res[x], key, json_real(ms * 1e3 / LAT_INNER));
	}
	wmsg_stage_budget(budget, "%d<->%d bandwidth both ways, P2P %s", p->g[0].ordinal, p->g[1].ordinal, on ? "on" : "off");
	double ms = timed_bidir(p, 0);
	if (ms < 0)
		return 1;
	snprintf(key, sizeof(key), "ce%s_gbs", sfx);
	json_object_set_new(bidir, key, json_real(p2p_gbs(2 * p->bytes, p->inner, ms)));
	if (on && p->peer_on[0] && p->peer_on[1]) {
		wmsg_stage_budget(budget, "%d<->%d bandwidth both ways, SM stores", p->g[0].ordinal, p->g[1].ordinal);
		if ((ms = timed_bidir(p, 1)) < 0)
			return 1;
		json_object_set_new(bidir, "sm_gbs", json_real(p2p_gbs(2 * p->bytes, p->inner, ms)));
	}
	return 0;
}

int pair_bandwidth(struct pair_ctx *p)
{
	json_t *res[2], *bidir = json_pack("{s:s,s:i,s:i,s:I}", "step", "bandwidth_bidir", "a", p->g[0].ordinal, "b",
					   p->g[1].ordinal, "bytes", (json_int_t)p->bytes);
	for (int x = 0; x < 2; x++)
		res[x] = json_pack("{s:s,s:i,s:i,s:I,s:i,s:i}", "step", "bandwidth", "src", p->g[x].ordinal, "dst",
				   p->g[1 - x].ordinal, "bytes", (json_int_t)p->bytes, "reps", p->reps, "inner", p->inner);
	int rc = 1;
	if (pass(p, false, res, bidir))
		goto out;
	bool any = p->can[0] || p->can[1];
	if (any && (pair_enable_peer(p) || pass(p, true, res, bidir)))
		goto out;
	for (int x = 0; x < 2; x++) {
		json_object_set_new(res[x], "p2p", json_boolean(p->peer_on[x]));
		wmsg_result(json_incref(res[x]));
	}
	wmsg_result(json_incref(bidir));
	wmsg_stage("done");
	wmsg_result(json_pack("{s:s}", "step", "done"));
	rc = 0;
out:
	json_decref(res[0]);
	json_decref(res[1]);
	json_decref(bidir);
	return rc;
}
