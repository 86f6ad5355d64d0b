/* What the files of `bench` share: cmd/bench.c (options, the GPUs),
 * cmd/bench_report.c (nccl-tests text, -J file, result model for --json,
 * findings) and cmd/bench_safety.c (busy and wedged GPUs); the run itself
 * is the bench engine's (engine/bench.h). */
#ifndef ND_CMD_BENCH_H
#define ND_CMD_BENCH_H
#include "cmd/cmd.h"
#include "engine/bench.h"

#include <stdbool.h>
#include <stdio.h>

/* The options of `bench` ARGS into o (argv[0] the command name;
 * --gpus of opt picks the devices); 0, -1 after -h (usage printed), or 64
 * (usage error printed). */
int bench_parse_opts(int argc, char **argv, struct bench_opts *o, const struct run_opts *opt);
/* bench_report.c */
int bench_one_rank_of(const struct bench_run *br);
void bench_print_text(const struct bench_run *br, FILE *out);
/* -J: reserves FILE (else FILE.1, ...; never overwrites, as nccl-tests);
 * returns the fd with the name in used, or -errno with a message in err. */
int bench_open_json_file(const char *path, char *used, size_t usedsz, char *err, size_t errsz);
/* Writes nccl-tests' JSON to fd and closes it; 0 or -EIO with err. */
int bench_write_json_file(const struct bench_run *br, int fd, const char *path, char *err, size_t errsz);
struct result *bench_result(const struct bench_run *br);

/* bench_safety.c: before the ranks, 0 when no GPU of the run is held by
 * another process, else the exit status after saying which (3); after a
 * hang, fills br->wedged. Both run the p2p-procs worker (NVML). */
int bench_busy_check(const struct bench_opts *o, const struct run_opts *opt);
void bench_wedged_check(struct bench_run *br, const struct run_opts *opt);

#endif
