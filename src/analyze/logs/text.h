/* Small text helpers of the NCCL log reader's hot path (inline: they run
 * on every line), shared by the reader (logs/read/) and the readers of the
 * other inputs (logs/inputs/), and the clean copy of outside text
 * (logs/text.c). */
#ifndef ND_ANALYZE_LOGS_TEXT_H
#define ND_ANALYZE_LOGS_TEXT_H
#include "util/bytescan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}
static inline bool mem_has(const char *s, size_t n, const char *lit)
{
	return bscan_find_lit(s, n, lit, strlen(lit)) != NULL;
}

static inline bool starts(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n >= k && memcmp(s, lit, k) == 0;
}

/* Parses digits at s (n bytes available); returns the count of digits. */
static inline size_t parse_num(const char *s, size_t n, long *out)
{
	size_t i = 0;
	long v = 0;
	while (i < n && is_digit(s[i]) && i < 18) {
		v = v * 10 + (s[i] - '0');
		i++;
	}
	if (i)
		*out = v;
	return i;
}

/* Copies the token at p (up to a space or end) into out; true when not empty. */
static inline bool token_at(const char *p, const char *end, char *out, size_t outsz)
{
	size_t k = 0;
	while (p < end && *p != ' ' && k + 1 < outsz)
		out[k++] = *p++;
	out[k] = '\0';
	return k > 0;
}

/* Copies the token after key (up to a space) into out; returns true if found. */
static inline bool token_after(const char *s, size_t n, const char *key, char *out, size_t outsz)
{
	size_t kl = strlen(key);
	const char *p = bscan_find_lit(s, n, key, kl);
	if (!p)
		return false;
	return token_at(p + kl, s + n, out, outsz);
}

/* strtol(tok, .., 10) as an int, false when it reads no digit; plain
 * digits (the usual case) without the library call. */
static inline bool tok_int(const char *tok, int *out)
{
	long v = 0;
	size_t i = 0;
	while (is_digit(tok[i]) && i < 18) {
		v = v * 10 + (tok[i] - '0');
		i++;
	}
	if (i == 0 || tok[i] != '\0') {
		char *end;
		v = strtol(tok, &end, 10);
		if (end == tok)
			return false;
	}
	*out = (int)v;
	return true;
}

static inline bool int_after(const char *s, size_t n, const char *key, int *out)
{
	char tok[24];
	if (!token_after(s, n, key, tok, sizeof(tok)))
		return false;
	return tok_int(tok, out);
}

/* Hot-path copy: raw bytes, cut to fit; made clean at the end of the file. */
static inline void raw_copy(char *dst, size_t dstsz, const char *s, size_t n)
{
	if (n > dstsz - 1)
		n = dstsz - 1;
	memmove(dst, s, n); /* glibc's vector copy; an inlined memcpy becomes rep movs */
	dst[n] = '\0';
}
/* strcmp(a, b) == 0 without the library call (short strings) */
static inline bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* snprintf(dst, dstsz, "%s", src) */
static inline void str_copy_cut(char *dst, size_t dstsz, const char *src)
{
	size_t k = strnlen(src, dstsz - 1);
	memcpy(dst, src, k);
	dst[k] = '\0';
}

/* Whether s[0..n) is a shell's notice of a job killed by a signal: 9 for
 * SIGKILL ("Killed"), 15 for SIGTERM ("Terminated"), 0 none. The forms:
 * bash's foreground notice (the signal's name alone, or before the
 * command), its job line ("[1]+  Killed   cmd"), a script's or a
 * non-interactive shell's ("run.sh: line 12:  4242 Killed   cmd",
 * "bash:  4242 Killed   cmd"), zsh's ("zsh: killed   cmd"). bash jobs.c
 * (notify_of_job_status, pretty_print_job), zsh Src/jobs.c. */
int nl_shell_kill_notice(const char *s, size_t n);

/* nl_copy_clean() of a NUL-terminated string onto itself (sz its buffer). */
void nl_clean_in_place(char *s, size_t sz);

/* Copies text for a report: control bytes and invalid UTF-8 become '?'
 * (also declared in analyze/nccllog.h, for the callers of the reader). */
void nl_copy_clean(char *dst, size_t dstsz, const char *s, size_t n);

#endif
