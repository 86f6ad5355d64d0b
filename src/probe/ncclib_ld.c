/* Library discovery (ncclib.h), the dynamic linker's side: the entries of
 * /etc/ld.so.cache, the directories of /etc/ld.so.conf and its includes,
 * and the search ld.so makes for a DT_NEEDED name (DT_RPATH,
 * LD_LIBRARY_PATH, DT_RUNPATH, the cache, the default directories). */
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


/* ---- ld.so configuration ---- */

void ncs_split_path_list(const char *list, char ***out, size_t *n)
{
	char *copy = xstrdup(list);
	char *save = NULL;
	for (char *tok = strtok_r(copy, ":;", &save); tok; tok = strtok_r(NULL, ":;", &save)) {
		/* empty entries mean the current directory and $ORIGIN-style tokens
		 * depend on the program: neither names a fixed place */
		if (tok[0] != '/' || strchr(tok, '$'))
			continue;
		ncs_strv_add(out, n, tok);
	}
	free(copy);
}

void ncs_parse_ld_conf(struct scanner *sc, const char *file, int depth)
{
	if (depth > MAX_CONF_DEPTH || sc->conf_files >= MAX_CONF_FILES)
		return;
	sc->conf_files++;
	char *data;
	size_t len;
	if (ncs_in_read_file(file, &data, &len, 1u << 20) < 0)
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
				if (pat[0] == '/' ? str_copy(full, pat, sizeof(full)) >= sizeof(full)
						  : ncs_pjoin(full, sizeof(full), dirbuf, pat) < 0)
					continue; /* a cut pattern would list other files */
				char **files;
				size_t nf;
				if (sr_glob(full, &files, &nf) > 0) {
					for (size_t i = 0; i < nf; i++)
						ncs_parse_ld_conf(sc, files[i], depth + 1);
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
			ncs_strv_add(&sc->conf, &sc->nconf, t);
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
int ncs_ld_resolve(struct scanner *sc, const char *name, const char *rpath, const char *runpath,
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
				struct stat sb;
				if (ncs_pjoin(out, outsz, sc->llp[i], name) == 0 && ncs_in_stat(out, &sb) == 0 &&
				    S_ISREG(sb.st_mode)) {
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
				if (xsnprintf(dir, sizeof(dir), "%s%s", origin, o) < 0)
					continue;
			} else if (str_copy(dir, tok, sizeof(dir)) >= sizeof(dir)) {
				continue;
			}
			if (dir[0] != '/' || strchr(dir, '$'))
				continue; /* $LIB, $PLATFORM, relative: not followed */
			struct stat sb;
			if (ncs_pjoin(out, outsz, dir, name) == 0 && ncs_in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
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
		if (r == 1 && out[0] == '/' && ncs_in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(via, viasz, "ld.so.cache");
			return 0;
		}
	}
	/* without a cache, the directories ldconfig would have put in it */
	for (size_t i = 0; !sc->ldcache_ok && i < sc->nconf; i++) {
		struct stat sb;
		if (ncs_pjoin(out, outsz, sc->conf[i], name) == 0 && ncs_in_stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(via, viasz, "ld.so.conf (%s)", sc->conf[i]);
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(DEFAULT_DIRS) / sizeof(DEFAULT_DIRS[0]); i++) {
		struct stat sb;
		if (ncs_pjoin(out, outsz, DEFAULT_DIRS[i], name) == 0 && ncs_in_stat(out, &sb) == 0 &&
		    S_ISREG(sb.st_mode)) {
			snprintf(via, viasz, "default directory (%s)", DEFAULT_DIRS[i]);
			return 0;
		}
	}
	return -ENOENT;
}

