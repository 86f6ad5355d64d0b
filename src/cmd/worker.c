/* nccl-doctor worker: placeholder until its issue lands (owned by a helper). */
#include "cmd/cmd.h"

int cmd_worker(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fatal("worker: not yet written");
}
