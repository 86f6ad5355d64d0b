/* `sys`: NCCL_* and CUDA_* variables, NCCL's configuration files, and the
 * traps in them that silently undo a fix (a P2P level NCCL ignores, a
 * non-numeric switch, a bad CUDA_VISIBLE_DEVICES). */
#include "analyze/sys.h"
#include "kb/findings.h"
#include "model/visible.h"
#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool nccl_p2p_level_valid(const char *v)
{
	/* graph/paths.cc: names compared exactly; otherwise an integer */
	static const char *names[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(v, names[i]) == 0)
			return true;
	/* the old numeric levels: NCCL takes any value whose first character
	 * is a digit (strtol(str, NULL, 0), the rest ignored), nothing else */
	return v[0] >= '0' && v[0] <= '9';
}

int cuda_visible_devices_check(const char *v, int ngpus, char *why, size_t whysz)
{
	char buf[1024];
	str_copy(buf, v, sizeof(buf));
	char *seen[64];
	int nseen = 0;
	char *save = NULL;
	int pos = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), pos++) {
		char *e = str_trim(t);
		bool ok;
		if (str_startswith(e, "GPU-") || str_startswith(e, "MIG-")) {
			ok = strlen(e) > 4;
		} else {
			long long n;
			ok = parse_ll(e, 10, &n) == 0 && n >= 0 && (ngpus <= 0 || n < ngpus);
			if (parse_ll(e, 10, &n) == 0 && n < 0) {
				/* -1 is the documented way to hide the GPUs after it */
				ok = true;
			}
		}
		if (!ok) {
			str_setf(why, whysz, "entry %d '%s' is %s; CUDA ignores it and every entry after it", pos + 1, e,
				 ngpus > 0 && parse_ll(e, 10, &(long long){ 0 }) == 0 ? "beyond the GPUs present" : "not an index or a GPU-/MIG- UUID");
			return -1;
		}
		for (int i = 0; i < nseen; i++)
			if (strcmp(seen[i], e) == 0) {
				str_setf(why, whysz, "'%s' appears twice", e);
				return -2;
			}
		if (nseen < 64)
			seen[nseen++] = e;
	}
	return 0;
}

/* Integer NCCL parameters (NCCL_PARAM): NCCL reads them with strtoll, so a
 * word such as "true" is 0 (or the default, 2.29+), never "on". */
static const char *numeric_params[] = {
	"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE", "NCCL_CUMEM_ENABLE", "NCCL_CUMEM_HOST_ENABLE",
	"NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE", "NCCL_IGNORE_CPU_AFFINITY", "NCCL_COMM_BLOCKING",
	"NCCL_RUNTIME_CONNECT", "NCCL_P2P_USE_CUDA_MEMCPY", "NCCL_P2P_READ_ENABLE", "NCCL_P2P_DIRECT_DISABLE",
	"NCCL_IGNORE_DISABLED_P2P", "NCCL_NET_DISABLE_INTRA", "NCCL_NVB_DISABLE", "NCCL_PXN_DISABLE",
	"NCCL_CROSS_NIC", "NCCL_BUFFSIZE", "NCCL_NTHREADS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS",
	"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_SET_STACK_SIZE", "NCCL_LAUNCH_ORDER_IMPLICIT",
	"NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_DMABUF_ENABLE", "NCCL_RAS_ENABLE",
	"NCCL_IPC_USE_ABSTRACT_SOCKET", "NCCL_MULTI_RANK_GPU_ENABLE", "NCCL_WARN_ENABLE_DEBUG_INFO",
};

struct envvar {
	char *name, *value, *source; /* source: "environment" or a file path */
};

struct envlist {
	struct envvar *v;
	size_t n, alloc;
};

