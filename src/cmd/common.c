/* Helpers every command uses: rendering, usage errors, the no-GPU verdict. */
#include "analyze/bench.h"
#include "analyze/fleet.h"
#include "analyze/sys.h"
#include "cmd/cmd.h"
#include "probe/driver.h"
#include "probe/pci.h"
#include "report/report.h"
#include "util/clock.h"
#include "util/jsonx.h"
#include "util/outfile.h"
#include "util/priv.h"

#include "util/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the short report of a first-screen command shows after its first
 * screen (report/text.c; --full shows every section): the tables a person
 * acts on. "always": by key; "problems": only when one of its tables marks
 * a row. The ranked causes are on the first screen already. watch has none:
 * its stall report is whole (cmd/watch.c). */
static const struct brief_sections {
	const char *command;
	const char *always[6];
	const char *problems[4];
} brief_sections[] = {
	{ "check", { "check", "fix" }, { 0 } },
	{ "fix", { "fix" }, { "matrices" } },
	{ "p2p", { "gpus", "pairs", "matrices" }, { 0 } },
	{ "logs", { "ranks", "matches" }, { 0 } },
	{ "kernel", { "kernel" }, { 0 } },
};

static bool marks_a_row(const struct section *s)
{
	for (size_t t = 0; t < s->ntables; t++)
		for (size_t k = 0; k < s->tables[t]->nrows * s->tables[t]->ncols; k++)
			if (s->tables[t]->marks[k] >= MARK_WARN)
				return true;
	return false;
}

static bool key_in(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n && list[i]; i++)
		if (strcmp(list[i], key) == 0)
			return true;
	return false;
}

enum report_format cmd_format(const struct run_opts *opt)
{
	return opt->markdown ? REPORT_MARKDOWN : opt->json ? REPORT_JSON : REPORT_TEXT;
}

void cmd_order(struct result *r)
{
	result_sort_findings(r); /* the one place findings are ordered */
	for (size_t c = 0; r->command && c < sizeof(brief_sections) / sizeof(brief_sections[0]); c++) {
		const struct brief_sections *b = &brief_sections[c];
		if (strcmp(b->command, r->command) != 0)
			continue;
		for (size_t i = 0; i < r->nsections; i++) {
			struct section *s = r->sections[i];
			s->brief = key_in(s->key, b->always, 6) || (key_in(s->key, b->problems, 4) && marks_a_row(s));
		}
	}
}

void cmd_set_verdict(struct result *r)
{
	if (r->no_verdict)
		return;
	if (!r->extra)
		r->extra = json_object();
	if (!json_object_get(r->extra, "verdict"))
		json_object_set_new(r->extra, "verdict", json_string(result_verdict(r)));
}

/* The run's one-line reason (analyze/fleet.h): the verdict and the worst
 * finding, or what kept the tool from its job. */
static void reason_of(const struct result *r, char *buf, size_t bufsz)
{
	const struct finding *worst = NULL;
	for (size_t i = 0; i < r->nfindings && !worst; i++)
		if (r->findings[i]->sev >= SEV_WARNING)
			worst = r->findings[i];
	const char *v = result_verdict(r);
	if (worst)
		fleet_reason(buf, bufsz, v, worst->id, worst->title);
	else
		fleet_reason(buf, bufsz, v, NULL, r->error);
}

void cmd_envelope(struct result *r, const struct run_opts *opt)
{
	if (r->no_verdict) /* reference output (explain) is nobody's */
		return;
	char reason[FLEET_REASON_MAX];
	reason_of(r, reason, sizeof(reason));
	if (!r->extra)
		r->extra = json_object();
	/* the node's name, for merge */
	if (opt->node && opt->node[0])
		json_object_set_new(r->extra, "hostname", json_string(opt->node));
	json_object_set_new(r->extra, "reason", json_string(reason));
}

json_t *cmd_result_json(struct result *r, const struct run_opts *opt)
{
	cmd_order(r);
	cmd_set_verdict(r);
	cmd_envelope(r, opt);
	return report_json(r);
}

int cmd_render(struct result *r, const struct run_opts *opt)
{
	struct render_opts o = { .json = opt->json, .color = opt->color, .full = opt->full, .format = cmd_format(opt) };
	cmd_envelope(r, opt);
	if (opt->reason_line && !r->no_verdict)
		return printf("%s\n", json_string_value(json_object_get(r->extra, "reason"))) < 0 ? -EIO : 0;
	return report_render(r, &o, stdout);
}

int cmd_finish(struct result *r, const struct run_opts *opt)
{
	cmd_order(r);
	/* a command whose status is not its findings' (merge: the worst
	 * node's) names it as fix does, in the member "exit_code" */
	json_t *own = r->extra ? json_object_get(r->extra, "exit_code") : NULL;
	int code = json_is_integer(own) ? (int)json_integer_value(own) : result_exit_code(r);
	size_t nign;
	const struct priv_note *ign = priv_notes(&nign);
	if (nign && (opt->json || opt->json_out || opt->html)) {
		/* what root ignored of the environment (util/priv.h): a
		 * member of the JSON, which the HTML page holds too */
		json_t *a = json_array();
		for (size_t i = 0; i < nign; i++) {
			json_t *e = json_object();
			json_object_set_new(e, "variable", json_string(ign[i].variable));
			json_object_set_new(e, "value", json_str_lossy(ign[i].value));
			json_object_set_new(e, "reason", json_str_lossy(ign[i].why));
			json_array_append_new(a, e);
		}
		if (!r->extra)
			r->extra = json_object();
		json_object_set_new(r->extra, "ignored_environment", a);
	}
	if (cmd_html(r, opt) < 0)
		code = EXIT_CANNOT_RUN;
	cmd_set_verdict(r);
	if (r->error && !opt->json)
		report_say(stderr, "nccl-doctor %s: %s", r->command, r->error);
	code = cmd_extra_outputs(r, opt, code);
	if (cmd_render(r, opt) < 0)
		code = EXIT_CANNOT_RUN;
	result_free(r);
	return code;
}

