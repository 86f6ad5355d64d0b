/* Discovery of every libnccl and of the copy PyTorch and vLLM load: see
 * ncclib.h. Nothing here loads a library; it reads directories, links, ELF
 * headers and a little read-only data, all through the sysroot. */
#include "probe/ncclib.h"
#include "probe/elf.h"
#include "probe/environ.h"
#include "util/jsonx.h"
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
#include <time.h>

#define MAX_DIRS 512          /* directories listed in one scan */
#define MAX_FILES 256         /* candidate files examined in one scan */
#define MAX_CONF_FILES 128    /* ld.so.conf and its includes */
#define MAX_CONF_DEPTH 8
#define VERSION_FALLBACK_SCAN (64ull << 20) /* no .rodata: the first 64 MiB */
#define RODATA_SCAN_MAX (256ull << 20)
#define MAX_VERSION_HITS 256  /* "NCCL version " occurrences examined */
#define RECORD_MAX (16u << 20)

/* util/ncclver.h: the string libnccl carries since 2.3 */
static const char VERSION_PREFIX[] = NCCL_VERSION_PREFIX;

/* ---- sysroot-safe access ----
 * sr_stat, sr_open and friends let the kernel follow links, and an absolute
 * link inside a sysroot (/usr/local/cuda -> /usr/local/cuda-13.0) would lead
 * out of it, to the host's files. Paths are resolved inside the sysroot
 * first (on the live machine that changes nothing). */

static int in_stat(const char *path, struct stat *st)
{
	char c[PATH_MAX];
	int r = sr_realpath(path, c, sizeof(c));
	return r < 0 ? r : sr_stat(c, st);
}

static int in_read_file(const char *path, char **data, size_t *len, size_t max)
{
	char c[PATH_MAX];
	*data = NULL;
	*len = 0;
	int r = sr_realpath(path, c, sizeof(c));
	return r < 0 ? r : sr_read_file(c, data, len, max);
}

static int in_list_dir(const char *path, char ***names, size_t *n)
{
	char c[PATH_MAX];
	*names = NULL;
	*n = 0;
	int r = sr_realpath(path, c, sizeof(c));
	return r < 0 ? r : sr_list_dir(c, names, n);
}

static int in_elf_open(struct elf_file *e, const char *path)
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
	int r = in_elf_open(&e, path);
	if (r < 0)
		return r;
	r = read_version_elf(&e, vstr, v);
	elf_close(&e);
	return r;
}

/* ---- /etc/ld.so.cache ----
 * glibc elf/cache.c and sysdeps/generic/dl-cache.h: a header
 * "glibc-ld.so.cache" "1.1", uint32 nlibs, uint32 len_strings, uint8 flags,
 * 3 bytes padding, uint32 extension_offset, 3 unused uint32 (48 bytes), then
 * nlibs entries of { int32 flags; uint32 key, value; uint32 osversion;
 * uint64 hwcap } (24 bytes), native byte order; key and value are offsets of
 * NUL-terminated strings from the start of that header. Before glibc 2.32
 * the file usually began with the old format ("ld.so-1.7.0", uint32 nlibs,
 * 12-byte entries) and the new header followed, 8-byte aligned. */

#define LDCACHE_NEW_MAGIC "glibc-ld.so.cache1.1"
#define LDCACHE_OLD_MAGIC "ld.so-1.7.0"
#define LDCACHE_FLAG_LIBC6 0x0003
#if defined(__x86_64__)
#define LDCACHE_ARCH_ID 0x0303   /* FLAG_X8664_LIB64 | FLAG_ELF_LIBC6 */
#elif defined(__aarch64__)
#define LDCACHE_ARCH_ID 0x0a03   /* FLAG_AARCH64_LIB64 | FLAG_ELF_LIBC6 */
#elif defined(__powerpc64__)
#define LDCACHE_ARCH_ID 0x0503   /* FLAG_POWERPC_LIB64 | FLAG_ELF_LIBC6 */
#else
#define LDCACHE_ARCH_ID LDCACHE_FLAG_LIBC6
#endif

