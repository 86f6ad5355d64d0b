/* nccl-doctor explain: placeholder until its issue lands (owned by a helper). */
#include "cmd/cmd.h"

int cmd_explain(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fatal("explain: not yet written");
}
