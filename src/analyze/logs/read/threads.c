/* NCCL log reader, the threaded path for a large regular file
 * (nccllog_read_parallel, see nccllog.h). The file is cut into blocks of
 * B bytes at line starts: block k holds the lines that start in
 * [off + kB, off + (k+1)B), so it begins after the first newline at or
 * after off + kB - 1 and ends after the first newline at or after
 * off + (k+1)B - 1 (or at the end of the file). Worker threads take blocks
 * from a ring, read each at its offset (the caller's readat: the file is
 * opened and read outside analyze/) through a line reader of their own
 * (the same cutting of long lines, CR and NUL/ESC rules as the
 * single-thread reader), copy its lines into the block's text, clean
 * those with NUL or ESC bytes, and run stage A (nl_stage_a: parse with a
 * header cache of their own, kind, signatures) into one record a line.
 * The calling thread takes the blocks in file order and feeds each
 * record to stage B (nl_stage_b_run), the only code that changes the model,
 * so the model is the one the single-thread path builds.
 *
 * No mapping: pread() cannot fault, so a file truncated meanwhile ends
 * the reading early (at its new end) instead of raising SIGBUS in a
 * worker. The threads never call a driver (the parent-process rule). */
#include "analyze/logs/read/read.h"
#include "util/linereader.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK_DEFAULT (256u << 10)
#define SCAN_CHUNK 65536
#define MAX_RECS 8192 /* records a block: a block of more (short lines) is fed by the calling thread */

enum { SLOT_TODO, SLOT_BUSY, SLOT_DONE };

struct par_slot {
	uint64_t k;           /* block number */
	int state;
	char *text;           /* the block's lines, each NUL-terminated */
	size_t textcap;
	struct nl_rec *rec;
	size_t nrec, arec;
	uint64_t bytes, truncated;
	bool no_newline;      /* its last line ended the file without '\n' */
	bool last;            /* the file ends in this block */
	bool dense;           /* more than MAX_RECS lines: left to feed_dense */
	uint64_t start;       /* its first line's offset */
	int err;              /* a negative errno, 0 */
};

struct par {
	pthread_mutex_t mu;
	pthread_cond_t todo;  /* a slot was given a block, or quit */
	pthread_cond_t done;  /* a slot was done */
	bool quit;
	nl_readat_fn readat;  /* the caller's reader of the file */
	void *src;
	uint64_t off;
	size_t block, max;
	const struct nl_matcher *mt;
	bool match_info;      /* stage A matches INFO lines ahead (nl_stage_a) */
	struct par_slot *slot;
	int nslots;
};

/* The source of a worker's line reader: the file from pos on, up to and
 * including the first newline at or after end - 1 (the block's end). */
struct range {
	nl_readat_fn readat;
	void *src;
	uint64_t pos, end;
	bool done;            /* the block's last newline was given */
	bool eof;             /* the file ended first */
};

static long range_source(void *ctx, void *buf, size_t n)
{
	struct range *r = ctx;
	if (r->done || r->eof)
		return 0;
	long k = r->readat(r->src, buf, n, r->pos);
	if (k <= 0) {
		r->eof = k == 0;
		return k;
	}
	if (r->pos + (uint64_t)k >= r->end) { /* the block's end is in these bytes */
		size_t from = r->end > r->pos + 1 ? (size_t)(r->end - 1 - r->pos) : 0;
		const char *nl = memchr((const char *)buf + from, '\n', (size_t)k - from);
		if (nl) {
			k = nl - (const char *)buf + 1;
			r->done = true;
		}
	}
	r->pos += (uint64_t)k;
	return k;
}

/* The first line start in [at, at + span) (at > the reading's offset):
 * 1 with *start; 2 when none starts there (a long line of an earlier
 * block goes on); 0 when the file ends first; or a negative errno. The
 * search stops at the block's end, so a long line costs one read. */
static int line_start(const struct par *par, uint64_t at, uint64_t span, char *scratch, uint64_t *start)
{
	uint64_t pos = at - 1, end = at - 1 + span; /* a newline in [at - 1, end) */
	while (pos < end) {
		size_t want = end - pos < SCAN_CHUNK ? (size_t)(end - pos) : SCAN_CHUNK;
		long k = par->readat(par->src, scratch, want, pos);
		if (k <= 0)
			return (int)k;
		const char *nl = memchr(scratch, '\n', (size_t)k);
		if (nl) {
			*start = pos + (uint64_t)(nl - scratch) + 1;
			return 1;
		}
		pos += (uint64_t)k;
	}
	return 2;
}

