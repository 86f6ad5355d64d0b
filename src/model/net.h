/* Network interfaces and InfiniBand ports as data (probe/net.c reads them
 * from /sys/class/net and /sys/class/infiniband). */
#ifndef ND_MODEL_NET_H
#define ND_MODEL_NET_H
#include <stdbool.h>
#include <stddef.h>

struct net_if {
	char name[64];
	char operstate[16]; /* up, down, unknown, dormant ...; "unreadable" when it could not be read */
	int state_err;      /* 0, or -errno of that read (a symbolic link loop, no permission) */
	int type;           /* ARPHRD: 1 ether, 32 infiniband, 772 loopback */
	int mtu;
	long speed;         /* Mb/s, -1 unknown */
	bool is_virtual;    /* no backing device (bridges, veth, tunnels) */
	bool is_loopback;
	const char *kind;   /* "docker bridge", "veth", "tailscale", ... or NULL */
};

struct ib_port {
	char dev[64];
	int port;
	char state[32];      /* "ACTIVE" from "4: ACTIVE" */
	char link_layer[32]; /* InfiniBand | Ethernet */
	char rate[64];
};

struct net_facts {
	struct net_if *ifs;
	size_t nifs, aifs;
	struct ib_port *ib;
	size_t nib, aib;
	int err; /* listing /sys/class/net failed */
};

void net_release(struct net_facts *n);
/* Up, or "unknown" (many working NICs say so); never when unreadable. */
bool net_if_up(const struct net_if *i);

#endif
