/* Process facts for `watch` (probe/proc.h). */
#include "probe/proc.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proc_parse_stat(const char *text, struct proc_info *pi)
{
	/* pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice num_threads */
	const char *lp = strchr(text, '('), *rp = strrchr(text, ')');
	if (!lp || !rp || rp < lp)
		return -EINVAL;
	long long pid;
	char head[32];
	size_t hl = (size_t)(lp - text);
	if (hl == 0 || hl >= sizeof(head))
		return -EINVAL;
	memcpy(head, text, hl);
	head[hl] = '\0';
	if (parse_ll(head, 10, &pid) < 0 || pid <= 0)
		return -EINVAL;
	size_t cl = (size_t)(rp - lp - 1);
	if (cl >= sizeof(pi->comm))
		cl = sizeof(pi->comm) - 1;
	memcpy(pi->comm, lp + 1, cl);
	pi->comm[cl] = '\0';
	char st;
	int ppid, pgid;
	unsigned long long f[11], start = 0;
	long long threads;
	int n = sscanf(rp + 1, " %c %d %d %*d %*d %*d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %lld %*d %llu",
		       &st, &ppid, &pgid, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10],
		       &threads, &start);
	if (n < 15)
		return -EINVAL;
	pi->start_time = n >= 16 ? start : 0;
	pi->pid = (int)pid;
	pi->state = st;
	pi->ppid = ppid;
	pi->pgid = pgid;
	pi->utime = f[5];
	pi->stime = f[6];
	pi->threads = (int)threads;
	return 0;
}

/* Whether a mapped path's file name is lib<name>.so or lib<name>.so.N... */
static bool maps_lib(const char *base, const char *name)
{
	size_t n = strlen(name);
	return strncmp(base, name, n) == 0 && (base[n] == '\0' || base[n] == '.');
}

void proc_parse_maps(const char *text, struct proc_info *pi)
{
	const char *cur = text;
	char line[1024];
	bool fits;
	while (text_next_line(&cur, line, sizeof(line), &fits)) {
		if (!fits)
			continue;
		const char *path = strchr(line, '/');
		if (!path)
			continue;
		const char *base = strrchr(path, '/') + 1;
		if (maps_lib(base, "libnccl.so")) {
			pi->nccl = true;
			if (!pi->nccl_path[0])
				str_copy(pi->nccl_path, path, sizeof(pi->nccl_path));
		} else if (maps_lib(base, "libcudart.so")) {
			pi->cudart = true;
		} else if (maps_lib(base, "libcuda.so")) {
			pi->libcuda = true;
		}
	}
}

void proc_role(const char *comm, const char *cmdline, char *out, size_t outsz)
{
	static const struct {
		const char *needle, *role;
	} roles[] = {
		/* multiprocessing names its workers; newer vLLM sets VLLM::Worker_TP0 */
		{ "VllmWorkerProcess", "vLLM worker" }, { "VLLM::Worker", "vLLM worker" },
		{ "vllm.worker", "vLLM worker" },        { "vllm.v1.executor", "vLLM worker" },
		{ "VLLM::EngineCore", "vLLM engine" },  { "vllm serve", "vLLM" },
		{ "vllm.entrypoints", "vLLM" },          { "bin/vllm ", "vLLM" },
		{ "torch.distributed.run", "torchrun" }, { "torch.distributed.launch", "torchrun" },
		{ "bin/torchrun", "torchrun" },          { "ray::", "Ray worker" },
	};
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if ((cmdline && strstr(cmdline, roles[i].needle)) || (comm && strstr(comm, roles[i].needle))) {
			str_copy(out, roles[i].role, outsz);
			return;
		}
	if (comm && (strcmp(comm, "torchrun") == 0 || strcmp(comm, "vllm") == 0))
		str_copy(out, comm[0] == 't' ? "torchrun" : "vLLM", outsz);
}

/* The command line with its NULs as spaces, cut to outsz. */
static void read_cmdline(int pid, char *out, size_t outsz)
{
	char path[64], *data = NULL;
	size_t len;
	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	if (sr_read_file(path, &data, &len, 64 << 10) < 0)
		return;
	size_t n = len < outsz - 1 ? len : outsz - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = data[i] ? data[i] : ' ';
	out[n] = '\0';
	free(data);
}

