/* nccl-doctor logs: reads NCCL / PyTorch / vLLM logs (files, directories,
 * globs, or '-' for stdin, through util/input.h), line by line with bounded memory, and reports
 * the stage each rank reached, its transports and errors, and the ranked
 * causes of a failed run with their evidence lines (analyze/nccllog*.c). */
#include "analyze/host_hint.h"
#include "analyze/nccllog.h"
#include "collect/collect.h"
#include "cmd/cmd.h"
#include "report/report.h"
#include "util/clock.h"
#include "util/input.h"
#include "util/linereader.h"
#include "util/progress.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAX_LINE 65536
#define MAX_DIR_DEPTH 3
#define MAX_THREADS 64
#define THREADS_DEFAULT_MAX 4
#define PAR_MIN_BYTES (16u << 20) /* smaller files: one thread */

/* How a regular file is read: threads (1: one thread), block bytes (0:
 * the default), par_min: the least size read with threads. */
struct read_cfg {
	size_t max_line;
	double timeout;
	int threads;
	size_t block;
	uint64_t par_min;
};

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
		"  --input-timeout SEC  a FIFO, pipe or terminal that sends nothing for SEC\n"
		"                    seconds ends with an error (default 5; 0: wait for ever)\n"
		"  --threads N       threads for a regular file of 16 MiB or more (default: the\n"
		"                    CPUs this process may use, at most %d; also from\n"
		"                    ND_LOGS_THREADS; 1: one thread); the report is the\n"
		"                    same whatever N\n"
		"  -h, --help        this help\n"
		"\n"
		"  --snapshot FILE   weigh the causes with the facts of the machine the logs\n"
		"                    came from, as recorded by `nccl-doctor snapshot` there\n"
		"                    (FILE.tar.gz or FILE.tar; unpacked into a private\n"
		"                    temporary directory, removed afterwards)\n"
		"\n"
		"With --snapshot FILE, or the global --sysroot DIR (such an archive unpacked),\n"
		"the causes are weighed with that machine's facts: ACS and the IOMMU between\n"
		"its GPUs, /dev/shm, its RDMA devices, NCCL_NET of its environment\n"
		"(`nccl-doctor logs --snapshot FILE LOG`; `check --log FILE` does it here).\n"
		"An archive is refused whole, with one line, when it is not a tar archive, is\n"
		"truncated, or has a member that is not a file, directory or link, an absolute\n"
		"name or '..', a link leading out of it, a file over 64 MiB, more than 512 MiB\n"
		"of files or 200000 members.\n"
		"\n"
		"A directory is read recursively (%d levels, regular files only, links to\n"
		"directories not followed, each file once); '-' reads standard input.\n"
		"Compressed files (gzip, zstd, xz, bzip2) are read through their\n"
		"decompressor; binary and sparse files and character devices are\n"
		"refused (util/input.h has the rule).\n"
		"With --json the document starts with schema_version, causes (best first),\n"
		"ranks and findings.\n"
		"exit status: 0 the log shows a healthy run, 1 warnings only (inputs with no\n"
		"NCCL line too: \"cannot tell\"), 2 a failure cause was found, 3 an input\n"
		"could not be read or nothing was read, 64 bad usage; verdict: HEALTHY 0,\n"
		"DEGRADED 1, BROKEN 2, INCOMPLETE 3, NOTHING TO CHECK 3 (nothing was read)\n",
		DEFAULT_MAX_LINE, THREADS_DEFAULT_MAX, MAX_DIR_DEPTH);
}

static void input_error(struct input_list *in, char *msg)
{
	XGROW(in->errors, in->aerr, in->nerr + 1);
	in->errors[in->nerr++] = msg;
}

/* A binary input that may be a PyTorch flight-recorder dump in Python's
 * pickle format (its default): read whole (up to 64 MiB) and handed to
 * the log reader. -EPROTONOSUPPORT when it is no pickle (the caller reports
 * the binary input as before), else 0 with any error added. */
