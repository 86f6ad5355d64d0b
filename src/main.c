/* nccl-doctor: finds why NCCL hangs or fails on a GPU server.
 *
 * The command table (git's builtin table): each row names a command, the
 * function that runs it, a one-line summary, and flags. Global options are
 * taken out of argv here, wherever they stand before "--", so that every
 * command accepts them without knowing them. */
#include "cmd/cmd.h"
#include "util/counters.h"
#include "util/priv.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CMD_GPUS: the command honours --gpus (the others say so when it is given). */
enum { CMD_HIDDEN = 1, CMD_GPUS = 2 };

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, const struct run_opts *opt);
	const char *summary;
	unsigned flags;
};

static const struct cmd commands[] = {
	{ "__worker", cmd_worker, "GPU worker process (internal)", CMD_HIDDEN | CMD_GPUS },
	{ "bench", cmd_bench, "collective benchmark compatible with nccl-tests, one process per GPU, deadlines", CMD_GPUS },
	{ "check", cmd_check, "the whole checkup: sys, topo, kernel, p2p, a short all_reduce; a verdict, the cause, the fix", CMD_GPUS },
	{ "explain", cmd_explain, "the knowledge base: an Xid, a finding id, an NCCL variable, a symptom", 0 },
	{ "fix", cmd_fix, "try NCCL configurations for real; the fastest that works, as shell/docker/k8s/vLLM text", CMD_GPUS },
	{ "kernel", cmd_kernel, "kernel log: Xid, PCIe AER, IOMMU faults, EDAC, fallen off the bus", CMD_GPUS },
	{ "logs", cmd_logs, "read NCCL / PyTorch / vLLM logs: stage per rank, ranked causes", 0 },
	{ "p2p", cmd_p2p, "move data between every GPU pair: hangs, corruption, bandwidth, why", CMD_GPUS },
	{ "snapshot", cmd_snapshot, "pack the files and facts nccl-doctor reads into a sysroot archive", 0 },
	{ "sys", cmd_sys, "host facts and checks that need no GPU work", 0 },
	{ "topo", cmd_topo, "GPU-to-GPU matrix, P2P capability, NVLink state", CMD_GPUS },
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
		"  --json           print the result as JSON (docs/json.md)\n"
		"  --sysroot DIR    read /sys, /proc, /dev, /etc under DIR (env NCCL_DOCTOR_SYSROOT)\n"
		"  --gpus LIST      only these GPUs: indices and ranges (0-3,5), UUIDs (GPU-...)\n"
		"                   or PCI bus ids (0000:18:00.0), as in CUDA_VISIBLE_DEVICES\n"
		"  --timeout SEC    deadline for GPU work (default 20 s per query, 30 s per\n"
		"                   communicator test; at most 86400)\n"
		"  --nccl PATH      the libnccl.so.2 to load\n"
		"  --no-color       no colour (also when NO_COLOR is set or stdout is no terminal)\n"
		"  -h, --help       this help; 'nccl-doctor COMMAND --help' for a command\n"
		"  --version        print the version\n"
		"\n"
		"exit status: 0 healthy, 1 warnings only, 2 a problem was found,\n"
		"             3 the tool could not run, 64 bad usage\n");
}

static const struct cmd *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Takes global options out of argv (in place); returns the new argc, or -1
 * after printing a usage error. */
static int take_global_options(int argc, char **argv, struct run_opts *opt, bool *no_color)
{
	int out = 1;
	bool rest = false;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (rest || strcmp(a, "--") == 0) {
			rest = true;
			argv[out++] = a;
			continue;
		}
		static const char *with_arg[] = { "--sysroot", "--gpus", "--timeout", "--nccl" };
		const char *val = NULL;
		int which = -1;
		for (int k = 0; k < 4; k++) {
			size_t n = strlen(with_arg[k]);
			if (strncmp(a, with_arg[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
				which = k;
				if (a[n] == '=') {
					val = a + n + 1;
				} else {
					if (i + 1 >= argc) {
						fprintf(stderr, "nccl-doctor: option '%s' needs a value\n", a);
						return -1;
					}
					val = argv[++i];
				}
				break;
			}
		}
		if (which >= 0) {
			switch (which) {
			case 0: opt->sysroot = val; break;
			case 1: {
				char err[256];
				if (gpusel_parse(val, &opt->gpus, err, sizeof(err)) < 0) {
					fprintf(stderr, "nccl-doctor: --gpus: %s\n", err);
					return -1;
				}
				break;
			}
			case 2:
				if (parse_double(val, &opt->timeout) < 0 || !isfinite(opt->timeout) || opt->timeout <= 0 ||
				    opt->timeout > 86400) {
					fprintf(stderr, "nccl-doctor: --timeout wants seconds, more than 0 and at most 86400, not '%s'\n",
						val);
					return -1;
				}
				break;
			case 3: opt->nccl = val; break;
			}
			continue;
		}
		if (strcmp(a, "--json") == 0) {
			opt->json = true;
			continue;
		}
		if (strcmp(a, "--no-color") == 0 || strcmp(a, "--no-colour") == 0) {
			*no_color = true;
			continue;
		}
		argv[out++] = a;
	}
	argv[out] = NULL;
	return out;
}

int main(int argc, char **argv)
{
	bool no_color = false;
	struct run_opts opt = { 0 };
	argc = take_global_options(argc, argv, &opt, &no_color);
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
	if (first < argc && strcmp(argv[first], "--version") == 0) {
		printf("nccl-doctor %s\n", NCCL_DOCTOR_VERSION);
		return fflush(stdout) == 0 ? 0 : EXIT_CANNOT_RUN;
	}
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

	if (!gpusel_all(&opt.gpus) && !(cmd->flags & CMD_GPUS))
		fprintf(stderr, "nccl-doctor %s: --gpus does not apply to this command and is ignored\n", cmd->name);

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
			return cmd_fatal("cannot use sysroot '%s': %s", root, sr_strerror(r));
		opt.sysroot = root;
	}
	const char *nc = getenv("NO_COLOR");
	opt.color = !no_color && !(nc && *nc) && !opt.json && isatty(STDOUT_FILENO);

	int code = cmd->fn(cargc, cargv, &opt);
	/* the tests' count of costly reads (tests/cli/t170-collect-once.sh) */
	const char *dc = getenv("NCCL_DOCTOR_DEBUG_COUNTS");
	if (dc && strcmp(dc, "1") == 0 && strcmp(cmd->name, "__worker") != 0)
		fprintf(stderr, "collect: pci-scan %ld, worker nvml %ld, worker cuda %ld\n", nd_count_get(ND_COUNT_PCI_SCAN),
			nd_count_get(ND_COUNT_WORKER_NVML), nd_count_get(ND_COUNT_WORKER_CUDA));
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "nccl-doctor: cannot write the output\n");
		return EXIT_CANNOT_RUN;
	}
	return code;
}
