/* Capture of the bench worker's NCCL output lines (see bench_capture.h). */
#include "gpu/bench_capture.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_KEPT 1024
/* capture_take writes this through the pipe and waits until the reader
 * has seen it: every line written before it has then been kept. It is cut
 * out of what is passed on (\001 starts no output of NCCL's or ours). */
static const char mark[] = "\001nd-capture-mark\n";
#define MARK_LEN (sizeof(mark) - 1)
#define MARK_WAIT_S 2

static struct {
	bool on;
	int orig_out, orig_err, rd;
	pthread_t thread;
	pthread_mutex_t mu;
	json_t *lines;        /* kept since the last capture_take */
	size_t nlines, bytes; /* over the whole run, for the caps */
	char line[LINE_MAX_KEPT];
	size_t len;
	bool overlong;
	char last_algo[160];  /* "AllReduce: 8 Bytes" of the last algorithm line kept */
	pthread_cond_t seen_cv;
	unsigned marks_seen;  /* marks the reader has taken out of the stream */
	size_t mark_at;       /* bytes of a mark matched so far */
	bool mark_broken;     /* a mark did not come back: capture_take no longer waits */
} cap = { .mu = PTHREAD_MUTEX_INITIALIZER, .seen_cv = PTHREAD_COND_INITIALIZER };

/* NCCL prints "AllReduce: 8 Bytes -> Algo RING proto LL ..." for every call
 * (NCCL_DEBUG_SUBSYS=TUNING): keep one per size */
static bool repeated_algo(void)
{
	const char *m = strstr(cap.line, " NCCL INFO "), *e = strstr(cap.line, " Bytes -> Algo ");
	if (!m || !e || e < m)
		return false;
	m += 11;
	size_t n = (size_t)(e - m) < sizeof(cap.last_algo) - 1 ? (size_t)(e - m) : sizeof(cap.last_algo) - 1;
	if (strlen(cap.last_algo) == n && memcmp(cap.last_algo, m, n) == 0)
		return true;
	memcpy(cap.last_algo, m, n);
	cap.last_algo[n] = '\0';
	return false;
}

static void keep_line(void)
{
	cap.line[cap.len] = '\0';
	if (repeated_algo()) {
		cap.len = 0;
		return;
	}
	if ((strstr(cap.line, " NCCL INFO ") || strstr(cap.line, " NCCL WARN ")) && cap.nlines < CAPTURE_MAX_LINES &&
	    cap.bytes + cap.len < CAPTURE_MAX_BYTES) {
		pthread_mutex_lock(&cap.mu);
		json_array_append_new(cap.lines, json_string(cap.line));
		pthread_mutex_unlock(&cap.mu);
		cap.nlines++;
		cap.bytes += cap.len;
	}
	cap.len = 0;
	cap.overlong = false;
}

/* One byte of the output into the line being read */
static void feed(char c)
{
	if (c == '\n') {
		if (!cap.overlong)
			keep_line();
		cap.len = 0;
		cap.overlong = false;
	} else if (cap.len < LINE_MAX_KEPT - 1) {
		cap.line[cap.len++] = c ? c : ' ';
	} else {
		cap.overlong = true;
	}
}

static void pass_on(const char *p, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(cap.orig_out, p + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

static void *reader(void *arg)
{
	(void)arg;
	char buf[8192], out[8192 + MARK_LEN];
	for (;;) {
		ssize_t n = read(cap.rd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t o = 0;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == mark[cap.mark_at]) { /* a mark, perhaps: held back until it is one or not */
				if (++cap.mark_at < MARK_LEN)
					continue;
				cap.mark_at = 0;
				pthread_mutex_lock(&cap.mu);
				cap.marks_seen++;
				pthread_cond_broadcast(&cap.seen_cv);
				pthread_mutex_unlock(&cap.mu);
				continue;
			}
			for (size_t k = 0; k < cap.mark_at; k++) { /* not a mark: its bytes are output after all */
				out[o++] = mark[k];
				feed(mark[k]);
			}
			cap.mark_at = 0;
			if (buf[i] == mark[0]) {
				cap.mark_at = 1;
				continue;
			}
			out[o++] = buf[i];
			feed(buf[i]);
		}
		pass_on(out, o);
	}
	if (cap.len && !cap.overlong)
		keep_line();
	return NULL;
}

int capture_start(void)
{
	int p[2];
	fflush(stdout);
	fflush(stderr);
	if (pipe(p) < 0)
		return -errno;
	cap.orig_out = dup(1);
	cap.orig_err = dup(2);
	if (cap.orig_out < 0 || cap.orig_err < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0) {
		int e = errno;
		if (cap.orig_out >= 0) {
			dup2(cap.orig_out, 1);
			close(cap.orig_out);
		}
		if (cap.orig_err >= 0) {
			dup2(cap.orig_err, 2);
			close(cap.orig_err);
		}
		close(p[0]);
		close(p[1]);
		return -e;
	}
	close(p[1]);
	cap.rd = p[0];
	cap.lines = json_array();
	if (pthread_create(&cap.thread, NULL, reader, NULL) != 0) {
		dup2(cap.orig_out, 1);
		dup2(cap.orig_err, 2);
		close(cap.orig_out);
		close(cap.orig_err);
		close(cap.rd);
		json_decref(cap.lines);
		return -EAGAIN;
	}
	cap.on = true;
	return 0;
}

json_t *capture_take(void)
{
	if (!cap.on)
		return json_array();
	fflush(stdout);
	fflush(stderr);
	/* lines written just now may still be in the pipe: a mark after them,
	 * and the reader has kept them once it saw the mark (at most
	 * MARK_WAIT_S on a loaded machine; a mark that never returns stops
	 * the waiting) */
	pthread_mutex_lock(&cap.mu);
	unsigned want = cap.marks_seen + 1;
	bool broken = cap.mark_broken;
	pthread_mutex_unlock(&cap.mu);
	if (!broken && write(1, mark, MARK_LEN) == (ssize_t)MARK_LEN) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += MARK_WAIT_S;
		pthread_mutex_lock(&cap.mu);
		while (cap.marks_seen < want)
			if (pthread_cond_timedwait(&cap.seen_cv, &cap.mu, &until) == ETIMEDOUT) {
				cap.mark_broken = true;
				break;
			}
		pthread_mutex_unlock(&cap.mu);
	}
	pthread_mutex_lock(&cap.mu);
	json_t *out = cap.lines;
	cap.lines = json_array();
	pthread_mutex_unlock(&cap.mu);
	return out;
}

void capture_stop(void)
{
	if (!cap.on)
		return;
	fflush(stdout);
	fflush(stderr);
	dup2(cap.orig_out, 1); /* the pipe's last write ends are closed here */
	dup2(cap.orig_err, 2);
	pthread_join(cap.thread, NULL);
	close(cap.rd);
	close(cap.orig_out);
	close(cap.orig_err);
	json_decref(cap.lines);
	cap.on = false;
}