static int read_pickle(struct nccllog *lg, struct input_list *in, const char *path)
{
	/* opened again by name: a regular file only, and without blocking on
	 * a FIFO swapped in meanwhile (the input rules of util/input.h) */
	int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f = NULL;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "rb"))))
		close(fd);
	if (!f)
		return -EPROTONOSUPPORT;
	size_t cap = 64u << 20, n = 0, alloc = 0;
	unsigned char *buf = NULL;
	int b0 = fgetc(f), b1 = fgetc(f);
	if (b0 != 0x80 || b1 < 2 || b1 > 5) { /* PROTO 2..5 opens every pickle the recorder writes */
		fclose(f);
		return -EPROTONOSUPPORT;
	}
	rewind(f);
	for (;;) {
		XGROW(buf, alloc, n + 65536);
		size_t k = fread(buf + n, 1, 65536, f);
		n += k;
		if (k < 65536 || n > cap)
			break;
	}
	fclose(f);
	char why[400] = "";
	int rc = n > cap ? -EFBIG : nccllog_add_pickle(lg, path, buf, n, why, sizeof(why));
	free(buf);
	if (rc == -EPROTONOSUPPORT)
		return rc;
	if (rc == -EFBIG)
		input_error(in, xasprintf("cannot read '%s': a pickle over 64 MiB", path));
	else if (rc < 0)
		input_error(in, xasprintf("cannot read '%s': %s", path, why));
	return 0;
}

/* Progress lines (util/progress.h) when the inputs are this large or this
 * many, and a line every PROGRESS_STEP_BYTES of a file read serially */
#define PROGRESS_MIN_BYTES (64LL << 20)
#define PROGRESS_MIN_FILES 16
#define PROGRESS_STEP_BYTES (64LL << 20)

/* A regular file of at least cfg->par_min bytes through worker threads
 * (nccllog_read_parallel). -EAGAIN when it is not read that way (small,
 * or no thread could start): nothing was fed, the caller reads it. */
static int read_threaded(struct nccllog *lg, struct input *inp, int file, const struct read_cfg *cfg)
{
	struct stat st;
	off_t at = lseek(inp->fd, 0, SEEK_CUR);
	if (at < 0 || fstat(inp->fd, &st) < 0 || st.st_size < at || (uint64_t)(st.st_size - at) < cfg->par_min)
		return -EAGAIN;
	struct nl_read_totals t;
	int rc = nccllog_read_parallel(lg, file, input_pread, &inp->fd, (uint64_t)at, cfg->max_line, cfg->threads, cfg->block, &t);
	if (rc == -EAGAIN)
		return rc;
	nccllog_end_file(lg, file, t.lines, t.bytes, t.truncated, t.no_newline);
	return rc;
}

/* The default thread count: the CPUs this process may run on, at most
 * THREADS_DEFAULT_MAX. */
static int threads_default(void)
{
	cpu_set_t set;
	int n = 0;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	if (n <= 0) {
		long v = sysconf(_SC_NPROCESSORS_ONLN);
		n = v > 0 ? (int)v : 1;
	}
	return n < THREADS_DEFAULT_MAX ? n : THREADS_DEFAULT_MAX;
}

/* ND_LOGS_THREADS and the test switch ND_LOGS_BLOCK (bytes a block, and
 * threads for a regular file of any size) into cfg; 0 or a usage error. */
static int read_env(struct read_cfg *cfg)
{
	long long v;
	const char *e = getenv("ND_LOGS_THREADS");
	if (e && *e) {
		if (parse_ll(e, 10, &v) < 0 || v < 1 || v > MAX_THREADS)
			return cmd_usage_error("logs", "ND_LOGS_THREADS wants a number from 1 to %d, not '%s'", MAX_THREADS, e);
		cfg->threads = (int)v;
	}
	e = getenv("ND_LOGS_BLOCK");
	if (e && *e) {
		if (parse_ll(e, 10, &v) < 0 || v < 1 || v > (64LL << 20))
			return cmd_usage_error("logs", "ND_LOGS_BLOCK wants a number of bytes from 1 to 67108864, not '%s'", e);
		cfg->block = (size_t)v;
		cfg->par_min = 0;
	}
	return 0;
}

