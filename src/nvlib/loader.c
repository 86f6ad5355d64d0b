/* The generic all-or-nothing loader behind cuda_load, nvml_load, nccl_load:
 * finds the library (explicit path, NCCL_DOCTOR_LIBRARY_PATH, normal loader),
 * resolves every symbol newest name first into a private table, and publishes
 * the table only when every required symbol resolved (systemd's dlfcn-util
 * pattern). dlerror() text is copied, never kept. */
#include "nvlib/nvlib.h"
#include "util/priv.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void copy_dlerror(char *buf, size_t bufsz)
{
	const char *e = dlerror();
	str_copy(buf, e ? e : "unknown dlopen error", bufsz);
}

/* Tries dlopen of one candidate; 0, or -ENOENT when the file is absent, or
 * -ELIBBAD with the loader's message in why. */
static int try_open(const char *path, void **handle, char *why, size_t whysz)
{
	dlerror();
	*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (*handle)
		return 0;
	copy_dlerror(why, whysz);
	if (strchr(path, '/') && access(path, F_OK) != 0)
		return -ENOENT;
	if (!strchr(path, '/') && (strstr(why, "No such file") || strstr(why, "cannot open shared object")))
		return -ENOENT;
	return -ELIBBAD;
}

/* Non-empty entries of a ':'-separated list. */
static size_t count_dirs(const char *list)
{
	size_t n = 0;
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ":");
		n += k > 0;
		p += k + (p[k] == ':');
	}
	return n;
}

static int open_library(struct vendor_lib *lib, const char *soname, const char *explicit_path, void **handle)
{
	char why[512] = "";
	int r;
	if (explicit_path) {
		str_copy(lib->path, explicit_path, sizeof(lib->path));
		r = try_open(explicit_path, handle, why, sizeof(why));
		if (r == -ENOENT)
			str_setf(lib->error, sizeof(lib->error), "'%s' is not installed: no file '%s'", soname, explicit_path);
		else if (r < 0)
			str_setf(lib->error, sizeof(lib->error), "cannot load '%s': %s", explicit_path, why);
		return r;
	}
	/* the test override; as root only its root-owned, safe directories
	 * (util/priv.h), resolved, and the files in them only when safe too */
	const char *dirs = getenv("NCCL_DOCTOR_LIBRARY_PATH");
	bool elevated = priv_is_elevated();
	size_t ignored = 0;
	if (dirs && *dirs) {
		char *use = priv_library_dirs(dirs, &ignored);
		char *save = NULL;
		for (char *d = strtok_r(use, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char cand[PATH_MAX], res[PATH_MAX], bad[400];
			if (xsnprintf(cand, sizeof(cand), "%s/%s", d, soname) < 0)
				continue;
			if (access(cand, F_OK) != 0)
				continue;
			str_copy(lib->path, cand, sizeof(lib->path));
			if (elevated && priv_path_trusted(cand, res, sizeof(res), bad, sizeof(bad)) < 0) {
				str_setf(lib->error, sizeof(lib->error), "cannot load '%.1000s': not loaded as root: %.500s",
					 cand, bad);
				free(use);
				return -ELIBBAD;
			}
			r = try_open(elevated ? res : cand, handle, why, sizeof(why));
			if (r < 0) {
				str_setf(lib->error, sizeof(lib->error), "cannot load '%.1000s': %.500s", cand, why);
				free(use);
				return -ELIBBAD;
			}
			free(use);
			return 0;
		}
		free(use);
	}
	/* NCCL_DOCTOR_LIBRARY_PATH_ONLY goes with the directories: when every
	 * one was ignored as root, neither applies (as under stock sudo) */
	const char *only = getenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY");
	bool all_ignored = ignored > 0 && ignored == count_dirs(dirs);
	if (only && strcmp(only, "1") == 0 && !all_ignored) {
		str_setf(lib->error, sizeof(lib->error), "'%s' is not installed: not in NCCL_DOCTOR_LIBRARY_PATH '%s'",
			 soname, dirs ? dirs : "");
		return -ENOENT;
	}
	str_copy(lib->path, soname, sizeof(lib->path));
	r = try_open(soname, handle, why, sizeof(why));
	if (r == -ENOENT)
		str_setf(lib->error, sizeof(lib->error), "'%s' is not installed: %s", soname, why);
	else if (r < 0)
		str_setf(lib->error, sizeof(lib->error), "cannot load '%s': %s", soname, why);
	return r;
}

int vendor_load(struct vendor_lib *lib, const char *soname, const char *explicit_path,
		const struct vendor_sym *syms, size_t nsyms, void *table, size_t table_size)
{
	void *handle = NULL;
	lib->soname = soname;
	lib->handle = NULL;
	lib->err = 0;
	lib->error[0] = lib->missing[0] = '\0';
	int r = open_library(lib, soname, explicit_path, &handle);
	if (r < 0) {
		lib->err = r;
		return r;
	}
	char *tmp = xcalloc(1, table_size);
	const char *first_found = NULL;
	for (size_t i = 0; i < nsyms; i++) {
		void *p = NULL;
		for (int k = 0; syms[i].names[k] && !p; k++) {
			p = dlsym(handle, syms[i].names[k]);
			if (p && !first_found)
				first_found = syms[i].names[k];
		}
		if (!p && syms[i].required) {
			str_copy(lib->missing, syms[i].names[0], sizeof(lib->missing));
			/* where the file really is, for the message */
			Dl_info info;
			void *any = first_found ? dlsym(handle, first_found) : NULL;
			if (any && dladdr(any, &info) && info.dli_fname)
				str_copy(lib->path, info.dli_fname, sizeof(lib->path));
			str_setf(lib->error, sizeof(lib->error), "'%s' (%s) lacks the symbol '%s'%s", soname, lib->path,
				 syms[i].names[0], syms[i].names[1] ? " or its older names" : "");
			free(tmp);
			dlclose(handle);
			lib->err = -ENOSYS;
			return -ENOSYS;
		}
		memcpy((char *)tmp + syms[i].offset, &p, sizeof(p));
	}
	if (first_found) {
		Dl_info info;
		void *any = dlsym(handle, first_found);
		if (any && dladdr(any, &info) && info.dli_fname) {
			char real[PATH_MAX];
			if (realpath(info.dli_fname, real))
				str_copy(lib->path, real, sizeof(lib->path));
			else
				str_copy(lib->path, info.dli_fname, sizeof(lib->path));
		}
	}
	memcpy(table, tmp, table_size);
	free(tmp);
	lib->handle = handle;
	return 0;
}

const char *vendor_resolved_name(const struct vendor_sym *syms, size_t nsyms, const void *table, size_t i)
{
	if (i >= nsyms)
		return NULL;
	void *p;
	memcpy(&p, (const char *)table + syms[i].offset, sizeof(p));
	if (!p)
		return NULL;
	Dl_info info;
	if (dladdr(p, &info) && info.dli_sname)
		for (int k = 0; syms[i].names[k]; k++)
			if (strcmp(info.dli_sname, syms[i].names[k]) == 0)
				return syms[i].names[k];
	return syms[i].names[0];
}
