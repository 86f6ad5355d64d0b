/* `sys`: GPUs and NICs on the PCI bus, their links, BARs and AER counters,
 * the bridges between them with their ACS state, and the IOMMU. */
#include "analyze/sys.h"
#include "kb/findings.h"
#include "util/errtext.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *nvidia_device_name(unsigned device)
{
	/* a few common data-centre and workstation parts, for display only (pci.ids) */
	static const struct {
		unsigned id;
		const char *name;
	} names[] = {
		{ 0x2335, "H200" }, { 0x2330, "H100 SXM5 80GB" }, { 0x2331, "H100 PCIe" },
		{ 0x2321, "H100 NVL" }, { 0x2324, "H800" }, { 0x20b0, "A100 SXM4 40GB" },
		{ 0x20b2, "A100 SXM4 80GB" }, { 0x20b5, "A100 PCIe 80GB" }, { 0x20f1, "A100 PCIe 40GB" },
		{ 0x20b3, "A100 SXM 64GB" }, { 0x26b9, "L40S" }, { 0x26b5, "L40" }, { 0x27b8, "L4" },
		{ 0x1db6, "V100 PCIe 32GB" }, { 0x1db5, "V100 SXM2 32GB" }, { 0x1db1, "V100 SXM2 16GB" },
		{ 0x1eb8, "T4" }, { 0x2684, "GeForce RTX 4090" }, { 0x2204, "GeForce RTX 3090" },
		{ 0x2901, "B200" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].id == device)
			return names[i].name;
	return NULL;
}

static uint64_t bar_size(const struct pci_bar *b)
{
	return b->start || b->end ? b->end - b->start + 1 : 0;
}

/* NVIDIA's BAR1 (the framebuffer aperture peers map) is the second memory
 * BAR: resource index 1 when BAR0 is 32-bit, index 2 when BAR0 is 64-bit
 * and takes two registers (as on the H200 seen in a VM). Returns its index
 * or -1. */
static int gpu_bar1_index(const struct pci_dev *d)
{
	int seen = 0;
	for (int i = 0; i < d->nbars && i < 6; i++) {
		if (!bar_size(&d->bars[i]))
			continue;
		if (++seen == 2)
			return i;
	}
	return -1;
}

static const char *link_text(double speed, int width, char *buf, size_t bufsz)
{
	int gen = pci_speed_gen(speed);
	if (!gen && !width)
		snprintf(buf, bufsz, "unknown");
	else if (!gen)
		snprintf(buf, bufsz, "x%d", width);
	else
		snprintf(buf, bufsz, "Gen%d x%d", gen, width);
	return buf;
}

/* Is bridge b on the path from device a to the common ancestor with c? The
 * bridges that matter for P2P between a and c: those on either path that are
 * below their common ancestor (all of them when there is none). */
static int relevant_bridges(const struct pci_list *l, const struct pci_dev *a, const struct pci_dev *c,
			    const struct pci_dev **out, int max)
{
	const struct pci_dev *pa[32], *pc[32];
	int na = pci_path_to_root(l, a, pa, 32), nc = pci_path_to_root(l, c, pc, 32);
	int n = 0;
	int common_a = na, common_c = nc;
	for (int i = 0; i < na && common_a == na; i++)
		for (int j = 0; j < nc; j++)
			if (pa[i] == pc[j]) {
				common_a = i;
				common_c = j;
				break;
			}
	for (int i = 0; i < common_a && n < max; i++)
		out[n++] = pa[i];
	for (int j = 0; j < common_c && n < max; j++) {
		bool dup = false;
		for (int k = 0; k < n; k++)
			dup |= out[k] == pc[j];
		if (!dup)
			out[n++] = pc[j];
	}
	return n;
}

struct bridge_use {
	const struct pci_dev *bridge;
	bool gpu_gpu;   /* between two GPUs */
	bool gpu_nic;   /* between a GPU and an RDMA NIC */
	char between[128];
};

