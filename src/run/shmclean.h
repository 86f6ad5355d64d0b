/* The /dev/shm segments of worker process groups the tool killed.
 *
 * NCCL (and the fake NCCL of the tests) keeps a communicator's shared memory
 * in /dev/shm/nccl-* (/dev/shm/fakenccl-*) and unlinks it once every peer
 * has opened it; a rank killed during communicator set-up leaves it behind,
 * where it holds memory until the next reboot. When the tool kills a worker
 * group (a deadline, or a signal to the tool), it first stops the group and
 * records the segments of those names that the group's processes have open
 * or mapped (shmclean_note_groups); once they are dead it removes each
 * recorded segment that is still the same file, owned by the tool's euid,
 * and that no process has open or mapped any more (shmclean_sweep). The
 * test of "nobody uses it" is a write lease (fcntl F_SETLEASE F_WRLCK):
 * the kernel grants it only when no other open file, and so no mapping,
 * refers to the file; where leases are not available nothing is removed.
 * A segment still in use stays recorded for a later sweep (a peer rank
 * that is killed later).
 *
 * Reading another process's /proc/PID/maps takes its memory map lock,
 * which a process stuck in the GPU driver can hold for ever: that reading
 * happens in a short-lived child process under a deadline, never in the
 * tool itself.
 *
 * Both functions are async-signal-safe (the signal handler of the worker
 * supervisor calls them) and print nothing; callers outside a handler block
 * the supervisor's signals around them. What cannot be cleaned: the
 * segments of a group the tool did not kill (a worker that crashed by
 * itself leaves what its peers do not map), and everything when the tool
 * itself is killed with SIGKILL (its workers die with it, by
 * PR_SET_PDEATHSIG, and nobody is left to look). */
#ifndef ND_RUN_SHMCLEAN_H
#define ND_RUN_SHMCLEAN_H
#include <stddef.h>
#include <sys/types.h>

#define SHMCLEAN_MAX 64          /* segments recorded at a time */
#define SHMCLEAN_SCAN_MS 500     /* the deadline of one scan of the groups */

/* Records the nccl-* / fakenccl-* segments that the processes of these
 * process groups have open or mapped. The caller has stopped the groups
 * (SIGSTOP) so that none is made meanwhile. */
void shmclean_note_groups(const pid_t *pgids, size_t n);
/* Removes the recorded segments nobody uses any more; returns how many. */
size_t shmclean_sweep(void);
/* How many are recorded and not yet removed. */
size_t shmclean_pending(void);

#endif
