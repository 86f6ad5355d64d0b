/* NCCL log reader: text that is not NCCL's own but names what a log's
 * failure needs (the analysis reads the result, lg->topomat, in
 * analyze/logs/rules/):
 *  - an `nvidia-smi topo -m` matrix pasted into the log (the only text of
 *    many hang reports): its GPU pairs by path;
 *  - NET/Socket's interface list wrapped one entry a line, with Docker
 *    bridges or veth pairs in it.
 * The matrix's cell names are model/topo.h's (the topo command renders the
 * same legend); reading them here is the text side of that format. */
#include "analyze/logs/read/read.h"
#include "model/topo.h"

#include <string.h>

/* The next whitespace-separated token of s[*i..n): its start and length. */
static size_t next_tok(const char *s, size_t n, size_t *i, const char **tok)
{
	while (*i < n && (s[*i] == ' ' || s[*i] == '\t' || s[*i] == '\r'))
		(*i)++;
	size_t b = *i;
	while (*i < n && s[*i] != ' ' && s[*i] != '\t' && s[*i] != '\r')
		(*i)++;
	*tok = s + b;
	return *i - b;
}

/* "GPU12": the index, else -1. */
static int gpu_index(const char *t, size_t k)
{
	if (k < 4 || k > 6 || memcmp(t, "GPU", 3) != 0)
		return -1;
	long v = 0;
	if (parse_num(t + 3, k - 3, &v) != k - 3)
		return -1;
	return (int)v;
}

/* A cell of the legend: X, NV#, PIX, PXB, PHB, NODE, SYS; LINK_UNKNOWN else. */
static enum link_class cell_class(const char *t, size_t k)
{
	if (k > 2 && t[0] == 'N' && t[1] == 'V' && is_digit(t[2]))
		return LINK_NV;
	for (int c = LINK_X; c <= LINK_SYS; c++) {
		const char *nm = link_class_name((enum link_class)c);
		if (c != LINK_NV && strlen(nm) == k && memcmp(nm, t, k) == 0)
			return (enum link_class)c;
	}
	return LINK_UNKNOWN;
}

/* "[1]br-05ab815fa14e:172.19.0.1<0>": an entry of NET/Socket's list, ' [%d]%s:%s'
 * with the address as '%s<%s>' (port 0; N:transport/net_socket.cc v2.19.3-1
 * line 58, N:misc/socket.cc ncclSocketToString), as users paste it wrapped
 * one a line; a bridge, veth pair, overlay or wireless interface (nccllog.h). NCCL's interface
 * search leaves out only docker* and lo by default (N:misc/socket.cc
 * ncclFindInterfaces "^docker,lo"), so bridges and veths are used when
 * NCCL_SOCKET_IFNAME is unset (nccl#697: the maintainer's fix was
 * NCCL_SOCKET_IFNAME=bond0). Read here, not by a signature row: its short
 * literals would slow the matcher on every text line. */
bool nl_virt_if_name(const char *s, size_t n)
{
	static const char *const names[] = {
		"br-", "veth", "virbr", "docker", "lxcbr", "podman", "cni", "flannel", "cali",
		"vxlan", "tunl", "tailscale", "zt", "wg", "vmnet", "vboxnet", "wl",
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (starts(s, n, names[k]))
			return true;
	return false;
}

bool nl_if_name_reachable(const char *s, size_t n)
{
	static const char *const names[] = { "wl", "tailscale", "zt", "wg" };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (starts(s, n, names[k]))
			return true;
	return false;
}

static bool virt_if_entry(struct nccllog *lg, int file, const char *s, size_t len, size_t i, uint64_t lineno)
{
	size_t j = i + 1;
	while (j < len && j < i + 5 && is_digit(s[j]))
		j++;
	if (j == i + 1 || j >= len || s[j] != ']')
		return false;
	j++;
	size_t e = len;
	while (e > j && (s[e - 1] == ' ' || s[e - 1] == '\r'))
		e--;
	if (e - j < 8 || memcmp(s + e - 3, "<0>", 3) != 0 || !memchr(s + j, ':', e - j))
		return false;
	if (!nl_virt_if_name(s + j, e - j))
		return false;
	struct nl_topomat *tm = &lg->topomat;
	if (!tm->nvirt_if++) {
		tm->virt_file = file;
		tm->virt_line = lineno;
		nl_copy_clean(tm->virt_text, sizeof(tm->virt_text), s, len);
	}
	return true;
}

bool nl_topomat_maybe(const char *s, size_t len)
{
	/* the first token must be GPU<n> or [n] */
	size_t i = 0;
	while (i < len && i < 32 && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (len - i < 5)
		return false;
	if (s[i] == '[' && is_digit(s[i + 1]))
		return true;
	return s[i] == 'G' && s[i + 1] == 'P' && s[i + 2] == 'U' && is_digit(s[i + 3]);
}

bool nl_topomat_line(struct nccllog *lg, int file, const char *s, size_t len, uint64_t lineno)
{
	/* cheap test first: the first token must be GPU<n> or [n] */
	if (!nl_topomat_maybe(s, len))
		return false;
	size_t i = 0;
	while (i < len && i < 32 && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (s[i] == '[' && is_digit(s[i + 1]))
		return virt_if_entry(lg, file, s, len, i, lineno);
	if (s[i] != 'G' || s[i + 1] != 'P' || s[i + 2] != 'U' || !is_digit(s[i + 3]))
		return false;
	struct nl_topomat *tm = &lg->topomat;
	const char *t;
	size_t k = next_tok(s, len, &i, &t);
	int row = gpu_index(t, k);
	if (row < 0)
		return false;
	size_t i2 = i;
	const char *t2;
	size_t k2 = next_tok(s, len, &i2, &t2);
	if (row == 0 && gpu_index(t2, k2) >= 0) {
		/* the header: GPU0 GPU1 ... NIC0 ... CPU Affinity ... */
		tm->have_hdr = true;
		tm->hdr_file = file;
		tm->ncols = 0;
		tm->gpucol[tm->ncols++] = true;
		for (i = i2, t = t2, k = k2; k && tm->ncols < NL_TOPOMAT_COLS; k = next_tok(s, len, &i, &t)) {
			if (k == 3 && memcmp(t, "CPU", 3) == 0)
				break;
			tm->gpucol[tm->ncols++] = gpu_index(t, k) >= 0;
		}
		return true;
	}
	if (!tm->have_hdr || tm->hdr_file != file || row >= tm->ncols)
		return false;
	/* a GPU row: one cell per column; a row that does not read as one is no row */
	enum link_class cls[NL_TOPOMAT_COLS];
	for (int c = 0; c < tm->ncols; c++) {
		k = next_tok(s, len, &i, &t);
		cls[c] = k ? cell_class(t, k) : LINK_UNKNOWN;
		if (cls[c] == LINK_UNKNOWN || (c == row) != (cls[c] == LINK_X))
			return false;
	}
	for (int c = 0; c < tm->ncols; c++) {
		if (!tm->gpucol[c] || c == row)
			continue;
		if (cls[c] == LINK_NV)
			tm->pairs_nv++;
		else
			tm->pairs_pcie++;
		tm->pairs_cls[cls[c]]++;
	}
	if (!tm->first_line) {
		tm->first_file = file;
		tm->first_line = lineno;
		nl_copy_clean(tm->first_text, sizeof(tm->first_text), s, len);
	}
	return true;
}