int proc_read(int pid, struct proc_info *pi)
{
	char path[64], *data = NULL;
	size_t len;
	memset(pi, 0, sizeof(*pi));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int r = sr_read_file(path, &data, &len, 4096);
	if (r < 0)
		return r;
	r = proc_parse_stat(data, pi);
	free(data);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (sr_read_str(path, pi->wchan, sizeof(pi->wchan)) < 0 || strcmp(pi->wchan, "0") == 0)
		pi->wchan[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	data = NULL;
	/* a Python rank maps a few thousand regions: 4 MiB is plenty */
	if (sr_read_file(path, &data, &len, 4 << 20) == 0)
		proc_parse_maps(data, pi);
	free(data);
	char cmd[4096];
	read_cmdline(pid, cmd, sizeof(cmd));
	proc_role(pi->comm, cmd, pi->role, sizeof(pi->role));
	return 0;
}

int proc_tree(int root, int *pids, int max)
{
	char **names;
	size_t n;
	struct proc_info rootinfo;
	int r = proc_read(root, &rootinfo);
	if (r < 0)
		return r;
	if (max < 1)
		return 0;
	r = sr_list_dir("/proc", &names, &n);
	if (r < 0)
		return r;
	int *ppid = calloc(n ? n : 1, sizeof(int)), *pid = calloc(n ? n : 1, sizeof(int));
	size_t m = 0;
	for (size_t i = 0; i < n && ppid && pid; i++) {
		long long v;
		if (parse_ll(names[i], 10, &v) < 0 || v <= 0)
			continue;
		char path[64], *data = NULL;
		size_t len;
		snprintf(path, sizeof(path), "/proc/%lld/stat", v);
		struct proc_info pi;
		if (sr_read_file(path, &data, &len, 4096) == 0 && proc_parse_stat(data, &pi) == 0) {
			pid[m] = pi.pid;
			ppid[m] = pi.ppid;
			m++;
		}
		free(data);
	}
	sr_names_free(names, n);
	int count = 0;
	pids[count++] = root;
	/* breadth first: each found process adds its children */
	for (int k = 0; k < count; k++)
		for (size_t i = 0; i < m && count < max; i++)
			if (ppid[i] == pids[k] && pid[i] != root)
				pids[count++] = pid[i];
	free(ppid);
	free(pid);
	return count;
}

int proc_environ_get(int pid, const char *name, char *out, size_t outsz)
{
	char path[64], *data = NULL;
	size_t len, nl = strlen(name);
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	int r = sr_read_file(path, &data, &len, 1 << 20);
	if (r < 0)
		return r;
	r = -ENOENT;
	for (size_t i = 0; i < len; i += strlen(data + i) + 1)
		if (strncmp(data + i, name, nl) == 0 && data[i + nl] == '=') {
			str_copy(out, data + i + nl + 1, outsz);
			r = 0;
			break;
		}
	free(data);
	return r;
}

static void hex_addr(const char *hex, bool v6, char *out, size_t outsz)
{
	unsigned char b[16];
	size_t nb = v6 ? 16 : 4;
	for (size_t i = 0; i < nb; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
			str_copy(out, "?", outsz);
			return;
		}
		b[i] = (unsigned char)v;
	}
	/* the kernel prints each 32-bit word in host (little-endian) order */
	unsigned char o[16];
	for (size_t w = 0; w < nb / 4; w++)
		for (int k = 0; k < 4; k++)
			o[w * 4 + k] = b[w * 4 + 3 - k];
	if (!v6) {
		snprintf(out, outsz, "%u.%u.%u.%u", o[0], o[1], o[2], o[3]);
		return;
	}
	/* IPv4-mapped */
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	if (memcmp(o, mapped, 12) == 0) {
		snprintf(out, outsz, "%u.%u.%u.%u", o[12], o[13], o[14], o[15]);
		return;
	}
	/* plain, uncompressed but without leading zeros; :: for all-zero and ::1 */
	static const unsigned char loop[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const unsigned char any[16] = { 0 };
	if (memcmp(o, loop, 16) == 0) {
		str_copy(out, "::1", outsz);
		return;
	}
	if (memcmp(o, any, 16) == 0) {
		str_copy(out, "::", outsz);
		return;
	}
	snprintf(out, outsz, "%x:%x:%x:%x:%x:%x:%x:%x", o[0] << 8 | o[1], o[2] << 8 | o[3], o[4] << 8 | o[5],
		 o[6] << 8 | o[7], o[8] << 8 | o[9], o[10] << 8 | o[11], o[12] << 8 | o[13], o[14] << 8 | o[15]);
}

static int parse_tcp(const char *text, bool v6, long want_port, struct tcp_sock *out, int max)
{
	const char *cur = text;
	char line[512];
	bool fits;
	int n = 0;
	size_t alen = v6 ? 32 : 8;
	while (n < max && text_next_line(&cur, line, sizeof(line), &fits)) {
		if (!fits)
			continue;
		/* "  0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 12345 ..." */
		char la[40], ra[40];
		unsigned lport, rport, st, uid;
		unsigned long inode;
		int k = sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x %*x %u %*u %lu", la, &lport,
			       ra, &rport, &st, &uid, &inode);
		if (k != 7 || strlen(la) != alen || strlen(ra) != alen || lport > 65535 || rport > 65535)
			continue;
		if (want_port >= 0 && lport != (unsigned)want_port)
			continue;
		struct tcp_sock *s = &out[n++];
		memset(s, 0, sizeof(*s));
		hex_addr(la, v6, s->local, sizeof(s->local));
		hex_addr(ra, v6, s->remote, sizeof(s->remote));
		s->lport = lport;
		s->rport = rport;
		s->state = (int)st;
		s->uid = uid;
		s->inode = inode;
	}
	return n;
}

