/* The input layer of logs and kernel: see input.h for the rules. */
#include "util/input.h"
#include "util/priv.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* ---- the binary detector ---- */

static const char *compressor(const unsigned char *b, size_t n, const char **cat)
{
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		*cat = "zcat";
		return "gzip";
	}
	if (n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) {
		*cat = "zstdcat";
		return "zstd";
	}
	if (n >= 6 && memcmp(b, "\xfd" "7zXZ", 5) == 0 && b[5] == 0) {
		*cat = "xzcat";
		return "xz";
	}
	if (n >= 4 && memcmp(b, "BZh", 3) == 0 && b[3] >= '1' && b[3] <= '9') {
		*cat = "bzcat";
		return "bzip2";
	}
	return NULL;
}

static void count_bytes(struct input *in, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n && in->sniffed < INPUT_SNIFF; i++) {
		unsigned char c = b[i];
		if (in->nhead < sizeof(in->head))
			in->head[in->nhead++] = c;
		in->sniffed++;
		if (c == 0) {
			in->nul_run++;
			if (in->utf8_need) {
				in->odd++;
				in->utf8_need = 0;
			}
			continue;
		}
		in->nul += in->nul_run; /* NULs followed by something count */
		in->nul_run = 0;
		if (in->utf8_need) {
			if ((c & 0xC0) == 0x80) {
				in->utf8_need--;
				continue;
			}
			in->odd++;
			in->utf8_need = 0;
		}
		if (c < 0x80) {
			if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b) ||
			    c == 0x7f)
				in->odd++;
		} else if (c >= 0xC2 && c <= 0xDF) {
			in->utf8_need = 1;
		} else if (c >= 0xE0 && c <= 0xEF) {
			in->utf8_need = 2;
		} else if (c >= 0xF0 && c <= 0xF4) {
			in->utf8_need = 3;
		} else {
			in->odd++;
		}
	}
}

/* 0, -EPROTONOSUPPORT or -EBADMSG, with in->why set. */
static int verdict(struct input *in, bool final)
{
	if (!in->verdict_head && (in->nhead >= 6 || final)) {
		in->verdict_head = true;
		const char *cat = NULL, *z = compressor(in->head, in->nhead, &cat);
		if (z) {
			if (!in->zname)
				in->zname = z;
			snprintf(in->why, sizeof(in->why),
				 "cannot read '%s': %s-compressed: decompress it first (%s FILE | nccl-doctor %s -)",
				 in->name, z, cat, in->cmd ? in->cmd : "logs");
			return -EPROTONOSUPPORT;
		}
	}
	if (in->binary_ok && in->verdict_head)
		in->verdict_done = true; /* the compression check was all */
	if (in->verdict_done)
		return 0;
	bool full = in->sniffed >= INPUT_SNIFF;
	if (!final && !full && in->sniffed < 4096)
		return 0;
	if (final || full)
		in->verdict_done = true;
	if (in->sniffed == 0)
		return 0;
	uint64_t base = in->sniffed - in->nul_run;
	bool binary;
	if (base == 0)
		binary = final || full || in->sniffed >= 4096; /* nothing but NULs */
	else
		binary = in->nul * 10 > base || (in->nul + in->odd) * 100 > base * 15;
	if (binary) {
		in->verdict_done = true;
		snprintf(in->why, sizeof(in->why), "cannot read '%s': binary data, not a text log%s", in->name,
			 base == 0 ? " (only NUL bytes)" : "");
		return -EBADMSG;
	}
	return 0;
}

int input_classify(const void *buf, size_t n)
{
	struct input in;
	memset(&in, 0, sizeof(in));
	str_copy(in.name, "buffer", sizeof(in.name));
	count_bytes(&in, buf, n);
	return verdict(&in, true);
}

/* ---- opening ---- */

static int reap_decompressor(struct input *in, bool kill_it);

static int fail(struct input *in, int err)
{
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	reap_decompressor(in, true);
	in->fd = -1;
	in->own_fd = false;
	in->err = err;
	if (!in->why[0])
		snprintf(in->why, sizeof(in->why), "cannot read '%s': %s", in->name, sr_strerror(err));
	return err;
}

