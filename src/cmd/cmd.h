/* Commands, git-style: one file per command in src/cmd/, each with
 * `int cmd_NAME(int argc, char **argv, const struct run_opts *opt)` (argv[0]
 * is the command name, global options already removed and parsed into opt),
 * listed in the table in src/main.c.
 *
 * To add a command: write src/cmd/NAME.c with cmd_NAME, declare it here, add
 * one row to the table in main.c (alphabetical), give it -h/--help, declare
 * its options as one table (util/options.h) parsed by cmd_options(), build a
 * struct result and end with cmd_finish().
 * Give the row CMD_GPUS when the command honours --gpus. */
#ifndef ND_CMD_CMD_H
#define ND_CMD_CMD_H
#include "engine/engine.h"
#include "model/result.h"
#include "report/report.h"
#include "util/gpusel.h"
#include "util/options.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* --budget SEC of every command that takes it (check, fix, watch's
 * --retry-budget): one range, so that a budget means the same everywhere
 * (check's: a budget too short for a stage skips it and says so) */
#define CMD_BUDGET_MIN 5
#define CMD_BUDGET_MAX 86400

/* Orders r's findings (errors first, stable), renders r as opt asks, frees
 * it, returns the exit status. */
int cmd_finish(struct result *r, const struct run_opts *opt);
/* Renders r to stdout as opt asks (--reason-line: only the one-line
 * reason), with the members every result carries for the hosts' tools:
 * "hostname" (the node's name, --node-name) and "reason"; 0 or -EIO.
 * cmd_finish does it; fix, which renders its own way, calls it. */
int cmd_render(struct result *r, const struct run_opts *opt);
/* The members every result's JSON carries for the hosts' tools: "hostname"
 * (--node-name) and "reason", set in r->extra (reference output has none).
 * cmd_render does it; watch, which writes its JSON itself, calls it. */
void cmd_envelope(struct result *r, const struct run_opts *opt);
/* r as its --json document (with "hostname", "reason", the verdict), as
 * cmd_render would print it; the caller owns it (check across nodes sends
 * it to rank 0). */
json_t *cmd_result_json(struct result *r, const struct run_opts *opt);
/* The output form the global options ask for (--format, --json, --md). */
enum report_format cmd_format(const struct run_opts *opt);
/* The JSON member "verdict" (result_verdict) unless r has no verdict
 * (explain) or the command set its own; cmd_finish does it. */
void cmd_set_verdict(struct result *r);
/* Orders r's findings (errors first, stable) as every rendering shows them.
 * cmd_finish does it; a command that renders elsewhere (watch, to stderr)
 * calls it first. */
void cmd_order(struct result *r);
/* The files a run writes beside stdout (--prom FILE, --json-out FILE,
 * each through a temporary and a rename) from the finished result r, which exits with code; r is
 * ordered and given its verdict first. Returns code, or 3 after one line
 * on stderr saying which file could not be written. cmd_finish does it;
 * a command that prints its own text (bench) calls it before freeing r. */
int cmd_extra_outputs(struct result *r, const struct run_opts *opt, int code);
/* Parses a command's options against its table (util/options.h, flags as
 * opt_parse's). Returns -1 with *next the index of the first argument when
 * the command goes on; else the exit status it returns: 0 after printing
 * usage(stdout) for -h/--help (3 when that write failed), 64 after printing
 * the parser's usage error as cmd_usage_error does. */
int cmd_options(const char *cmd, int argc, char **argv, const struct opt_spec *specs, unsigned flags,
		void (*usage)(FILE *out), int *next);
/* --max-bytes SIZE: bench's size syntax (K, M, G), at least 1 MiB, into a
 * uint64_t (an opt_fn of util/options.h). */
int cmd_opt_max_bytes(void *target, const char *value, char *why, size_t whysz);
/* The options check and fix (and watch --retry-fix-args) share, declared
 * once: rows of an opt_spec table pointed at the command's own fields
 * (bool *force, *quiet, *progress, *driver; uint64_t *max_bytes). */
#define CMD_OPTS_GPU_RUN(force, quiet, progress, driver, max_bytes)                                                  \
	OPT_FLAG("force", 0, (force), "also use GPUs that other processes use"),                                     \
	OPT_FLAG("quiet", 0, (quiet), "no progress on stderr"),                                                      \
	OPT_FLAG("progress", 0, (progress), "progress on stderr even when it is not a terminal"),                    \
	OPT_FLAG("driver", 0, (driver), "with --sysroot: host facts from the tree, GPUs of this machine"),            \
	OPT_CALL("max-bytes", 0, (max_bytes), cmd_opt_max_bytes, "a size of at least 1M (K, M, G)",                  \
		 "largest all_reduce size")
/* --html FILE, the one row of the commands that write the HTML page (check,
 * p2p, bench, merge), into a copy of their run_opts (opts->html).
 * cmd_html_check checks the path before the work starts: -1 to go on, else
 * the exit status after saying why (64 for "" or "-", 3 for a path that
 * cannot be written: util/outfile.h outfile_check). cmd_html writes the
 * page. */
#define CMD_OPT_HTML(opts) OPT_STRING("html", 0, &(opts)->html, "also write the report as one HTML page to FILE")
int cmd_html_check(const char *cmd, const struct run_opts *opt);
/* Writes r as the HTML page (report/html.c) to opt->html through a
 * temporary and a rename, with the JSON document --json prints for r
 * embedded (r ordered, its verdict and envelope set first); 0, or -EIO
 * after saying why; nothing without --html. cmd_finish does it; bench's
 * text form, which prints its own way, calls it. */
int cmd_html(struct result *r, const struct run_opts *opt);
/* Prints "nccl-doctor CMD: <message>" and a hint to stderr; returns 64. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "nccl-doctor: <message>" to stderr; returns 3. */
int cmd_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A machine with no NVIDIA GPU on its (readable) PCI bus and no NVIDIA
 * driver: sys and topo (and check) say CMD_NO_GPU_TEXT as their error, the
 * same way, and exit 3 (README, exit status). */
#define CMD_NO_GPU_TEXT NO_NVIDIA_TEXT /* analyze/sys.h */
struct pci_list;
struct driver_facts;
bool cmd_no_nvidia_here(const struct pci_list *pl, const struct driver_facts *d);

int cmd_check(int argc, char **argv, const struct run_opts *opt);
int cmd_bench(int argc, char **argv, const struct run_opts *opt);
int cmd_fix(int argc, char **argv, const struct run_opts *opt);
int cmd_explain(int argc, char **argv, const struct run_opts *opt);
int cmd_kernel(int argc, char **argv, const struct run_opts *opt);
int cmd_merge(int argc, char **argv, const struct run_opts *opt);
int cmd_logs(int argc, char **argv, const struct run_opts *opt);
/* cmd/logs.c, for `check --log`: reads the logs paths[0..n) (files,
 * directories, globs, '-') into lg as `logs` does. 0 when the analysis can
 * go on; -1 after giving r its error (an input could not be read) or its
 * "nothing to check" (nothing was read). */
struct nccllog;
int logs_read_inputs(struct nccllog *lg, char *const *paths, int n, const struct run_opts *opt, struct result *r);
/* The facts of the machine recorded under sysroot (the current sysroot,
 * util/sysroot.h) into lg->host, for the analysis to weigh its causes with. */
void logs_host_from_sysroot(struct nccllog *lg, const char *sysroot);
/* The same for the current sysroot, its facts named origin in the evidence. */
void logs_host_join(struct nccllog *lg, const char *origin);
/* cmd/logs_snapshot.c: the same for the machine of an archive `snapshot`
 * wrote (unpacked into a private temporary directory, removed afterwards).
 * 0, or -1 after giving r its one-line error. */
int logs_host_from_snapshot(struct nccllog *lg, const char *path, double timeout, struct result *r);
int cmd_p2p(int argc, char **argv, const struct run_opts *opt);
int cmd_snapshot(int argc, char **argv, const struct run_opts *opt);
int cmd_sys(int argc, char **argv, const struct run_opts *opt);
int cmd_topo(int argc, char **argv, const struct run_opts *opt);
int cmd_watch(int argc, char **argv, const struct run_opts *opt);
/* hidden: `nccl-doctor __worker TASK ...`, the GPU worker (run/, gpu/) */
int cmd_worker(int argc, char **argv, const struct run_opts *opt);

#endif
