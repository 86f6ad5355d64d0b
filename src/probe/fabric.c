/* The fabric manager and IMEX as the filesystem shows them (probe/fabric.h). */
#include "probe/fabric.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DPKG_STATUS "/var/lib/dpkg/status"
#define DPKG_MAX (32u << 20)
#define MAX_PIDS 100000

int fm_config_log_file(const char *cfg, char *out, size_t outsz)
{
	const char *cur = cfg;
	char line[512];
	bool fits;
	int found = 0;
	while (cur && text_next_line(&cur, line, sizeof(line), &fits)) {
		char *s = str_trim(line);
		if (*s == '#' || !str_startswith(s, "LOG_FILE_NAME"))
			continue;
		s += strlen("LOG_FILE_NAME");
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '=')
			continue;
		str_copy(out, str_trim(s + 1), outsz);
		found = 1; /* the last assignment wins, as in a shell-style file */
	}
	return found;
}

enum fm_line fm_log_line(const char *line, char *version, size_t versz)
{
	/* "[Mar 16 2023 09:25:36] [INFO] [tid 2112] Fabric Manager version
	 * 535.161.08 is running with the following configuration options" */
	const char *p = strstr(line, "Fabric Manager version ");
	if (p && strstr(p, " is running with")) {
		p += strlen("Fabric Manager version ");
		size_t n = 0;
		while (p[n] && (isdigit((unsigned char)p[n]) || p[n] == '.'))
			n++;
		if (n > 0 && versz) {
			if (n >= versz)
				n = versz - 1;
			memcpy(version, p, n);
			version[n] = '\0';
		}
		return FM_LINE_START;
	}
	if (strstr(line, "[ERROR]") || strstr(line, "[CRITICAL]") || strstr(line, "[FATAL]"))
		return FM_LINE_ERROR;
	return FM_LINE_OTHER;
}

/* "535.161.08-1" -> "535.161.08"; an epoch ("1:") goes too */
static void debian_upstream(const char *v, char *out, size_t outsz)
{
	const char *colon = strchr(v, ':');
	if (colon)
		v = colon + 1;
	size_t n = strcspn(v, "-~+ ");
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, v, n);
	out[n] = '\0';
}

/* nvidia-fabricmanager, nvidia-fabricmanager-535 (not -dev, not the
 * cuda-drivers-fabricmanager meta package) */
