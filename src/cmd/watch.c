/* nccl-doctor watch -- CMD ...: runs the user's own job under supervision.
 *
 * The job runs in its own process group with its output passed through byte
 * for byte (run/supervise.h). NCCL_DEBUG=INFO (unless the user set
 * NCCL_DEBUG) and NCCL_DEBUG_FILE (one file per process in a private
 * directory) are added to its environment; those files and the job's own
 * output are read as they grow with the `logs` parser, so the stage of each
 * rank is known while it runs. When nothing new arrives for --stall seconds
 * while the job lives, the diagnosis goes to stderr: the stage each rank
 * reached, the job's processes (state, wait channel, CPU, which loaded NCCL),
 * the rendezvous ports they listen on and how many peers connected, and the
 * ranked causes from the logs; with the GPU use per process, the kernel log
 * since the start and NCCL's RAS status (cmd/watch_int.h lists those parts).
 * The exit status is the job's. */
#include "analyze/nccllog.h"
#include "cmd/cmd.h"
#include "cmd/watch_int.h"
#include "cmd/watch_ras.h"
#include "kb/findings.h"
#include "probe/proc.h"
#include "report/report.h"
#include "run/supervise.h"
#include "util/outfile.h"
#include "util/privdir.h"
#include "util/strbuf.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WATCH_LINE_MAX 65536
#define WATCH_MAX_FILES 4096   /* NCCL log files followed */
#define WATCH_MAX_NAMES 65536  /* names of the log directory remembered (followed, stale, not read) */
#define WATCH_MAX_PIDS 512
#define WATCH_MAX_SOCKS 8192

enum on_stall { ON_STALL_REPORT, ON_STALL_KILL, ON_STALL_KEEP };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor watch [options] -- CMD [ARGS...]\n"
		"\n"
		"Runs CMD (vllm serve, torchrun, python ...) with its output passed through\n"
		"unchanged, follows its NCCL start-up per rank, and when it stalls prints on\n"
		"stderr where each rank is stuck and why. Exits with CMD's status.\n"
		"\n"
		"options:\n"
		"  --stall SEC        no new output or progress for SEC seconds while the job\n"
		"                     runs is a stall (default 60)\n"
		"  --on-stall WHAT    report: print the diagnosis and keep the job (default);\n"
		"                     kill: print it and stop the job; keep: print nothing\n"
		"                     while it runs (the diagnosis goes to --json and the summary)\n"
		"  --json=FILE        write the diagnosis as JSON to FILE at a stall and at exit\n"
		"                     (a healthy exit too; checked before the job starts; written\n"
		"                     to a temporary renamed into place, 0600 as root; stdout\n"
		"                     belongs to the job, so there is no JSON on stdout)\n"
		"  --log-dir DIR      keep NCCL's per-process log files in DIR (default: a\n"
		"                     private directory removed at exit); DIR is made (0700)\n"
		"                     when missing, else it must be yours and not writable by\n"
		"                     group or others; files it held before the start are\n"
		"                     not read\n"
		"  --user NAME        run CMD as NAME (needs root): `sudo nccl-doctor watch\n"
		"                     --user \"$SUDO_USER\" -- CMD`; without it CMD runs as you\n"
		"                     (as root under sudo)\n"
		"  --nccl-diag        set NCCL_RUN_DIAGNOSTICS=1 when the libnccl the job loads\n"
		"                     is 2.31 or newer (it tests every GPU pair at init; the\n"
		"                     version is read from the library: --nccl PATH names it)\n"
		"  --kernel-log FILE  follow FILE (a kern.log, or a FIFO) for Xid, AER and IOMMU\n"
		"                     events instead of /dev/kmsg, which may need root\n"
		"  --retry-with-fix   after the first stall, stop the job, run the fix search on\n"
		"                     its GPUs (its CUDA_VISIBLE_DEVICES, else those it used)\n"
		"                     and run it once more with the configuration measured to\n"
		"                     work; not when a rank is missing or dead, nor when NCCL\n"
		"                     works as given or nothing works\n"
		"  --retry-budget SEC the most the search may take (default 120)\n"
		"  --retry-fix-args \"ARGS\"  fix's search options for it: --max-bytes SIZE,\n"
		"                     --all, --force, --quiet\n"
		"  -h, --help         this help\n"
		"\n"
		"The job's environment gets NCCL_DEBUG=INFO (your value wins),\n"
		"NCCL_DEBUG_FILE=DIR/nccl.%%h.%%p (unless you set it: then only the job's\n"
		"output is read) and PYTHONUNBUFFERED=1 (your value wins), so that output\n"
		"arrives as it is written. At a stall it also reads the kernel log since the\n"
		"start, the GPU memory and utilisation of the job's processes (NVML, in a\n"
		"worker process), and asks NCCL's RAS service (NCCL 2.24+) for its status;\n"
		"with NCCL 2.29+ it follows RAS's event stream during the whole run and says\n"
		"at once when RAS declares a process of the job dead.\n"
		"SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed to the job's process group; a\n"
		"second SIGINT kills it; SIGTSTP stops the job and watch, SIGCONT continues\n"
		"both. Watch ends when CMD's main process ends (what its pipes still hold is\n"
		"passed on for at most 2 s; processes it left running are named, no longer\n"
		"followed); a signal then ends watch at once. When watch is killed, the job's\n"
		"process group is stopped (SIGTERM, then SIGKILL) and the private directory\n"
		"removed.\n"
		"exit status: CMD's status (128+N when a signal N ended it); 64 bad usage;\n"
		"127 CMD not found; 3 the job could not be started\n");
}

/* One input followed as it grows: a stream of the job or a log file. */
struct follow {
	int file;                /* nccllog input index */
	char *path;              /* log files: the name in the log directory; streams: NULL */
	off_t off;
	struct strbuf partial;   /* the unfinished last line */
	uint64_t lineno, bytes, cut;
	bool overlong;           /* the current line passed WATCH_LINE_MAX */
};

/* A name in the log directory: followed (files[idx]), there before the
 * start (stale, with its inode: not read while it is the same file), or not
 * read (not a regular file of the job's user; past WATCH_MAX_FILES). */
enum name_kind { NAME_FOLLOWED, NAME_STALE, NAME_REFUSED, NAME_LEFT_OUT };
struct name_ent {
	char *name;
	unsigned long ino;
	enum name_kind kind;
	int idx;
};

