/* NCCL log reader: the result table of nccl-tests pasted as (part of) a
 * log. Its format is kb/benchmarks.md's (nccl-tests src/common.cu): a
 * header '#  size  count  type  redop  root  time  algbw  busbw  #wrong
 * time  algbw  busbw  #wrong' (out of place, then in place), then one row
 * per size; #wrong counts the elements that differed from the expected
 * result ("N/A" with -c 0). A row whose #wrong is not 0 is data corrupted
 * on its way between GPUs; the analysis (rules/app.c) reads lg->tests.
 * Rows are right-aligned under the header, so a launcher prefix before a
 * row ("[1,0]<stdout>:", "0: ") is left out by counting columns from the
 * end; the footer ("# Out of bounds values : ...") ends the table. */
#include "analyze/logs/read/read.h"
#include "util/bytescan.h"
#include "util/text.h"

#include <string.h>

/* The whitespace-separated tokens of s[0..n): up to max, their starts and
 * lengths; returns how many there are (may be more than max: the last max
 * are kept, the earlier ones shift out). */
static int tokens(const char *s, size_t n, const char **tok, size_t *tlen, int max)
{
	int k = 0;
	size_t i = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= n)
			break;
		size_t b = i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			i++;
		if (k == max) {
			memmove(tok, tok + 1, (size_t)(max - 1) * sizeof(*tok));
			memmove(tlen, tlen + 1, (size_t)(max - 1) * sizeof(*tlen));
			k--;
		}
		tok[k] = s + b;
		tlen[k++] = i - b;
	}
	return k;
}

static bool tok_is(const char *t, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(t, word, n) == 0;
}

void nl_tests_header(struct nccllog *lg, int file, const char *s, size_t len)
{
	struct nl_tests *ts = &lg->tests;
	const char *hash = memchr(s, '#', len);
	ts->ncols = 0;
	if (!hash)
		return;
	const char *tok[NL_TESTS_MAX_COLS];
	size_t tl[NL_TESTS_MAX_COLS];
	size_t rest = len - (size_t)(hash + 1 - s);
	int n = tokens(hash + 1, rest, tok, tl, NL_TESTS_MAX_COLS);
	int nw = 0, csize = -1, ctype = -1, credop = -1, cwrong[2] = { -1, -1 };
	if (n >= NL_TESTS_MAX_COLS)
		return;
	for (int i = 0; i < n; i++) {
		if (tok_is(tok[i], tl[i], "#wrong") && nw < 2)
			cwrong[nw++] = i;
		else if (tok_is(tok[i], tl[i], "size") && csize < 0)
			csize = i;
		else if (tok_is(tok[i], tl[i], "type") && ctype < 0)
			ctype = i;
		else if (tok_is(tok[i], tl[i], "redop") && credop < 0)
			credop = i;
	}
	if (nw == 0 || csize < 0 || csize + 1 >= n)
		return;
	ts->file = file;
	ts->ncols = n;
	ts->col_size = csize;
	ts->col_type = ctype;
	ts->col_redop = credop;
	ts->col_wrong[0] = cwrong[0];
	ts->col_wrong[1] = cwrong[1];
	if (ts->op_file != file)
		ts->op[0] = '\0';
}

/* An integer token; -1 when it is not one. */
static long long tok_num(const char *t, size_t n)
{
	long v = 0;
	if (n == 0 || n > 18 || parse_num(t, n, &v) != n)
		return -1;
	return v;
}

static void tok_copy(char *dst, size_t dstsz, const char *t, size_t n)
{
	nl_copy_clean(dst, dstsz, t, n);
}

void nl_tests_line(struct nccllog *lg, int file, const char *s, size_t len, uint64_t lineno)
{
	struct nl_tests *ts = &lg->tests;
	const char *op = len < 200 ? BSCAN_FIND(s, len, "# Collective test starting: ") : NULL;
	if (op) {
		op += strlen("# Collective test starting: ");
		size_t n = (size_t)(s + len - op);
		while (n && (op[n - 1] == ' ' || op[n - 1] == '\r'))
			n--;
		tok_copy(ts->op, sizeof(ts->op), op, n);
		ts->op_file = file;
		return;
	}
	if (ts->ncols == 0 || ts->file != file || len > 400)
		return; /* a row is ~120 bytes */
	if (len < 200 && BSCAN_FIND(s, len, "# Out of bounds values")) {
		ts->ncols = 0; /* the footer ends the table: later text is no row */
		return;
	}
	const char *tok[NL_TESTS_MAX_COLS];
	size_t tl[NL_TESTS_MAX_COLS];
	int n = tokens(s, len, tok, tl, ts->ncols);
	if (n < ts->ncols)
		return;
	/* the last ncols tokens: size and count are numbers, #wrong a number or N/A */
	long long size = tok_num(tok[ts->col_size], tl[ts->col_size]);
	if (size < 0 || tok_num(tok[ts->col_size + 1], tl[ts->col_size + 1]) < 0)
		return;
	long long wrong[2] = { -1, -1 };
	for (int k = 0; k < 2; k++) {
		int c = ts->col_wrong[k];
		if (c < 0)
			continue;
		wrong[k] = tok_num(tok[c], tl[c]);
		if (wrong[k] < 0 && !tok_is(tok[c], tl[c], "N/A"))
			return;
	}
	ts->nrows++;
	if (wrong[0] <= 0 && wrong[1] <= 0)
		return;
	ts->nwrong++;
	if (ts->nkept >= NL_TESTS_MAX_ROWS)
		return;
	struct nl_tests_row *r = &ts->rows[ts->nkept++];
	r->file = file;
	r->line = lineno;
	str_copy(r->op, ts->op, sizeof(r->op));
	r->size = size;
	r->type[0] = r->redop[0] = '\0';
	if (ts->col_type >= 0)
		tok_copy(r->type, sizeof(r->type), tok[ts->col_type], tl[ts->col_type]);
	if (ts->col_redop >= 0)
		tok_copy(r->redop, sizeof(r->redop), tok[ts->col_redop], tl[ts->col_redop]);
	r->wrong[0] = wrong[0];
	r->wrong[1] = wrong[1];
	nl_copy_clean(r->text, sizeof(r->text), s, len);
	return;
}
