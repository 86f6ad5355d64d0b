/* nccl-doctor merge FILE...: per-node JSON of any command (check, sys, p2p,
 * bench, logs, ...; written one file per node by `--out DIR/%h.json`)
 * joined into one fleet report: the nodes worst first, the ones missing
 * from --expect-nodes, outliers within a hardware class, the findings by
 * cause, the versions that differ, and the drain/cordon lines a scheduler
 * takes (analyze/fleet.c; docs/fleet.md). The files are read here; a file
 * that is not one of our results stops the merge with one line, so a
 * report never silently leaves a node out. */
#include "analyze/fleet.h"
#include "cmd/cmd.h"
#include "util/hostlist.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest file read: a check of 8 GPUs writes about 300 KB. */
#define MERGE_MAX_FILE (64u << 20)
/* The most files one merge reads. */
#define MERGE_MAX_FILES 100000

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor merge [--expect-nodes HOSTLIST] FILE|DIR...\n"
		"\n"
		"Joins the --json results of nodes (any command: check, sys, p2p, bench, logs,\n"
		"...; 'nccl-doctor --json --out DIR/%%h.json check' on each node writes them) into\n"
		"one report: the nodes worst first (the node is each file's \"hostname\"; two\n"
		"files of one node make one row), the nodes of --expect-nodes that sent no\n"
		"result (state \"missing\"), outliers among nodes of one GPU model and count\n"
		"(bench busbw and p2p copy bandwidth more than 3 x 1.4826 x MAD and 10 %% below\n"
		"the median), the findings grouped by cause class, the driver / CUDA / NCCL /\n"
		"NIC / fabric manager / kernel versions that differ, and the lines that drain\n"
		"or cordon each broken node (scontrol, kubectl: printed, never run).\n"
		"\n"
		"A DIR stands for the *.json files in it; a quoted pattern ('r/*.json') is\n"
		"expanded. A file that is not such a result stops the merge (exit 3).\n"
		"\n"
		"options:\n"
		"  --expect-nodes HOSTLIST  the nodes that should have sent a result, in Slurm's\n"
		"                           syntax: gpu[01-16,20],login1 ($SLURM_JOB_NODELIST)\n"
		"  --html FILE              also write the report as one self-contained HTML\n"
		"                           page (docs/html.md)\n"
		"  -h, --help               this help\n"
		"\n"
		"With the global --fail-on warning the lines also drain the DEGRADED nodes\n"
		"(outliers, odd versions, warnings); by default only BROKEN ones.\n"
		"exit status: the worst node's: 2 a node is BROKEN, else 3 one is missing or\n"
		"could not run, else 1 one is DEGRADED, else 0; 3 an unreadable file, 64 bad\n"
		"usage\n");
}

struct files {
	char **path;
	size_t n, a;
};

