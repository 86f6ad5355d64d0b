/* Running the user's own command under supervision (`watch -- CMD ...`).
 *
 * sup_start() runs CMD in its own process group with stdout and stderr on
 * pipes and extra environment entries (the user's own values win where
 * sup_spec.keep_user asks), optionally as another user (sup_spec.user:
 * supplementary groups, gid and uid set in the child before exec, each
 * checked). sup_poll() passes the output through to our stdout and stderr
 * byte for byte, as soon as it arrives (write(2), no stdio buffering), and
 * hands each chunk to a callback (the log parser). Output order within each
 * stream is kept; across the two streams it is the order of arrival, as in a
 * terminal.
 *
 * The job ends when its main process ends: sup_poll() sees the exit with
 * waitid(WNOWAIT) and then passes on what is still buffered in the pipes for
 * a short while (until they close, or are quiet for SUP_DRAIN_IDLE seconds,
 * at most SUP_DRAIN_MAX seconds): a background process the job left behind
 * that keeps the pipes open (`tensorboard &`, `setsid x &`) does not keep us
 * waiting. The main process is reaped only by sup_release(), so its pid and
 * process group id cannot be given to another process before: sup_signal()
 * never reaches a stranger.
 *
 * A guard process joins CMD's group (it ignores every signal it can, holds
 * nothing of ours but a pipe whose other end only we hold): when we die
 * without sup_release() (SIGKILL, a crash) the pipe ends, and the guard
 * sends SIGTERM to the group, SIGKILL to what is left of it 3 s later (after
 * leaving the group, while a child of its own keeps the group id reserved),
 * and removes the directory sup_spec.guard_dir (NCCL's log files) through its
 * fd. Being a member, it also keeps the group id reserved while it lives. It
 * is not a descendant of CMD: the process tree of the job leaves it out.
 *
 * Functions return 0 or a negative errno and print nothing themselves. */
#ifndef ND_RUN_SUPERVISE_H
#define ND_RUN_SUPERVISE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SUP_DRAIN_IDLE 0.5  /* seconds without output that end the drain after the exit */
#define SUP_DRAIN_MAX 2.0   /* seconds the drain lasts at most */
#define SUP_GUARD_TERM 3.0  /* the guard's SIGTERM to SIGKILL, seconds */

/* CMD as another user. */
struct sup_user {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;           /* the supplementary groups (getgrouplist) */
	int ngroups;
};

struct sup_spec {
	char *const *argv;             /* the command, argv[0] searched in PATH */
	const char *const *env_set;    /* "NAME=value" set in CMD's environment ("NAME" alone: removed); may be NULL */
	const char *const *env_default;/* "NAME=value" set only when the user has no NAME; may be NULL */
	int out_fd, err_fd;            /* where the output goes: normally 1 and 2; -1 to drop */
	const struct sup_user *user;   /* NULL: CMD runs as we do */
	int guard_dirfd;               /* with guard_dir: the directory the guard removes when we die; */
	const char *guard_dir;         /* NULL (guard_dirfd ignored): none */
};

struct sup {
	pid_t pid;                     /* also the process group id; -1 once reaped */
	pid_t guard;                   /* the guard in CMD's group, -1 none */
	int guard_fd;                  /* our end of the guard's pipe */
	int pipes[2];                  /* read ends: stdout, stderr (-1 once closed) */
	int out_fd, err_fd;
	bool exited;                   /* the main process ended (it may not be reaped yet) */
	int status;                    /* wait status when exited */
	double t_exit, t_data;         /* when the exit was seen, when output last came */
	bool drain_cut;                /* the drain ended with a pipe still open */
	unsigned long long bytes[2];   /* passed through per stream */
	bool out_broken;               /* our stdout/stderr went away: output is drained, not written */
};

/* The callback sees every chunk of CMD's output: stream 1 or 2. */
typedef void (*sup_output_fn)(void *ctx, int stream, const char *data, size_t len);

/* In a child after fork: closes every descriptor from lo up but keep1 and
 * keep2 (-1: none), with close_range where the kernel has it (Linux 5.9),
 * else one close a descriptor below the open-files limit (at most 65536).
 * The guard here and the workers' child (run/worker.c) use it. */
void run_close_from(int lo, int keep1, int keep2);
/* -ENOENT when CMD cannot be found (reported before any fork of a job that
 * cannot start), -errno on fork/pipe failure. A guard that cannot be made
 * leaves s->guard -1 (the job runs). */
int sup_start(struct sup *s, const struct sup_spec *spec);
/* Moves output; sees the exit; waits at most max_wait seconds for something
 * to happen (less while it drains). Returns 1 while CMD's main process runs
 * or the drain after its exit lasts, 0 when it has exited and its output was
 * passed on (s->drain_cut: a pipe was still open, held by processes CMD left
 * running: sup_output_inodes names them). */
int sup_poll(struct sup *s, double max_wait, sup_output_fn fn, void *ctx);
/* Passes on what the pipes hold now, without waiting (up to 4 MiB a
 * stream): the last output of a job whose main process has exited, when
 * watch must end before the drain would. */
void sup_drain_now(struct sup *s, sup_output_fn fn, void *ctx);
/* Sends sig to CMD's whole process group (its main process not reaped yet:
 * the id is still the group's); -ESRCH once reaped. */
int sup_signal(const struct sup *s, int sig);
/* The inodes of the pipes still open (CMD's stdout and stderr): count. */
int sup_output_inodes(const struct sup *s, unsigned long ino[2]);
/* CMD's exit status as a shell reports it: the code, or 128 + signal. */
int sup_exit_code(const struct sup *s);
/* Closes the pipes (what still holds them gets EPIPE), ends the guard
 * without it doing anything, reaps the main process when it has exited. */
void sup_release(struct sup *s);

#endif
