/* watch: NCCL RAS's MONITOR stream (NCCL 2.29+), followed during the whole
 * run (implemented in engine/watch_nccl.c beside the STATUS query at a stall;
 * the client and the protocol are in probe/ras.h). The watch loop calls
 * wras_tick each tick; each diagnosis calls wras_add. */
#ifndef ND_ENGINE_WATCH_RAS_H
#define ND_ENGINE_WATCH_RAS_H
#include "analyze/nccllog.h"
#include "model/result.h"
#include "probe/ras.h"

#include <stdbool.h>
#include <stdio.h>

/* ---- NCCL RAS's MONITOR stream (watch_nccl.c) ---- */
#define WRAS_MAX_DEAD 8        /* dead peers kept (all are counted) */
#define WRAS_MAX_KEPT 16       /* the latest other noteworthy events kept */

enum wras_state {
	WRAS_WAIT,     /* no NCCL in the job yet */
	WRAS_NO,       /* not for this job (NCCL before 2.29, RAS off): why */
	WRAS_TRY,      /* connecting, or waiting to retry */
	WRAS_FOLLOW,   /* reading events */
	WRAS_GAVE_UP,  /* never answered, or not a RAS monitor: why */
};

struct wras_dead {
	struct ras_event ev;
	double t;                 /* seconds after the start it arrived */
	int rank;                 /* the rank the logs give that local pid, -1 */
};

struct watch_ras {
	enum wras_state state;
	struct ras_monitor m;
	char host[256];
	unsigned port;
	char version[48];         /* the job's NCCL */
	char why[300];
	double t0, t_now, t_check, t_maps, t_next_try, backoff, t_init_done, t_follow;
	int attempts, follows, lost, early_closes, last_err;
	const struct nccllog *lg; /* while a tick runs: ranks of local pids */
	FILE *say;                /* a dead peer is said here at once; NULL: silent */
	struct wras_dead dead[WRAS_MAX_DEAD];
	int ndead;                /* distinct dead peers (more than kept) */
	struct ras_event kept[WRAS_MAX_KEPT]; /* trouble and recovery, a ring */
	double kept_t[WRAS_MAX_KEPT];
	int nkept;                /* how many ever entered the ring */
	unsigned long long nevents, ntrouble, nrecovered, nnew;
};

void wras_init(struct watch_ras *wr, double t0);
/* Each tick of the watch loop, without blocking: once a job process shows
 * NCCL 2.29 or newer (its log's version, else the libnccl it mapped) with
 * RAS on, connects to its NCCL_RAS_ADDR (retrying with back-off while
 * nobody listens; giving up quietly when the job's init completed and still
 * nobody answers), then reads the events that arrived. A dead peer is said
 * on say at once (NULL: not). */
void wras_tick(struct watch_ras *wr, const struct nccllog *lg, int job_pid, double now, FILE *say);
/* The monitor's state and events into the "ras" section; a dead peer is
 * WATCH_RAS_PEER_DEAD (at a stall and at exit). */
void wras_add(const struct watch_ras *wr, struct result *r, double now);
/* Dead peers reported so far. */
int wras_dead(const struct watch_ras *wr);
void wras_release(struct watch_ras *wr);

#endif
