/* nccl-doctor watch -- CMD ...: runs the user's own job under supervision.
 *
 * The job runs in its own process group with its output passed through byte
 * for byte (run/supervise.h). NCCL_DEBUG=INFO (unless the user set
 * NCCL_DEBUG) and NCCL_DEBUG_FILE (one file per process in a private
 * directory) are added to its environment; those files and the job's own
 * output are read as they grow with the `logs` parser, so the stage of each
 * rank is known while it runs. When nothing new arrives for --stall seconds
 * while the job lives, the diagnosis goes to stderr: the stage each rank
 * reached, the job's processes (state, wait channel, CPU, which loaded NCCL),
 * the rendezvous ports they listen on and how many peers connected, and the
 * ranked causes from the logs; with the GPU use per process, the kernel log
 * since the start and NCCL's RAS status (cmd/watch_int.h lists those parts).
 * The exit status is the job's. */
#include "analyze/nccllog.h"
#include "cmd/cmd.h"
#include "cmd/fix.h"
#include "engine/watch_int.h"
#include "engine/watch_ras.h"
#include "engine/watch_state.h"
#include "kb/findings.h"
#include "probe/proc.h"
#include "report/report.h"
#include "run/supervise.h"
#include "util/outfile.h"
#include "util/privdir.h"
#include "util/strbuf.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


enum on_stall { ON_STALL_REPORT, ON_STALL_KILL, ON_STALL_KEEP };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor watch [options] -- CMD [ARGS...]\n"
		"\n"
		"Runs CMD (vllm serve, torchrun, python ...) with its output passed through\n"
		"unchanged, follows its NCCL start-up per rank, and when it stalls prints on\n"
		"stderr where each rank is stuck and why. Exits with CMD's status.\n"
		"\n"
		"options:\n"
		"  --stall SEC        no new output or progress for SEC seconds while the job\n"
		"                     runs is a stall (default 60)\n"
		"  --on-stall WHAT    report: print the diagnosis and keep the job (default);\n"
		"                     kill: print it and stop the job; keep: print nothing\n"
		"                     while it runs (the diagnosis goes to --json and the summary)\n"
		"  --json=FILE        write the diagnosis as JSON to FILE at a stall and at exit\n"
		"                     (a healthy exit too; checked before the job starts; written\n"
		"                     to a temporary renamed into place, 0600 as root; stdout\n"
		"                     belongs to the job, so there is no JSON on stdout)\n"
		"  --log-dir DIR      keep NCCL's per-process log files in DIR (default: a\n"
		"                     private directory removed at exit); DIR is made (0700)\n"
		"                     when missing, else it must be yours and not writable by\n"
		"                     group or others; files it held before the start are\n"
		"                     not read\n"
		"  --user NAME        run CMD as NAME (needs root): `sudo nccl-doctor watch\n"
		"                     --user \"$SUDO_USER\" -- CMD`; without it CMD runs as you\n"
		"                     (as root under sudo)\n"
		"  --nccl-diag        set NCCL_RUN_DIAGNOSTICS=1 when the libnccl the job loads\n"
		"                     is 2.31 or newer (it tests every GPU pair at init; the\n"
		"                     version is read from the library: --nccl PATH names it)\n"
		"  --kernel-log FILE  follow FILE (a kern.log, or a FIFO) for Xid, AER and IOMMU\n"
		"                     events instead of /dev/kmsg, which may need root\n"
		"  --retry-with-fix   after the first stall, stop the job, run the fix search on\n"
		"                     its GPUs (its CUDA_VISIBLE_DEVICES, else those it used)\n"
		"                     and run it once more with the configuration measured to\n"
		"                     work; not when a rank is missing or dead, nor when NCCL\n"
		"                     works as given or nothing works\n"
		"  --retry-budget SEC the most the search may take (default 120)\n"
		"  --retry-fix-args \"ARGS\"  fix's search options for it: --max-bytes SIZE,\n"
		"                     --all, --force, --quiet\n"
		"  -h, --help         this help\n"
		"\n"
		"The job's environment gets NCCL_DEBUG=INFO (your value wins),\n"
		"NCCL_DEBUG_FILE=DIR/nccl.%%h.%%p (unless you set it: then only the job's\n"
		"output is read) and PYTHONUNBUFFERED=1 (your value wins), so that output\n"
		"arrives as it is written. At a stall it also reads the kernel log since the\n"
		"start, the GPU memory and utilisation of the job's processes (NVML, in a\n"
		"worker process), and asks NCCL's RAS service (NCCL 2.24+) for its status;\n"
		"with NCCL 2.29+ it follows RAS's event stream during the whole run and says\n"
		"at once when RAS declares a process of the job dead. With --sysroot DIR the\n"
		"machine facts it weighs causes with (PCI tree, ACS, IOMMU) are read under DIR;\n"
		"the job, its processes and the kernel log stay this machine's.\n"
		"SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed to the job's process group; a\n"
		"second SIGINT kills it; SIGTSTP stops the job and watch, SIGCONT continues\n"
		"both. Watch ends when CMD's main process ends (what its pipes still hold is\n"
		"passed on for at most 2 s; processes it left running are named, no longer\n"
		"followed); a signal then ends watch at once. When watch is killed, the job's\n"
		"process group is stopped (SIGTERM, then SIGKILL) and the private directory\n"
		"removed.\n"
		"exit status: CMD's status (128+N when a signal N ended it); 64 bad usage;\n"
		"127 CMD not found; 3 the job could not be started\n");
}


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
static void job_started(const struct sup *job)
{
	g_job_pgid = job->pid > 0 ? job->pid : 0;
}

