/* nccl-doctor explain TOPIC | --list: its options, then the search engine
 * over the knowledge base (engine/explain.c) and report/. */
#include "cmd/cmd.h"
#include "engine/explain.h"
#include "util/strbuf.h"
#include "util/text.h"

#include <stdbool.h>
#include <stdio.h>

static void usage(FILE *out)
{
	fputs("usage: nccl-doctor explain TOPIC...\n"
	      "       nccl-doctor explain --list [--kind KIND]\n"
	      "\n"
	      "Explains an entry of the knowledge base built into nccl-doctor:\n"
	      "  79, XID_79          an Xid error: name, meaning, class, NVIDIA's action\n"
	      "  20034, SXID_20034   an NVSwitch SXid error: name, fatal or not, meaning, action\n"
	      "  NV_ERR_RESET_REQUIRED, 0x62\n"
	      "                      a GPU-fatal status of the driver's NVRM lines\n"
	      "  P2P_IOMMU_FAULT     a finding: what it means, why it matters, the fix\n"
	      "  NCCL_P2P_LEVEL      an NCCL (or CUDA, PyTorch, vLLM) variable: values, default, effect, version\n"
	      "  HANG_AT_INIT        a symptom of the quick reference, with the better fix\n"
	      "  p2p_pcie_acs_iommu  a cause class and its findings\n"
	      "  S05                 an NCCL log signature\n"
	      "  T7                  a stage of NCCL's start-up\n"
	      "  p2pRecvConnect      a function a stack dump shows: its stage, what a stop there means\n"
	      "  \"hang at init\"      anything else: a word search over all entries\n"
	      "\n"
	      "options:\n"
	      "  -l, --list        list every entry\n"
	      "  -k, --kind KIND   with --list, only this kind: xid, sxid, rm_status, finding, variable,\n"
	      "                    symptom, cause, signature, stage, frame\n"
	      "  -h, --help        this help\n",
	      out);
}

int cmd_explain(int argc, char **argv, const struct run_opts *opt)
{
	const char *const *kinds = explain_kinds;
	bool list = false;
	int kind_index = -1;
	const struct opt_spec opts[] = {
		OPT_FLAG("list", 'l', &list, "list the entries"),
		OPT_ENUM("kind", 'k', &kind_index, kinds, "only entries of this kind"),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("explain", argc, argv, opts, OPT_STOP_AT_ARG, usage, &next);
	if (rc >= 0)
		return rc;
	const char *kind = kind_index >= 0 ? kinds[kind_index] : NULL;
	if (!list && next >= argc)
		return cmd_usage_error("explain", "what should I explain? give a TOPIC or --list");
	if (list && next < argc)
		return cmd_usage_error("explain", "--list takes no TOPIC");

	struct result *r = result_new("explain");
	r->no_verdict = true;
	if (list) {
		explain_list(r, kind);
		return cmd_finish(r, opt);
	}
	struct strbuf q;
	strbuf_init(&q, 4096);
	for (int i = next; i < argc; i++)
		strbuf_addf(&q, "%s%s", i > next ? " " : "", argv[i]);
	explain_topic(r, str_trim((char *)strbuf_str(&q)));
	strbuf_release(&q);
	return cmd_finish(r, opt);
}
