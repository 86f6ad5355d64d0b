/* `sys`: network interfaces NCCL's bootstrap chooses from, InfiniBand
 * ports, socket buffer sysctls, and NCCL_SOCKET_IFNAME against them. */
#include "analyze/sys.h"
#include "kb/findings.h"
#include "util/errtext.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

/* NCCL_SOCKET_IFNAME semantics (misc/socket.cc): a comma list of prefixes;
 * '^' excludes, '=' asks for exact names. */
bool ifname_matches(const char *spec, const char *name)
{
	bool exclude = false, exact = false;
	if (*spec == '^') {
		exclude = true;
		spec++;
	}
	if (*spec == '=') {
		exact = true;
		spec++;
	}
	bool any = false;
	char buf[256];
	str_copy(buf, spec, sizeof(buf));
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (exact ? strcmp(name, t) == 0 : str_startswith(name, t))
			any = true;
	}
	return exclude ? !any : any;
}

/* The first name of a comma list, or dflt when the list is empty. */
static void first_name(const char *list, const char *dflt, char *out, size_t outsz)
{
	str_copy(out, list[0] ? list : dflt, outsz);
	out[strcspn(out, ",")] = '\0';
}

void sys_report_net(struct result *r, struct sys_ctx *c)
{
	const struct net_facts *n = c->net;
	struct section *s = result_section(r, "network", "Network (bootstrap)");
	static const struct column cols[] = {
		{ "name", "IFACE", 0 }, { "state", "STATE", 0 }, { "kind", "KIND", 0 },
		{ "mtu", "MTU", 0 },    { "speed_mbps", "SPEED", 0 }, { "virtual", "", SHOW_JSON_ONLY },
	};
	struct table *t = section_table(s, "interfaces", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	const char *ifname = machine_env(c->m, "NCCL_SOCKET_IFNAME");
	int candidates = 0, up_virtual = 0, matches = 0;
	char cand[256] = "", virt[256] = "";
	size_t clen = 0, vlen = 0;
	for (size_t i = 0; i < n->nifs; i++) {
		const struct net_if *f = &n->ifs[i];
		size_t row = table_add_row(t);
		table_set(t, row, "name", val_str(f->name));
		table_set(t, row, "state", f->state_err ? val_strf("unreadable (%s)", sr_strerror(f->state_err))
							 : val_str(f->operstate));
		table_set(t, row, "kind", val_str(f->is_loopback ? "loopback" : f->kind ? f->kind
						  : f->type == 32 ? "IPoIB" : f->is_virtual ? "virtual" : "physical"));
		table_set(t, row, "mtu", f->mtu ? val_int(f->mtu) : val_none());
		table_set(t, row, "speed_mbps", f->speed > 0 ? val_int(f->speed) : val_none());
		table_set(t, row, "virtual", val_bool(f->is_virtual));
		bool up = net_if_up(f);
		if (!up)
			table_mark(t, row, "state", MARK_WARN);
		if (ifname && *ifname && up && ifname_matches(ifname, f->name))
			matches++;
		if (!up || f->is_loopback)
			continue;
		if (f->is_virtual) {
			up_virtual++;
			str_appendf(virt, sizeof(virt), &vlen, "%s%s", vlen ? "," : "", f->name);
		} else {
			candidates++;
			str_appendf(cand, sizeof(cand), &clen, "%s%s", clen ? "," : "", f->name);
		}
	}
	if (n->err)
		section_note(s, "cannot list /sys/class/net");
	section_add(s, "nccl_socket_ifname", "NCCL_SOCKET_IFNAME", ifname ? val_str(ifname) : val_str("(unset)"));

	if (n->nib) {
		static const struct column icols[] = {
			{ "device", "IB DEVICE", 0 }, { "port", "PORT", 0 }, { "state", "STATE", 0 },
			{ "link_layer", "LINK LAYER", 0 }, { "rate", "RATE", 0 },
		};
		struct table *it = section_table(s, "ib_ports", NULL, icols, sizeof(icols) / sizeof(icols[0]));
		for (size_t i = 0; i < n->nib; i++) {
			const struct ib_port *p = &n->ib[i];
			size_t row = table_add_row(it);
			table_set(it, row, "device", val_str(p->dev));
			table_set(it, row, "port", val_int(p->port));
			table_set(it, row, "state", val_str(p->state[0] ? p->state : "unknown"));
			table_set(it, row, "link_layer", val_str(p->link_layer[0] ? p->link_layer : "unknown"));
			table_set(it, row, "rate", val_str(p->rate[0] ? p->rate : "unknown"));
			if (p->state[0] && strcmp(p->state, "ACTIVE") != 0) {
				table_mark(it, row, "state", MARK_WARN);
				struct finding *f = finding_add(r, FID_IB_PORT_DOWN, SEV_WARNING, "%s port %d is %s", p->dev,
								       p->port, p->state);
				finding_evidence(f, NULL, 0, "/sys/class/infiniband/%s/ports/%d/state: %s", p->dev, p->port, p->state);
				finding_fix(f, "shell", "link and subnet-manager state", "ibstat %s", p->dev);
				finding_fix(f, "env", "keeps NCCL off this device", "NCCL_IB_HCA=^%s", p->dev);
			}
		}
	}
	const struct host_facts *h = c->host;
	section_add(s, "rmem_max", "net.core.rmem_max", h->rmem_max >= 0 ? val_int(h->rmem_max) : val_unknown("unknown"));
	section_add(s, "wmem_max", "net.core.wmem_max", h->wmem_max >= 0 ? val_int(h->wmem_max) : val_unknown("unknown"));
	section_add(s, "tcp_rmem", "net.ipv4.tcp_rmem", h->tcp_rmem[0] ? val_str(h->tcp_rmem) : val_unknown("unknown"));
	section_add(s, "tcp_wmem", "net.ipv4.tcp_wmem", h->tcp_wmem[0] ? val_str(h->tcp_wmem) : val_unknown("unknown"));
	section_add(s, "ip_local_port_range", "net.ipv4.ip_local_port_range",
		    h->port_range[0] ? val_str(h->port_range) : val_unknown("unknown"))->show = SHOW_JSON_ONLY;

	if (ifname && *ifname) {
		size_t l = strlen(ifname);
		if (l == 1) {
			struct finding *f = finding_add(r, FID_NCCL_SOCKET_IFNAME_SHORT, SEV_ERROR,
							       "NCCL_SOCKET_IFNAME='%s' is one character: NCCL ignores it", ifname);
			finding_evidence(f, NULL, 0, "NCCL_SOCKET_IFNAME=%s", ifname);
			finding_fix(f, "env", "or another full interface name or prefix", "NCCL_SOCKET_IFNAME=eth0");
		} else if (matches == 0 && n->nifs > 0) {
			struct finding *f = finding_add(r, FID_NCCL_SOCKET_IFNAME_NO_MATCH, SEV_ERROR,
				"NCCL_SOCKET_IFNAME='%s' matches no interface that is up", ifname);
			finding_evidence(f, NULL, 0, "NCCL_SOCKET_IFNAME=%s; interfaces up: %s%s%s", ifname, cand[0] ? cand : "",
					 cand[0] && virt[0] ? "," : "", virt);
			char first[64];
			first_name(cand, "lo", first, sizeof(first));
			finding_fix(f, "env", "an interface that is up here (it must reach the other nodes)", "NCCL_SOCKET_IFNAME=%s", first);
			finding_fix(f, "env", "let NCCL choose", "unset NCCL_SOCKET_IFNAME");
		}
	} else if (candidates + up_virtual > 1 && n->nifs > 0) {
		struct finding *f = finding_add(r, FID_MULTIPLE_BOOTSTRAP_INTERFACES, SEV_INFO,
			"%d interfaces are up (%s%s%s) and NCCL_SOCKET_IFNAME is unset", candidates + up_virtual, cand,
			cand[0] && virt[0] ? "," : "", virt);
		finding_evidence(f, "/sys/class/net", 0, "physical: %s; virtual: %s", cand[0] ? cand : "none", virt[0] ? virt : "none");
		char first[64];
		first_name(cand, "eth0", first, sizeof(first));
		finding_fix(f, "env", "the interface that reaches the other nodes", "NCCL_SOCKET_IFNAME=%s", first);
		finding_fix(f, "env", "or exclude the virtual ones", "NCCL_SOCKET_IFNAME=^docker,lo,veth,virbr");
	} else if (candidates + up_virtual == 0 && n->nifs > 0) {
		struct finding *f = finding_add(r, FID_NO_BOOTSTRAP_INTERFACE, SEV_WARNING,
						       "no network interface other than loopback is up");
		finding_evidence(f, "/sys/class/net", 0, "%zu interfaces, none up except lo", n->nifs);
		finding_fix(f, "env", "single-node jobs only", "NCCL_SOCKET_IFNAME=lo");
	}
	if (h->rmem_max >= 0 && h->wmem_max >= 0 && (h->rmem_max < 16777216 || h->wmem_max < 16777216) && !n->nib &&
	    candidates > 0) {
		struct finding *f = finding_add(r, FID_SOCKET_BUFFERS_SMALL, SEV_INFO,
			"socket buffer maximum is %lld/%lld bytes (guides use 16 MiB for multi-node TCP)", h->rmem_max, h->wmem_max);
		finding_evidence(f, "/proc/sys/net/core", 0, "rmem_max %lld, wmem_max %lld", h->rmem_max, h->wmem_max);
		finding_fix(f, "shell", "multi-node over TCP only",
			    "sudo sysctl -w net.core.rmem_max=16777216 net.core.wmem_max=16777216 net.ipv4.tcp_rmem='4096 87380 16777216' net.ipv4.tcp_wmem='4096 65536 16777216'");
	}
}
