/* watch's supervision loop (cmd/watch.c parses the options and starts it):
 * the job's signals, its output fed to the parser, the stall check, the
 * diagnosis at a stall and at exit, --on-stall kill, --retry-with-fix's
 * stop and relaunch, the JSON document. */
#include "analyze/nccllog.h"
#include "engine/watch_int.h"
#include "engine/watch_ras.h"
#include "engine/watch_state.h"
#include "kb/findings.h"
#include "model/result.h"
#include "probe/proc.h"
#include "report/report.h"
#include "run/supervise.h"
#include "util/clock.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/text.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Signals. SIGINT, SIGTERM, SIGHUP and SIGQUIT are noted here and acted on
 * by the loop: passed to the job's group while its main process lives, else
 * they end watch. SIGTSTP and SIGCONT act here, wherever watch is (a stall's
 * search, stopping the job): SIGTSTP is passed to the job's group and watch
 * stops itself with SIGSTOP (the two stop together, whatever process group
 * watch is in: a shell's `fg`/`bg` or a SIGCONT continues it), SIGCONT is
 * passed on. g_job_pgid is the job's group while its main process is not
 * reaped (run/supervise.h: its id cannot be given to another process
 * before), 0 otherwise: a bare pid is never signalled after reaping. */
static volatile sig_atomic_t got_signal, got_sigint_count, got_cont, g_job_pgid;

static void on_signal(int sig)
{
	int saved = errno;
	pid_t pg = (pid_t)g_job_pgid;
	if (sig == SIGTSTP) {
		if (pg > 0)
			kill(-pg, SIGTSTP);
		kill(getpid(), SIGSTOP);
	} else if (sig == SIGCONT) {
		if (pg > 0)
			kill(-pg, SIGCONT);
		got_cont = 1;
	} else {
		got_signal = sig;
		if (sig == SIGINT)
			got_sigint_count++;
	}
	errno = saved;
}

/* The job started (sup_start) or about to be reaped (sup_release). */
void watch_job_started(const struct sup *job)
{
	g_job_pgid = job->pid > 0 ? job->pid : 0;
}

void watch_job_release(struct sup *job)
{
	g_job_pgid = 0;
	sup_release(job);
}

static void on_output(void *ctx, int stream, const char *data, size_t n)
{
	struct watch *w = ctx;
	w->t_activity = nd_now_s();
	wfollow_bytes(w, &w->streams[stream - 1], data, n);
}

/* ---- the diagnosis ------------------------------------------------------ */

/* Tells the parser how far each input got (its line counts, an unfinished line). */
static void sync_inputs(struct watch *w)
{
	for (int k = 0; k < 2; k++) {
		struct follow *f = &w->streams[k];
		nccllog_end_file(&w->lg, f->file, f->lineno, f->bytes, f->cut, f->partial.len > 0);
	}
	for (int i = 0; i < w->nfiles; i++) {
		struct follow *f = &w->files[i];
		nccllog_end_file(&w->lg, f->file, f->lineno, f->bytes, f->cut, f->partial.len > 0);
	}
}

/* The NCCL versions the logs show, for the RAS check. */
static int log_versions(const struct nccllog *lg, const char **out, int max)
{
	int n = 0;
	for (int i = 0; i < lg->nprocs && n < max; i++)
		if (lg->procs[i].version[0])
			out[n++] = lg->procs[i].version;
	return n;
}

struct result *watch_diagnose(struct watch *w, bool at_exit)
{
	sync_inputs(w);
	struct result *r = result_new("watch");
	int pids[WATCH_MAX_PIDS], npids = 0, nranks = 0, nvllm = 0;
	if (!w->job.exited)
		npids = proc_tree(w->job.pid, pids, WATCH_MAX_PIDS);
	/* the kernel's events first: an Xid during the stall outranks what
	 * the logs say at the same severity (the order of findings is stable) */
	wkmsg_read(&w->km, 1.0);
	wkmsg_add(&w->km, r);
	wras_add(&w->ras, r, nd_now_s());
	uint64_t nccl_lines = 0;
	for (int i = 0; i < w->lg.nfiles; i++)
		nccl_lines += w->lg.files[i].nccl_lines;
	/* without NCCL lines the logs analysis would only advise NCCL_DEBUG=INFO,
	 * which watch already set: the job has not reached NCCL yet */
	if (nccl_lines) {
		whost_hint(w);
		nccllog_analyze(&w->lg, r);
	}
	wlogdir_notes(w, r);
	if (npids > 0) {
		if (wprocs_add(&w->cpu, &w->lg, r, pids, npids, &nranks, &nvllm) > 0)
			wgpu_add(&w->gpu, r, pids, npids, !at_exit);
		wprocs_add_net(r, pids, npids);
		if (!at_exit) {
			const char *vers[64];
			int nv = log_versions(&w->lg, vers, 64);
			wnccl_ras_add(r, pids, npids, vers, nv);
			struct finding *f = finding_add(r, FID_WATCH_STALL, SEV_WARNING,
							       "no new output or NCCL progress for %.0f s", nd_now_s() - w->t_activity);
			finding_evidence(f, NULL, 0, "the job has run %.0f s; %d process%s loaded NCCL", nd_now_s() - w->t_start,
					 nranks, nranks == 1 ? "" : "es");
			if (nvllm)
				finding_evidence(f, NULL, 0,
						 "%d vLLM worker process%s (vLLM removes NCCL's async error handling from "
						 "its workers: nothing of its own reports this hang)", nvllm, nvllm == 1 ? "" : "es");
			if (!nccl_lines)
				finding_evidence(f, NULL, 0,
						 "no NCCL line yet (NCCL_DEBUG=INFO is set): the job waits before NCCL init "
						 "(rendezvous, model loading, or a rank that never started)");
		}
	}
	double quiet = nd_now_s() - w->t_activity;
	if (at_exit)
		result_set_headline(r, "the job ended with status %d after %.0f s", sup_exit_code(&w->job),
				    nd_now_s() - w->t_start);
	else
		result_set_headline(r, "no new output for %.0f s after %.0f s of run; %d process%s with NCCL", quiet,
				    nd_now_s() - w->t_start, nranks, nranks == 1 ? "" : "es");
	return r;
}

void watch_write_json(struct watch *w, const char *path, struct result *r, bool at_exit)
{
	if (!path)
		return;
	json_t *j = report_json(r);
	json_object_set_new(j, "verdict", json_string(result_verdict(r)));
	json_object_set_new(j, "stalls", json_integer(w->nstalls));
	if (at_exit && w->last_stall) /* the exit's summary replaces the file: keep what the stall said */
		json_object_set(j, "last_stall", w->last_stall);
	wretry_json(&w->retry, j, w->job.exited ? sup_exit_code(&w->job) : -1);
	/* a private temporary renamed into place (util/outfile.h): never written
	 * through a planted link or FIFO; as root it can hold the kernel log's
	 * events and the job's processes: 0600 */
	char *text = json_dumps(j, JSON_INDENT(2));
	char err[4400];
	if (!text || outfile_write_all(path, geteuid() == 0 ? 0600 : 0644, text, strlen(text), err, sizeof(err)) < 0)
		report_say(stderr, "nccl-doctor watch: %s", text ? err : "cannot write the JSON document: out of memory");
	free(text);
	json_decref(j);
}

static void stop_job(struct watch *w)
{
	sup_signal(&w->job, SIGTERM);
	double t0 = nd_now_s();
	while (sup_poll(&w->job, 0.1, on_output, w) && nd_now_s() - t0 < 5)
		;
	if (!w->job.exited)
		sup_signal(&w->job, SIGKILL);
}

/* --retry-with-fix: the stopped job is started again with the chosen
 * configuration; the logs are parsed from scratch (files read so far stay
 * at their ends: only what the new run writes is read). */
static void relaunch(struct watch *w, int nenv)
{
	double t0 = nd_now_s();
	while (sup_poll(&w->job, 0.1, on_output, w) && nd_now_s() - t0 < 3)
		;
	watch_job_release(&w->job);
	int k = 0;
	while (w->set[k])
		k++;
	for (int i = 0; i < nenv && k < (int)(sizeof(w->set) / sizeof(w->set[0])) - 1; i++)
		w->set[k++] = w->retry.env[i];
	w->set[k] = NULL;
	nccllog_release(&w->lg);
	nccllog_init(&w->lg);
	for (int i = 0; i < 2; i++) {
		struct follow *f = &w->streams[i];
		strbuf_reset(&f->partial);
		f->lineno = f->bytes = f->cut = 0;
		f->overlong = false;
		f->file = nccllog_begin_file(&w->lg, i == 0 ? "stdout" : "stderr");
	}
	for (int i = 0; i < w->nfiles; i++) {
		struct follow *f = &w->files[i];
		const char *base = strrchr(f->path, '/');
		strbuf_reset(&f->partial);
		f->lineno = f->bytes = f->cut = 0;
		f->overlong = false;
		f->file = nccllog_begin_file(&w->lg, base ? base + 1 : f->path);
	}
	w->cpu.n = 0;
	w->stalled_now = false;
	w->t_activity = nd_now_s();
	int r = sup_start(&w->job, &w->spec);
	watch_job_started(&w->job);
	if (r < 0) {
		report_say(stderr, "nccl-doctor watch: cannot run '%s' again: %s", w->spec.argv[0], strerror(-r));
		w->job.exited = true;
		w->job.status = (r == -ENOENT ? 127 : EXIT_CANNOT_RUN) << 8;
	}
}

static void on_stall(struct watch *w, const struct watch_opts *o, const struct run_opts *opt)
{
	w->nstalls++;
	struct result *r = watch_diagnose(w, false);
	if (o->stall_result)
		o->stall_result(r, o, opt);
	if (o->json) {
		json_decref(w->last_stall);
		w->last_stall = report_json(r);
		json_object_set_new(w->last_stall, "verdict", json_string(result_verdict(r)));
	}
	watch_write_json(w, o->json, r, false);
	bool stopped = false;
	if (o->retry && !w->retried) { /* the job stopped, the fix search on its GPUs */
		w->retried = true;
		stopped = wretry_run(&w->retry, &w->job, on_output, w, &w->gpu, r, opt, stderr);
		watch_install_signals();
		/* SIGINT, SIGTERM and SIGHUP during the search end watch (the
		 * workers' handlers); a SIGQUIT noted meanwhile ends it here, never
		 * to reach a relaunched job */
		if (stopped && got_signal) {
			wretry_cancel(&w->retry, stderr, got_signal == SIGQUIT ? "watch received SIGQUIT during the search"
									    : "watch received a signal during the search");
		}
		if (stopped && w->retry.nenv > 0)
			relaunch(w, w->retry.nenv);
		if (stopped)
			watch_write_json(w, o->json, r, false); /* with the search */
	}
	result_free(r);
	fflush(stderr);
	if (!stopped && o->on_stall == ON_STALL_KILL) {
		fprintf(stderr, "nccl-doctor watch: stopping the job (--on-stall kill)\n");
		stop_job(w);
	}
}

void watch_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/* a stop and a continue interrupt nothing that can go on */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTSTP, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
}

