/* nccl-doctor logs: reads NCCL / PyTorch / vLLM logs (files, directories,
 * globs, or '-' for stdin), line by line with bounded memory, and reports
 * the stage each rank reached, its transports and errors, and the ranked
 * causes of a failed run with their evidence lines (analyze/nccllog*.c). */
#include "analyze/nccllog.h"
#include "cmd/cmd.h"
#include "util/linereader.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAX_LINE 65536
#define MAX_DIR_DEPTH 3

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor logs [options] FILE|DIR|GLOB|- ...\n"
		"\n"
		"Reads NCCL logs (NCCL_DEBUG=INFO output, one file with all ranks\n"
		"interleaved or one file per rank from NCCL_DEBUG_FILE=%%h.%%p), with the\n"
		"PyTorch, vLLM, launcher and kernel lines around them. Reports the stage\n"
		"each rank reached, transports, warnings and errors, and ranks the causes\n"
		"of a failed run with the log lines (file:line) that support them.\n"
		"\n"
		"options:\n"
		"  --max-line BYTES  longest line kept whole (default %d); longer lines\n"
		"                    are cut and counted\n"
		"  -h, --help        this help\n"
		"\n"
		"A directory is read recursively (%d levels); '-' reads standard input.\n"
		"With --json the document starts with schema_version, causes (best first),\n"
		"ranks and findings.\n"
		"exit status: 0 the log shows a healthy run, 1 warnings only, 2 a failure\n"
		"cause was found, 3 an input could not be read, 64 bad usage\n",
		DEFAULT_MAX_LINE, MAX_DIR_DEPTH);
}

struct inputs {
	char **paths;
	size_t n, alloc;
	char **errors; /* one-line messages for inputs that could not be used */
	size_t nerr, aerr;
};

static void input_add(struct inputs *in, const char *path)
{
	XGROW(in->paths, in->alloc, in->n + 1);
	in->paths[in->n++] = xstrdup(path);
}

static void input_error(struct inputs *in, char *msg)
{
	XGROW(in->errors, in->aerr, in->nerr + 1);
	in->errors[in->nerr++] = msg;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_dir(struct inputs *in, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d) {
		input_error(in, xasprintf("cannot read '%s': %s", dir, strerror(errno)));
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
	qsort(names, n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		struct stat st;
		if (stat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				if (depth < MAX_DIR_DEPTH)
					add_dir(in, p, depth + 1);
			} else if (S_ISREG(st.st_mode) && in->n < NL_MAX_FILES) {
				input_add(in, p);
			}
		}
		free(p);
		free(names[i]);
	}
	free(names);
}

static void expand_arg(struct inputs *in, const char *arg)
{
	struct stat st;
	if (strcmp(arg, "-") == 0) {
		input_add(in, "-");
		return;
	}
	if (stat(arg, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			add_dir(in, arg, 1);
		else
			input_add(in, arg);
		return;
	}
	int err = errno;
	if (strpbrk(arg, "*?[")) {
		glob_t g;
		int rc = glob(arg, 0, NULL, &g);
		if (rc == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				expand_arg(in, g.gl_pathv[i]);
			globfree(&g);
			return;
		}
		if (rc != GLOB_NOMATCH)
			globfree(&g);
		input_error(in, xasprintf("no file matches '%s'", arg));
		return;
	}
	input_error(in, xasprintf("cannot read '%s': %s", arg, strerror(err)));
}

/* Looks at the first bytes of a regular file: NULL when it looks like text,
 * else why not. */
static const char *sniff_binary(int fd)
{
	unsigned char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	if (n <= 0)
		return NULL;
	if (n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b)
		return "gzip data (use: zcat FILE | nccl-doctor logs -)";
	if (n >= 4 && buf[0] == 0x28 && buf[1] == 0xb5 && buf[2] == 0x2f && buf[3] == 0xfd)
		return "zstd data (use: zstdcat FILE | nccl-doctor logs -)";
	/* NULs, control bytes and bytes outside valid UTF-8 sequences */
	size_t nul = 0, odd = 0;
	for (ssize_t i = 0; i < n;) {
		unsigned char c = buf[i];
		if (c == 0) {
			nul++;
			i++;
		} else if (c < 0x80) {
			if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b && c != '\f')
				odd++;
			i++;
		} else {
			ssize_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
			bool ok = len > 0;
			for (ssize_t j = 1; ok && j < len; j++)
				if (i + j < n && (buf[i + j] & 0xC0) != 0x80)
					ok = false;
			if (ok) {
				i += len;
			} else {
				odd++;
				i++;
			}
		}
	}
	if (nul * 10 > (size_t)n || (nul + odd) * 100 > (size_t)n * 15)
		return "binary data, not a text log";
	return NULL;
}

