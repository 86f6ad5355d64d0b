/* Choosing and ordering the configurations `fix` tries (analyze/fix_candidates.h). */
#include "analyze/fix_candidates.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

/* The NCCL_P2P_LEVEL that admits pair (i, j); LINK_UNKNOWN when none. */
static enum link_class level_at(const struct fixc_input *in, int i, int j)
{
	return i == j ? LINK_UNKNOWN : link_nccl_level(in->link[i][j]);
}

enum link_class fixc_safe_level(const struct fixc_input *in)
{
	/* the narrowest level of any broken pair, and whether a narrower level keeps all working */
	enum link_class min_broken = LINK_UNKNOWN;
	for (int i = 0; i < in->ngpus; i++)
		for (int j = 0; j < in->ngpus; j++) {
			enum link_class l = level_at(in, i, j);
			if (in->pair[i][j] == FIXC_PAIR_BROKEN && l != LINK_UNKNOWN &&
			    (min_broken == LINK_UNKNOWN || l < min_broken))
				min_broken = l;
		}
	if (min_broken == LINK_UNKNOWN || min_broken == LINK_NV)
		return LINK_UNKNOWN;
	/* the widest level present below every broken pair: the level that names
	 * what keeps P2P (PIX on a machine of PIX and PHB pairs, not PXB) */
	enum link_class lvl = LINK_UNKNOWN;
	for (int i = 0; i < in->ngpus; i++)
		for (int j = 0; j < in->ngpus; j++) {
			enum link_class l = level_at(in, i, j);
			if (l != LINK_UNKNOWN && l < min_broken && l > lvl)
				lvl = l;
		}
	return lvl;
}

/* Share of pairs that keep P2P under a level: a rough measure of the speed kept. */
static double p2p_share(const struct fixc_input *in, enum link_class lvl)
{
	int kept = 0, all = 0;
	for (int i = 0; i < in->ngpus; i++)
		for (int j = 0; j < in->ngpus; j++)
			if (level_at(in, i, j) != LINK_UNKNOWN) {
				all++;
				kept += level_at(in, i, j) <= lvl;
			}
	return all ? (double)kept / all : 0;
}

static struct fix_candidate *add(struct fix_candidate *out, int *n, const char *name, double expected, const char *why)
{
	if (*n >= FIXC_MAX)
		return NULL;
	struct fix_candidate *c = &out[(*n)++];
	memset(c, 0, sizeof(*c));
	str_copy(c->name, name, sizeof(c->name));
	c->expected = expected;
	c->why = why;
	return c;
}

static void setenv_c(struct fix_candidate *c, const char *name, const char *value)
{
	if (!c || c->nenv >= FIXC_MAX_ENV)
		return;
	c->env[c->nenv].name = name;
	str_copy(c->env[c->nenv].value, value, sizeof(c->env[0].value));
	c->nenv++;
}

