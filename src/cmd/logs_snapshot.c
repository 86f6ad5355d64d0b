/* `logs --snapshot FILE`: the machine facts of an archive `snapshot` wrote,
 * joined with the logs as `logs --sysroot DIR` joins those of the unpacked
 * tree. The archive is untrusted input: it is read through util/input.h
 * (a .tar.gz through `gzip -dc`, found by absolute path, under the input
 * deadline; no zlib), unpacked by the bounded reader of util/tar.h into a
 * fresh private directory (util/privdir.h) that is removed afterwards, and
 * read from there through the sysroot layer like any --sysroot tree. */
#include "analyze/nccllog.h"
#include "cmd/cmd.h"
#include "probe/live.h"
#include "report/report.h"
#include "util/input.h"
#include "util/privdir.h"
#include "util/sysroot.h"
#include "util/tar.h"
#include "util/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DRAIN_MAX (16u << 20) /* bytes read after the end blocks, for the decompressor's verdict */

static long read_input_fn(void *ctx, void *buf, size_t n)
{
	return input_read(ctx, buf, n);
}

/* Unpacks path into d; 0, or -1 with r's error set. */
static int unpack(const char *path, double timeout, struct privdir *d, struct result *r)
{
	struct input in;
	if (input_open(&in, path, "logs", timeout, INPUT_BINARY) < 0) {
		result_set_error(r, "--snapshot: %s", input_error_text(&in, in.err));
		return -1;
	}
	struct tar_reader t;
	tar_reader_init(&t, read_input_fn, &in, NULL);
	long rc = tar_extract(&t, d->fd);
	if (rc >= 0) {
		/* what follows the end blocks: read, so that a corrupt
		 * compressed file says so (its decompressor's status) */
		char buf[65536];
		long k;
		uint64_t drained = 0;
		while (drained < DRAIN_MAX && (k = input_read(&in, buf, sizeof(buf))) > 0)
			drained += (uint64_t)k;
		if (in.err)
			rc = in.err;
	}
	if (rc < 0 && in.err) /* the input's own reason: a timeout, a failed gzip */
		result_set_error(r, "--snapshot: %s", input_error_text(&in, in.err));
	else if (rc < 0)
		result_set_error(r, "--snapshot: cannot read '%s': %s", path, t.why);
	input_close(&in);
	return rc < 0 ? -1 : 0;
}

int logs_host_from_snapshot(struct nccllog *lg, const char *path, double timeout, struct result *r)
{
	struct privdir d;
	privdir_init(&d);
	struct privdir_trust trust = { { geteuid(), (uid_t)-1 } };
	const char *tmp = getenv("TMPDIR");
	char tmpl[4200], why[4400] = "";
	int e = xsnprintf(tmpl, sizeof(tmpl), "%s/nccl-doctor-snapshot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (e < 0 || (e = privdir_make_temp(&d, tmpl, &trust, why, sizeof(why))) < 0) {
		result_set_error(r, "--snapshot: cannot make a directory to unpack '%s' in: %s", path,
				 why[0] ? why : sr_strerror(e));
		return -1;
	}
	char old[4096];
	str_copy(old, sysroot_get(), sizeof(old));
	live_reset(); /* the manifest cached is the sysroot's before: this one's is read */
	int rc = unpack(path, timeout, &d, r);
	if (rc == 0 && (sysroot_set(d.path) < 0 || !sr_exists(LIVE_MANIFEST))) {
		result_set_error(r, "--snapshot: '%s' is a tar archive but not one `nccl-doctor snapshot` wrote (no %s "
				 "in it); for another tree, unpack it and give --sysroot DIR", path, &LIVE_MANIFEST[1]);
		rc = -1;
	}
	if (rc == 0) {
		char origin[96];
		snprintf(origin, sizeof(origin), "the machine of snapshot %.68s", path);
		logs_host_join(lg, origin);
	}
	sysroot_set(old);
	live_reset();
	privdir_remove_tree(d.fd, d.path);
	privdir_close(&d);
	return rc;
}
