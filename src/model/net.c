/* Network facts as data: see model/net.h. */
#include "model/net.h"

#include <stdlib.h>
#include <string.h>

bool net_if_up(const struct net_if *i)
{
	/* "unknown" is what many virtual and some real NICs report while working */
	return !i->state_err && (strcmp(i->operstate, "up") == 0 || strcmp(i->operstate, "unknown") == 0);
}

void net_release(struct net_facts *n)
{
	free(n->ifs);
	free(n->ib);
	memset(n, 0, sizeof(*n));
}