static void files_add(struct files *f, const char *path)
{
	XGROW(f->path, f->a, f->n + 1);
	f->path[f->n++] = xstrdup(path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of a directory, sorted; -errno. */
static int add_dir(struct files *f, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	size_t first = f->n;
	struct dirent *e;
	while ((e = readdir(d)) && f->n < MERGE_MAX_FILES) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		char p[4096];
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		files_add(f, p);
	}
	closedir(d);
	qsort(f->path + first, f->n - first, sizeof(*f->path), cmp_str);
	return 0;
}

/* One argument: a file, a directory, or a pattern the shell left as it
 * was. Returns 0, or prints why and returns -1. */
static int add_arg(struct files *f, const char *arg)
{
	struct stat st;
	if (stat(arg, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			files_add(f, arg);
			return 0;
		}
		size_t before = f->n;
		int r = add_dir(f, arg);
		if (r < 0)
			return cmd_fatal("merge: cannot read the directory '%s': %s", arg, strerror(-r)), -1;
		if (f->n == before)
			return cmd_fatal("merge: '%s': a directory without *.json files", arg), -1;
		return 0;
	}
	if (strpbrk(arg, "*?[")) {
		glob_t g;
		if (glob(arg, 0, NULL, &g) != 0)
			return cmd_fatal("merge: '%s': no file matches", arg), -1;
		for (size_t i = 0; i < g.gl_pathc; i++)
			files_add(f, g.gl_pathv[i]);
		globfree(&g);
		return 0;
	}
	return cmd_fatal("merge: cannot read '%s': %s", arg, strerror(errno)), -1;
}

/* Reads and parses one file; NULL after printing one line saying why. */
static json_t *load(const char *path)
{
	/* O_NONBLOCK: a FIFO named by mistake is refused below, not waited on */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return cmd_fatal("merge: cannot read '%s': %s", path, strerror(errno)), NULL;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cmd_fatal("merge: '%s': not a regular file", path), NULL;
	}
	if (st.st_size > (off_t)MERGE_MAX_FILE) {
		close(fd);
		return cmd_fatal("merge: '%s': larger than 64 MiB: not a result of nccl-doctor", path), NULL;
	}
	json_error_t je;
	json_t *doc = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
	int e = errno;
	close(fd);
	if (!doc) {
		if (st.st_size == 0)
			cmd_fatal("merge: '%s': empty", path);
		else if (je.line <= 0 && e)
			cmd_fatal("merge: cannot read '%s': %s", path, strerror(e));
		else
			cmd_fatal("merge: '%s': not JSON (line %d: %s)", path, je.line, je.text);
		return NULL;
	}
	return doc;
}

int cmd_merge(int argc, char **argv, const struct run_opts *opt)
{
	const char *expect = NULL;
	struct run_opts ro = *opt; /* with --html */
	opt = &ro;
	const struct opt_spec opts[] = {
		OPT_STRING("expect-nodes", 0, &expect, "the nodes that should have sent a result"),
		CMD_OPT_HTML(&ro),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("merge", argc, argv, opts, 0, usage, &next);
	if (rc >= 0 || (rc = cmd_html_check("merge", opt)) >= 0)
		return rc;
	if (next >= argc)
		return cmd_usage_error("merge", "no file to merge: give the per-node JSON files or their directory");
	struct hostlist hl = { 0 };
	char err[512];
	if (expect && hostlist_expand(expect, &hl, err, sizeof(err)) < 0)
		return cmd_usage_error("merge", "--expect-nodes: %s", err);

	struct files f = { 0 };
	struct fleet_doc *docs = NULL;
	size_t nd = 0;
	rc = EXIT_CANNOT_RUN;
	for (int i = next; i < argc; i++)
		if (add_arg(&f, argv[i]) < 0)
			goto out;
	if (f.n > MERGE_MAX_FILES) {
		cmd_fatal("merge: more than %d files", MERGE_MAX_FILES);
		goto out;
	}
	docs = xcalloc(f.n, sizeof(*docs));
	for (size_t i = 0; i < f.n; i++) {
		json_t *doc = load(f.path[i]);
		if (!doc)
			goto out;
		const char *node;
		if (fleet_doc_check(doc, ND_JSON_SCHEMA_VERSION, &node, err, sizeof(err)) < 0) {
			json_decref(doc);
			cmd_fatal("merge: '%s': %s", f.path[i], err);
			goto out;
		}
		docs[nd].file = f.path[i];
		docs[nd++].doc = doc;
	}
	struct result *r = result_new("merge");
	struct fleet_opts fo = {
		.expect = expect ? &hl : NULL,
		.drain_degraded = opt->fail_on_given && opt->fail_on == FAIL_ON_WARNING,
		.schema = ND_JSON_SCHEMA_VERSION,
	};
	fleet_merge(r, docs, nd, &fo);
	rc = cmd_finish(r, opt);
out:
	for (size_t i = 0; i < nd; i++)
		json_decref(docs[i].doc);
	free(docs);
	for (size_t i = 0; i < f.n; i++)
		free(f.path[i]);
	free(f.path);
	hostlist_release(&hl);
	return rc;
}