struct watch {
	struct nccllog lg;
	struct follow streams[2];
	struct follow *files;    /* the NCCL log files followed, at most WATCH_MAX_FILES */
	int nfiles;
	size_t afiles;
	struct name_ent *names;  /* open addressing: nnames of snames slots used */
	size_t nnames, snames;
	bool names_full;         /* the directory held more than we remember at the start */
	struct timespec t_start_real; /* for the files of a directory too full to remember */
	int nstale, nrefused, nleft, nover; /* names not read, said in the diagnosis */
	struct privdir dir;      /* the log directory, opened once: every file is read through it */
	bool own_dir;
	uid_t job_uid;           /* only its regular files are read */
	double t_start, t_activity, t_stall_reported;
	bool stalled_now;
	int nstalls;
	struct sup job;
	/* CPU samples for percentages */
	int cpu_pid[WATCH_MAX_PIDS];
	unsigned long long cpu_ticks[WATCH_MAX_PIDS];
	int ncpu;
	double t_cpu;
	struct watch_gpu gpu;
	struct watch_kmsg km;
	struct watch_ras ras;    /* RAS's MONITOR stream (NCCL 2.29+) */
	bool diag_pending;       /* a stall waits for its GPU sample */
	double t_diag_due, t_gpu_next;
	/* the job's start, kept for --retry-with-fix */
	struct sup_spec spec;
	const char *set[WRETRY_MAX_ENV + 6];
	bool user_set;           /* --user: the job runs as pw */
	struct passwd pw;
	char pwbuf[16384];
	struct sup_user user;
	gid_t *groups;
	char user_env[3][4200];  /* HOME, USER, LOGNAME of --user */
	struct watch_retry retry;
	bool retried;
	json_t *last_stall;      /* the last stall's diagnosis, kept for the exit's --json */
};

/* Signals. SIGINT, SIGTERM, SIGHUP and SIGQUIT are noted here and acted on
 * by the loop: passed to the job's group while its main process lives, else
 * they end watch. SIGTSTP and SIGCONT act here, wherever watch is (a stall's
 * search, stopping the job): SIGTSTP is passed to the job's group and watch
 * stops itself with SIGSTOP (the two stop together, whatever process group
 * watch is in: a shell's `fg`/`bg` or a SIGCONT continues it), SIGCONT is
 * passed on. g_job_pgid is the job's group while its main process is not
 * reaped (run/supervise.h: its id cannot be given to another process
 * before), 0 otherwise: a bare pid is never signalled after reaping. */
static volatile sig_atomic_t got_signal, got_sigint_count, got_cont, g_job_pgid;

static void on_signal(int sig)
{
	int saved = errno;
	pid_t pg = (pid_t)g_job_pgid;
	if (sig == SIGTSTP) {
		if (pg > 0)
			kill(-pg, SIGTSTP);
		kill(getpid(), SIGSTOP);
	} else if (sig == SIGCONT) {
		if (pg > 0)
			kill(-pg, SIGCONT);
		got_cont = 1;
	} else {
		got_signal = sig;
		if (sig == SIGINT)
			got_sigint_count++;
	}
	errno = saved;
}

/* The job started (sup_start) or about to be reaped (sup_release). */
static void job_started(const struct sup *job)
{
	g_job_pgid = job->pid > 0 ? job->pid : 0;
}

static void job_release(struct sup *job)
{
	g_job_pgid = 0;
	sup_release(job);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- incremental line feeding --------------------------------------- */

static void feed_line(struct watch *w, struct follow *f, char *line, size_t len)
{
	f->lineno++;
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	nccllog_feed(&w->lg, f->file, line, len, f->lineno);
}

/* Splits data into lines; an unfinished line waits in f->partial (cut at
 * WATCH_LINE_MAX: the rest of an over-long line is dropped). */
static void feed_bytes(struct watch *w, struct follow *f, const char *data, size_t n)
{
	f->bytes += n;
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		if (!f->overlong) {
			size_t room = WATCH_LINE_MAX - f->partial.len;
			size_t add = take < room ? take : room;
			strbuf_add(&f->partial, data, add);
			if (add < take) {
				f->overlong = true;
				f->cut++;
			}
		}
		if (!nl)
			return;
		char empty[1] = "";
		feed_line(w, f, f->partial.buf ? f->partial.buf : empty, f->partial.len);
		strbuf_reset(&f->partial);
		f->overlong = false;
		data = nl + 1;
		n -= take + 1;
	}
}

static void on_output(void *ctx, int stream, const char *data, size_t n)
{
	struct watch *w = ctx;
	w->t_activity = now_s();
	feed_bytes(w, &w->streams[stream - 1], data, n);
}

/* ---- the log directory's files -------------------------------------------- */

static size_t name_hash(const char *n)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *n; n++)
		h = (h ^ (unsigned char)*n) * 1099511628211ULL;
	return (size_t)h;
}

static struct name_ent *name_find(struct watch *w, const char *name)
{
	if (!w->snames)
		return NULL;
	size_t m = w->snames - 1;
	for (size_t i = name_hash(name) & m;; i = (i + 1) & m) {
		if (!w->names[i].name)
			return NULL;
		if (strcmp(w->names[i].name, name) == 0)
			return &w->names[i];
	}
}

/* A new name; NULL when WATCH_MAX_NAMES are remembered. */
static struct name_ent *name_add(struct watch *w, const char *name, enum name_kind kind, unsigned long ino)
{
	if (w->nnames >= WATCH_MAX_NAMES)
		return NULL;
	if ((w->nnames + 1) * 2 > w->snames) {
		size_t ns = w->snames ? w->snames * 2 : 64;
		struct name_ent *t = xcalloc(ns, sizeof(*t));
		for (size_t i = 0; i < w->snames; i++)
			if (w->names[i].name) {
				size_t k = name_hash(w->names[i].name) & (ns - 1);
				while (t[k].name)
					k = (k + 1) & (ns - 1);
				t[k] = w->names[i];
			}
		free(w->names);
		w->names = t;
		w->snames = ns;
	}
	size_t k = name_hash(name) & (w->snames - 1);
	while (w->names[k].name)
		k = (k + 1) & (w->snames - 1);
	w->names[k] = (struct name_ent){ .name = xstrdup(name), .ino = ino, .kind = kind, .idx = -1 };
	w->nnames++;
	return &w->names[k];
}

