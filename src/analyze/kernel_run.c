/* The kernel check as a unit: the GPUs of the machine, the --since
 * reference times, the analysis (kernel_analyze.h). `kernel` runs it on
 * what it read, and a combined check can run it into its own result. */
#include "analyze/kernel_analyze.h"
#include "util/errtext.h"

size_t kernel_run(struct result *r, struct section *in, struct kparser *kp, const struct kernel_input *ki,
		  const struct machine *mach, size_t *ngpus)
{
	/* GPUs of the machine (or the sysroot) */
	int np = mach->pci_err < 0 ? mach->pci_err : (int)mach->pci.n;
	struct kgpu_map map;
	kgpu_map_build(&map, mach);
	if (in) {
		if (np < 0)
			section_note(in, "no PCI information (%s): events are shown by PCI address only", sr_strerror(np));
		else if (map.n == 0)
			section_note(in, "no NVIDIA GPU on the PCI bus: events are shown by PCI address only");
		if (!ki->from_kmsg && map.n > 0)
			section_note(in, "GPU numbers are those of this machine%s", mach->live ? "" : " (the sysroot)");
		if (ki->gpus && !gpusel_all(ki->gpus))
			section_note(in, "only GPUs %s (--gpus); events of no GPU are kept", ki->gpus->text);
	}
	struct kernel_analyze_opts o = {
		.gpus = ki->gpus,
		.since = ki->since,
		.src_names = ki->src_names,
		.nsrc = ki->nsrc,
		.live = ki->live,
	};
	if (ki->since > 0) {
		if (ki->from_kmsg && mach->have_uptime && mach->uptime_err == 0) {
			o.have_ref_boot = true;
			o.ref_boot = mach->uptime;
		}
		if (!o.have_ref_boot && ki->have_boot) {
			o.have_ref_boot = true;
			o.ref_boot = ki->max_boot;
		}
		if (ki->have_wall) {
			o.have_ref_wall = true;
			o.ref_wall = ki->max_wall;
		}
	}
	size_t kept = kernel_analyze(r, kp, &map, &o);
	*ngpus = map.n;
	kgpu_map_release(&map);
	return kept;
}
