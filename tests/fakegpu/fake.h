/* The fake GPU stack's shared state: the scenario (JSON, from the file named
 * by NCCL_DOCTOR_FAKEGPU_SCENARIO) as the three fake libraries see it. Each
 * library parses its own copy. See README.md for the format. */
#ifndef FAKEGPU_FAKE_H
#define FAKEGPU_FAKE_H
#include <stdbool.h>
#include <stddef.h>

#define FG_API __attribute__((visibility("default")))
#define FG_MAX_GPUS 16

/* link classes, nearest first (NCCL's order for the ones used here) */
enum fg_link { FG_X, FG_NVL, FG_PIX, FG_PXB, FG_PHB, FG_NODE, FG_SYS };

struct fg_gpu {
	char name[96];
	char uuid[96];
	char bdf[32];             /* "0000:18:00.0" */
	unsigned long long memory;
	unsigned long long bar1;
	int numa_node;
	char cpus[128];           /* cpulist */
	int cur_gen, max_gen, cur_width, max_width;
	bool persistence, mig, ecc, remapped_pending;
	int nvlinks;              /* links of this GPU */
	bool link_down[32];
	/* NVLink fabric (NVSwitch boards) */
	int fabric_state;         /* NVML_GPU_FABRIC_STATE_*: 0 not supported .. 3 completed */
	int fabric_status;        /* nvmlReturn_t of the registration */
	unsigned clique, health_mask;
	int link_speed[32];       /* MB/s per link, 0: not reported */
	long long link_err[32][4];   /* replay, recovery, crc_flit, crc_data at the first read */
	long long link_err_rate[32][4]; /* added at every later read */
	bool multicast;           /* CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED */
	int nvlinks_override;     /* "nvlinks": links NVML lists, -1: from the matrix */
};

struct fg_scenario {
	bool loaded;
	char error[256];
	int ngpus;
	struct fg_gpu gpus[FG_MAX_GPUS];
	enum fg_link link[FG_MAX_GPUS][FG_MAX_GPUS];    /* shown class (NV# wins) */
	enum fg_link pci[FG_MAX_GPUS][FG_MAX_GPUS];     /* PCI class (NVML common ancestor) */
	int nvl[FG_MAX_GPUS][FG_MAX_GPUS];              /* NVLink count per pair */
	int p2p[FG_MAX_GPUS][FG_MAX_GPUS];              /* NVML P2P status for read/write/atomics */
	bool nvswitch;
	int fabric_info_max_version; /* 3: nvmlDeviceGetGpuFabricInfoV takes v3; 2: only v2 (older driver) */
	char driver_version[80];
	int cuda_driver_version;
	int nccl_version;
	/* faults */
	int cuinit_error;
	int module_error;          /* cuModuleLoadData returns it (0: none) */
	bool cuinit_hang;
	int nvml_init_error;
	char nvml_hang[96];       /* NVML function that blocks forever */
	char nvml_init_fork[256]; /* nvmlInit forks a helper deaf to SIGTERM/SIGINT that
				   * writes its pid to this file and sleeps for ever */
	int lost_gpu, lost_after; /* -1: none */
	bool p2p_hang[FG_MAX_GPUS][FG_MAX_GPUS];
	bool p2p_corrupt[FG_MAX_GPUS][FG_MAX_GPUS];
	bool p2p_slow[FG_MAX_GPUS][FG_MAX_GPUS];         /* the P2P path at 1/20 of the link */
	bool nccl_p2p_hang[FG_MAX_GPUS][FG_MAX_GPUS];
	bool nccl_init_hang;
	long long nccl_p2p_hang_min_bytes; /* nccl_p2p_hang only for calls of at least this many bytes */
	double nccl_slow_ms_per_mib;    /* every collective keeps the stream busy this long per MiB: a slow machine */
	int nccl_init_hang_rank;  /* this rank alone blocks in bootstrap, -1 none */
	bool nccl_corrupt[FG_MAX_GPUS]; /* collectives' results on this GPU get one byte flipped */
	long long shm_bytes;      /* modelled /dev/shm size, 0: the real one */
	char bootstrap_ifname_ok[16]; /* bootstrap works only when NCCL_SOCKET_IFNAME selects it; "" no fault */
	int cuda_lost_gpu, cuda_lost_after; /* -1: none; CUDA calls on it fail after K */
	/* NVML compute processes (busy GPUs) and utilisation */
	struct fg_proc {
		int gpu;
		unsigned pid;
		unsigned long long used;  /* bytes */
		bool live;                /* listed only while the pid lives (not a zombie) */
	} procs[16];
	int nprocs;
	int util[FG_MAX_GPUS];    /* GPU utilisation percent */
	bool wedge_on_hang;       /* GPUs of p2p_hang pairs show 100 % with no process */
	int cuda_order[FG_MAX_GPUS]; /* CUDA ordinal -> GPU (a driver whose order is not NVML's) */
	int ncuda;                   /* CUDA ordinals: ngpus, or fewer under CUDA_VISIBLE_DEVICES */
};

/* Whether NVML lists process p on GPU gpu now. */
bool fg_proc_on(const struct fg_proc *p, int gpu);

/* Parsed once; never NULL (an unreadable file gives loaded=false + error). */
const struct fg_scenario *fg_scenario(void);
/* Blocks forever, the way a hung driver call does (sleeps, never returns). */
void fg_hang(const char *what) __attribute__((noreturn));
/* Bandwidth in bytes per second used to model a transfer over a link class
 * (nvl: NVLink count for FG_NVL). */
double fg_link_bw(enum fg_link l, int nvl);
const char *fg_link_name(enum fg_link l, int nvl, char *buf, size_t bufsz);

#endif
