/* The clean copy of outside text the log reader and the readers of the
 * other inputs keep for a report (declared in logs/text.h). */
#include "analyze/logs/text.h"

/* Copies text for a report: control bytes and invalid UTF-8 become '?'. */
void nl_copy_clean(char *dst, size_t dstsz, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	size_t k = 0;
	size_t i = 0;
	const bscan_v16 lo = (bscan_v16){ 0 } + 0x20, span = (bscan_v16){ 0 } + 0x5f;
	while (i < n && k + 1 < dstsz) {
		/* 16 printable ASCII bytes (the usual case) are copied as they are */
		if (i + 16 <= n && k + 16 < dstsz) {
			bscan_v16 v = bscan_load16(s + i);
			if (!bscan_any16((bscan_v16)((bscan_v16)(v - lo) >= span))) {
				memcpy(dst + k, s + i, 16);
				i += 16;
				k += 16;
				continue;
			}
		}
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			dst[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
			i++;
			continue;
		}
		size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
		bool ok = len > 0 && i + len <= n && k + len < dstsz;
		for (size_t j = 1; ok && j < len; j++)
			if (((unsigned char)s[i + j] & 0xC0) != 0x80)
				ok = false;
		if (ok) {
			memcpy(dst + k, s + i, len);
			k += len;
			i += len;
		} else {
			if (len > 0 && i + len <= n && k + len >= dstsz)
				break;
			dst[k++] = '?';
			i++;
		}
	}
	dst[k] = '\0';
}

void nl_clean_in_place(char *s, size_t sz)
{
	char tmp[512];
	size_t n = strlen(s);
	if (sz > sizeof(tmp))
		sz = sizeof(tmp);
	nl_copy_clean(tmp, sz, s, n);
	memcpy(s, tmp, strlen(tmp) + 1);
}
