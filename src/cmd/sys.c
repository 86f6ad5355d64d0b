/* nccl-doctor sys: host facts and checks that need no GPU work and no
 * driver call — the PCI tree with ACS and the IOMMU, the driver as the
 * filesystem shows it, every libnccl, /dev/shm and limits, the NCCL and CUDA
 * environment, the bootstrap network. */
#include "analyze/sys.h"
#include "cmd/cmd.h"
#include "collect/collect.h"
#include "util/sysroot.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor sys [--json] [--sysroot DIR]\n"
		"\n"
		"Reads the host's facts without touching the GPUs or the driver: NVIDIA GPUs and\n"
		"NICs on the PCI bus (link width and speed, BARs, AER), ACS on every bridge above\n"
		"the GPUs, the IOMMU mode, the driver and its modules, every libnccl and which one\n"
		"PyTorch loads, /dev/shm and limits, container and VM facts, NCCL_* / CUDA_*\n"
		"variables and nccl.conf, the network interfaces NCCL's bootstrap chooses from.\n"
		"\n"
		"Run it as root to read ACS (PCI config space beyond 64 bytes needs privilege).\n"
		"With --sysroot it reads a tree recorded by 'nccl-doctor snapshot'.\n"
		"\n"
		"exit status: 0 healthy, 1 warnings only, 2 a problem was found, 3 could not\n"
		"run, or no NVIDIA GPU and no driver here (\"nothing to check\"), 64 bad usage;\n"
		"verdict: HEALTHY 0, DEGRADED 1, BROKEN 2, INCOMPLETE 3, NOTHING TO CHECK 3\n");
}

int cmd_sys(int argc, char **argv, const struct run_opts *opt)
{
	const struct opt_spec opts[] = { OPT_HELP(), OPT_END() };
	int next, rc = cmd_options("sys", argc, argv, opts, 0, usage, &next);
	if (rc >= 0)
		return rc;
	if (next < argc)
		return cmd_usage_error("sys", "unexpected argument '%s'", argv[next]);

	struct result *r = result_new("sys");
	struct machine m;
	machine_init(&m);
	collect_sys(&m);
	struct sys_ctx ctx;
	sys_ctx_init(&ctx, &m);
	const char *root = sysroot_get();
	result_set_headline(r, "nccl-doctor sys — %s%s%s%s", m.host.hostname[0] ? m.host.hostname : "this host",
			    *root ? " (sysroot " : "", root, *root ? ")" : "");
	sys_run(r, &ctx);
	const char *special;
	size_t nspecial = sr_special_refused(&special);
	if (nspecial) {
		/* untrusted input: say what was not read and why */
		struct section *s = result_section(r, "sysroot", "Sysroot");
		struct kv *kv = section_add(s, "special_files_refused", "device nodes, FIFOs, sockets",
					    val_int((long long)nspecial));
		kv->mark = MARK_WARN;
		section_note(s, "not read (first: %s): only regular files and directories are read in a sysroot", special);
	}
	if (cmd_no_nvidia_here(m.pci_err ? NULL : &m.pci, &m.drv))
		result_set_nothing_to_check(r, CMD_NO_GPU_TEXT);
	machine_release(&m);
	return cmd_finish(r, opt);
}
