/* watch: the kernel log since the job started. At start /dev/kmsg is opened
 * (through the sysroot) and moved to its end; at a stall and at exit the
 * records that arrived since are read without blocking and parsed by the
 * kernel analyser (Xid, SXid, fallen off the bus, PCIe AER, IOMMU faults),
 * whose findings join the diagnosis. --kernel-log FILE follows a growing
 * text log instead (a kern.log that the user may read when /dev/kmsg needs
 * root) or a FIFO, read without blocking, at most WKMSG_READ_MAX bytes and
 * the caller's deadline per look; a device other than /dev/kmsg is refused
 * at the start (/dev/zero would never end). Without permission the
 * diagnosis says so, once per diagnosis. */
#include "analyze/kernel_analyze.h"
#include "engine/watch_int.h"
#include "collect/collect.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/clock.h"
#include "util/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define WKMSG_EVENTS 4096            /* events kept */
#define WKMSG_LINE_MAX 65536
#define WKMSG_READ_MAX (8u << 20)    /* bytes of a file read per look */

static void on_kline(void *ctx, const struct kline *l)
{
	struct watch_kmsg *k = ctx;
	kparser_line(&k->kp, l);
}

/* What --kernel-log FILE may be (the input rules of `logs` and `kernel`,
 * util/input.h): 0 with k->live set for /dev/kmsg's device, else the
 * reason in k->why. */
static int check_type(struct watch_kmsg *k, const char *file, const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode))
		return 0;
	if (S_ISDIR(st->st_mode)) {
		snprintf(k->why, sizeof(k->why), "cannot read '%s': a directory, not a kernel log", file);
		return -EISDIR;
	}
	if (S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 11) {
		k->live = true; /* the kernel's own /dev/kmsg */
		return 0;
	}
	if (S_ISCHR(st->st_mode))
		snprintf(k->why, sizeof(k->why), "cannot read '%s': a character device (%u:%u), not a kernel log", file,
			 major(st->st_rdev), minor(st->st_rdev));
	else
		snprintf(k->why, sizeof(k->why), "cannot read '%s': %s, not a kernel log", file,
			 S_ISBLK(st->st_mode) ? "a block device" : S_ISSOCK(st->st_mode) ? "a socket" : "not a regular file");
	return -SR_ESPECIAL;
}

int wkmsg_open(struct watch_kmsg *k, const char *file)
{
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	kparser_init(&k->kp, WKMSG_EVENTS);
	kreader_init(&k->kr, on_kline, k);
	strbuf_init(&k->partial, WKMSG_LINE_MAX + 1);
	str_copy(k->path, file ? file : "/dev/kmsg", sizeof(k->path));
	struct stat st, st2;
	int fd;
	if (file) {
		/* the type first: opening a FIFO could block, opening some devices acts */
		if (stat(file, &st) < 0) {
			k->open_err = -errno;
			return 0;
		}
		int r = check_type(k, file, &st);
		if (r < 0)
			return r;
		fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			k->open_err = -errno;
			return 0;
		}
		if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino ||
		    (st2.st_mode & S_IFMT) != (st.st_mode & S_IFMT)) {
			close(fd);
			snprintf(k->why, sizeof(k->why), "'%s' changed while it was opened", file);
			return -EAGAIN;
		}
		k->fifo = S_ISFIFO(st.st_mode);
	} else {
		fd = sr_open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			k->open_err = fd;
			return 0;
		}
		if (fstat(fd, &st) < 0 || (!S_ISCHR(st.st_mode) && !S_ISREG(st.st_mode))) {
			close(fd);
			k->open_err = -EINVAL;
			return 0;
		}
		k->live = S_ISCHR(st.st_mode);
	}
	/* /dev/kmsg: SEEK_END moves past every record there is; a file: to its
	 * size; a FIFO holds only what is written from now on */
	if (!k->fifo && lseek(fd, 0, SEEK_END) < 0 && k->live) {
		k->open_err = -errno;
		close(fd);
		return 0;
	}
	k->fd = fd;
	return 0;
}

static void read_file(struct watch_kmsg *k, double until)
{
	char buf[65536], empty[1] = "";
	size_t total = 0;
	ssize_t n = 0;
	while (total < WKMSG_READ_MAX && nd_now_s() < until && (n = read(k->fd, buf, sizeof(buf))) > 0) {
		total += (size_t)n;
		const char *p = buf, *end = buf + n;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t take = nl ? (size_t)(nl - p) : (size_t)(end - p);
			if (k->partial.len + take <= WKMSG_LINE_MAX)
				strbuf_add(&k->partial, p, take);
			if (!nl)
				break;
			k->records++;
			kreader_line(&k->kr, k->partial.buf ? k->partial.buf : empty, k->partial.len, k->records);
			strbuf_reset(&k->partial);
			p = nl + 1;
		}
	}
	k->read_err = n < 0 && errno != EAGAIN && errno != EINTR ? -errno : 0;
}

void wkmsg_read(struct watch_kmsg *k, double deadline)
{
	if (k->fd < 0)
		return;
	double until = nd_now_s() + deadline;
	if (k->live) {
		uint64_t before = k->kr.st.lines;
		int rc = input_read_kmsg(k->fd, kreader_take, &k->kr, &k->kr.st.overruns);
		k->records += k->kr.st.lines - before;
		k->read_err = rc < 0 ? rc : 0;
	} else {
		read_file(k, until);
	}
}

void wkmsg_add(struct watch_kmsg *k, struct result *r)
{
	struct section *s = result_section(r, "kernel", "Kernel log");
	if (k->fd < 0) {
		bool denied = k->open_err == -EACCES || k->open_err == -EPERM;
		char why[4400];
		if (denied)
			snprintf(why, sizeof(why), "'%s' is not readable without root (kernel.dmesg_restrict): Xid, AER and "
				 "IOMMU faults of the run are not seen; run watch as root or pass --kernel-log FILE", k->path);
		else
			snprintf(why, sizeof(why), "cannot read '%s': %s", k->path, sr_strerror(k->open_err));
		section_add(s, "source", "source", val_unknown(why));
		return;
	}
	section_add(s, "source", "source", val_strf("%s (read from the job's start on)", k->path));
	section_add(s, "records", k->live ? "records since the start" : "lines since the start",
		    val_int((long long)k->records));
	if (k->read_err)
		section_note(s, "reading '%s' failed: %s", k->path, sr_strerror(k->read_err));
	if (kparser_count(&k->kp) == 0) {
		section_note(s, "no GPU, PCIe or IOMMU event since the job started");
		return;
	}
	const char *names[1] = { k->path };
	struct kernel_input ki = {
		.src_names = names,
		.nsrc = 1,
		.from_kmsg = k->live,
		.live = true, /* line numbers count from the start: no file:line */
	};
	size_t ngpus = 0;
	struct machine m;
	machine_init(&m);
	collect_kernel(&m);
	kernel_run(r, s, &k->kp, &ki, &m, &ngpus);
	machine_release(&m);
}

void wkmsg_release(struct watch_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	kparser_release(&k->kp);
	strbuf_release(&k->partial);
}