/* Refuses what is not an input; sets in->kind. */
static int check_type(struct input *in, const struct stat *st, unsigned flags, bool is_stdin)
{
	if (S_ISREG(st->st_mode)) {
		in->kind = INPUT_REGULAR;
		return 0;
	}
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (S_ISFIFO(st->st_mode) || (S_ISSOCK(st->st_mode) && is_stdin)) {
		in->kind = INPUT_STREAM;
		return 0;
	}
	if (S_ISCHR(st->st_mode)) {
		unsigned ma = major(st->st_rdev), mi = minor(st->st_rdev);
		if (ma == 1 && mi == 3) {
			in->kind = INPUT_EMPTY;
			return 0;
		}
		if (ma == 1 && mi == 11 && (flags & INPUT_ALLOW_KMSG)) {
			in->kind = INPUT_KMSG;
			return 0;
		}
		if (is_stdin && isatty(in->fd)) {
			in->kind = INPUT_STREAM;
			return 0;
		}
		snprintf(in->why, sizeof(in->why), "cannot read '%s': a character device (%u:%u), not a log%s", in->name,
			 ma, mi, ma == 1 && mi == 11 ? "; run 'nccl-doctor kernel' without FILE to read the live kernel log" : "");
		return -SR_ESPECIAL;
	}
	snprintf(in->why, sizeof(in->why), "cannot read '%s': %s, not a log", in->name,
		 S_ISBLK(st->st_mode) ? "a block device" : S_ISSOCK(st->st_mode) ? "a socket" : "not a regular file");
	return -SR_ESPECIAL;
}

/* Counts the data of a file by SEEK_DATA/SEEK_HOLE; false when it cannot
 * tell (no support, too many extents). */
static bool data_bytes(int fd, off_t size, uint64_t *data)
{
	off_t pos = 0;
	*data = 0;
	for (int i = 0; i < 4096 && pos < size; i++) {
		off_t d = lseek(fd, pos, SEEK_DATA);
		if (d < 0)
			return errno == ENXIO; /* no data after pos */
		off_t h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || h <= d)
			return false;
		*data += (uint64_t)(h - d);
		pos = h;
	}
	return pos >= size;
}

