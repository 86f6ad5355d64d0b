/* Running the user's own command under supervision (`watch -- CMD ...`).
 *
 * sup_start() runs CMD in its own process group with stdout and stderr on
 * pipes and extra environment entries (the user's own values win where
 * sup_spec.keep_user asks). sup_poll() passes the output through to our
 * stdout and stderr byte for byte, as soon as it arrives (write(2), no stdio
 * buffering), and hands each chunk to a callback (the log parser); it reaps
 * CMD when it exits. A signal sent to us is forwarded to CMD's group with
 * sup_signal(). Output order within each stream is kept; across the two
 * streams it is the order of arrival, as in a terminal.
 *
 * Functions return 0 or a negative errno and print nothing themselves. */
#ifndef ND_RUN_SUPERVISE_H
#define ND_RUN_SUPERVISE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sup_spec {
	char *const *argv;             /* the command, argv[0] searched in PATH */
	const char *const *env_set;    /* "NAME=value" set in CMD's environment; may be NULL */
	const char *const *env_default;/* "NAME=value" set only when the user has no NAME; may be NULL */
	int out_fd, err_fd;            /* where the output goes: normally 1 and 2; -1 to drop */
};

struct sup {
	pid_t pid;                     /* also the process group id */
	int pipes[2];                  /* read ends: stdout, stderr (-1 once closed) */
	int out_fd, err_fd;
	bool exited;
	int status;                    /* wait status when exited */
	unsigned long long bytes[2];   /* passed through per stream */
	bool out_broken;               /* our stdout/stderr went away: output is drained, not written */
};

/* The callback sees every chunk of CMD's output: stream 1 or 2. */
typedef void (*sup_output_fn)(void *ctx, int stream, const char *data, size_t len);

/* -ENOENT when CMD cannot be found (reported before any fork of a job that
 * cannot start), -errno on fork/pipe failure. */
int sup_start(struct sup *s, const struct sup_spec *spec);
/* Moves output and reaps; waits at most max_wait seconds for something to
 * happen. Returns 1 while CMD runs or its pipes still hold output, 0 when it
 * has exited and all its output was passed on. */
int sup_poll(struct sup *s, double max_wait, sup_output_fn fn, void *ctx);
/* Sends sig to CMD's whole process group. */
int sup_signal(const struct sup *s, int sig);
/* CMD's exit status as a shell reports it: the code, or 128 + signal. */
int sup_exit_code(const struct sup *s);
void sup_release(struct sup *s);

#endif
