/* Unit tests of the host, driver and network parsers: /proc/PID/limits rows,
 * the kernel command line (last occurrence, bare flags, quotes, prefixes),
 * mountinfo (optional fields, the docker /dev/shm line, last mount wins) and
 * mount options, the ASPM policy, /proc/cpuinfo (AMD, Intel, the hypervisor
 * flag as a whole word), /proc/driver/nvidia/version (open and proprietary
 * modules, garbage) and the virtual interface kinds. Real /proc text of
 * this machine too, where it exists. The file reads analyze/ asks probe/
 * for: a GPU's /proc/driver/nvidia information, IOMMU units and group
 * types, nccl.conf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/driver.h"
#include "probe/environ.h"
#include "probe/iommu.h"
#include "probe/host.h"
#include "probe/live.h"
#include "probe/net.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- limits ---- */

static const char LIMITS[] =
	"Limit                     Soft Limit           Hard Limit           Units     \n"
	"Max cpu time              unlimited            unlimited            seconds   \n"
	"Max file size             unlimited            unlimited            bytes     \n"
	"Max data size             unlimited            unlimited            bytes     \n"
	"Max stack size            8388608              unlimited            bytes     \n"
	"Max core file size        0                    unlimited            bytes     \n"
	"Max resident set          unlimited            unlimited            bytes     \n"
	"Max processes             96363                96363                processes \n"
	"Max open files            1024                 1048576              files     \n"
	"Max locked memory         65536                65536                bytes     \n"
	"Max address space         unlimited            unlimited            bytes     \n"
	"Max file locks            unlimited            unlimited            locks     \n"
	"Max pending signals       96363                96363                signals   \n"
	"Max msgqueue size         819200               819200               bytes     \n"
	"Max nice priority         0                    0                    \n"
	"Max realtime priority     0                    0                    \n"
	"Max realtime timeout      unlimited            unlimited            us        \n";

static void test_limits_parse(void **state)
{
	(void)state;
	struct rlimit_pair p;
	assert_int_equal(limits_parse(LIMITS, "Max locked memory", &p), 0);
	assert_true(p.known);
	assert_true(p.soft == 65536 && p.hard == 65536);
	assert_int_equal(limits_parse(LIMITS, "Max stack size", &p), 0);
	assert_true(p.soft == 8388608);
	assert_true(p.hard == LIMIT_UNLIMITED);
	assert_int_equal(limits_parse(LIMITS, "Max open files", &p), 0);
	assert_true(p.soft == 1024 && p.hard == 1048576);
	assert_int_equal(limits_parse(LIMITS, "Max cpu time", &p), 0);
	assert_true(p.soft == LIMIT_UNLIMITED && p.hard == LIMIT_UNLIMITED);
	/* rows without units, and the last row */
	assert_int_equal(limits_parse(LIMITS, "Max nice priority", &p), 0);
	assert_true(p.soft == 0 && p.hard == 0);
	assert_int_equal(limits_parse(LIMITS, "Max realtime timeout", &p), 0);
	assert_true(p.soft == LIMIT_UNLIMITED);
	/* "Max realtime" is a prefix of two rows, not a row */
	assert_int_equal(limits_parse(LIMITS, "Max realtime", &p), -EINVAL);

	/* missing row */
	p.known = true;
	assert_int_equal(limits_parse(LIMITS, "Max frobs", &p), -ENOENT);
	assert_false(p.known);
	assert_int_equal(limits_parse("", "Max locked memory", &p), -ENOENT);
	/* the row at the end without a newline */
	assert_int_equal(limits_parse("Max locked memory         unlimited            unlimited", "Max locked memory", &p), 0);
	assert_true(p.soft == LIMIT_UNLIMITED);
	/* garbled rows */
	assert_int_equal(limits_parse("Max locked memory         lots                 65536      bytes\n", "Max locked memory", &p), -EINVAL);
	assert_false(p.known);
	assert_int_equal(limits_parse("Max locked memory         65536\n", "Max locked memory", &p), -EINVAL);
	assert_int_equal(limits_parse("Max locked memory\n", "Max locked memory", &p), -ENOENT);
	assert_int_equal(limits_parse("Max locked memory   -1   -1  bytes\n", "Max locked memory", &p), -EINVAL);
	assert_int_equal(limits_parse("Max locked memory   99999999999999999999999 1 bytes\n", "Max locked memory", &p), -EINVAL);
	assert_int_equal(limits_parse("Max locked memoryX  1 1\n", "Max locked memory", &p), -ENOENT);
	/* a row of 10000 characters: cut, no overrun */
	char *long_row = malloc(10100);
	strcpy(long_row, "Max locked memory ");
	memset(long_row + 18, ' ', 10000);
	strcpy(long_row + 10018, "1 2\n");
	assert_int_equal(limits_parse(long_row, "Max locked memory", &p), -EINVAL);
	free(long_row);
}

