/* The snapshot environment filter: see envfilter.h for the rule. */
#include "util/envfilter.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static bool name_is(const char *name, size_t len, const char *s)
{
	return strlen(s) == len && memcmp(name, s, len) == 0;
}

static bool name_starts(const char *name, size_t len, const char *prefix)
{
	size_t pl = strlen(prefix);
	return len > pl && memcmp(name, prefix, pl) == 0;
}

static bool name_has(const char *name, size_t len, const char *needle)
{
	size_t nl = strlen(needle);
	for (size_t i = 0; i + nl <= len; i++)
		if (memcmp(name + i, needle, nl) == 0)
			return true;
	return false;
}

bool envfilter_keep_name(const char *name, size_t len)
{
	static const char *const prefixes[] = { "NCCL_", "CUDA_", "VLLM_", "TORCH_DISTRIBUTED", "OMPI_COMM_WORLD_",
						"PMI_" };
	static const char *const exact[] = {
		"RANK", "LOCAL_RANK", "GROUP_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
		"PMIX_RANK", "SLURM_JOB_ID", "SLURM_JOBID", "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_PROCID",
		"SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_NNODES", "SLURM_JOB_NUM_NODES",
		"SLURM_STEP_NUM_TASKS", "SLURM_STEP_NUM_NODES", "SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE",
		"SLURM_GPUS_ON_NODE", "SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "PATH", "LD_LIBRARY_PATH", "LD_PRELOAD",
		"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "HOME", "SUDO_USER",
		"KUBERNETES_SERVICE_HOST",
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (name_starts(name, len, prefixes[i]))
			return true;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (name_is(name, len, exact[i]))
			return true;
	/* TORCH_NCCL_*, TORCH_CPP_LOG_LEVEL no, TORCH_*NCCL* yes */
	if (name_starts(name, len, "TORCH_") && name_has(name, len, "NCCL"))
		return true;
	return false;
}

bool envfilter_secret_name(const char *name, size_t len)
{
	static const char *const words[] = { "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "KEY", "APIKEY",
					     "CREDENTIAL", "CREDENTIALS", "AUTH", "COOKIE", "SESSION", "SIGNATURE",
					     "PRIVATE" };
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && name[j] != '_')
			j++;
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
			size_t wl = strlen(words[k]);
			if (wl != j - i)
				continue;
			bool same = true;
			for (size_t c = 0; c < wl && same; c++) {
				char ch = name[i + c];
				if (ch >= 'a' && ch <= 'z')
					ch = (char)(ch - 'a' + 'A');
				same = ch == words[k][c];
			}
			if (same)
				return true;
		}
		i = j + 1;
	}
	return false;
}

static bool word_char(char c)
{
	/* not '-': GPU UUIDs in CUDA_VISIBLE_DEVICES are no secret */
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '=' ||
	       c == '_';
}

/* A word that looks like a generated credential (see envfilter.h). */
static bool high_entropy(const char *w, size_t len)
{
	if (len < 24)
		return false;
	unsigned count[256] = { 0 };
	bool letter = false, digit = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)w[i];
		count[c]++;
		letter |= (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
		digit |= c >= '0' && c <= '9';
	}
	if (!letter || !digit)
		return false;
	double h = 0;
	for (int c = 0; c < 256; c++) {
		if (!count[c])
			continue;
		double p = (double)count[c] / (double)len;
		h -= p * log2(p);
	}
	return h >= 3.5;
}

int envfilter_redact_value(const char *v, size_t len, struct strbuf *out)
{
	int redacted = 0;
	size_t i = 0;
	while (i < len) {
		/* URL user information: "://user[:pw]@" before the next '/' */
		if (i + 3 <= len && memcmp(v + i, "://", 3) == 0) {
			size_t s = i + 3, j = s;
			while (j < len && v[j] != '/' && v[j] != '@' && v[j] != ' ' && v[j] != ',' && v[j] != ';')
				j++;
			if (j < len && v[j] == '@' && j > s) {
				strbuf_add(out, "://", 3);
				strbuf_adds(out, ENVFILTER_REDACTED);
				i = j; /* '@' is copied next */
				redacted++;
				continue;
			}
		}
		if (word_char(v[i]) && (i == 0 || !word_char(v[i - 1]))) {
			size_t j = i;
			while (j < len && word_char(v[j]))
				j++;
			if (high_entropy(v + i, j - i)) {
				strbuf_adds(out, ENVFILTER_REDACTED);
				redacted++;
			} else {
				strbuf_add(out, v + i, j - i);
			}
			i = j;
			continue;
		}
		strbuf_addch(out, v[i]);
		i++;
	}
	return redacted;
}

int envfilter_apply(const char *data, size_t len, struct strbuf *out)
{
	int kept = 0;
	const char *p = data, *end = data + len;
	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t l = z ? (size_t)(z - p) : (size_t)(end - p);
		const char *eq = memchr(p, '=', l);
		if (eq && eq > p && envfilter_keep_name(p, (size_t)(eq - p))) {
			size_t nl = (size_t)(eq - p);
			strbuf_add(out, p, nl + 1);
			if (envfilter_secret_name(p, nl))
				strbuf_adds(out, ENVFILTER_REDACTED);
			else
				envfilter_redact_value(eq + 1, l - nl - 1, out);
			if (strbuf_addch(out, '\0') < 0)
				return -ENOSPC;
			kept++;
		}
		p += l + 1;
	}
	return kept;
}

bool envfilter_is_environ_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	return strcmp(slash ? slash + 1 : path, "environ") == 0;
}