int fixc_candidates(const struct fixc_input *in, struct fix_candidate *out)
{
	int n = 0;
	struct fix_candidate *c;
	add(out, &n, "as given", 1.0, "the environment as it is");
	/* a variable of the user's that NCCL's own words point at: NCCL's
	 * defaults instead of it are as fast as a healthy machine */
	for (int i = 0; i < in->nimplicated && i < FIXC_MAX_USER; i++) {
		char name[64];
		snprintf(name, sizeof(name), "unset %.56s", in->implicated[i]);
		c = add(out, &n, name, 1.0, "the environment as given without a variable of yours that NCCL's output implicates");
		if (c)
			c->unset[c->nunset++] = in->implicated[i];
	}
	if (in->nvls_evidence) {
		c = add(out, &n, "NCCL_NVLS_ENABLE=0", 0.95, "NVLS (NVLink SHARP) or the fabric manager failed: keep NVLink, drop multicast");
		setenv_c(c, "NCCL_NVLS_ENABLE", "0");
	}
	if (in->cumem_evidence) {
		c = add(out, &n, "NCCL_CUMEM_ENABLE=0", 0.99,
			"cuMem/IPC handle sharing can fail (containers, old drivers): same transports through legacy CUDA IPC");
		setenv_c(c, "NCCL_CUMEM_ENABLE", "0");
	}
	enum link_class lvl = fixc_safe_level(in);
	if (lvl != LINK_UNKNOWN) {
		char name[64];
		snprintf(name, sizeof(name), "NCCL_P2P_LEVEL=%s", link_nccl_level_name(lvl));
		/* pairs off P2P go through SHM, about a third of P2P's bandwidth */
		double share = p2p_share(in, lvl);
		c = add(out, &n, name, 0.35 + 0.6 * share, "P2P only on the links that worked in the p2p test; the others through SHM");
		setenv_c(c, "NCCL_P2P_LEVEL", link_nccl_level_name(lvl));
		if (c) {
			c->needs_shm = true;
			c->avoids_p2p_faults = true;
		}
	}
	c = add(out, &n, "NCCL_P2P_DISABLE=1", 0.35, "no GPU peer access: every intra-node link through /dev/shm (SHM)");
	setenv_c(c, "NCCL_P2P_DISABLE", "1");
	if (c) {
		c->p2p_off = true;
		c->needs_shm = true;
		c->avoids_p2p_faults = true;
	}
	c = add(out, &n, "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1", 0.08,
		"neither P2P nor SHM: ranks talk through the network stack (sockets over loopback on one node)");
	setenv_c(c, "NCCL_P2P_DISABLE", "1");
	setenv_c(c, "NCCL_SHM_DISABLE", "1");
	if (c) {
		c->p2p_off = true;
		c->avoids_p2p_faults = true;
	}
	if (in->bootstrap_failed) {
		/* interface names are at most 15 bytes (IFNAMSIZ) */
		if (in->good_ifname && *in->good_ifname && strlen(in->good_ifname) < 16) {
			char v[20], name[48];
			snprintf(v, sizeof(v), "=%s", in->good_ifname);
			snprintf(name, sizeof(name), "NCCL_SOCKET_IFNAME=%s", v);
			c = add(out, &n, name, 1.0, "bootstrap failed: pin the interface that reaches the other ranks");
			setenv_c(c, "NCCL_SOCKET_IFNAME", v);
		}
		if (in->multi_node) {
			c = add(out, &n, "NCCL_IB_DISABLE=1", 0.3, "InfiniBand/RoCE set-up failed: TCP sockets between nodes");
			setenv_c(c, "NCCL_IB_DISABLE", "1");
		}
	}
	/* the last resort: none of the user's NCCL_* and CUDA_* variables */
	if (in->failed && in->nuser_vars > 0 && (in->nuser_vars > 1 || in->nimplicated == 0)) {
		c = add(out, &n, "unset every NCCL_*/CUDA_* of yours", 1.0,
			"the last resort: NCCL's defaults, none of the NCCL_* and CUDA_* variables you set");
		for (int i = 0; c && i < in->nuser_vars && i < FIXC_MAX_USER; i++)
			c->unset[c->nunset++] = in->user_vars[i];
		if (c)
			c->last = true;
	}
	/* a candidate that needs SHM cannot pass while /dev/shm is too small:
	 * it stays in the list (the table shows why it failed) but goes last */
	for (int i = 0; i < n; i++)
		if (in->shm_small && out[i].needs_shm)
			out[i].expected *= 0.01;
	/* fastest first; insertion sort keeps ties in the order added */
	for (int i = 1; i < n; i++) {
		struct fix_candidate t = out[i];
		int j = i;
		for (; j > 0 && ((out[j - 1].last && !t.last) || (out[j - 1].last == t.last && out[j - 1].expected < t.expected)); j--)
			out[j] = out[j - 1];
		out[j] = t;
	}
	return n;
}