static void test_limits_real(void **state)
{
	(void)state;
	char *data;
	size_t len;
	sysroot_set(NULL);
	if (sr_read_file("/proc/self/limits", &data, &len, 65536) < 0)
		skip();
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	struct rlimit_pair p;
	assert_int_equal(limits_parse(data, "Max open files", &p), 0);
	assert_true(p.soft == (rl.rlim_cur == RLIM_INFINITY ? LIMIT_UNLIMITED : (uint64_t)rl.rlim_cur));
	assert_true(p.hard == (rl.rlim_max == RLIM_INFINITY ? LIMIT_UNLIMITED : (uint64_t)rl.rlim_max));
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	assert_int_equal(limits_parse(data, "Max locked memory", &p), 0);
	assert_true(p.soft == (rl.rlim_cur == RLIM_INFINITY ? LIMIT_UNLIMITED : (uint64_t)rl.rlim_cur));
	assert_int_equal(getrlimit(RLIMIT_STACK, &rl), 0);
	assert_int_equal(limits_parse(data, "Max stack size", &p), 0);
	assert_true(p.soft == (rl.rlim_cur == RLIM_INFINITY ? LIMIT_UNLIMITED : (uint64_t)rl.rlim_cur));
	free(data);
}

/* ---- kernel command line ---- */

static void check_cmd(const char *cmdline, const char *key, const char *want)
{
	char v[64];
	strcpy(v, "junk");
	bool found = cmdline_get(cmdline, key, v, sizeof(v));
	if (!want) {
		if (found)
			fail_msg("'%s' found in '%s' with value '%s'", key, cmdline, v);
		assert_string_equal(v, "");
		return;
	}
	if (!found)
		fail_msg("'%s' not found in '%s'", key, cmdline);
	assert_string_equal(v, want);
}

static void test_cmdline_get(void **state)
{
	(void)state;
	const char *c = "BOOT_IMAGE=/boot/vmlinuz-6.8.0-51-generic root=UUID=4c1d-9f ro iommu=pt "
			"intel_iommu=on,sm_on iommu.passthrough=1 quiet splash pci=noaer\n";
	check_cmd(c, "BOOT_IMAGE", "/boot/vmlinuz-6.8.0-51-generic");
	check_cmd(c, "root", "UUID=4c1d-9f");
	check_cmd(c, "ro", "");
	check_cmd(c, "quiet", "");
	check_cmd(c, "splash", "");
	check_cmd(c, "iommu", "pt");
	check_cmd(c, "intel_iommu", "on,sm_on");
	check_cmd(c, "iommu.passthrough", "1");
	check_cmd(c, "pci", "noaer");
	check_cmd(c, "amd_iommu", NULL);
	check_cmd(c, "iommu.strict", NULL);
	check_cmd(c, "r", NULL);
	check_cmd(c, "quie", NULL);
	check_cmd(c, "intel", NULL);
	/* "iommu" is not "iommu.passthrough", and the other way round */
	check_cmd("iommu.passthrough=0", "iommu", NULL);
	check_cmd("iommu=pt", "iommu.passthrough", NULL);
	check_cmd("amd_iommu=off", "iommu", NULL);
	/* the last occurrence wins */
	check_cmd("iommu=off quiet iommu=pt", "iommu", "pt");
	check_cmd("iommu=pt iommu", "iommu", "");
	check_cmd("pcie_acs_override=downstream pcie_acs_override=downstream,multifunction",
		  "pcie_acs_override", "downstream,multifunction");
	/* empty value, tabs, several spaces */
	check_cmd("iommu= quiet", "iommu", "");
	check_cmd("\t ro\t\tiommu=soft  \n", "iommu", "soft");
	check_cmd("", "iommu", NULL);
	check_cmd("   \n", "iommu", NULL);
	/* quotes: spaces inside are part of the value, the quotes are not */
	check_cmd("dyndbg=\"file nv.c +p\" iommu=pt", "dyndbg", "file nv.c +p");
	check_cmd("dyndbg=\"file nv.c +p\" iommu=pt", "iommu", "pt");
	check_cmd("dyndbg=\"iommu=off\" quiet", "iommu", NULL);
	check_cmd("\"intel_iommu=on\" quiet", "intel_iommu", "on");
	check_cmd("\"quiet\"", "quiet", "");
	check_cmd("acpi_osi=\"\" ro", "acpi_osi", "");
	/* an unterminated quote runs to the end */
	check_cmd("x=\"a b iommu=pt", "iommu", NULL);
	check_cmd("x=\"a b iommu=pt", "x", "a b iommu=pt");

	/* a value longer than the buffer is cut */
	char small[4];
	assert_true(cmdline_get("iommu=passthrough", "iommu", small, sizeof(small)));
	assert_string_equal(small, "pas");
	assert_true(cmdline_get("iommu=pt", "iommu", NULL, 0));
}