/* A directory stream of the log directory, from its start. */
static DIR *open_dir(struct watch *w)
{
	int fd = openat(w->dir.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* At the start: what the directory holds already is stale (an earlier run's
 * files, or planted ones): remembered by name and inode, never read. */
static void note_stale(struct watch *w)
{
	clock_gettime(CLOCK_REALTIME, &w->t_start_real);
	DIR *d = open_dir(w);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* half the names at most: room for the job's own */
		if (w->nnames >= WATCH_MAX_NAMES / 2 || !name_add(w, e->d_name, NAME_STALE, (unsigned long)e->d_ino)) {
			w->names_full = true;
			continue;
		}
		w->nstale++;
	}
	if (d)
		closedir(d);
}

static bool job_file(const struct watch *w, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == w->job_uid;
}

/* What a name not seen before (or a stale file replaced) is: -1 when it
 * is gone again. */
static int judge(struct watch *w, const char *name)
{
	struct stat st;
	if (fstatat(w->dir.fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!job_file(w, &st))
		return NAME_REFUSED;
	/* a name not remembered at the start (too many) and unchanged since */
	if (w->names_full && (st.st_ctim.tv_sec < w->t_start_real.tv_sec ||
			      (st.st_ctim.tv_sec == w->t_start_real.tv_sec && st.st_ctim.tv_nsec < w->t_start_real.tv_nsec)))
		return NAME_STALE;
	return w->nfiles >= WATCH_MAX_FILES ? NAME_LEFT_OUT : NAME_FOLLOWED;
}

static void count_name(struct watch *w, int kind, int d)
{
	if (kind == NAME_STALE)
		w->nstale += d;
	else if (kind == NAME_REFUSED)
		w->nrefused += d;
	else if (kind == NAME_LEFT_OUT)
		w->nleft += d;
}

static struct follow *follow_add(struct watch *w, struct name_ent *ne)
{
	XGROW(w->files, w->afiles, w->nfiles + 1);
	struct follow *f = &w->files[w->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(ne->name);
	strbuf_init(&f->partial, WATCH_LINE_MAX + 1);
	f->file = nccllog_begin_file(&w->lg, ne->name);
	ne->kind = NAME_FOLLOWED;
	ne->idx = w->nfiles++;
	return f;
}

/* The follow of a directory entry; NULL when it is not read. */
static struct follow *entry_follow(struct watch *w, const struct dirent *e, int *over)
{
	unsigned long ino = (unsigned long)e->d_ino;
	struct name_ent *ne = name_find(w, e->d_name);
	if (ne && ne->kind == NAME_STALE && ne->ino != ino) {
		int k = judge(w, e->d_name); /* the stale file was replaced */
		if (k < 0)
			return NULL;
		count_name(w, NAME_STALE, -1);
		count_name(w, k, 1);
		ne->kind = (enum name_kind)k;
		ne->ino = ino;
		return k == NAME_FOLLOWED ? follow_add(w, ne) : NULL;
	}
	if (ne)
		return ne->kind == NAME_FOLLOWED ? &w->files[ne->idx] : NULL;
	int k = judge(w, e->d_name);
	if (k < 0)
		return NULL;
	ne = name_add(w, e->d_name, (enum name_kind)k, ino);
	if (!ne) {
		*over += k == NAME_FOLLOWED || k == NAME_LEFT_OUT;
		return NULL;
	}
	count_name(w, k, 1);
	return k == NAME_FOLLOWED ? follow_add(w, ne) : NULL;
}

/* Reads what the NCCL log files gained since the last look: regular files
 * of the job's user in the log directory, through its fd, never a link. */
static void poll_files(struct watch *w)
{
	if (w->dir.fd < 0)
		return;
	DIR *d = open_dir(w);
	if (!d)
		return;
	int over = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		struct follow *f = entry_follow(w, e, &over);
		struct stat st;
		if (!f || fstatat(w->dir.fd, f->path, &st, AT_SYMLINK_NOFOLLOW) < 0 || !job_file(w, &st) ||
		    st.st_size <= f->off)
			continue;
		int fd = openat(w->dir.fd, f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && job_file(w, &st) && st.st_size > f->off) {
			char buf[65536];
			ssize_t got;
			while ((got = pread(fd, buf, sizeof(buf), f->off)) > 0) {
				f->off += got;
				w->t_activity = now_s();
				feed_bytes(w, f, buf, (size_t)got);
			}
		}
		close(fd);
	}
	closedir(d);
	w->nover = over;
}

/* The diagnosis says which files of the log directory it did not read. */
static void add_dir_notes(const struct watch *w, struct result *r)
{
	if (!w->nstale && !w->nrefused && !w->nleft && !w->nover)
		return;
	struct section *s = result_section(r, "inputs", "Inputs");
	if (w->nstale)
		section_note(s, "%d file%s that '%s' held before the job started %s not read (stale)", w->nstale,
			     w->nstale == 1 ? "" : "s", w->dir.path, w->nstale == 1 ? "was" : "were");
	if (w->nrefused)
		section_note(s, "%d entr%s of '%s' %s not read: not a regular file of the job's user (uid %u)", w->nrefused,
			     w->nrefused == 1 ? "y" : "ies", w->dir.path, w->nrefused == 1 ? "was" : "were",
			     (unsigned)w->job_uid);
	if (w->nleft + w->nover)
		section_note(s, "%d NCCL log file%s past the first %d of '%s' %s not read", w->nleft + w->nover,
			     w->nleft + w->nover == 1 ? "" : "s", WATCH_MAX_FILES, w->dir.path,
			     w->nleft + w->nover == 1 ? "was" : "were");
}

/* ---- the diagnosis ------------------------------------------------------ */

static double cpu_percent(struct watch *w, const struct proc_info *pi, double dt)
{
	unsigned long long t = pi->utime + pi->stime;
	long hz = sysconf(_SC_CLK_TCK);
	for (int i = 0; i < w->ncpu; i++)
		if (w->cpu_pid[i] == pi->pid) {
			double pct = dt > 0 && hz > 0 ? 100.0 * (double)(t - w->cpu_ticks[i]) / hz / dt : -1;
			w->cpu_ticks[i] = t;
			return pct;
		}
	if (w->ncpu < WATCH_MAX_PIDS) {
		w->cpu_pid[w->ncpu] = pi->pid;
		w->cpu_ticks[w->ncpu++] = t;
	}
	return -1;
}

/* The logs' view of a pid: its rank and stage, when it wrote NCCL lines. */
static const struct nl_proc *log_proc(const struct nccllog *lg, int pid)
{
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].pid == pid)
			return &lg->procs[i];
	return NULL;
}

