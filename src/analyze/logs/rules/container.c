/* NCCL log analysis, Docker's default host name (the priors phase): a
 * container with its own network namespace and no --hostname is named after
 * the first twelve hexadecimal digits of its ID. NCCL prints the host name
 * in every line's header, so the log shows it; such a container keeps
 * Docker's defaults unless its command line changed them: a 64 MiB
 * /dev/shm and a bridge network other hosts cannot reach. In a run that
 * failed with no root failure those are weak candidates: the bridge
 * across hosts (0.2); /dev/shm on one host (0.15) when the failure is
 * ncclSystemError (the code NCCL's shm calls return: "unhandled system
 * error"), not a stop at a stage of its own (an NVLS set-up that never
 * ends says nothing of /dev/shm). A /dev/shm size the paste shows (SZ01)
 * is left to its own rule. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"

#include <stdio.h>
#include <string.h>

/* Docker's default: 12 lower-case hex digits, a letter and a digit among
 * them (a name of digits only is more likely a number than an ID). */
static bool container_id_name(const char *h)
{
	int letters = 0, digits = 0;
	size_t n = strlen(h);
	if (n != 12)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (h[i] >= '0' && h[i] <= '9')
			digits++;
		else if (h[i] >= 'a' && h[i] <= 'f')
			letters++;
		else
			return false;
	}
	return letters && digits;
}

void container_hostnames(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const char *host0 = NULL;
	bool several = false;
	int first = -1;
	for (int i = 0; i < lg->nprocs; i++) {
		const char *h = lg->procs[i].host;
		if (!h[0] || strcmp(h, "unknown host") == 0)
			continue;
		if (!host0)
			host0 = h;
		several = several || strcmp(h, host0) != 0;
		if (first < 0 && container_id_name(h))
			first = i;
	}
	if (first < 0)
		return;
	const struct nl_proc *p = &lg->procs[first];
	char title[160];
	snprintf(title, sizeof(title), "the processes ran in Docker containers with their own host name (%s%s)", p->host,
		 several ? ", ..." : "");
	struct finding *f = finding_for(a->r, FID_LOG_CONTAINER_HOSTNAME, SEV_INFO, title);
	finding_evidence(f, file_name(lg, p->last_file), (long)p->last_line, "%s", p->last_text);
	if (!a->failed || a->have_any_root)
		return;
	bool system_error = false;
	for (size_t i = 0; i < lg->nev; i++)
		if (a->sigs[lg->ev[i].sig].fid == FID_LOG_NCCL_ERROR && strcasestr(lg->ev[i].text, "system error"))
			system_error = true;
	struct cause_acc *c;
	if (several)
		c = contribute(a, "bootstrap_network", 0.2, FID_LOG_CONTAINER_HOSTNAME);
	else if (system_error && !count_of(a, "SZ01"))
		c = contribute(a, "shm_too_small", 0.15, FID_LOG_CONTAINER_HOSTNAME);
	else
		return;
	cause_evidence(c, p->last_file, p->last_line, p->last_text);
}
