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
 * since the start and NCCL's RAS status (engine/watch_int.h lists those
 * parts). This file parses the options, prepares and starts the job and
 * says the summary at exit; the supervision loop and the diagnosis are
 * engine/watch_loop.c. The exit status is the job's. */
#include "analyze/nccllog.h"
#include "cmd/cmd.h"
#include "cmd/fix.h"
#include "engine/watch_int.h"
#include "engine/watch_ras.h"
#include "engine/watch_state.h"
#include "report/report.h"
#include "run/supervise.h"
#include "util/outfile.h"
#include "util/privdir.h"
#include "util/strbuf.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		"  --retry-budget SEC the most the search may take (default 120; 5 to 86400)\n"
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
		OPT_SECONDS("retry-budget", 0, &o->retry_budget, CMD_BUDGET_MIN, CMD_BUDGET_MAX, "the search's budget"),
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

/* A stall's diagnosis: in order, and said as text on stderr (stdout is the
 * job's) unless --on-stall keep: the first screen, then the whole report
 * (a stall happens once; --full would mean reproducing it). */
static void stall_result(struct result *r, const struct watch_opts *o, const struct run_opts *opt)
{
	cmd_order(r);
	cmd_envelope(r, opt);
	if (o->on_stall == ON_STALL_KEEP)
		return;
	fprintf(stderr, "\nnccl-doctor watch: the job looks stuck (nothing new for %.0f s): diagnosis\n", o->stall);
	struct render_opts ro = { .json = false, .color = opt->color && isatty(STDERR_FILENO), .full = true };
	report_render(r, &ro, stderr);
	fflush(stderr);
}

int cmd_watch(int argc, char **argv, const struct run_opts *opt)
{
	struct watch_opts o = { .stall = 60, .on_stall = ON_STALL_REPORT, .stall_result = stall_result };
	int next, r = parse_options(argc, argv, &o, &next);
	if (r >= 0)
		return r;
	/* the global --json flag (main.c takes it wherever it stands) would mean
	 * JSON on stdout, which is the job's */
	if (opt->json)
		return cmd_usage_error("watch", "stdout belongs to the job: write the diagnosis with --json=FILE");
	if (opt->markdown)
		return cmd_usage_error("watch", "--format markdown: stdout belongs to the job; the diagnosis is text on stderr "
				       "or JSON with --json=FILE");
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
	watch_install_signals();
	signal(SIGPIPE, SIG_IGN);
	w->t_start = w->t_activity = nd_now_s();
	wras_init(&w->ras, w->t_start);
	r = sup_start(&w->job, &w->spec);
	watch_job_started(&w->job);
	int code;
	if (r < 0) {
		report_say(stderr, "nccl-doctor watch: cannot run '%s': %s", argv[next], strerror(-r));
		code = r == -ENOENT ? 127 : EXIT_CANNOT_RUN;
	} else {
		watch_run_loop(w, &o, opt);
		code = sup_exit_code(&w->job);
		/* --json=FILE: always a document at exit, a healthy run's too, so
		 * that an old one is never read as this run's */
		bool wrong = w->nstalls || code != 0 || wras_dead(&w->ras);
		if (o.json && !wrong) {
			struct result *sr = watch_diagnose(w, true);
			cmd_order(sr);
			cmd_envelope(sr, opt);
			watch_write_json(w, o.json, sr, true);
			result_free(sr);
		}
		/* the summary: only when something went wrong */
		if (wrong) {
			struct result *sr = watch_diagnose(w, true);
			cmd_order(sr);
			cmd_envelope(sr, opt);
			if (o.json)
				watch_write_json(w, o.json, sr, true);
			fputc('\n', stderr);
			report_say(stderr, "nccl-doctor watch: %s%s", sr->headline ? sr->headline : "the job ended",
				w->nstalls ? " (it stalled before)" : "");
			wretry_summary(&w->retry, stderr);
			for (size_t i = 0; i < sr->nfindings && i < 3; i++)
				if (sr->findings[i]->sev == SEV_ERROR)
					report_say(stderr, "  %s: %s", sr->findings[i]->id, sr->findings[i]->title);
			result_free(sr);
		}
		watch_job_release(&w->job);
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
