/* Which of the user's NCCL variables NCCL's output implicates
 * (analyze/user_env.h). The lines are NCCL's own words (NVIDIA/nccl:
 * plugin/net.cc, net.cc before 2.19, bootstrap.cc, misc/socket.cc,
 * graph/xml.cc); each rule names the variable a line points at, and only a
 * variable the user set can be implicated. */
#include "analyze/user_env.h"
#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

#define CFG "nccl_config_error"
#define BOOT "bootstrap_network"
#define IB "ib_rdma_config"
#define XML_CTX NULL /* the file NCCL was reading: NCCL_TOPO_FILE or NCCL_GRAPH_FILE */

struct rule {
	const char *needle;     /* in the line */
	const char *needle2;    /* also in the line, or NULL */
	const char *var;        /* the variable it implicates; XML_CTX: the XML file being read */
	const char *cause;
	const char *why;
	bool fatal;             /* NCCL fails with it */
	bool needs_net_failure; /* only when NCCL's network init failed too: a suspect after the others */
};

static const struct rule rules[] = {
	/* 2.27+ plugin/net.cc; before, "Error: network %s not found." (net.cc) */
	{ "Failed to initialize any NET plugin", NULL, "NCCL_NET", CFG,
	  "NCCL_NET names a network NCCL cannot initialize on this host", true, false },
	{ "Error: network ", " not found", "NCCL_NET", CFG, "NCCL_NET names a network NCCL does not have here", true, false },
	{ "Failed to initialize any NET plugin", NULL, "NCCL_NET_PLUGIN", CFG,
	  "no NET plugin could be initialized with the plugin NCCL_NET_PLUGIN names", true, false },
	{ "NET/IB : No device found", NULL, "NCCL_IB_HCA", IB,
	  "no InfiniBand device is usable (NCCL_IB_HCA selects them) while NCCL's network is required", true, true },
	/* bootstrap.cc bootstrapNetInit */
	{ "Bootstrap : no socket interface found", NULL, "NCCL_SOCKET_IFNAME", BOOT,
	  "NCCL_SOCKET_IFNAME selects no usable network interface", true, false },
	{ "Bootstrap : no socket interface found", NULL, "NCCL_SOCKET_FAMILY", BOOT,
	  "NCCL_SOCKET_FAMILY leaves no usable network interface", true, false },
	{ "No usable listening interface found", NULL, "NCCL_COMM_ID", BOOT,
	  "no local interface is in the subnet of NCCL_COMM_ID's address", true, false },
	{ "Invalid NCCL_COMM_ID", NULL, "NCCL_COMM_ID", BOOT, "NCCL_COMM_ID is not <address>:<port>", true, false },
	/* graph/xml.cc: an unopenable topology file is skipped (WARN before
	 * 2.27, INFO since), an unopenable graph file fails */
	{ "Could not open XML topology file", NULL, "NCCL_TOPO_FILE", CFG,
	  "NCCL cannot open the file NCCL_TOPO_FILE names and detects the topology itself", false, false },
	{ "Could not open XML graph file", NULL, "NCCL_GRAPH_FILE", CFG, "NCCL cannot open the file NCCL_GRAPH_FILE names",
	  true, false },
	{ "XML Parse", NULL, XML_CTX, CFG, "the XML file it names does not parse (cut short or not NCCL's format)", true, false },
	{ "XML Mismatch", NULL, XML_CTX, CFG, "the XML file it names does not parse (cut short or not NCCL's format)", true,
	  false },
	{ "XML parser is limited to", NULL, XML_CTX, CFG, "the XML file it names is larger than NCCL reads", true, false },
};

bool uenv_suspectable(const char *name)
{
	if (!name)
		return false;
	/* nccl-doctor's own; NCCL's logging; the GPUs a run uses (the trials
	 * keep the GPUs the user chose) */
	if (strncmp(name, "NCCL_DOCTOR_", 12) == 0 || strcmp(name, "NCCL_DEBUG") == 0 ||
	    strcmp(name, "NCCL_DEBUG_SUBSYS") == 0 || strcmp(name, "NCCL_DEBUG_FILE") == 0 ||
	    strcmp(name, "CUDA_VISIBLE_DEVICES") == 0 || strcmp(name, "CUDA_DEVICE_ORDER") == 0)
		return false;
	/* variables neither NCCL nor the CUDA driver reads, which container
	 * images and shells set everywhere (nvidia/cuda images: CUDA_VERSION,
	 * NCCL_VERSION; toolkits: CUDA_HOME, CUDA_PATH): suspecting them would
	 * cost every fix search a trial */
	static const char *const inert[] = { "NCCL_VERSION", "CUDA_VERSION", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT",
					     "CUDA_TOOLKIT_ROOT_DIR", "CUDA_BIN_PATH", "CUDA_INC_PATH", "CUDA_LIB_PATH" };
	for (size_t i = 0; i < sizeof(inert) / sizeof(inert[0]); i++)
		if (strcmp(name, inert[i]) == 0)
			return false;
	return (strncmp(name, "NCCL_", 5) == 0 && name[5]) || (strncmp(name, "CUDA_", 5) == 0 && name[5]);
}

