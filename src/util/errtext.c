/* Words for the errors of the readers (util/errtext.h). */
#include "util/errtext.h"
#include "util/text.h"

#include <string.h>

const char *sr_strerror(int neg_errno)
{
	static __thread char buf[128];
	if (neg_errno == -SR_ESPECIAL || neg_errno == SR_ESPECIAL)
		return "a device node, FIFO or socket, not a file: not read";
	const char *s = strerror(neg_errno < 0 ? -neg_errno : neg_errno);
	str_copy(buf, s, sizeof(buf));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

const char *sr_reason(int neg_errno)
{
	switch (-neg_errno) {
	case EACCES:
	case EPERM:
		return "needs root";
	case ENOENT:
		return "missing";
	default:
		return sr_strerror(neg_errno);
	}
}
