/* NCCL log analysis, versions and known bugs (version_mismatch,
 * driver_or_kernel_bug): NCCL versions or CUDA drivers that differ between
 * ranks, vLLM's NCCL against the one loaded, a bootstrap message of the
 * wrong size, two different libnccl named, NCCL's topology bug with a NIC
 * that is not on PCI, an NCCL too old for an RTX 50-series GPU, an NCCL
 * built for a newer CUDA than the driver (the minimum driver of NVIDIA's
 * compatibility table). NCCL's known bugs by version are in known_bugs.c. */
#include "analyze/logs/rules/rules.h"
#include "kb/cuda_compat.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NCCL versions that differ between ranks. */
void check_versions(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], lbl2[96];
	int vfirst = -1;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!p->version[0])
			continue;
		if (vfirst < 0) {
			vfirst = i;
			continue;
		}
		const struct nl_proc *q = &lg->procs[vfirst];
		if (strcmp(p->version, q->version) != 0) {
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_VERSION_MISMATCH, SEV_ERROR, "ranks load different NCCL versions");
			finding_evidence(f, file_name(lg, q->version_file), (long)q->version_line, "%s loads NCCL %s",
					 proc_label(lg, vfirst, lbl, sizeof(lbl)), q->version);
			finding_evidence(f, file_name(lg, p->version_file), (long)p->version_line, "%s loads NCCL %s",
					 proc_label(lg, i, lbl2, sizeof(lbl2)), p->version);
			struct cause_acc *c = contribute(a, "version_mismatch", a->have_root ? 0.5 : 0.75, FID_LOG_NCCL_VERSION_MISMATCH);
			cause_evidence(c, q->version_file, q->version_line, q->version);
			cause_evidence(c, p->version_file, p->version_line, p->version);
			break;
		}
	}
}

/* CUDA driver versions that differ between ranks. */
void check_drivers(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], lbl2[96];
	for (int i = 1; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i], *q = &lg->procs[0];
		if (p->cuda_driver && q->cuda_driver && p->cuda_driver != q->cuda_driver) {
			struct finding *f = finding_for(a->r, FID_LOG_CUDA_DRIVER_DIFFERS, SEV_WARNING, "ranks run on different CUDA driver versions");
			finding_evidence(f, file_name(lg, q->file), 0, "%s: cudaDriverVersion %d", proc_label(lg, 0, lbl, sizeof(lbl)), q->cuda_driver);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: cudaDriverVersion %d", proc_label(lg, i, lbl2, sizeof(lbl2)), p->cuda_driver);
			contribute(a, "version_mismatch", 0.2, FID_LOG_CUDA_DRIVER_DIFFERS);
			break;
		}
	}
}

/* vLLM's own NCCL wrapper against the NCCL that printed the version lines. */
void check_vllm_nccl(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "VL05") != 0)
			continue;
		const char *v = strstr(e->text, "nccl==");
		if (!v)
			continue;
		v += 6;
		size_t vl = strspn(v, "0123456789.");
		for (int k = 0; k < lg->nprocs; k++) {
			const char *pv = lg->procs[k].version;
			size_t pl = strcspn(pv, "+");
			if (!pv[0] || (pl == vl && strncmp(pv, v, vl) == 0))
				continue;
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_VERSION_MISMATCH, SEV_ERROR, "ranks load different NCCL versions");
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "vLLM: %s", e->text);
			finding_evidence(f, file_name(lg, lg->procs[k].version_file), (long)lg->procs[k].version_line,
					 "%s prints NCCL version %s", proc_label(lg, k, lbl, sizeof(lbl)), pv);
			struct cause_acc *c = contribute(a, "version_mismatch", a->have_root ? 0.3 : 0.45, FID_LOG_NCCL_VERSION_MISMATCH);
			cause_evidence(c, e->file, e->line, e->text);
			return;
		}
	}
}