/* ---- mountinfo ---- */

static const char MOUNTINFO[] =
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	"23 27 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"27 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	"28 24 0:24 / /dev/shm rw,nosuid,nodev shared:4 master:1 propagate_from:2 - tmpfs tmpfs rw,size=32G,inode64\n"
	"short line\n"
	"\n"
	"1234 1200 0:123 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k\n"
	"1300 1200 0:124 / /dev/shm2 rw - tmpfs shm rw,size=1k\n"
	"1301 1200 0:125 / /mnt/no-separator rw,relatime\n";

static void test_mountinfo(void **state)
{
	(void)state;
	struct mount_entry m;
	/* the docker mount over the host's: the last one is visible */
	assert_int_equal(mountinfo_find(MOUNTINFO, "/dev/shm", &m), 0);
	assert_string_equal(m.mountpoint, "/dev/shm");
	assert_string_equal(m.fstype, "tmpfs");
	assert_string_equal(m.options, "rw,nosuid,nodev,noexec,relatime,rw,size=65536k");
	char v[32];
	assert_true(mount_option(m.options, "size", v, sizeof(v)));
	assert_string_equal(v, "65536k");
	uint64_t bytes;
	assert_int_equal(parse_size(v, &bytes), 0);
	assert_true(bytes == 64ULL << 20);

	/* optional fields before the separator */
	const char *host_only = MOUNTINFO + strlen("22 27 0:21 / /proc rw,relatime - proc proc rw\n");
	char buf[1024];
	str_copy(buf, host_only, sizeof(buf));
	*strstr(buf, "short line") = '\0';
	assert_int_equal(mountinfo_find(buf, "/dev/shm", &m), 0);
	assert_string_equal(m.fstype, "tmpfs");
	assert_string_equal(m.options, "rw,nosuid,nodev,rw,size=32G,inode64");
	assert_true(mount_option(m.options, "size", v, sizeof(v)));
	assert_string_equal(v, "32G");
	assert_int_equal(parse_size(v, &bytes), 0);
	assert_true(bytes == 32ULL << 30);

	assert_int_equal(mountinfo_find(MOUNTINFO, "/", &m), 0);
	assert_string_equal(m.fstype, "ext4");
	assert_string_equal(m.options, "rw,relatime,rw,errors=remount-ro");
	assert_int_equal(mountinfo_find(MOUNTINFO, "/sys", &m), 0);
	assert_string_equal(m.fstype, "sysfs");
	/* a line without the "-" separator: no fstype, per-mount options only */
	assert_int_equal(mountinfo_find(MOUNTINFO, "/mnt/no-separator", &m), 0);
	assert_string_equal(m.fstype, "");
	assert_string_equal(m.options, "rw,relatime");
	/* not found; no prefix match */
	assert_int_equal(mountinfo_find(MOUNTINFO, "/dev", &m), -ENOENT);
	assert_int_equal(mountinfo_find(MOUNTINFO, "/dev/sh", &m), -ENOENT);
	assert_int_equal(mountinfo_find("", "/dev/shm", &m), -ENOENT);
	assert_int_equal(mountinfo_find("garbage\n\x01\x02\xff\n", "/dev/shm", &m), -ENOENT);
	/* the last line without a newline */
	assert_int_equal(mountinfo_find("1 2 0:3 / /dev/shm rw - tmpfs t rw,size=8g", "/dev/shm", &m), 0);
	assert_true(mount_option(m.options, "size", v, sizeof(v)));
	assert_string_equal(v, "8g");
	/* a line longer than the parser's buffer is skipped, the next one read */
	char *huge = malloc(10000);
	memset(huge, 'o', 9000);
	memcpy(huge, "1 2 0:3 / /dev/shm ", 19);
	strcpy(huge + 9000, " - tmpfs t rw,size=1k\n1 2 0:3 / /dev/shm rw - tmpfs t rw,size=2k\n");
	assert_int_equal(mountinfo_find(huge, "/dev/shm", &m), 0);
	assert_string_equal(m.options, "rw,rw,size=2k");
	free(huge);
}