/* A GPU sample in a worker; the worker layer installs its own handlers for
 * its workers at the first start: ours (forwarding to the job) come back. */
static void start_gpu_sample(struct watch *w, double now)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old); /* no signal meets the worker layer's handler */
	wgpu_start(&w->gpu);
	watch_install_signals();
	sigprocmask(SIG_SETMASK, &old, NULL);
	w->t_gpu_next = now + WGPU_EVERY;
}

/* A stall starts a GPU sample; the diagnosis follows when it answered or
 * after WGPU_WAIT seconds. While the stall lasts a sample is taken every
 * WGPU_EVERY seconds (for the summary and --json at exit). */
static void check_stall(struct watch *w, const struct watch_opts *o, const struct run_opts *opt, double now)
{
	bool quiet = now - w->t_activity >= o->stall;
	if (quiet && !w->stalled_now && !w->job.exited) {
		w->stalled_now = true;
		w->diag_pending = true;
		w->t_diag_due = now + WGPU_WAIT;
		start_gpu_sample(w, now);
	} else if (!quiet) {
		w->stalled_now = false;
		w->diag_pending = false;
	} else if (w->stalled_now && !w->diag_pending && now >= w->t_gpu_next && !w->job.exited) {
		start_gpu_sample(w, now);
	}
	if (w->diag_pending && (!w->gpu.running || now >= w->t_diag_due)) {
		w->diag_pending = false;
		on_stall(w, o, opt);
	}
}