/* Header ids a worker gives: (n << 6) | worker, n below this */
#define HID_MAX_N (1 << 24)

struct worker {
	struct par *par;
	int index;            /* < 64 */
	int hid_n;            /* header ids given */
	struct nl_hcache *hc;
	struct linereader lr;
	char *scratch;
};

/* Reads block s->k: its lines into s->text, their records into s->rec. */
static void read_block(struct worker *w, struct par_slot *s)
{
	struct par *par = w->par;
	uint64_t nom = par->off + s->k * par->block, start = par->off;
	s->nrec = 0;
	s->bytes = s->truncated = 0;
	s->no_newline = s->last = s->dense = false;
	s->err = 0;
	if (s->k > 0) {
		int r = line_start(par, nom, par->block, w->scratch, &start);
		if (r <= 0) {
			s->err = r;
			s->last = r == 0;
			return;
		}
		if (r == 2)
			return; /* no line starts in it: a long line of a block before */
	}
	s->start = start;
	struct range rg = { .readat = par->readat, .src = par->src, .pos = start, .end = nom + par->block };
	struct linereader *lr = &w->lr;
	linereader_restart(lr);
	linereader_set_source(lr, range_source, &rg);
	size_t used = 0;
	char *line;
	size_t len;
	int r;
	while ((r = linereader_next(lr, &line, &len)) > 0) {
		if (used + len + 1 > s->textcap) { /* cannot be (see nccllog_read_parallel) */
			s->err = -EOVERFLOW;
			return;
		}
		char *t = s->text + used;
		memcpy(t, line, len);
		t[len] = '\0';
		used += len + 1;
		bool nul = false, ansi = false;
		if (lr->may_ctrl)
			len = nccllog_clean_line(t, len, &nul, &ansi);
		if (s->nrec == MAX_RECS) {
			s->dense = true;
			s->nrec = 0;
			return;
		}
		XGROW(s->rec, s->arec, s->nrec + 1);
		struct nl_rec *rec = &s->rec[s->nrec++];
		nl_stage_a(par->mt, w->hc, t, len, rec, par->match_info);
		rec->hid = -1;
		if (rec->slot >= 0) { /* one id for each header the cache holds: stage B maps it to its process */
			struct hc_entry *e = &w->hc->set[(unsigned)rec->slot / 2].way[(unsigned)rec->slot % 2];
			if (e->proc < 0 && w->hid_n < HID_MAX_N)
				e->proc = (w->hid_n++ << 6) | w->index;
			rec->hid = e->proc;
		}
		rec->nul = nul;
		rec->ansi = ansi;
		s->no_newline = lr->no_newline;
	}
	s->err = r;
	s->bytes = lr->bytes;
	s->truncated = lr->truncated_lines;
	s->last = rg.eof;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct par *par = w->par;
	pthread_mutex_lock(&par->mu);
	for (;;) {
		struct par_slot *s = NULL;
		for (int i = 0; i < par->nslots; i++) /* the first block in file order */
			if (par->slot[i].state == SLOT_TODO && (!s || par->slot[i].k < s->k))
				s = &par->slot[i];
		if (!s) {
			if (par->quit)
				break;
			pthread_cond_wait(&par->todo, &par->mu);
			continue;
		}
		s->state = SLOT_BUSY;
		pthread_mutex_unlock(&par->mu);
		read_block(w, s);
		pthread_mutex_lock(&par->mu);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&par->done);
	}
	pthread_mutex_unlock(&par->mu);
	return NULL;
}

/* Feeds the records of block s to stage B; returns whether it ends the file. */
static bool feed_block(struct nccllog *lg, int file, const struct par_slot *s, struct nl_read_totals *tot)
{
	nl_stage_b_run(lg, file, s->rec, s->nrec, tot->lines + 1);
	tot->lines += s->nrec;
	tot->bytes += s->bytes;
	tot->truncated += s->truncated;
	if (s->nrec)
		tot->no_newline = s->no_newline;
	return s->last;
}

/* A block of more than MAX_RECS lines (many short lines; the records
 * stay bounded): read again here and fed one line at a time, as the
 * one-thread path does. 1 when the file ends in it, 0, or a negative errno. */
