/* Discovery of every libnccl and of the copy PyTorch and vLLM load: see
 * ncclib.h. Nothing here loads a library; it reads directories, links, ELF
 * headers and a little read-only data, all through the sysroot. */
#include "probe/ncclib_int.h"
#include "probe/elf.h"
#include "probe/environ.h"
#include "util/jsonx.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>


/* util/ncclver.h: the string libnccl carries since 2.3 */
static const char VERSION_PREFIX[] = NCCL_VERSION_PREFIX;

/* ---- sysroot-safe access ----
 * sr_stat, sr_open and friends let the kernel follow links, and an absolute
 * link inside a sysroot (/usr/local/cuda -> /usr/local/cuda-13.0) would lead
 * out of it, to the host's files. Paths are resolved inside the sysroot
 * first (on the live machine that changes nothing). */

int ncs_in_stat(const char *path, struct stat *st)
{
	char c[PATH_MAX];
	int r = sr_realpath(path, c, sizeof(c));
	return r < 0 ? r : sr_stat(c, st);
}

int ncs_in_read_file(const char *path, char **data, size_t *len, size_t max)
{
	char c[PATH_MAX];
	*data = NULL;
	*len = 0;
	int r = sr_realpath(path, c, sizeof(c));
	return r < 0 ? r : sr_read_file(c, data, len, max);
}

int ncs_in_list_dir(const char *path, char ***names, size_t *n)
{
	char c[PATH_MAX];
	*names = NULL;
	*n = 0;
	int r = sr_realpath(path, c, sizeof(c));
	return r < 0 ? r : sr_list_dir(c, names, n);
}

int ncs_in_elf_open(struct elf_file *e, const char *path)
{
	char c[PATH_MAX];
	int r = sr_realpath(path, c, sizeof(c));
	if (r < 0) {
		memset(e, 0, sizeof(*e));
		e->fd = -1;
		return r;
	}
	return elf_open(e, c);
}

/* ---- version strings ---- */

/* Looks for the version string in [off, off + len). The complete form (with
 * "+cuda") wins over a shorter one ("NCCL version 2.28.9 compiled with ...").
 * 1 found, 0 not, negative errno. */
static int scan_version(const struct elf_file *e, uint64_t off, uint64_t len, char **vstr,
			struct nccl_version *v)
{
	uint64_t end = off + len, pos = off;
	char *best = NULL;
	struct nccl_version bestv;
	for (int hits = 0; hits < MAX_VERSION_HITS && pos < end; hits++) {
		uint64_t at;
		int r = elf_scan(e, pos, end - pos, VERSION_PREFIX, sizeof(VERSION_PREFIX) - 1, &at);
		if (r < 0) {
			free(best);
			return r;
		}
		if (r == 0)
			break;
		char buf[96];
		uint64_t avail = e->size - at;
		size_t want = avail < sizeof(buf) - 1 ? (size_t)avail : sizeof(buf) - 1;
		r = elf_read_at(e, at, buf, want);
		if (r < 0) {
			free(best);
			return r;
		}
		buf[want] = '\0';
		size_t n = 0;
		while (n < want && isprint((unsigned char)buf[n]))
			n++;
		buf[n] = '\0';
		struct nccl_version tv;
		if (nccl_version_parse(buf, &tv) == 0) {
			if (tv.cuda_major >= 0) {
				free(best);
				*vstr = xstrdup(buf);
				*v = tv;
				return 1;
			}
			if (!best) {
				best = xstrdup(buf);
				bestv = tv;
			}
		}
		pos = at + 1;
	}
	if (best) {
		*vstr = best;
		*v = bestv;
		return 1;
	}
	return 0;
}

static int read_version_elf(const struct elf_file *e, char **vstr, struct nccl_version *v)
{
	*vstr = NULL;
	const struct elf_section *ro = elf_section_by_name(e, ".rodata");
	int r;
	if (ro && ro->type != 8 /* SHT_NOBITS */ && ro->offset <= e->size) {
		uint64_t len = ro->size > RODATA_SCAN_MAX ? RODATA_SCAN_MAX : ro->size;
		r = scan_version(e, ro->offset, len, vstr, v);
	} else {
		r = scan_version(e, 0, VERSION_FALLBACK_SCAN, vstr, v);
	}
	if (r < 0)
		return r;
	return r == 1 ? 0 : -ENOENT;
}

int ncclib_read_version(const char *path, char **vstr, struct nccl_version *v)
{
	struct elf_file e;
	*vstr = NULL;
	int r = ncs_in_elf_open(&e, path);
	if (r < 0)
		return r;
	r = read_version_elf(&e, vstr, v);
	elf_close(&e);
	return r;
}

