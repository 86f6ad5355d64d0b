/* Small string and number parsing helpers shared by the parsers. All are pure
 * functions: they read their arguments and touch nothing else. */
#ifndef ND_UTIL_TEXT_H
#define ND_UTIL_TEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool str_startswith(const char *s, const char *prefix);
bool str_endswith(const char *s, const char *suffix);
/* Strips leading and trailing whitespace in place; returns s advanced. */
char *str_trim(char *s);
/* Removes trailing whitespace (and newlines) in place. */
void str_rtrim(char *s);
/* Parses a whole string as a number; 0 on success, -EINVAL otherwise. Leading
 * and trailing whitespace is allowed. base 0 accepts 0x.. hex. */
int parse_ll(const char *s, int base, long long *out);
int parse_ull(const char *s, int base, unsigned long long *out);
int parse_double(const char *s, double *out);
/* The bytes of s[0..n) before the text a launcher prefixed: blanks and
 * every leading "[...]:" tag ("[rank3]: ", torchrun's "[default3]:"),
 * with the blanks after them. 0 when the line starts with its text. */
size_t str_launcher_prefix_len(const char *s, size_t n);
/* snprintf that says when the text did not fit: returns its length, or
 * -ENAMETOOLONG when it was cut (buf then holds "", so that a cut path is
 * never used as another file's name), -EINVAL on a format error. */
int xsnprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends formatted text to the string buf (bufsz bytes, *len its length)
 * when all of it fits, so that a list shows whole items only. When it does
 * not fit, buf is marked as cut (" ..." at its end), *len is set to bufsz
 * (every later append fails too) and -ENOSPC returned. 0 on success. */
int str_appendf(char *buf, size_t bufsz, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A message into buf: whole (0), or as much as fits ending in " ..."
 * (-ENOSPC) so that a cut message shows it was cut. */
int str_setf(char *buf, size_t bufsz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Copies at most dstsz-1 bytes and always terminates; returns strlen(src). */
size_t str_copy(char *dst, const char *src, size_t dstsz);
/* Case-insensitive substring search. */
const char *str_casestr(const char *hay, const char *needle);
/* Human size: 1536 -> "1.5 KiB"; writes into buf, returns buf. */
const char *fmt_bytes(uint64_t bytes, char *buf, size_t bufsz);
/* Parses "4096", "64k", "1G", "65536k" (tmpfs size= form) into bytes. */
int parse_size(const char *s, uint64_t *out);
/* Splits text into lines: copies the line at *cursor into buf (without its
 * newline) and moves *cursor past it. Returns false at the end of the text.
 * *fits is false (and buf empty) for a line of bufsz bytes or more. */
bool text_next_line(const char **cursor, char *buf, size_t bufsz, bool *fits);
/* Text that came from outside (log and kernel lines, RAS answers, process
 * and file names) made safe for a terminal: the C0 controls but TAB (and
 * '\n' with STR_VIS_NEWLINE), DEL, the C1 controls U+0080..U+009F and every
 * byte that is not part of valid UTF-8 are written visibly, "\x1b",
 * "\u009b", "\xff", never raw. Everything else is left as it is. */
#define STR_VIS_NEWLINE 1u /* keep '\n': text of several lines of our own */
/* Whether s prints as it is (nothing in it to show visibly). */
bool str_is_visible(const char *s, unsigned flags);
/* The visible form of src into dst (dstsz bytes, always terminated, cut
 * only between whole characters or escapes). Returns the length of the
 * whole visible form, as snprintf does: dst was cut when it is >= dstsz. */
size_t str_visible(char *dst, size_t dstsz, const char *src, unsigned flags);
/* src itself when it prints as it is, else its visible form in buf (cut
 * to bufsz, the cut marked with "..."). */
const char *str_shown(const char *src, char *buf, size_t bufsz, unsigned flags);
/* Counts CPUs in a Linux cpulist ("0-15,32-47"); -EINVAL when malformed. */
int cpulist_count(const char *list);

#endif
