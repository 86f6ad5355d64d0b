/* The NCCL libraries of a machine as data: see model/ncclib.h. */
#include "model/ncclib.h"

#include <stdlib.h>
#include <string.h>

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

const char *torch_nccl_name(enum torch_nccl how)
{
	switch (how) {
	case TORCH_NCCL_SHARED:
		return "shared";
	case TORCH_NCCL_MISSING:
		return "missing";
	case TORCH_NCCL_STATIC:
		return "static";
	case TORCH_NCCL_NO_CUDA:
		return "no-cuda";
	case TORCH_NCCL_UNKNOWN:
		break;
	}
	return "unknown";
}

static void lib_release(struct ncclib *l)
{
	free(l->path);
	strv_free(l->names, l->nnames);
	free(l->version_str);
	free(l->soname);
	strv_free(l->where, l->nwhere);
	free(l->error);
}

void ncclib_scan_release(struct ncclib_scan *s)
{
	for (size_t i = 0; i < s->nlibs; i++)
		lib_release(&s->libs[i]);
	free(s->libs);
	for (size_t i = 0; i < s->ntorch; i++) {
		struct ncclib_torch *t = &s->torch[i];
		free(t->path);
		free(t->version);
		free(t->libtorch);
		free(t->needed);
		free(t->nccl_path);
		free(t->via);
		free(t->static_version);
		free(t->error);
	}
	free(s->torch);
	for (size_t i = 0; i < s->nvllm; i++) {
		free(s->vllm[i].path);
		free(s->vllm[i].version);
	}
	free(s->vllm);
	free(s->vllm_so_path);
	free(s->vllm_so_error);
	free(s->ld_via);
	memset(s, 0, sizeof(*s));
	s->ld_default = -1;
	s->vllm_lib = -1;
}