static void note_bridges(struct bridge_use *uses, int *nuses, int max, const struct pci_list *l,
			 const struct pci_dev *a, const struct pci_dev *c, bool gpu_gpu)
{
	const struct pci_dev *br[64];
	int n = relevant_bridges(l, a, c, br, 64);
	for (int i = 0; i < n; i++) {
		int k;
		for (k = 0; k < *nuses; k++)
			if (uses[k].bridge == br[i])
				break;
		if (k == *nuses) {
			if (*nuses >= max)
				return;
			memset(&uses[k], 0, sizeof(uses[k]));
			uses[k].bridge = br[i];
			snprintf(uses[k].between, sizeof(uses[k].between), "%s and %s", a->bdf, c->bdf);
			(*nuses)++;
		}
		if (gpu_gpu)
			uses[k].gpu_gpu = true;
		else
			uses[k].gpu_nic = true;
	}
}

static bool is_rdma_nic(const struct pci_dev *d)
{
	return pci_is_nic(d) && (d->vendor == PCI_VENDOR_MELLANOX || d->vendor == PCI_VENDOR_NVIDIA);
}

static void report_acs(struct result *r, struct sys_ctx *c, const struct pci_dev **gpus, int ng)
{
	struct bridge_use uses[128];
	int nuses = 0;
	for (int i = 0; i < ng; i++)
		for (int j = i + 1; j < ng; j++)
			note_bridges(uses, &nuses, 128, c->pci, gpus[i], gpus[j], true);
	for (int i = 0; i < ng; i++)
		for (size_t k = 0; k < c->pci->n; k++)
			if (is_rdma_nic(&c->pci->devs[k]) && c->pci->devs[k].bdf[11] == '0')
				note_bridges(uses, &nuses, 128, c->pci, gpus[i], &c->pci->devs[k], false);
	/* every bridge above a GPU, for the table */
	struct section *s = result_section(r, "pcie_bridges", "PCIe bridges above GPUs");
	static const struct column cols[] = {
		{ "bdf", "BRIDGE", 0 },      { "device", "ID", 0 },          { "above", "ABOVE", 0 },
		{ "acs", "ACS", 0 },         { "acs_ctrl", "ACSCTL", 0 },    { "redirect", "REDIRECT", 0 },
		{ "link", "LINK", SHOW_TEXT_ONLY }, { "acs_ctrl_bits", "", SHOW_JSON_ONLY },
		{ "p2p_path", "", SHOW_JSON_ONLY },
	};
	struct table *t = section_table(s, "bridges", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	const struct pci_dev *seen[256];
	int nseen = 0;
	const struct pci_dev *redirect[128], *unknown[128];
	int nred = 0, nunk = 0, nred_gpu = 0;
	for (int g = 0; g < ng; g++) {
		const struct pci_dev *path[32];
		int np = pci_path_to_root(c->pci, gpus[g], path, 32);
		for (int i = 0; i < np; i++) {
			bool dup = false;
			for (int k = 0; k < nseen; k++)
				dup |= seen[k] == path[i];
			if (dup || nseen >= 256)
				continue;
			seen[nseen++] = path[i];
			const struct pci_dev *b = path[i];
			size_t row = table_add_row(t);
			char buf[256];
			table_set(t, row, "bdf", val_str(b->bdf));
			table_set(t, row, "device", val_strf("%04x:%04x", b->vendor, b->device));
			/* the GPUs below this bridge */
			buf[0] = '\0';
			size_t blen = 0;
			for (int h = 0; h < ng; h++) {
				const struct pci_dev *p2[32];
				int n2 = pci_path_to_root(c->pci, gpus[h], p2, 32);
				for (int k = 0; k < n2; k++)
					if (p2[k] == b)
						str_appendf(buf, sizeof(buf), &blen, "%sGPU%d", blen ? "," : "", h);
			}
			table_set(t, row, "above", val_str(buf));
			bool on_path = false;
			for (int k = 0; k < nuses; k++)
				if (uses[k].bridge == b)
					on_path = true;
			table_set(t, row, "p2p_path", val_bool(on_path));
			char l1[32], l2[32];
			table_set(t, row, "link", val_strf("%s/%s", link_text(b->cur_speed, b->cur_width, l1, sizeof(l1)),
							    link_text(b->max_speed, b->max_width, l2, sizeof(l2))));
			switch (b->acs) {
			case ACS_PRESENT:
				table_set(t, row, "acs", val_str("present"));
				table_set(t, row, "acs_ctrl", val_strf("0x%04x", b->acs_ctrl));
				table_set(t, row, "acs_ctrl_bits", val_str(pci_acs_ctrl_text(b->acs_ctrl, buf, sizeof(buf))));
				table_set(t, row, "redirect", val_bool((b->acs_ctrl & ACS_REDIRECT_BITS) != 0));
				if (b->acs_ctrl & ACS_REDIRECT_BITS) {
					table_mark(t, row, "redirect", on_path ? MARK_BAD : MARK_WARN);
					if (on_path && nred < 128)
						redirect[nred++] = b;
				}
				break;
			case ACS_ABSENT:
				table_set(t, row, "acs", val_str("none"));
				table_set(t, row, "redirect", val_bool(false));
				break;
			case ACS_UNKNOWN_NEEDS_ROOT:
				table_set(t, row, "acs", val_unknown("needs root"));
				table_set(t, row, "redirect", val_unknown("needs root"));
				table_mark(t, row, "acs", MARK_WARN);
				if (on_path && nunk < 128)
					unknown[nunk++] = b;
				break;
			default:
				table_set(t, row, "acs", val_unknown(b->config_len < 0 ? sr_reason(b->config_len) : "unreadable"));
				table_set(t, row, "redirect", val_unknown("unreadable"));
				if (on_path && nunk < 128)
					unknown[nunk++] = b;
				break;
			}
		}
	}
	if (nseen == 0 && ng > 0)
		section_note(s, "no bridge between the GPUs and the root complex (GPUs sit on a root bus)");

	for (int i = 0; i < nred; i++)
		for (int k = 0; k < nuses; k++)
			if (uses[k].bridge == redirect[i] && uses[k].gpu_gpu)
				nred_gpu++;
	if (nred) {
		struct finding *f = finding_add(r, FID_ACS_REDIRECT_ENABLED, nred_gpu ? SEV_ERROR : SEV_WARNING,
			"ACS redirect is on at %d bridge%s on the P2P path%s", nred, nred == 1 ? "" : "s",
			nred_gpu ? " between GPUs" : " between GPUs and RDMA NICs");
		char list[1024] = "";
		size_t llen = 0;
		for (int i = 0; i < nred; i++) {
			char bits[160];
			const char *between = "";
			for (int k = 0; k < nuses; k++)
				if (uses[k].bridge == redirect[i])
					between = uses[k].between;
			finding_evidence(f, NULL, 0, "bridge %s (on the path between %s): ACSCtl 0x%04x: %s", redirect[i]->bdf,
					 between, redirect[i]->acs_ctrl, pci_acs_ctrl_text(redirect[i]->acs_ctrl, bits, sizeof(bits)));
			str_appendf(list, sizeof(list), &llen, "%s%s", llen ? ";" : "", redirect[i]->bdf);
		}
		for (int i = 0; i < nred; i++)
			finding_fix(f, "shell", i == 0 ? "clears ACS control on the bridge at once; lost at reboot or when the device is reset; needs root (lspci/setpci from pciutils)" : NULL,
				    "sudo setpci -s %s ECAP_ACS+0x6.w=0000", redirect[i]->bdf);
		finding_fix(f, "kernel", "permanent: add to GRUB_CMDLINE_LINUX in /etc/default/grub, update-grub, reboot; keeps ACS for VMs elsewhere but removes isolation between these devices",
			    "pci=disable_acs_redir=%s", list);
		finding_fix(f, "bios", "the cleanest: disable ACS (or PCIe ACS control) for these ports in the BIOS setup; VMs with passthrough need ACS, so not on virtualisation hosts", "disable ACS in the BIOS");
		finding_fix(f, "env", "works without root or reboot; costs P2P bandwidth (traffic goes through host shared memory)", "NCCL_P2P_DISABLE=1");
	}
	if (nunk && ng >= 1) {
		int nroot = 0; /* unknown for want of root: the 64-byte view, or refused */
		for (int i = 0; i < nunk; i++)
			nroot += unknown[i]->config_len == 64 || unknown[i]->config_len == -EACCES ||
				 unknown[i]->config_len == -EPERM;
		struct finding *f = finding_add(r, FID_ACS_UNKNOWN_NEEDS_ROOT, ng >= 2 ? SEV_WARNING : SEV_INFO,
			"ACS state of %d bridge%s above the GPUs is unknown: %s", nunk, nunk == 1 ? "" : "s",
			nroot == nunk ? "reading it needs root" : nroot ? "some need root, some config space could not be read"
								  : "the config space could not be read");
		for (int i = 0; i < nunk && i < 8; i++) {
			int len = unknown[i]->config_len;
			if (len < 0)
				finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s/config: config space unreadable (%s%s)",
						 unknown[i]->bdf, sr_strerror(len),
						 len == -EACCES || len == -EPERM ? ": needs root" : "");
			else if (len == 64)
				finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s/config: 64 bytes readable (the unprivileged view: "
						 "the extended capabilities, ACS among them, need root)", unknown[i]->bdf);
			else
				finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s/config: only %d bytes readable (cut short)",
						 unknown[i]->bdf, len);
		}
		finding_fix(f, "shell", "reads the full config space, including ACS", "sudo nccl-doctor sys");
	}
}

