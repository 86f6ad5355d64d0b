/* watch --retry-with-fix: after a stall the job is stopped (its group, then
 * any of its processes that left the group), watch waits until NVML lists
 * none of them on a GPU, and runs the fix search (engine/fix.h:
 * fix_session_run, the same stages and trials as `nccl-doctor fix`) on the
 * GPUs the job used, seeded with the cause classes of the stall's
 * diagnosis, within --retry-budget. The search's table goes to stderr; the
 * job is relaunched once with the measured winner's variables, unless the
 * configuration as given works (then NCCL's configuration is not what
 * stalled), nothing works (the permanent fixes are printed) or the search
 * could not run. A stall whose errors say a rank is missing or dead is not
 * searched: no NCCL variable brings a rank back. */
#include "engine/watch_int.h"
#include "probe/proc.h"
#include "report/report.h"
#include "util/text.h"
#include "util/clock.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WRETRY_GONE_WAIT 3.0     /* seconds after SIGTERM, then after SIGKILL */
#define WRETRY_GPU_WAIT 15.0     /* seconds for the job's GPU memory to be released */

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static bool has_cause(const struct result *r, const char *cause, bool errors_only)
{
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct finding *f = r->findings[i];
		if (f->cause && strcmp(f->cause, cause) == 0 && (!errors_only || f->sev == SEV_ERROR))
			return true;
	}
	return false;
}

static json_t *retry_json(struct watch_retry *wr)
{
	if (!wr->json) {
		wr->json = json_object();
		json_object_set_new(wr->json, "searched", json_false());
		json_object_set_new(wr->json, "relaunched", json_false());
	}
	return wr->json;
}

/* ---- at the stall ------------------------------------------------------- */

static void not_relaunched(struct watch_retry *wr, FILE *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void not_relaunched(struct watch_retry *wr, FILE *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(wr->why_not, sizeof(wr->why_not), fmt, ap);
	va_end(ap);
	fprintf(out, "nccl-doctor watch: --retry-with-fix: not relaunched: %s\n", wr->why_not);
	json_object_set_new(retry_json(wr), "why_not", json_string(wr->why_not));
}

static bool wretry_dead(struct watch_retry *wr, const struct result *diag, FILE *out)
{
	if (!has_cause(diag, "peer_died_or_oom", true))
		return false;
	not_relaunched(wr, out, "a rank is missing or dead, which no NCCL setting changes (see the diagnosis); "
				"no configuration search");
	return true;
}

static bool is_job_pid(const struct watch_retry *wr, long long pid)
{
	for (int i = 0; i < wr->npids; i++)
		if (wr->pids[i] == pid)
			return true;
	return false;
}

static void wretry_note_job(struct watch_retry *wr, const struct watch_gpu *g, int leader)
{
	int n = proc_tree(leader, wr->pids, WRETRY_MAX_PIDS);
	wr->npids = n > 0 ? n : 0;
	for (int i = 0; i < wr->npids; i++) {
		struct proc_info pi;
		wr->comm[i][0] = '\0';
		wr->start[i] = 0;
		if (proc_read(wr->pids[i], &pi) == 0) {
			str_copy(wr->comm[i], pi.comm, sizeof(wr->comm[i]));
			wr->start[i] = pi.start_time;
		}
	}
	/* the GPUs: the job's CUDA_VISIBLE_DEVICES (it inherited ours) */
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	struct gpusel probe;
	char err[256];
	if (cvd && *cvd && strlen(cvd) < sizeof(wr->gpus) && gpusel_parse(cvd, &probe, err, sizeof(err)) == 0) {
		str_copy(wr->gpus, cvd, sizeof(wr->gpus));
		wr->gpus_from = "CUDA_VISIBLE_DEVICES";
		return;
	}
	/* else those NVML showed its processes on */
	size_t len = 0;
	json_t *o;
	size_t i;
	wr->gpus[0] = '\0';
	json_array_foreach(json_object_get(g->sample, "gpus"), i, o) {
		json_t *p;
		size_t k;
		bool job = false;
		json_array_foreach(json_object_get(o, "processes"), k, p)
			job |= is_job_pid(wr, json_integer_value(json_object_get(p, "pid")));
		json_t *idx = json_object_get(o, "index");
		if (job && json_is_integer(idx))
			str_appendf(wr->gpus, sizeof(wr->gpus), &len, "%s%lld", len ? "," : "", json_integer_value(idx));
	}
	wr->gpus_from = wr->gpus[0] ? "nvml" : "all";
}

/* ---- stopping what is left of the job ----------------------------------- */

/* The process noted at the stall, alive: the same pid, command and start
 * time (a pid given to another process since has another start time). */
static bool still_there(const struct watch_retry *wr, int i)
{
	struct proc_info pi;
	return wr->comm[i][0] && proc_read(wr->pids[i], &pi) == 0 && pi.state != 'Z' &&
	       strcmp(pi.comm, wr->comm[i]) == 0 && pi.start_time == wr->start[i];
}

/* Sends sig to the process noted at the stall, if it is still that one:
 * through a pidfd opened before the check, so that the process checked is
 * the one signalled even if it ends meanwhile and its pid is reused
 * (Linux 5.3+); before 5.3, kill() right after the check. */
static void signal_one(const struct watch_retry *wr, int i, int sig)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)wr->pids[i], 0);
	if (fd >= 0) {
		if (still_there(wr, i))
			syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
		close(fd);
		return;
	}
	if (errno != ENOSYS)
		return; /* gone (ESRCH) */
