/* Why a vendor library did not load, in one place: the negative errno of
 * vendor_load() (nvlib/nvlib.h), the name a worker's error message carries
 * ("reason"/"name", with lib "loader"), and the parsing of that name back in
 * the parent. Pure functions: no library is touched. */
#ifndef ND_MODEL_VENDOR_REASON_H
#define ND_MODEL_VENDOR_REASON_H

/* The "lib" of a worker error raised by the loader. */
#define VENDOR_LOADER "loader"

enum vendor_reason {
	VENDOR_LOADED = 0,        /* no error */
	VENDOR_NOT_INSTALLED,     /* -ENOENT: no such library */
	VENDOR_CANNOT_LOAD,       /* -ELIBBAD and the rest: dlopen failed */
	VENDOR_SYMBOL_MISSING,    /* -ENOSYS: a required entry point is missing */
};

/* The reason of a vendor_load() return value. */
enum vendor_reason vendor_reason_of(int err);
/* "not_installed", "cannot_load", "symbol_missing" ("loaded" for none). */
const char *vendor_reason_name(enum vendor_reason r);
/* The name of vendor_load()'s return value: vendor_reason_name(vendor_reason_of(err)). */
const char *vendor_err_reason(int err);
/* Back from a name; VENDOR_CANNOT_LOAD for NULL or an unknown name. */
enum vendor_reason vendor_reason_parse(const char *name);

#endif