static uint32_t rd32(const char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The string at off of the len bytes at base, or NULL when unterminated. */
static const char *cache_str(const char *base, size_t len, uint32_t off)
{
	if (off >= len || !memchr(base + off, '\0', len - off))
		return NULL;
	return base + off;
}

int ncclib_ldcache_lookup(const char *data, size_t len, const char *name, char *out, size_t outsz)
{
	size_t off = 0;
	size_t ml = sizeof(LDCACHE_NEW_MAGIC) - 1;
	if (len >= 16 &&
	    memcmp(data, LDCACHE_OLD_MAGIC, sizeof(LDCACHE_OLD_MAGIC) - 1) == 0) {
		uint32_t nold = rd32(data + 12);
		uint64_t end = 16 + (uint64_t)nold * 12;
		off = (size_t)((end + 7) & ~(uint64_t)7);
		if (end > len || off + ml > len || memcmp(data + off, LDCACHE_NEW_MAGIC, ml) != 0)
			return -EBADMSG; /* only the old format: not read */
	}
	if (off + 48 > len || memcmp(data + off, LDCACHE_NEW_MAGIC, ml) != 0)
		return -EBADMSG;
	const char *base = data + off;
	size_t blen = len - off;
	uint32_t n = rd32(base + 20);
	if ((uint64_t)n * 24 + 48 > blen)
		return -EBADMSG;
	const char *best = NULL;
	for (uint32_t i = 0; i < n; i++) {
		const char *e = base + 48 + (size_t)i * 24;
		int32_t flags = (int32_t)rd32(e);
		if (flags != LDCACHE_FLAG_LIBC6 && flags != LDCACHE_ARCH_ID)
			continue;
		const char *key = cache_str(base, blen, rd32(e + 4));
		if (!key || strcmp(key, name) != 0)
			continue;
		const char *val = cache_str(base, blen, rd32(e + 8));
		if (!val)
			return -EBADMSG;
		uint64_t hwcap;
		memcpy(&hwcap, e + 16, 8);
		/* entries with hwcap bits are glibc-hwcaps subdirectory copies the
		 * loader prefers on CPUs that have them; the plain one is what
		 * every CPU gets, so that is the one taken here */
		if (hwcap == 0) {
			best = val;
			break;
		}
		if (!best)
			best = val;
	}
	if (!best)
		return 0;
	if (str_copy(out, best, outsz) >= outsz)
		return -ENAMETOOLONG;
	return 1;
}

/* ---- small helpers ---- */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool strv_has(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static void strv_add(char ***v, size_t *n, const char *s)
{
	if (strv_has(*v, *n, s))
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = xstrdup(s);
}

static void strv_free(char **v, size_t n)
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
static int pjoin(char *out, size_t outsz, const char *a, const char *b)
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
static void glob_escape(const char *s, char *out, size_t outsz)
{
	size_t o = 0;
	for (; *s && o + 2 < outsz; s++) {
		if (strchr("*?[]\\", *s))
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o] = '\0';
}

/* libnccl.so, libnccl.so.2, libnccl.so.2.28.3 (and hashed copies such as
 * libnccl-1a2b3c4d.so.2 that auditwheel makes), not the plugins
 * (libnccl-net.so, libnccl-tuner.so, libnccl-profiler.so) nor libnccl_static.a. */
static bool is_nccl_name(const char *name)
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

struct scanner {
	struct ncclib_scan *s;
	char **llp;          /* LD_LIBRARY_PATH directories, in order */
	size_t nllp;
	char **conf;         /* ld.so.conf directories, in order */
	size_t nconf;
	char **visited;      /* "where\tcanonical dir" already listed */
	size_t nvisited;
	unsigned files;
	unsigned conf_files;
	char *ldcache;       /* /etc/ld.so.cache, NULL when absent */
	size_t ldcache_len;
	bool ldcache_ok;     /* it parsed: ld.so uses it instead of ld.so.conf */
	char why[256];       /* why add_candidate skipped a file */
};

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
	int r = in_elf_open(&e, l->path);
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
	double t0 = now_ms();
	r = read_version_elf(&e, &l->version_str, &l->version);
	sc->s->read_ms += now_ms() - t0;
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
static int add_candidate(struct scanner *sc, const char *path, const char *where, bool require_nccl,
			 const char **why)
{
	struct ncclib_scan *s = sc->s;
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	struct stat st;
	int r = in_stat(path, &st);
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
		strv_add(&s->libs[i].names, &s->libs[i].nnames, canon);
	}
	strv_add(&s->libs[i].names, &s->libs[i].nnames, path);
	strv_add(&s->libs[i].where, &s->libs[i].nwhere, where);
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
static int lib_for_path(struct scanner *sc, const char *path)
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
	return add_candidate(sc, path, dir_kind(dir), false, NULL);
}

/* Lists dir and adds every libnccl in it. */
static void scan_dir(struct scanner *sc, const char *dir, const char *where)
{
	char canon[PATH_MAX];
	if (sr_realpath(dir, canon, sizeof(canon)) < 0)
		return; /* missing: nothing to do */
	char key[PATH_MAX + 64];
	snprintf(key, sizeof(key), "%s\t%s", where, canon);
	if (strv_has(sc->visited, sc->nvisited, key))
		return;
	if (sc->nvisited >= MAX_DIRS) {
		sc->s->truncated = true;
		return;
	}
	strv_add(&sc->visited, &sc->nvisited, key);
	char **names;
	size_t n;
	if (in_list_dir(canon, &names, &n) < 0)
		return;
	sc->s->dirs_scanned++;
	for (size_t i = 0; i < n; i++) {
		if (!is_nccl_name(names[i]))
			continue;
		char p[PATH_MAX];
		if (pjoin(p, sizeof(p), strcmp(canon, "/") == 0 ? "" : canon, names[i]) < 0)
			continue;
		add_candidate(sc, p, where, false, NULL);
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
		scan_dir(sc, paths[i], where);
	sr_names_free(paths, n);
}

/* ---- ld.so configuration ---- */

static void split_path_list(const char *list, char ***out, size_t *n)
{
	char *copy = xstrdup(list);
	char *save = NULL;
	for (char *tok = strtok_r(copy, ":;", &save); tok; tok = strtok_r(NULL, ":;", &save)) {
		/* empty entries mean the current directory and $ORIGIN-style tokens
		 * depend on the program: neither names a fixed place */
		if (tok[0] != '/' || strchr(tok, '$'))
			continue;
		strv_add(out, n, tok);
	}
	free(copy);
}

static void parse_ld_conf(struct scanner *sc, const char *file, int depth)
{
	if (depth > MAX_CONF_DEPTH || sc->conf_files >= MAX_CONF_FILES)
		return;
	sc->conf_files++;
	char *data;
	size_t len;
	if (in_read_file(file, &data, &len, 1u << 20) < 0)
		return;
	char dirbuf[PATH_MAX];
	str_copy(dirbuf, file, sizeof(dirbuf));
	char *slash = strrchr(dirbuf, '/');
	if (slash)
		*slash = '\0';
	char *save = NULL;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "#")] = '\0';
		char *t = str_trim(line);
		if (!*t)
			continue;
		if (str_startswith(t, "include") && isspace((unsigned char)t[7])) {
			/* glibc ldconfig: patterns separated by blanks, relative to the
			 * including file's directory */
			char *save2 = NULL;
			for (char *pat = strtok_r(t + 8, " \t", &save2); pat; pat = strtok_r(NULL, " \t", &save2)) {
				char full[PATH_MAX];
				if (pat[0] == '/')
					str_copy(full, pat, sizeof(full));
				else
					pjoin(full, sizeof(full), dirbuf, pat);
				char **files;
				size_t nf;
				if (sr_glob(full, &files, &nf) > 0) {
					for (size_t i = 0; i < nf; i++)
						parse_ld_conf(sc, files[i], depth + 1);
					sr_names_free(files, nf);
				}
			}
			continue;
		}
		if (str_startswith(t, "hwcap") && isspace((unsigned char)t[5]))
			continue;
		t[strcspn(t, "=")] = '\0'; /* old "dir=TYPE" form */
		str_rtrim(t);
		if (t[0] == '/')
			strv_add(&sc->conf, &sc->nconf, t);
	}
	free(data);
}