static void test_mount_option(void **state)
{
	(void)state;
	char v[16];
	assert_true(mount_option("rw,size=65536k,mode=1777", "size", v, sizeof(v)));
	assert_string_equal(v, "65536k");
	assert_true(mount_option("rw,size=65536k,mode=1777", "mode", v, sizeof(v)));
	assert_string_equal(v, "1777");
	assert_true(mount_option("rw,size=65536k,mode=1777", "rw", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_false(mount_option("rw,size=65536k,mode=1777", "siz", v, sizeof(v)));
	assert_false(mount_option("rw,sizex=1k", "size", v, sizeof(v)));
	assert_false(mount_option("rw,nr_inodes=1k", "inodes", v, sizeof(v)));
	assert_false(mount_option("", "size", v, sizeof(v)));
	assert_false(mount_option(",,,", "size", v, sizeof(v)));
	/* the later value wins (per-mount, then super options) */
	assert_true(mount_option("size=1k,rw,size=2k", "size", v, sizeof(v)));
	assert_string_equal(v, "2k");
	/* cut to the buffer */
	char small[3];
	assert_true(mount_option("size=65536k", "size", small, sizeof(small)));
	assert_string_equal(small, "65");
	assert_true(mount_option("size=65536k", "size", NULL, 0));
}

static void test_mountinfo_real(void **state)
{
	(void)state;
	char *data;
	size_t len;
	sysroot_set(NULL);
	if (sr_read_file("/proc/self/mountinfo", &data, &len, 1 << 20) < 0)
		skip();
	struct mount_entry m;
	assert_int_equal(mountinfo_find(data, "/proc", &m), 0);
	assert_string_equal(m.fstype, "proc");
	free(data);
}

/* ---- ASPM ---- */

static void test_aspm(void **state)
{
	(void)state;
	char out[32];
	assert_true(aspm_active_policy("[default] performance powersave powersupersave", out, sizeof(out)));
	assert_string_equal(out, "default");
	assert_true(aspm_active_policy("default performance [powersave] powersupersave\n", out, sizeof(out)));
	assert_string_equal(out, "powersave");
	assert_true(aspm_active_policy("default performance powersave [powersupersave]", out, sizeof(out)));
	assert_string_equal(out, "powersupersave");
	assert_false(aspm_active_policy("default performance powersave", out, sizeof(out)));
	assert_false(aspm_active_policy("", out, sizeof(out)));
	assert_false(aspm_active_policy("[]", out, sizeof(out)));
	assert_false(aspm_active_policy("[default", out, sizeof(out)));
	assert_false(aspm_active_policy("] default [", out, sizeof(out)));
	char small[4];
	assert_true(aspm_active_policy("[performance]", small, sizeof(small)));
	assert_string_equal(small, "per");
}

/* ---- cpuinfo ---- */

static const char CPU_INTEL[] =
	"processor\t: 0\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 143\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
	"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor lahf_lm abm\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: GenuineIntel\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
	"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor lahf_lm abm\n"
	"\n";

static const char CPU_AMD[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 25\n"
	"model\t\t: 17\n"
	"model name\t: AMD EPYC 9654 96-Core Processor\n"
	"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov svm extapic cr8_legacy\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: AuthenticAMD\n"
	"model name\t: AMD EPYC 9654 96-Core Processor\n"
	"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov svm extapic cr8_legacy\n"
	"\n"
	"processor\t: 2\n"
	"vendor_id\t: AuthenticAMD\n"
	"\n"
	"processor\t: 3\n";

static void test_cpuinfo(void **state)
{
	(void)state;
	struct cpuinfo c;
	cpuinfo_parse(CPU_INTEL, &c);
	assert_string_equal(c.vendor, "GenuineIntel");
	assert_string_equal(c.model, "Intel(R) Xeon(R) Platinum 8480+");
	assert_true(c.hypervisor);
	assert_int_equal(c.ncpus, 2);

	cpuinfo_parse(CPU_AMD, &c);
	assert_string_equal(c.vendor, "AuthenticAMD");
	assert_string_equal(c.model, "AMD EPYC 9654 96-Core Processor");
	assert_false(c.hypervisor);
	assert_int_equal(c.ncpus, 4);

	/* the hypervisor flag as a whole word only */
	cpuinfo_parse("flags\t: fpu hypervisorx nothypervisor hypervisor_lite\n", &c);
	assert_false(c.hypervisor);
	cpuinfo_parse("flags\t: hypervisor\n", &c);
	assert_true(c.hypervisor);
	cpuinfo_parse("flags\t: fpu hypervisor", &c);
	assert_true(c.hypervisor);
	/* a "hypervisor" word elsewhere is not the flag */
	cpuinfo_parse("model name\t: hypervisor\nbugs\t: hypervisor\n", &c);
	assert_false(c.hypervisor);
	assert_string_equal(c.model, "hypervisor");

	/* ARM style: "Model" */
	cpuinfo_parse("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nModel\t: Grace\n", &c);
	assert_string_equal(c.model, "Grace");
	assert_int_equal(c.ncpus, 1);
	assert_string_equal(c.vendor, "");

	/* garbage and empty input */
	cpuinfo_parse("", &c);
	assert_int_equal(c.ncpus, 0);
	assert_string_equal(c.vendor, "");
	cpuinfo_parse("\x01\x02\xff:\xfe\n:::\n processor :x\n", &c);
	assert_int_equal(c.ncpus, 1);
	/* a vendor longer than the field is cut */
	char longv[200];
	memset(longv, 'V', sizeof(longv));
	memcpy(longv, "vendor_id: ", 11);
	longv[199] = '\0';
	cpuinfo_parse(longv, &c);
	assert_int_equal(strlen(c.vendor), sizeof(c.vendor) - 1);
}

static void test_cpuinfo_real(void **state)
{
	(void)state;
	char *data;
	size_t len;
	sysroot_set(NULL);
	if (sr_read_file("/proc/cpuinfo", &data, &len, 4 << 20) < 0)
		skip();
	struct cpuinfo c;
	cpuinfo_parse(data, &c);
	/* x86 counts "processor" lines; other architectures may differ */
	int lines = 0;
	for (const char *p = data; (p = strstr(p, "processor")); p++)
		if (p == data || p[-1] == '\n')
			lines++;
	assert_int_equal(c.ncpus, lines);
#if defined(__x86_64__)
	assert_true(c.vendor[0] != '\0');
	assert_true(c.ncpus > 0);
	bool flag = strstr(data, " hypervisor ") || strstr(data, " hypervisor\n");
	assert_int_equal(c.hypervisor, flag);
#endif
	free(data);
}

/* ---- driver version ---- */

static void check_version(const char *text, bool ok, const char *want, bool open)
{
	char v[32];
	bool o = !open;
	strcpy(v, "none");
	assert_int_equal(driver_parse_version(text, v, sizeof(v), &o), ok);
	if (ok) {
		assert_string_equal(v, want);
		assert_int_equal(o, open);
	}
}

static void test_driver_version(void **state)
{
	(void)state;
	check_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
		      "(dvs-builder@U16-I3-B03-4-3)  Thu Nov 20 08:42:56 UTC 2025\n"
		      "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n",
		      true, "580.159.04", true);
	check_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.154.05  Thu Dec 28 15:37:48 UTC 2023\n"
		      "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n",
		      true, "535.154.05", false);
	check_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.54.15  Tue Mar  5 22:15:33 UTC 2024",
		      true, "550.54.15", false);
	/* two-part versions of old drivers */
	check_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  390.157  Wed Oct 12 09:19:07 UTC 2022",
		      true, "390.157", false);
	/* the GCC line's version must not be taken */
	check_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\nGCC version:  gcc version 12.3.0\n",
		      false, NULL, false);
	/* garbage */
	check_version("", false, NULL, false);
	check_version("hello world 1.2.3", false, NULL, false);
	check_version("NVRM version:", false, NULL, false);
	check_version("NVRM version: 580", false, NULL, false);
	check_version("NVRM version: v580.1 5.x 580.a1", false, NULL, false);
	check_version("\x01\x02\xff NVRM version: \xff\xfe 1.2", true, "1.2", false);
	/* a very long first line: bounded, only its first 511 bytes are looked at */
	char *big = malloc(5000);
	strcpy(big, "NVRM version: ");
	memset(big + 14, 'x', 4000);
	strcpy(big + 4014, " 580.1\n");
	check_version(big, false, NULL, false);
	free(big);
	/* a version longer than the buffer is cut */
	char v[6];
	bool open;
	assert_true(driver_parse_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.154.05  ", v, sizeof(v), &open));
	assert_string_equal(v, "535.1");
}

