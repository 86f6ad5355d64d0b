/* Network interfaces and InfiniBand ports from /sys/class/net and
 * /sys/class/infiniband: what NCCL's bootstrap and socket transport choose
 * from. */
#ifndef ND_PROBE_NET_H
#define ND_PROBE_NET_H
#include "model/net.h"

#include <stdbool.h>
#include <stddef.h>

/* The well-known virtual kind of an interface name, or NULL. */
const char *net_virtual_kind(const char *name);
void net_probe(struct net_facts *n);

#endif