#endif
	if (still_there(wr, i))
		kill(wr->pids[i], sig);
}

static int signal_left(const struct watch_retry *wr, int sig)
{
	int n = 0;
	for (int i = 0; i < wr->npids; i++)
		if (still_there(wr, i)) {
			if (sig)
				signal_one(wr, i, sig);
			n++;
		}
	return n;
}

static int wait_gone(const struct watch_retry *wr, double secs)
{
	double t0 = nd_now_s();
	int n;
	while ((n = signal_left(wr, 0)) > 0 && nd_now_s() - t0 < secs)
		sleep_s(0.1);
	return n;
}

/* One NVML sample (the p2p-procs worker: NVML runs only there); a new
 * reference, NULL when it failed or did not answer. */
static json_t *nvml_sample(void)
{
	struct worker w;
	struct worker_spec s = { .task = "p2p-procs", .deadline = WGPU_DEADLINE, .grace = 1 };
	worker_run(&w, &s);
	json_t *res = w.status == WORKER_OK ? json_incref(worker_result(&w)) : NULL;
	worker_release(&w);
	return res;
}

/* How many of the job's processes the sample lists on a GPU; -1 without one. */
static int job_on_gpus(const struct watch_retry *wr, json_t *sample)
{
	json_t *o, *p;
	size_t i, k;
	int n = sample ? 0 : -1;
	json_array_foreach(json_object_get(sample, "gpus"), i, o)
		json_array_foreach(json_object_get(o, "processes"), k, p)
			n += is_job_pid(wr, json_integer_value(json_object_get(p, "pid")));
	return n;
}

/* The job's GPUs (all when it named none) busy with no process in the sample:
 * a bit per NVML index (< 64). */
static unsigned long long busy_idle(const struct watch_retry *wr, json_t *sample)
{
	struct gpusel sel;
	char err[256];
	memset(&sel, 0, sizeof(sel));
	if (wr->gpus[0] && gpusel_parse(wr->gpus, &sel, err, sizeof(err)) < 0)
		return 0;
	unsigned long long bits = 0;
	json_t *o;
	size_t i;
	json_array_foreach(json_object_get(sample, "gpus"), i, o) {
		json_t *idx = json_object_get(o, "index"), *pc = json_object_get(o, "process_count");
		long long x = json_integer_value(idx);
		if (!json_is_integer(idx) || x < 0 || x >= 64 || !json_is_integer(pc) || json_integer_value(pc) != 0 ||
		    json_integer_value(json_object_get(o, "utilization")) <= 0 ||
		    !gpusel_match(&sel, (int)x, json_string_value(json_object_get(o, "uuid")),
				  json_string_value(json_object_get(o, "bdf"))))
			continue;
		bits |= 1ULL << x;
	}
	return bits;
}