/* A bootstrap message of the wrong size (S72b) names different NCCL builds
 * first (the bootstrap messages are NCCL's own). Where no two ranks are seen
 * to differ, a bug of the NCCL version is the other candidate (nccl#1176:
 * intermittent truncation with 2.19.3, gone with another version): stronger
 * when ranks printed one and the same version, weak when none printed it. */
void check_bootstrap_truncated(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *ev = NULL;
	for (size_t i = 0; i < lg->nev && !ev; i++)
		if (strcmp(a->sigs[lg->ev[i].sig].id, "S72b") == 0)
			ev = &lg->ev[i];
	if (!ev || finding_get(a->r, FID_LOG_NCCL_VERSION_MISMATCH))
		return;
	const char *v = NULL;
	int nv = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].version[0]) {
			v = lg->procs[i].version;
			nv++;
		}
	bool same = nv >= 2 && nv == lg->nprocs;
	for (int i = 0; i < lg->nprocs && same; i++)
		same = strcmp(lg->procs[i].version, v) == 0;
	const char *other;
	int pi, pj;
	const struct nl_env *env = shaping_env_differs(lg, &other, &pi, &pj);
	struct cause_acc *c = contribute(a, "driver_or_kernel_bug", nv >= 2 && !env ? 0.45 : 0.3, FID_LOG_BOOTSTRAP_TRUNCATED);
	cause_evidence(c, ev->file, ev->line, ev->text);
	struct finding *f = finding_get(a->r, FID_LOG_BOOTSTRAP_TRUNCATED);
	if (!f)
		return;
	/* The messages of the connection phase carry per-channel data: a channel
	 * count or protocol set differently on two ranks changes their size too
	 * (recorded: NCCL_MIN_NCHANNELS=8 on one rank, NCCL_MAX_NCHANNELS=2 on the
	 * other, real-h200-2rank/nchan). When every process printed one and the
	 * same version (+cuda build), two builds are no longer the first suspect. */
	if (env) {
		char lbl[96], lbl2[96];
		finding_evidence(f, file_name(lg, env->file), (long)env->line, "%s: %s=%s, but %s: %s",
				 proc_label(lg, pi, lbl, sizeof(lbl)), env->name, env->value,
				 proc_label(lg, pj, lbl2, sizeof(lbl2)), other);
		cause_evidence(contribute(a, "nccl_config_error", 0.75, FID_LOG_BOOTSTRAP_TRUNCATED), env->file, env->line,
			       "a variable that cuts the data differs between ranks");
	}
	if (same)
		score_cap(a, "version_mismatch", 0.5,
			  "every process printed one and the same NCCL version: two builds are no longer the first suspect");
	if (nv >= 2)
		finding_evidence(f, NULL, 0, "every rank that printed its version runs NCCL %s: a bug of that version is as likely "
					     "as two builds of it (nccl#1176)", v);
	else
		finding_evidence(f, NULL, 0, "no rank's NCCL version is in the log: different builds or a bug of the version "
					     "(nccl#1176); compare `nccl-doctor sys` on every host");
}

/* One libnccl a line names: "/usr/lib/x86_64-linux-gnu/libnccl.so.2" (dir
 * "/usr/lib/x86_64-linux-gnu", ver ".2"), "libnccl.so.2.23.4" (no dir), or a
 * wheel "nvidia-nccl-cu12==2.27.3" (dir "nvidia-nccl-cu12", ver "==2.27.3",
 * wheel). */
struct libnccl {
	char dir[96], ver[24];
	char tok[128]; /* as named */
	bool wheel;
};

