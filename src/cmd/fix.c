/* nccl-doctor fix: the fastest configuration that works here.
 *
 * Gathers the evidence as `check` does (sys, topo, p2p --quick: engine/stages),
 * builds the candidate configurations (analyze/fix_candidates: the
 * environment as given, NCCL_P2P_LEVEL kept to the links that worked,
 * NCCL_P2P_DISABLE=1, P2P and SHM off, NCCL_SOCKET_IFNAME where bootstrap
 * failed, ...) and tries each one for real, fastest expected first, as one
 * process per GPU running all_reduce under deadlines (or the user's own
 * command with --command), until the best candidate that can still pass has
 * passed (engine/fix_search.c). Shows the table, the recommendation with its
 * cost against a healthy machine, the recommendation in the forms people
 * paste, and the permanent fixes with their risks (engine/fix_report.c).
 * Read-only: the only file it writes is --write-env's. */
#include "analyze/bench.h"
#include "analyze/sys.h"
#include "cmd/cmd.h"
#include "cmd/fix.h"
#include "report/report.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ENVFILE_MARK "# nccl-doctor fix: the configuration that worked here"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor fix [--budget SEC] [--force] [--all] [--write-env FILE]\n"
		"                       [--form shell|docker|kubernetes|vllm|torchrun|env-file]\n"
		"                       [--max-bytes SIZE] [--quiet | --progress] [--driver]\n"
		"                       [--command -- CMD ARGS...]\n"
		"\n"
		"Finds the fastest NCCL configuration that works on this machine: looks at the\n"
		"host and every GPU pair (sys, topo, p2p --quick), then tries each candidate\n"
		"configuration (the environment as given, NCCL_P2P_LEVEL kept to the links that\n"
		"worked, NCCL_P2P_DISABLE=1, P2P and SHM off, NCCL_SOCKET_IFNAME when bootstrap\n"
		"fails, ...) for real: one process per GPU, all_reduce (float, sum) at 8 B,\n"
		"1 MiB, 64 MiB and 256 MiB, 5 iterations, results checked, with a deadline for\n"
		"init and for each collective. Stops once the best candidate that can still pass\n"
		"has passed. Prints the table, the recommendation and what it costs against a\n"
		"healthy machine, the recommendation as shell, docker, Kubernetes, vLLM,\n"
		"torchrun and env-file text, and the permanent fixes with their risks.\n"
		"\n"
		"options:\n"
		"  --budget SEC       the most the whole run may take (default 180; 5 to 86400):\n"
		"                     trials that would start past it are listed as not tried\n"
		"  --force            also use GPUs that other processes use\n"
		"  --all              try every candidate (no early stop)\n"
		"  --write-env FILE   write the recommendation as an env file (NAME=value lines)\n"
		"                     to FILE; an existing FILE is replaced only when an earlier\n"
		"                     `fix --write-env` wrote it (its first line says so); a\n"
		"                     link, FIFO or another user's file is refused; written to\n"
		"                     a temporary renamed into place (a failed write leaves the\n"
		"                     old file whole and the search's verdict stands)\n"
		"  --form FORM        print only this form of the recommendation\n"
		"  --max-bytes SIZE   largest all_reduce size (default 256M; 1M or 64M for a\n"
		"                     quicker search)\n"
		"  --command -- CMD   run CMD ARGS under each configuration instead of our\n"
		"                     all_reduce (exit 0 = works); its output is not shown\n"
		"  --quiet            no progress on stderr\n"
		"  --progress         progress on stderr even when it is not a terminal\n"
		"  --driver           with --sysroot: host facts from the tree, GPUs of this machine\n"
		"  -h, --help         this help\n"
		"\n"
		"Never changes the machine: the permanent fixes (setpci, GRUB, systemd) are printed.\n"
		"exit status: 0 the configuration as given works and is fast, 1 another\n"
		"configuration works (or the one given is slow, or NCCL works as given but\n"
		"direct copies between GPUs hang), 2 nothing worked, 3 could not\n"
		"run or finish (no GPU, GPUs wedged or busy, the budget, a --write-env\n"
		"FILE refused before the search), 64 usage\n"
		"verdict (the configuration as given, as check's): HEALTHY, DEGRADED, BROKEN,\n"
		"INCOMPLETE or NOTHING TO CHECK; the search's outcome follows it in the\n"
		"headline (search: NCCL_P2P_LEVEL=PIX works (fix found))\n");
}

static int form_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	enum fix_form f;
	if (fix_form_parse(value, &f) < 0)
		return -1;
	*(int *)target = (int)f;
	return 0;
}

