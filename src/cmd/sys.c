/* nccl-doctor sys: host facts and checks that need no GPU work (in progress). */
#include "cmd/cmd.h"

#include <stdio.h>
#include <string.h>

int cmd_sys(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: nccl-doctor sys\n");
		return 0;
	}
	struct result *r = result_new("sys");
	result_set_headline(r, "nccl-doctor sys");
	return cmd_finish(r);
}