/* The libnccl named at s + at (its key "libnccl.so" or "nvidia-nccl-cu"). */
static void libnccl_at(const char *line, const char *at, bool wheel, struct libnccl *l)
{
	static const char stop[] = " \t'\"()[],;:=<>";
	const char *b = at;
	while (!wheel && b > line && !strchr(stop, b[-1]))
		b--;
	const char *key_end = at + (wheel ? strlen("nvidia-nccl-cu") : strlen("libnccl.so"));
	const char *e = key_end;
	if (wheel)
		e += strspn(e, "0123456789");
	size_t dl = wheel ? (size_t)(e - at) : (size_t)(at - b);
	if (!wheel && dl && b[dl - 1] == '/')
		dl--;
	snprintf(l->dir, sizeof(l->dir), "%.*s", (int)(dl < sizeof(l->dir) ? dl : sizeof(l->dir) - 1), wheel ? at : b);
	const char *v = e;
	size_t vl = strspn(v, wheel ? "=0123456789." : "0123456789.");
	while (vl && v[vl - 1] == '.')
		vl--;
	snprintf(l->ver, sizeof(l->ver), "%.*s", (int)(vl < sizeof(l->ver) ? vl : sizeof(l->ver) - 1), v);
	size_t tl = (size_t)(v + vl - (wheel ? at : b));
	snprintf(l->tok, sizeof(l->tok), "%.*s", (int)(tl < sizeof(l->tok) ? tl : sizeof(l->tok) - 1), wheel ? at : b);
	l->wheel = wheel;
}

/* Whether two named libnccl are different libraries: wheels of other
 * names or versions; files in other directories (both named with one, no
 * shell variable), or whose versions differ (neither a prefix of the other:
 * ".2" and ".2.23.4" may be one file). */
static bool libnccl_differ(const struct libnccl *x, const struct libnccl *y)
{
	if (x->wheel != y->wheel)
		return false;
	if (x->wheel)
		return strcmp(x->dir, y->dir) != 0 || (x->ver[0] && y->ver[0] && strcmp(x->ver, y->ver) != 0);
	if (x->dir[0] && y->dir[0] && !strchr(x->dir, '$') && !strchr(y->dir, '$') && strcmp(x->dir, y->dir) != 0)
		return true;
	size_t a = strlen(x->ver), b = strlen(y->ver);
	return strncmp(x->ver, y->ver, a < b ? a : b) != 0;
}

/* Two different libnccl files or NCCL wheels named in the log (LB01):
 * two NCCLs a process can load (LOG_LIBNCCL_SEVERAL); version_mismatch
 * 0.45 in a run that failed. */
void libnccl_several(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct libnccl seen[16];
	int nseen = 0;
	const struct nl_event *where[16];
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "LB01") != 0)
			continue;
		for (int w = 0; w < 2; w++) {
			const char *key = w ? "nvidia-nccl-cu" : "libnccl.so";
			for (const char *at = strstr(e->text, key); at && nseen < 16; at = strstr(at + 1, key)) {
				struct libnccl l;
				libnccl_at(e->text, at, w == 1, &l);
				for (int k = 0; k < nseen; k++) {
					if (!libnccl_differ(&seen[k], &l))
						continue;
					struct finding *f = finding_add(a->r, FID_LOG_LIBNCCL_SEVERAL, SEV_WARNING,
									"the log names two different %s: %s and %s",
									l.wheel ? "NCCL wheels" : "libnccl files", seen[k].tok, l.tok);
					finding_evidence(f, file_name(lg, where[k]->file), (long)where[k]->line, "%s", where[k]->text);
					finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", e->text);
					if (run_failed(a)) {
						struct cause_acc *c = contribute(a, "version_mismatch", 0.45, FID_LOG_LIBNCCL_SEVERAL);
						cause_evidence(c, where[k]->file, where[k]->line, where[k]->text);
						cause_evidence(c, e->file, e->line, e->text);
					}
					return;
				}
				where[nseen] = e;
				seen[nseen++] = l;
			}
		}
	}
}

/* The first event whose text holds s, NULL when none. */
static const struct nl_event *first_text(const struct ana *a, const char *s)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++)
		if (strstr(lg->ev[i].text, s))
			return &lg->ev[i];
	return NULL;
}

/* "Topology detection: network path ... is not a PCI device (usb)" (S23u)
 * and then N:graph/xml.h's 'Attribute busid of node nic not found' (the
 * NIC node has no PCI bus id and the topology code asks for it): NCCL's
 * bug, patched in graph/xml.cc by its maintainer (NVIDIA/nccl#1125, where a
 * maintainer quoted these two lines as the cause); 0.6, above the message
 * table's nccl_config_error (0.3) for the WARN alone. */