static void report_iommu(struct result *r, struct sys_ctx *c, const struct pci_dev **gpus, int ng)
{
	struct section *s = result_section(r, "iommu", "IOMMU");
	const struct machine *m = c->m;
	char list[512] = "";
	size_t llen = 0;
	if (m->iommu_err >= 0) {
		for (size_t i = 0; i < m->niommu_units; i++) {
			str_appendf(list, sizeof(list), &llen, "%s%s", llen ? " " : "", m->iommu_units[i]);
		}
		section_add(s, "units", "IOMMU units", m->niommu_units ? val_str(list) : val_str("none"));
	} else {
		section_add(s, "units", "IOMMU units", val_str("none"));
	}
	const struct host_facts *h = c->host;
	char v[128];
	struct { const char *key; } keys[] = { { "intel_iommu" }, { "amd_iommu" }, { "iommu" }, { "iommu.passthrough" },
					       { "iommu.strict" }, { "pci" }, { "pcie_aspm" } };
	char cmd[512] = "";
	size_t clen = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (h->cmdline_known && cmdline_get(h->cmdline, keys[i].key, v, sizeof(v))) {
			str_appendf(cmd, sizeof(cmd), &clen, "%s%s%s%s", clen ? " " : "", keys[i].key, *v ? "=" : "", v);
		}
	}
	section_add(s, "cmdline", "kernel parameters", h->cmdline_known ? val_str(*cmd ? cmd : "(none of intel_iommu, amd_iommu, iommu=, iommu.passthrough)") : val_unknown("cannot read /proc/cmdline"));
	int translated = 0;
	char tlist[256] = "";
	char types[256] = "";
	size_t tllen = 0, tylen = 0;
	for (int g = 0; g < ng; g++) {
		const struct pci_dev *d = gpus[g];
		char type[32] = "";
		if (d->iommu_group[0]) {
			const char *t = NULL;
			if (machine_iommu_group_type(m, d->iommu_group, &t) < 0)
				str_copy(type, "unknown", sizeof(type));
			else
				str_copy(type, t, sizeof(type));
		} else {
			str_copy(type, "no group", sizeof(type));
		}
		str_appendf(types, sizeof(types), &tylen, "%sGPU%d %s", tylen ? ", " : "", g, type);
		if (strcmp(type, "DMA") == 0 || strcmp(type, "DMA-FQ") == 0) {
			translated++;
			str_appendf(tlist, sizeof(tlist), &tllen, "%s%s (group %s, %s)", tllen ? ", " : "", d->bdf,
				    d->iommu_group, type);
		}
	}
	if (ng)
		section_add(s, "gpu_domains", "GPU IOMMU domains", val_str(types));
	if (translated) {
		bool amd = str_casestr(h->cpu.vendor, "AMD") != NULL;
		struct finding *f = finding_add(r, FID_IOMMU_TRANSLATED, ng >= 2 ? SEV_ERROR : SEV_INFO,
			"%d GPU%s in translated IOMMU domains: PCIe P2P through the root complex faults", translated,
			translated == 1 ? " is" : "s are");
		finding_evidence(f, NULL, 0, "iommu_group type: %s", tlist);
		if (h->cmdline_known)
			finding_evidence(f, "/proc/cmdline", 0, "%s", *cmd ? cmd : "(no iommu parameter: the kernel's default is translated)");
		finding_fix(f, "kernel", "passthrough for host devices, translation kept for VMs; needs a reboot",
			    "GRUB_CMDLINE_LINUX=\"... %s iommu=pt\" in /etc/default/grub, then update-grub (or grub2-mkconfig -o /boot/grub2/grub.cfg) and reboot",
			    amd ? "amd_iommu=on" : "intel_iommu=on");
		finding_fix(f, "kernel", "same effect, architecture neutral", "iommu.passthrough=1");
		finding_fix(f, "env", "no reboot; costs P2P bandwidth", "NCCL_P2P_DISABLE=1");
	}
}

