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

/* The signal whose name begins s[0..n) as a shell prints it, followed by
 * the end or a blank: 9 "Killed", 15 "Terminated", 0 none. */
static int signal_word(const char *s, size_t n)
{
	static const struct {
		const char *w;
		int sig;
	} words[] = { { "Killed", 9 }, { "Terminated", 15 } };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t k = strlen(words[i].w);
		if (n >= k && memcmp(s, words[i].w, k) == 0 &&
		    (n == k || s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
			return words[i].sig;
	}
	return 0;
}

int nl_shell_kill_notice(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n >= 200)
		return 0;
	int sig = signal_word(s, n);
	if (sig)
		return n < 120 ? sig : 0;
	if (n > 12 && memcmp(s, "zsh: killed ", 12) == 0)
		return 9;
	if (n > 16 && memcmp(s, "zsh: terminated ", 16) == 0)
		return 15;
	size_t j = 0;
	if (s[0] == '[') { /* "[1]+  Killed   cmd" */
		j = 1;
		while (j < n && is_digit(s[j]))
			j++;
		if (j == 1 || j >= n || s[j] != ']')
			return 0;
		j++;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		while (j < n && s[j] == ' ')
			j++;
		return signal_word(s + j, n - j);
	}
	/* "NAME: [line N: ]PID Killed   cmd" */
	while (j < n && s[j] != ' ' && s[j] != ':')
		j++;
	if (j == 0 || j + 1 >= n || s[j] != ':' || s[j + 1] != ' ')
		return 0;
	j += 2;
	if (n - j > 5 && memcmp(s + j, "line ", 5) == 0) {
		size_t d = j + 5;
		while (d < n && is_digit(s[d]))
			d++;
		if (d == j + 5 || d + 1 >= n || s[d] != ':' || s[d + 1] != ' ')
			return 0;
		j = d + 2;
	}
	while (j < n && s[j] == ' ')
		j++;
	size_t d = j;
	while (d < n && is_digit(s[d]))
		d++;
	if (d == j || d >= n || s[d] != ' ')
		return 0;
	while (d < n && s[d] == ' ')
		d++;
	return signal_word(s + d, n - d);
}