/* Reads one input into the model. Returns 0, or -1 with a message added;
 * a binary file found by a directory walk is skipped with a note. */
static int read_input(struct nccllog *lg, struct input_list *in, size_t i, const struct read_cfg *cfg,
		      struct progress *pr)
{
	size_t max_line = cfg->max_line;
	double timeout = cfg->timeout;
	const char *path = in->paths[i];
	struct input inp;
	if (input_open(&inp, path, "logs", timeout, 0) < 0) {
		if (inp.err == -EBADMSG && read_pickle(lg, in, path) != -EPROTONOSUPPORT)
			return 0; /* a flight-recorder pickle: read, or its error added */
		if (in->from_dir[i] && (inp.err == -EBADMSG || inp.err == -EPROTONOSUPPORT)) {
			report_say(stderr, "nccl-doctor logs: skipping %s", input_error_text(&inp, inp.err) + strlen("cannot read "));
			return 0;
		}
		input_error(in, xstrdup(input_error_text(&inp, inp.err)));
		return -1;
	}
	progress_say(pr, "logs: reading %s", path);
	int file = nccllog_begin_file(lg, strcmp(path, "-") == 0 ? "<stdin>" : path);
	if (file < 0) {
		input_close(&inp);
		input_error(in, xasprintf("too many inputs: '%s' and the rest were not read (limit %d)", path, NL_MAX_FILES));
		return -1;
	}
	if (inp.kind == INPUT_REGULAR && inp.zpid == 0 && cfg->threads > 1) {
		int rc = read_threaded(lg, &inp, file, cfg);
		if (rc != -EAGAIN) {
			input_close(&inp);
			if (rc < 0) {
				input_error(in, xstrdup(input_error_text(&inp, rc)));
				return -1;
			}
			return 0;
		}
	}
	struct linereader lr;
	input_linereader(&inp, &lr, max_line);
	if (inp.kind == INPUT_REGULAR && inp.zpid == 0) {
		/* no copy through read(): a mapping, lines as spans of it (stays
		 * on read() when the file cannot be mapped) */
		off_t at = lseek(inp.fd, 0, SEEK_CUR);
		if (at >= 0)
			linereader_map(&lr, (uint64_t)at, 0);
	}
	const char *line;
	size_t len;
	int rc;
	bool no_newline = false;
	long long base = pr->done, said = 0;
	while ((rc = linereader_next_span(&lr, &line, &len)) > 0) {
		no_newline = lr.no_newline;
		if (pr->out && (long long)lr.bytes - said >= PROGRESS_STEP_BYTES) {
			said = (long long)lr.bytes;
			progress_done(pr, base + said);
			progress_say(pr, "logs: reading %s", path);
		}
		if (lr.may_ctrl) /* never a span: a copy, cleaned in place */
			nccllog_feed(lg, file, (char *)line, len, lr.lineno);
		else
			nccllog_feed_plain(lg, file, line, len, lr.lineno);
	}
	nccllog_end_file(lg, file, lr.lineno, lr.bytes, lr.truncated_lines, no_newline);
	linereader_release(&lr);
	input_close(&inp);
	if (rc < 0) {
		input_error(in, xstrdup(input_error_text(&inp, rc)));
		return -1;
	}
	return 0;
}

/* Inputs with no NCCL line and no failure found in them cannot tell: the
 * headline says so instead of "no failure found" (the analysis's
 * LOG_NO_NCCL_LINES warning stays, exit 1). Not when the analysis ranked
 * a cause with its evidence all the same (a health check's bandwidth line
 * and the command that set NCCL_TOPO_FILE, case 180): the headline names it. */