/* After the job's processes left the GPUs: a GPU of the job busy with no
 * process, twice 1.5 s apart (fix's own test after a trial that timed out),
 * is wedged: a relaunch would stall again and trials on it are void. */
static void wedged_check(struct watch_retry *wr, json_t *first)
{
	unsigned long long b1 = busy_idle(wr, first);
	if (!b1)
		return;
	sleep_s(1.5);
	json_t *second = nvml_sample();
	unsigned long long b = second ? b1 & busy_idle(wr, second) : 0;
	json_decref(second);
	size_t len = 0;
	for (int x = 0; x < 64; x++)
		if (b & (1ULL << x))
			str_appendf(wr->wedged, sizeof(wr->wedged), &len, "%s%d", len ? "," : "", x);
}

static void wretry_reap(struct watch_retry *wr, const struct watch_gpu *g, FILE *out)
{
	/* processes that left the job's group (setsid, a launcher's own groups) */
	if (signal_left(wr, SIGTERM) > 0 && wait_gone(wr, WRETRY_GONE_WAIT) > 0) {
		signal_left(wr, SIGKILL);
		int n = wait_gone(wr, WRETRY_GONE_WAIT);
		if (n > 0)
			fprintf(out, "nccl-doctor watch: %d of the job's processes do not end even after SIGKILL (stuck in "
				     "the kernel or the driver): the search may find their GPUs busy\n", n);
	}
	if (g->hung) {
		fprintf(out, "nccl-doctor watch: NVML did not answer at the stall: not waiting for the job's GPU memory\n");
		return;
	}
	double t0 = nd_now_s();
	json_t *sample = nvml_sample();
	int n;
	while ((n = job_on_gpus(wr, sample)) > 0 && nd_now_s() - t0 < WRETRY_GPU_WAIT) {
		sleep_s(0.5);
		json_decref(sample);
		sample = nvml_sample();
	}
	if (n > 0)
		fprintf(out, "nccl-doctor watch: NVML still lists %d of the job's processes on a GPU after %.0f s: the "
			     "search leaves GPUs in use out (--retry-fix-args --force tests them)\n", n, WRETRY_GPU_WAIT);
	else if (n < 0)
		fprintf(out, "nccl-doctor watch: NVML did not answer: cannot tell whether the job's GPU memory was released\n");
	else
		wedged_check(wr, sample);
	json_decref(sample);
}

/* ---- the search ---------------------------------------------------------- */

static const char *state_name(enum trial_state s)
{
	switch (s) {
	case TRIAL_NOT_TRIED: return "not_tried";
	case TRIAL_FASTER_WORKS: return "faster_works";
	case TRIAL_VOID_WEDGED: return "void_wedged";
	case TRIAL_NO_BUDGET: return "no_budget";
	case TRIAL_OK: return "ok";
	case TRIAL_HANG: return "hang";
	case TRIAL_ERROR: return "error";
	case TRIAL_CUT: return "not_finished";
	default: return "wrong";
	}
}

static json_t *env_json(const struct fix_candidate *c)
{
	json_t *e = json_object();
	for (int k = 0; k < c->nenv; k++)
		json_object_set_new(e, c->env[k].name, json_string(c->env[k].value));
	return e;
}

