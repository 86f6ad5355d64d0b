/* Rendering a fix plan in the forms people use (analyze/fix_emit.h). */
#include "analyze/fix_emit.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const form_names[FIX_FORM_COUNT] = {
	"shell", "docker", "kubernetes", "vllm", "torchrun", "env-file",
};

const char *fix_form_name(enum fix_form f)
{
	return (unsigned)f < FIX_FORM_COUNT ? form_names[f] : "?";
}

int fix_form_parse(const char *name, enum fix_form *f)
{
	for (int i = 0; i < FIX_FORM_COUNT; i++)
		if (strcmp(name, form_names[i]) == 0) {
			*f = (enum fix_form)i;
			return 0;
		}
	if (strcmp(name, "k8s") == 0) {
		*f = FIX_FORM_K8S;
		return 0;
	}
	return -EINVAL;
}

static bool env_name_ok(const char *n)
{
	if (!n || !*n || strlen(n) >= 64 || !(isalpha((unsigned char)n[0]) || n[0] == '_'))
		return false;
	for (const char *c = n; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
}

static bool value_ok(const char *v)
{
	return v && strlen(v) < 256 && !strpbrk(v, "\n\r");
}

int fix_plan_setenv(struct fix_plan *p, const char *name, const char *value)
{
	if (!env_name_ok(name) || !value_ok(value))
		return -EINVAL;
	for (int i = 0; i < p->nenv; i++)
		if (strcmp(p->env[i].name, name) == 0) {
			str_copy(p->env[i].value, value, sizeof(p->env[i].value));
			return 0;
		}
	if (p->nenv >= FIX_PLAN_MAX_ENV)
		return -EINVAL;
	str_copy(p->env[p->nenv].name, name, sizeof(p->env[0].name));
	str_copy(p->env[p->nenv].value, value, sizeof(p->env[0].value));
	p->nenv++;
	return 0;
}

int fix_plan_unsetenv(struct fix_plan *p, const char *name)
{
	if (!env_name_ok(name) || p->nunset >= (int)(sizeof(p->unset) / sizeof(p->unset[0])))
		return -EINVAL;
	for (int i = 0; i < p->nunset; i++)
		if (strcmp(p->unset[i], name) == 0)
			return 0;
	str_copy(p->unset[p->nunset++], name, sizeof(p->unset[0]));
	return 0;
}

int fix_shell_quote(struct strbuf *out, const char *s)
{
	bool bare = *s != '\0';
	for (const char *c = s; *c && bare; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_-.,:/=@%+", *c))
			bare = false;
	if (bare)
		return strbuf_adds(out, s);
	int r = strbuf_addch(out, '\'');
	for (const char *c = s; *c && r == 0; c++)
		r = *c == '\'' ? strbuf_adds(out, "'\\''") : strbuf_addch(out, *c);
	return r ? r : strbuf_addch(out, '\'');
}

/* YAML double-quoted scalar. */
static int yaml_quote(struct strbuf *out, const char *s)
{
	int r = strbuf_addch(out, '"');
	for (const char *c = s; *c && r == 0; c++) {
		if (*c == '"' || *c == '\\')
			r = strbuf_addch(out, '\\');
		if (r == 0)
			r = strbuf_addch(out, *c);
	}
	return r ? r : strbuf_addch(out, '"');
}

/* Sizes for docker (--shm-size=16g) and Kubernetes (16Gi): whole GiB or MiB,
 * rounded up. */
static void size_text(uint64_t b, bool k8s, char *buf, size_t n)
{
	const uint64_t gib = 1ULL << 30, mib = 1ULL << 20;
	if (b % gib == 0 || b >= 8 * gib)
		snprintf(buf, n, "%llu%s", (unsigned long long)((b + gib - 1) / gib), k8s ? "Gi" : "g");
	else
		snprintf(buf, n, "%llu%s", (unsigned long long)((b + mib - 1) / mib), k8s ? "Mi" : "m");
}

static bool plan_empty(const struct fix_plan *p)
{
	return p->nenv == 0 && p->nunset == 0 && !p->shm_bytes && !p->ipc_host && !p->memlock_unlimited &&
	       !p->p2p_broken;
}

static int emit_shell(const struct fix_plan *p, struct strbuf *o)
{
	int r = 0;
	for (int i = 0; i < p->nunset && r == 0; i++)
		r = strbuf_addf(o, "unset %s\n", p->unset[i]);
	for (int i = 0; i < p->nenv && r == 0; i++) {
		r = strbuf_addf(o, "export %s=", p->env[i].name);
		if (r == 0)
			r = fix_shell_quote(o, p->env[i].value);
		if (r == 0)
			r = strbuf_addch(o, '\n');
	}
	if (r == 0 && p->shm_bytes) {
		char sz[32];
		size_text(p->shm_bytes, false, sz, sizeof(sz));
		r = strbuf_addf(o, "# /dev/shm must hold %s: in a container see the docker or kubernetes form; on a host: sudo mount -o remount,size=%s /dev/shm\n",
				sz, sz);
	}
	return r;
}

static int emit_docker(const struct fix_plan *p, struct strbuf *o)
{
	int r = strbuf_adds(o, "docker run");
	for (int i = 0; i < p->nenv && r == 0; i++) {
		r = strbuf_adds(o, " -e ");
		if (r == 0) {
			char kv[400];
			snprintf(kv, sizeof(kv), "%s=%s", p->env[i].name, p->env[i].value);
			r = fix_shell_quote(o, kv);
		}
	}
	if (r == 0 && p->ipc_host)
		r = strbuf_adds(o, " --ipc=host");
	if (r == 0 && (p->shm_bytes || p->shm_in_containers) && !p->ipc_host) {
		char sz[32];
		size_text(p->shm_bytes ? p->shm_bytes : 16ULL << 30, false, sz, sizeof(sz));
		r = strbuf_addf(o, " --shm-size=%s", sz);
	}
	if (r == 0 && p->memlock_unlimited)
		r = strbuf_adds(o, " --ulimit memlock=-1:-1");
	if (r == 0)
		r = strbuf_adds(o, " --gpus all IMAGE COMMAND\n");
	for (int i = 0; i < p->nunset && r == 0; i++)
		r = strbuf_addf(o, "# and do not pass %s into the container (no -e %s, not in the image's ENV)\n", p->unset[i],
				p->unset[i]);
	return r;
}

static int emit_k8s(const struct fix_plan *p, struct strbuf *o)
{
	int r = strbuf_adds(o, "# in the container spec:\n");
	if (r == 0 && p->nenv)
		r = strbuf_adds(o, "env:\n");
	for (int i = 0; i < p->nenv && r == 0; i++) {
		r = strbuf_addf(o, "  - name: %s\n    value: ", p->env[i].name);
		if (r == 0)
			r = yaml_quote(o, p->env[i].value);
		if (r == 0)
			r = strbuf_addch(o, '\n');
	}
	if (r == 0 && (p->shm_bytes || p->ipc_host || p->shm_in_containers)) {
		char sz[32];
		size_text(p->shm_bytes ? p->shm_bytes : 16ULL << 30, true, sz, sizeof(sz));
		r = strbuf_addf(o, "volumeMounts:\n  - name: dshm\n    mountPath: /dev/shm\n"
				   "# in the pod spec:\nvolumes:\n  - name: dshm\n    emptyDir:\n      medium: Memory\n"
				   "      sizeLimit: %s\n", sz);
	}
	if (r == 0 && p->memlock_unlimited)
		r = strbuf_adds(o, "# memlock: set the container runtime's default ulimit (containerd/CRI-O config: memlock unlimited)\n");
	for (int i = 0; i < p->nunset && r == 0; i++)
		r = strbuf_addf(o, "# remove %s from env: and from the image\n", p->unset[i]);
	return r;
}

static int emit_env_prefix(const struct fix_plan *p, struct strbuf *o)
{
	int r = 0;
	if (p->nunset) {
		r = strbuf_adds(o, "env");
		for (int i = 0; i < p->nunset && r == 0; i++)
			r = strbuf_addf(o, " -u %s", p->unset[i]);
		if (r == 0)
			r = strbuf_addch(o, ' ');
	}
	for (int i = 0; i < p->nenv && r == 0; i++) {
		r = strbuf_addf(o, "%s=", p->env[i].name);
		if (r == 0)
			r = fix_shell_quote(o, p->env[i].value);
		if (r == 0)
			r = strbuf_addch(o, ' ');
	}
	return r;
}

static int emit_vllm(const struct fix_plan *p, struct strbuf *o)
{
	int r = emit_env_prefix(p, o);
	if (r == 0)
		r = p->ngpus > 0 ? strbuf_addf(o, "vllm serve MODEL --tensor-parallel-size %d", p->ngpus)
				 : strbuf_adds(o, "vllm serve MODEL --tensor-parallel-size N");
	if (r == 0 && p->p2p_broken)
		r = strbuf_adds(o, " --disable-custom-all-reduce");
	if (r == 0)
		r = strbuf_addch(o, '\n');
	if (r == 0 && p->p2p_broken) {
		r = strbuf_adds(o, "# vLLM caches its P2P check per device list: remove the stale answer\n"
				   "rm -f \"${VLLM_CACHE_ROOT:-$HOME/.cache/vllm}\"/gpu_p2p_access_cache_for_");
		if (r == 0)
			r = strbuf_adds(o, p->cuda_visible_devices ? p->cuda_visible_devices : "*");
		if (r == 0)
			r = strbuf_adds(o, ".json\n# and keep VLLM_SKIP_P2P_CHECK=0 so vLLM tests peer access for real\n");
	}
	return r;
}

static int emit_torchrun(const struct fix_plan *p, struct strbuf *o)
{
	int r = emit_env_prefix(p, o);
	if (r == 0 && p->ngpus > 0) /* the GPUs the plan was measured on, as vLLM's form */
		return strbuf_addf(o, "torchrun --nproc-per-node %d SCRIPT\n", p->ngpus);
	return r ? r : strbuf_adds(o, "torchrun --nproc-per-node N SCRIPT\n");
}

static int emit_envfile(const struct fix_plan *p, struct strbuf *o)
{
	/* the common subset of docker --env-file, systemd EnvironmentFile and a
	 * sourced file: NAME=value, no quotes, so values must need none */
	for (int i = 0; i < p->nenv; i++)
		for (const char *c = p->env[i].value; *c; c++)
			if (isspace((unsigned char)*c) || strchr("'\"\\$`#;&|<>()", *c))
				return -EINVAL;
	int r = strbuf_adds(o, "# written by nccl-doctor; use with docker --env-file, systemd EnvironmentFile= or `set -a; . FILE; set +a`\n");
	for (int i = 0; i < p->nenv && r == 0; i++)
		r = strbuf_addf(o, "%s=%s\n", p->env[i].name, p->env[i].value);
	return r;
}

int fix_emit(const struct fix_plan *p, enum fix_form f, struct strbuf *out)
{
	for (int i = 0; i < p->nenv; i++)
		if (!env_name_ok(p->env[i].name) || !value_ok(p->env[i].value))
			return -EINVAL;
	if (plan_empty(p))
		return strbuf_adds(out, f == FIX_FORM_ENVFILE ? "# nccl-doctor: nothing to change\n"
							      : "# nothing to change: the configuration as given works\n");
	/* only P2P is broken (NCCL works as given): the environment, docker and
	 * Kubernetes forms would carry nothing; the vLLM form carries the fix */
	bool env_empty = p->nenv == 0 && p->nunset == 0 && !p->shm_bytes && !p->ipc_host && !p->memlock_unlimited &&
			 !p->shm_in_containers;
	if (env_empty && (f == FIX_FORM_SHELL || f == FIX_FORM_DOCKER || f == FIX_FORM_K8S || f == FIX_FORM_TORCHRUN))
		return -ENODATA;
	switch (f) {
	case FIX_FORM_SHELL: return emit_shell(p, out);
	case FIX_FORM_DOCKER: return emit_docker(p, out);
	case FIX_FORM_K8S: return emit_k8s(p, out);
	case FIX_FORM_VLLM: return emit_vllm(p, out);
	case FIX_FORM_TORCHRUN: return emit_torchrun(p, out);
	case FIX_FORM_ENVFILE: return emit_envfile(p, out);
	default: return -EINVAL;
	}
}
