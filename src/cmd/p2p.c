/* nccl-doctor p2p: its options, then the p2p engine (engine/p2p.c: every
 * GPU pair tested for real, joined with the PCI path, rendered into the
 * result) and report/. */
#include "cmd/cmd.h"
#include "engine/p2p.h"
#include "util/clock.h"
#include "util/progress.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor p2p [--quick] [--force] [--no-nccl] [--size BYTES]\n"
		"                       [--bw-size BYTES] [--gpu-size BYTES] [--reps N] [--driver]\n"
		"\n"
		"Moves data between every pair of GPUs and checks every byte: peer access,\n"
		"a copy-engine copy, a kernel storing into and loading from the peer's memory\n"
		"(the path NCCL's P2P transport uses), and NCCL send/recv between two rank\n"
		"processes. Each pair runs under its own deadline (--timeout, default 20 s):\n"
		"a pair that never completes is HANG with the step named, and the others\n"
		"still run. Statuses: OK, NO_P2P (no peer access: the path through host\n"
		"memory is tested instead), HANG, CORRUPT (first bad offset), SLOW, ERROR,\n"
		"SKIPPED (GPU busy), VOID (GPU wedged by an earlier hang).\n"
		"\n"
		"Without --quick it also measures, one pair at a time, bandwidth matrices\n"
		"(copy engine and SM, one way and both ways, P2P on and off) and latency, and\n"
		"per GPU the local device copy and pinned host-to-device and device-to-host\n"
		"bandwidth (GB = 1e9 bytes, each byte counted once, median of repetitions).\n"
		"Broken or slow pairs are joined with the PCI path between the GPUs (ACS on\n"
		"each bridge), the IOMMU mode and VM facts, with the fix.\n"
		"\n"
		"options:\n"
		"  --quick          function tests only (no bandwidth)\n"
		"  --force          also test GPUs that other processes are using\n"
		"  --no-nccl        skip the NCCL send/recv step\n"
		"  --size BYTES     buffer of the function tests (default 4 MiB)\n"
		"  --bw-size BYTES  buffer of the pair bandwidth tests (default 64 MiB)\n"
		"  --gpu-size BYTES buffer of the per-GPU bandwidth tests (default 512 MiB)\n"
		"  --reps N         repetitions per measurement, median reported (default 10)\n"
		"  --driver         with --sysroot: test this machine's GPUs, PCI facts from the tree\n"
		"  --html FILE      also write the report as one self-contained HTML page (status\n"
		"                   and bandwidth heatmaps of the pairs; docs/html.md)\n"
		"  -h, --help       this help\n"
		"\n"
		"exit status: 0 every pair OK, 1 warnings (NO_P2P, SLOW, skipped GPUs),\n"
		"             2 a pair hung, corrupted data or failed, 3 could not run, 64 usage;\n"
		"verdict: HEALTHY 0, DEGRADED 1, BROKEN 2, INCOMPLETE 3\n");
}

/* --size, --bw-size, --gpu-size (an opt_fn of util/options.h) */
static int size_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	uint64_t b;
	if (parse_size(value, &b) < 0 || b < 4096 || b > (8ULL << 30) || b % 16)
		return -1;
	*(long long *)target = (long long)b;
	return 0;
}

int cmd_p2p(int argc, char **argv, const struct run_opts *opt)
{
	struct run_opts ro = *opt; /* with --html */
	opt = &ro;
	struct p2p_run *p = p2p_run_new(opt);
	/* progress as every command: on a terminal or with --progress, never with --quiet */
	progress_init(&p->prog, "p2p", nd_now_s(),
		      progress_wanted(opt->quiet, opt->progress, isatty(STDERR_FILENO)) ? stderr : NULL);
	bool driver = false;
	static const char size_what[] = "bytes from 4096 to 8 GiB, a multiple of 16 (K, M, G suffixes)";
	const struct opt_spec opts[] = {
		OPT_FLAG("quick", 0, &p->quick, "function tests only"),
		OPT_FLAG("force", 0, &p->force, "also use GPUs that other processes use"),
		OPT_FLAG("no-nccl", 0, &p->no_nccl, "no NCCL send/recv test"),
		OPT_CALL("size", 0, &p->fsize, size_opt, size_what, "bytes of the copy-and-verify tests"),
		OPT_CALL("bw-size", 0, &p->bsize, size_opt, size_what, "bytes of the bandwidth tests"),
		OPT_CALL("gpu-size", 0, &p->gsize, size_opt, size_what, "bytes of the per-GPU tests"),
		OPT_INT("reps", 0, &p->reps, 1, 1000, "repetitions of each measurement"),
		OPT_FLAG("driver", 0, &driver, "with --sysroot: test this machine's GPUs"),
		CMD_OPT_HTML(&ro),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("p2p", argc, argv, opts, 0, usage, &next);
	if (rc >= 0 || (rc = cmd_html_check("p2p", opt)) >= 0) {
		free(p);
		return rc;
	}
	if (next < argc) {
		free(p);
		return cmd_usage_error("p2p", "unexpected argument '%s'", argv[next]);
	}
	if (!sysroot_is_live() && !driver) {
		free(p);
		return cmd_usage_error("p2p", "a recorded sysroot has no GPUs to move data on; add --driver to test this "
					      "machine's GPUs and read the PCI facts from '%s'", sysroot_get());
	}
	struct result *r = result_new("p2p");
	p2p_execute(r, p);
	int code = cmd_finish(r, opt);
	p2p_run_free(p);
	return code;
}