static void search_json(struct watch_retry *wr, const struct fix_session *x)
{
	json_t *j = retry_json(wr), *trials = json_array();
	const struct fix_search *fs = &x->fs;
	for (int i = 0; i < fs->n; i++) {
		const struct fix_trial *t = &fs->t[i];
		json_t *o = json_object();
		double m = fix_trial_measure(t);
		json_object_set_new(o, "configuration", json_string(t->cand.name));
		json_object_set_new(o, "env", env_json(&t->cand));
		json_object_set_new(o, "status", json_string(state_name(t->state)));
		const char *why = t->state == TRIAL_FASTER_WORKS ? "not tried (a faster one works)"
				  : t->state == TRIAL_VOID_WEDGED ? "void (a GPU is wedged)"
				  : t->state == TRIAL_NO_BUDGET	  ? "not tried (budget spent)"
								  : "not tried";
		json_object_set_new(o, "result", json_string(t->state >= TRIAL_OK ? t->result : why));
		json_object_set_new(o, "busbw", m >= 0 ? json_real(round(m * 100) / 100) : json_null());
		json_object_set_new(o, "seconds", t->state >= TRIAL_OK ? json_real(round(t->secs * 100) / 100) : json_null());
		json_array_append_new(trials, o);
	}
	json_object_set_new(j, "searched", json_boolean(fs->n > 0));
	json_object_set_new(j, "verdict", json_string(x->verdict));
	json_object_set_new(j, "search_outcome", json_string(x->outcome));
	json_object_set_new(j, "fix_exit_code", json_integer(x->code));
	json_object_set_new(j, "trials", trials);
	json_object_set_new(j, "winner", fs->winner >= 0 ? json_string(fs->t[fs->winner].cand.name) : json_null());
	json_object_set_new(j, "winner_env", fs->winner >= 0 ? env_json(&fs->t[fs->winner].cand) : json_null());
	json_object_set_new(j, "search_s", json_real(round(fs->secs * 100) / 100));
}

/* The search's part of fix's report on out: its headline, the "fix"
 * section (stages, trials, recommendation), the findings of the search and,
 * when nothing worked, the permanent fixes. A view: r keeps what it owns. */
static void show(const struct fix_session *x, bool permanent, bool color, FILE *out)
{
	struct section *secs[2];
	char name[] = "fix";
	struct result view = { .command = name, .headline = x->r->headline, .no_verdict = true, .sections = secs };
	for (size_t i = 0; i < x->r->nsections; i++) {
		const char *k = x->r->sections[i]->key;
		if (strcmp(k, "fix") == 0 || (permanent && strcmp(k, "permanent") == 0))
			if (view.nsections < 2)
				secs[view.nsections++] = x->r->sections[i];
	}
	if (x->r->nfindings > x->stage_findings) {
		view.findings = x->r->findings + x->stage_findings;
		view.nfindings = x->r->nfindings - x->stage_findings;
	}
	struct render_opts ro = { .color = color, .full = true }; /* the sections chosen above, whole */
	report_text(&view, &ro, out);
}

/* The winner's variables into wr->env; the user's own values it replaces into over. */
static void take_winner(struct watch_retry *wr, const struct fix_candidate *c, char *over, size_t oversz)
{
	json_t *ov = json_array();
	size_t len = 0;
	over[0] = '\0';
	wr->nenv = 0;
	for (int k = 0; k < c->nenv && wr->nenv < WRETRY_MAX_ENV; k++) {
		snprintf(wr->env[wr->nenv++], WRETRY_ENV_LEN, "%s=%s", c->env[k].name, c->env[k].value);
		const char *mine = getenv(c->env[k].name);
		if (mine && strcmp(mine, c->env[k].value) != 0) {
			str_appendf(over, oversz, &len, "%s%s=%s", len ? ", " : "", c->env[k].name, mine);
			char b[WRETRY_ENV_LEN + 64];
			snprintf(b, sizeof(b), "%s=%s", c->env[k].name, mine);
			json_array_append_new(ov, json_string(b));
		}
	}
	str_copy(wr->name, c->name, sizeof(wr->name));
	json_object_set_new(retry_json(wr), "overridden", ov);
}