static bool fm_package(const char *name)
{
	if (strcmp(name, "nvidia-fabricmanager") == 0)
		return true;
	if (!str_startswith(name, "nvidia-fabricmanager-"))
		return false;
	for (const char *p = name + strlen("nvidia-fabricmanager-"); *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

void fm_dpkg_line(struct dpkg_scan *st, const char *line, char *name, size_t namesz, char *version, size_t versz)
{
	if (!line[0]) {
		if (st->fm && st->installed && st->ver[0]) {
			str_copy(name, st->pkg, namesz);
			debian_upstream(st->ver, version, versz);
		}
		memset(st, 0, sizeof(*st));
		return;
	}
	if (str_startswith(line, "Package: ")) {
		str_copy(st->pkg, line + 9, sizeof(st->pkg));
		st->fm = fm_package(st->pkg);
	} else if (str_startswith(line, "Status: ")) {
		st->installed = str_endswith(line, " installed");
	} else if (str_startswith(line, "Version: ")) {
		str_copy(st->ver, line + 9, sizeof(st->ver));
	}
}

static void probe_dpkg(struct fabric_facts *f)
{
	char *data = NULL;
	size_t len = 0;
	if (sr_read_file(DPKG_STATUS, &data, &len, DPKG_MAX) < 0)
		return;
	struct dpkg_scan st;
	memset(&st, 0, sizeof(st));
	const char *cur = data;
	char line[512];
	bool fits;
	while (text_next_line(&cur, line, sizeof(line), &fits))
		if (fits) /* an over-long line is none of the three fields, and no blank */
			fm_dpkg_line(&st, line, f->fm_pkg_name, sizeof(f->fm_pkg_name), f->fm_pkg_version, sizeof(f->fm_pkg_version));
	fm_dpkg_line(&st, "", f->fm_pkg_name, sizeof(f->fm_pkg_name), f->fm_pkg_version, sizeof(f->fm_pkg_version));
	free(data);
}

/* The pids of processes whose comm is fm_comm or imex_comm (/proc/PID/comm,
 * 15 characters at most: "nv-fabricmanage"). */
static void probe_processes(struct fabric_facts *f)
{
	char **names = NULL;
	size_t n = 0;
	int r = sr_list_dir("/proc", &names, &n);
	if (r < 0) {
		f->proc_err = r;
		return;
	}
	size_t seen = 0;
	for (size_t i = 0; i < n && seen < MAX_PIDS; i++) {
		char *end;
		long pid = strtol(names[i], &end, 10);
		if (*end || pid <= 0)
			continue;
		seen++;
		char path[64], comm[64];
		xsnprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (sr_read_str(path, comm, sizeof(comm)) < 0)
			continue;
		if (!f->fm_pid && str_startswith(comm, "nv-fabricmanage"))
			f->fm_pid = (int)pid;
		else if (!f->imex_pid && strcmp(comm, "nvidia-imex") == 0)
			f->imex_pid = (int)pid;
	}
	sr_names_free(names, n);
}

static void probe_unit(struct fabric_facts *f)
{
	static const char *const dirs[] = { "/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !f->fm_unit[0]; i++) {
		char path[160];
		xsnprintf(path, sizeof(path), "%s/%s", dirs[i], FM_UNIT);
		struct stat st;
		/* /etc/systemd/system/X.service -> /dev/null is a masked unit */
		char target[64];
		if (sr_lstat(path, &st) == 0 && !(S_ISLNK(st.st_mode) && sr_readlink(path, target, sizeof(target)) >= 0 &&
						   strcmp(target, "/dev/null") == 0))
			str_copy(f->fm_unit, path, sizeof(f->fm_unit));
	}
	char **paths = NULL;
	size_t n = 0;
	/* enabled: the unit's link in a *.wants folder, tested with lstat. In
	 * a sysroot that link's absolute target dangles, and a glob whose last
	 * part names it may leave it out: the release binaries' glob (the
	 * glibc 2.17 symbol, src/compat/glibc217.h) does on glibc 2.31. */
	if (sr_glob("/etc/systemd/system/*.wants", &paths, &n) >= 0) {
		f->fm_enabled = false;
		for (size_t i = 0; i < n && !f->fm_enabled; i++) {
			char wants[PATH_MAX];
			struct stat st;
			f->fm_enabled = xsnprintf(wants, sizeof(wants), "%s/%s", paths[i], FM_UNIT) >= 0 &&
					sr_lstat(wants, &st) == 0;
		}
		sr_names_free(paths, n);
	}
}

/* Reads the last FM_LOG_TAIL bytes of the log and keeps the start lines and
 * the errors after the last start. */
static void probe_log(struct fabric_facts *f)
{
	if (f->fm_log[0] != '/') { /* a relative LOG_FILE_NAME: relative to what the service ran in, unknown here */
		f->fm_log_err = -EINVAL;
		return;
	}
	int fd = sr_open(f->fm_log, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		f->fm_log_err = fd;
		return;
	}
	struct stat st;
	off_t from = 0;
	if (fstat(fd, &st) == 0 && st.st_size > FM_LOG_TAIL)
		from = st.st_size - FM_LOG_TAIL;
	char *buf = malloc(FM_LOG_TAIL + 1);
	ssize_t got = buf ? pread(fd, buf, FM_LOG_TAIL, from) : -1;
	int e = errno;
	close(fd);
	if (got < 0) {
		f->fm_log_err = buf ? -e : -ENOMEM;
		free(buf);
		return;
	}
	buf[got] = '\0';
	const char *cur = buf;
	if (from > 0) { /* the first line is cut: skip it */
		const char *nl = memchr(buf, '\n', (size_t)got);
		cur = nl ? nl + 1 : buf + got;
	}
	char line[1024];
	bool fits;
	while (text_next_line(&cur, line, sizeof(line), &fits)) {
		char ver[48] = "";
		switch (fm_log_line(line, ver, sizeof(ver))) {
		case FM_LINE_START:
			f->fm_log_starts++;
			if (ver[0])
				str_copy(f->fm_log_version, ver, sizeof(f->fm_log_version));
			f->fm_log_errors = f->fm_nlast = 0; /* a new instance: older errors are history */
			break;
		case FM_LINE_ERROR:
			f->fm_log_errors++;
			if (f->fm_nlast == FM_MAX_ERRORS) {
				memmove(f->fm_last_errors[0], f->fm_last_errors[1], sizeof(f->fm_last_errors[0]) * (FM_MAX_ERRORS - 1));
				f->fm_nlast--;
			}
			str_copy(f->fm_last_errors[f->fm_nlast++], str_trim(line), sizeof(f->fm_last_errors[0]));
			break;
		case FM_LINE_OTHER:
			break;
		}
	}
	free(buf);
}

void fabric_probe(struct fabric_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->fm_binary = sr_exists(FM_BINARY);
	probe_unit(f);
	probe_processes(f);
	probe_dpkg(f);
	char *cfg = NULL;
	size_t len = 0;
	str_copy(f->fm_log, FM_DEFAULT_LOG, sizeof(f->fm_log));
	if (sr_read_file(FM_CONFIG, &cfg, &len, 256 * 1024) >= 0) {
		f->fm_config = true;
		char val[256];
		if (fm_config_log_file(cfg, val, sizeof(val)) == 1) {
			if (val[0])
				str_copy(f->fm_log, val, sizeof(f->fm_log));
			else
				f->fm_log_syslog = true;
		}
		free(cfg);
	}
	if (f->fm_log_syslog)
		f->fm_log_err = -ENOENT;
	else
		probe_log(f);
	f->imex_binary = sr_exists(IMEX_BINARY);
	f->imex_config = sr_exists(IMEX_CONFIG_DIR "/nodes_config.cfg");
	char **names = NULL;
	size_t n = 0;
	if (sr_list_dir(IMEX_CHANNEL_DIR, &names, &n) >= 0) {
		f->imex_channel_dir = true;
		for (size_t i = 0; i < n; i++)
			f->imex_channels += str_startswith(names[i], "channel");
		sr_names_free(names, n);
	}
}
