/* Processes, as `watch` needs to see them: a process tree under a root pid,
 * per process its state, wait channel, CPU time, threads and which GPU
 * libraries it mapped (a rank loaded libnccl or libcudart), and the TCP
 * sockets it holds (a rendezvous store listening with fewer peers connected
 * than the job has ranks). All reads go through the sysroot (/proc/PID/stat,
 * status, wchan, maps, fd/, /proc/net/tcp and tcp6), so the parsers are
 * tested on recorded trees. Functions return 0 / a count or a negative errno
 * and print nothing. */
#ifndef ND_PROBE_PROC_H
#define ND_PROBE_PROC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_info {
	int pid, ppid, pgid;
	char state;                /* R, S, D, Z, T, ... */
	char comm[64];
	char wchan[64];            /* "" when unknown or running */
	unsigned long long utime, stime; /* clock ticks */
	int threads;
	unsigned long long start_time; /* clock ticks after boot (0 when the stat line had none):
	                            * with the pid, it names one process for its whole life */
	bool nccl, cudart, libcuda; /* mapped libnccl.so / libcudart.so / libcuda.so */
	char nccl_path[256];       /* the libnccl it mapped, "" when none */
	char role[32];             /* "vLLM worker", "vLLM", "torchrun", ... from
	                            * the command line; "" when none applies */
};

/* Parses the text of /proc/PID/stat (the comm may hold spaces and ')'). */
int proc_parse_stat(const char *text, struct proc_info *pi);
/* Parses /proc/PID/maps text for the GPU libraries. */
void proc_parse_maps(const char *text, struct proc_info *pi);
/* Pure: what a process is to a launcher, from its comm and its command line
 * (the arguments joined by spaces): "vLLM worker" (VllmWorkerProcess,
 * VLLM::Worker, a vllm worker module), "vLLM" (vllm serve, vllm.entrypoints),
 * "torchrun" (torchrun, torch.distributed.run/launch), "Ray worker", or ""
 * into out. */
void proc_role(const char *comm, const char *cmdline, char *out, size_t outsz);
/* Reads one process (stat, wchan, maps, cmdline for the role); -ENOENT when
 * it is gone. */
int proc_read(int pid, struct proc_info *pi);
/* The pids of root and all its descendants (from every /proc/PID/stat's ppid),
 * root first; at most max. Returns the count, or -ENOENT when root is gone. */
int proc_tree(int root, int *pids, int max);

/* One variable of a process's environment (/proc/PID/environ), copied into
 * out; -ENOENT when not set, -EACCES for another user's process. Only the
 * named variable is returned, nothing else of the environment is kept. */
int proc_environ_get(int pid, const char *name, char *out, size_t outsz);

enum tcp_state { TCP_ESTABLISHED = 1, TCP_LISTEN = 10 };

struct tcp_sock {
	char local[48], remote[48]; /* "127.0.0.1", "::1" */
	unsigned lport, rport;
	int state;                  /* kernel TCP state number */
	unsigned uid;               /* the socket's owner */
	unsigned long inode;        /* 0: no file holds it (not accepted yet, closing) */
};

/* Parses /proc/net/tcp or tcp6 text; at most max entries; returns the count. */
int proc_parse_net_tcp(const char *text, bool v6, struct tcp_sock *out, int max);
/* The same, keeping only the sockets whose local port is lport. */
int proc_parse_net_tcp_port(const char *text, bool v6, unsigned lport, struct tcp_sock *out, int max);
/* Reads /proc/net/tcp and tcp6 (of the examined machine's network namespace). */
int proc_net_tcp(struct tcp_sock *out, int max);
/* The same, keeping only the sockets whose local port is lport (a busy
 * server has more sockets than any fixed array). */
int proc_net_tcp_port(unsigned lport, struct tcp_sock *out, int max);
/* The socket inodes a process holds (its fd/ links "socket:[N]"); count. */
int proc_socket_inodes(int pid, unsigned long *inodes, int max);
/* The processes (but skip) that hold one of the pipes ino[0..nino) open
 * (an fd/ link "pipe:[N]"): their pids into pids, at most max; the count.
 * Processes of other users are seen only by root. */
int proc_pipe_holders(const unsigned long *ino, int nino, int skip, int *pids, int max);
/* The first process (lowest pid) holding socket inode as one of its fds:
 * its pid, or -ENOENT (none of those this process may see; another
 * namespace). Reads every /proc/PID/fd: for the rare question "whose is
 * this socket", not for a loop. */
int proc_inode_pid(unsigned long inode);

#endif
