/* nccl-doctor snapshot: records every file `sys` (and the kernel log
 * reader) looks at into a tar archive laid out as a sysroot, so that
 * `nccl-doctor sys --sysroot DIR` on the unpacked tree reproduces the
 * report elsewhere. Facts that come from system calls (statvfs of /dev/shm,
 * the library scan) go into JSON files under .nccl-doctor/ in the archive. The
 * environment is filtered as it is recorded (util/envfilter.h: the variables
 * the analysis uses, credentials redacted), wherever it was read from. */
#include "analyze/sys.h"
#include "cmd/cmd.h"
#include "collect/collect.h"
#include "probe/live.h"
#include "probe/ncclib.h"
#include "report/report.h"
#include "util/outfile.h"
#include "util/priv.h"
#include "util/strbuf.h"
#include "util/sysroot.h"
#include "util/tar.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor snapshot [-o FILE.tar.gz] [--no-kmsg]\n"
		"\n"
		"Packs the files and facts nccl-doctor reads (/sys, /proc, /dev/kmsg, /etc, the\n"
		"NCCL library scan) into one archive laid out as a sysroot. Unpack it anywhere and\n"
		"run 'nccl-doctor sys --sysroot DIR' to get the same report. Of the environment only\n"
		"NCCL, CUDA, PyTorch-distributed, vLLM, launcher rank and library-path variables are\n"
		"kept, and values that look like credentials are replaced by <redacted> (README.md,\n"
		"'What a snapshot contains'). Run it as root to include ACS (PCI config space) and\n"
		"the kernel log.\n"
		"\n"
		"  -o, --output FILE  archive to write (default nccl-doctor-snapshot-HOST.tar.gz;\n"
		"                     a name ending in .tar is written uncompressed; '-' is stdout)\n"
		"      --no-kmsg      leave the kernel log out\n"
		"\n"
		"Made as root, the archive is readable by root only (0600). It is written to a\n"
		"temporary beside FILE and renamed onto it: a link, FIFO or another user's file\n"
		"at FILE is refused, and a failed write leaves nothing behind.\n"
		"\n"
		"stderr names the archive and its entries (files, directories, links); with\n"
		"--json stdout gets one JSON document with the same (docs/schema/snapshot.json).\n"
		"Exit status: 0 written, 3 could not write it, 64 usage.\n");
}

/* Reads the kernel ring buffer (non-blocking) into the recording. */
static int record_kmsg(void)
{
	int fd = sr_open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	struct stat st;
	struct strbuf sb;
	strbuf_init(&sb, 32u << 20);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* a recorded tree: copy the file */
		char buf[65536];
		ssize_t r;
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			if (strbuf_add(&sb, buf, (size_t)r) < 0)
				break;
	} else {
		char rec[8192];
		for (;;) {
			ssize_t r = read(fd, rec, sizeof(rec));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EPIPE) /* records overwritten while reading */
				continue;
			if (r <= 0)
				break;
			if (strbuf_add(&sb, rec, (size_t)r) < 0)
				break;
			if (rec[r - 1] != '\n')
				strbuf_addch(&sb, '\n');
		}
	}
	close(fd);
	sr_record_add_file("/dev/kmsg", sb.buf ? sb.buf : "", sb.len);
	int n = (int)sb.len;
	strbuf_release(&sb);
	return n;
}

static void record_json(const char *path, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (s) {
		sr_record_add_file(path, s, strlen(s));
		free(s);
	}
}

static int cmp_rec(const void *a, const void *b)
{
	return strcmp((*(const struct sr_rec *const *)a)->path, (*(const struct sr_rec *const *)b)->path);
}

/* Emits every parent directory of path not yet written. */
static void add_parents(struct tar_writer *t, const char *path, char ***done, size_t *ndone, size_t *adone)
{
	char buf[4096];
	str_copy(buf, path, sizeof(buf));
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		bool seen = false;
		for (size_t i = *ndone; i-- > 0;)
			if (strcmp((*done)[i], buf) == 0) {
				seen = true;
				break;
			}
		if (!seen) {
			tar_add_dir(t, buf, 0755);
			XGROW(*done, *adone, *ndone + 1);
			(*done)[(*ndone)++] = xstrdup(buf);
		}
		*p = '/';
	}
}

