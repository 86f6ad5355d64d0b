/* Network interfaces and IB ports: see net.h. */
#include "probe/net.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *net_virtual_kind(const char *name)
{
	static const struct {
		const char *prefix;
		const char *kind;
	} kinds[] = {
		{ "docker", "docker bridge" }, { "br-", "docker network bridge" }, { "veth", "veth pair" },
		{ "virbr", "libvirt bridge" }, { "tailscale", "tailscale VPN" }, { "tun", "tunnel" },
		{ "tap", "tap" }, { "wg", "wireguard VPN" }, { "cni", "CNI bridge" },
		{ "flannel", "flannel overlay" }, { "cali", "calico" }, { "vxlan", "vxlan" },
		{ "weave", "weave" }, { "kube-", "kubernetes" }, { "zt", "zerotier VPN" },
		{ "lxc", "lxc" }, { "lxdbr", "lxd bridge" }, { "podman", "podman bridge" },
		{ "cilium", "cilium" }, { "genev", "geneve" },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (str_startswith(name, kinds[i].prefix))
			return kinds[i].kind;
	return NULL;
}

static void probe_ib(struct net_facts *n)
{
	char **devs;
	size_t nd;
	if (sr_list_dir("/sys/class/infiniband", &devs, &nd) < 0)
		return;
	for (size_t i = 0; i < nd; i++) {
		char path[512];
		char **ports;
		size_t np;
		if (xsnprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", devs[i]) < 0 ||
		    sr_list_dir(path, &ports, &np) < 0)
			continue;
		for (size_t p = 0; p < np; p++) {
			XGROW(n->ib, n->aib, n->nib + 1);
			struct ib_port *ip = &n->ib[n->nib++];
			memset(ip, 0, sizeof(*ip));
			str_copy(ip->dev, devs[i], sizeof(ip->dev));
			ip->port = atoi(ports[p]);
			char buf[128];
			if (xsnprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/state", devs[i], ports[p]) >= 0 &&
			    sr_read_str(path, buf, sizeof(buf)) == 0) {
				const char *c = strchr(buf, ':');
				str_copy(ip->state, c ? str_trim((char *)c + 1) : buf, sizeof(ip->state));
			}
			if (xsnprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/link_layer", devs[i], ports[p]) >= 0)
				sr_read_str(path, ip->link_layer, sizeof(ip->link_layer));
			if (xsnprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/rate", devs[i], ports[p]) >= 0)
				sr_read_str(path, ip->rate, sizeof(ip->rate));
		}
		sr_names_free(ports, np);
	}
	sr_names_free(devs, nd);
}

/* The number in /sys/class/net/IF/ATTR; 0 or -errno (-ENAMETOOLONG). */
static int attr_ll(const char *ifname, const char *attr, long long *v)
{
	char path[512];
	int r = xsnprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	return r < 0 ? r : sr_read_ll(path, 10, v);
}

void net_probe(struct net_facts *n)
{
	memset(n, 0, sizeof(*n));
	char **names;
	size_t cnt;
	int r = sr_list_dir("/sys/class/net", &names, &cnt);
	if (r < 0) {
		n->err = r;
	} else {
		for (size_t i = 0; i < cnt; i++) {
			if (strcmp(names[i], "bonding_masters") == 0)
				continue;
			XGROW(n->ifs, n->aifs, n->nifs + 1);
			struct net_if *f = &n->ifs[n->nifs++];
			memset(f, 0, sizeof(*f));
			str_copy(f->name, names[i], sizeof(f->name));
			char path[512], real[512];
			long long v;
			int sr = xsnprintf(path, sizeof(path), "/sys/class/net/%s/operstate", names[i]);
			if (sr >= 0)
				sr = sr_read_str(path, f->operstate, sizeof(f->operstate));
			if (sr == -ENOENT) {
				str_copy(f->operstate, "unknown", sizeof(f->operstate)); /* not recorded */
			} else if (sr < 0) {
				/* a link loop or a refused read is no evidence of a working link */
				f->state_err = sr;
				str_copy(f->operstate, "unreadable", sizeof(f->operstate));
			}
			f->type = attr_ll(names[i], "type", &v) == 0 ? (int)v : 0;
			f->mtu = attr_ll(names[i], "mtu", &v) == 0 ? (int)v : 0;
			f->speed = attr_ll(names[i], "speed", &v) == 0 && v > 0 ? (long)v : -1;
			f->is_loopback = f->type == 772;
			if (xsnprintf(path, sizeof(path), "/sys/class/net/%s", names[i]) >= 0 &&
			    sr_realpath(path, real, sizeof(real)) == 0)
				f->is_virtual = strstr(real, "/devices/virtual/") != NULL;
			f->kind = net_virtual_kind(f->name);
			if (f->kind)
				f->is_virtual = true;
		}
		sr_names_free(names, cnt);
	}
	probe_ib(n);
}

