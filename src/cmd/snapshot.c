/* nccl-doctor snapshot (in progress). */
#include "cmd/cmd.h"

int cmd_snapshot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fatal("snapshot: not yet written");
}