void nic_not_pci(struct ana *a)
{
	const struct nl_event *np = first_of(a, "S23u");
	const struct nl_event *w = first_text(a, "Attribute busid of node nic not found");
	if (!np || !w)
		return;
	struct finding *f = finding_for(a->r, FID_LOG_TOPO_NIC_NO_BUSID, SEV_ERROR,
					"NCCL's topology detection failed on a network device that is not on PCI");
	finding_evidence(f, file_name(a->lg, np->file), (long)np->line, "%s", np->text);
	finding_evidence(f, file_name(a->lg, w->file), (long)w->line, "%s", w->text);
	struct cause_acc *c = contribute(a, "driver_or_kernel_bug", 0.6, FID_LOG_TOPO_NIC_NO_BUSID);
	cause_evidence(c, w->file, w->line, w->text);
	cause_evidence(c, np->file, np->line, np->text);
}

/* NCCL "2.M.P..." before 2.26.2 and from 2.25 on (the first release built
 * for sm_120, N:makefiles/common.mk v2.25.1-1 line 43); false otherwise. */
static bool sm120_buggy_version(const char *v)
{
	int mj = 0, mn = 0, pt = 0;
	if (sscanf(v, "%d.%d.%d", &mj, &mn, &pt) != 3 || mj != 2)
		return false;
	return mn == 25 || (mn == 26 && pt < 2);
}

/* A GeForce RTX 50-series GPU named in the text (S50r: nccl-tests' device
 * lines) and a process of NCCL 2.25.0-2.26.1, in a run that failed or
 * stopped with no root failure of weight: NCCL 2.25.1 fails on sm_120 and
 * 2.26.2 fixed it (maintainers in NVIDIA/nccl-tests#287 and #291); 0.5. */
void sm120_old_nccl(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *g = first_of(a, "S50r");
	if (!g || !a->failed || a->have_root)
		return;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!sm120_buggy_version(p->version))
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_NCCL_OLD_FOR_SM120, SEV_ERROR,
						"NCCL before 2.26.2 on a GeForce RTX 50-series GPU (sm_120)");
		struct cause_acc *c = contribute(a, "driver_or_kernel_bug", 0.5, FID_LOG_NCCL_OLD_FOR_SM120);
		event_evidence(a, f, c, g);
		finding_evidence(f, file_name(lg, p->version_file), (long)p->version_line, "NCCL version %s", p->version);
		cause_evidence(c, p->version_file, p->version_line, p->version);
		return;
	}
}

/* The driver version of an SDV1 line ("Driver Version: 535.104.05",
 * "Nvidia driver version: 550.54.15") as major*1e6 + minor*1e3 + patch;
 * -1 none. */
static long driver_version_of(const char *t)
{
	const char *p = strcasestr(t, "driver version:");
	if (!p)
		return -1;
	p += strlen("driver version:");
	while (*p == ' ' || *p == '\t')
		p++;
	int mj = 0, mn = 0, pt = 0;
	int k = sscanf(p, "%d.%d.%d", &mj, &mn, &pt);
	if (k < 2 || mj < 100 || mj > 9999 || mn < 0 || mn > 999 || pt < 0 || pt > 999)
		return -1;
	return (long)mj * 1000000 + mn * 1000 + (k == 3 ? pt : 0);
}

/* GeForce RTX 40-series GPUs named in the text (S40a) in a run that failed
 * or stopped with no root failure: NVIDIA's drivers before 550.40.07 report
 * a peer-to-peer access between these cards that does not work (the check
 * huggingface/accelerate makes before it lets NCCL use P2P or IB:
 * utils/environment.py check_cuda_p2p_ib_support, "RTX 40", driver
 * 550.40.07). An older driver in the paste (SDV1) gives 0.45, none 0.3; a
 * newer one, or P2P switched off for the run, nothing. */
