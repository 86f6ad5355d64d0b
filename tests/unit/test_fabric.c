/* Unit tests of probe/fabric: fabricmanager.cfg's LOG_FILE_NAME, the lines of
 * the fabric manager's log, the dpkg status scan, and fabric_probe over
 * small trees written here (process, unit, enabled link, log tail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/fabric.h"
#include "util/sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_config(void **state)
{
	(void)state;
	char v[256];
	assert_int_equal(fm_config_log_file("# LOG_FILE_NAME=/nope\nLOG_LEVEL=4\nLOG_FILE_NAME=/var/log/fm.log\n", v, sizeof(v)), 1);
	assert_string_equal(v, "/var/log/fm.log");
	assert_int_equal(fm_config_log_file("LOG_FILE_NAME =  /a/b.log  \r\n", v, sizeof(v)), 1);
	assert_string_equal(v, "/a/b.log");
	assert_int_equal(fm_config_log_file("LOG_FILE_NAME=\n", v, sizeof(v)), 1);
	assert_string_equal(v, "");
	assert_int_equal(fm_config_log_file("LOG_LEVEL=4\nLOG_FILE_NAMEX=1\n", v, sizeof(v)), 0);
	assert_int_equal(fm_config_log_file("", v, sizeof(v)), 0);
}

static void test_log_lines(void **state)
{
	(void)state;
	char v[48] = "";
	assert_int_equal(fm_log_line("[Mar 16 2023 09:25:36] [INFO] [tid 2112] Fabric Manager version 535.161.08 is running "
				     "with the following configuration options", v, sizeof(v)), FM_LINE_START);
	assert_string_equal(v, "535.161.08");
	assert_int_equal(fm_log_line("[Mar 16 2023 09:25:40] [ERROR] [tid 2130] fabric manager version is incompatible with "
				     "NVSwitch driver", v, sizeof(v)), FM_LINE_ERROR);
	assert_int_equal(fm_log_line("[Mar 16 2023 09:25:40] [INFO] [tid 2130] Connected to 1 node.", v, sizeof(v)), FM_LINE_OTHER);
	assert_int_equal(fm_log_line("Fabric Manager version is : 535.1", v, sizeof(v)), FM_LINE_OTHER);
	char small[4] = "";
	assert_int_equal(fm_log_line("Fabric Manager version 570.124.06 is running with x", small, sizeof(small)), FM_LINE_START);
	assert_string_equal(small, "570");
}

static void scan(const char *text, char *name, char *ver)
{
	struct dpkg_scan st;
	memset(&st, 0, sizeof(st));
	name[0] = ver[0] = '\0';
	char *copy = strdup(text), *save = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		fm_dpkg_line(&st, strcmp(l, ".") == 0 ? "" : l, name, 64, ver, 48);
	fm_dpkg_line(&st, "", name, 64, ver, 48);
	free(copy);
}

static void test_dpkg(void **state)
{
	(void)state;
	char name[64], ver[48];
	scan("Package: cuda-drivers-fabricmanager-535\nStatus: install ok installed\nVersion: 535.161.08-1\n.\n"
	     "Package: nvidia-fabricmanager-535\nStatus: install ok installed\nVersion: 535.161.08-1\n.\n"
	     "Package: zlib1g\nStatus: install ok installed\nVersion: 1:1.2.13\n", name, ver);
	assert_string_equal(name, "nvidia-fabricmanager-535");
	assert_string_equal(ver, "535.161.08");
	/* removed (config files left) does not count; the unversioned name does */
	scan("Package: nvidia-fabricmanager-570\nStatus: deinstall ok config-files\nVersion: 570.86.15-1\n.\n", name, ver);
	assert_string_equal(ver, "");
	scan("Package: nvidia-fabricmanager\nStatus: install ok installed\nVersion: 1:580.95.05-1ubuntu1\n", name, ver);
	assert_string_equal(name, "nvidia-fabricmanager");
	assert_string_equal(ver, "580.95.05");
	scan("Package: nvidia-fabricmanager-dev-535\nStatus: install ok installed\nVersion: 535.1-1\n", name, ver);
	assert_string_equal(ver, "");
}

static char root[256];