/* ---- small helpers ---- */

double ncs_now_ms(void)
{
	return nd_now_s() * 1e3;
}

static bool strv_has(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

void ncs_strv_add(char ***v, size_t *n, const char *s)
{
	if (strv_has(*v, *n, s))
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = xstrdup(s);
}

void ncs_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* out = a + b (b starts with '/' or is appended after one); -ENAMETOOLONG
 * leaves out empty. snprintf would do, but the joins are checked here once. */
int ncs_pjoin(char *out, size_t outsz, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	bool slash = b[0] != '/';
	if (la + slash + lb + 1 > outsz) {
		if (outsz)
			out[0] = '\0';
		return -ENAMETOOLONG;
	}
	memmove(out, a, la);
	if (slash)
		out[la++] = '/';
	memcpy(out + la, b, lb + 1);
	return 0;
}

/* Escapes glob(3) metacharacters of a path taken from the environment. */
int ncs_glob_escape(const char *s, char *out, size_t outsz)
{
	size_t o = 0;
	for (; *s && o + 2 < outsz; s++) {
		if (strchr("*?[]\\", *s))
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o] = '\0';
	if (*s) {
		out[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/* libnccl.so, libnccl.so.2, libnccl.so.2.28.3 (and hashed copies such as
 * libnccl-1a2b3c4d.so.2 that auditwheel makes), not the plugins
 * (libnccl-net.so, libnccl-tuner.so, libnccl-profiler.so) nor libnccl_static.a. */
bool ncs_is_nccl_name(const char *name)
{
	if (!str_startswith(name, "libnccl"))
		return false;
	if (str_startswith(name, "libnccl.so"))
		return true;
	if (str_startswith(name, "libnccl-net") || str_startswith(name, "libnccl-tuner") ||
	    str_startswith(name, "libnccl-profiler") || str_startswith(name, "libnccl-env") ||
	    str_startswith(name, "libnccl-ras"))
		return false;
	return str_startswith(name, "libnccl-") && strstr(name, ".so") != NULL;
}

/* ---- the scanner ---- */


static int lib_find(const struct ncclib_scan *s, const char *canon)
{
	for (size_t i = 0; i < s->nlibs; i++)
		if (strcmp(s->libs[i].path, canon) == 0)
			return (int)i;
	return -1;
}

/* Reads what a library says about itself: SONAME and version. */
static void lib_examine(struct scanner *sc, struct ncclib *l)
{
	struct elf_file e;
	int r = ncs_in_elf_open(&e, l->path);
	if (r < 0) {
		l->error = xstrdup(elf_strerror(r));
		return;
	}
	struct elf_dynamic d;
	if (elf_read_dynamic(&e, &d) == 0) {
		if (d.soname)
			l->soname = xstrdup(d.soname);
		elf_dynamic_release(&d);
	}
	double t0 = ncs_now_ms();
	r = read_version_elf(&e, &l->version_str, &l->version);
	sc->s->read_ms += ncs_now_ms() - t0;
	l->has_version = r == 0;
	if (r < 0 && r != -ENOENT)
		l->error = xstrdup(elf_strerror(r));
	elf_close(&e);
}

static bool lib_is_nccl(const struct ncclib *l)
{
	return l->has_version || (l->soname && str_startswith(l->soname, "libnccl"));
}

/* Adds the file at path (inside the sysroot), found in `where`. Returns the
 * library index, or -1 when it is skipped (not a regular file, too big, over
 * the limits, or require_nccl and it is not NCCL). *why gets the reason. */
int ncs_add_candidate(struct scanner *sc, const char *path, const char *where, bool require_nccl,
			 const char **why)
{
	struct ncclib_scan *s = sc->s;
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	struct stat st;
	int r = ncs_in_stat(path, &st);
	if (r < 0) {
		*why = sr_reason(r);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return -1;
	}
	if ((uint64_t)st.st_size > NCCLIB_MAX_FILE) {
		*why = "larger than 4 GiB";
		return -1;
	}
	char canon[PATH_MAX];
	if (sr_realpath(path, canon, sizeof(canon)) < 0)
		str_copy(canon, path, sizeof(canon));
	int i = lib_find(s, canon);
	if (i < 0) {
		if (s->nlibs >= NCCLIB_MAX_LIBS || sc->files >= MAX_FILES) {
			s->truncated = true;
			*why = "too many libraries";
			return -1;
		}
		sc->files++;
		struct ncclib l;
		memset(&l, 0, sizeof(l));
		l.path = xstrdup(canon);
		l.size = (uint64_t)st.st_size;
		lib_examine(sc, &l);
		if (require_nccl && !lib_is_nccl(&l)) {
			str_copy(sc->why, l.error ? l.error : "not an NCCL library (no NCCL version string)",
				 sizeof(sc->why));
			*why = sc->why;
			free(l.path);
			free(l.version_str);
			free(l.soname);
			free(l.error);
			return -1;
		}
		XGROW(s->libs, s->alibs, s->nlibs + 1);
		s->libs[s->nlibs] = l;
		i = (int)s->nlibs++;
		ncs_strv_add(&s->libs[i].names, &s->libs[i].nnames, canon);
	}
	ncs_strv_add(&s->libs[i].names, &s->libs[i].nnames, path);
	ncs_strv_add(&s->libs[i].where, &s->libs[i].nwhere, where);
	return i;
}

/* The kind of place a directory is, for "found in". */
static const char *dir_kind(const char *dir)
{
	if (str_startswith(dir, "/usr/local/cuda"))
		return "cuda";
	if (str_startswith(dir, "/opt/nvidia/"))
		return "/opt/nvidia";
	if (strstr(dir, "/conda/") || strstr(dir, "/miniconda") || strstr(dir, "/anaconda"))
		return "conda";
	if (strstr(dir, "-packages/torch/"))
		return "python:torch";
	if (strstr(dir, "-packages/nvidia/"))
		return "python:nvidia-nccl";
	return "system";
}

/* The library at path: the one already found there, else a new candidate
 * labelled by the kind of its directory. */
int ncs_lib_for_path(struct scanner *sc, const char *path)
{
	char canon[PATH_MAX];
	if (sr_realpath(path, canon, sizeof(canon)) < 0)
		str_copy(canon, path, sizeof(canon));
	int i = lib_find(sc->s, canon);
	if (i >= 0)
		return i;
	char dir[PATH_MAX];
	str_copy(dir, path, sizeof(dir));
	char *sl = strrchr(dir, '/');
	if (sl)
		*sl = '\0';
	return ncs_add_candidate(sc, path, dir_kind(dir), false, NULL);
}

/* Lists dir and adds every libnccl in it. */
void ncs_scan_dir(struct scanner *sc, const char *dir, const char *where)
{
	char canon[PATH_MAX];
	if (sr_realpath(dir, canon, sizeof(canon)) < 0)
		return; /* missing: nothing to do */
	char key[PATH_MAX + 128];
	/* a cut key could make two directories one: not scanned at all then */
	if (xsnprintf(key, sizeof(key), "%s\t%s", where, canon) < 0 || strv_has(sc->visited, sc->nvisited, key))
		return;
	if (sc->nvisited >= MAX_DIRS) {
		sc->s->truncated = true;
		return;
	}
	ncs_strv_add(&sc->visited, &sc->nvisited, key);
	char **names;
	size_t n;
	if (ncs_in_list_dir(canon, &names, &n) < 0)
		return;
	sc->s->dirs_scanned++;
	for (size_t i = 0; i < n; i++) {
		if (!ncs_is_nccl_name(names[i]))
			continue;
		char p[PATH_MAX];
		if (ncs_pjoin(p, sizeof(p), strcmp(canon, "/") == 0 ? "" : canon, names[i]) < 0)
			continue;
		ncs_add_candidate(sc, p, where, false, NULL);
	}
	sr_names_free(names, n);
}

/* Expands pattern (inside the sysroot) and scans each match. */
static void scan_glob(struct scanner *sc, const char *pattern, const char *where)
{
	char **paths;
	size_t n;
	if (sr_glob(pattern, &paths, &n) <= 0)
		return;
	for (size_t i = 0; i < n; i++)
		ncs_scan_dir(sc, paths[i], where);
	sr_names_free(paths, n);
}

static void scanner_release(struct scanner *sc)
{
	ncs_strv_free(sc->llp, sc->nllp);
	ncs_strv_free(sc->conf, sc->nconf);
	ncs_strv_free(sc->visited, sc->nvisited);
	free(sc->ldcache);
}

static int load_record(struct ncclib_scan *s, bool *found)
{
	char *data;
	size_t len;
	*found = false;
	if (ncs_in_read_file(NCCLIB_RECORD_PATH, &data, &len, RECORD_MAX) < 0)
		return 0;
	*found = true;
	json_error_t jerr;
	json_t *j = json_loadb(data, len, 0, &jerr);
	free(data);
	if (!j)
		return -EBADMSG;
	int r = ncclib_scan_from_json(j, s);
	json_decref(j);
	if (r == 0)
		s->from_record = true;
	return r;
}

int ncclib_scan(struct ncclib_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->ld_default = -1;
	s->vllm_lib = -1;
	double t0 = ncs_now_ms();
	if (!sysroot_is_live()) {
		bool found;
		int r = load_record(s, &found);
		if (found) {
			if (r < 0) {
				s->from_record = true;
				s->record_err = r;
			}
			return r;
		}
	}

	struct scanner sc;
	memset(&sc, 0, sizeof(sc));
	sc.s = s;
	const char *llp = environ_get("LD_LIBRARY_PATH");
	if (llp)
		ncs_split_path_list(llp, &sc.llp, &sc.nllp);
	ncs_parse_ld_conf(&sc, "/etc/ld.so.conf", 0);
	if (ncs_in_read_file("/etc/ld.so.cache", &sc.ldcache, &sc.ldcache_len, RECORD_MAX) == 0) {
		char tmp[PATH_MAX];
		sc.ldcache_ok = ncclib_ldcache_lookup(sc.ldcache, sc.ldcache_len, "libc.so.6", tmp, sizeof(tmp)) >= 0;
	}
	s->sudo = environ_get("SUDO_USER") != NULL;

	/* VLLM_NCCL_SO_PATH and LD_LIBRARY_PATH first, so that their labels come
	 * first in "found in" */
	ncs_scan_vllm_env(&sc);
	for (size_t i = 0; i < sc.nllp; i++)
		ncs_scan_dir(&sc, sc.llp[i], "LD_LIBRARY_PATH");
	for (size_t i = 0; i < sc.nconf; i++)
		ncs_scan_dir(&sc, sc.conf[i], dir_kind(sc.conf[i]));
	static const char *const sysdirs[] = {
		"/lib", "/usr/lib", "/usr/lib64", "/usr/local/lib",
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib/x86_64-linux-gnu",
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/local/lib/aarch64-linux-gnu",
	};
	for (size_t i = 0; i < sizeof(sysdirs) / sizeof(sysdirs[0]); i++)
		ncs_scan_dir(&sc, sysdirs[i], "system");
	static const char *const cudadirs[] = {
		"/usr/local/cuda*/lib", "/usr/local/cuda*/lib64", "/usr/local/cuda*/targets/*/lib",
	};
	for (size_t i = 0; i < sizeof(cudadirs) / sizeof(cudadirs[0]); i++)
		scan_glob(&sc, cudadirs[i], "cuda");
	static const char *const nvdirs[] = {
		"/opt/nvidia/*/lib", "/opt/nvidia/*/lib64",
		"/opt/nvidia/hpc_sdk/Linux_*/*/comm_libs/nccl/lib",
		"/opt/nvidia/hpc_sdk/Linux_*/*/comm_libs/*/nccl/lib",
	};
	for (size_t i = 0; i < sizeof(nvdirs) / sizeof(nvdirs[0]); i++)
		scan_glob(&sc, nvdirs[i], "/opt/nvidia");
	/* conda's nccl package installs into the environment's lib/ */
	scan_glob(&sc, "/opt/conda/lib", "conda");
	scan_glob(&sc, "/opt/conda/envs/*/lib", "conda");
	const char *cp = environ_get("CONDA_PREFIX");
	if (cp && cp[0] == '/') {
		char d[PATH_MAX];
		if (ncs_pjoin(d, sizeof(d), cp, "/lib") == 0)
			ncs_scan_dir(&sc, d, "conda");
	}

	char **sites = NULL;
	size_t nsites = 0;
	ncs_find_sites(&sites, &nsites);
	for (size_t i = 0; i < nsites; i++)
		ncs_scan_site(&sc, sites[i]);
	ncs_strv_free(sites, nsites);

	/* what a program that links libnccl.so.2 (nccl-tests, a C++ app) gets */
	char found[PATH_MAX], via[PATH_MAX + 64];
	if (ncs_ld_resolve(&sc, "libnccl.so.2", NULL, NULL, NULL, found, sizeof(found), via, sizeof(via)) == 0) {
		s->ld_default = ncs_lib_for_path(&sc, found);
		s->ld_via = xstrdup(via);
		if (s->ld_default >= 0)
			s->libs[s->ld_default].ld_default = true;
	}

	for (size_t i = 0; i < s->nlibs; i++)
		if (s->libs[i].nnames > 1)
			qsort(s->libs[i].names, s->libs[i].nnames, sizeof(char *), cmp_strp);
	scanner_release(&sc);
	s->scan_ms = ncs_now_ms() - t0;
	return 0;
}

