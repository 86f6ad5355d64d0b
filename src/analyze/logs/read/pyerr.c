/* Python's own lines in a log (logs/read/read.h): the first line of a
 * traceback, an exception line, and whether the exception is one of a
 * program's own mistakes. The reader counts them (lg->py_errors) and keeps
 * the first program error (lg->py_prog). */
#include "analyze/logs/read/read.h"
#include "util/text.h"

#include <ctype.h>
#include <string.h>

/* The dotted name that starts s[0..n) after blanks and a launcher's
 * "[rank3]: " prefix (at most the first 100 bytes): s[*b..*e), empty when
 * none. */
static void lead_name(const char *s, size_t n, size_t *b, size_t *e)
{
	size_t end = n < 100 ? n : 100;
	size_t i = str_launcher_prefix_len(s, end); /* "[rank3]: " */
	*b = i;
	while (i < end && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.'))
		i++;
	*e = i;
}

/* A Python traceback's first line or its exception line: after blanks
 * and a launcher's "[rank3]: " prefix, "Traceback (most recent call
 * last)" or a dotted name ending in Error, Exception or Interrupt followed
 * by ':' or the line's end ("ValueError: ...", "torch.OutOfMemoryError:
 * ..."). Reads at most the first 100 bytes. */
bool nl_py_error_line(const char *s, size_t n)
{
	size_t b, i;
	lead_name(s, n, &b, &i);
	if ((n < 100 ? n : 100) - b >= 15 && memcmp(s + b, "Traceback (most", 15) == 0)
		return true;
	if (i == b || (i < n && s[i] != ':'))
		return false;
	static const char *const tails[] = { "Error", "Exception", "Interrupt" };
	for (size_t k = 0; k < sizeof(tails) / sizeof(tails[0]); k++) {
		size_t tl = strlen(tails[k]);
		if (i - b > tl && memcmp(s + i - tl, tails[k], tl) == 0)
			return true;
	}
	return false;
}

bool nl_py_program_error(const char *s, size_t n)
{
	/* docs.python.org/3/library/exceptions.html, "Concrete exceptions":
	 * the ones raised for a wrong argument, value, key, index, attribute,
	 * name or a failed assert of the code itself */
	static const char *const prog[] = { "ValueError",	  "TypeError",		"IndexError",
					    "KeyError",		  "AttributeError",	"AssertionError",
					    "NameError",	  "UnboundLocalError",	"NotImplementedError",
					    "ZeroDivisionError", "RecursionError" };
	if (!nl_py_error_line(s, n))
		return false;
	size_t b, i;
	lead_name(s, n, &b, &i);
	size_t w = i; /* the last dotted component: s[w..i) */
	while (w > b && s[w - 1] != '.')
		w--;
	for (size_t k = 0; k < sizeof(prog) / sizeof(prog[0]); k++)
		if (i - w == strlen(prog[k]) && memcmp(s + w, prog[k], i - w) == 0)
			return true;
	return false;
}
