/* nccl-doctor topo: the GPUs and how they connect. Parses its options and
 * renders; the collection (workers, sysfs, matrices, findings) is
 * analyze/topo.c, which `check` calls the same way. */
#include "analyze/topo.h"
#include "cmd/cmd.h"
#include "collect/collect.h"
#include "run/worker.h"
#include "util/sysroot.h"

#include <stdbool.h>
#include <stdio.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor topo [--sysfs | --driver]\n"
		"\n"
		"Shows every GPU (name, PCI address, UUID, NUMA node and CPU affinity, PCIe\n"
		"generation and width, memory, BAR1, persistence, MIG, ECC, pending row\n"
		"remaps), the GPU-to-GPU matrix with the legend of 'nvidia-smi topo -m', NVML's\n"
		"P2P status per pair and the state of each NVLink. NVML and CUDA are queried\n"
		"in worker processes under a deadline (--timeout, default 20 s); when NVML is\n"
		"unavailable or hangs, the matrix comes from the PCI tree in sysfs.\n"
		"\n"
		"options:\n"
		"  --sysfs        do not query the driver: sysfs only\n"
		"  --driver       query this machine's driver even with --sysroot (a tree\n"
		"                 recorded here, or the fake GPU stack's tests)\n"
		"  -h, --help     this help\n"
		"\n"
		"legend:\n"
		"  X    = self\n"
		"  SYS  = through PCIe and the SMP interconnect between NUMA nodes (QPI/UPI)\n"
		"  NODE = through PCIe and the interconnect between host bridges in a NUMA node\n"
		"  PHB  = through PCIe and a PCIe host bridge (typically the CPU)\n"
		"  PXB  = through several PCIe bridges, without a host bridge\n"
		"  PIX  = through at most one PCIe bridge\n"
		"  NV#  = through a bonded set of # NVLinks\n"
		"\n"
		"exit status: 0 healthy, 1 warnings only, 2 a problem was found, 3 could not\n"
		"run, or no NVIDIA GPU and no driver here (\"nothing to check\"), 64 bad usage;\n"
		"verdict: HEALTHY 0, DEGRADED 1, BROKEN 2, INCOMPLETE 3, NOTHING TO CHECK 3\n");
}

int cmd_topo(int argc, char **argv, const struct run_opts *opt)
{
	bool sysfs_only = false, force_driver = false;
	const struct opt_spec opts[] = {
		OPT_FLAG("sysfs", 0, &sysfs_only, "the matrix from sysfs only, no driver"),
		OPT_FLAG("driver", 0, &force_driver, "with --sysroot: ask this machine's driver too"),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("topo", argc, argv, opts, 0, usage, &next);
	if (rc >= 0)
		return rc;
	if (next < argc)
		return cmd_usage_error("topo", "unexpected argument '%s'", argv[next]);

	struct result *r = result_new("topo");
	/* the driver is asked only about the live machine */
	struct topo_params p = {
		.sysfs_only = sysfs_only,
		.ask_driver = !sysfs_only && (sysroot_is_live() || force_driver),
		.gpus = &opt->gpus,
	};
	struct machine m;
	machine_init(&m);
	collect_pci(&m);
	collect_driver(&m);
	if (p.ask_driver)
		collect_gpus(&m, opt_deadline(opt, DEADLINE_QUERY));
	topo_run(r, &p, &m);
	machine_release(&m);
	return cmd_finish(r, opt);
}
