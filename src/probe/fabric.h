/* The NVSwitch fabric's host side as the filesystem shows it, without running
 * anything: the NVIDIA Fabric Manager (binary, systemd unit, whether a unit
 * is enabled, its process, its version from the package database or its log,
 * the last errors of its log) and the IMEX daemon with its channel device
 * nodes (multi-node NVLink). Paths follow NVIDIA's Fabric Manager User Guide:
 * /usr/bin/nv-fabricmanager, nvidia-fabricmanager.service,
 * /usr/share/nvidia/nvswitch/fabricmanager.cfg (LOG_FILE_NAME, default
 * /var/log/fabricmanager.log); IMEX: /usr/bin/nvidia-imex, /etc/nvidia-imex/,
 * /dev/nvidia-caps-imex-channels/channelN. Every read goes through the
 * sysroot; the log is read from its last FM_LOG_TAIL bytes only. Functions
 * return 0 or a negative errno and print nothing. */
#ifndef ND_PROBE_FABRIC_H
#define ND_PROBE_FABRIC_H
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

void fabric_probe(struct fabric_facts *f);

/* Pure parsers (tested on their own). */
/* LOG_FILE_NAME of fabricmanager.cfg text: 1 and the value copied (maybe ""),
 * 0 when the key is absent. */
int fm_config_log_file(const char *cfg, char *out, size_t outsz);
/* One line of the fabric manager log: FM_LINE_START with the version copied
 * ("Fabric Manager version 535.161.08 is running with ..."), FM_LINE_ERROR
 * for an [ERROR] / [CRITICAL] line, else FM_LINE_OTHER. */
enum fm_line { FM_LINE_OTHER, FM_LINE_START, FM_LINE_ERROR };
enum fm_line fm_log_line(const char *line, char *version, size_t versz);
/* Feeds one line of a dpkg status file; after the last line, version holds
 * the newest installed nvidia-fabricmanager package's version without its
 * Debian revision ("535.161.08"). state is the caller's, zeroed first. */
struct dpkg_scan {
	char pkg[64];
	bool fm, installed;
	char ver[48];
};
void fm_dpkg_line(struct dpkg_scan *st, const char *line, char *name, size_t namesz, char *version, size_t versz);

#endif