int proc_parse_net_tcp(const char *text, bool v6, struct tcp_sock *out, int max)
{
	return parse_tcp(text, v6, -1, out, max);
}

int proc_parse_net_tcp_port(const char *text, bool v6, unsigned lport, struct tcp_sock *out, int max)
{
	return parse_tcp(text, v6, (long)lport, out, max);
}

static int read_net_tcp(long want_port, struct tcp_sock *out, int max)
{
	int n = 0, got = -ENOENT;
	static const char *const files[2] = { "/proc/net/tcp", "/proc/net/tcp6" };
	for (int i = 0; i < 2 && n < max; i++) {
		char *data = NULL;
		size_t len;
		int r = sr_read_file(files[i], &data, &len, 16 << 20);
		if (r == 0) {
			got = 0;
			n += parse_tcp(data, i == 1, want_port, out + n, max - n);
		} else if (got < 0) {
			got = r;
		}
		free(data);
	}
	return got < 0 ? got : n;
}

int proc_net_tcp(struct tcp_sock *out, int max)
{
	return read_net_tcp(-1, out, max);
}

int proc_net_tcp_port(unsigned lport, struct tcp_sock *out, int max)
{
	return read_net_tcp((long)lport, out, max);
}

int proc_socket_inodes(int pid, unsigned long *inodes, int max)
{
	char dir[64], **names;
	size_t n;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	int r = sr_list_dir(dir, &names, &n);
	if (r < 0)
		return r;
	int count = 0;
	for (size_t i = 0; i < n && count < max; i++) {
		char path[96], target[128];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (sr_readlink(path, target, sizeof(target)) < 0)
			continue;
		unsigned long ino;
		if (sscanf(target, "socket:[%lu]", &ino) == 1)
			inodes[count++] = ino;
	}
	sr_names_free(names, n);
	return count;
}

int proc_pipe_holders(const unsigned long *ino, int nino, int skip, int *pids, int max)
{
	char **names;
	size_t n;
	int r = sr_list_dir("/proc", &names, &n);
	if (r < 0)
		return r;
	int count = 0;
	for (size_t i = 0; i < n && count < max; i++) {
		long long pid;
		if (parse_ll(names[i], 10, &pid) < 0 || pid <= 0 || pid == skip)
			continue;
		char dir[64], **fds;
		size_t nfd;
		snprintf(dir, sizeof(dir), "/proc/%lld/fd", pid);
		if (sr_list_dir(dir, &fds, &nfd) < 0)
			continue;
		bool holds = false;
		for (size_t k = 0; k < nfd && !holds; k++) {
			char path[96], target[128];
			unsigned long x;
			snprintf(path, sizeof(path), "%s/%s", dir, fds[k]);
			if (sr_readlink(path, target, sizeof(target)) < 0 || sscanf(target, "pipe:[%lu]", &x) != 1)
				continue;
			for (int j = 0; j < nino && !holds; j++)
				holds = x == ino[j];
		}
		sr_names_free(fds, nfd);
		if (holds)
			pids[count++] = (int)pid;
	}
	sr_names_free(names, n);
	return count;
}

int proc_inode_pid(unsigned long inode)
{
	char **names;
	size_t n;
	int r = sr_list_dir("/proc", &names, &n);
	if (r < 0)
		return r;
	int best = -ENOENT;
	for (size_t i = 0; i < n; i++) {
		long long v;
		if (parse_ll(names[i], 10, &v) < 0 || v <= 0 || v > 0x7fffffff || (best > 0 && v >= best))
			continue;
		unsigned long held[4096];
		int k = proc_socket_inodes((int)v, held, 4096);
		for (int j = 0; j < k; j++)
			if (held[j] == inode) {
				best = (int)v;
				break;
			}
	}
	sr_names_free(names, n);
	return best;
}