int fix_parse_opts(int argc, char **argv, struct fix_opts *o, const char *who)
{
	bool command = false;
	double budget = NAN;
	const struct opt_spec opts[] = {
		OPT_SECONDS("budget", 0, &budget, CMD_BUDGET_MIN, CMD_BUDGET_MAX, "the most the whole run may take"),
		CMD_OPTS_GPU_RUN(&o->force, &o->quiet, &o->progress_set, &o->driver, &o->max_bytes),
		OPT_FLAG("all", 0, &o->all, "try every candidate (no early stop)"),
		OPT_FILE("write-env", 0, &o->write_env, "write the recommendation as an env file"),
		OPT_CALL("form", 0, &o->form, form_opt, "shell, docker, kubernetes, vllm, torchrun or env-file",
			 "print only this form of the recommendation"),
		OPT_FLAG("command", 0, &command, "run CMD ARGS under each configuration"),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options(who, argc, argv, opts, OPT_STOP_AT_ARG, usage, &next);
	if (rc >= 0)
		return rc;
	if (!isnan(budget))
		o->budget = budget, o->budget_set = true;
	if (o->progress_set)
		o->progress = true;
	if (command) {
		if (next >= argc)
			return cmd_usage_error(who, "--command wants a command after it: --command -- CMD ARGS...");
		o->command = argv + next;
	} else if (next < argc) {
		return cmd_usage_error(who, "unexpected argument '%s' (a command of yours goes after --command --)", argv[next]);
	}
	return -1;
}

/* --write-env: never replaces a file we did not write, nor writes through a
 * link or into a FIFO (util/outfile.h); 0 or -errno with msg. Checked at the
 * start and again just before the write, which goes to a temporary renamed
 * into place. */
static int envfile_check(const char *path, char *msg, size_t sz)
{
	int r = outfile_check(path, msg, sz);
	if (r < 0)
		return r;
	/* an existing regular file of ours: it must carry our first line; opened
	 * without following a link and without blocking, whatever it became */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : (snprintf(msg, sz, "cannot use '%s': %s", path, strerror(errno)), -errno);
	char first[sizeof(ENVFILE_MARK)] = "";
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, first, sizeof(first) - 1) : -1;
	close(fd);
	if (n < (ssize_t)strlen(ENVFILE_MARK) || strncmp(first, ENVFILE_MARK, strlen(ENVFILE_MARK)) != 0) {
		snprintf(msg, sz, "'%s' exists and was not written by nccl-doctor fix: not replaced (remove it or pick another name)", path);
		return -EEXIST;
	}
	return 0;
}

static int envfile_write(const char *path, const struct fix_plan *plan, char *msg, size_t sz)
{
	struct strbuf sb;
	strbuf_init(&sb, 1 << 14);
	strbuf_addf(&sb, "%s\n", ENVFILE_MARK);
	int rc = fix_emit(plan, FIX_FORM_ENVFILE, &sb);
	if (rc < 0)
		snprintf(msg, sz, "cannot write '%s': the configuration cannot be written as an env file", path);
	else if ((rc = envfile_check(path, msg, sz)) == 0)
		rc = outfile_write_all(path, 0644, strbuf_str(&sb), strlen(strbuf_str(&sb)), msg, sz);
	strbuf_release(&sb);
	return rc;
}

/* --command: CMD must be there before anything runs (sup_start searches PATH the same way) */
static bool command_found(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	const char *path = getenv("PATH");
	char dir[4096];
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		if (snprintf(dir, sizeof(dir), "%.*s/%s", (int)n, n ? p : ".", cmd) < (int)sizeof(dir) && access(dir, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

int cmd_fix(int argc, char **argv, const struct run_opts *opt)
{
	struct fix_opts o;
	fix_opts_init(&o);
	int rc = fix_parse_opts(argc, argv, &o, "fix");
	o.quiet |= opt->quiet; /* the global --quiet */
	if (rc >= 0)
		return rc;
	if (opt->progress) /* the global --progress */
		o.progress_set = o.progress = true;
	if (!o.progress_set)
		o.progress = isatty(STDERR_FILENO);
	char msg[512] = "";
	if (o.command && !command_found(o.command[0]))
		return cmd_fatal("fix: cannot run '%s': not found or not executable", o.command[0]);
	if (o.write_env && envfile_check(o.write_env, msg, sizeof(msg)) < 0)
		return cmd_fatal("fix: %s", msg);
	unsigned mask = o.form >= 0 ? 1u << o.form : (1u << FIX_FORM_COUNT) - 1;
	struct fix_session *x = fix_session_run(&o, opt, NULL, mask);
	if (!x)
		return cmd_fatal("fix: out of memory");
	if (x->no_gpu) {
		struct result *r = x->r;
		json_object_set_new(r->extra, "search_outcome", json_string(x->outcome));
		x->r = NULL;
		fix_session_free(x);
		return cmd_finish(r, opt);
	}
	struct result *r = x->r;
	int code = x->code;
	if (o.write_env) {
		struct fix_plan plan;
		if (fix_plan_of(&x->fs, r, &plan) < 0)
			section_note(result_section(r, "fix", "Fix"), "--write-env: nothing written (no configuration worked)");
		else if (envfile_write(o.write_env, &plan, msg, sizeof(msg)) < 0) {
			/* the search's verdict stands; the missing file is said and
			 * keeps the exit status from meaning "healthy" */
			section_note(result_section(r, "fix", "Fix"), "--write-env: nothing written: %s", msg);
			if (code == EXIT_HEALTHY)
				code = EXIT_WARNINGS;
		} else
			section_note(result_section(r, "fix", "Fix"), "the recommendation was written to %s", o.write_env);
		/* and on the first line: the short report has no notes */
		struct section *fs = result_section(r, "fix", "Fix");
		char *h = xstrdup(r->headline ? r->headline : "");
		result_set_headline(r, "%s; %s", h, fs->notes[fs->nnotes - 1]);
		free(h);
	}
	const char *v = x->verdict;
	r->verdict = v;
	json_object_set_new(r->extra, "verdict", json_string(v));
	json_object_set_new(r->extra, "search_outcome", json_string(x->outcome));
	json_object_set_new(r->extra, "exit_code", json_integer(code));
	json_object_set_new(r->extra, "elapsed_s", json_real(round((stages_now() - x->st.t0) * 100) / 100));
	cmd_order(r);
	if (cmd_render(r, opt) < 0 || fflush(stdout) != 0)
		code = EXIT_CANNOT_RUN;
	fix_session_free(x);
	if (msg[0])
		report_say(stderr, "nccl-doctor fix: %s", msg);
	return code;
}
