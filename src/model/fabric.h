/* The NVSwitch fabric's host side as data (probe/fabric.c reads it): the
 * NVIDIA Fabric Manager and the IMEX daemon. */
#ifndef ND_MODEL_FABRIC_H
#define ND_MODEL_FABRIC_H
#include <stdbool.h>
#include <stddef.h>

#define FM_BINARY "/usr/bin/nv-fabricmanager"
#define FM_CONFIG "/usr/share/nvidia/nvswitch/fabricmanager.cfg"
#define FM_DEFAULT_LOG "/var/log/fabricmanager.log"
#define FM_UNIT "nvidia-fabricmanager.service"
#define FM_LOG_TAIL (256 * 1024)
#define FM_MAX_ERRORS 5
#define IMEX_BINARY "/usr/bin/nvidia-imex"
#define IMEX_CONFIG_DIR "/etc/nvidia-imex"
#define IMEX_CHANNEL_DIR "/dev/nvidia-caps-imex-channels"

struct fabric_facts {
	/* fabric manager */
	bool fm_binary;              /* FM_BINARY exists */
	char fm_unit[160];           /* the unit file's path, "" when none */
	bool fm_enabled;             /* a *.wants/ link to the unit under /etc/systemd/system */
	int fm_pid;                  /* the nv-fabricmanager process, 0 none */
	int proc_err;                /* listing /proc failed: -errno, else 0 */
	char fm_pkg_version[48];     /* "535.161.08" from the dpkg database, "" unknown */
	char fm_pkg_name[64];        /* "nvidia-fabricmanager-535" */
	bool fm_config;              /* FM_CONFIG readable */
	char fm_log[256];            /* the log path (LOG_FILE_NAME, else the default) */
	bool fm_log_syslog;          /* LOG_FILE_NAME set empty: it logs to syslog */
	int fm_log_err;              /* reading the log: 0, or -errno */
	char fm_log_version[48];     /* version of the last start line in the tail */
	int fm_log_starts;           /* start lines ("... is running with ...") in the tail */
	int fm_log_errors;           /* ERROR/CRITICAL lines since the last start in the tail */
	char fm_last_errors[FM_MAX_ERRORS][240]; /* the last of them, oldest first */
	int fm_nlast;
	/* IMEX */
	bool imex_binary, imex_config; /* IMEX_BINARY, IMEX_CONFIG_DIR/nodes_config.cfg */
	int imex_pid;                /* the nvidia-imex process, 0 none */
	bool imex_channel_dir;       /* IMEX_CHANNEL_DIR exists */
	int imex_channels;           /* channelN entries in it */
};

#endif
