/* Library discovery (ncclib.h), the Python side: site-packages
 * directories, the libnccl that torch links or bundles, nvidia-nccl-cu*
 * wheels, vLLM and VLLM_NCCL_SO_PATH. */
#include "probe/ncclib_int.h"
#include "probe/elf.h"
#include "probe/environ.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Python installs ---- */

/* The first quoted string on the first line starting with "__version__". */
static char *read_py_version(const char *file)
{
	char *data;
	size_t len;
	if (ncs_in_read_file(file, &data, &len, 64 * 1024) < 0)
		return NULL;
	char *ret = NULL, *save = NULL;
	for (char *line = strtok_r(data, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		if (!str_startswith(line, "__version__"))
			continue;
		/* `__version__ = '2.11.0+cu130'`; setuptools-scm writes
		 * `__version__ = version = '0.11.0'`: the quoted string either way */
		char *q = NULL;
		for (char *p = line; *p; p++)
			if (*p == '\'' || *p == '"')
				q = q ? q : p;
		if (!q)
			continue;
		char *close = strchr(q + 1, *q);
		if (!close || close - q - 1 > 64 || close == q + 1)
			continue;
		ret = xstrndup(q + 1, (size_t)(close - q - 1));
		for (char *c = ret; *c; c++)
			if (!isprint((unsigned char)*c)) {
				free(ret);
				ret = NULL;
				break;
			}
	}
	free(data);
	return ret;
}

/* "python:nvidia-nccl-cu13" from site/nvidia_nccl_cu13-2.28.9.dist-info. */
static void nvidia_nccl_label(const char *site, char *out, size_t outsz)
{
	char pat[PATH_MAX], esc[PATH_MAX];
	char **paths = NULL;
	size_t n = 0;
	str_copy(out, "python:nvidia-nccl", outsz);
	if (ncs_glob_escape(site, esc, sizeof(esc)) == 0 &&
	    ncs_pjoin(pat, sizeof(pat), esc, "/nvidia_nccl_cu*.dist-info") == 0 && sr_glob(pat, &paths, &n) > 0) {
		const char *base = strrchr(paths[0], '/');
		base = base ? base + 1 : paths[0];
		/* nvidia_nccl_cu13-2.28.9.dist-info */
		const char *dash = strchr(base, '-');
		size_t l = dash ? (size_t)(dash - base) : strlen(base);
		char pkg[64];
		if (l < sizeof(pkg)) {
			memcpy(pkg, base, l);
			pkg[l] = '\0';
			for (char *c = pkg; *c; c++)
				if (*c == '_')
					*c = '-';
			snprintf(out, outsz, "python:%s", pkg);
		}
	}
	sr_names_free(paths, n);
}

static bool needs_nccl(const struct elf_dynamic *d, const char **name)
{
	for (size_t i = 0; i < d->nneeded; i++)
		if (ncs_is_nccl_name(d->needed[i])) {
			*name = d->needed[i];
			return true;
		}
	return false;
}

static bool dir_has_nccl(const char *dir)
{
	char **names;
	size_t n;
	bool found = false;
	if (ncs_in_list_dir(dir, &names, &n) < 0)
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = ncs_is_nccl_name(names[i]);
	sr_names_free(names, n);
	return found;
}

/* Which libnccl the PyTorch in site/torch loads. */
static void torch_examine(struct scanner *sc, const char *site)
{
	struct ncclib_scan *s = sc->s;
	char torchdir[PATH_MAX], libdir[PATH_MAX], p[PATH_MAX];
	ncs_pjoin(torchdir, sizeof(torchdir), site, "/torch");
	ncs_pjoin(libdir, sizeof(libdir), torchdir, "/lib");
	struct stat st;
	if (ncs_in_stat(libdir, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	for (size_t i = 0; i < s->ntorch; i++)
		if (strcmp(s->torch[i].path, torchdir) == 0)
			return;
	XGROW(s->torch, s->atorch, s->ntorch + 1);
	struct ncclib_torch *t = &s->torch[s->ntorch++];
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(torchdir);
	t->lib = -1;
	ncs_pjoin(p, sizeof(p), torchdir, "/version.py");
	t->version = read_py_version(p);

	ncs_pjoin(p, sizeof(p), libdir, "/libtorch_cuda.so");
	if (ncs_in_stat(p, &st) < 0) {
		t->how = TORCH_NCCL_NO_CUDA;
		return;
	}
	t->libtorch = xstrdup(p);
	/* libtorch_cuda.so needs libnccl.so.2 in every dynamically linked wheel;
	 * libtorch_global_deps.so (loaded first by torch/__init__.py) and
	 * libtorch.so are looked at too in case a build moved the dependency */
	static const char *const objs[] = { "libtorch_cuda.so", "libtorch_global_deps.so", "libtorch.so" };
	for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); k++) {
		ncs_pjoin(p, sizeof(p), libdir, objs[k]);
		if (k > 0 && ncs_in_stat(p, &st) < 0)
			continue;
		struct elf_file e;
		struct elf_dynamic d;
		int r = ncs_in_elf_open(&e, p);
		if (r == 0) {
			r = elf_read_dynamic(&e, &d);
			elf_close(&e);
		}
		if (r < 0) {
			if (k == 0) {
				t->how = TORCH_NCCL_UNKNOWN;
				t->error = xasprintf("cannot read '%s': %s", p, elf_strerror(r));
				return;
			}
			continue;
		}
		const char *need;
		if (!needs_nccl(&d, &need)) {
			elf_dynamic_release(&d);
			continue;
		}
		t->needed = xstrdup(need);
		char found[PATH_MAX], via[PATH_MAX + 64];
		if (ncs_ld_resolve(sc, need, d.rpath, d.runpath, libdir, found, sizeof(found), via, sizeof(via)) == 0) {
			char canon[PATH_MAX];
			if (sr_realpath(found, canon, sizeof(canon)) < 0)
				str_copy(canon, found, sizeof(canon));
			t->how = TORCH_NCCL_SHARED;
			t->nccl_path = xstrdup(canon);
			t->via = k == 0 ? xstrdup(via) : xasprintf("%s of %s", via, objs[k]);
			t->lib = ncs_lib_for_path(sc, found);
		} else {
			t->how = TORCH_NCCL_MISSING;
		}
		elf_dynamic_release(&d);
		return;
	}
	if (dir_has_nccl(libdir)) {
		/* a libnccl beside it that nothing we read needs */
		t->how = TORCH_NCCL_UNKNOWN;
		return;
	}
	/* old wheels link NCCL into libtorch_cuda.so: its version string is there */
	t->how = TORCH_NCCL_STATIC;
	struct nccl_version v;
	char *vs = NULL;
	double t0 = ncs_now_ms();
	ncs_pjoin(p, sizeof(p), libdir, "/libtorch_cuda.so");
	if (ncclib_read_version(p, &vs, &v) == 0)
		t->static_version = vs;
	else
		free(vs);
	s->read_ms += ncs_now_ms() - t0;
}

static void vllm_examine(struct scanner *sc, const char *site)
{
	struct ncclib_scan *s = sc->s;
	char dir[PATH_MAX], p[PATH_MAX];
	ncs_pjoin(dir, sizeof(dir), site, "/vllm");
	ncs_pjoin(p, sizeof(p), dir, "/__init__.py");
	struct stat st;
	if (ncs_in_stat(p, &st) < 0)
		return;
	for (size_t i = 0; i < s->nvllm; i++)
		if (strcmp(s->vllm[i].path, dir) == 0)
			return;
	XGROW(s->vllm, s->avllm, s->nvllm + 1);
	struct ncclib_vllm *v = &s->vllm[s->nvllm++];
	v->path = xstrdup(dir);
	ncs_pjoin(p, sizeof(p), dir, "/_version.py");
	v->version = read_py_version(p);
	v->torch = -1;
	char tdir[PATH_MAX];
	ncs_pjoin(tdir, sizeof(tdir), site, "/torch");
	for (size_t i = 0; i < s->ntorch; i++)
		if (strcmp(s->torch[i].path, tdir) == 0)
			v->torch = (int)i;
}

/* The longest name joined to a site here ("/torch/lib/libtorch_global_deps.so",
 * "/nvidia_nccl_cu*.dist-info"), with room to spare. */
#define SITE_SUFFIX_MAX 64

void ncs_scan_site(struct scanner *sc, const char *site)
{
	char p[PATH_MAX], label[96];
	/* every path below is site + a short suffix, escaped for glob at most
	 * twice as long: a site too long for that is skipped, so that no join
	 * below is cut (a cut path would name another file) */
	if (strlen(site) * 2 + SITE_SUFFIX_MAX >= PATH_MAX)
		return;
	ncs_pjoin(p, sizeof(p), site, "/nvidia/nccl/lib");
	struct stat st;
	if (ncs_in_stat(p, &st) == 0) {
		nvidia_nccl_label(site, label, sizeof(label));
		ncs_scan_dir(sc, p, label);
	}
	ncs_pjoin(p, sizeof(p), site, "/torch/lib");
	ncs_scan_dir(sc, p, "python:torch");
	torch_examine(sc, site);
	vllm_examine(sc, site);
}

/* Every site-packages/dist-packages directory we know where to look for. */
void ncs_find_sites(char ***sites, size_t *nsites)
{
	char **roots = NULL;
	size_t nroots = 0;
	static const char *const fixed[] = {
		"/usr/lib/python3*/site-packages", "/usr/lib/python3*/dist-packages",
		"/usr/lib64/python3*/site-packages", "/usr/local/lib/python3*/site-packages",
		"/usr/local/lib/python3*/dist-packages", "/usr/local/lib64/python3*/site-packages",
		"/opt/*/lib/python3*/site-packages", "/opt/*/.venv/lib/python3*/site-packages",
		"/opt/*/venv/lib/python3*/site-packages", "/opt/conda/envs/*/lib/python3*/site-packages",
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		ncs_strv_add(&roots, &nroots, fixed[i]);
	/* environments named by the environment, and the usual ones under $HOME */
	static const struct {
		const char *var;
		const char *sub;
	} envs[] = {
		{ "VIRTUAL_ENV", "" },
		{ "CONDA_PREFIX", "" },
		{ "HOME", "/.local" },
		{ "HOME", "/.pyenv/versions/*" },
		{ "HOME", "/miniconda3" },
		{ "HOME", "/miniconda3/envs/*" },
		{ "HOME", "/anaconda3" },
		{ "HOME", "/anaconda3/envs/*" },
	};
	for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
		const char *v = environ_get(envs[i].var);
		if (!v || v[0] != '/' || strlen(v) > PATH_MAX / 2)
			continue;
		char esc[PATH_MAX], pat[PATH_MAX + 128];
		if (ncs_glob_escape(v, esc, sizeof(esc)) < 0 ||
		    xsnprintf(pat, sizeof(pat), "%s%s/lib/python3*/site-packages", esc, envs[i].sub) < 0)
			continue;
		ncs_strv_add(&roots, &nroots, pat);
	}
	for (size_t i = 0; i < nroots; i++) {
		char **paths;
		size_t n;
		if (sr_glob(roots[i], &paths, &n) > 0) {
			for (size_t k = 0; k < n; k++) {
				/* one entry per directory, however it was reached
				 * ($VIRTUAL_ENV through a link, /opt/x/.venv) */
				char canon[PATH_MAX];
				struct stat st;
				if (sr_realpath(paths[k], canon, sizeof(canon)) == 0 && sr_stat(canon, &st) == 0 &&
				    S_ISDIR(st.st_mode))
					ncs_strv_add(sites, nsites, canon);
			}
			sr_names_free(paths, n);
		}
	}
	ncs_strv_free(roots, nroots);
}

void ncs_scan_vllm_env(struct scanner *sc)
{
	struct ncclib_scan *s = sc->s;
	const char *v = environ_get("VLLM_NCCL_SO_PATH");
	if (!v || !*v)
		return;
	s->vllm_so_path = xstrdup(v);
	char path[PATH_MAX];
	if (!strchr(v, '/')) {
		/* a bare name: vLLM hands it to dlopen, which searches like ld.so */
		char via[PATH_MAX + 64];
		if (ncs_ld_resolve(sc, v, NULL, NULL, NULL, path, sizeof(path), via, sizeof(via)) < 0) {
			s->vllm_so_error = xstrdup("not found by the dynamic loader");
			return;
		}
	} else if (v[0] != '/') {
		s->vllm_so_error = xstrdup("a relative path: it depends on the working directory of vLLM");
		return;
	} else {
		str_copy(path, v, sizeof(path));
	}
	const char *why = NULL;
	s->vllm_lib = ncs_add_candidate(sc, path, "VLLM_NCCL_SO_PATH", true, &why);
	if (s->vllm_lib < 0)
		s->vllm_so_error = xstrdup(why ? why : "cannot be read");
	else if (s->libs[s->vllm_lib].error)
		s->vllm_so_error = xstrdup(s->libs[s->vllm_lib].error);
}