/* The job's main process ended, but processes it left running still hold
 * its stdout or stderr: said in one line, they are not followed further. */
static void say_left_running(struct watch *w)
{
	unsigned long ino[2];
	int nino = sup_output_inodes(&w->job, ino), pids[64];
	int n = nino > 0 ? proc_pipe_holders(ino, nino, getpid(), pids, 64) : 0;
	if (n <= 0)
		return;
	char list[400];
	size_t len = 0;
	list[0] = '\0';
	for (int i = 0; i < n && i < 16; i++)
		str_appendf(list, sizeof(list), &len, "%s%d", i ? " " : "", pids[i]);
	if (n > 16)
		str_appendf(list, sizeof(list), &len, " ...");
	fprintf(stderr, "nccl-doctor watch: the job's main process ended (status %d); %d%s process%s it started still "
		"run%s and hold%s its output (pid%s %s): no longer followed\n", sup_exit_code(&w->job), n, n == 64 ? "+" : "",
		n == 1 ? "" : "es", n == 1 ? "s" : "", n == 1 ? "s" : "", n == 1 ? "" : "s", list);
}

void watch_run_loop(struct watch *w, const struct watch_opts *o, const struct run_opts *opt)
{
	double t_files = 0;
	while (sup_poll(&w->job, w->gpu.running ? 0.05 : 0.2, on_output, w)) {
		double now = nd_now_s();
		if (got_signal) {
			int sig = got_signal;
			got_signal = 0;
			if (w->job.exited) {
				/* the main process is gone: a signal ends watch at
				 * once, after what the pipes already hold (its last
				 * lines: the trap's message of a job told to stop,
				 * when the signal came twice, as timeout(1) and
				 * Slurm send it) */
				sup_drain_now(&w->job, on_output, w);
				break;
			}
			/* a second Ctrl-C kills; a repeated SIGTERM (timeout(1) sends it
			 * to the process and its group) is passed on as it is */
			sup_signal(&w->job, sig == SIGINT && got_sigint_count >= 2 ? SIGKILL : sig);
		}
		if (got_cont) { /* the job was stopped with watch: not a stall */
			got_cont = 0;
			w->t_activity = now;
		}
		if (now - t_files >= 0.5) {
			wlogdir_poll(w);
			t_files = now;
		}
		wgpu_poll(&w->gpu);
		wras_tick(&w->ras, &w->lg, w->job.exited ? 0 : w->job.pid, now, o->on_stall == ON_STALL_KEEP ? NULL : stderr);
		check_stall(w, o, opt, nd_now_s());
	}
	wlogdir_poll(w);
	say_left_running(w);
}
