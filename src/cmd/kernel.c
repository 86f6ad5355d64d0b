/* nccl-doctor kernel: placeholder until its issue lands (owned by a helper). */
#include "cmd/cmd.h"

int cmd_kernel(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fatal("kernel: not yet written");
}