static void headline_without_nccl(const struct nccllog *lg, struct result *r)
{
	uint64_t lines = 0, nccl = 0;
	for (int i = 0; i < lg->nfiles; i++) {
		lines += lg->files[i].lines;
		nccl += lg->files[i].nccl_lines;
	}
	if (nccl > 0 || lg->fr || lg->insp || result_exit_code(r) >= EXIT_PROBLEM)
		return; /* flight-recorder and Inspector dumps tell without NCCL lines */
	if (r->causes && r->causes->n > 0 && !r->causes->unknown && strcmp(r->causes->v[0].cause, "unknown") != 0) {
		result_set_headline(r, "NCCL logs: %d file%s, %llu line%s, none from NCCL: most likely %s (confidence %.2f)",
				    lg->nfiles, lg->nfiles == 1 ? "" : "s", (unsigned long long)lines, lines == 1 ? "" : "s",
				    r->causes->v[0].cause, r->causes->v[0].confidence);
		return;
	}
	result_set_headline(r, "NCCL logs: %d file%s, %llu line%s: cannot tell — no NCCL lines; rerun the job with "
			    "'d=$(mktemp -d) && NCCL_DEBUG=INFO NCCL_DEBUG_FILE=$d/nccl.%%h.%%p CMD' and run "
			    "'nccl-doctor logs $d'",
			    lg->nfiles, lg->nfiles == 1 ? "" : "s", (unsigned long long)lines, lines == 1 ? "" : "s");
}

/* Bytes read from all inputs. */
static uint64_t bytes_read(const struct nccllog *lg)
{
	uint64_t b = 0;
	for (int i = 0; i < lg->nfiles; i++)
		b += lg->files[i].bytes;
	return b;
}

/* Reads the inputs paths[0..n) into lg. 0 when the analysis can go on;
 * -1 after giving r its error or its "nothing to check" (an input could
 * not be read, nothing was read). */
static int read_all(struct nccllog *lg, char *const *paths, int n, const struct read_cfg *cfg, const struct run_opts *opt,
		    struct result *r)
{
	struct input_list in;
	input_list_init(&in, NL_MAX_FILES + 1, MAX_DIR_DEPTH);
	for (int i = 0; i < n; i++)
		input_list_add(&in, paths[i]);
	/* progress (util/progress.h) for a large input or a directory: the
	 * bytes of the regular files, a line a file and every 64 MiB */
	struct progress pr;
	long long total = 0, *sizes = xcalloc(in.n ? in.n : 1, sizeof(*sizes));
	for (size_t i = 0; i < in.n; i++) {
		struct stat st;
		if (strcmp(in.paths[i], "-") != 0 && stat(in.paths[i], &st) == 0 && S_ISREG(st.st_mode))
			total += sizes[i] = (long long)st.st_size;
	}
	bool large = total >= PROGRESS_MIN_BYTES || in.n >= PROGRESS_MIN_FILES;
	progress_init(&pr, "logs", nd_now_s(),
		      large && progress_wanted(opt->quiet, opt->progress, isatty(STDERR_FILENO)) ? stderr : NULL);
	progress_count(&pr, "bytes", total, nd_now_s());
	long long done = 0;
	for (size_t i = 0; i < in.n; i++) {
		progress_done(&pr, done);
		read_input(lg, &in, i, cfg, &pr);
		done += sizes[i];
	}
	free(sizes);

	int rc = -1;
	if (lg->nfiles == 0 && in.nerr == 0) {
		/* a directory with no log in it: nothing given to read */
		result_set_nothing_to_check(r, "no readable file in the inputs given");
	} else if (in.nerr) {
		/* only the errors, one line each, no report of what was read;
		 * the result carries the first */
		for (size_t i = 1; i < in.nerr; i++)
			report_say(stderr, "nccl-doctor logs: %s", in.errors[i]);
		result_set_error(r, "%s", in.errors[0]);
	} else if (bytes_read(lg) == 0) {
		/* an empty input is no evidence of a healthy run */
		char why[600];
		if (lg->nfiles == 1)
			snprintf(why, sizeof(why), "nothing was read: '%.500s' is empty", lg->files[0].name);
		else
			snprintf(why, sizeof(why), "nothing was read: the %d inputs are empty", lg->nfiles);
		result_set_nothing_to_check(r, why);
	} else
		rc = 0;
	input_list_release(&in);
	return rc;
}

