/* Private to the library discovery (ncclib*.c): the scanner state and the
 * helpers its parts share.
 *   ncclib.c         sysroot-safe access, version strings, the scan itself
 *   ncclib_ld.c      ld.so.cache, ld.so.conf, ld.so's search for a name
 *   ncclib_python.c  Python installs: torch, nvidia-nccl-cu*, vLLM
 *   ncclib_json.c    the scan as JSON and back (recorded sysroots) */
#ifndef ND_PROBE_NCCLIB_INT_H
#define ND_PROBE_NCCLIB_INT_H
#include "probe/elf.h"
#include "probe/ncclib.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define MAX_DIRS 512          /* directories listed in one scan */
#define MAX_FILES 256         /* candidate files examined in one scan */
#define MAX_CONF_FILES 128    /* ld.so.conf and its includes */
#define MAX_CONF_DEPTH 8
#define VERSION_FALLBACK_SCAN (64ull << 20) /* no .rodata: the first 64 MiB */
#define RODATA_SCAN_MAX (256ull << 20)
#define MAX_VERSION_HITS 256  /* "NCCL version " occurrences examined */
#define RECORD_MAX (16u << 20)

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

/* ---- sysroot-safe access ----
 * sr_stat, sr_open and friends let the kernel follow links, and an absolute
 * link inside a sysroot (/usr/local/cuda -> /usr/local/cuda-13.0) would lead
 * out of it, to the host's files. Paths are resolved inside the sysroot
 * first (on the live machine that changes nothing). */
/* ---- ncclib.c ---- */

int ncs_in_stat(const char *path, struct stat *st);
int ncs_in_read_file(const char *path, char **data, size_t *len, size_t max);
int ncs_in_list_dir(const char *path, char ***names, size_t *n);
int ncs_in_elf_open(struct elf_file *e, const char *path);
/* Adds a copy of s to the string list *v unless it is there already. */
void ncs_strv_add(char ***v, size_t *n, const char *s);
void ncs_strv_free(char **v, size_t n);
/* out = a + b (b starts with '/' or is appended after one); -ENAMETOOLONG
 * leaves out empty. snprintf would do, but the joins are checked here once. */
int ncs_pjoin(char *out, size_t outsz, const char *a, const char *b);
/* Escapes glob(3) metacharacters of a path taken from the environment.
 * 0, or -ENAMETOOLONG (out empty) when the escaped path does not fit. */
int ncs_glob_escape(const char *s, char *out, size_t outsz);
/* libnccl.so, libnccl.so.2, libnccl.so.2.28.3 (and hashed copies such as
 * libnccl-1a2b3c4d.so.2 that auditwheel makes), not the plugins
 * (libnccl-net.so, libnccl-tuner.so, libnccl-profiler.so) nor libnccl_static.a. */
bool ncs_is_nccl_name(const char *name);
/* Adds the file at path (inside the sysroot), found in `where`. Returns the
 * library index, or -1 when it is skipped (not a regular file, too big, over
 * the limits, or require_nccl and it is not NCCL). *why gets the reason. */
int ncs_add_candidate(struct scanner *sc, const char *path, const char *where, bool require_nccl,
		     const char **why);
/* The library at path: the one already found there, else a new candidate
 * labelled by the kind of its directory. */
int ncs_lib_for_path(struct scanner *sc, const char *path);
/* Lists dir and adds every libnccl in it. */
void ncs_scan_dir(struct scanner *sc, const char *dir, const char *where);
/* CLOCK_MONOTONIC in milliseconds. */
double ncs_now_ms(void);

/* ---- ncclib_ld.c ---- */

/* Adds the absolute directories of a ":"/";" list to *out (no $ORIGIN). */
void ncs_split_path_list(const char *list, char ***out, size_t *n);
/* Reads an ld.so.conf file and its includes into sc->conf. */
void ncs_parse_ld_conf(struct scanner *sc, const char *file, int depth);
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
		  const char *origin, char *out, size_t outsz, char *via, size_t viasz);

/* ---- ncclib_python.c ---- */

/* VLLM_NCCL_SO_PATH: the library vLLM is told to load. */
void ncs_scan_vllm_env(struct scanner *sc);
/* Every site-packages/dist-packages directory we know where to look for. */
void ncs_find_sites(char ***sites, size_t *nsites);
/* torch, nvidia-nccl-cu* and vLLM in one site-packages directory. */
void ncs_scan_site(struct scanner *sc, const char *site);

#endif