static bool recorded(const struct sr_rec *const *sorted, size_t n, const char *path)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(sorted[mid]->path, path);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool written(char **done, size_t ndone, const char *path)
{
	for (size_t k = ndone; k-- > 0;)
		if (strcmp(done[k], path) == 0)
			return true;
	return false;
}

/* Entries of a listed directory that nobody read: empty placeholders of the
 * same type, so that a listing of the unpacked tree looks the same. */
static void add_listing(struct tar_writer *t, const struct sr_rec *dir, const struct sr_rec *const *sorted, size_t n,
			char ***done, size_t *ndone, size_t *adone)
{
	const char *p = dir->data, *end = dir->data + dir->len;
	while (p && p < end) {
		size_t l = strnlen(p, (size_t)(end - p));
		if (l > 2) {
			char path[4096];
			if (xsnprintf(path, sizeof(path), "%s/%s", strcmp(dir->path, "/") ? dir->path : "", p + 2) >= 0 &&
			    !recorded(sorted, n, path) && !written(*done, *ndone, path)) {
				if (p[0] == 'd') {
					tar_add_dir(t, path, 0755);
					XGROW(*done, *adone, *ndone + 1);
					(*done)[(*ndone)++] = xstrdup(path);
				} else if (p[0] == 'l') {
					char target[4096];
					if (sr_readlink(path, target, sizeof(target)) == 0)
						tar_add_symlink(t, path, target);
				} else {
					tar_add_file(t, path, "", 0, 0644);
				}
			}
		}
		p += l + 1;
	}
}

static int write_archive(FILE *out, struct tar_writer *tw)
{
	size_t n;
	const struct sr_rec *recs = sr_record_entries(&n);
	const struct sr_rec **sorted = xcalloc(n ? n : 1, sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = &recs[i];
	qsort(sorted, n, sizeof(*sorted), cmp_rec);
	struct tar_writer t;
	tar_init(&t, out, time(NULL));
	char **done = NULL;
	size_t ndone = 0, adone = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sr_rec *r = sorted[i];
		if (strcmp(r->path, "/") != 0)
			add_parents(&t, r->path, &done, &ndone, &adone);
		switch (r->type) {
		case SR_REC_FILE:
			tar_add_file(&t, r->path, r->data ? r->data : "", r->len, 0644);
			break;
		case SR_REC_LINK:
			tar_add_symlink(&t, r->path, r->data ? r->data : "");
			break;
		case SR_REC_DIR:
			if (strcmp(r->path, "/") != 0 && !written(done, ndone, r->path)) {
				tar_add_dir(&t, r->path, 0755);
				XGROW(done, adone, ndone + 1);
				done[ndone++] = xstrdup(r->path);
			}
			break;
		}
	}
	/* second pass: placeholders for listed entries, after the real ones */
	for (size_t i = 0; i < n; i++)
		if (sorted[i]->type == SR_REC_DIR && sorted[i]->data)
			add_listing(&t, sorted[i], sorted, n, &done, &ndone, &adone);
	int rc = tar_finish(&t);
	*tw = t;
	for (size_t i = 0; i < ndone; i++)
		free(done[i]);
	free(done);
	free(sorted);
	return rc;
}

/* Starts `gzip -c >&fd`; returns the FILE to write into it and the child's
 * pid (fd stays ours: the child gets a copy). */