/* Returns how many mapped a GPU library (libcuda, libcudart or libnccl). */
static int add_processes(struct watch *w, struct result *r, int *pids, int npids, int *nranks, int *nvllm)
{
	static const struct column cols[] = {
		{ "pid", "pid", 0 },           { "command", "command", 0 }, { "state", "state", 0 },
		{ "wchan", "waiting in", 0 },  { "cpu_percent", "CPU %", 0 }, { "threads", "threads", 0 },
		{ "rank", "rank", 0 },         { "stage", "stage", 0 },     { "role", "role", 0 },
		{ "nccl", "libnccl", 0 },
	};
	struct section *s = result_section(r, "processes", "Processes of the job");
	struct table *t = section_table(s, "processes", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	double now = now_s(), dt = w->t_cpu > 0 ? now - w->t_cpu : 0;
	w->t_cpu = now;
	*nranks = *nvllm = 0;
	int ngpu = 0, vllm_pid[64], nv = 0;
	for (int i = 0; i < npids; i++) {
		struct proc_info pi;
		if (proc_read(pids[i], &pi) < 0)
			continue;
		bool gpu = pi.nccl || pi.cudart || pi.libcuda;
		/* vLLM's workers are spawned Python processes whose command line
		 * does not say vLLM: a GPU child of a vLLM process is one */
		for (int k = 0; k < nv && !pi.role[0]; k++)
			if (vllm_pid[k] == pi.ppid && gpu)
				str_copy(pi.role, "vLLM worker", sizeof(pi.role));
		if (str_startswith(pi.role, "vLLM") && nv < 64)
			vllm_pid[nv++] = pi.pid;
		const struct nl_proc *lp = log_proc(&w->lg, pi.pid);
		if (!gpu && !lp && !pi.role[0] && i > 0)
			continue; /* a helper process of no interest (shell, pipe) */
		*nranks += pi.nccl || lp;
		ngpu += gpu;
		*nvllm += strcmp(pi.role, "vLLM worker") == 0;
		size_t row = table_add_row(t);
		table_set(t, row, "pid", val_int(pi.pid));
		table_set(t, row, "command", val_str(pi.comm));
		table_set(t, row, "state", val_strf("%c", pi.state));
		table_set(t, row, "wchan", pi.wchan[0] ? val_str(pi.wchan) : val_none());
		double pct = cpu_percent(w, &pi, dt);
		table_set(t, row, "cpu_percent", pct >= 0 ? val_double(round(pct)) : val_unknown("first sample"));
		table_set(t, row, "threads", val_int(pi.threads));
		const struct nl_comm *c = lp ? nl_proc_main_comm(lp) : NULL;
		table_set(t, row, "rank", c && c->rank >= 0 ? val_int(c->rank) : val_none());
		if (lp) {
			int st = nl_proc_stage(lp);
			table_set(t, row, "stage", st >= 0 ? val_strf("T%d %s", st, nccl_stage_name(st)) : val_none());
		}
		table_set(t, row, "role", pi.role[0] ? val_str(pi.role) : val_none());
		table_set(t, row, "nccl", pi.nccl ? val_str(pi.nccl_path) : val_none());
	}
	return ngpu;
}

/* The job's listening TCP ports and how many connections reached each. */
struct listening {
	int pid;
	char addr[64];
	unsigned port;
	int connected;
};

static int find_listening(const int *pids, int npids, struct listening *out, int max)
{
	static struct tcp_sock socks[WATCH_MAX_SOCKS];
	int ns = proc_net_tcp(socks, WATCH_MAX_SOCKS), n = 0;
	for (int i = 0; i < npids && ns > 0; i++) {
		unsigned long ino[256];
		int ni = proc_socket_inodes(pids[i], ino, 256);
		for (int k = 0; k < ni; k++)
			for (int j = 0; j < ns && n < max; j++) {
				if (socks[j].inode != ino[k] || socks[j].state != TCP_LISTEN)
					continue;
				struct listening *l = &out[n++];
				l->pid = pids[i];
				str_copy(l->addr, socks[j].local, sizeof(l->addr));
				l->port = socks[j].lport;
				l->connected = 0;
				for (int m = 0; m < ns; m++)
					l->connected += socks[m].state == TCP_ESTABLISHED && socks[m].lport == socks[j].lport;
			}
	}
	return n;
}

static void add_sockets(struct result *r, const struct listening *ls, int n)
{
	static const struct column cols[] = {
		{ "pid", "pid", 0 }, { "address", "listening on", 0 }, { "connected", "connections", 0 },
	};
	if (n == 0)
		return;
	struct table *t = section_table(result_section(r, "sockets", "Listening sockets of the job"), "listening", NULL,
					cols, 3);
	for (int i = 0; i < n; i++) {
		size_t row = table_add_row(t);
		table_set(t, row, "pid", val_int(ls[i].pid));
		bool v6 = strchr(ls[i].addr, ':') != NULL;
		table_set(t, row, "address", val_strf("%s%s%s:%u", v6 ? "[" : "", ls[i].addr, v6 ? "]" : "", ls[i].port));
		table_set(t, row, "connected", val_int(ls[i].connected));
	}
}

/* torch.distributed / torchrun: the world the ranks expect (RANK, WORLD_SIZE,
 * MASTER_PORT of their environment) against the ranks running here and the
 * connections their rendezvous store received. */
static void add_rendezvous(struct result *r, const int *pids, int npids, const struct listening *ls, int nls)
{
	long long world = 0, local_world = 0, port = 0;
	bool seen[1024] = { false };
	int nseen = 0;
	for (int i = 0; i < npids; i++) {
		char v[64];
		long long rank, ws;
		if (proc_environ_get(pids[i], "RANK", v, sizeof(v)) < 0 || parse_ll(v, 10, &rank) < 0 ||
		    proc_environ_get(pids[i], "WORLD_SIZE", v, sizeof(v)) < 0 || parse_ll(v, 10, &ws) < 0 || rank < 0 ||
		    rank >= 1024 || ws < 1)
			continue;
		if (ws > world)
			world = ws;
		if (proc_environ_get(pids[i], "LOCAL_WORLD_SIZE", v, sizeof(v)) == 0)
			parse_ll(v, 10, &local_world);
		if (proc_environ_get(pids[i], "MASTER_PORT", v, sizeof(v)) == 0)
			parse_ll(v, 10, &port);
		if (!seen[rank]) {
			seen[rank] = true;
			nseen++;
		}
	}
	if (world <= 1 || nseen >= world)
		return;
	const struct listening *store = NULL;
	for (int i = 0; i < nls && !store; i++)
		if (port > 0 && ls[i].port == (unsigned)port)
			store = &ls[i];
	/* all ranks on this node but some not running, or the store (held here)
	 * with fewer connections than the world: either way ranks are missing */
	bool all_local = local_world >= world || local_world == 0;
	if (!(all_local || (store && store->connected < world)))
		return;
	char missing[256] = "";
	size_t off = 0;
	for (long long k = 0; k < world && k < 1024 && off + 8 < sizeof(missing); k++)
		if (!seen[k])
			off += (size_t)snprintf(missing + off, sizeof(missing) - off, "%s%lld", off ? "," : "", k);
	struct finding *f = finding_add(r, FID_WATCH_RANKS_NOT_STARTED, SEV_ERROR,
					       "the rendezvous waits: %d of %lld ranks run%s; rank%s %s not running%s",
					       nseen, world, all_local ? " on this node" : " here", strchr(missing, ',') ? "s" : "",
					       missing, all_local ? "" : " here");
	finding_evidence(f, NULL, 0, "WORLD_SIZE=%lld in the job's environment; ranks running: %d", world, nseen);
	if (store)
		finding_evidence(f, NULL, 0, "the store at %s%s%s:%u (pid %d) has %d connection%s for %lld ranks",
				 strchr(store->addr, ':') ? "[" : "", store->addr, strchr(store->addr, ':') ? "]" : "",
				 store->port, store->pid, store->connected, store->connected == 1 ? "" : "s", world);
	else if (port > 0)
		finding_evidence(f, NULL, 0, "MASTER_PORT=%lld is not a port this job listens on: the store is elsewhere", port);
}

/* Tells the parser how far each input got (its line counts, an unfinished line). */
static void sync_inputs(struct watch *w)
{
	for (int k = 0; k < 2; k++) {
		struct follow *f = &w->streams[k];
		nccllog_end_file(&w->lg, f->file, f->lineno, f->bytes, f->cut, f->partial.len > 0);
	}
	for (int i = 0; i < w->nfiles; i++) {
		struct follow *f = &w->files[i];
		nccllog_end_file(&w->lg, f->file, f->lineno, f->bytes, f->cut, f->partial.len > 0);
	}
}

/* The NCCL versions the logs show, for the RAS check. */
static int log_versions(const struct nccllog *lg, const char **out, int max)
{
	int n = 0;
	for (int i = 0; i < lg->nprocs && n < max; i++)
		if (lg->procs[i].version[0])
			out[n++] = lg->procs[i].version;
	return n;
}

static struct result *diagnose(struct watch *w, bool at_exit)
{
	sync_inputs(w);
	struct result *r = result_new("watch");
	int pids[WATCH_MAX_PIDS], npids = 0, nranks = 0, nvllm = 0;
	if (!w->job.exited)
		npids = proc_tree(w->job.pid, pids, WATCH_MAX_PIDS);
	/* the kernel's events first: an Xid during the stall outranks what
	 * the logs say at the same severity (the order of findings is stable) */
	wkmsg_read(&w->km, 1.0);
	wkmsg_add(&w->km, r);
	wras_add(&w->ras, r, now_s());
	uint64_t nccl_lines = 0;
	for (int i = 0; i < w->lg.nfiles; i++)
		nccl_lines += w->lg.files[i].nccl_lines;
	/* without NCCL lines the logs analysis would only advise NCCL_DEBUG=INFO,
	 * which watch already set: the job has not reached NCCL yet */
	if (nccl_lines)
		nccllog_analyze(&w->lg, r);
	add_dir_notes(w, r);
	if (npids > 0) {
		static struct listening ls[64];
		int nls = find_listening(pids, npids, ls, 64);
		if (add_processes(w, r, pids, npids, &nranks, &nvllm) > 0)
			wgpu_add(&w->gpu, r, pids, npids, !at_exit);
		add_sockets(r, ls, nls);
		add_rendezvous(r, pids, npids, ls, nls);
		if (!at_exit) {
			const char *vers[64];
			int nv = log_versions(&w->lg, vers, 64);
			wnccl_ras_add(r, pids, npids, vers, nv);
			struct finding *f = finding_add(r, FID_WATCH_STALL, SEV_WARNING,
							       "no new output or NCCL progress for %.0f s", now_s() - w->t_activity);
			finding_evidence(f, NULL, 0, "the job has run %.0f s; %d process%s loaded NCCL", now_s() - w->t_start,
					 nranks, nranks == 1 ? "" : "es");
			if (nvllm)
				finding_evidence(f, NULL, 0,
						 "%d vLLM worker process%s (vLLM removes NCCL's async error handling from "
						 "its workers: nothing of its own reports this hang)", nvllm, nvllm == 1 ? "" : "es");
			if (!nccl_lines)
				finding_evidence(f, NULL, 0,
						 "no NCCL line yet (NCCL_DEBUG=INFO is set): the job waits before NCCL init "
						 "(rendezvous, model loading, or a rank that never started)");
		}
	}
	cmd_order(r);
	double quiet = now_s() - w->t_activity;
	if (at_exit)
		result_set_headline(r, "the job ended with status %d after %.0f s", sup_exit_code(&w->job),
				    now_s() - w->t_start);
	else
		result_set_headline(r, "no new output for %.0f s after %.0f s of run; %d process%s with NCCL", quiet,
				    now_s() - w->t_start, nranks, nranks == 1 ? "" : "es");
	return r;
}

static void write_json(struct watch *w, const char *path, struct result *r, bool at_exit)
{
	if (!path)
		return;
	json_t *j = report_json(r);
	json_object_set_new(j, "stalls", json_integer(w->nstalls));
	if (at_exit && w->last_stall) /* the exit's summary replaces the file: keep what the stall said */
		json_object_set(j, "last_stall", w->last_stall);
	wretry_json(&w->retry, j, w->job.exited ? sup_exit_code(&w->job) : -1);
	/* a private temporary renamed into place (util/outfile.h): never written
	 * through a planted link or FIFO; as root it can hold the kernel log's
	 * events and the job's processes: 0600 */
	char *text = json_dumps(j, JSON_INDENT(2));
	char err[4400];
	if (!text || outfile_write_all(path, geteuid() == 0 ? 0600 : 0644, text, strlen(text), err, sizeof(err)) < 0)
		cmd_say(stderr, "nccl-doctor watch: %s", text ? err : "cannot write the JSON document: out of memory");
	free(text);
	json_decref(j);
}

/* ---- set-up ------------------------------------------------------------- */

/* The log directory: --log-dir DIR (made when missing, else checked: the
 * invoking user's or the job's, not writable by group or others, nor the
 * directories above it by someone else), or a fresh private one in $TMPDIR.
 * Prints why it cannot be used; false then. */
static bool make_dir(struct watch *w, const char *log_dir, const struct passwd *user)
{
	struct privdir_trust t = { { geteuid(), user ? user->pw_uid : (uid_t)-1 } };
	char why[4400] = "";
	int made = 0, r;
	if (log_dir) {
		r = privdir_open(&w->dir, log_dir, &t, &made, why, sizeof(why));
		if (r == 0 && !made && user && w->dir.owner != user->pw_uid) {
			fprintf(stderr, "nccl-doctor watch: cannot use '%s' as the log directory: it belongs to uid %u and the "
				"job runs as %s (give it one of %s's, or leave --log-dir out)\n", log_dir, (unsigned)w->dir.owner,
				user->pw_name, user->pw_name);
			privdir_close(&w->dir);
			return false;
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !*tmp)
			tmp = "/tmp";
		char tmpl[4200];
		if (snprintf(tmpl, sizeof(tmpl), "%s/nccl-doctor-watch.XXXXXX", tmp) >= (int)sizeof(tmpl))
			r = -ENAMETOOLONG;
		else
			r = privdir_make_temp(&w->dir, tmpl, &t, why, sizeof(why));
		made = r == 0;
		w->own_dir = r == 0;
	}
	if (r < 0) {
		fprintf(stderr, "nccl-doctor watch: cannot use %s%s%s as the log directory: %s\n", log_dir ? "'" : "a directory in $TMPDIR",
			log_dir ? log_dir : "", log_dir ? "'" : "", why[0] ? why : strerror(-r));
		return false;
	}
	/* made for a job of another user: its, still private */
	if (made && user && fchown(w->dir.fd, user->pw_uid, user->pw_gid) < 0) {
		cmd_say(stderr, "nccl-doctor watch: cannot give '%s' to %s: %s", w->dir.path, user->pw_name, strerror(errno));
		if (w->own_dir)
			privdir_remove(w->dir.fd, w->dir.path);
		privdir_close(&w->dir);
		return false;
	}
	if (!made)
		note_stale(w);
	return true;
}

static void remove_dir(struct watch *w)
{
	if (w->own_dir)
		privdir_remove(w->dir.fd, w->dir.path);
	privdir_close(&w->dir);
}

/* --user NAME (or a uid): the job runs as that user, with its groups and
 * its HOME, USER and LOGNAME. Returns -1 to go on, else the exit status
 * (said on stderr): 64 no such user, 3 not root. */
static int resolve_user(struct watch *w, const char *name)
{
	struct passwd *res = NULL;
	long long uid;
	getpwnam_r(name, &w->pw, w->pwbuf, sizeof(w->pwbuf), &res);
	if (!res && parse_ll(name, 10, &uid) == 0 && uid >= 0 && uid < (long long)(uid_t)-1)
		getpwuid_r((uid_t)uid, &w->pw, w->pwbuf, sizeof(w->pwbuf), &res);
	if (!res)
		return cmd_usage_error("watch", "--user: no user '%s' on this machine", name);
	if (w->pw.pw_uid == geteuid() && w->pw.pw_uid == getuid() && geteuid() != 0)
		return -1; /* already that user: nothing to change */
	if (geteuid() != 0) {
		cmd_say(stderr, "nccl-doctor watch: --user %s needs root: watch runs as uid %u", name, (unsigned)geteuid());
		return EXIT_CANNOT_RUN;
	}
	int ng = 64;
	for (int tries = 0; tries < 8; tries++) {
		free(w->groups);
		w->groups = xcalloc((size_t)ng, sizeof(gid_t));
		int want = ng;
		if (getgrouplist(w->pw.pw_name, w->pw.pw_gid, w->groups, &want) >= 0) {
			ng = want;
			break;
		}
		if (want <= ng || want > 65536) {
			cmd_say(stderr, "nccl-doctor watch: --user %s: cannot read the user's groups", name);
			return EXIT_CANNOT_RUN;
		}
		ng = want;
	}
	w->user = (struct sup_user){ .uid = w->pw.pw_uid, .gid = w->pw.pw_gid, .groups = w->groups, .ngroups = ng };
	snprintf(w->user_env[0], sizeof(w->user_env[0]), "HOME=%s", w->pw.pw_dir ? w->pw.pw_dir : "/");
	snprintf(w->user_env[1], sizeof(w->user_env[1]), "USER=%s", w->pw.pw_name);
	snprintf(w->user_env[2], sizeof(w->user_env[2]), "LOGNAME=%s", w->pw.pw_name);
	w->user_set = true;
	return -1;
}

struct watch_opts {
	double stall;
	enum on_stall on_stall;
	const char *json;
	const char *log_dir;
	const char *kernel_log;
	const char *user;
	bool nccl_diag;
	bool retry;
	double retry_budget;
	const char *retry_fix_args;
};

static int parse_options(int argc, char **argv, struct watch_opts *o)
{
	static const struct option opts[] = {
		{ "stall", required_argument, NULL, 's' }, { "on-stall", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },  { "log-dir", required_argument, NULL, 'l' },
		{ "nccl-diag", no_argument, NULL, 'D' },   { "help", no_argument, NULL, 'h' },
		{ "kernel-log", required_argument, NULL, 'k' },
		{ "retry-with-fix", no_argument, NULL, 'R' }, { "retry-budget", required_argument, NULL, 'B' },
		{ "retry-fix-args", required_argument, NULL, 'A' }, { "user", required_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_double(optarg, &o->stall) < 0 || !isfinite(o->stall) || o->stall < 0.1 || o->stall > 86400)
				return cmd_usage_error("watch", "--stall wants seconds between 0.1 and 86400, not '%s'", optarg);
			break;
		case 'o':
			if (strcmp(optarg, "report") == 0)
				o->on_stall = ON_STALL_REPORT;
			else if (strcmp(optarg, "kill") == 0)
				o->on_stall = ON_STALL_KILL;
			else if (strcmp(optarg, "keep") == 0)
				o->on_stall = ON_STALL_KEEP;
			else
				return cmd_usage_error("watch", "--on-stall wants report, kill or keep, not '%s'", optarg);
			break;
		case 'j': o->json = optarg; break;
		case 'l': o->log_dir = optarg; break;
		case 'D': o->nccl_diag = true; break;
		case 'k': o->kernel_log = optarg; break;
		case 'R': o->retry = true; break;
		case 'B':
			if (parse_double(optarg, &o->retry_budget) < 0 || !isfinite(o->retry_budget) || o->retry_budget < 10 ||
			    o->retry_budget > 86400)
				return cmd_usage_error("watch", "--retry-budget wants seconds between 10 and 86400, not '%s'", optarg);
			break;
		case 'A': o->retry_fix_args = optarg; break;
		case 'U': o->user = optarg; break;
		case 'h': usage(stdout); return 0;
		default: return cmd_usage_error("watch", "unknown option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("watch", "no command given: nccl-doctor watch [options] -- CMD [ARGS...]");
	if (!o->retry && (o->retry_fix_args || o->retry_budget > 0))
		return cmd_usage_error("watch", "--retry-budget and --retry-fix-args go with --retry-with-fix");
	return -1; /* go on */
}

static void stop_job(struct watch *w)
{
	sup_signal(&w->job, SIGTERM);
	double t0 = now_s();
	while (sup_poll(&w->job, 0.1, on_output, w) && now_s() - t0 < 5)
		;
	if (!w->job.exited)
		sup_signal(&w->job, SIGKILL);
}

/* --retry-with-fix: the stopped job is started again with the chosen
 * configuration; the logs are parsed from scratch (files read so far stay
 * at their ends: only what the new run writes is read). */
static void relaunch(struct watch *w, int nenv)
{
	double t0 = now_s();
	while (sup_poll(&w->job, 0.1, on_output, w) && now_s() - t0 < 3)
		;
	job_release(&w->job);
	int k = 0;
	while (w->set[k])
		k++;
	for (int i = 0; i < nenv && k < (int)(sizeof(w->set) / sizeof(w->set[0])) - 1; i++)
		w->set[k++] = w->retry.env[i];
	w->set[k] = NULL;
	nccllog_release(&w->lg);
	nccllog_init(&w->lg);
	for (int i = 0; i < 2; i++) {
		struct follow *f = &w->streams[i];
		strbuf_reset(&f->partial);
		f->lineno = f->bytes = f->cut = 0;
		f->overlong = false;
		f->file = nccllog_begin_file(&w->lg, i == 0 ? "stdout" : "stderr");
	}
	for (int i = 0; i < w->nfiles; i++) {
		struct follow *f = &w->files[i];
		const char *base = strrchr(f->path, '/');
		strbuf_reset(&f->partial);
		f->lineno = f->bytes = f->cut = 0;
		f->overlong = false;
		f->file = nccllog_begin_file(&w->lg, base ? base + 1 : f->path);
	}
	w->ncpu = 0;
	w->stalled_now = false;
	w->t_activity = now_s();
	int r = sup_start(&w->job, &w->spec);
	job_started(&w->job);
	if (r < 0) {
		cmd_say(stderr, "nccl-doctor watch: cannot run '%s' again: %s", w->spec.argv[0], strerror(-r));
		w->job.exited = true;
		w->job.status = (r == -ENOENT ? 127 : EXIT_CANNOT_RUN) << 8;
	}
}

static void install_signals(void);
static void on_stall(struct watch *w, const struct watch_opts *o, const struct run_opts *opt)
{
	w->nstalls++;
	struct result *r = diagnose(w, false);
	if (o->on_stall != ON_STALL_KEEP) {
		fprintf(stderr, "\nnccl-doctor watch: the job looks stuck (nothing new for %.0f s): diagnosis\n", o->stall);
		struct render_opts ro = { .json = false, .color = opt->color && isatty(STDERR_FILENO) };
		report_render(r, &ro, stderr);
		fflush(stderr);
	}
	if (o->json) {
		json_decref(w->last_stall);
		w->last_stall = report_json(r);
	}
	write_json(w, o->json, r, false);
	bool stopped = false;
	if (o->retry && !w->retried) { /* the job stopped, the fix search on its GPUs */
		w->retried = true;
		stopped = wretry_run(&w->retry, &w->job, on_output, w, &w->gpu, r, opt, stderr);
		install_signals();
		/* SIGINT, SIGTERM and SIGHUP during the search end watch (the
		 * workers' handlers); a SIGQUIT noted meanwhile ends it here, never
		 * to reach a relaunched job */
		if (stopped && got_signal) {
			wretry_cancel(&w->retry, stderr, got_signal == SIGQUIT ? "watch received SIGQUIT during the search"
									    : "watch received a signal during the search");
		}
		if (stopped && w->retry.nenv > 0)
			relaunch(w, w->retry.nenv);
		if (stopped)
			write_json(w, o->json, r, false); /* with the search */
	}
	result_free(r);
	fflush(stderr);
	if (!stopped && o->on_stall == ON_STALL_KILL) {
		fprintf(stderr, "nccl-doctor watch: stopping the job (--on-stall kill)\n");
		stop_job(w);
	}
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/* a stop and a continue interrupt nothing that can go on */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTSTP, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
}

/* A GPU sample in a worker; the worker layer installs its own handlers for
 * its workers at the first start: ours (forwarding to the job) come back. */
static void start_gpu_sample(struct watch *w, double now)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old); /* no signal meets the worker layer's handler */
	wgpu_start(&w->gpu);
	install_signals();
	sigprocmask(SIG_SETMASK, &old, NULL);
	w->t_gpu_next = now + WGPU_EVERY;
}

/* A stall starts a GPU sample; the diagnosis follows when it answered or
 * after WGPU_WAIT seconds. While the stall lasts a sample is taken every
 * WGPU_EVERY seconds (for the summary and --json at exit). */
static void check_stall(struct watch *w, const struct watch_opts *o, const struct run_opts *opt, double now)
{
	bool quiet = now - w->t_activity >= o->stall;
	if (quiet && !w->stalled_now && !w->job.exited) {
		w->stalled_now = true;
		w->diag_pending = true;
		w->t_diag_due = now + WGPU_WAIT;
		start_gpu_sample(w, now);
	} else if (!quiet) {
		w->stalled_now = false;
		w->diag_pending = false;
	} else if (w->stalled_now && !w->diag_pending && now >= w->t_gpu_next && !w->job.exited) {
		start_gpu_sample(w, now);
	}
	if (w->diag_pending && (!w->gpu.running || now >= w->t_diag_due)) {
		w->diag_pending = false;
		on_stall(w, o, opt);
	}
}

/* The job's main process ended, but processes it left running still hold
 * its stdout or stderr: said in one line, they are not followed further. */
static void say_left_running(struct watch *w)
{
	unsigned long ino[2];
	int nino = sup_output_inodes(&w->job, ino), pids[64];
	int n = nino > 0 ? proc_pipe_holders(ino, nino, getpid(), pids, 64) : 0;
	if (n <= 0)
		return;
	char list[400];
	size_t len = 0;
	list[0] = '\0';
	for (int i = 0; i < n && i < 16; i++)
		str_appendf(list, sizeof(list), &len, "%s%d", i ? " " : "", pids[i]);
	if (n > 16)
		str_appendf(list, sizeof(list), &len, " ...");
	fprintf(stderr, "nccl-doctor watch: the job's main process ended (status %d); %d%s process%s it started still "
		"run%s and hold%s its output (pid%s %s): no longer followed\n", sup_exit_code(&w->job), n, n == 64 ? "+" : "",
		n == 1 ? "" : "es", n == 1 ? "s" : "", n == 1 ? "s" : "", n == 1 ? "" : "s", list);
}

static void run_loop(struct watch *w, const struct watch_opts *o, const struct run_opts *opt)
{
	double t_files = 0;
	while (sup_poll(&w->job, w->gpu.running ? 0.05 : 0.2, on_output, w)) {
		double now = now_s();
		if (got_signal) {
			int sig = got_signal;
			got_signal = 0;
			if (w->job.exited)
				break; /* the main process is gone: a signal ends watch at once */
			/* a second Ctrl-C kills; a repeated SIGTERM (timeout(1) sends it
			 * to the process and its group) is passed on as it is */
			sup_signal(&w->job, sig == SIGINT && got_sigint_count >= 2 ? SIGKILL : sig);
		}
		if (got_cont) { /* the job was stopped with watch: not a stall */
			got_cont = 0;
			w->t_activity = now;
		}
		if (now - t_files >= 0.5) {
			poll_files(w);
			t_files = now;
		}
		wgpu_poll(&w->gpu);
		wras_tick(&w->ras, &w->lg, w->job.exited ? 0 : w->job.pid, now, o->on_stall == ON_STALL_KEEP ? NULL : stderr);
		check_stall(w, o, opt, now_s());
	}
	poll_files(w);
	say_left_running(w);
}

int cmd_watch(int argc, char **argv, const struct run_opts *opt)
{
	struct watch_opts o = { .stall = 60, .on_stall = ON_STALL_REPORT };
	int r = parse_options(argc, argv, &o);
	if (r >= 0)
		return r;
	/* the global --json flag (main.c takes it wherever it stands) would mean
	 * JSON on stdout, which is the job's */
	if (opt->json)
		return cmd_usage_error("watch", "stdout belongs to the job: write the diagnosis with --json=FILE");
	if (!sysroot_is_live())
		return cmd_usage_error("watch", "watch runs a job on this machine: --sysroot does not apply");
	char jerr[4400];
	if (o.json && outfile_check(o.json, jerr, sizeof(jerr)) < 0) {
		cmd_say(stderr, "nccl-doctor watch: --json: %s", jerr);
		return EXIT_CANNOT_RUN;
	}
	struct watch *w = xcalloc(1, sizeof(*w));
	if ((r = wretry_setup(&w->retry, o.retry_budget > 0 ? o.retry_budget : 120, o.retry_fix_args)) >= 0) {
		wretry_release(&w->retry);
		free(w);
		return r;
	}
	nccllog_init(&w->lg);
	privdir_init(&w->dir);
	r = -1;
	if (wkmsg_open(&w->km, o.kernel_log) < 0) {
		cmd_say(stderr, "nccl-doctor watch: --kernel-log: %s", w->km.why);
		r = EXIT_CANNOT_RUN;
	}
	if (r < 0 && o.user)
		r = resolve_user(w, o.user);
	w->job_uid = w->user_set ? w->user.uid : geteuid();
	if (r < 0 && !make_dir(w, o.log_dir, w->user_set ? &w->pw : NULL))
		r = EXIT_CANNOT_RUN;
	if (r >= 0) {
		wkmsg_release(&w->km);
		wretry_release(&w->retry);
		nccllog_release(&w->lg);
		free(w->groups);
		free(w);
		return r;
	}
	for (int k = 0; k < 2; k++) {
		strbuf_init(&w->streams[k].partial, WATCH_LINE_MAX + 1);
		w->streams[k].file = nccllog_begin_file(&w->lg, k == 0 ? "stdout" : "stderr");
	}
	char debug_file[4200];
	snprintf(debug_file, sizeof(debug_file), "NCCL_DEBUG_FILE=%s/nccl.%%h.%%p", w->dir.path);
	const char *dflt[] = { "NCCL_DEBUG=INFO", debug_file, "PYTHONUNBUFFERED=1", NULL };
	char diag_env[64] = "", diag_note[1200] = "";
	if (o.nccl_diag)
		wnccl_diag_env(argv + optind, opt->nccl, diag_env, sizeof(diag_env), diag_note, sizeof(diag_note));
	if (diag_note[0])
		cmd_say(stderr, "nccl-doctor watch: %s", diag_note);
	int nset = 0;
	if (diag_env[0])
		w->set[nset++] = diag_env;
	for (int k = 0; w->user_set && k < 3; k++)
		w->set[nset++] = w->user_env[k];
	w->set[nset] = NULL;
	wgpu_init(&w->gpu);
	/* the guard removes the private directory when watch is killed */
	w->spec = (struct sup_spec){ .argv = argv + optind, .env_set = w->set, .env_default = dflt, .out_fd = 1, .err_fd = 2,
				     .user = w->user_set ? &w->user : NULL, .guard_dirfd = w->dir.fd,
				     .guard_dir = w->own_dir ? w->dir.path : NULL };
	install_signals();
	signal(SIGPIPE, SIG_IGN);
	w->t_start = w->t_activity = now_s();
	wras_init(&w->ras, w->t_start);
	r = sup_start(&w->job, &w->spec);
	job_started(&w->job);
	int code;
	if (r < 0) {
		cmd_say(stderr, "nccl-doctor watch: cannot run '%s': %s", argv[optind], strerror(-r));
		code = r == -ENOENT ? 127 : EXIT_CANNOT_RUN;
	} else {
		run_loop(w, &o, opt);
		code = sup_exit_code(&w->job);
		/* --json=FILE: always a document at exit, a healthy run's too, so
		 * that an old one is never read as this run's */
		bool wrong = w->nstalls || code != 0 || wras_dead(&w->ras);
		if (o.json && !wrong) {
			struct result *sr = diagnose(w, true);
			write_json(w, o.json, sr, true);
			result_free(sr);
		}
		/* the summary: only when something went wrong */
		if (wrong) {
			struct result *sr = diagnose(w, true);
			if (o.json)
				write_json(w, o.json, sr, true);
			fputc('\n', stderr);
			cmd_say(stderr, "nccl-doctor watch: %s%s", sr->headline ? sr->headline : "the job ended",
				w->nstalls ? " (it stalled before)" : "");
			wretry_summary(&w->retry, stderr);
			for (size_t i = 0; i < sr->nfindings && i < 3; i++)
				if (sr->findings[i]->sev == SEV_ERROR)
					cmd_say(stderr, "  %s: %s", sr->findings[i]->id, sr->findings[i]->title);
			result_free(sr);
		}
		job_release(&w->job);
	}
	for (int k = 0; k < 2; k++)
		strbuf_release(&w->streams[k].partial);
	remove_dir(w);
	for (int i = 0; i < w->nfiles; i++) {
		free(w->files[i].path);
		strbuf_release(&w->files[i].partial);
	}
	free(w->files);
	for (size_t i = 0; i < w->snames; i++)
		free(w->names[i].name);
	free(w->names);
	free(w->groups);
	wgpu_release(&w->gpu);
	wretry_release(&w->retry);
	wkmsg_release(&w->km);
	wras_release(&w->ras);
	json_decref(w->last_stall);
	nccllog_release(&w->lg);
	free(w);
	return code;
}
