/* What the command side of `fix` shares with watch --retry-fix-args: its
 * option parser (cmd/fix.c); the search itself is engine/fix.h. */
#ifndef ND_CMD_FIX_H
#define ND_CMD_FIX_H
#include "cmd/cmd.h"
#include "engine/fix.h"

/* Parses fix's options from argv (argv[0] names the command; who names it
 * in messages: "fix", "watch --retry-fix-args"); o keeps pointers into argv.
 * Returns -1 to go on, 0 after -h, 64 after a usage error (said on stderr). */
int fix_parse_opts(int argc, char **argv, struct fix_opts *o, const char *who);

#endif
