/* Library discovery (ncclib.h): the scan as JSON and back, for the record
 * that a recorded sysroot carries (<sysroot>/.nccl-doctor/libraries.json)
 * instead of the libraries themselves. */
#include "probe/ncclib_int.h"
#include "util/jsonx.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ---- */

static json_t *jstr(const char *s)
{
	return s ? json_str_lossy(s) : json_null();
}

static json_t *jidx(int i)
{
	return i >= 0 ? json_integer(i) : json_null();
}

static json_t *jstrv(char **v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_str_lossy(v[i]));
	return a;
}

json_t *ncclib_scan_to_json(const struct ncclib_scan *s)
{
	json_t *j = json_object();
	json_t *libs = json_array();
	for (size_t i = 0; i < s->nlibs; i++) {
		const struct ncclib *l = &s->libs[i];
		json_t *o = json_object();
		json_object_set_new(o, "path", jstr(l->path));
		json_object_set_new(o, "names", jstrv(l->names, l->nnames));
		json_object_set_new(o, "size", json_integer((json_int_t)l->size));
		json_object_set_new(o, "version_string", jstr(l->version_str));
		char vb[64];
		json_object_set_new(o, "version",
				    l->has_version ? json_string(nccl_version_str(&l->version, vb, sizeof(vb)))
						   : json_null());
		json_object_set_new(o, "soname", jstr(l->soname));
		json_object_set_new(o, "found_in", jstrv(l->where, l->nwhere));
		json_object_set_new(o, "ld_default", json_boolean(l->ld_default));
		json_object_set_new(o, "error", jstr(l->error));
		json_array_append_new(libs, o);
	}
	json_object_set_new(j, "libraries", libs);
	json_t *ta = json_array();
	for (size_t i = 0; i < s->ntorch; i++) {
		const struct ncclib_torch *t = &s->torch[i];
		json_t *o = json_object();
		json_object_set_new(o, "path", jstr(t->path));
		json_object_set_new(o, "version", jstr(t->version));
		json_object_set_new(o, "libtorch_cuda", jstr(t->libtorch));
		json_object_set_new(o, "nccl", json_string(torch_nccl_name(t->how)));
		json_object_set_new(o, "needed", jstr(t->needed));
		json_object_set_new(o, "nccl_path", jstr(t->nccl_path));
		json_object_set_new(o, "library", jidx(t->lib));
		json_object_set_new(o, "via", jstr(t->via));
		json_object_set_new(o, "static_version_string", jstr(t->static_version));
		json_object_set_new(o, "error", jstr(t->error));
		json_array_append_new(ta, o);
	}
	json_object_set_new(j, "torch", ta);
	json_t *va = json_array();
	for (size_t i = 0; i < s->nvllm; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "path", jstr(s->vllm[i].path));
		json_object_set_new(o, "version", jstr(s->vllm[i].version));
		json_object_set_new(o, "torch", jidx(s->vllm[i].torch));
		json_array_append_new(va, o);
	}
	json_object_set_new(j, "vllm", va);
	json_object_set_new(j, "ld_default", jidx(s->ld_default));
	json_object_set_new(j, "ld_default_via", jstr(s->ld_via));
	json_object_set_new(j, "sudo", json_boolean(s->sudo));
	json_object_set_new(j, "vllm_nccl_so_path", jstr(s->vllm_so_path));
	json_object_set_new(j, "vllm_library", jidx(s->vllm_lib));
	json_object_set_new(j, "vllm_nccl_so_path_error", jstr(s->vllm_so_error));
	json_object_set_new(j, "truncated", json_boolean(s->truncated));
	return j;
}

/* Optional string member: NULL/absent → *out NULL; a non-string is an error. */
static int get_str(json_t *o, const char *key, char **out)
{
	json_t *v = json_object_get(o, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -EBADMSG;
	*out = xstrndup(json_string_value(v), json_string_length(v));
	return 0;
}

static int get_idx(json_t *o, const char *key, size_t limit, int *out)
{
	json_t *v = json_object_get(o, key);
	*out = -1;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (size_t)json_integer_value(v) >= limit)
		return -EBADMSG;
	*out = (int)json_integer_value(v);
	return 0;
}

static int get_strv(json_t *o, const char *key, char ***v, size_t *n)
{
	json_t *a = json_object_get(o, key);
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > 1024)
		return -EBADMSG;
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) {
		if (!json_is_string(x))
			return -EBADMSG;
		ncs_strv_add(v, n, json_string_value(x));
	}
	return 0;
}