/* ---- network ---- */

static void test_net_virtual_kind(void **state)
{
	(void)state;
	static const struct {
		const char *name, *kind;
	} cases[] = {
		{ "docker0", "docker bridge" },
		{ "br-1a2b3c4d5e6f", "docker network bridge" },
		{ "veth9f8e7d6", "veth pair" },
		{ "virbr0", "libvirt bridge" },
		{ "tailscale0", "tailscale VPN" },
		{ "tun0", "tunnel" },
		{ "tap0", "tap" },
		{ "wg0", "wireguard VPN" },
		{ "cni0", "CNI bridge" },
		{ "flannel.1", "flannel overlay" },
		{ "cali1234abcd", "calico" },
		{ "vxlan.calico", "vxlan" },
		{ "weave", "weave" },
		{ "kube-ipvs0", "kubernetes" },
		{ "ztabcdef", "zerotier VPN" },
		{ "lxcbr0", "lxc" },
		{ "lxdbr0", "lxd bridge" },
		{ "podman0", "podman bridge" },
		{ "cilium_host", "cilium" },
		{ "genev_sys_6081", "geneve" },
		/* real NICs and the loopback are not virtual kinds */
		{ "eth0", NULL },
		{ "ens3f0np0", NULL },
		{ "enp1s0f1", NULL },
		{ "eno1", NULL },
		{ "ib0", NULL },
		{ "ibp12s0", NULL },
		{ "bond0", NULL },
		{ "br0", NULL },
		{ "lo", NULL },
		{ "", NULL },
		{ "Docker0", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *k = net_virtual_kind(cases[i].name);
		if (!cases[i].kind) {
			if (k)
				fail_msg("'%s' is not virtual, got '%s'", cases[i].name, k);
		} else {
			if (!k)
				fail_msg("'%s' should be '%s'", cases[i].name, cases[i].kind);
			assert_string_equal(k, cases[i].kind);
		}
	}
	struct net_if up = { .operstate = "up" }, unknown = { .operstate = "unknown" }, down = { .operstate = "down" };
	assert_true(net_if_up(&up));
	assert_true(net_if_up(&unknown));
	assert_false(net_if_up(&down));
}

/* ---- host_probe on a recorded container ---- */

static void test_host_probe_docker(void **state)
{
	(void)state;
	assert_int_equal(sysroot_set(ND_FIXTURES "/sysroot/docker-small-shm"), 0);
	live_reset();
	struct host_facts h;
	host_probe(&h);
	assert_string_equal(h.hostname, "3f2a9c1b7d10");
	assert_string_equal(h.kernel, "6.8.0-49-generic");
	assert_true(h.cmdline_known);
	assert_true(cmdline_get(h.cmdline, "ro", NULL, 0));
	assert_string_equal(h.cpu.vendor, "GenuineIntel");
	assert_int_equal(h.cpu.ncpus, 8);
	assert_true(h.dockerenv);
	assert_false(h.containerenv);
	assert_string_equal(h.cgroup_hint, "docker");
	assert_true(h.memlock.known);
	assert_true(h.memlock.soft == 65536 && h.memlock.hard == 65536);
	assert_true(h.stack.soft == LIMIT_UNLIMITED);
	assert_true(h.nofile.soft == 1048576);
	/* /dev/shm: the size= option and the recorded statvfs agree on 64 MiB */
	assert_true(h.shm_mounted);
	assert_string_equal(h.shm_fstype, "tmpfs");
	assert_true(h.shm_size_known);
	assert_true(h.shm_size == 64ULL << 20);
	assert_true(h.shm_free_known);
	assert_true(h.shm_free == 62914560);
	assert_int_equal(h.shm_nccl_files, 1);
	assert_true(h.shm_nccl_bytes == 4096);
	assert_string_equal(h.aspm_policy, "default");
	assert_int_equal(h.rmem_max, 16777216);
	assert_string_equal(h.tcp_rmem, "4096 87380 16777216");
	live_reset();
	sysroot_set(NULL);
}

/* ---- file reads for analyze/: GPU information, IOMMU, nccl.conf ---- */

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int take_all(const char *name, const char *value, void *arg)
{
	char *out = arg;
	size_t o = strlen(out);
	snprintf(out + o, 256 - o, "%s=%s;", name, value);
	return strcmp(name, "NCCL_SKIP") != 0;
}

static void test_probe_reads(void **state)
{
	(void)state;
	char root[] = "/tmp/nd-probe-reads.XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "/proc/driver/nvidia/gpus/0000:18:00.0/information",
	    "Model: \t\t NVIDIA H200\nIRQ:   17\nGPU UUID: \t GPU-0a1b2c3d-aaaa-bbbb-cccc-0123456789ab\nBus Location: 0000:18:00.0\n");
	put(root, "/sys/class/iommu/dmar0/x", "");
	put(root, "/sys/class/iommu/dmar1/x", "");
	put(root, "/sys/kernel/iommu_groups/5/type", "DMA-FQ\n");
	put(root, "/etc/nccl.conf", "# comment\n NCCL_P2P_LEVEL = PIX \nbad line\n=x\nNCCL_SKIP=1\nNCCL_DEBUG=INFO");
	assert_int_equal(sysroot_set(root), 0);

	char model[64] = "keep", uuid[48] = "";
	assert_int_equal(driver_gpu_info("0000:18:00.0", model, sizeof(model), uuid, sizeof(uuid)), 0);
	assert_string_equal(model, "NVIDIA H200");
	assert_string_equal(uuid, "GPU-0a1b2c3d-aaaa-bbbb-cccc-0123456789ab");
	str_copy(model, "keep", sizeof(model));
	assert_int_equal(driver_gpu_info("0000:19:00.0", model, sizeof(model), uuid, sizeof(uuid)), -ENOENT);
	assert_string_equal(model, "keep");
	char longbdf[200];
	memset(longbdf, 'a', sizeof(longbdf) - 1);
	longbdf[sizeof(longbdf) - 1] = '\0';
	assert_int_equal(driver_gpu_info(longbdf, model, sizeof(model), uuid, sizeof(uuid)), -ENAMETOOLONG);
	assert_int_equal(driver_gpu_info("../../x", model, sizeof(model), uuid, sizeof(uuid)), -EINVAL);

	assert_int_equal(iommu_unit_count(), 2);
	char type[32];
	assert_int_equal(iommu_group_type("5", type, sizeof(type)), 0);
	assert_string_equal(type, "DMA-FQ");
	assert_true(iommu_group_type("6", type, sizeof(type)) < 0);
	assert_int_equal(iommu_group_type("5/../5", type, sizeof(type)), -EINVAL);

	char got[256] = "";
	assert_int_equal(ncclconf_read("/etc/nccl.conf", take_all, got), 2);
	assert_string_equal(got, "NCCL_P2P_LEVEL=PIX;NCCL_SKIP=1;NCCL_DEBUG=INFO;");
	assert_int_equal(ncclconf_read("/etc/none.conf", take_all, got), -ENOENT);

	sysroot_set(NULL);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	/* without an IOMMU class directory */
	assert_int_equal(sysroot_set(ND_FIXTURES "/sysroot/no-driver"), 0);
	assert_int_equal(iommu_unit_count(), -ENOENT);
	sysroot_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits_parse),
		cmocka_unit_test(test_limits_real),
		cmocka_unit_test(test_cmdline_get),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_mount_option),
		cmocka_unit_test(test_mountinfo_real),
		cmocka_unit_test(test_aspm),
		cmocka_unit_test(test_cpuinfo),
		cmocka_unit_test(test_cpuinfo_real),
		cmocka_unit_test(test_driver_version),
		cmocka_unit_test(test_net_virtual_kind),
		cmocka_unit_test(test_host_probe_docker),
		cmocka_unit_test(test_probe_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
