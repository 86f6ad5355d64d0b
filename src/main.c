/* nccl-doctor: finds why NCCL hangs or fails on a GPU server.
 *
 * The command table (git's builtin table): each row names a command, the
 * function that runs it, a one-line summary, and flags. Global options are
 * taken out of argv here, wherever they stand before "--", so that every
 * command accepts them without knowing them. */
#include "cmd/cmd.h"
#include "nd_commit.h" /* generated: ND_GIT_COMMIT (tools/commit.cmake) */
#include "report/report.h"
#include "util/clock.h"
#include "util/counters.h"
#include "util/outfile.h"
#include "util/priv.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* CMD_GPUS: the command honours --gpus; CMD_PROGRESS: it prints progress
 * lines, so --progress means something (the others say so when given);
 * CMD_EXTRA_OUT: it writes the extra output files (--prom, --json-out), the others
 * refuse them. */
enum { CMD_HIDDEN = 1, CMD_GPUS = 2, CMD_PROGRESS = 4, CMD_EXTRA_OUT = 8 };

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, const struct run_opts *opt);
	const char *summary;
	unsigned flags;
};

static const struct cmd commands[] = {
	{ "__worker", cmd_worker, "GPU worker process (internal)", CMD_HIDDEN | CMD_GPUS },
	{ "bench", cmd_bench, "collective benchmark compatible with nccl-tests, one process per GPU, deadlines", CMD_GPUS | CMD_PROGRESS | CMD_EXTRA_OUT },
	{ "check", cmd_check, "the whole checkup: sys, topo, kernel, p2p, a short all_reduce; a verdict, the cause, the fix", CMD_GPUS | CMD_PROGRESS | CMD_EXTRA_OUT },
	{ "explain", cmd_explain, "the knowledge base: an Xid, a finding id, an NCCL variable, a symptom", 0 },
	{ "fix", cmd_fix, "try NCCL configurations for real; the fastest that works, as shell/docker/k8s/vLLM text", CMD_GPUS | CMD_PROGRESS },
	{ "kernel", cmd_kernel, "kernel log: Xid, PCIe AER, IOMMU faults, EDAC, fallen off the bus", CMD_GPUS | CMD_EXTRA_OUT },
	{ "logs", cmd_logs, "read NCCL / PyTorch / vLLM logs: stage per rank, ranked causes", CMD_PROGRESS },
	{ "merge", cmd_merge, "join per-node JSON: worst node first, missing nodes, outliers, drain/cordon lines", CMD_EXTRA_OUT },
	{ "p2p", cmd_p2p, "move data between every GPU pair: hangs, corruption, bandwidth, why", CMD_GPUS | CMD_PROGRESS | CMD_EXTRA_OUT },
	{ "snapshot", cmd_snapshot, "pack the files and facts nccl-doctor reads into a sysroot archive", 0 },
	{ "sys", cmd_sys, "host facts and checks that need no GPU work", CMD_EXTRA_OUT },
	{ "topo", cmd_topo, "GPU-to-GPU matrix, P2P capability, NVLink state", CMD_GPUS | CMD_EXTRA_OUT },
	{ "watch", cmd_watch, "run a job (-- CMD ...), pass its output through, diagnose a stall", 0 },
};

