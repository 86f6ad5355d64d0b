/* The machine's own facts against the log's causes (adjust phase). A paste
 * says nothing about the machine, so a log alone leaves P2P, /dev/shm and
 * the network as weak candidates (timeline.c's hang priors) or as the
 * class of one error line. When the caller knows the machine the job ran
 * on (watch runs it here; `check --log` and `logs --sysroot` read its
 * facts), lg->host says what it has, and each cause is weighed here, in
 * the one cause table of score.c:
 *  - a fact that explains what the log shows joins its cause as evidence
 *    and raises it (noisy-or): one strong cause, not a weak prior beside
 *    a warning of `sys`;
 *  - a fact that rules a cause out drops or caps it, with the fact as the
 *    reason. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* What a machine fact adds to a cause whose evidence in the log it
 * explains: with the log's 0.2-0.5 of a stop in transport set-up or over
 * P2P it makes 0.7-0.8, more than either alone (sys's error counts 0.6 in
 * check's ranking). */
#define W_EXPLAINS 0.6
/* ... to a cause the log names without showing it (a hang prior only). */
#define W_SUPPORTS 0.3
/* ... to the class of an error line that the machine's facts make certain
 * (NCCL_NET=IB with no RDMA device, and NCCL said it found no network). */
#define W_CERTAIN 0.9

/* The hang priors of a hardware fault: the GPU's or the NVLink's. */
static void hardware_facts(struct ana *a, const struct nl_host *h)
{
	static const char *const hw[] = { "gpu_hardware", "nvlink_fabric" };
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		if (!score_find(a, hw[i]) || h->nvlink != 0)
			continue;
		if (h->xid == 0)
			score_drop(a, hw[i], h->hw_why);
		else if (h->xid < 0)
			score_cap(a, hw[i], 0.05, h->hw_why);
	}
}

/* The first connection over P2P of a process whose log stopped in
 * transport set-up or after it (T5 and later), NULL when none. */
static const struct nl_proc *p2p_stop(const struct nccllog *lg)
{
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (hang_stage(p) < 5 || !p->via_line)
			continue;
		for (int t = 0; t < p->ntr; t++)
			if (strncmp(p->tr[t].kind, "P2P", 3) == 0)
				return p;
	}
	return NULL;
}

/* ACS redirect or a translating IOMMU between the GPUs. The cause is
 * there only when the log pointed at it (a stop in transport set-up or
 * in the data path, an error of the class); a machine that shows P2P
 * blocked makes it strong when the log's connections went over P2P or
 * stopped while they were set up, one that shows it open drops it. */
static void p2p_facts(struct ana *a, const struct nl_host *h)
{
	const char *cause = "p2p_pcie_acs_iommu";
	if (!score_find(a, cause))
		return;
	if (h->p2p_blocked == 0) {
		score_drop(a, cause, h->p2p_why[0] ? h->p2p_why : "nothing on this machine blocks P2P");
		return;
	}
	if (h->nvlink == 1 && h->p2p_blocked < 0) {
		score_cap(a, cause, 0.1, "the GPUs of this machine link over NVLink (NVML): their P2P does not cross the "
					 "PCIe bridges that ACS or an IOMMU would block");
		return;
	}
	if (h->p2p_blocked != 1)
		return;
	const struct nl_proc *p = p2p_stop(a->lg);
	bool setup = false;
	for (int i = 0; i < a->lg->nprocs && !p; i++) {
		int s = hang_stage(&a->lg->procs[i]);
		setup |= s >= 5 && s <= 8;
	}
	struct cause_acc *c = contribute(a, cause, p || setup ? W_EXPLAINS : W_SUPPORTS, FID_COUNT);
	if (p)
		cause_evidence(c, p->via_file, p->via_line, p->via_text);
	cause_fact(c, h->p2p_why);
}

/* NCCL_NET as the log's processes report it ("NCCL_NET set by environment
 * to IB"), NULL when none did; *e its entry. */
static const char *log_nccl_net(const struct nccllog *lg, const struct nl_env **e)
{
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].nenv; k++)
			if (strcmp(lg->procs[i].env[k].name, "NCCL_NET") == 0) {
				*e = &lg->procs[i].env[k];
				return lg->procs[i].env[k].value;
			}
	*e = NULL;
	return NULL;
}

/* NCCL found no network it was asked for (LOG_NET_NOT_FOUND: "Failed to
 * initialize any NET plugin", "Error: network IB not found"), NCCL_NET=IB
 * in the log's environment or the machine's, and no RDMA device on the
 * machine: certain, with each of the three as evidence. */
static void net_facts(struct ana *a, const struct nl_host *h)
{
	const struct nccllog *lg = a->lg;
	if (h->ib_devices != 0)
		return;
	const struct nl_env *env;
	const char *net = log_nccl_net(lg, &env);
	bool ib = (net && strcasecmp(net, "IB") == 0) || strcasecmp(h->nccl_net, "IB") == 0;
	const struct nl_event *e = NULL;
	for (size_t i = 0; i < lg->nev && !e; i++)
		if (a->sigs[lg->ev[i].sig].fid == FID_LOG_NET_NOT_FOUND)
			e = &lg->ev[i];
	if (!e || !ib)
		return;
	struct cause_acc *c = contribute(a, nccl_signature_cause(&a->sigs[e->sig]), W_CERTAIN, FID_LOG_NET_NOT_FOUND);
	cause_evidence(c, e->file, e->line, e->text);
	if (net && strcasecmp(net, "IB") == 0)
		cause_evidence(c, env->file, env->line, "NCCL_NET set by environment to IB");
	cause_fact(c, h->ib_why);
	if (strcasecmp(h->nccl_net, "IB") == 0)
		cause_fact(c, h->net_why);
}

/* A failure of the SHM transport in the log (a root failure of class
 * shm_too_small: a segment NCCL could not create, extend or map, a SIGBUS)
 * on a machine whose /dev/shm is missing or small: one strong cause. A
 * /dev/shm of a good size leaves such a failure as it is (a full one fails
 * the same way), but a hang prior of it goes. */
static void shm_facts(struct ana *a, const struct nl_host *h)
{
	const struct nccllog *lg = a->lg;
	const char *cause = "shm_too_small";
	if (h->shm_small < 0 || !score_find(a, cause))
		return;
	const struct nl_event *e = NULL;
	for (size_t i = 0; i < lg->nev && !e; i++)
		if (a->sigs[lg->ev[i].sig].role == NSR_ROOT && strcmp(nccl_signature_cause(&a->sigs[lg->ev[i].sig]), cause) == 0)
			e = &lg->ev[i];
	if (h->shm_small == 0) {
		if (!e)
			score_drop(a, cause, h->shm_why);
		return;
	}
	struct cause_acc *c = contribute(a, cause, e ? W_EXPLAINS : W_SUPPORTS, e ? a->sigs[e->sig].fid : FID_COUNT);
	if (e)
		cause_evidence(c, e->file, e->line, e->text);
	cause_fact(c, h->shm_why);
}

void host_facts(struct ana *a)
{
	const struct nl_host *h = &a->lg->host;
	if (!h->known)
		return;
	hardware_facts(a, h);
	p2p_facts(a, h);
	net_facts(a, h);
	shm_facts(a, h);
}
