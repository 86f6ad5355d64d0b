/* The status rules of `p2p` (see p2p.h): link classes, expected bandwidth,
 * the round-robin schedule, and the mapping from what a worker reported to
 * a pair's status. */
#include "analyze/p2p.h"
#include "util/text.h"
#include "util/jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *p2p_status_name(enum p2p_status s)
{
	static const char *names[] = { "OK", "NO_P2P", "SLOW", "ERROR", "CORRUPT", "HANG", "SKIPPED", "VOID" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

double p2p_pcie_lane_gbs(int gen)
{
	/* GT/s x line coding / 8 bits: 8b/10b for gen 1-2, 128b/130b for 3-5;
	 * gen 6 (PAM4, FLIT) counted at 64 GT/s x 242/256 */
	switch (gen) {
	case 1: return 2.5 * 0.8 / 8;
	case 2: return 5.0 * 0.8 / 8;
	case 3: return 8.0 * 128 / 130 / 8;
	case 4: return 16.0 * 128 / 130 / 8;
	case 5: return 32.0 * 128 / 130 / 8;
	case 6: return 64.0 * 242 / 256 / 8;
	default: return 0;
	}
}

double p2p_expected_gbs(const struct link *l, int cc_major, int pcie_gen, int pcie_width, bool p2p)
{
	if (l->cls == LINK_NV && p2p) {
		double per_link = cc_major >= 10 ? 50 : cc_major >= 7 ? 25 : 0;
		return l->nvlinks * per_link * 0.8;
	}
	double pcie = p2p_pcie_lane_gbs(pcie_gen) * pcie_width * 0.8;
	if (l->cls == LINK_UNKNOWN && !p2p)
		return pcie / 2;
	return p2p ? pcie : pcie / 2;
}

int p2p_schedule(int n, int (*pairs)[2], int *round, int max)
{
	if (n < 2)
		return 0;
	int m = n % 2 ? n + 1 : n; /* with a bye when odd */
	int pos[P2P_MAX_GPUS + 1];
	if (m > P2P_MAX_GPUS)
		return 0;
	for (int i = 0; i < m; i++)
		pos[i] = i;
	int k = 0;
	for (int r = 0; r < m - 1; r++) {
		for (int i = 0; i < m / 2; i++) {
			int a = pos[i], b = pos[m - 1 - i];
			if (a >= n || b >= n || k >= max)
				continue;
			pairs[k][0] = a < b ? a : b;
			pairs[k][1] = a < b ? b : a;
			round[k++] = r;
		}
		/* rotate all but the first */
		int last = pos[m - 1];
		for (int i = m - 1; i > 1; i--)
			pos[i] = pos[i - 1];
		pos[1] = last;
	}
	return k;
}

void p2p_result_init(struct p2p_result *r, int src, int dst)
{
	memset(r, 0, sizeof(*r));
	r->src = src;
	r->dst = dst;
	r->status = P2P_OK;
	r->bad_offset = -1;
	r->can_access = -1;
	r->nccl = -1;
}

void p2p_result_raise(struct p2p_result *r, enum p2p_status s, const char *step)
{
	if (s <= r->status && !(r->status == P2P_OK && s == P2P_OK))
		return;
	r->status = s;
	str_copy(r->step, step ? step : "", sizeof(r->step));
}

static void worker_failed(struct p2p_result *r, enum worker_status ws, const char *stage, json_t *error, int signal,
			  const char *prefix)
{
	char step[160];
	snprintf(step, sizeof(step), "%s%s", prefix, stage && *stage ? stage : "start");
	if (ws == WORKER_HANG) {
		p2p_result_raise(r, P2P_HANG, step);
		return;
	}
	if (ws == WORKER_CRASH)
		snprintf(r->error, sizeof(r->error), "signal %d", signal);
	else if (error && *json_get_str(error, "name"))
		snprintf(r->error, sizeof(r->error), "%s", json_get_str(error, "name"));
	else if (error)
		snprintf(r->error, sizeof(r->error), "%.90s", json_get_str(error, "message"));
	else
		snprintf(r->error, sizeof(r->error), "worker failed");
	p2p_result_raise(r, P2P_ERROR, step);
}

void p2p_apply_pair_worker(struct p2p_result *r, enum worker_status ws, json_t *results, const char *stage,
			   json_t *error, int signal)
{
	size_t i;
	json_t *o;
	bool ce_seen = false;
	json_array_foreach(results, i, o) {
		const char *step = json_get_str(o, "step");
		if (strcmp(step, "capability") == 0) {
			json_t *d = json_object_get(o, "a_to_b");
			json_t *c = json_object_get(d, "can_access_peer");
			r->can_access = json_is_boolean(c) ? json_is_true(c) : -1;
			continue;
		}
		bool is_ce = strcmp(step, "ce") == 0, is_sm = strcmp(step, "sm_write") == 0 || strcmp(step, "sm_read") == 0;
		if (!is_ce && !is_sm)
			continue;
		bool ok = json_is_true(json_object_get(o, "ok"));
		if (is_ce) {
			ce_seen = true;
			r->ce_ok = ok;
			snprintf(r->path, sizeof(r->path), "%s", json_get_str(o, "path"));
		} else {
			r->sm_ok = (r->sm_tested ? r->sm_ok : true) && ok;
			r->sm_tested = true;
		}
		if (!ok && r->status < P2P_CORRUPT) {
			json_t *off = json_object_get(o, "first_bad_offset");
			r->bad_offset = json_is_integer(off) ? json_integer_value(off) : -1;
			char s[64];
			snprintf(s, sizeof(s), "%s %d->%d", is_ce ? "ce copy" : strcmp(step, "sm_write") == 0 ? "sm write" : "sm read",
				 r->src, r->dst);
			p2p_result_raise(r, P2P_CORRUPT, s);
		}
	}
	if (ws != WORKER_OK) {
		worker_failed(r, ws, stage, error, signal, "");
		return;
	}
	if (!ce_seen) {
		snprintf(r->error, sizeof(r->error), "no copy result");
		p2p_result_raise(r, P2P_ERROR, stage);
		return;
	}
	if (r->can_access == 0)
		p2p_result_raise(r, P2P_NO_P2P, "capability");
}

void p2p_apply_nccl(struct p2p_result *recv, struct p2p_result *send, enum worker_status ws, json_t *result,
		    const char *stage, json_t *error, int signal)
{
	if (ws != WORKER_OK) {
		recv->nccl = 0;
		worker_failed(recv, ws, stage, error, signal, "nccl ");
		if (send) {
			send->nccl = 0;
			worker_failed(send, ws, stage, error, signal, "nccl ");
		}
		return;
	}
	bool ok = json_is_true(json_object_get(result, "ok"));
	if (recv->nccl != 0)
		recv->nccl = ok;
	if (!ok) {
		json_t *off = json_object_get(result, "first_bad_offset");
		if (recv->status < P2P_CORRUPT)
			recv->bad_offset = json_is_integer(off) ? json_integer_value(off) : -1;
		p2p_result_raise(recv, P2P_CORRUPT, "nccl ncclSend/ncclRecv");
	}
}

static double jreal(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0;
}

void p2p_apply_bandwidth(struct p2p_result *ab, struct p2p_result *ba, json_t *results)
{
	size_t i;
	json_t *o;
	json_array_foreach(results, i, o) {
		const char *step = json_get_str(o, "step");
		if (strcmp(step, "bandwidth_bidir") == 0) {
			ab->bidir_gbs = ba->bidir_gbs = jreal(o, "ce_gbs");
			ab->bidir_nop2p_gbs = ba->bidir_nop2p_gbs = jreal(o, "ce_nop2p_gbs");
			ab->sm_bidir_gbs = ba->sm_bidir_gbs = jreal(o, "sm_gbs");
			continue;
		}
		if (strcmp(step, "bandwidth") != 0)
			continue;
		json_int_t src = json_integer_value(json_object_get(o, "src"));
		struct p2p_result *r = src == ab->src ? ab : src == ba->src ? ba : NULL;
		if (!r)
			continue;
		r->ce_gbs = jreal(o, "ce_gbs");
		r->ce_nop2p_gbs = jreal(o, "ce_nop2p_gbs");
		r->sm_gbs = jreal(o, "sm_gbs");
		r->lat_us = jreal(o, "latency_us");
		r->lat_nop2p_us = jreal(o, "latency_nop2p_us");
	}
}

void p2p_judge_speed(struct p2p_result *r, double expected)
{
	r->expected_gbs = expected;
	double got = r->ce_gbs > 0 ? r->ce_gbs : r->ce_nop2p_gbs;
	if (expected <= 0 || got <= 0)
		return;
	r->ratio = got / expected;
	if (r->ratio < P2P_SLOW_RATIO) {
		char s[96];
		snprintf(s, sizeof(s), "bandwidth %.1f GB/s of %.1f expected", got, expected);
		p2p_result_raise(r, P2P_SLOW, s);
	}
}

void p2p_path_between(const struct pci_list *l, const struct pci_dev *a, const struct pci_dev *b, struct p2p_path *out)
{
	memset(out, 0, sizeof(*out));
	const struct pci_dev *pa[32], *pb[32];
	int na = pci_path_to_root(l, a, pa, 32), nb = pci_path_to_root(l, b, pb, 32);
	int k = 0; /* shared bridges from the root down */
	while (k < na && k < nb && pa[na - 1 - k] == pb[nb - 1 - k])
		k++;
	out->same_root = k > 0;
	for (int i = 0; i < na - k && out->n < 31; i++)
		out->bridges[out->n++] = pa[i];
	for (int i = nb - k - 1; i >= 0 && out->n < 31; i--)
		out->bridges[out->n++] = pb[i];
	if (k > 0) /* the common ancestor switches the traffic: its ACS matters */
		out->bridges[out->n++] = pa[na - k];
	for (int i = 0; i < out->n; i++) {
		const struct pci_dev *d = out->bridges[i];
		if (d->acs == ACS_PRESENT && (d->acs_ctrl & ACS_REDIRECT_BITS))
			out->redirect++;
		else if (d->acs == ACS_UNKNOWN_NEEDS_ROOT || d->acs == ACS_UNREADABLE)
			out->unknown++;
	}
}