void ada_p2p_old_driver(struct ana *a)
{
	const struct nl_event *g = first_of(a, "S40a");
	if (!g || !a->failed || a->have_root || !strcasestr(g->text, "GeForce RTX 40") ||
	    var_set_to_1(a, "NCCL_P2P_DISABLE"))
		return;
	const struct nl_event *d = first_of(a, "SDV1");
	long v = d ? driver_version_of(d->text) : -1;
	if (v >= 550040007L)
		return;
	struct finding *f = finding_for(a->r, FID_LOG_ADA_P2P_OLD_DRIVER, SEV_ERROR,
					v > 0 ? "GeForce RTX 40-series GPUs with a driver before 550.40.07, which reports a P2P they do not have"
					      : "GeForce RTX 40-series GPUs, the driver's version not in the log: before 550.40.07 it reports a P2P they do not have");
	struct cause_acc *c = contribute(a, "driver_or_kernel_bug", v > 0 ? 0.45 : 0.3, FID_LOG_ADA_P2P_OLD_DRIVER);
	event_evidence(a, f, c, g);
	if (d && v > 0)
		event_evidence(a, f, c, d);
}

/* The CUDA runtime of an NCCL build ("+cuda12.1" of its version line: NCCL
 * links cudart statically) against the driver: the minimum driver of NVIDIA's
 * compatibility table (kb/cuda_compat.h) named where NCCL said the driver is
 * insufficient (S53r), and a finding of its own where the log shows a driver
 * of an older CUDA family ("cudaDriverVersion 11040" under +cuda12.1: minor
 * version compatibility stops at the major family; 10.x and before need their
 * own minor). */
void cuda_driver_minimum(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		const char *cu = strstr(p->version, "+cuda");
		int maj = -1, min = -1;
		if (!cu || sscanf(cu + 5, "%d.%d", &maj, &min) != 2)
			continue;
		const struct cuda_min_driver *row = kb_cuda_min_driver(maj, min);
		if (!row)
			continue;
		int dmaj = p->cuda_driver / 1000, dmin = (p->cuda_driver % 1000) / 10;
		bool too_old = p->cuda_driver > 0 && (dmaj < maj || (row->minor >= 0 && dmaj == maj && dmin < min));
		struct finding *f = finding_get(a->r, FID_LOG_NCCL_CUDA_NEWER_THAN_DRIVER);
		if (!f && !too_old)
			continue;
		if (!f) {
			f = finding_for(a->r, FID_LOG_NCCL_CUDA_NEWER_THAN_DRIVER, SEV_ERROR,
					"the libnccl was built for a newer CUDA than the driver supports");
			struct cause_acc *c = contribute(a, "version_mismatch", run_failed(a) ? 0.6 : 0.3,
							 FID_LOG_NCCL_CUDA_NEWER_THAN_DRIVER);
			cause_evidence(c, p->version_file, p->version_line, p->version);
		}
		char lbl[96], drv[96] = "";
		if (p->cuda_driver > 0)
			snprintf(drv, sizeof(drv), "; its driver supports CUDA %d.%d (cudaDriverVersion %d)", dmaj, dmin,
				 p->cuda_driver);
		char fam[32];
		if (row->minor < 0)
			snprintf(fam, sizeof(fam), "%d.x", maj);
		else
			snprintf(fam, sizeof(fam), "%d.%d", maj, min);
		finding_evidence(f, file_name(lg, p->version_file), (long)p->version_line,
				 "%s runs NCCL %s, built for CUDA %d.%d: it needs a Linux driver %s%s or newer (CUDA %s, NVIDIA's "
				 "compatibility table %s)%s",
				 proc_label(lg, i, lbl, sizeof(lbl)), p->version, maj, min, row->minor < 0 ? "of branch R" : "",
				 row->min_driver, fam, row->source, drv);
		finding_fix(f, "note", "NVIDIA's CUDA compatibility table", "install a driver %s%s or newer (CUDA %s), or a libnccl built for the CUDA the driver supports",
			    row->minor < 0 ? "of branch R" : "", row->min_driver, fam);
		return;
	}
}