/* Reads one input into the model. Returns 0, or -1 with a message added. */
static int read_input(struct nccllog *lg, struct inputs *in, const char *path, size_t max_line, bool from_dir)
{
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	if (fd < 0) {
		input_error(in, xasprintf("cannot read '%s': %s", path, strerror(errno)));
		return -1;
	}
	struct stat st;
	if (fd != STDIN_FILENO && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		const char *why = sniff_binary(fd);
		if (why) {
			close(fd);
			if (from_dir) {
				fprintf(stderr, "nccl-doctor logs: skipping '%s': %s\n", path, why);
				return 0;
			}
			input_error(in, xasprintf("cannot read '%s': %s", path, why));
			return -1;
		}
	}
	int file = nccllog_begin_file(lg, name);
	if (file < 0) {
		if (fd != STDIN_FILENO)
			close(fd);
		input_error(in, xasprintf("too many inputs: '%s' and the rest were not read (limit %d)", path, NL_MAX_FILES));
		return -1;
	}
	struct linereader lr;
	linereader_init(&lr, fd, max_line);
	char *line;
	size_t len;
	int rc;
	bool no_newline = false;
	while ((rc = linereader_next(&lr, &line, &len)) > 0) {
		no_newline = lr.no_newline;
		if (lr.may_ctrl)
			nccllog_feed(lg, file, line, len, lr.lineno);
		else
			nccllog_feed_plain(lg, file, line, len, lr.lineno);
	}
	nccllog_end_file(lg, file, lr.lineno, lr.bytes, lr.truncated_lines, no_newline);
	linereader_release(&lr);
	if (fd != STDIN_FILENO)
		close(fd);
	if (rc < 0) {
		input_error(in, xasprintf("cannot read '%s': %s", path, strerror(-rc)));
		return -1;
	}
	return 0;
}

int cmd_logs(int argc, char **argv, const struct run_opts *opt)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "max-line", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	size_t max_line = DEFAULT_MAX_LINE;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return fflush(stdout) == 0 ? EXIT_HEALTHY : EXIT_CANNOT_RUN;
		case 'm': {
			long long v;
			if (parse_ll(optarg, 10, &v) < 0 || v < 256 || v > 64 * 1024 * 1024)
				return cmd_usage_error("logs", "--max-line wants a number of bytes from 256 to 67108864, not '%s'", optarg);
			max_line = (size_t)v;
			break;
		}
		default:
			if (optopt)
				return cmd_usage_error("logs", "unknown option '-%c'", optopt);
			return cmd_usage_error("logs", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cmd_usage_error("logs", "no log given: name files, directories, globs or '-' for stdin");

	struct inputs in;
	memset(&in, 0, sizeof(in));
	for (int i = optind; i < argc; i++)
		expand_arg(&in, argv[i]);
	size_t nstdin = 0;
	for (size_t i = 0; i < in.n; i++)
		nstdin += strcmp(in.paths[i], "-") == 0;
	if (nstdin > 1) {
		for (size_t i = 0; i < in.n; i++)
			free(in.paths[i]);
		free(in.paths);
		for (size_t i = 0; i < in.nerr; i++)
			free(in.errors[i]);
		free(in.errors);
		return cmd_usage_error("logs", "'-' (standard input) can be given once");
	}

	struct nccllog lg;
	nccllog_init(&lg);
	size_t nread = 0;
	for (size_t i = 0; i < in.n; i++) {
		/* inputs found by a directory walk are skipped quietly when binary */
		bool from_dir = true;
		for (int k = optind; k < argc; k++)
			if (strcmp(argv[k], in.paths[i]) == 0 || strcmp(in.paths[i], "-") == 0)
				from_dir = false;
		if (read_input(&lg, &in, in.paths[i], max_line, from_dir) == 0)
			nread++;
	}

	struct result *r = result_new("logs");
	if (lg.nfiles == 0 && in.nerr == 0)
		input_error(&in, xstrdup("no readable file in the inputs given"));
	nccllog_analyze(&lg, r);
	if (in.nerr) {
		/* one line each; the result carries the first */
		for (size_t i = 1; i < in.nerr; i++)
			fprintf(stderr, "nccl-doctor logs: %s\n", in.errors[i]);
		result_set_error(r, "%s", in.errors[0]);
	}
	(void)nread;
	nccllog_release(&lg);
	for (size_t i = 0; i < in.n; i++)
		free(in.paths[i]);
	free(in.paths);
	for (size_t i = 0; i < in.nerr; i++)
		free(in.errors[i]);
	free(in.errors);
	return cmd_finish(r, opt);
}
