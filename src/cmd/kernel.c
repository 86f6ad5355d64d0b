/* nccl-doctor kernel: its options, then the kernel log engine
 * (engine/kernel.c: the live ring buffer through <sysroot>/dev/kmsg, or
 * saved dmesg / journalctl -k / kern.log files, or stdin; GPU and platform
 * events mapped to their GPU) and report/. Formats: docs/kernel.md. */
#include "analyze/kernel_analyze.h"
#include "cmd/cmd.h"
#include "engine/kernel.h"
#include "model/machine.h"
#include "util/input.h"
#include "util/text.h"

#include <stdio.h>

static void usage(FILE *out)
{
	fputs("usage: nccl-doctor kernel [--since DURATION] [FILE...]\n"
	      "\n"
	      "Reads the kernel log and reports GPU and platform events: NVIDIA Xid errors,\n"
	      "the driver's GPU-fatal statuses (NV_ERR_RESET_REQUIRED, NV_ERR_GPU_IS_LOST ...),\n"
	      "GPUs fallen off the bus, PCIe AER errors, IOMMU (DMAR / AMD-Vi) faults, EDAC\n"
	      "memory errors and hung tasks in the GPU stack, each mapped to its GPU.\n"
	      "\n"
	      "Without FILE it reads the kernel ring buffer (/dev/kmsg under --sysroot);\n"
	      "that may need root (kernel.dmesg_restrict). FILE may be the output of dmesg\n"
	      "(with or without -T), journalctl -k, a syslog kern.log, a copy of /dev/kmsg,\n"
	      "or '-' for stdin. Compressed files (gzip, zstd, xz, bzip2) are read through\n"
	      "their decompressor; binary and sparse files and character devices (but\n"
	      "/dev/null and /dev/kmsg itself) are refused (util/input.h has the rule).\n"
	      "\n"
	      "options:\n"
	      "  -s, --since DURATION  only events of the last DURATION (90s, 10m, 2h, 3d,\n"
	      "                    1h30m); for files, the last DURATION before the newest line\n"
	      "  --input-timeout SEC  a FIFO, pipe or terminal that sends nothing for SEC\n"
	      "                    seconds ends with an error (default 5; 0: wait for ever)\n"
	      "  -h, --help        this help\n"
	      "\n"
	      "exit status: 0 no GPU problem, 1 warnings, 2 errors found, 3 could not read\n"
	      "(or nothing was read: an empty input is no evidence; or no kernel log record\n"
	      "was found in it: \"cannot tell\"), 64 bad usage; verdict: HEALTHY 0,\n"
	      "DEGRADED 1, BROKEN 2, INCOMPLETE 3, NOTHING TO CHECK 3 (an empty input)\n",
	      out);
}

static int since_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	return parse_duration(value, target) < 0 ? -1 : 0;
}

int cmd_kernel(int argc, char **argv, const struct run_opts *opt)
{
	double since = 0, timeout = INPUT_TIMEOUT_DEFAULT;
	const struct opt_spec opts[] = {
		OPT_CALL("since", 's', &since, since_opt, "a duration such as 90s, 10m, 2h or 3d",
			 "only the events of the last DURATION"),
		INPUT_TIMEOUT_OPTION(&timeout),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("kernel", argc, argv, opts, OPT_STOP_AT_ARG, usage, &next);
	if (rc >= 0)
		return rc;

	struct result *r = result_new("kernel");
	struct machine m;
	machine_init(&m);
	kernel_collect(r, opt, argc - next, argv + next, since, timeout, &m);
	machine_release(&m);
	return cmd_finish(r, opt);
}
