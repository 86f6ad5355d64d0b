/* Time helpers of the kernel check (kernel_analyze.h): the text of a log
 * time stamp, and --since durations ("90s", "1h30m"). Pure functions. */
#include "analyze/kernel_analyze.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *kts_text(enum ts_kind k, double ts, char *buf, size_t bufsz)
{
	if (k == TS_BOOT) {
		snprintf(buf, bufsz, "boot+%.3fs", ts);
	} else if (k == TS_WALL) {
		time_t t = (time_t)ts;
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(buf, bufsz, "%Y-%m-%d %H:%M:%S", &tm);
	} else {
		str_copy(buf, "-", bufsz);
	}
	return buf;
}

int parse_duration(const char *s, double *secs)
{
	double total = 0;
	const char *p = s;
	bool any = false;
	while (*p == ' ')
		p++;
	while (*p) {
		if (!isdigit((unsigned char)*p) && *p != '.')
			return -EINVAL;
		char *end;
		double v = strtod(p, &end);
		if (end == p || v < 0)
			return -EINVAL;
		p = end;
		double mul;
		switch (*p) {
		case '\0': mul = 1; break;
		case 's': mul = 1; p++; break;
		case 'm': mul = 60; p++; if (strncmp(p, "in", 2) == 0) p += 2; break;
		case 'h': mul = 3600; p++; break;
		case 'd': mul = 86400; p++; break;
		case 'w': mul = 7 * 86400; p++; break;
		default: return -EINVAL;
		}
		total += v * mul;
		any = true;
	}
	if (!any || total <= 0)
		return -EINVAL;
	*secs = total;
	return 0;
}