static int wretry_search(struct watch_retry *wr, const struct result *diag, const struct run_opts *opt, int first_code,
		  FILE *out)
{
	wr->first_code = first_code;
	json_t *j = retry_json(wr);
	json_object_set_new(j, "first_exit_code", json_integer(first_code));
	json_object_set_new(j, "gpus", wr->gpus[0] ? json_string(wr->gpus) : json_null());
	json_object_set_new(j, "gpus_from", json_string(wr->gpus_from ? wr->gpus_from : "all"));
	json_object_set_new(j, "budget_s", json_real(wr->budget));
	struct fix_seed seed = {
		.shm_small = has_cause(diag, "shm_too_small", false),
		.nvls = has_cause(diag, "fabric_manager_nvswitch", false),
		.cumem = has_cause(diag, "custom_allreduce_or_cumem", false),
		.bootstrap = has_cause(diag, "bootstrap_network", true),
	};
	struct run_opts sub = *opt;
	sub.json = false;
	memset(&sub.gpus, 0, sizeof(sub.gpus));
	char err[256];
	if (wr->gpus[0] && gpusel_parse(wr->gpus, &sub.gpus, err, sizeof(err)) < 0) {
		not_relaunched(wr, out, "the job's GPUs '%s' cannot be read: %s", wr->gpus, err);
		return 0;
	}
	if (wr->wedged[0]) {
		json_t *wj = json_array();
		for (char *save = NULL, *t = strtok_r(wr->wedged, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			json_array_append_new(wj, json_integer(atoi(t)));
			fprintf(out, "nccl-doctor watch: GPU %s stays busy with no process after the job was stopped: wedged; "
				     "reset it (no process may use it): sudo nvidia-smi -r -i %s\n", t, t);
		}
		json_object_set_new(j, "wedged_gpus", wj);
		not_relaunched(wr, out, "a GPU of the job is wedged (above): a relaunch would stall again, and fix's "
					"trials on it would be void; no configuration search");
		return 0;
	}
	fprintf(out, "nccl-doctor watch: --retry-with-fix: the fix search on %s%s (%s), evidence of the stall:%s%s%s%s%s, "
		     "budget %.0f s\n", wr->gpus[0] ? "GPU " : "all GPUs", wr->gpus, wr->gpus[0] ? wr->gpus_from : "no GPU "
		     "list from the job", seed.shm_small ? " /dev/shm" : "", seed.nvls ? " NVLS" : "",
		     seed.cumem ? " cuMem" : "", seed.bootstrap ? " bootstrap" : "",
		     seed.shm_small || seed.nvls || seed.cumem || seed.bootstrap ? "" : " none for the candidates", wr->budget);
	fflush(out);
	struct fix_opts fo = wr->fo;
	fo.budget = wr->budget;
	struct fix_session *x = fix_session_run(&fo, &sub, &seed, 0);
	if (!x) {
		not_relaunched(wr, out, "out of memory for the search");
		return 0;
	}
	const struct fix_search *fs = &x->fs;
	bool nothing = !x->no_gpu && !fs->why_not[0] && fs->winner < 0 && x->code == EXIT_PROBLEM;
	fputc('\n', out);
	show(x, nothing, opt->color && isatty(fileno(out)), out);
	search_json(wr, x);
	if (x->no_gpu || fs->why_not[0]) {
		not_relaunched(wr, out, "the search could not run: %s", x->no_gpu ? x->r->error : fs->why_not);
	} else if (fs->winner < 0 && nothing) {
		bool perm = false;
		for (size_t i = 0; i < x->r->nsections; i++)
			perm |= strcmp(x->r->sections[i]->key, "permanent") == 0;
		not_relaunched(wr, out, "no configuration tried made all_reduce work on %s%s; %s", wr->gpus[0] ? "GPU " : "all GPUs",
			       wr->gpus, perm ? "the permanent fixes above change the machine (read their risks)"
					  : "the search names no permanent fix: see the findings above and `nccl-doctor check`");
	} else if (fs->winner < 0) {
		not_relaunched(wr, out, "the search did not finish (%s): no configuration was measured to work",
			       fs->incomplete ? "a GPU wedged or the budget spent" : x->outcome);
	} else if (fs->t[fs->winner].cand.nenv == 0) {
		not_relaunched(wr, out, "NCCL works as given on these GPUs (%s: %s%s): NCCL's configuration is not what "
					"stalled; look at the diagnosis above (a missing peer, the application, its input)",
			       fs->t[fs->winner].cand.name, fs->t[fs->winner].result,
			       fs->t[fs->winner].slow ? ", slower than expected, and no other configuration was faster" : "");
	} else {
		char over[512];
		take_winner(wr, &fs->t[fs->winner].cand, over, sizeof(over));
		double m = fix_trial_measure(&fs->t[fs->winner]);
		fprintf(out, "nccl-doctor watch: relaunching the job once with %s (measured by the fix search: %s%s%.2f%s)\n",
			wr->name, fs->t[fs->winner].result, m >= 0 ? ", busbw " : "", m >= 0 ? m : 0, m >= 0 ? " GB/s" : "");
		if (over[0])
			fprintf(out, "nccl-doctor watch: the winner's variables replace your %s\n", over);
		json_object_set_new(j, "relaunched", json_true());
	}
	fflush(out);
	fix_session_free(x);
	return wr->nenv;
}

/* The job's group: SIGTERM, SIGKILL after 5 s, its output passed on meanwhile. */
static void stop_group(struct sup *job, sup_output_fn fn, void *ctx)
{
	sup_signal(job, SIGTERM);
	double t0 = nd_now_s();
	while (sup_poll(job, 0.1, fn, ctx) && nd_now_s() - t0 < 5)
		;
	if (!job->exited)
		sup_signal(job, SIGKILL);
}

bool wretry_run(struct watch_retry *wr, struct sup *job, sup_output_fn fn, void *ctx, const struct watch_gpu *g,
		const struct result *diag, const struct run_opts *opt, FILE *out)
{
	if (wretry_dead(wr, diag, out))
		return false;
	wretry_note_job(wr, g, job->pid);
	fprintf(out, "nccl-doctor watch: --retry-with-fix: stopping the job for the configuration search\n");
	fflush(out);
	stop_group(job, fn, ctx);
	worker_forward_signals(); /* a signal now ends the search's workers and watch */
	wretry_reap(wr, g, out);
	double t0 = nd_now_s();
	while (sup_poll(job, 0.1, fn, ctx) && nd_now_s() - t0 < 3)
		;
	if (!job->exited)
		fprintf(out, "nccl-doctor watch: the job's first process has not ended (stuck in the kernel?): searching anyway\n");
	wretry_search(wr, diag, opt, job->exited ? sup_exit_code(job) : 128 + SIGKILL, out);
	return true;
}

/* ---- reporting ----------------------------------------------------------- */

void wretry_json(const struct watch_retry *wr, json_t *doc, int relaunch_code)
{
	if (!wr->json)
		return;
	json_t *j = json_deep_copy(wr->json);
	json_object_set_new(j, "relaunch_exit_code", wr->nenv > 0 && relaunch_code >= 0 ? json_integer(relaunch_code)
											: json_null());
	json_object_set_new(doc, "retry", j);
}

void wretry_summary(const struct watch_retry *wr, FILE *out)
{
	if (wr->nenv > 0)
		fprintf(out, "  the first run stalled and was stopped (status %d); the fix search measured %s working on "
			     "%s%s and the job ran again with it\n", wr->first_code, wr->name, wr->gpus[0] ? "GPU " : "all GPUs",
			wr->gpus);
	else if (wr->why_not[0])
		fprintf(out, "  --retry-with-fix: not relaunched: %s\n", wr->why_not);
}

void wretry_cancel(struct watch_retry *wr, FILE *out, const char *why)
{
	if (wr->nenv <= 0)
		return;
	wr->nenv = 0;
	json_object_set_new(retry_json(wr), "relaunched", json_false());
	not_relaunched(wr, out, "%s", why);
}

void wretry_release(struct watch_retry *wr)
{
	json_decref(wr->json);
	wr->json = NULL;
	free(wr->args);
	wr->args = NULL;
}