static void put(const char *path, const char *text)
{
	char p[512], cmd[600];
	snprintf(p, sizeof(p), "%s%s", root, path);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_probe_tree(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/nd-fabric-%d", (int)getpid());
	put("/proc/1/comm", "systemd\n");
	put("/proc/2300/comm", "nv-fabricmanage\n");
	put("/proc/self/comm", "x\n");
	put("/usr/bin/nv-fabricmanager", "");
	put("/lib/systemd/system/nvidia-fabricmanager.service", "[Unit]\n");
	put("/usr/share/nvidia/nvswitch/fabricmanager.cfg", "LOG_FILE_NAME=/var/log/fm/fm.log\n");
	/* an old instance's error, a start, then two errors of the current one */
	put("/var/log/fm/fm.log", "[a] [ERROR] [tid 1] old\n"
				  "[b] [INFO] [tid 2] Fabric Manager version 570.86.15 is running with the following configuration options\n"
				  "[c] [ERROR] [tid 2] first\n[d] [WARNING] [tid 2] w\n[e] [ERROR] [tid 2] second\n");
	put("/etc/nvidia-imex/nodes_config.cfg", "10.0.0.1\n");
	assert_int_equal(sysroot_set(root), 0);
	struct fabric_facts f;
	fabric_probe(&f);
	assert_true(f.fm_binary);
	assert_string_equal(f.fm_unit, "/lib/systemd/system/nvidia-fabricmanager.service");
	assert_false(f.fm_enabled);
	assert_int_equal(f.fm_pid, 2300);
	assert_string_equal(f.fm_log, "/var/log/fm/fm.log");
	assert_int_equal(f.fm_log_err, 0);
	assert_string_equal(f.fm_log_version, "570.86.15");
	assert_int_equal(f.fm_log_starts, 1);
	assert_int_equal(f.fm_log_errors, 2);
	assert_int_equal(f.fm_nlast, 2);
	assert_string_equal(f.fm_last_errors[1], "[e] [ERROR] [tid 2] second");
	assert_true(f.imex_config);
	assert_int_equal(f.imex_pid, 0);
	assert_false(f.imex_channel_dir);
	/* enabled: a link in a .wants directory */
	char p[512];
	snprintf(p, sizeof(p), "%s/etc/systemd/system/multi-user.target.wants", root);
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && ln -s /lib/systemd/system/nvidia-fabricmanager.service %s/", p, p);
	assert_int_equal(system(cmd), 0);
	fabric_probe(&f);
	assert_true(f.fm_enabled);
	/* a relative log path is not guessed at; a log that is a FIFO is refused, not read */
	put("/usr/share/nvidia/nvswitch/fabricmanager.cfg", "LOG_FILE_NAME=fm.log\n");
	fabric_probe(&f);
	assert_int_equal(f.fm_log_err, -EINVAL);
	assert_int_equal(f.fm_log_errors, 0);
	put("/usr/share/nvidia/nvswitch/fabricmanager.cfg", "LOG_FILE_NAME=/var/log/fm.fifo\n");
	snprintf(cmd, sizeof(cmd), "mkfifo %s/var/log/fm.fifo", root);
	assert_int_equal(system(cmd), 0);
	fabric_probe(&f);
	assert_true(f.fm_log_err < 0);
	/* LOG_FILE_NAME empty: syslog, no file read */
	put("/usr/share/nvidia/nvswitch/fabricmanager.cfg", "LOG_FILE_NAME=\n");
	fabric_probe(&f);
	assert_true(f.fm_log_syslog);
	sysroot_set(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* a log larger than the tail: only the tail is read, its cut first line skipped */
static void test_probe_big_log(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/nd-fabric-big-%d", (int)getpid());
	put("/proc/.keep", "");
	char p[512];
	snprintf(p, sizeof(p), "%s/var/log/fabricmanager.log", root);
	put("/var/log/fabricmanager.log", "");
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	for (int i = 0; i < 20000; i++)
		fprintf(f, "[x] [ERROR] [tid 1] an error of the first instance, line %d\n", i);
	fprintf(f, "[y] [INFO] [tid 9] Fabric Manager version 580.95.05 is running with the following configuration options\n");
	fprintf(f, "[z] [ERROR] [tid 9] GPU 0000:18:00.0 failed to register\n");
	fclose(f);
	assert_int_equal(sysroot_set(root), 0);
	struct fabric_facts fa;
	fabric_probe(&fa);
	assert_int_equal(fa.fm_log_err, 0);
	assert_int_equal(fa.fm_log_starts, 1);
	assert_int_equal(fa.fm_log_errors, 1);
	assert_string_equal(fa.fm_log_version, "580.95.05");
	assert_false(fa.fm_binary);
	assert_int_equal(fa.fm_pid, 0);
	sysroot_set(NULL);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_log_lines),
		cmocka_unit_test(test_dpkg),
		cmocka_unit_test(test_probe_tree),
		cmocka_unit_test(test_probe_big_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