/* Findings of GPU g's link, BAR1, AER counters and NUMA node; marks its
 * row of the table. */
/* The physical checks for a PCIe link that trained narrower than it can,
 * cheapest first. */
static void pcie_link_checks(struct finding *f, const char *what, const char *bdf)
{
	finding_fix(f, "shell", "LnkCap: what the device can do; LnkSta: what trained; compare after each step below",
		    "sudo lspci -vv -s %s | grep -E 'LnkCap|LnkSta'", bdf);
	finding_fix(f, "note", "power off first; a loose riser or cable is the usual cause",
		    "reseat the %s and its riser or cable", what);
	finding_fix(f, "note", "some slots are wired x8 or share lanes with another slot or M.2 (the board manual says which)",
		    "move the %s to a slot wired x16", what);
	finding_fix(f, "bios", "a slot split x8x8 or x4x4x4x4, or a forced lower generation, caps the link",
		    "check the slot's bifurcation (x16) and its PCIe link speed (Auto or the highest generation)");
}

static void gpu_findings(struct result *r, const struct sys_ctx *c, struct table *t, size_t row,
			 const struct pci_dev *d, int g)
{
	char buf[64];
	int b1 = gpu_bar1_index(d);
	uint64_t bar1 = b1 >= 0 ? bar_size(&d->bars[b1]) : 0;
	if (d->cur_width && d->max_width && d->cur_width < d->max_width) {
		table_mark(t, row, "link", MARK_BAD);
		struct finding *f = finding_add(r, FID_PCIE_LINK_DOWNTRAINED, SEV_WARNING,
			"GPU%d (%s) PCIe link runs at x%d of x%d", g, d->bdf, d->cur_width, d->max_width);
		finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s: current_link_width %d, max_link_width %d", d->bdf,
				 d->cur_width, d->max_width);
		pcie_link_checks(f, "GPU", d->bdf);
	} else if (d->cur_speed > 0 && d->max_speed > 0 && d->cur_speed < d->max_speed) {
		table_mark(t, row, "link", MARK_WARN);
		struct finding *f = finding_add(r, FID_PCIE_LINK_SPEED_REDUCED, SEV_INFO,
			"GPU%d (%s) PCIe link at Gen%d of Gen%d (normal at idle)", g, d->bdf,
			pci_speed_gen(d->cur_speed), pci_speed_gen(d->max_speed));
		finding_evidence(f, NULL, 0, "current_link_speed %.1f GT/s, max_link_speed %.1f GT/s", d->cur_speed, d->max_speed);
		finding_fix(f, "shell", "watch the link generation while a transfer runs", "nvidia-smi -q -d PCIE");
	}
	if (b1 >= 0 && bar1 && bar1 <= (256ULL << 20) && d->max_speed >= 16) {
		struct finding *f = finding_add(r, FID_GPU_BAR1_SMALL, SEV_WARNING, "GPU%d (%s) BAR1 is only %s", g,
						       d->bdf, fmt_bytes(bar1, buf, sizeof(buf)));
		finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s/resource line %d: 0x%llx-0x%llx", d->bdf, b1 + 1,
				 (unsigned long long)d->bars[b1].start, (unsigned long long)d->bars[b1].end);
		finding_fix(f, "bios", NULL, "enable Above 4G Decoding and Resizable BAR");
	}
	if ((d->aer_nonfatal > 0 || d->aer_fatal > 0) || d->aer_correctable > 100) {
		table_mark(t, row, "aer", d->aer_fatal > 0 ? MARK_BAD : MARK_WARN);
		struct finding *f = finding_add(r, FID_PCIE_AER_ERRORS, d->aer_fatal > 0 ? SEV_ERROR : SEV_WARNING,
			"GPU%d (%s) counted PCIe errors: %lld correctable, %lld non-fatal, %lld fatal", g, d->bdf,
			d->aer_correctable, d->aer_nonfatal < 0 ? 0 : d->aer_nonfatal, d->aer_fatal < 0 ? 0 : d->aer_fatal);
		finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s/aer_dev_*", d->bdf);
		finding_fix(f, "shell", "the kernel's messages about these errors", "nccl-doctor kernel");
	}
	if (c->host->numa_nodes > 1 && d->numa_node < 0) {
		struct finding *f = finding_add(r, FID_NUMA_NODE_UNKNOWN, SEV_INFO,
			"GPU%d (%s) has no NUMA node on a %d-node host", g, d->bdf, c->host->numa_nodes);
		finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s/numa_node: -1", d->bdf);
		finding_fix(f, "shell", "bind each rank to its GPU's socket by hand", "numactl --cpunodebind=N --membind=N ...");
	}
}