/* glibc's built-in trusted directories (Debian-style multiarch first, then the
 * lib64 and lib forms); used after LD_LIBRARY_PATH and the ld.so.conf dirs. */
static const char *const DEFAULT_DIRS[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

/* First dir/name that is a regular file, in ld.so's order (glibc
 * elf/dl-load.c _dl_map_object) for an object with the given runpath/rpath
 * (either may be NULL): DT_RPATH when there is no DT_RUNPATH, then
 * LD_LIBRARY_PATH, then DT_RUNPATH, then /etc/ld.so.cache, then the default
 * directories. origin expands $ORIGIN. Without a readable cache the
 * ld.so.conf directories stand in for it, by file name where ldconfig goes
 * by SONAME. Not modelled: the DT_RPATH of the objects that load this one,
 * glibc-hwcaps subdirectories, and a library already loaded under the same
 * SONAME (torch/__init__.py may preload one) -- an approximation of ld.so. */
static int ld_resolve(struct scanner *sc, const char *name, const char *rpath, const char *runpath,
		      const char *origin, char *out, size_t outsz, char *via, size_t viasz)
{
	/* step 1 is LD_LIBRARY_PATH, the others the object's own lists */
	const struct {
		const char *list;
		const char *label;
	} steps[3] = {
		{ runpath ? NULL : rpath, "DT_RPATH" },
		{ NULL, "LD_LIBRARY_PATH" },
		{ runpath, "DT_RUNPATH" },
	};
	for (int st = 0; st < 3; st++) {
		if (st == 1) {
			for (size_t i = 0; i < sc->nllp; i++) {
				pjoin(out, outsz, sc->llp[i], name);
				struct stat sb;
				if (in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
					snprintf(via, viasz, "LD_LIBRARY_PATH (%s)", sc->llp[i]);
					return 0;
				}
			}
			continue;
		}
		if (!steps[st].list)
			continue;
		char *copy = xstrdup(steps[st].list);
		char *save = NULL;
		for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
			char dir[PATH_MAX];
			const char *o = NULL;
			if (str_startswith(tok, "$ORIGIN"))
				o = tok + 7;
			else if (str_startswith(tok, "${ORIGIN}"))
				o = tok + 9;
			if (o) {
				if (!origin)
					continue;
				snprintf(dir, sizeof(dir), "%s%s", origin, o);
			} else {
				str_copy(dir, tok, sizeof(dir));
			}
			if (dir[0] != '/' || strchr(dir, '$'))
				continue; /* $LIB, $PLATFORM, relative: not followed */
			pjoin(out, outsz, dir, name);
			struct stat sb;
			if (in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
				snprintf(via, viasz, "%s (%s)", steps[st].label, tok);
				free(copy);
				return 0;
			}
		}
		free(copy);
	}
	if (sc->ldcache_ok) {
		int r = ncclib_ldcache_lookup(sc->ldcache, sc->ldcache_len, name, out, outsz);
		struct stat sb;
		if (r == 1 && out[0] == '/' && in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(via, viasz, "ld.so.cache");
			return 0;
		}
	}
	/* without a cache, the directories ldconfig would have put in it */
	for (size_t i = 0; !sc->ldcache_ok && i < sc->nconf; i++) {
		pjoin(out, outsz, sc->conf[i], name);
		struct stat sb;
		if (in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(via, viasz, "ld.so.conf (%s)", sc->conf[i]);
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(DEFAULT_DIRS) / sizeof(DEFAULT_DIRS[0]); i++) {
		pjoin(out, outsz, DEFAULT_DIRS[i], name);
		struct stat sb;
		if (in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(via, viasz, "default directory (%s)", DEFAULT_DIRS[i]);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- Python installs ---- */

/* The first quoted string on the first line starting with "__version__". */
static char *read_py_version(const char *file)
{
	char *data;
	size_t len;
	if (in_read_file(file, &data, &len, 64 * 1024) < 0)
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
	glob_escape(site, esc, sizeof(esc));
	pjoin(pat, sizeof(pat), esc, "/nvidia_nccl_cu*.dist-info");
	char **paths;
	size_t n;
	str_copy(out, "python:nvidia-nccl", outsz);
	if (sr_glob(pat, &paths, &n) > 0) {
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
		if (is_nccl_name(d->needed[i])) {
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
	if (in_list_dir(dir, &names, &n) < 0)
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = is_nccl_name(names[i]);
	sr_names_free(names, n);
	return found;
}

/* Which libnccl the PyTorch in site/torch loads. */
static void torch_examine(struct scanner *sc, const char *site)
{
	struct ncclib_scan *s = sc->s;
	char torchdir[PATH_MAX], libdir[PATH_MAX], p[PATH_MAX];
	pjoin(torchdir, sizeof(torchdir), site, "/torch");
	pjoin(libdir, sizeof(libdir), torchdir, "/lib");
	struct stat st;
	if (in_stat(libdir, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	for (size_t i = 0; i < s->ntorch; i++)
		if (strcmp(s->torch[i].path, torchdir) == 0)
			return;
	XGROW(s->torch, s->atorch, s->ntorch + 1);
	struct ncclib_torch *t = &s->torch[s->ntorch++];
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(torchdir);
	t->lib = -1;
	pjoin(p, sizeof(p), torchdir, "/version.py");
	t->version = read_py_version(p);

	pjoin(p, sizeof(p), libdir, "/libtorch_cuda.so");
	if (in_stat(p, &st) < 0) {
		t->how = TORCH_NCCL_NO_CUDA;
		return;
	}
	t->libtorch = xstrdup(p);
	/* libtorch_cuda.so needs libnccl.so.2 in every dynamically linked wheel;
	 * libtorch_global_deps.so (loaded first by torch/__init__.py) and
	 * libtorch.so are looked at too in case a build moved the dependency */
	static const char *const objs[] = { "libtorch_cuda.so", "libtorch_global_deps.so", "libtorch.so" };
	for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); k++) {
		pjoin(p, sizeof(p), libdir, objs[k]);
		if (k > 0 && in_stat(p, &st) < 0)
			continue;
		struct elf_file e;
		int r = in_elf_open(&e, p);
		if (r < 0) {
			if (k == 0) {
				t->how = TORCH_NCCL_UNKNOWN;
				t->error = xasprintf("cannot read '%s': %s", p, elf_strerror(r));
				return;
			}
			continue;
		}
		struct elf_dynamic d;
		r = elf_read_dynamic(&e, &d);
		elf_close(&e);
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
		if (ld_resolve(sc, need, d.rpath, d.runpath, libdir, found, sizeof(found), via, sizeof(via)) == 0) {
			char canon[PATH_MAX];
			if (sr_realpath(found, canon, sizeof(canon)) < 0)
				str_copy(canon, found, sizeof(canon));
			t->how = TORCH_NCCL_SHARED;
			t->nccl_path = xstrdup(canon);
			t->via = k == 0 ? xstrdup(via) : xasprintf("%s of %s", via, objs[k]);
			t->lib = lib_for_path(sc, found);
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
	double t0 = now_ms();
	pjoin(p, sizeof(p), libdir, "/libtorch_cuda.so");
	if (ncclib_read_version(p, &vs, &v) == 0)
		t->static_version = vs;
	else
		free(vs);
	s->read_ms += now_ms() - t0;
}

static void vllm_examine(struct scanner *sc, const char *site)
{
	struct ncclib_scan *s = sc->s;
	char dir[PATH_MAX], p[PATH_MAX];
	pjoin(dir, sizeof(dir), site, "/vllm");
	pjoin(p, sizeof(p), dir, "/__init__.py");
	struct stat st;
	if (in_stat(p, &st) < 0)
		return;
	for (size_t i = 0; i < s->nvllm; i++)
		if (strcmp(s->vllm[i].path, dir) == 0)
			return;
	XGROW(s->vllm, s->avllm, s->nvllm + 1);
	struct ncclib_vllm *v = &s->vllm[s->nvllm++];
	v->path = xstrdup(dir);
	pjoin(p, sizeof(p), dir, "/_version.py");
	v->version = read_py_version(p);
	v->torch = -1;
	char tdir[PATH_MAX];
	pjoin(tdir, sizeof(tdir), site, "/torch");
	for (size_t i = 0; i < s->ntorch; i++)
		if (strcmp(s->torch[i].path, tdir) == 0)
			v->torch = (int)i;
}

static void scan_site(struct scanner *sc, const char *site)
{
	char p[PATH_MAX], label[96];
	pjoin(p, sizeof(p), site, "/nvidia/nccl/lib");
	struct stat st;
	if (in_stat(p, &st) == 0) {
		nvidia_nccl_label(site, label, sizeof(label));
		scan_dir(sc, p, label);
	}
	pjoin(p, sizeof(p), site, "/torch/lib");
	scan_dir(sc, p, "python:torch");
	torch_examine(sc, site);
	vllm_examine(sc, site);
}

/* Every site-packages/dist-packages directory we know where to look for. */
static void find_sites(char ***sites, size_t *nsites)
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
		strv_add(&roots, &nroots, fixed[i]);
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
		glob_escape(v, esc, sizeof(esc));
		snprintf(pat, sizeof(pat), "%s%s/lib/python3*/site-packages", esc, envs[i].sub);
		strv_add(&roots, &nroots, pat);
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
					strv_add(sites, nsites, canon);
			}
			sr_names_free(paths, n);
		}
	}
	strv_free(roots, nroots);
}

static void scan_vllm_env(struct scanner *sc)
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
		if (ld_resolve(sc, v, NULL, NULL, NULL, path, sizeof(path), via, sizeof(via)) < 0) {
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
	s->vllm_lib = add_candidate(sc, path, "VLLM_NCCL_SO_PATH", true, &why);
	if (s->vllm_lib < 0)
		s->vllm_so_error = xstrdup(why ? why : "cannot be read");
	else if (s->libs[s->vllm_lib].error)
		s->vllm_so_error = xstrdup(s->libs[s->vllm_lib].error);
}

static void scanner_release(struct scanner *sc)
{
	strv_free(sc->llp, sc->nllp);
	strv_free(sc->conf, sc->nconf);
	strv_free(sc->visited, sc->nvisited);
	free(sc->ldcache);
}

static int load_record(struct ncclib_scan *s, bool *found)
{
	char *data;
	size_t len;
	*found = false;
	if (in_read_file(NCCLIB_RECORD_PATH, &data, &len, RECORD_MAX) < 0)
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
	double t0 = now_ms();
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
		split_path_list(llp, &sc.llp, &sc.nllp);
	parse_ld_conf(&sc, "/etc/ld.so.conf", 0);
	if (in_read_file("/etc/ld.so.cache", &sc.ldcache, &sc.ldcache_len, RECORD_MAX) == 0) {
		char tmp[PATH_MAX];
		sc.ldcache_ok = ncclib_ldcache_lookup(sc.ldcache, sc.ldcache_len, "libc.so.6", tmp, sizeof(tmp)) >= 0;
	}
	s->sudo = environ_get("SUDO_USER") != NULL;

	/* VLLM_NCCL_SO_PATH and LD_LIBRARY_PATH first, so that their labels come
	 * first in "found in" */
	scan_vllm_env(&sc);
	for (size_t i = 0; i < sc.nllp; i++)
		scan_dir(&sc, sc.llp[i], "LD_LIBRARY_PATH");
	for (size_t i = 0; i < sc.nconf; i++)
		scan_dir(&sc, sc.conf[i], dir_kind(sc.conf[i]));
	static const char *const sysdirs[] = {
		"/lib", "/usr/lib", "/usr/lib64", "/usr/local/lib",
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib/x86_64-linux-gnu",
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/local/lib/aarch64-linux-gnu",
	};
	for (size_t i = 0; i < sizeof(sysdirs) / sizeof(sysdirs[0]); i++)
		scan_dir(&sc, sysdirs[i], "system");
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
		pjoin(d, sizeof(d), cp, "/lib");
		scan_dir(&sc, d, "conda");
	}

	char **sites = NULL;
	size_t nsites = 0;
	find_sites(&sites, &nsites);
	for (size_t i = 0; i < nsites; i++)
		scan_site(&sc, sites[i]);
	strv_free(sites, nsites);

	/* what a program that links libnccl.so.2 (nccl-tests, a C++ app) gets */
	char found[PATH_MAX], via[PATH_MAX + 64];
	if (ld_resolve(&sc, "libnccl.so.2", NULL, NULL, NULL, found, sizeof(found), via, sizeof(via)) == 0) {
		s->ld_default = lib_for_path(&sc, found);
		s->ld_via = xstrdup(via);
		if (s->ld_default >= 0)
			s->libs[s->ld_default].ld_default = true;
	}

	for (size_t i = 0; i < s->nlibs; i++)
		if (s->libs[i].nnames > 1)
			qsort(s->libs[i].names, s->libs[i].nnames, sizeof(char *), cmp_strp);
	scanner_release(&sc);
	s->scan_ms = now_ms() - t0;
	return 0;
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
		strv_add(v, n, json_string_value(x));
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
