/* The state of `watch` shared by cmd/watch.c (the options, the start, the
 * summary at exit), engine/watch_loop.c (the supervision loop, the
 * diagnosis) and engine/watch_logdir.c (the job's output and NCCL's log
 * files fed to the parser as they grow, the log directory). Private to
 * those files. */
#ifndef ND_ENGINE_WATCH_STATE_H
#define ND_ENGINE_WATCH_STATE_H
#include "analyze/nccllog.h"
#include "engine/engine.h"
#include "engine/watch_int.h"
#include "engine/watch_ras.h"
#include "model/machine.h"
#include "run/supervise.h"
#include "util/privdir.h"
#include "util/strbuf.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define WATCH_LINE_MAX 65536
#define WATCH_MAX_FILES 4096   /* NCCL log files followed */
#define WATCH_MAX_NAMES 65536  /* names of the log directory remembered (followed, stale, not read) */

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
	struct watch_cpu cpu;     /* CPU samples for percentages */
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
	struct machine mach;     /* this machine's facts for the log analysis, gathered at the first diagnosis */
	bool have_mach;
	char *facts_root;        /* --sysroot: where those facts are read, NULL this machine */
};

/* watch's options (cmd/watch.c parses them) */
enum on_stall { ON_STALL_REPORT, ON_STALL_KILL, ON_STALL_KEEP };

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
	/* a stall's diagnosis, before it is kept for --json: cmd/watch.c orders
	 * its findings (cmd_order) and says it on stderr; NULL: nothing */
	void (*stall_result)(struct result *r, const struct watch_opts *o, const struct run_opts *opt);
};

/* ---- engine/watch_loop.c ---- */
/* The signal handlers of watch (SIGINT, SIGTERM, SIGHUP, SIGQUIT noted for
 * the loop; SIGTSTP and SIGCONT passed to the job's group at once). */
void watch_install_signals(void);
/* The job started (sup_start: its group is the one signals go to) or is
 * about to be reaped (then sup_release). */
void watch_job_started(const struct sup *job);
void watch_job_release(struct sup *job);
/* Follows the started job until its main process ends: its output and log
 * files fed to the parser, the signals passed on, a stall diagnosed (on
 * stderr, in o->json), stopped or retried as o says. */
void watch_run_loop(struct watch *w, const struct watch_opts *o, const struct run_opts *opt);
/* The diagnosis now (at_exit: the job ended), its findings in the order
 * they were found (the caller orders them); the caller frees it. */
struct result *watch_diagnose(struct watch *w, bool at_exit);
/* The JSON document of r to path (NULL: nothing), with the stalls, the last
 * stall's diagnosis at exit and the retry; says on stderr what failed. */
void watch_write_json(struct watch *w, const char *path, struct result *r, bool at_exit);

/* ---- engine/watch_host.c ---- */
/* What this machine has that the log analysis weighs its hang priors with
 * (NVLink, ACS, IOMMU; the kernel log's events of the run): into lg->host. */
void whost_hint(struct watch *w);
void whost_release(struct watch *w);

/* ---- engine/watch_logdir.c ---- */
/* Feeds n bytes of input f to the parser, line by line; an unfinished line
 * waits (cut at WATCH_LINE_MAX). */
void wfollow_bytes(struct watch *w, struct follow *f, const char *data, size_t n);
/* Reads what the NCCL log files of the log directory gained since the last
 * look (only regular files of the job's user, made after the start). */
void wlogdir_poll(struct watch *w);
/* The diagnosis's notes on names of the log directory that were not read. */
void wlogdir_notes(const struct watch *w, struct result *r);
/* The log directory: --log-dir DIR (made when missing, else checked: the
 * invoking user's or the job's, not writable by group or others, nor the
 * directories above it by someone else), or a fresh private one in $TMPDIR.
 * Prints why it cannot be used; false then. */
bool wlogdir_make(struct watch *w, const char *log_dir, const struct passwd *user);
/* Removes the private directory (not a --log-dir) and what it holds. */
void wlogdir_remove(struct watch *w);

#endif