/* Running without a command runs the checkup. */
static const char *default_command = "check";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor [global options] [command] [command options]\n"
		"\n"
		"Finds why NCCL hangs or fails on this machine. Without a command it runs\n"
		"the checkup ('%s').\n"
		"\n"
		"commands:\n",
		default_command);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!(commands[i].flags & CMD_HIDDEN))
			fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"global options (accepted by every command):\n"
		"  --format FORMAT  the result as text (the default), json or markdown (an\n"
		"                   issue report: docs/markdown.md)\n"
		"  --json           print the result as JSON (docs/json.md); --format json\n"
		"  --md             --format markdown\n"
		"  --sysroot DIR    read /sys, /proc, /dev, /etc under DIR (env NCCL_DOCTOR_SYSROOT)\n"
		"  --gpus LIST      only these GPUs: indices and ranges (0-3,5), UUIDs (GPU-...)\n"
		"                   or PCI bus ids (0000:18:00.0), as in CUDA_VISIBLE_DEVICES\n"
		"  --timeout SEC    deadline for GPU work (default 20 s per query, 30 s per\n"
		"                   communicator test; at most 86400)\n"
		"  --nccl PATH      the libnccl.so.2 to load\n"
		"  --quiet          no progress lines on stderr\n"
		"  --progress       progress lines on stderr also when it is no terminal (the\n"
		"                   long commands: check, fix, p2p, bench, logs; the others\n"
		"                   refuse it by name); --quiet wins\n"
		"  --full           the whole text report: every fact, each finding's evidence\n"
		"                   and fixes (check, fix, p2p, logs and kernel print a short\n"
		"                   one by default; --json always has everything)\n"
		"  --no-color       no colour (also when NO_COLOR is set or stdout is no terminal;\n"
		"                   --no-colour works too)\n"
		"  --out PATH       write the result to PATH (through a temporary file and a\n"
		"                   rename) instead of stdout; %%h is the node's name, %%%% a %%:\n"
		"                   'srun nccl-doctor --json --out /shared/r/%%h.json sys'\n"
		"  --node-name NAME the node's name in the JSON (\"hostname\") and in %%h (default:\n"
		"                   the host name; Slurm's SLURMD_NODENAME, Kubernetes' node name)\n"
		"  --reason-line    print only one line, the reason a scheduler records when it\n"
		"                   drains the node ('nccl-doctor: BROKEN ID: title')\n"
		"  --fail-on LEVEL  warning (the default: exit 1 on warnings) or error (warnings\n"
		"                   and INCOMPLETE exit 0; a Slurm prolog drains on any non-zero)\n"
		"  --exit-style S   nagios (the default: 0 1 2 3, below) or npd (node-problem-\n"
		"                   detector: 0 ok, 1 problem, 2 unknown)\n"
		"  --prom FILE      also write the result as Prometheus metrics to FILE, for\n"
		"                   node_exporter's textfile collector (check, sys, kernel,\n"
		"                   topo, p2p, bench, merge; docs/prometheus.md)\n"
		"  --json-out FILE  also write the JSON result (what --json prints) to FILE,\n"
		"                   from the same run as the report on stdout (the commands\n"
		"                   that take --prom)\n"
		"  -h, --help       this help; 'nccl-doctor COMMAND --help' for a command\n"
		"  --version        print the version, the commit and the oldest glibc it runs on\n"
		"\n"
		"exit status and verdict (every command but explain): 0 HEALTHY, 1 DEGRADED\n"
		"             (warnings only) or INCOMPLETE, 2 BROKEN (a problem was found),\n"
		"             3 the tool could not run (INCOMPLETE) or NOTHING TO CHECK (no\n"
		"             GPU and no driver, an empty input), 64 bad usage; --fail-on and\n"
		"             --exit-style change it (docs/fleet.md)\n");
}

/* The version, the commit and the oldest glibc the binary runs on: a
 * release binary's floor is the one its compat header pins (docs/install.md);
 * any other build needs about the glibc it was built against. */
static int print_version(void)
{
	printf("nccl-doctor %s\ncommit: %s\n", NCCL_DOCTOR_VERSION, ND_GIT_COMMIT);
#ifdef ND_GLIBC_FLOOR
	printf("glibc floor: %s (release build)\n", ND_GLIBC_FLOOR);
#else
	printf("glibc floor: %d.%d, the build machine's (not a release build)\n", __GLIBC__, __GLIBC_MINOR__);
#endif
	return fflush(stdout) == 0 ? 0 : EXIT_CANNOT_RUN;
}

static const struct cmd *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int gpus_opt(void *target, const char *value, char *why, size_t whysz)
{
	return gpusel_parse(value, target, why, whysz) < 0 ? -1 : 0;
}

static int timeout_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	double v;
	if (parse_double(value, &v) < 0 || !isfinite(v) || v <= 0 || v > 86400)
		return -1;
	*(double *)target = v;
	return 0;
}

/* The forms --format names, in enum report_format's order. */
static const char *const format_names[] = { "text", "json", "markdown", NULL };
/* --fail-on and --exit-style, in the order of their enums (engine/engine.h) */
static const char *const fail_on_names[] = { "warning", "error", NULL };
static const char *const exit_style_names[] = { "nagios", "npd", NULL };

/* A node name as schedulers write them (and as a file name holds it): letters,
 * digits, '.', '-', '_', at most 255. */
static bool node_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 255 || s[0] == '.' || s[0] == '-')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

static int node_name_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	if (!node_name_ok(value))
		return -1;
	*(const char **)target = value;
	return 0;
}