/* NICs that matter for NCCL, and their links. */
static void report_nics(struct result *r, const struct sys_ctx *c)
{
	struct section *ns = result_section(r, "nics", "Network adapters (PCI)");
	static const struct column ncols[] = {
		{ "bdf", "BDF", 0 }, { "vendor_device", "ID", 0 }, { "numa_node", "NUMA", 0 },
		{ "link", "LINK (CUR/MAX)", SHOW_TEXT_ONLY }, { "link_width", "", SHOW_JSON_ONLY },
		{ "max_link_width", "", SHOW_JSON_ONLY }, { "driver", "DRIVER", 0 }, { "sriov_vfs", "VFS", 0 },
	};
	struct table *nt = section_table(ns, "nics", NULL, ncols, sizeof(ncols) / sizeof(ncols[0]));
	for (size_t i = 0; i < c->pci->n; i++) {
		const struct pci_dev *d = &c->pci->devs[i];
		if (!pci_is_nic(d))
			continue;
		size_t row = table_add_row(nt);
		char l1[32], l2[32];
		table_set(nt, row, "bdf", val_str(d->bdf));
		table_set(nt, row, "vendor_device", val_strf("%04x:%04x%s", d->vendor, d->device,
							      d->vendor == PCI_VENDOR_MELLANOX ? " (Mellanox)" : ""));
		table_set(nt, row, "numa_node", d->numa_node >= 0 ? val_int(d->numa_node) : val_unknown("none"));
		table_set(nt, row, "link", val_strf("%s / %s", link_text(d->cur_speed, d->cur_width, l1, sizeof(l1)),
						    link_text(d->max_speed, d->max_width, l2, sizeof(l2))));
		table_set(nt, row, "link_width", d->cur_width ? val_int(d->cur_width) : val_none());
		table_set(nt, row, "max_link_width", d->max_width ? val_int(d->max_width) : val_none());
		table_set(nt, row, "driver", d->driver[0] ? val_str(d->driver) : val_str("none"));
		table_set(nt, row, "sriov_vfs", d->sriov_totalvfs >= 0 ? val_strf("%d/%d", d->sriov_numvfs, d->sriov_totalvfs) : val_str("-"));
		if (d->cur_width && d->max_width && d->cur_width < d->max_width && is_rdma_nic(d)) {
			struct finding *f = finding_add(r, FID_PCIE_LINK_DOWNTRAINED, SEV_WARNING,
				"NIC %s PCIe link runs at x%d of x%d", d->bdf, d->cur_width, d->max_width);
			finding_evidence(f, NULL, 0, "/sys/bus/pci/devices/%s: current_link_width %d, max_link_width %d", d->bdf,
					 d->cur_width, d->max_width);
			pcie_link_checks(f, "NIC", d->bdf);
		}
	}
	if (nt->nrows == 0)
		section_note(ns, "no network adapter on the PCI bus (virtio or none)");

}