static int lib_from_json(json_t *o, struct ncclib *l)
{
	if (!json_is_object(o))
		return -EBADMSG;
	int r = 0;
	r |= get_str(o, "path", &l->path);
	r |= get_strv(o, "names", &l->names, &l->nnames);
	r |= get_str(o, "version_string", &l->version_str);
	r |= get_str(o, "soname", &l->soname);
	r |= get_strv(o, "found_in", &l->where, &l->nwhere);
	r |= get_str(o, "error", &l->error);
	json_t *size = json_object_get(o, "size");
	if (size && !json_is_integer(size))
		r = -EBADMSG;
	else if (size && json_integer_value(size) >= 0)
		l->size = (uint64_t)json_integer_value(size);
	l->ld_default = json_is_true(json_object_get(o, "ld_default"));
	if (r || !l->path)
		return -EBADMSG;
	if (l->version_str)
		l->has_version = nccl_version_parse(l->version_str, &l->version) == 0;
	return 0;
}

static int torch_from_json(json_t *o, struct ncclib_torch *t, size_t nlibs)
{
	if (!json_is_object(o))
		return -EBADMSG;
	int r = 0;
	r |= get_str(o, "path", &t->path);
	r |= get_str(o, "version", &t->version);
	r |= get_str(o, "libtorch_cuda", &t->libtorch);
	r |= get_str(o, "needed", &t->needed);
	r |= get_str(o, "nccl_path", &t->nccl_path);
	r |= get_idx(o, "library", nlibs, &t->lib);
	r |= get_str(o, "via", &t->via);
	r |= get_str(o, "static_version_string", &t->static_version);
	r |= get_str(o, "error", &t->error);
	const char *how = json_string_value(json_object_get(o, "nccl"));
	t->how = TORCH_NCCL_UNKNOWN;
	if (how) {
		for (int k = TORCH_NCCL_UNKNOWN; k <= TORCH_NCCL_NO_CUDA; k++)
			if (strcmp(how, torch_nccl_name((enum torch_nccl)k)) == 0)
				t->how = (enum torch_nccl)k;
	}
	return r || !t->path ? -EBADMSG : 0;
}

int ncclib_scan_from_json(json_t *j, struct ncclib_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->ld_default = -1;
	s->vllm_lib = -1;
	if (!json_is_object(j))
		return -EBADMSG;
	json_t *libs = json_object_get(j, "libraries");
	json_t *ta = json_object_get(j, "torch");
	json_t *va = json_object_get(j, "vllm");
	if (!json_is_array(libs) || (ta && !json_is_array(ta)) || (va && !json_is_array(va)) ||
	    json_array_size(libs) > NCCLIB_MAX_LIBS || json_array_size(ta) > 256 || json_array_size(va) > 256)
		return -EBADMSG;
	int r = 0;
	size_t i;
	json_t *x;
	json_array_foreach(libs, i, x) {
		XGROW(s->libs, s->alibs, s->nlibs + 1);
		struct ncclib *l = &s->libs[s->nlibs++];
		memset(l, 0, sizeof(*l));
		if (lib_from_json(x, l) < 0) {
			r = -EBADMSG;
			break;
		}
	}
	if (r == 0 && ta) {
		json_array_foreach(ta, i, x) {
			XGROW(s->torch, s->atorch, s->ntorch + 1);
			struct ncclib_torch *t = &s->torch[s->ntorch++];
			memset(t, 0, sizeof(*t));
			if (torch_from_json(x, t, s->nlibs) < 0) {
				r = -EBADMSG;
				break;
			}
		}
	}
	if (r == 0 && va) {
		json_array_foreach(va, i, x) {
			XGROW(s->vllm, s->avllm, s->nvllm + 1);
			struct ncclib_vllm *v = &s->vllm[s->nvllm++];
			memset(v, 0, sizeof(*v));
			v->torch = -1;
			if (!json_is_object(x) || get_str(x, "path", &v->path) || get_str(x, "version", &v->version) ||
			    get_idx(x, "torch", s->ntorch, &v->torch) || !v->path) {
				r = -EBADMSG;
				break;
			}
		}
	}
	if (r == 0) {
		r |= get_idx(j, "ld_default", s->nlibs, &s->ld_default);
		r |= get_str(j, "ld_default_via", &s->ld_via);
		s->sudo = json_is_true(json_object_get(j, "sudo"));
		r |= get_str(j, "vllm_nccl_so_path", &s->vllm_so_path);
		r |= get_idx(j, "vllm_library", s->nlibs, &s->vllm_lib);
		r |= get_str(j, "vllm_nccl_so_path_error", &s->vllm_so_error);
		s->truncated = json_is_true(json_object_get(j, "truncated"));
	}
	if (r) {
		ncclib_scan_release(s);
		return -EBADMSG;
	}
	return 0;
}

