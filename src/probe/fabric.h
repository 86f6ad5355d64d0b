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
#include "model/fabric.h"

#include <stdbool.h>
#include <stddef.h>

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
