/* Host facts as data (probe/host.c reads them): resource limits, the kernel
 * command line, /dev/shm, container and VM hints, CPU, NUMA, ASPM, sysctls,
 * systemd-logind's RemoveIPC. */
#ifndef ND_MODEL_HOST_H
#define ND_MODEL_HOST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LIMIT_UNLIMITED UINT64_MAX

struct rlimit_pair {
	bool known;
	uint64_t soft, hard; /* LIMIT_UNLIMITED for "unlimited" */
};

struct mount_entry {
	char mountpoint[256];
	char fstype[64];
	char options[512]; /* per-mount and super options joined with ',' */
};
/* /proc/cpuinfo: vendor_id, model name, the hypervisor flag, CPU count. */
struct cpuinfo {
	char vendor[32];
	char model[128];
	bool hypervisor;
	int ncpus;
};
struct host_facts {
	char hostname[256];
	char kernel[128];
	char cmdline[4096];
	bool cmdline_known;
	struct cpuinfo cpu;
	char dmi_vendor[128], dmi_product[128], hypervisor_type[64];
	bool is_vm;
	int numa_nodes;          /* 0 when unknown */
	char aspm_policy[32];    /* "" when unknown */
	long long numa_balancing; /* -1 unknown */
	/* container */
	bool dockerenv, containerenv, kubernetes;
	char cgroup_hint[64];    /* "docker", "kubepods", "containerd", "lxc", "" */
	/* limits of this process (or the recorded one) */
	struct rlimit_pair memlock, stack, nofile;
	/* /dev/shm */
	bool shm_mounted;
	int mountinfo_err;            /* 0, or -errno: /proc/self/mountinfo could not be read */
	char shm_fstype[64];
	uint64_t shm_size, shm_free; /* bytes; 0 unknown */
	bool shm_size_known, shm_free_known;
	int shm_nccl_files;           /* nccl-* entries in /dev/shm; -1 unknown */
	uint64_t shm_nccl_bytes;
	/* systemd-logind */
	char removeipc[16];           /* "yes", "no", or "" = default (yes) */
	char removeipc_source[256];
	bool logind_conf;             /* /etc/systemd/logind.conf exists (systemd-logind is configured here) */
	/* sysctls */
	long long rmem_max, wmem_max;      /* -1 unknown */
	char tcp_rmem[64], tcp_wmem[64];   /* "" unknown */
	char port_range[64];
	long long file_max;
};

/* /proc/cmdline: value of key (the last occurrence wins, as in the kernel).
 * Returns true when the key is present; a bare flag gives "". */
bool cmdline_get(const char *cmdline, const char *key, char *val, size_t valsz);

#endif
