/* nccl-doctor logs: placeholder until its issue lands (owned by a helper). */
#include "cmd/cmd.h"

int cmd_logs(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fatal("logs: not yet written");
}
