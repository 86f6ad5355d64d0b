/* Library-loading reasons: see model/vendor_reason.h. */
#include "model/vendor_reason.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

static const char *const names[] = {
	[VENDOR_LOADED] = "loaded",
	[VENDOR_NOT_INSTALLED] = "not_installed",
	[VENDOR_CANNOT_LOAD] = "cannot_load",
	[VENDOR_SYMBOL_MISSING] = "symbol_missing",
};

enum vendor_reason vendor_reason_of(int err)
{
	if (err == 0)
		return VENDOR_LOADED;
	if (err == -ENOENT)
		return VENDOR_NOT_INSTALLED;
	if (err == -ENOSYS)
		return VENDOR_SYMBOL_MISSING;
	return VENDOR_CANNOT_LOAD;
}

const char *vendor_reason_name(enum vendor_reason r)
{
	if ((unsigned)r >= sizeof(names) / sizeof(names[0]))
		return names[VENDOR_CANNOT_LOAD];
	return names[r];
}

const char *vendor_err_reason(int err)
{
	return vendor_reason_name(vendor_reason_of(err));
}

enum vendor_reason vendor_reason_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i], name) == 0)
			return (enum vendor_reason)i;
	return VENDOR_CANNOT_LOAD;
}