static FILE *open_gzip(int fd, pid_t *pid)
{
	char gzip[PATH_MAX]; /* by absolute path, never through PATH (util/priv.h); not found: 127 */
	if (priv_helper_find("gzip", gzip, sizeof(gzip), NULL, 0) < 0)
		gzip[0] = '\0';
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return NULL;
	*pid = fork();
	if (*pid < 0) {
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (*pid == 0) {
		/* dup2 clears close-on-exec on the copies */
		if (dup2(p[0], 0) < 0 || dup2(fd, 1) < 0)
			_exit(127);
		if (gzip[0])
			execl(gzip, "gzip", "-c", "-6", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	return fdopen(p[1], "w");
}

/* Writes the recording as a tar archive to output ("-": stdout), gzipped
 * for a name ending in .gz or .tgz. A file goes to a private temporary beside
 * it, renamed into place when complete (util/outfile.h: no link, FIFO or
 * other user's file at the name is written through; a failed write leaves
 * nothing). As root it holds the root-only kernel log and PCI config space:
 * 0600 (*mode). Clears the recording. 0, or -1 with msg set. */
static int write_output(const char *output, struct tar_writer *tw, mode_t *mode, char *msg, size_t msgsz)
{
	FILE *out = NULL;
	pid_t gz = -1;
	bool to_stdout = strcmp(output, "-") == 0;
	*mode = geteuid() == 0 ? 0600 : 0644;
	struct outfile of = { .fd = -1, .dirfd = -1 };
	if (to_stdout) {
		out = stdout;
	} else {
		if (outfile_open(&of, output, *mode, msg, msgsz) < 0) {
			sr_record_clear();
			return -1;
		}
		int dfd;
		if (str_endswith(output, ".gz") || str_endswith(output, ".tgz"))
			out = open_gzip(of.fd, &gz);
		else if ((dfd = dup(of.fd)) >= 0 && !(out = fdopen(dfd, "w")))
			close(dfd);
		if (!out) {
			int e = errno;
			outfile_abort(&of);
			sr_record_clear();
			snprintf(msg, msgsz, "cannot write '%s': %s", output, sr_strerror(-e));
			return -1;
		}
	}
	int rc = write_archive(out, tw);
	if (!to_stdout && fclose(out) != 0 && !rc)
		rc = -EIO;
	sr_record_clear();
	if (gz > 0) {
		int status;
		while (waitpid(gz, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			outfile_abort(&of);
			snprintf(msg, msgsz, "cannot compress '%s': gzip %s (write FILE.tar to skip compression)", output,
				 WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "not found" : "failed");
			return -1;
		}
	}
	if (rc < 0) {
		outfile_abort(&of);
		snprintf(msg, msgsz, "cannot write '%s': %s (nothing left behind)", output, sr_strerror(rc));
		return -1;
	}
	if (!to_stdout && outfile_commit(&of, msg, msgsz) < 0)
		return -1;
	return 0;
}

/* An error: one line on stderr, or with --json the one JSON document. */
static int snap_fail(const struct run_opts *opt, const char *msg)
{
	if (!opt->json && !opt->markdown)
		return cmd_fatal("%s", msg);
	struct result *r = result_new("snapshot");
	result_set_error(r, "%s", msg);
	return cmd_finish(r, opt);
}

/* --json: what was written, as one document on stdout. */
static int snap_json(const struct run_opts *opt, const char *output, const struct tar_writer *t, bool kmsg_in,
		     size_t nspecial)
{
	struct result *r = result_new("snapshot");
	size_t n = t->files + t->dirs + t->links;
	result_set_headline(r, "snapshot: wrote %s (%zu entries)", output, n);
	struct section *s = result_section(r, "archive", "Archive");
	section_add(s, "path", "path", val_str(output));
	section_add(s, "entries", "entries", val_int((long long)n));
	section_add(s, "files", "files", val_int((long long)t->files));
	section_add(s, "directories", "directories", val_int((long long)t->dirs));
	section_add(s, "links", "symbolic links", val_int((long long)t->links));
	section_add(s, "file_bytes", "file bytes", val_int((long long)t->file_bytes));
	section_add(s, "kernel_log", "kernel log", val_bool(kmsg_in));
	section_add(s, "special_left_out", "device nodes, FIFOs, sockets left out", val_int((long long)nspecial));
	return cmd_finish(r, opt);
}

int cmd_snapshot(int argc, char **argv, const struct run_opts *opt)
{
	const char *output = NULL;
	bool no_kmsg = false;
	const struct opt_spec opts[] = {
		OPT_STRING("output", 'o', &output, "the archive to write ('-': stdout)"),
		OPT_FLAG("no-kmsg", 0, &no_kmsg, "leave the kernel log out"),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("snapshot", argc, argv, opts, 0, usage, &next);
	if (rc >= 0)
		return rc;
	bool kmsg = !no_kmsg;
	if (next < argc)
		return cmd_usage_error("snapshot", "unexpected argument '%s'", argv[next]);
	if ((opt->json || opt->markdown) && output && strcmp(output, "-") == 0)
		return cmd_usage_error("snapshot", "%s and '-o -' both want stdout: write the archive to a file",
				       opt->json ? "--json" : "--format markdown");

	/* run the probes with recording on; the report itself is discarded */
	sr_record_start();
	struct machine m;
	machine_init(&m);
	collect_sys(&m);
	struct sys_ctx ctx;
	sys_ctx_init(&ctx, &m);
	struct result *r = result_new("sys");
	sys_run(r, &ctx);
	/* what `kernel` reads besides the log: GPU names and UUIDs by bus id */
	char **infos;
	size_t ninfo;
	if (sr_glob("/proc/driver/nvidia/gpus/*/information", &infos, &ninfo) > 0) {
		for (size_t i = 0; i < ninfo; i++) {
			char *data;
			size_t len;
			if (sr_read_file(infos[i], &data, &len, 65536) == 0)
				free(data);
		}
		sr_names_free(infos, ninfo);
	}
	int kmsg_bytes = kmsg ? record_kmsg() : 0;
	sr_record_stop();

	char defname[300];
	if (!output) {
		snprintf(defname, sizeof(defname), "nccl-doctor-snapshot-%s.tar.gz",
			 m.host.hostname[0] ? m.host.hostname : "host");
		output = defname;
	}
	/* facts from system calls */
	json_t *live = json_object();
	json_object_set_new(live, "tool_version", json_string(NCCL_DOCTOR_VERSION));
	json_object_set_new(live, "created", json_integer((json_int_t)time(NULL)));
	json_object_set_new(live, "euid", json_integer((json_int_t)geteuid()));
	json_object_set_new(live, "kmsg", json_boolean(kmsg_bytes > 0));
	if (m.host.shm_size_known || m.host.shm_free_known) {
		json_t *shm = json_object();
		if (m.host.shm_size_known)
			json_object_set_new(shm, "size", json_integer((json_int_t)m.host.shm_size));
		if (m.host.shm_free_known)
			json_object_set_new(shm, "free", json_integer((json_int_t)m.host.shm_free));
		json_object_set_new(shm, "nccl_bytes", json_integer((json_int_t)m.host.shm_nccl_bytes));
		json_object_set_new(live, "dev_shm", shm);
	}
	record_json(LIVE_MANIFEST, live);
	json_decref(live);
	json_t *libs = ncclib_scan_to_json(&m.libs);
	record_json(NCCLIB_RECORD_PATH, libs);
	json_decref(libs);
	machine_release(&m);
	result_free(r);

	struct tar_writer tw;
	mode_t mode;
	char msg[800];
	if (write_output(output, &tw, &mode, msg, sizeof(msg)) < 0)
		return snap_fail(opt, msg);
	bool to_stdout = strcmp(output, "-") == 0;
	const char *special;
	size_t nspecial = sr_special_refused(&special);
	if (!to_stdout)
		report_say(stderr, "nccl-doctor: wrote %s (%zu entries: %zu files, %zu directories, %zu links%s)%s", output,
			tw.files + tw.dirs + tw.links, tw.files, tw.dirs, tw.links,
			kmsg_bytes > 0 ? ", kernel log included" : kmsg ? ", no kernel log: /dev/kmsg unreadable" : "",
			mode == 0600 ? "; readable by root only (mode 0600: it holds what only root may read); "
				       "look inside before you share it" : "");
	if (nspecial)
		report_say(stderr, "nccl-doctor: %zu device node%s, FIFO%s or socket%s of the sysroot left out (first: %s)",
			nspecial, nspecial == 1 ? "" : "s", nspecial == 1 ? "" : "s", nspecial == 1 ? "" : "s", special);
	if (opt->json || opt->markdown)
		return snap_json(opt, output, &tw, kmsg_bytes > 0, nspecial);
	return 0;
}