static int check_regular(struct input *in, const struct stat *st)
{
	off_t start = lseek(in->fd, 0, SEEK_CUR);
	if (start < 0)
		start = 0;
	if (st->st_size >= (off_t)INPUT_SPARSE_MIN && (uint64_t)st->st_blocks * 512 < (uint64_t)st->st_size / 2) {
		uint64_t data;
		bool known = data_bytes(in->fd, st->st_size, &data);
		lseek(in->fd, start, SEEK_SET);
		if (known && data < (uint64_t)st->st_size / 8) {
			char a[32], b[32];
			snprintf(in->why, sizeof(in->why), "cannot read '%s': a sparse file (%s long, %s of data), not a log",
				 in->name, fmt_bytes((uint64_t)st->st_size, a, sizeof(a)), fmt_bytes(data, b, sizeof(b)));
			return -EBADMSG;
		}
	}
	/* the first bytes, before any line is handed on */
	unsigned char *buf = xmalloc(INPUT_SNIFF);
	size_t got = 0;
	while (got < INPUT_SNIFF) {
		ssize_t k = pread(in->fd, buf + got, INPUT_SNIFF - got, start + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	count_bytes(in, buf, got);
	free(buf);
	int r = verdict(in, true);
	in->verdict_head = in->verdict_done = true;
	return r;
}

/* Replaces a compressed regular file by its decompressor's output (a
 * stream). A status pipe tells an exec failure from a tool that started. */
static int spawn_decompressor(struct input *in)
{
	const char *tool = strcmp(in->zname, "bzip2") == 0 ? "bzip2" : in->zname;
	char *const argv[] = { (char *)tool, "-dc", NULL };
	/* by absolute path from a fixed list, never through PATH (util/priv.h) */
	char exe[PATH_MAX], nf[600];
	if (priv_helper_find(tool, exe, sizeof(exe), nf, sizeof(nf)) < 0) {
		const char *cat = NULL;
		compressor(in->head, in->nhead, &cat);
		str_setf(in->why, sizeof(in->why),
			 "cannot read '%s': %s-compressed, and '%s' cannot be run (%s): decompress it first (%s FILE | "
			 "nccl-doctor %s -)",
			 in->name, in->zname, tool, nf, cat ? cat : "zcat", in->cmd ? in->cmd : "logs");
		return -EPROTONOSUPPORT;
	}
	off_t start = lseek(in->fd, 0, SEEK_CUR);
	int out[2], st[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(st, O_CLOEXEC) < 0) {
		int e = -errno;
		close(out[0]);
		close(out[1]);
		return e;
	}
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGPIPE, SIG_DFL);
		if (start > 0)
			lseek(in->fd, start, SEEK_SET);
		if (dup2(in->fd, 0) < 0 || dup2(out[1], 1) < 0 || (devnull >= 0 && dup2(devnull, 2) < 0))
			_exit(127);
		execv(exe, argv);
		int e = errno;
		ssize_t w = write(st[1], &e, sizeof(e));
		(void)w;
		_exit(127);
	}
	int e = pid < 0 ? -errno : 0;
	close(out[1]);
	close(st[1]);
	if (devnull >= 0)
		close(devnull);
	if (pid < 0) {
		close(out[0]);
		close(st[0]);
		return e;
	}
	int child_errno = 0;
	ssize_t n;
	while ((n = read(st[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	close(st[0]);
	if (n > 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(out[0]);
		const char *cat = NULL;
		compressor(in->head, in->nhead, &cat);
		snprintf(in->why, sizeof(in->why),
			 "cannot read '%s': %s-compressed, and '%s' cannot be run (%s): decompress it first (%s FILE | "
			 "nccl-doctor %s -)",
			 in->name, in->zname, tool, sr_strerror(-child_errno), cat ? cat : "zcat", in->cmd ? in->cmd : "logs");
		return -EPROTONOSUPPORT;
	}
	if (in->own_fd)
		close(in->fd);
	in->fd = out[0];
	in->own_fd = true;
	in->zpid = pid;
	in->kind = INPUT_STREAM;
	/* the binary check again, on what comes out */
	in->sniffed = in->nul = in->nul_run = in->odd = 0;
	in->utf8_need = 0;
	in->nhead = 0;
	in->verdict_head = in->verdict_done = false;
	in->why[0] = '\0';
	return 0;
}

/* The decompressor's end: 0 when it exited 0, else an error with why. */
static int reap_decompressor(struct input *in, bool kill_it)
{
	if (in->zpid <= 0)
		return 0;
	if (kill_it)
		kill(in->zpid, SIGKILL);
	int status = 0;
	while (waitpid(in->zpid, &status, 0) < 0 && errno == EINTR)
		;
	in->zpid = 0;
	if (kill_it || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return 0;
	snprintf(in->why, sizeof(in->why), "cannot read '%s': '%s -dc' failed (%s %d): a corrupt or truncated file",
		 in->name, in->zname, WIFEXITED(status) ? "status" : "signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return -EIO;
}

static int setup(struct input *in, unsigned flags, bool is_stdin)
{
	struct stat st;
	if (fstat(in->fd, &st) < 0)
		return fail(in, -errno);
	int r = check_type(in, &st, flags, is_stdin);
	if (r < 0)
		return fail(in, r);
	if (in->kind == INPUT_REGULAR) {
		if (!is_stdin)
			fcntl(in->fd, F_SETFL, fcntl(in->fd, F_GETFL) & ~O_NONBLOCK);
		r = check_regular(in, &st);
		if (r == -EPROTONOSUPPORT && in->zname)
			r = spawn_decompressor(in);
		if (r < 0)
			return fail(in, r);
	}
	return 0;
}

int input_open(struct input *in, const char *path, const char *cmd, double timeout, unsigned flags)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->cmd = cmd;
	in->timeout = timeout;
	in->binary_ok = flags & INPUT_BINARY;
	if (strcmp(path, "-") == 0) {
		str_copy(in->name, "stdin", sizeof(in->name));
		in->fd = STDIN_FILENO;
		return setup(in, flags, true);
	}
	str_copy(in->name, path, sizeof(in->name));
	/* the type first: opening a FIFO blocks, opening some devices acts */
	struct stat st;
	if (stat(path, &st) < 0)
		return fail(in, -errno);
	int r = check_type(in, &st, flags, false);
	if (r < 0)
		return fail(in, r);
	in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (in->fd < 0)
		return fail(in, -errno);
	in->own_fd = true;
	return setup(in, flags, false);
}

int input_from_fd(struct input *in, int fd, const char *name, const char *cmd, double timeout, bool own_fd)
{
	memset(in, 0, sizeof(*in));
	in->fd = fd;
	in->own_fd = own_fd;
	in->cmd = cmd;
	in->timeout = timeout;
	str_copy(in->name, name, sizeof(in->name));
	return setup(in, 0, false);
}

/* ---- reading ---- */

static long stream_read(struct input *in, void *buf, size_t n)
{
	double deadline = in->timeout > 0 ? nd_now_s() + in->timeout : 0;
	for (;;) {
		int ms = -1;
		if (in->timeout > 0) {
			double left = deadline - nd_now_s();
			ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
		}
		struct pollfd p = { .fd = in->fd, .events = POLLIN };
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0) {
			snprintf(in->why, sizeof(in->why), "no data from '%s' in %g s (--input-timeout SEC waits longer)",
				 in->name, in->timeout);
			return -ETIMEDOUT;
		}
		ssize_t k = read(in->fd, buf, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		return k < 0 ? -errno : (long)k;
	}
}

long input_read(struct input *in, void *buf, size_t n)
{
	if (in->err)
		return in->err;
	if (in->fd < 0 || in->kind == INPUT_EMPTY)
		return 0;
	long k;
	if (in->kind == INPUT_STREAM) {
		k = stream_read(in, buf, n);
	} else {
		do
			k = read(in->fd, buf, n);
		while (k < 0 && errno == EINTR);
		if (k < 0)
			k = -errno;
	}
	if (k == 0 && in->zpid > 0) {
		int r = reap_decompressor(in, false);
		if (r < 0)
			k = r;
	}
	if (k > 0 && in->kind == INPUT_STREAM && !in->binary_ok) {
		/* NULs in a row across reads: a stream of zeros never ends */
		const unsigned char *b = buf;
		size_t j = (size_t)k;
		while (j > 0 && b[j - 1] == 0)
			j--;
		in->stream_nul_run = j == 0 ? in->stream_nul_run + (uint64_t)k : (uint64_t)k - j;
		if (in->stream_nul_run >= INPUT_STREAM_NUL_MAX) {
			snprintf(in->why, sizeof(in->why), "cannot read '%s': binary data, not a text log (%u MiB of NUL bytes in a row)",
				 in->name, INPUT_STREAM_NUL_MAX >> 20);
			k = -EBADMSG;
		}
	}
	if (k >= 0 && !(in->verdict_head && in->verdict_done)) {
		count_bytes(in, buf, (size_t)k);
		int r = verdict(in, k == 0);
		if (r < 0)
			k = r;
	}
	if (k < 0) {
		in->err = (int)k;
		if (!in->why[0])
			snprintf(in->why, sizeof(in->why), "cannot read '%s': %s", in->name, sr_strerror((int)k));
		return k;
	}
	in->bytes += (uint64_t)k;
	return k;
}

int input_parse_timeout(const char *s, double *out)
{
	double v;
	if (parse_double(s, &v) < 0 || !(v >= 0 && v <= INPUT_TIMEOUT_MAX))
		return -EINVAL;
	*out = v;
	return 0;
}

int input_timeout_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	return input_parse_timeout(value, target) < 0 ? -1 : 0;
}

static long lr_source(void *ctx, void *buf, size_t n)
{
	return input_read(ctx, buf, n);
}

void input_linereader(struct input *in, struct linereader *lr, size_t max_line)
{
	linereader_init(lr, in->fd, max_line);
	linereader_set_source(lr, lr_source, in);
}

int input_read_lines(struct input *in, size_t max_line, input_line_fn fn, void *ctx)
{
	struct linereader lr;
	input_linereader(in, &lr, max_line);
	char *line;
	size_t len;
	int r;
	while ((r = linereader_next(&lr, &line, &len)) > 0)
		fn(ctx, line, len, lr.lineno, lr.truncated);
	linereader_release(&lr);
	return r < 0 ? r : 0;
}

int input_read_kmsg(int fd, input_line_fn fn, void *ctx, uint64_t *overruns)
{
	/* a record is at most about 8 KiB of text plus its dictionary */
	enum { BUFSZ = 16384 };
	char *buf = malloc(BUFSZ + 1);
	if (!buf)
		return -ENOMEM;
	uint64_t rec = 0;
	int ret = 0;
	for (;;) {
		ssize_t n = read(fd, buf, BUFSZ);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			if (errno == EPIPE) {
				/* records were overwritten under us; the next read goes on */
				(*overruns)++;
				continue;
			}
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		buf[n] = '\0';
		rec++;
		/* first line: the record; the rest: its dictionary */
		char *nl = memchr(buf, '\n', (size_t)n);
		size_t len = nl ? (size_t)(nl - buf) : (size_t)n;
		fn(ctx, buf, len, rec, false);
	}
	free(buf);
	return ret;
}

long input_pread(void *fdp, void *buf, size_t n, uint64_t at)
{
	int fd = *(const int *)fdp;
	for (;;) {
		ssize_t k = pread(fd, buf, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		return k < 0 ? -errno : (long)k;
	}
}

const char *input_error_text(const struct input *in, int err)
{
	static __thread char buf[PATH_MAX + 160];
	if (in->why[0] && (err == in->err || err == 0))
		return in->why;
	snprintf(buf, sizeof(buf), "cannot read '%s': %s", in->name, sr_strerror(err));
	return buf;
}

void input_close(struct input *in)
{
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	reap_decompressor(in, true);
	in->fd = -1;
	in->own_fd = false;
}

/* ---- arguments ---- */

void input_list_init(struct input_list *l, size_t max, int max_depth)
{
	memset(l, 0, sizeof(*l));
	l->max = max;
	l->max_depth = max_depth;
}

/* Lists path; st (NULL: not known) names the file, which is listed once. */
static void list_push(struct input_list *l, const char *path, bool from_dir, const struct stat *st)
{
	if (l->max && l->n >= l->max)
		return;
	if (st && S_ISREG(st->st_mode)) {
		for (size_t i = 0; i < l->nids; i++)
			if (l->ids[i].dev == st->st_dev && l->ids[i].ino == st->st_ino)
				return; /* a link to a file listed already */
		XGROW(l->ids, l->aids, l->nids + 1);
		l->ids[l->nids++] = (struct input_file_id){ st->st_dev, st->st_ino };
	}
	XGROW(l->paths, l->alloc, l->n + 1);
	XGROW(l->from_dir, l->afrom, l->n + 1);
	l->from_dir[l->n] = from_dir;
	l->paths[l->n++] = xstrdup(path);
}

static void list_error(struct input_list *l, char *msg)
{
	XGROW(l->errors, l->aerr, l->nerr + 1);
	l->errors[l->nerr++] = msg;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_dir(struct input_list *l, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d) {
		list_error(l, xasprintf("cannot read '%s': %s", dir, sr_strerror(-errno)));
		return;
	}
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		XGROW(names, alloc, n + 1);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		struct stat st, lst;
		/* regular files only: a FIFO or a device found by a walk is no log;
		 * a link to a directory is not followed (a loop would list its
		 * files once per level), a link to a file is listed once */
		if (lstat(p, &lst) == 0 && stat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				if (depth < l->max_depth && !S_ISLNK(lst.st_mode))
					add_dir(l, p, depth + 1);
			} else if (S_ISREG(st.st_mode)) {
				list_push(l, p, true, &st);
			}
		}
		free(p);
		free(names[i]);
	}
	free(names);
}

void input_list_add(struct input_list *l, const char *arg)
{
	struct stat st;
	if (strcmp(arg, "-") == 0) {
		list_push(l, "-", false, NULL);
		return;
	}
	if (stat(arg, &st) == 0) {
		if (S_ISDIR(st.st_mode) && l->max_depth > 0)
			add_dir(l, arg, 1);
		else
			list_push(l, arg, false, &st);
		return;
	}
	int err = errno;
	if (strpbrk(arg, "*?[")) {
		glob_t g;
		int rc = glob(arg, 0, NULL, &g);
		if (rc == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				input_list_add(l, g.gl_pathv[i]);
			globfree(&g);
			return;
		}
		if (rc != GLOB_NOMATCH)
			globfree(&g);
		list_error(l, xasprintf("no file matches '%s'", arg));
		return;
	}
	if (lstat(arg, &st) == 0) /* a dangling link: name it */
		list_push(l, arg, false, NULL);
	else
		list_error(l, xasprintf("cannot read '%s': %s", arg, sr_strerror(-err)));
}

void input_list_release(struct input_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->from_dir);
	free(l->ids);
	for (size_t i = 0; i < l->nerr; i++)
		free(l->errors[i]);
	free(l->errors);
	memset(l, 0, sizeof(*l));
}