static int feed_dense(struct nccllog *lg, int file, const struct par *par, const struct par_slot *s,
		      struct linereader *lr, struct nl_read_totals *tot)
{
	struct range rg = { .readat = par->readat, .src = par->src, .pos = s->start, .end = par->off + (s->k + 1) * par->block };
	linereader_restart(lr);
	linereader_set_source(lr, range_source, &rg);
	char *line;
	size_t len;
	int r;
	while ((r = linereader_next(lr, &line, &len)) > 0) {
		if (lr->may_ctrl)
			nccllog_feed(lg, file, line, len, tot->lines + lr->lineno);
		else
			nccllog_feed_plain(lg, file, line, len, tot->lines + lr->lineno);
		tot->no_newline = lr->no_newline;
	}
	if (r < 0)
		return r;
	tot->lines += lr->lineno;
	tot->bytes += lr->bytes;
	tot->truncated += lr->truncated_lines;
	return rg.eof;
}

int nccllog_read_parallel(struct nccllog *lg, int file, nl_readat_fn readat, void *src, uint64_t off, size_t max, int threads, size_t block,
			  struct nl_read_totals *tot)
{
	memset(tot, 0, sizeof(*tot));
	struct par par;
	memset(&par, 0, sizeof(par));
	par.readat = readat;
	par.src = src;
	par.off = off;
	par.block = block ? block : BLOCK_DEFAULT;
	par.max = max;
	par.mt = lg->matcher;
	/* with two threads the one worker is the slower stage: it leaves
	 * INFO lines to stage B, which matches only those the model does
	 * not explain */
	par.match_info = threads > 2;
	int nworkers = threads > 1 ? threads - 1 : 1;
	par.nslots = nworkers + 4; /* one a worker, and some done ahead of stage B */
	par.slot = xcalloc((size_t)par.nslots, sizeof(*par.slot));
	/* a block's kept bytes: its lines but the last lie before its end
	 * (each with its newline), the last is cut at max */
	for (int i = 0; i < par.nslots; i++) {
		par.slot[i].k = (uint64_t)i;
		par.slot[i].state = SLOT_TODO;
		par.slot[i].textcap = par.block + max + 2;
		par.slot[i].text = xmalloc(par.slot[i].textcap);
	}
	pthread_mutex_init(&par.mu, NULL);
	pthread_cond_init(&par.todo, NULL);
	pthread_cond_init(&par.done, NULL);
	struct worker *w = xcalloc((size_t)nworkers, sizeof(*w));
	pthread_t *tid = xcalloc((size_t)nworkers, sizeof(*tid));
	int started = 0;
	for (int i = 0; i < nworkers; i++) {
		w[i].par = &par;
		w[i].index = i;
		w[i].hc = xcalloc(1, sizeof(*w[i].hc));
		w[i].scratch = xmalloc(SCAN_CHUNK);
		linereader_init(&w[i].lr, -1, max);
		if (pthread_create(&tid[i], NULL, worker_main, &w[i]) == 0)
			started++;
		else
			break;
	}
	int rc = 0;
	struct linereader own_lr = { .buf = NULL }; /* for dense blocks */
	nl_hid_clear(lg);
	if (started == 0) {
		rc = -EAGAIN;
	} else {
		for (uint64_t k = 0;; k++) {
			struct par_slot *s = &par.slot[k % (uint64_t)par.nslots];
			pthread_mutex_lock(&par.mu);
			while (s->state != SLOT_DONE)
				pthread_cond_wait(&par.done, &par.mu);
			pthread_mutex_unlock(&par.mu);
			if (s->err < 0) {
				rc = s->err;
				break;
			}
			if (s->dense) {
				if (!own_lr.buf)
					linereader_init(&own_lr, -1, max);
				int d = feed_dense(lg, file, &par, s, &own_lr, tot);
				if (d != 0) {
					rc = d < 0 ? d : 0;
					break;
				}
			} else if (feed_block(lg, file, s, tot)) {
				break;
			}
			pthread_mutex_lock(&par.mu);
			s->k = k + (uint64_t)par.nslots;
			s->state = SLOT_TODO;
			pthread_cond_signal(&par.todo);
			pthread_mutex_unlock(&par.mu);
		}
	}
	pthread_mutex_lock(&par.mu);
	par.quit = true;
	pthread_cond_broadcast(&par.todo);
	pthread_mutex_unlock(&par.mu);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < nworkers; i++) {
		free(w[i].hc);
		free(w[i].scratch);
		if (w[i].lr.buf)
			linereader_release(&w[i].lr);
	}
	if (own_lr.buf)
		linereader_release(&own_lr);
	for (int i = 0; i < par.nslots; i++) {
		free(par.slot[i].text);
		free(par.slot[i].rec);
	}
	pthread_cond_destroy(&par.done);
	pthread_cond_destroy(&par.todo);
	pthread_mutex_destroy(&par.mu);
	free(par.slot);
	free(w);
	free(tid);
	return rc;
}
