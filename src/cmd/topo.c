/* nccl-doctor topo: placeholder until its issue lands (owned by a helper). */
#include "cmd/cmd.h"

int cmd_topo(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fatal("topo: not yet written");
}