/* Takes global options out of argv (in place), wherever they stand before
 * "--"; returns the new argc, or -1 after printing a usage error. */
static int take_global_options(int argc, char **argv, struct run_opts *opt, bool *no_color, const char **outp)
{
	int format = -1, fail_on = -1, exit_style = EXIT_STYLE_NAGIOS;
	bool md = false;
	const struct opt_spec globals[] = {
		OPT_ENUM("format", 0, &format, format_names, "the result as text, json or markdown"),
		OPT_FLAG("json", 0, &opt->json, "print the result as JSON"),
		OPT_FLAG("md", 0, &md, "--format markdown"),
		OPT_STRING("sysroot", 0, &opt->sysroot, "read /sys, /proc, /dev, /etc under DIR"),
		OPT_CALL("gpus", 0, &opt->gpus, gpus_opt, "a GPU list", "only these GPUs"),
		OPT_CALL("timeout", 0, &opt->timeout, timeout_opt, "a number of seconds more than 0 and at most 86400",
			 "deadline for GPU work"),
		OPT_STRING("nccl", 0, &opt->nccl, "the libnccl.so.2 to load"),
		OPT_FLAG("quiet", 0, &opt->quiet, "no progress lines on stderr"),
		OPT_FLAG("full", 0, &opt->full, "the whole text report"),
		OPT_FLAG("progress", 0, &opt->progress, "progress lines on stderr also when it is no terminal"),
		OPT_FLAG("no-color", 0, no_color, "no colour"),
		OPT_FLAG("no-colour", 0, no_color, "no colour"),
		OPT_STRING("out", 0, outp, "write the result to PATH"),
		OPT_CALL("node-name", 0, &opt->node, node_name_opt,
			 "a name of letters, digits, '.', '-' and '_' (at most 255)", "the node's name"),
		OPT_FLAG("reason-line", 0, &opt->reason_line, "print only the one-line reason"),
		OPT_ENUM("fail-on", 0, &fail_on, fail_on_names, "which verdict exits non-zero"),
		OPT_ENUM("exit-style", 0, &exit_style, exit_style_names, "nagios or npd exit statuses"),
		OPT_STRING("prom", 0, &opt->prom, "write Prometheus metrics to FILE"),
		OPT_STRING("json-out", 0, &opt->json_out, "also write the JSON result to FILE"),
		OPT_END(),
	};
	const char *dbg = getenv("NCCL_DOCTOR_DEBUG_OPTIONS"); /* tests/cli/t906-help-options.sh */
	if (dbg && strcmp(dbg, "1") == 0) {
		char list[1024];
		opt_list(globals, list, sizeof(list));
		fprintf(stderr, "nccl-doctor: global options: %s\n", list);
	}
	char msg[512];
	int first = opt_parse(argc, argv, globals, OPT_KEEP_UNKNOWN | OPT_EXACT, msg, sizeof(msg));
	if (first < 0) {
		report_say(stderr, "nccl-doctor: %s", msg);
		return -1;
	}
	/* one form: --json and --md are --format json and --format markdown */
	const char *asked[3] = { format >= 0 ? format_names[format] : NULL, opt->json ? "json" : NULL,
				 md ? "markdown" : NULL };
	const char *form = NULL;
	for (size_t i = 0; i < 3; i++) {
		if (!asked[i])
			continue;
		if (form && strcmp(form, asked[i]) != 0) {
			fprintf(stderr, "nccl-doctor: two output forms asked for, %s and %s: give one of --format, --json, --md\n",
				form, asked[i]);
			return -1;
		}
		form = asked[i];
	}
	opt->json = form && strcmp(form, "json") == 0;
	opt->markdown = form && strcmp(form, "markdown") == 0;
	if (opt->reason_line && form) {
		fprintf(stderr, "nccl-doctor: --reason-line is its own output form: give it without --format, --json, --md\n");
		return -1;
	}
	opt->fail_on_given = fail_on >= 0;
	opt->fail_on = fail_on >= 0 ? fail_on : FAIL_ON_WARNING;
	opt->exit_style = exit_style;
	/* what is left, after the command name */
	int out = 1;
	for (int i = first; i < argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	return out;
}

/* The node's name: the sysroot's kernel host name (the live one without a
 * sysroot), when it is one a scheduler could use. "" when unknown. */
static const char *host_node_name(void)
{
	static char name[256];
	if (sr_read_str("/proc/sys/kernel/hostname", name, sizeof(name)) < 0 || !name[0]) {
		name[0] = 0;
		if (sysroot_is_live() && gethostname(name, sizeof(name) - 1) < 0)
			name[0] = 0;
		name[sizeof(name) - 1] = 0;
	}
	return node_name_ok(name) ? name : "";
}

/* --out PATH with %h (the node's name) and %% expanded into buf; NULL
 * after printing why. */
static const char *out_path(const char *pattern, const char *node, char *buf, size_t bufsz)
{
	size_t n = 0;
	for (const char *p = pattern; *p; p++) {
		const char *piece = p;
		size_t len = 1;
		if (*p == '%' && p[1] == 'h') {
			if (!node[0]) {
				fprintf(stderr, "nccl-doctor: --out '%s': %%h, but this host's name is unknown: give --node-name\n",
					pattern);
				return NULL;
			}
			piece = node, len = strlen(node), p++;
		} else if (*p == '%' && p[1] == '%') {
			p++;
		} else if (*p == '%') {
			fprintf(stderr, "nccl-doctor: --out '%s': '%%%.1s' is neither %%h nor %%%%\n", pattern, p + 1);
			return NULL;
		}
		if (n + len >= bufsz) {
			fprintf(stderr, "nccl-doctor: --out '%s': the path is too long\n", pattern);
			return NULL;
		}
		memcpy(buf + n, piece, len);
		n += len;
	}
	buf[n] = 0;
	if (!n) {
		fprintf(stderr, "nccl-doctor: --out: an empty path\n");
		return NULL;
	}
	return buf;
}

int main(int argc, char **argv)
{
	bool no_color = false;
	struct run_opts opt = { .started = nd_now_s() };
	const char *out = NULL;
	argc = take_global_options(argc, argv, &opt, &no_color, &out);
	if (argc < 0) {
		fputs("try 'nccl-doctor --help'\n", stderr);
		return EXIT_USAGE;
	}

	/* options before the command */
	int first = 1;
	if (first < argc && (strcmp(argv[first], "-h") == 0 || strcmp(argv[first], "--help") == 0)) {
		usage(stdout);
		return fflush(stdout) == 0 ? 0 : EXIT_CANNOT_RUN;
	}
	if (first < argc && strcmp(argv[first], "--version") == 0)
		return print_version();
	if (first < argc && strcmp(argv[first], "help") == 0) {
		if (first + 1 < argc && find_command(argv[first + 1])) {
			char *hargv[] = { argv[first + 1], "--help", NULL };
			return find_command(argv[first + 1])->fn(2, hargv, &opt);
		}
		usage(stdout);
		return 0;
	}

	const struct cmd *cmd;
	char *defargv[] = { (char *)default_command, NULL };
	int cargc;
	char **cargv;
	if (first >= argc || argv[first][0] == '-') {
		/* no command: the checkup, with the options given (nccl-doctor --budget 30) */
		cmd = find_command(default_command);
		if (first < argc) {
			argv[first - 1] = (char *)default_command;
			cargc = argc - first + 1;
			cargv = argv + first - 1;
		} else {
			cargc = 1;
			cargv = defargv;
		}
	} else {
		cmd = find_command(argv[first]);
		if (!cmd) {
			fprintf(stderr, "nccl-doctor: '%s' is not a command\ntry 'nccl-doctor --help'\n", argv[first]);
			return EXIT_USAGE;
		}
		cargc = argc - first;
		cargv = argv + first;
	}

	if ((opt.prom || opt.json_out) && !(cmd->flags & CMD_EXTRA_OUT)) {
		fprintf(stderr, "nccl-doctor %s: %s does not apply to this command (check, sys, kernel, topo, p2p, bench and merge take it)\ntry 'nccl-doctor --help'\n",
			cmd->name, opt.prom ? "--prom" : "--json-out");
		return exit_status_map(EXIT_USAGE, opt.fail_on, opt.exit_style);
	}
	if (!gpusel_all(&opt.gpus) && !(cmd->flags & CMD_GPUS))
		fprintf(stderr, "nccl-doctor %s: --gpus does not apply to this command and is ignored\n", cmd->name);
	if (opt.progress && !(cmd->flags & CMD_PROGRESS)) {
		fprintf(stderr, "nccl-doctor %s: --progress does not apply to this command (it prints no progress) and is ignored\n",
			cmd->name);
		opt.progress = false;
	}

	/* as root, the test overrides that name unsafe paths are dropped
	 * before any worker starts (util/priv.h); said once, here */
	size_t nignored;
	priv_sanitize_env();
	const struct priv_note *ign = priv_notes(&nignored);
	for (size_t i = 0; i < nignored; i++) {
		/* the value, unless the reason starts with it */
		size_t vl = strlen(ign[i].value);
		bool named = ign[i].why[0] == '\'' && strncmp(ign[i].why + 1, ign[i].value, vl) == 0 &&
			     ign[i].why[vl + 1] == '\'';
		fprintf(stderr, "nccl-doctor: ignoring %s%s%s%s %s: %s\n", ign[i].variable, named ? "" : " '",
			named ? "" : ign[i].value, named ? "" : "'", geteuid() == 0 ? "as root" : "with raised privileges",
			ign[i].why);
	}

	const char *root = opt.sysroot ? opt.sysroot : getenv("NCCL_DOCTOR_SYSROOT");
	if (root && *root) {
		int r = sysroot_set(root);
		if (r < 0)
			return exit_status_map(cmd_fatal("cannot use sysroot '%s': %s", root, sr_strerror(r)), opt.fail_on,
					       opt.exit_style);
		opt.sysroot = root;
	}
	if (!opt.node)
		opt.node = strcmp(cmd->name, "__worker") == 0 ? "" : host_node_name();

	/* --prom's directory is checked before the run: a check that takes a
	 * minute does not learn only at its end that it cannot be written */
	char perr[512];
	if (opt.prom && outfile_check(opt.prom, perr, sizeof(perr)) < 0)
		return exit_status_map(cmd_fatal("--prom: %s", perr), opt.fail_on, opt.exit_style);
	if (opt.json_out && outfile_check(opt.json_out, perr, sizeof(perr)) < 0)
		return exit_status_map(cmd_fatal("--json-out: %s", perr), opt.fail_on, opt.exit_style);
	/* --out: stdout is a temporary beside the target from here on, renamed
	 * onto it when the command is done (util/outfile.h) */
	struct outfile of = { .dirfd = -1, .fd = -1 };
	char outbuf[4096], oerr[512];
	if (out) {
		const char *path = out_path(out, opt.node, outbuf, sizeof(outbuf));
		if (!path)
			return EXIT_USAGE;
		fflush(stdout);
		if (outfile_open(&of, path, 0644, oerr, sizeof(oerr)) < 0 || dup2(of.fd, STDOUT_FILENO) < 0) {
			if (of.fd >= 0) {
				snprintf(oerr, sizeof(oerr), "cannot write '%s': %s", path, strerror(errno));
				outfile_abort(&of);
			}
			return exit_status_map(cmd_fatal("--out: %s", oerr), opt.fail_on, opt.exit_style);
		}
	}
	const char *nc = getenv("NO_COLOR");
	opt.color = !no_color && !(nc && *nc) && !opt.json && !opt.markdown && !out && isatty(STDOUT_FILENO);

	int code = cmd->fn(cargc, cargv, &opt);
	/* the tests' count of costly reads (tests/cli/t170-collect-once.sh) */
	const char *dc = getenv("NCCL_DOCTOR_DEBUG_COUNTS");
	if (dc && strcmp(dc, "1") == 0 && strcmp(cmd->name, "__worker") != 0)
		fprintf(stderr, "collect: pci-scan %ld, worker nvml %ld, worker cuda %ld\n", nd_count_get(ND_COUNT_PCI_SCAN),
			nd_count_get(ND_COUNT_WORKER_NVML), nd_count_get(ND_COUNT_WORKER_CUDA));
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "nccl-doctor: cannot write the output\n");
		outfile_abort(&of);
		return exit_status_map(EXIT_CANNOT_RUN, opt.fail_on, opt.exit_style);
	}
	struct stat ost;
	if (out && (code == EXIT_USAGE || (fstat(of.fd, &ost) == 0 && ost.st_size == 0))) {
		/* nothing was run, or nothing said (bench's ranks other than
		 * rank 0 under mpirun): the last result stays */
		outfile_abort(&of);
	} else if (out && outfile_commit(&of, oerr, sizeof(oerr)) < 0) {
		fprintf(stderr, "nccl-doctor: --out: %s\n", oerr);
		code = EXIT_CANNOT_RUN;
	}
	return strcmp(cmd->name, "__worker") == 0 ? code : exit_status_map(code, opt.fail_on, opt.exit_style);
}