static void job_release(struct sup *job)
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

static struct result *diagnose(struct watch *w, bool at_exit)
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
	cmd_order(r);
	double quiet = nd_now_s() - w->t_activity;
	if (at_exit)
		result_set_headline(r, "the job ended with status %d after %.0f s", sup_exit_code(&w->job),
				    nd_now_s() - w->t_start);
	else
		result_set_headline(r, "no new output for %.0f s after %.0f s of run; %d process%s with NCCL", quiet,
				    nd_now_s() - w->t_start, nranks, nranks == 1 ? "" : "es");
	return r;
}

static void write_json(struct watch *w, const char *path, struct result *r, bool at_exit)
{
	if (!path)
		return;
	json_t *j = report_json(r);
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

struct watch_opts {
	double stall;
	enum on_stall on_stall;
	const char *json;
	const char *log_dir;
	const char *kernel_log;
	const char *user;
	bool nccl_diag;
	bool retry;
	double retry_budget;
	const char *retry_fix_args;
};

/* Before the start: --retry-budget (already checked) and the text of
 * --retry-fix-args (fix's search options, split at spaces; NULL none).
 * Returns -1 to go on, 64 after a usage error said on stderr (3: out of
 * memory). Keeps optind. */
static int wretry_setup(struct watch_retry *wr, double budget, const char *fix_args)
{
	fix_opts_init(&wr->fo);
	wr->fo.progress = true; /* the job is stopped: say what the search does */
	wr->budget = budget;
	if (!fix_args)
		return -1;
	wr->args = strdup(fix_args);
	if (!wr->args)
		return cmd_fatal("watch: --retry-fix-args: out of memory");
	int argc = 0;
	wr->argv[argc++] = "--retry-fix-args";
	for (char *save = NULL, *a = strtok_r(wr->args, " \t\n", &save); a; a = strtok_r(NULL, " \t\n", &save)) {
		if (argc > WRETRY_MAX_ARGS)
			return cmd_usage_error("watch", "--retry-fix-args: more than %d words", WRETRY_MAX_ARGS);
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return cmd_usage_error("watch", "--retry-fix-args takes fix's search options (--max-bytes SIZE, "
							"--all, --force, --quiet), not '%s'", a);
		wr->argv[argc++] = a;
	}
	wr->argv[argc] = NULL;
	int rc = fix_parse_opts(argc, wr->argv, &wr->fo, "watch"); /* its messages name fix's option */
	if (rc >= 0)
		return rc;
	if (wr->fo.budget_set)
		return cmd_usage_error("watch", "--retry-fix-args: the search's budget is --retry-budget SEC");
	if (wr->fo.command || wr->fo.driver || wr->fo.write_env || wr->fo.form >= 0)
		return cmd_usage_error("watch", "--retry-fix-args: --command, --driver, --write-env and --form are fix's "
						"own (run `nccl-doctor fix` for them); here: --max-bytes, --all, --force, "
						"--quiet, --progress");
	if (wr->fo.quiet)
		wr->fo.progress = false;
	return -1;
}

/* --user NAME (or a uid): the job runs as that user, with its groups and
 * its HOME, USER and LOGNAME. Returns -1 to go on, else the exit status
 * (said on stderr): 64 no such user, 3 not root. */
static int watch_resolve_user(struct watch *w, const char *name)
{
	struct passwd *res = NULL;
	long long uid;
	getpwnam_r(name, &w->pw, w->pwbuf, sizeof(w->pwbuf), &res);
	if (!res && parse_ll(name, 10, &uid) == 0 && uid >= 0 && uid < (long long)(uid_t)-1)
		getpwuid_r((uid_t)uid, &w->pw, w->pwbuf, sizeof(w->pwbuf), &res);
	if (!res)
		return cmd_usage_error("watch", "--user: no user '%s' on this machine", name);
	if (w->pw.pw_uid == geteuid() && w->pw.pw_uid == getuid() && geteuid() != 0)
		return -1; /* already that user: nothing to change */
	if (geteuid() != 0) {
		report_say(stderr, "nccl-doctor watch: --user %s needs root: watch runs as uid %u", name, (unsigned)geteuid());
		return EXIT_CANNOT_RUN;
	}
	int ng = 64;
	for (int tries = 0; tries < 8; tries++) {
		free(w->groups);
		w->groups = xcalloc((size_t)ng, sizeof(gid_t));
		int want = ng;
		if (getgrouplist(w->pw.pw_name, w->pw.pw_gid, w->groups, &want) >= 0) {
			ng = want;
			break;
		}
		if (want <= ng || want > 65536) {
			report_say(stderr, "nccl-doctor watch: --user %s: cannot read the user's groups", name);
			return EXIT_CANNOT_RUN;
		}
		ng = want;
	}
	w->user = (struct sup_user){ .uid = w->pw.pw_uid, .gid = w->pw.pw_gid, .groups = w->groups, .ngroups = ng };
	snprintf(w->user_env[0], sizeof(w->user_env[0]), "HOME=%s", w->pw.pw_dir ? w->pw.pw_dir : "/");
	snprintf(w->user_env[1], sizeof(w->user_env[1]), "USER=%s", w->pw.pw_name);
	snprintf(w->user_env[2], sizeof(w->user_env[2]), "LOGNAME=%s", w->pw.pw_name);
	w->user_set = true;
	return -1;
}

static int parse_options(int argc, char **argv, struct watch_opts *o, int *next)
{
	static const char *const on_stall_names[] = { "report", "kill", "keep", NULL }; /* enum on_stall */
	int on_stall = (int)o->on_stall;
	const struct opt_spec opts[] = {
		OPT_SECONDS("stall", 0, &o->stall, 0.1, 86400, "no output for this long is a stall"),
		OPT_ENUM("on-stall", 0, &on_stall, on_stall_names, "what to do at a stall"),
		OPT_STRING("json", 0, &o->json, "write the diagnosis as JSON to FILE"),
		OPT_STRING("log-dir", 0, &o->log_dir, "also follow the logs written in DIR"),
		OPT_FLAG("nccl-diag", 0, &o->nccl_diag, "set NCCL_RUN_DIAGNOSTICS=1"),
		OPT_STRING("kernel-log", 0, &o->kernel_log, "the kernel log to follow"),
		OPT_FLAG("retry-with-fix", 0, &o->retry, "at a stall, search a configuration and run again"),
		OPT_SECONDS("retry-budget", 0, &o->retry_budget, 10, 86400, "the search's budget"),
		OPT_STRING("retry-fix-args", 0, &o->retry_fix_args, "fix's search options"),
		OPT_STRING("user", 0, &o->user, "run the job as this user"),
		OPT_HELP(),
		OPT_END(),
	};
	int rc = cmd_options("watch", argc, argv, opts, OPT_STOP_AT_ARG, usage, next);
	if (rc >= 0)
		return rc;
	o->on_stall = (enum on_stall)on_stall;
	if (*next >= argc)
		return cmd_usage_error("watch", "no command given: nccl-doctor watch [options] -- CMD [ARGS...]");
	if (!o->retry && (o->retry_fix_args || o->retry_budget > 0))
		return cmd_usage_error("watch", "--retry-budget and --retry-fix-args go with --retry-with-fix");
	return -1; /* go on */
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
	job_release(&w->job);
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
	job_started(&w->job);
	if (r < 0) {
		report_say(stderr, "nccl-doctor watch: cannot run '%s' again: %s", w->spec.argv[0], strerror(-r));
		w->job.exited = true;
		w->job.status = (r == -ENOENT ? 127 : EXIT_CANNOT_RUN) << 8;
	}
}

static void install_signals(void);
static void on_stall(struct watch *w, const struct watch_opts *o, const struct run_opts *opt)
{
	w->nstalls++;
	struct result *r = diagnose(w, false);
	if (o->on_stall != ON_STALL_KEEP) {
		fprintf(stderr, "\nnccl-doctor watch: the job looks stuck (nothing new for %.0f s): diagnosis\n", o->stall);
		struct render_opts ro = { .json = false, .color = opt->color && isatty(STDERR_FILENO) };
		report_render(r, &ro, stderr);
		fflush(stderr);
	}
	if (o->json) {
		json_decref(w->last_stall);
		w->last_stall = report_json(r);
	}
	write_json(w, o->json, r, false);
	bool stopped = false;
	if (o->retry && !w->retried) { /* the job stopped, the fix search on its GPUs */
		w->retried = true;
		stopped = wretry_run(&w->retry, &w->job, on_output, w, &w->gpu, r, opt, stderr);
		install_signals();
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
			write_json(w, o->json, r, false); /* with the search */
	}
	result_free(r);
	fflush(stderr);
	if (!stopped && o->on_stall == ON_STALL_KILL) {
		fprintf(stderr, "nccl-doctor watch: stopping the job (--on-stall kill)\n");
		stop_job(w);
	}
}

static void install_signals(void)
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
	install_signals();
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

static void run_loop(struct watch *w, const struct watch_opts *o, const struct run_opts *opt)
{
	double t_files = 0;
	while (sup_poll(&w->job, w->gpu.running ? 0.05 : 0.2, on_output, w)) {
		double now = nd_now_s();
		if (got_signal) {
			int sig = got_signal;
			got_signal = 0;
			if (w->job.exited)
				break; /* the main process is gone: a signal ends watch at once */
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

int cmd_watch(int argc, char **argv, const struct run_opts *opt)
{
	struct watch_opts o = { .stall = 60, .on_stall = ON_STALL_REPORT };
	int next, r = parse_options(argc, argv, &o, &next);
	if (r >= 0)
		return r;
	/* the global --json flag (main.c takes it wherever it stands) would mean
	 * JSON on stdout, which is the job's */
	if (opt->json)
		return cmd_usage_error("watch", "stdout belongs to the job: write the diagnosis with --json=FILE");
	char jerr[4400];
	if (o.json && outfile_check(o.json, jerr, sizeof(jerr)) < 0) {
		report_say(stderr, "nccl-doctor watch: --json: %s", jerr);
		return EXIT_CANNOT_RUN;
	}
	struct watch *w = xcalloc(1, sizeof(*w));
	/* the job, its processes and the kernel log are this machine's; a
	 * --sysroot gives only the machine facts the diagnosis weighs its
	 * causes with (a container that sees the host's /sys under /host) */
	w->facts_root = sysroot_is_live() ? NULL : xstrdup(sysroot_get());
	sysroot_set(NULL);
	if ((r = wretry_setup(&w->retry, o.retry_budget > 0 ? o.retry_budget : 120, o.retry_fix_args)) >= 0) {
		wretry_release(&w->retry);
		free(w);
		return r;
	}
	nccllog_init(&w->lg);
	privdir_init(&w->dir);
	r = -1;
	if (wkmsg_open(&w->km, o.kernel_log) < 0) {
		report_say(stderr, "nccl-doctor watch: --kernel-log: %s", w->km.why);
		r = EXIT_CANNOT_RUN;
	}
	if (r < 0 && o.user)
		r = watch_resolve_user(w, o.user);
	w->job_uid = w->user_set ? w->user.uid : geteuid();
	if (r < 0 && !wlogdir_make(w, o.log_dir, w->user_set ? &w->pw : NULL))
		r = EXIT_CANNOT_RUN;
	if (r >= 0) {
		wkmsg_release(&w->km);
		whost_release(w);
		wretry_release(&w->retry);
		nccllog_release(&w->lg);
		free(w->groups);
		free(w);
		return r;
	}
	for (int k = 0; k < 2; k++) {
		strbuf_init(&w->streams[k].partial, WATCH_LINE_MAX + 1);
		w->streams[k].file = nccllog_begin_file(&w->lg, k == 0 ? "stdout" : "stderr");
	}
	char debug_file[4200];
	snprintf(debug_file, sizeof(debug_file), "NCCL_DEBUG_FILE=%s/nccl.%%h.%%p", w->dir.path);
	const char *dflt[] = { "NCCL_DEBUG=INFO", debug_file, "PYTHONUNBUFFERED=1", NULL };
	char diag_env[64] = "", diag_note[1200] = "";
	if (o.nccl_diag)
		wnccl_diag_env(argv + next, opt->nccl, diag_env, sizeof(diag_env), diag_note, sizeof(diag_note));
	if (diag_note[0])
		report_say(stderr, "nccl-doctor watch: %s", diag_note);
	int nset = 0;
	if (diag_env[0])
		w->set[nset++] = diag_env;
	for (int k = 0; w->user_set && k < 3; k++)
		w->set[nset++] = w->user_env[k];
	w->set[nset] = NULL;
	wgpu_init(&w->gpu);
	/* the guard removes the private directory when watch is killed */
	w->spec = (struct sup_spec){ .argv = argv + next, .env_set = w->set, .env_default = dflt, .out_fd = 1, .err_fd = 2,
				     .user = w->user_set ? &w->user : NULL, .guard_dirfd = w->dir.fd,
				     .guard_dir = w->own_dir ? w->dir.path : NULL };
	install_signals();
	signal(SIGPIPE, SIG_IGN);
	w->t_start = w->t_activity = nd_now_s();
	wras_init(&w->ras, w->t_start);
	r = sup_start(&w->job, &w->spec);
	job_started(&w->job);
	int code;
	if (r < 0) {
		report_say(stderr, "nccl-doctor watch: cannot run '%s': %s", argv[next], strerror(-r));
		code = r == -ENOENT ? 127 : EXIT_CANNOT_RUN;
	} else {
		run_loop(w, &o, opt);
		code = sup_exit_code(&w->job);
		/* --json=FILE: always a document at exit, a healthy run's too, so
		 * that an old one is never read as this run's */
		bool wrong = w->nstalls || code != 0 || wras_dead(&w->ras);
		if (o.json && !wrong) {
			struct result *sr = diagnose(w, true);
			write_json(w, o.json, sr, true);
			result_free(sr);
		}
		/* the summary: only when something went wrong */
		if (wrong) {
			struct result *sr = diagnose(w, true);
			if (o.json)
				write_json(w, o.json, sr, true);
			fputc('\n', stderr);
			report_say(stderr, "nccl-doctor watch: %s%s", sr->headline ? sr->headline : "the job ended",
				w->nstalls ? " (it stalled before)" : "");
			wretry_summary(&w->retry, stderr);
			for (size_t i = 0; i < sr->nfindings && i < 3; i++)
				if (sr->findings[i]->sev == SEV_ERROR)
					report_say(stderr, "  %s: %s", sr->findings[i]->id, sr->findings[i]->title);
			result_free(sr);
		}
		job_release(&w->job);
	}
	for (int k = 0; k < 2; k++)
		strbuf_release(&w->streams[k].partial);
	wlogdir_remove(w);
	for (int i = 0; i < w->nfiles; i++) {
		free(w->files[i].path);
		strbuf_release(&w->files[i].partial);
	}
	free(w->files);
	for (size_t i = 0; i < w->snames; i++)
		free(w->names[i].name);
	free(w->names);
	free(w->groups);
	wgpu_release(&w->gpu);
	wretry_release(&w->retry);
	wkmsg_release(&w->km);
	whost_release(w);
	wras_release(&w->ras);
	json_decref(w->last_stall);
	nccllog_release(&w->lg);
	free(w);
	return code;
}
