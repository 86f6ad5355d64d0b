/* One worker per NCCL rank (see ranks.h). */
#include "run/ranks.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ARGS (16 + RANKS_MAX_TASK_ARGS)

struct rank_args {
	char nranks[16], rank[16], device[16], count[24];
	const char *argv[MAX_ARGS];
};

static void build_args(struct rank_args *a, const struct ranks_spec *s, int rank, const char *id)
{
	int n = 0;
	snprintf(a->nranks, sizeof(a->nranks), "%d", s->nranks);
	snprintf(a->rank, sizeof(a->rank), "%d", rank);
	snprintf(a->device, sizeof(a->device), "%d", s->devices ? s->devices[rank] : rank);
	snprintf(a->count, sizeof(a->count), "%lld", s->count > 0 ? s->count : 1LL << 20);
	a->argv[n++] = "--nranks";
	a->argv[n++] = a->nranks;
	a->argv[n++] = "--rank";
	a->argv[n++] = a->rank;
	a->argv[n++] = "--device";
	a->argv[n++] = a->device;
	a->argv[n++] = "--count";
	a->argv[n++] = a->count;
	a->argv[n++] = "--id";
	a->argv[n++] = id;
	if (s->nccl) {
		a->argv[n++] = "--nccl";
		a->argv[n++] = s->nccl;
	}
	for (int k = 0; s->task_args && s->task_args[k] && k < RANKS_MAX_TASK_ARGS; k++)
		a->argv[n++] = s->task_args[k];
	a->argv[n] = NULL;
}

static struct worker_spec make_spec(const struct ranks_spec *s, const struct rank_args *a, double deadline)
{
	struct worker_spec ws = {
		.task = s->task ? s->task : "nccl-init",
		.args = a->argv,
		.env = s->env,
		.deadline = deadline,
		.stage_deadline = s->stage_deadline,
		.grace = s->grace,
		.exe = s->exe,
	};
	return ws;
}

int ranks_run(const struct ranks_spec *spec, struct worker *ws)
{
	int n = spec->nranks;
	int started = spec->started > 0 && spec->started < n ? spec->started : n;
	double deadline = spec->deadline > 0 ? spec->deadline : 60;
	for (int i = 0; i < n; i++)
		worker_init(&ws[i]);
	if (n < 1 || n > 64)
		return -EINVAL;
	struct rank_args *args = xcalloc((size_t)n, sizeof(*args));
	double t0 = nd_now_s();
	build_args(&args[0], spec, 0, "create");
	struct worker_spec s0 = make_spec(spec, &args[0], deadline);
	int r = worker_start(&ws[0], &s0);
	if (r < 0) {
		free(args);
		return r;
	}
	/* rank 0 reports the unique id before it enters ncclCommInitRank */
	struct worker *w0 = &ws[0];
	const char *id = NULL;
	while (!id) {
		json_t *res = worker_result(w0);
		if (res)
			id = json_string_value(json_object_get(res, "unique_id"));
		if (id || worker_poll(&w0, 1, 0.05) == 0)
			break;
	}
	if (!id) {
		if (w0->status == WORKER_RUNNING)
			worker_wait(&w0, 1);
		ws[0].spec.args = NULL;
		for (int i = 1; i < n; i++)
			snprintf(ws[i].why, sizeof(ws[i].why), "not started: rank 0 gave no unique id");
		free(args);
		return 0;
	}
	char *idc = xstrdup(id);
	struct worker **all = xcalloc((size_t)n, sizeof(*all));
	all[0] = &ws[0];
	int nall = 1;
	for (int i = 1; i < n; i++) {
		if (i >= started) {
			snprintf(ws[i].why, sizeof(ws[i].why), "not started (the run models a rank that never joins)");
			continue;
		}
		build_args(&args[i], spec, i, idc);
		double left = deadline - (nd_now_s() - t0);
		struct worker_spec si = make_spec(spec, &args[i], left > 0.1 ? left : 0.1);
		if (worker_start(&ws[i], &si) == 0)
			all[nall++] = &ws[i];
	}
	if (spec->tick) {
		while (worker_poll(all, (size_t)nall, 0.25) > 0)
			spec->tick(spec->tick_ctx, ws, n);
	} else {
		worker_wait(all, (size_t)nall);
	}
	for (int i = 0; i < n; i++)
		ws[i].spec.args = NULL; /* they pointed into args, freed below */
	free(all);
	free(idc);
	free(args);
	return 0;
}
