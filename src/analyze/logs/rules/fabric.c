/* NCCL log analysis, the NVSwitch fabric and the hardware
 * (fabric_manager_nvswitch, nvlink_fabric, gpu_hardware): a log that ends inside
 * NVLS set-up, NVLS on more than 2 GPUs of an NVSwitch system in a run
 * that stopped. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVLS buffer set-up lines of transport/nvls.cc (2.17+): creating,
 * importing, mapping and binding the multicast memory. Capability and
 * tear-down lines ("NVLS multicast support is", "Unbind", "Unmap") are not. */
static bool nvls_setup_line(const char *m)
{
	static const char *const pre[] = { "NVLS Bind mem",       "NVLS Creating Multicast", "NVLS Created Multicast",
					   "NVLS group ",         "NVLS importing",          "NVLS Mapped",
					   "NVLS comm ",          "NVLS rank " };
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (strncmp(m, pre[i], strlen(pre[i])) == 0)
			return true;
	return false;
}

void nvls_stop(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root)
		return;
	struct finding *f = NULL;
	struct cause_acc *c = NULL;
	int n = 0;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!nvls_setup_line(p->last_text))
			continue;
		char lbl[96], txt[160];
		nl_copy_clean(txt, sizeof(txt), p->last_text, strlen(p->last_text));
		if (!f) {
			f = finding_add(a->r, FID_LOG_HANG_NVLS_SETUP, a->have_hang ? SEV_ERROR : SEV_WARNING,
					"the log of %s ends inside NVLS set-up: %s", proc_label(lg, i, lbl, sizeof(lbl)), txt);
			c = contribute(a, "fabric_manager_nvswitch", a->have_hang ? 0.6 : 0.25, FID_LOG_HANG_NVLS_SETUP);
		}
		finding_evidence(f, file_name(lg, p->last_file), (long)p->last_line, "%s: %s",
				 proc_label(lg, i, lbl, sizeof(lbl)), txt);
		cause_evidence(c, p->last_file, p->last_line, p->last_text); /* kept, not copied: not txt */
		n++;
	}
	if (n && a->have_hang)
		a->failed = true;
}

/* A GPU model whose SXM boards put the GPUs on NVSwitches with NVLS
 * multicast (Hopper and Blackwell data-centre GPUs, cudaDeviceProp.name):
 * not the PCIe cards ("H100 PCIe"), the bridged pairs ("H100 NVL") or a
 * Grace Hopper module (GH200). */
static bool nvswitch_model(const char *name)
{
	static const char *const sxm[] = { "H100", "H800", "H200", "H20", "B200", "B300" };
	if (strstr(name, "PCIe") || strstr(name, " NVL") || strstr(name, "GH200"))
		return false;
	for (size_t i = 0; i < sizeof(sxm) / sizeof(sxm[0]); i++)
		if (strstr(name, sxm[i]))
			return true;
	return false;
}

/* nccl-tests' GPU line (NT02): host after " on ", model after the bus id. */
static bool gpu_line(const char *t, char *host, size_t hostsz, const char **model)
{
	const char *on = strstr(t, " on ");
	const char *br = strrchr(t, ']');
	if (!on || !br || br[1] != ' ' || !br[2])
		return false;
	on += 4;
	while (*on == ' ')
		on++;
	size_t n = strcspn(on, " ");
	if (!n || n >= hostsz)
		return false;
	memcpy(host, on, n);
	host[n] = '\0';
	*model = br + 2;
	return true;
}

/* NCCL version text "2.M..." older than 2.17 (no NVLS); false unknown. */
static bool before_nvls(const char *v)
{
	int mj = 0, mn = 0;
	return sscanf(v, "%d.%d", &mj, &mn) == 2 && (mj < 2 || (mj == 2 && mn < 17));
}

/* NVLS ruled out by the log: NCCL_NVLS_ENABLE=0 set (NCCL's 'set by
 * environment' line), or an NCCL without NVLS. */
static bool nvls_ruled_out(const struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < lg->nprocs; i++) {
		if (before_nvls(lg->procs[i].version))
			return true;
		for (int k = 0; k < lg->procs[i].nenv; k++)
			if (strcmp(lg->procs[i].env[k].name, "NCCL_NVLS_ENABLE") == 0 && strtol(lg->procs[i].env[k].value, NULL, 0) == 0)
				return true;
	}
	return false;
}

/* The GPUs of the run on its one host: nccl-tests' GPU lines (all on one
 * host, the processes' host too), else the largest localRanks of a
 * communicator; 0 when several hosts or unknown. *model: a GPU line of an
 * NVSwitch model, NULL none. */
static int gpus_on_host(const struct ana *a, const struct nl_event **model)
{
	const struct nccllog *lg = a->lg;
	char host[64], h0[64] = "";
	*model = NULL;
	if (!one_host(lg))
		return 0;
	int n = 0;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const char *name;
		if (strcmp(a->sigs[e->sig].id, "NT02") != 0 || !gpu_line(e->text, host, sizeof(host), &name))
			continue;
		if (!h0[0])
			snprintf(h0, sizeof(h0), "%s", host);
		if (strcmp(h0, host) != 0 || (lg->nprocs && strcmp(lg->procs[0].host, host) != 0))
			return 0;
		if (!*model && nvswitch_model(name))
			*model = e;
		n = (int)count_of(a, "NT02");
	}
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].ncomms; k++)
			if (lg->procs[i].comms[k].localranks > n)
				n = lg->procs[i].comms[k].localranks;
	return n;
}

/* A run that failed or stopped with no root failure, on one host with more
 * than 2 GPUs of an NVSwitch model (nccl-tests' GPU lines): NCCL sets up
 * NVLS there (N:transport/nvls.cc ncclNvlsInit, v2.18.1-1 line 239 and
 * v2.26.5-1 line 157: 'gpuCount <= 2' returns before it, and only
 * NCCL_NVLS_ENABLE turns it off, not NCCL_P2P_DISABLE), and NVLS needs the
 * fabric manager and healthy NVSwitches (kb/nccl-log.md S53/S62; nccl#1706:
 * 4 H800 hang, 2 work, NCCL_NVLS_ENABLE=0 fixed it). fabric_manager_nvswitch
 * 0.4, at the strength of the other stop fallbacks (x0.4 without a hang
 * marker, issue 14 item 2). */
void nvls_candidate(struct ana *a)
{
	if (!a->failed || a->have_root || nvls_ruled_out(a))
		return;
	const struct nl_event *model = NULL;
	int n = gpus_on_host(a, &model);
	const char *name = NULL;
	char host[64];
	if (!model || n <= 2 || !gpu_line(model->text, host, sizeof(host), &name))
		return;
	char title[240];
	snprintf(title, sizeof(title),
		 "%d GPUs %.60s on one host in a run that stopped: NVLS (NVLink SHARP) and the fabric manager are a candidate", n,
		 name);
	struct finding *f = finding_for(a->r, FID_LOG_NVLS_CANDIDATE, SEV_WARNING, title);
	double w = 0.4 * (a->have_hang ? 1.0 : 0.4);
	struct cause_acc *c = contribute(a, "fabric_manager_nvswitch", w, FID_LOG_NVLS_CANDIDATE);
	finding_evidence(f, file_name(a->lg, model->file), (long)model->line, "%s", model->text);
	cause_evidence(c, model->file, model->line, model->text);
	finding_evidence(f, NULL, 0, "NCCL sets up NVLS for more than 2 GPUs of an NVSwitch node; NCCL_P2P_DISABLE does not turn it off, "
				     "NCCL_NVLS_ENABLE=0 does");
}