/* The facts of the machine the logs came from (--sysroot): what sys reads
 * of it for P2P, /dev/shm, the network and NCCL_NET, through the machine
 * model (collect/); the analysis weighs its causes with them
 * (analyze/logs/rules/host.c). No driver and no kernel log: NVLink and Xids
 * stay unknown. */
void logs_host_join(struct nccllog *lg, const char *origin)
{
	struct machine m;
	machine_init(&m);
	collect_pci(&m);
	collect_iommu(&m);
	collect_host(&m);
	collect_net(&m);
	collect_env(&m);
	host_hint_from_machine(&m, -1, origin, &lg->host);
	machine_release(&m);
}

void logs_host_from_sysroot(struct nccllog *lg, const char *sysroot)
{
	char origin[96];
	snprintf(origin, sizeof(origin), "the machine of sysroot %.70s", sysroot);
	logs_host_join(lg, origin);
}

int logs_read_inputs(struct nccllog *lg, char *const *paths, int n, const struct run_opts *opt, struct result *r)
{
	struct read_cfg cfg = { .max_line = DEFAULT_MAX_LINE, .timeout = INPUT_TIMEOUT_DEFAULT,
				.threads = threads_default(), .par_min = PAR_MIN_BYTES };
	return read_all(lg, paths, n, &cfg, opt, r);
}

int cmd_logs(int argc, char **argv, const struct run_opts *opt)
{
	struct read_cfg cfg = { .max_line = DEFAULT_MAX_LINE, .timeout = INPUT_TIMEOUT_DEFAULT,
				.threads = threads_default(), .par_min = PAR_MIN_BYTES };
	long long max_line = DEFAULT_MAX_LINE, threads_opt = 0;
	const char *snapshot = NULL;
	const struct opt_spec opts[] = {
		OPT_STRING("snapshot", 0, &snapshot, "the archive `snapshot` wrote on the machine the logs came from"),
		OPT_INT("max-line", 0, &max_line, 256, 64 * 1024 * 1024, "the longest line kept whole, in bytes"),
		INPUT_TIMEOUT_OPTION(&cfg.timeout),
		OPT_INT("threads", 0, &threads_opt, 1, MAX_THREADS, "threads reading one large file"),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("logs", argc, argv, opts, OPT_STOP_AT_ARG, usage, &next);
	if (rc >= 0)
		return rc;
	cfg.max_line = (size_t)max_line;
	if (read_env(&cfg) != 0)
		return EXIT_USAGE;
	if (threads_opt)
		cfg.threads = (int)threads_opt;
	if (next >= argc)
		return cmd_usage_error("logs", "no log given: name files, directories, globs or '-' for stdin");
	int nstdin = 0;
	for (int i = next; i < argc; i++)
		nstdin += strcmp(argv[i], "-") == 0;
	if (nstdin > 1)
		return cmd_usage_error("logs", "'-' (standard input) can be given once");
	if (snapshot && strcmp(snapshot, "-") == 0 && nstdin)
		return cmd_usage_error("logs", "'-' (standard input) can be given once: --snapshot - and a log from '-'");
	if (snapshot && opt->sysroot)
		return cmd_usage_error("logs", "--snapshot FILE and --sysroot DIR both name the machine: give one");

	struct nccllog lg;
	nccllog_init(&lg);
	struct result *r = result_new("logs");
	if (read_all(&lg, argv + next, argc - next, &cfg, opt, r) == 0 &&
	    (!snapshot || logs_host_from_snapshot(&lg, snapshot, cfg.timeout, r) == 0)) {
		if (opt->sysroot)
			logs_host_from_sysroot(&lg, opt->sysroot);
		nccllog_analyze(&lg, r);
		headline_without_nccl(&lg, r);
	}
	nccllog_release(&lg);
	return cmd_finish(r, opt);
}