/* A VM presenting several GPUs directly on the root bus. */
static void report_vm_flat(struct result *r, const struct sys_ctx *c, const struct pci_dev **gpus, int ng)
{
	if (c->host->is_vm && ng >= 2) {
		int flat = 0;
		for (int g = 0; g < ng; g++)
			flat += gpus[g]->parent[0] == '\0';
		if (flat == ng) {
			struct finding *f = finding_add(r, FID_VM_FLAT_PCI_TOPOLOGY, SEV_WARNING,
				"all %d GPUs sit on the VM's root bus: the real PCIe topology is hidden", ng);
			for (int g = 0; g < ng && g < 8; g++)
				finding_evidence(f, NULL, 0, "GPU%d at %s has no parent bridge", g, gpus[g]->bdf);
			finding_fix(f, "shell", "what the hypervisor reports for P2P per pair (capability only: a real copy test is the proof)", "nvidia-smi topo -p2p rw");
			finding_fix(f, "env", "when P2P hangs in the VM", "NCCL_P2P_DISABLE=1");
		}
	}
}

void sys_report_pci(struct result *r, struct sys_ctx *c)
{
	struct section *s = result_section(r, "gpus", "GPUs (PCI)");
	if (c->pci_err) {
		section_add(s, "pci", "PCI devices", val_unknown(sr_reason(c->pci_err)));
		finding_add(r, FID_SYSROOT_INCOMPLETE, SEV_INFO, "cannot list /sys/bus/pci/devices: %s",
				   sr_strerror(c->pci_err));
		return;
	}
	const struct pci_dev *gpus[64];
	int ng = 0;
	for (size_t i = 0; i < c->pci->n && ng < 64; i++)
		if (pci_is_nvidia_gpu(&c->pci->devs[i]))
			gpus[ng++] = &c->pci->devs[i];
	static const struct column cols[] = {
		{ "index", "#", 0 },          { "bdf", "BDF", 0 },         { "name", "NAME", 0 },
		{ "device_id", "ID", 0 },     { "numa_node", "NUMA", 0 },  { "local_cpus", "CPUS", 0 },
		{ "link", "LINK (CUR/MAX)", SHOW_TEXT_ONLY },
		{ "link_speed_gts", "", SHOW_JSON_ONLY }, { "link_width", "", SHOW_JSON_ONLY },
		{ "max_link_speed_gts", "", SHOW_JSON_ONLY }, { "max_link_width", "", SHOW_JSON_ONLY },
		{ "bar1", "BAR1", SHOW_TEXT_ONLY }, { "bar1_bytes", "", SHOW_JSON_ONLY },
		{ "iommu_group", "IOMMU", 0 }, { "driver", "DRIVER", 0 },
		{ "aer", "AER C/NF/F", SHOW_TEXT_ONLY },
		{ "aer_correctable", "", SHOW_JSON_ONLY }, { "aer_nonfatal", "", SHOW_JSON_ONLY }, { "aer_fatal", "", SHOW_JSON_ONLY },
		{ "sriov_vfs", "", SHOW_JSON_ONLY },
	};
	struct table *t = section_table(s, "gpus", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	int nswitch = 0;
	for (size_t i = 0; i < c->pci->n; i++)
		nswitch += pci_is_nvswitch(&c->pci->devs[i]);
	for (int g = 0; g < ng; g++) {
		const struct pci_dev *d = gpus[g];
		size_t row = table_add_row(t);
		char buf[64], b2[64];
		table_set(t, row, "index", val_int(g));
		table_set(t, row, "bdf", val_str(d->bdf));
		const char *name = nvidia_device_name(d->device);
		table_set(t, row, "name", name ? val_str(name) : val_strf("NVIDIA %04x", d->device));
		table_set(t, row, "device_id", val_strf("10de:%04x", d->device));
		table_set(t, row, "numa_node", d->numa_node >= 0 ? val_int(d->numa_node) : val_unknown("none"));
		table_set(t, row, "local_cpus", d->local_cpulist[0] ? val_str(d->local_cpulist) : val_unknown("unknown"));
		table_set(t, row, "link", val_strf("%s / %s", link_text(d->cur_speed, d->cur_width, buf, sizeof(buf)),
						   link_text(d->max_speed, d->max_width, b2, sizeof(b2))));
		table_set(t, row, "link_speed_gts", d->cur_speed > 0 ? val_double(d->cur_speed) : val_unknown("unknown"));
		table_set(t, row, "link_width", d->cur_width ? val_int(d->cur_width) : val_unknown("unknown"));
		table_set(t, row, "max_link_speed_gts", d->max_speed > 0 ? val_double(d->max_speed) : val_unknown("unknown"));
		table_set(t, row, "max_link_width", d->max_width ? val_int(d->max_width) : val_unknown("unknown"));
		int b1 = gpu_bar1_index(d);
		uint64_t bar1 = b1 >= 0 ? bar_size(&d->bars[b1]) : 0;
		table_set(t, row, "bar1", bar1 ? val_str(fmt_bytes(bar1, buf, sizeof(buf))) : val_unknown("unknown"));
		table_set(t, row, "bar1_bytes", bar1 ? val_int((long long)bar1) : val_unknown("unknown"));
		table_set(t, row, "iommu_group", d->iommu_group[0] ? val_str(d->iommu_group) : val_str("-"));
		table_set(t, row, "driver", d->driver[0] ? val_str(d->driver) : val_str("none"));
		if (d->aer_correctable >= 0)
			table_set(t, row, "aer", val_strf("%lld/%lld/%lld", d->aer_correctable, d->aer_nonfatal < 0 ? 0 : d->aer_nonfatal,
							  d->aer_fatal < 0 ? 0 : d->aer_fatal));
		else
			table_set(t, row, "aer", val_str("-"));
		table_set(t, row, "aer_correctable", d->aer_correctable >= 0 ? val_int(d->aer_correctable) : val_none());
		table_set(t, row, "aer_nonfatal", d->aer_nonfatal >= 0 ? val_int(d->aer_nonfatal) : val_none());
		table_set(t, row, "aer_fatal", d->aer_fatal >= 0 ? val_int(d->aer_fatal) : val_none());
		table_set(t, row, "sriov_vfs", d->sriov_totalvfs >= 0 ? val_int(d->sriov_numvfs) : val_none());

		gpu_findings(r, c, t, row, d, g);
	}
	section_add(s, "count", "NVIDIA GPUs", val_int(ng));
	/* a device whose sysfs directory cannot be read is of unknown kind */
	int nunid = 0, unid_err = 0;
	char unid[128] = "";
	size_t ulen = 0;
	for (size_t i = 0; i < c->pci->n; i++) {
		const struct pci_dev *d = &c->pci->devs[i];
		if (!d->ident_err)
			continue;
		if (nunid++ < 3)
			str_appendf(unid, sizeof(unid), &ulen, "%s%s", ulen ? ", " : "", d->bdf);
		if (!unid_err)
			unid_err = d->ident_err;
	}
	if (nunid)
		section_note(s, "%d PCI device%s could not be identified (sysfs: %s%s) and %s not counted: %s%s %s",
			     nunid, nunid == 1 ? "" : "s", sr_strerror(unid_err),
			     unid_err == -EACCES || unid_err == -EPERM ? ": needs root" : "", nunid == 1 ? "is" : "are",
			     unid, nunid > 3 ? ", ..." : "", nunid == 1 ? "may be a GPU" : "may be GPUs");
	if (nswitch)
		section_add(s, "nvswitches", "NVSwitches", val_int(nswitch));
	if (ng == 0)
		finding_add(r, FID_NO_NVIDIA_GPU, SEV_INFO, "no NVIDIA GPU found on the PCI bus (%zu devices read%s)", c->pci->n,
			    nunid ? ", some of them could not be identified" : "");

	report_nics(r, c);
	report_vm_flat(r, c, gpus, ng);
	report_acs(r, c, gpus, ng);
	report_iommu(r, c, gpus, ng);
}