static struct envvar *envlist_find(struct envlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

/* Later sources override earlier ones, as NCCL's precedence does. */
static void envlist_set(struct envlist *l, const char *name, size_t namelen, const char *value, const char *source)
{
	char *n = xstrndup(name, namelen);
	struct envvar *e = envlist_find(l, n);
	if (e) {
		free(n);
		free(e->value);
		free(e->source);
	} else {
		XGROW(l->v, l->alloc, l->n + 1);
		e = &l->v[l->n++];
		e->name = n;
	}
	e->value = xstrdup(value);
	e->source = xstrdup(source);
}

static void add_env(const char *name, size_t namelen, const char *value, void *arg)
{
	envlist_set(arg, name, namelen, value, "environment");
}

struct conf_arg {
	struct envlist *l;
	const char *path;
};

/* A setting of an nccl.conf: the process environment wins over files. */
static int take_conf(const char *name, const char *value, void *arg)
{
	struct conf_arg *c = arg;
	struct envvar *e = envlist_find(c->l, name);
	if (e && strcmp(e->source, "environment") == 0)
		return 0;
	envlist_set(c->l, name, strlen(name), value, c->path);
	return 1;
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const struct envvar *)a)->name, ((const struct envvar *)b)->name);
}

void sys_report_env(struct result *r, struct sys_ctx *c)
{
	struct section *s = result_section(r, "environment", "NCCL and CUDA environment");
	struct envlist l = { 0 };
	const struct machine *m = c->m;
	static const char *const prefixes[] = { "NCCL_", "CUDA_", "TORCH_NCCL_", "VLLM_" };
	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++)
		for (size_t i = 0; i < m->nenv; i++)
			if (str_startswith(m->env[i].name, prefixes[p]))
				add_env(m->env[i].name, strlen(m->env[i].name), m->env[i].value, &l);
	size_t from_env = l.n;
	/* files (collect_env read them): user file (NCCL_CONF_FILE, else
	 * ~/.nccl.conf), then /etc/nccl.conf; the user's first so that it wins
	 * over /etc for the same name */
	char conf_files[512] = "";
	size_t cflen = 0;
	int nconf = 0;
	for (size_t i = 0; i < m->nconf; i++) {
		const struct machine_conf *f = &m->conf[i];
		if (f->err < 0)
			continue;
		struct conf_arg ca = { &l, f->path };
		int n = 0;
		for (size_t k = 0; k < f->n; k++)
			n += take_conf(f->v[k].name, f->v[k].value, &ca);
		str_appendf(conf_files, sizeof(conf_files), &cflen, "%s%s (%d setting%s)", cflen ? ", " : "", f->path, n,
			    n == 1 ? "" : "s");
		nconf += n;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_env);
	section_add(s, "conf_files", "NCCL config files", val_str(conf_files[0] ? conf_files : "none"));
	if (!m->env_known)
		section_add(s, "environ", "environment", val_unknown("cannot read /proc/self/environ"));
	static const struct column cols[] = { { "name", "VARIABLE", 0 }, { "value", "VALUE", 0 }, { "source", "FROM", 0 } };
	struct table *t = section_table(s, "variables", NULL, cols, 3);
	for (size_t i = 0; i < l.n; i++) {
		size_t row = table_add_row(t);
		table_set(t, row, "name", val_str(l.v[i].name));
		/* shown with credentials redacted, as in a snapshot (util/envfilter.h) */
		struct strbuf shown = STRBUF_INIT;
		if (envfilter_secret_name(l.v[i].name, strlen(l.v[i].name)))
			strbuf_adds(&shown, ENVFILTER_REDACTED);
		else
			envfilter_redact_value(l.v[i].value, strlen(l.v[i].value), &shown);
		table_set(t, row, "value", val_str(strbuf_str(&shown)));
		strbuf_release(&shown);
		table_set(t, row, "source", val_str(l.v[i].source));
	}
	if (l.n == 0)
		section_note(s, "no NCCL_*, CUDA_*, TORCH_NCCL_* or VLLM_* variable is set");
	(void)from_env;

	if (nconf > 0) {
		struct finding *f = finding_add(r, FID_NCCL_CONF_FILE_SETTINGS, SEV_INFO, "NCCL config files set %d variable%s",
						       nconf, nconf == 1 ? "" : "s");
		for (size_t i = 0; i < l.n; i++)
			if (strcmp(l.v[i].source, "environment") != 0)
				finding_evidence(f, l.v[i].source, 0, "%s=%s", l.v[i].name, l.v[i].value);
		finding_fix(f, "note", NULL, "review these files; the environment overrides them");
	}
	struct envvar *e;
	if ((e = envlist_find(&l, "NCCL_P2P_LEVEL")) && !nccl_p2p_level_valid(e->value)) {
		struct finding *f = finding_add(r, FID_NCCL_P2P_LEVEL_INVALID, SEV_ERROR,
						       "NCCL_P2P_LEVEL='%s' is not a level NCCL knows: it is ignored", e->value);
		finding_evidence(f, strcmp(e->source, "environment") ? e->source : NULL, 0, "NCCL_P2P_LEVEL=%s (from %s)", e->value, e->source);
		char up[32];
		str_copy(up, e->value, sizeof(up));
		for (char *p = up; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		finding_fix(f, "env", "accepted: LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS, or an integer",
			    "NCCL_P2P_LEVEL=%s", nccl_p2p_level_valid(up) ? up : "PXB");
	}
	for (size_t i = 0; i < sizeof(numeric_params) / sizeof(numeric_params[0]); i++) {
		e = envlist_find(&l, numeric_params[i]);
		if (!e || !*e->value)
			continue;
		char *end;
		strtoll(e->value, &end, 0);
		if (end == e->value) {
			struct finding *f = finding_add(r, FID_NCCL_NUMERIC_VALUE_INVALID, SEV_ERROR,
				"%s='%s' is not a number: NCCL reads it as 0 or its default", e->name, e->value);
			finding_evidence(f, strcmp(e->source, "environment") ? e->source : NULL, 0, "%s=%s (from %s)", e->name,
					 e->value, e->source);
			bool yes = !strcasecmp(e->value, "true") || !strcasecmp(e->value, "yes") || !strcasecmp(e->value, "on");
			finding_fix(f, "env", NULL, "%s=%d", e->name, yes ? 1 : 0);
		}
	}
	if ((e = envlist_find(&l, "NCCL_P2P_DISABLE")) && strtoll(e->value, NULL, 0) == 1) {
		struct finding *f = finding_add(r, FID_NCCL_P2P_DISABLED_BY_ENV, SEV_INFO, "NCCL_P2P_DISABLE=1 is set (from %s)",
						       e->source);
		finding_evidence(f, strcmp(e->source, "environment") ? e->source : NULL, 0, "NCCL_P2P_DISABLE=%s", e->value);
		finding_fix(f, "note", "compare: run nccl-tests' all_reduce_perf with and without it; keep it only where P2P hangs", "unset NCCL_P2P_DISABLE where P2P works");
	}
	if ((e = envlist_find(&l, "CUDA_VISIBLE_DEVICES"))) {
		char why[256];
		int rc = cuda_visible_devices_check(e->value, c->ngpus, why, sizeof(why));
		if (rc < 0) {
			struct finding *f = finding_add(r, rc == -2 ? FID_CUDA_VISIBLE_DEVICES_DUPLICATE : FID_CUDA_VISIBLE_DEVICES_INVALID,
							       SEV_ERROR, "CUDA_VISIBLE_DEVICES='%s': %s", e->value, why);
			finding_evidence(f, NULL, 0, "CUDA_VISIBLE_DEVICES=%s; %d NVIDIA GPU%s on the PCI bus", e->value, c->ngpus,
					 c->ngpus == 1 ? "" : "s");
			int idx[32];
			size_t nidx = 0;
			for (int g = 0; g < c->ngpus && g < 32; g++)
				idx[nidx++] = g;
			char all[256];
			const int first = 0;
			if (cvd_format_indices(all, sizeof(all), idx, nidx, NULL) < 0)
				cvd_format_indices(all, sizeof(all), &first, 1, NULL);
			finding_fix(f, "env", "each GPU once, by index or UUID (nvidia-smi -L)", "%s", all);
		}
	}
	if (c->ngpus >= 2) {
		e = envlist_find(&l, "CUDA_DEVICE_ORDER");
		if (!e || strcmp(e->value, "PCI_BUS_ID") != 0) {
			struct finding *f = finding_add(r, FID_CUDA_DEVICE_ORDER_UNSET, SEV_INFO,
				"CUDA_DEVICE_ORDER is %s with %d GPUs: CUDA and nvidia-smi may number GPUs differently",
				e ? e->value : "unset", c->ngpus);
			finding_evidence(f, NULL, 0, "CUDA_DEVICE_ORDER=%s", e ? e->value : "(unset: FASTEST_FIRST)");
			finding_fix(f, "env", NULL, "CUDA_DEVICE_ORDER=PCI_BUS_ID");
		}
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].name);
		free(l.v[i].value);
		free(l.v[i].source);
	}
	free(l.v);
}