/* --json-out FILE: the bytes --json prints, from this run's result; -1
 * after one line on stderr when it cannot be written. */
static int json_out(struct result *r, const struct run_opts *opt)
{
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		report_say(stderr, "nccl-doctor %s: --json-out: %s", r->command, strerror(errno));
		return -1;
	}
	struct render_opts o = { .json = true, .format = REPORT_JSON };
	cmd_envelope(r, opt);
	int rc = report_render(r, &o, m);
	if (fclose(m) != 0 || rc < 0) {
		free(text);
		report_say(stderr, "nccl-doctor %s: --json-out: the JSON could not be made", r->command);
		return -1;
	}
	int w = outfile_write_all_flags(opt->json_out, 0644, OUTFILE_TMP_PID, text, len, err, sizeof(err));
	free(text);
	if (w < 0) {
		report_say(stderr, "nccl-doctor %s: --json-out: %s", r->command, err);
		return -1;
	}
	return 0;
}

int cmd_extra_outputs(struct result *r, const struct run_opts *opt, int code)
{
	if (!opt->prom && !opt->json_out)
		return code;
	cmd_order(r);
	cmd_set_verdict(r);
	if (opt->json_out && json_out(r, opt) < 0)
		code = EXIT_CANNOT_RUN;
	if (!opt->prom)
		return code;
	struct prom_opts po = { .node = opt->node, .exit_code = code, .now = nd_wall_s(),
				.duration_s = opt->started > 0 ? nd_now_s() - opt->started : -1 };
	char *text = report_prom(r, &po), err[512];
	int w = outfile_write_all_flags(opt->prom, 0644, OUTFILE_TMP_PID, text, strlen(text), err, sizeof(err));
	free(text);
	if (w < 0) {
		report_say(stderr, "nccl-doctor %s: --prom: %s", r->command, err);
		return EXIT_CANNOT_RUN;
	}
	return code;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "nccl-doctor %s: ", cmd);
	va_start(ap, fmt);
	report_vsay(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "try 'nccl-doctor %s --help'\n", cmd);
	return EXIT_USAGE;
}

int cmd_opt_max_bytes(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	uint64_t v;
	if (bench_parse_size(value, &v) < 0 || v < (1ULL << 20))
		return -1;
	*(uint64_t *)target = v;
	return 0;
}

int cmd_options(const char *cmd, int argc, char **argv, const struct opt_spec *specs, unsigned flags,
		void (*usage)(FILE *out), int *next)
{
	char msg[512];
	int r = opt_parse(argc, argv, specs, flags, msg, sizeof(msg));
	if (r == OPT_RET_HELP) {
		if (usage)
			usage(stdout);
		/* the tests' check that --help names every option of the table and
		 * nothing else (tests/cli/t906-help-options.sh) */
		const char *dbg = getenv("NCCL_DOCTOR_DEBUG_OPTIONS");
		if (dbg && strcmp(dbg, "1") == 0) {
			char list[4096];
			opt_list(specs, list, sizeof(list));
			fprintf(stderr, "nccl-doctor %s: options: %s\n", cmd, list);
		}
		return fflush(stdout) == 0 ? EXIT_HEALTHY : EXIT_CANNOT_RUN;
	}
	if (r == OPT_RET_ERROR)
		return cmd_usage_error(cmd, "%s", msg);
	*next = r;
	return -1;
}

int cmd_fatal(const char *fmt, ...)
{
	va_list ap;
	fputs("nccl-doctor: ", stderr);
	va_start(ap, fmt);
	report_vsay(stderr, fmt, ap);
	va_end(ap);
	return EXIT_CANNOT_RUN;
}

bool cmd_no_nvidia_here(const struct pci_list *pl, const struct driver_facts *d)
{
	return sys_no_nvidia_here(pl, d);
}

int cmd_html_check(const char *cmd, const struct run_opts *opt)
{
	char err[512];
	if (!opt->html)
		return -1;
	if (!*opt->html || strcmp(opt->html, "-") == 0)
		return cmd_usage_error(cmd, "--html writes a file: give its path (stdout has the report as asked)");
	if (outfile_check(opt->html, err, sizeof(err)) < 0)
		return cmd_fatal("%s: --html: %s", cmd, err);
	return -1;
}

int cmd_html(struct result *r, const struct run_opts *opt)
{
	if (!opt->html)
		return 0;
	char err[512];
	/* the JSON document as --json prints it (cmd_finish's order) */
	cmd_order(r);
	cmd_set_verdict(r);
	cmd_envelope(r, opt);
	json_t *doc = report_json(r);
	char *page = report_html(r, doc);
	json_decref(doc);
	int rc = outfile_write_all(opt->html, 0644, page, strlen(page), err, sizeof(err));
	free(page);
	if (rc < 0) {
		report_say(stderr, "nccl-doctor %s: --html: %s", r->command, err);
		return -EIO;
	}
	return 0;
}