static const struct uenv_var *find_var(const struct uenv_var *vars, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (vars[i].name && strcmp(vars[i].name, name) == 0 && uenv_suspectable(vars[i].name))
			return &vars[i];
	return NULL;
}

/* name appears in s as a word (not inside a longer variable name) */
static bool has_word(const char *s, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = s; (p = strstr(p, name)) != NULL; p++) {
		bool left = p == s || !(p[-1] == '_' || (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
		char r = p[n];
		bool right = !(r == '_' || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'));
		if (left && right)
			return true;
	}
	return false;
}

static void add_hit(struct uenv_hit *out, int *n, int max, const struct uenv_var *v, const char *cause, const char *why,
		    const char *line, bool fatal, bool secondary)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(out[i].name, v->name) == 0)
			return;
	if (*n >= max)
		return;
	struct uenv_hit *h = &out[(*n)++];
	memset(h, 0, sizeof(*h));
	str_copy(h->name, v->name, sizeof(h->name));
	/* shown as sys shows the environment: credentials redacted */
	const char *val = v->value ? v->value : "";
	if (envfilter_secret_name(v->name, strlen(v->name))) {
		str_copy(h->value, ENVFILTER_REDACTED, sizeof(h->value));
	} else {
		struct strbuf shown = STRBUF_INIT;
		envfilter_redact_value(val, strlen(val), &shown);
		str_copy(h->value, strbuf_str(&shown), sizeof(h->value));
		strbuf_release(&shown);
	}
	h->cause = cause;
	h->why = why;
	h->fatal = fatal;
	h->secondary = secondary;
	/* NCCL's words from its level on ("NCCL WARN ..."), without host:pid:tid */
	const char *m = strstr(line, "NCCL WARN ");
	if (!m)
		m = strstr(line, "NCCL INFO ");
	str_copy(h->line, m ? m : line, sizeof(h->line));
	size_t len = strlen(h->line);
	while (len && (h->line[len - 1] == '\n' || h->line[len - 1] == '\r'))
		h->line[--len] = '\0';
}

int uenv_implicated(const struct uenv_var *vars, size_t nvars, const char *const *lines, size_t nlines,
		    struct uenv_hit *out, int max)
{
	int n = 0;
	bool net_failed = false;
	for (size_t i = 0; i < nlines; i++)
		if (lines[i] && (strstr(lines[i], "Failed to initialize any NET plugin") ||
				 (strstr(lines[i], "Error: network ") && strstr(lines[i], " not found"))))
			net_failed = true;
	const char *xml_file = NULL; /* the XML file NCCL said it reads */
	for (size_t i = 0; i < nlines; i++) {
		const char *l = lines[i];
		if (!l)
			continue;
		if (strstr(l, "NCCL_TOPO_FILE set by environment") || strstr(l, "Loading topology file"))
			xml_file = "NCCL_TOPO_FILE";
		else if (strstr(l, "NCCL_GRAPH_FILE set by environment") || strstr(l, "Loading graphs"))
			xml_file = "NCCL_GRAPH_FILE";
		for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
			const struct rule *r = &rules[k];
			if (!strstr(l, r->needle) || (r->needle2 && !strstr(l, r->needle2)) || (r->needs_net_failure && !net_failed))
				continue;
			static const char *const xml_vars[] = { "NCCL_TOPO_FILE", "NCCL_GRAPH_FILE" };
			for (int x = 0; x < (r->var ? 1 : 2); x++) {
				const char *name = r->var ? r->var : xml_file ? xml_file : xml_vars[x];
				const struct uenv_var *v = find_var(vars, nvars, name);
				if (v)
					add_hit(out, &n, max, v, r->cause, r->why, l, r->fatal, r->needs_net_failure);
				if (!r->var && xml_file)
					break;
			}
		}
		/* a warning of NCCL's that names a variable the user set */
		if (strstr(l, "NCCL WARN "))
			for (size_t k = 0; k < nvars; k++)
				if (uenv_suspectable(vars[k].name) && has_word(strstr(l, "NCCL WARN "), vars[k].name))
					add_hit(out, &n, max, &vars[k], CFG, "NCCL's warning names it", l, true, false);
	}
	/* the secondary suspects last, each group in line order */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && out[j - 1].secondary && !out[j].secondary; j--) {
			struct uenv_hit t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}
