/* What `fix` (and `check`'s fix stage) shows (engine/fix.h): the table of
 * trials people fill by hand, the recommendation with what it costs against
 * a healthy machine, the recommendation in the forms people paste
 * (analyze/fix_emit), and the permanent fixes from the host findings, each
 * with its risk, with a systemd unit that reapplies the setpci lines at
 * boot (printed, never installed). */
#include "engine/fix.h"
#include "kb/findings.h"
#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value the user set for name, as sys shows it (credentials
 * redacted), "" when not one of the user's variables */
static const char *user_value(const struct fix_search *fs, const char *name, char *buf, size_t sz)
{
	buf[0] = '\0';
	for (int j = 0; j < fs->nuvars; j++) {
		if (strcmp(fs->uvar_name[j], name) != 0)
			continue;
		if (envfilter_secret_name(name, strlen(name))) {
			str_copy(buf, ENVFILTER_REDACTED, sz);
		} else {
			struct strbuf shown = STRBUF_INIT;
			envfilter_redact_value(fs->uvar_value[j], strlen(fs->uvar_value[j]), &shown);
			str_copy(buf, strbuf_str(&shown), sz);
			strbuf_release(&shown);
		}
	}
	return buf;
}

static const char *state_text(const struct fix_trial *t, char *buf, size_t sz)
{
	switch (t->state) {
	case TRIAL_NOT_TRIED: return "not tried";
	case TRIAL_FASTER_WORKS: return "not tried (a faster one works)";
	case TRIAL_VOID_WEDGED: return "void (a GPU is wedged)";
	case TRIAL_NO_BUDGET: return "not tried (budget spent)";
	default:
		snprintf(buf, sz, "%s%s", t->result, t->slow ? " (slow)" : "");
		return buf;
	}
}

static struct value bw_val(double v)
{
	if (v < 0)
		return val_none();
	char tx[32];
	snprintf(tx, sizeof(tx), "%.2f", v);
	return val_with_display(val_double(round(v * 100) / 100), tx);
}

static void trials_table(const struct fix_search *fs, struct section *s)
{
	static const struct column bcols[] = {
		{ "configuration", "configuration", 0 }, { "expected", "expected", 0 },
		{ "init", "init", SHOW_JSON_ONLY },      { "init_s", "init s", 0 },
		{ "result", "all_reduce", 0 },           { "busbw_1m", "1M", 0 },
		{ "busbw_64m", "64M", 0 },               { "busbw_256m", "256M", 0 },
		{ "lat_8b_us", "8 B us", 0 },            { "seconds", "time", 0 },
		{ "detail", "detail", SHOW_JSON_ONLY },  { "transports", "transports", SHOW_JSON_ONLY },
	};
	static const struct column ccols[] = {
		{ "configuration", "configuration", 0 }, { "expected", "expected", 0 },
		{ "result", "command", 0 },              { "exit_code", "exit", 0 },
		{ "seconds", "time", 0 },                { "detail", "last output line", 0 },
	};
	bool cmd = fs->command != NULL;
	struct table *t = cmd ? section_table(s, "trials", "Trials (your command)", ccols, 6)
			      : section_table(s, "trials", "Trials (all_reduce, float sum, busbw in GB/s by message size)", bcols, 12);
	t->fold_col = "result", t->fold_prefix = "not tried"; /* text: one line for those */
	for (int i = 0; i < fs->n; i++) {
		const struct fix_trial *x = &fs->t[i];
		bool ran = x->state >= TRIAL_OK;
		size_t row = table_add_row(t);
		char buf[200], pct[16];
		table_set(t, row, "configuration", val_str(x->cand.name));
		/* the share expected before the trial: beside a trial that failed
		 * it would read as a promise ("~100%" beside a hang) */
		snprintf(pct, sizeof(pct), "~%.0f%%", x->cand.expected * 100);
		bool failed = ran && x->state != TRIAL_OK && x->state != TRIAL_CUT;
		table_set(t, row, "expected",
			  val_with_display(val_double(round(x->cand.expected * 100) / 100), failed ? "-" : pct));
		table_set(t, row, "result", val_str(state_text(x, buf, sizeof(buf))));
		snprintf(pct, sizeof(pct), "%.1f s", x->secs);
		table_set(t, row, "seconds", ran ? val_with_display(val_double(round(x->secs * 100) / 100), pct) : val_none());
		table_set(t, row, "detail", x->detail[0] ? val_str(x->detail) : val_none());
		if (ran && x->state != TRIAL_OK)
			table_mark(t, row, "result", MARK_BAD);
		else if (x->state == TRIAL_OK)
			table_mark(t, row, "result", x->slow ? MARK_WARN : MARK_OK);
		if (cmd) {
			table_set(t, row, "exit_code", ran && x->state != TRIAL_HANG ? val_int(x->exit_code) : val_none());
			continue;
		}
		table_set(t, row, "init", ran ? val_str(x->init) : val_none());
		/* text: the seconds when NCCL's set-up worked, else how it ended */
		table_set(t, row, "init_s", ran && x->init_s >= 0 && strcmp(x->init, "ok") == 0 ? bw_val(x->init_s)
					    : ran && x->init[0] ? val_with_display(x->init_s >= 0 ? bw_val(x->init_s) : val_none(), x->init)
					    : val_none());
		table_set(t, row, "busbw_1m", bw_val(x->bw[0]));
		table_set(t, row, "busbw_64m", bw_val(x->bw[1]));
		table_set(t, row, "busbw_256m", bw_val(x->bw[2]));
		table_set(t, row, "lat_8b_us", bw_val(x->lat8_us));
		table_set(t, row, "transports", x->transports[0] ? val_str(x->transports) : val_none());
	}
}

int fix_plan_of(const struct fix_search *fs, const struct result *r, struct fix_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	if (fs->winner < 0)
		return -ENOENT;
	const struct fix_candidate *c = &fs->t[fs->winner].cand;
	for (int k = 0; k < c->nenv; k++)
		if (fix_plan_setenv(plan, c->env[k].name, c->env[k].value) < 0)
			return -EINVAL;
	for (int k = 0; k < c->nunset; k++)
		if (fix_plan_unsetenv(plan, c->unset[k]) < 0)
			return -EINVAL;
	bool broken = false;
	for (int a = 0; a < fs->in.ngpus; a++)
		for (int b = 0; b < fs->in.ngpus; b++)
			broken |= fs->in.pair[a][b] == FIXC_PAIR_BROKEN;
	plan->p2p_broken = broken || c->p2p_off;
	plan->shm_in_containers = c->needs_shm;
	plan->ngpus = fs->ndev;
	/* /dev/shm: what the SHM transport needs (NCCL's guides: as large as the
	 * host allows; 16 GiB is the usual container setting) */
	if (fs->in.shm_small || (r && (finding_get(r, FID_SHM_TOO_SMALL) || finding_get(r, FID_SHM_NOT_MOUNTED))))
		plan->shm_bytes = 16ULL << 30;
	return 0;
}

static void add_lines(struct section *s, const char *indent, char *text)
{
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		section_note(s, "%s%s", indent, line);
}

static void forms(const struct fix_search *fs, struct result *r, struct section *s, unsigned mask)
{
	struct fix_plan plan;
	if (fix_plan_of(fs, r, &plan) < 0)
		return;
	const char *name = fs->t[fs->winner].cand.name;
	json_t *rec = json_object(), *env = json_object(), *fj = json_object();
	json_object_set_new(rec, "configuration", json_string(name));
	for (int k = 0; k < plan.nenv; k++)
		json_object_set_new(env, plan.env[k].name, json_string(plan.env[k].value));
	json_object_set_new(rec, "env", env);
	/* the user's own variables to remove: "remove NCCL_NET (set by you)" */
	const struct fix_candidate *wc = &fs->t[fs->winner].cand;
	if (wc->nunset) {
		json_t *un = json_array(), *rm = json_array();
		for (int k = 0; k < wc->nunset; k++) {
			char value[256];
			user_value(fs, wc->unset[k], value, sizeof(value));
			json_array_append_new(un, json_string(wc->unset[k]));
			json_array_append_new(rm, json_pack("{s:s,s:s,s:s}", "name", wc->unset[k], "value", value, "set_by", "you"));
		}
		json_object_set_new(rec, "unset", un);
		json_object_set_new(rec, "remove", rm);
	}
	json_object_set_new(rec, "shm_bytes", json_integer((json_int_t)plan.shm_bytes));
	json_object_set_new(rec, "forms", fj);
	json_object_set_new(r->extra, "recommendation", rec);
	for (int f = 0; f < FIX_FORM_COUNT; f++) {
		if (!(mask & (1u << f)))
			continue;
		/* an env file with nothing to set is its header only: not shown
		 * (--write-env still writes it) */
		if (f == FIX_FORM_ENVFILE && plan.nenv == 0)
			continue;
		struct strbuf sb;
		strbuf_init(&sb, 1 << 14);
		if (fix_emit(&plan, (enum fix_form)f, &sb) == 0) {
			/* the first screen's action: the shell form of what was
			 * measured to work; with "as given" (copies hang, NCCL
			 * works) the vLLM flags that stop using the copies */
			if (f == FIX_FORM_SHELL && strcmp(name, "as given") != 0) { /* as given: nothing to do */
				char title[200];
				const struct fix_trial *w = &fs->t[fs->winner];
				double m = fix_trial_measure(w);
				bool small_only = m >= 0 && w->bw[1] < 0 && w->bw[2] < 0;
				char keeps[80] = "";
				if (fs->healthy > 0 && m >= 0 && !small_only) /* what it costs, as "keeps" says */
					snprintf(keeps, sizeof(keeps), "; keeps ~%.0f%% of a healthy machine's bandwidth",
						 m / fs->healthy * 100);
				snprintf(title, sizeof(title), "%.120s (measured to work on %d GPU%s%s)", name, fs->ndev,
					 fs->ndev == 1 ? "" : "s", keeps);
				result_set_action(r, title, strbuf_str(&sb));
			}
			else if (f == FIX_FORM_VLLM && !r->action)
				result_set_action(r, "turn off what uses direct GPU-to-GPU copies (vLLM shown)", strbuf_str(&sb));
			section_note(s, "%s (%s):", fix_form_name((enum fix_form)f), name);
			json_object_set_new(fj, fix_form_name((enum fix_form)f), json_string(strbuf_str(&sb)));
			char *text = strbuf_detach(&sb);
			add_lines(s, "    ", text);
			free(text);
		}
		strbuf_release(&sb);
	}
}

static bool permanent_kind(const struct finding *f, const struct fix *x)
{
	if (strcmp(x->kind, "kernel") == 0 || strcmp(x->kind, "bios") == 0)
		return true;
	/* library and driver alignment: what to install or load where */
	if (f->cause && strcmp(f->cause, "version_mismatch") == 0 && strcmp(x->kind, "vllm") != 0)
		return true;
	if (strcmp(x->kind, "shell") != 0)
		return false;
	static const char *const words[] = { "setpci", "RemoveIPC", "tee ", "mount ", "pip ", "modprobe" };
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (strstr(x->text, words[k]))
			return true;
	return false;
}

/* Permanent fixes from the findings (each once, with its risk), and the
 * systemd unit that reapplies the setpci lines at boot. */
static void permanent(struct result *r)
{
	struct section *s = NULL;
	char seen[24][160];
	int nseen = 0;
	struct strbuf unit;
	strbuf_init(&unit, 1 << 13);
	int nsetpci = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct finding *f = r->findings[i];
		for (size_t k = 0; k < f->nfix; k++) {
			const struct fix *x = &f->fixes[k];
			if (!permanent_kind(f, x))
				continue;
			bool dup = false;
			for (int j = 0; j < nseen; j++)
				dup |= strncmp(seen[j], x->text, sizeof(seen[0]) - 1) == 0;
			if (dup || nseen == 24)
				continue;
			str_copy(seen[nseen++], x->text, sizeof(seen[0]));
			if (!s)
				s = result_section(r, "permanent", "Permanent fixes (change the machine: read the risk first)");
			const char *label = strcmp(x->kind, "kernel") == 0 ? "kernel command line (GRUB_CMDLINE_LINUX)"
					    : strcmp(x->kind, "bios") == 0   ? "BIOS"
					    : strcmp(x->kind, "shell") == 0  ? "shell"
									     : x->kind;
			section_note(s, "%s, for %s: %s", label, f->id, x->text);
			if (x->note)
				section_note(s, "    risk/effect: %s", x->note);
			const char *sp = strstr(x->text, "setpci ");
			if (sp && strcmp(x->kind, "shell") == 0) {
				strbuf_addf(&unit, "ExecStart=%s\n", sp);
				nsetpci++;
			}
		}
	}
	if (nsetpci) {
		section_note(s, "systemd unit that reapplies the setpci lines at every boot (printed, not installed): "
				"/etc/systemd/system/nccl-acs-off.service");
		char *lines = strbuf_detach(&unit);
		struct strbuf u;
		strbuf_init(&u, 1 << 13);
		strbuf_addf(&u, "[Unit]\nDescription=Clear PCIe ACS redirect on the bridges between GPUs (nccl-doctor fix)\n"
				   "After=sysinit.target\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\n%s\n"
				   "[Install]\nWantedBy=multi-user.target\n", lines);
		free(lines);
		char *text = strbuf_detach(&u);
		add_lines(s, "    ", text);
		free(text);
		strbuf_release(&u);
		section_note(s, "then: sudo systemctl daemon-reload && sudo systemctl enable --now nccl-acs-off.service "
				"(risk as setpci's: removes isolation between these devices; systemd 239+ finds setpci in its search path)");
	}
	strbuf_release(&unit);
}

static void recommendation(struct fix_search *fs, struct section *s)
{
	if (fs->winner < 0) {
		section_add(s, "recommended", "recommended", val_none());
		return;
	}
	const struct fix_trial *w = &fs->t[fs->winner];
	section_add(s, "recommended", "recommended", val_str(w->cand.name));
	for (int k = 0; k < w->cand.nunset && k < 4; k++) {
		char value[256];
		section_note(s, "remove %s (set by you: %s=%.80s) from the environment your jobs start with", w->cand.unset[k],
			     w->cand.unset[k], user_value(fs, w->cand.unset[k], value, sizeof(value)));
	}
	if (w->cand.nunset > 4)
		section_note(s, "and %d more of your NCCL_* and CUDA_* variables (the recommendation lists them)", w->cand.nunset - 4);
	double m = fix_trial_measure(w);
	if (m >= 0)
		section_add(s, "measured_busbw", fs->ndev == 1 ? "measured algbw (one GPU)" : w->bw[1] >= 0 && w->bw[2] >= 0 ? "measured busbw (64M/256M mean)" : w->bw[2] >= 0 ? "measured busbw (256M)" : w->bw[1] >= 0 ? "measured busbw (64M)" : "measured busbw (1M)", bw_val(m));
	if (fs->healthy > 0) {
		bool small_only = m >= 0 && w->bw[1] < 0 && w->bw[2] < 0;
		/* the expected number only beside a measurement it compares with
		 * (it was printed two lines above "no comparison") */
		if (!small_only)
			section_add(s, "healthy_busbw", "healthy machine (expected)", bw_val(fs->healthy));
		if (small_only) {
			section_note(s, "measured up to 1 MiB only (--max-bytes): latency, not bandwidth; no comparison with a healthy machine");
		} else if (m >= 0) {
			double keep = m / fs->healthy * 100;
			char pct[16];
			snprintf(pct, sizeof(pct), "~%.0f%%", keep);
			section_add(s, "keeps_percent", "keeps", val_with_display(val_double(round(keep)), pct));
			section_note(s, "%s keeps ~%.0f%% of the bandwidth a healthy machine of this topology gives "
					"(%.1f of ~%.1f GB/s busbw: the ring's slowest link at its rate)", w->cand.name,
				     keep, m, fs->healthy);
		}
	} else if (fs->ndev == 1) {
		section_note(s, "one GPU: no link between GPUs to compare against (algbw shown instead of busbw)");
	}
}

void fix_trial_ignored_vars(const struct fix_trial *t, struct result *r)
{
	for (int k = 0; t->state == TRIAL_OK && k < t->nhits; k++) {
		const struct uenv_hit *h = &t->hits[k];
		if (h->fatal)
			continue;
		struct finding *f = finding_add(r, FID_NCCL_IGNORES_USER_VAR, SEV_WARNING, "NCCL ignores %s=%.80s (set by you): %s",
						h->name, h->value, h->why);
		finding_evidence(f, NULL, 0, "NCCL's own line: %s", h->line);
		finding_fix(f, "env", "or point it at a file NCCL can read", "unset %s", h->name);
	}
}

/* Findings from the trial of the configuration as given: what failed, with
 * the cause the evidence points at. */
static void given_findings(const struct fix_search *fs, struct result *r)
{
	const struct fix_trial *g = NULL;
	for (int i = 0; i < fs->n; i++)
		if (strcmp(fs->t[i].cand.name, "as given") == 0 && fs->t[i].state >= TRIAL_OK)
			g = &fs->t[i];
	if (!g)
		return;
	const struct fix_trial *w = fs->winner >= 0 ? &fs->t[fs->winner] : NULL;
	struct finding *f = NULL;
	if (g->state == TRIAL_CUT) {
		f = finding_add(r, FID_BENCH_NOT_FINISHED, SEV_WARNING, "all_reduce on %d GPU%s with the environment as given: %s",
				fs->ndev, fs->ndev == 1 ? "" : "s", g->result);
		finding_evidence(f, NULL, 0, "every rank was still within the deadline of its phase: slow, not shown to be stuck");
	} else if (g->state != TRIAL_OK && fix_trial_fatal_hit(g)) {
		/* NCCL's own words point at a variable the user set */
		const struct uenv_hit *h = fix_trial_fatal_hit(g);
		enum finding_id id = strcmp(h->cause, "bootstrap_network") == 0 ? FID_ALLREDUCE_BOOTSTRAP_FAILS
				     : FID_ALLREDUCE_USER_ENV_FAILS;
		if (fs->command)
			f = finding_add(r, id, SEV_ERROR, "your command with the environment as given: %s", g->result);
		else
			f = finding_add(r, id, SEV_ERROR, "all_reduce on %d GPU%s with the environment as given: %s", fs->ndev,
					fs->ndev == 1 ? "" : "s", g->result);
		finding_evidence(f, NULL, 0, "NCCL's own line: %s", h->line);
		for (int k = 0; k < g->nhits; k++)
			if (g->hits[k].fatal)
				finding_evidence(f, NULL, 0, "%s=%s is set by you (the environment nccl-doctor was started with): %s",
						 g->hits[k].name, g->hits[k].value, g->hits[k].why);
		if (w)
			finding_evidence(f, NULL, 0, "with %s it works: %s", w->cand.name, w->result);
		for (int k = 0; w && k < w->cand.nunset; k++)
			finding_fix(f, "env", "remove it from the environment your jobs start with (set by you)", "unset %s",
				    w->cand.unset[k]);
	} else if (g->state != TRIAL_OK) {
		enum finding_id id = g->bootstrap_evidence ? FID_ALLREDUCE_BOOTSTRAP_FAILS
				     : g->shm_evidence	 ? FID_ALLREDUCE_SHM_FAILS
				     : w && w->cand.avoids_p2p_faults ? FID_ALLREDUCE_P2P_FAILS
								      : FID_ALLREDUCE_FAILS;
		if (fs->command)
			f = finding_add(r, id, SEV_ERROR, "your command with the environment as given: %s", g->result);
		else
			f = finding_add(r, id, SEV_ERROR, "all_reduce on %d GPU%s with the environment as given: %s", fs->ndev,
					fs->ndev == 1 ? "" : "s", g->result);
		if (g->detail[0])
			finding_evidence(f, NULL, 0, "%s: %s", fs->command ? "its last output line" : "last NCCL line", g->detail);
		if (g->log_cause[0])
			finding_evidence(f, NULL, 0, "NCCL's output read as `logs` reads it: most likely %s (%.2f)%s%s", g->log_cause,
					 g->log_conf, g->log_evidence[0] ? ": " : "", g->log_evidence);
		if (w)
			finding_evidence(f, NULL, 0, "with %s it works: %s", w->cand.name, w->result);
		for (int k = 0; w && k < w->cand.nunset && k < 4; k++)
			finding_fix(f, "env", "remove it from the environment your jobs start with (set by you)", "unset %s",
				    w->cand.unset[k]);
	} else if (g->state == TRIAL_OK && g->nhits) {
		fix_trial_ignored_vars(g, r);
		if (g->slow)
			f = finding_add(r, FID_ALLREDUCE_SLOW, SEV_WARNING,
					"all_reduce busbw %.1f GB/s is under 40%% of the ~%.1f GB/s a healthy machine of this topology gives",
					fix_trial_measure(g), fs->healthy);
	} else if (g->slow) {
		f = finding_add(r, FID_ALLREDUCE_SLOW, SEV_WARNING,
				"all_reduce busbw %.1f GB/s is under 40%% of the ~%.1f GB/s a healthy machine of this topology gives",
				fix_trial_measure(g), fs->healthy);
		if (g->transports[0])
			finding_evidence(f, NULL, 0, "rank 0's transports: %s", g->transports);
	}
	if (f && w && w != g && w->cand.nenv)
		finding_fix(f, "env", "the fastest configuration that worked here", "%s", w->cand.name);
	bool voided = false;
	for (int i = 0; i < fs->n; i++)
		voided |= fs->t[i].state == TRIAL_VOID_WEDGED || fs->t[i].state == TRIAL_NO_BUDGET || fs->t[i].state == TRIAL_CUT;
	if (!w && fs->n > 0 && g->state != TRIAL_OK && !voided) {
		f = finding_add(r, FID_FIX_NOTHING_WORKS, SEV_ERROR, "no configuration tried made all_reduce work on these GPUs");
		for (int i = 0; i < fs->n && i < 6; i++)
			if (fs->t[i].state >= TRIAL_OK)
				finding_evidence(f, NULL, 0, "%s: %s", fs->t[i].cand.name, fs->t[i].result);
	}
}

static void wedged_notes(const struct fix_search *fs, struct result *r, struct section *s)
{
	for (int d = 0; d < fs->ndev; d++) {
		if (!fs->wedged[d])
			continue;
		int idx = fs->st->p2p->g[fs->pos[d]].index;
		section_note(s, "GPU %d is wedged (busy with no process after %s): the later trials on it are void, not failures "
				"of their configurations; reset it (no process may use it): sudo nvidia-smi -r -i %d",
			     idx, fs->wedged_after[d], idx);
		if (!finding_get(r, FID_GPU_WEDGED)) {
			struct finding *f = finding_add(r, FID_GPU_WEDGED, SEV_ERROR, "GPU %d stays busy with no process after %s",
							idx, fs->wedged_after[d]);
			finding_fix(f, "shell", "resets the GPU; no process may use it (printed, not run)", "sudo nvidia-smi -r -i %d", idx);
		}
	}
}

int fix_report(struct fix_search *fs, struct result *r, unsigned form_mask, const char *key)
{
	struct section *s = result_section(r, key, "Fix: configurations tried (fastest expected first)");
	if (fs->skipped_busy[0])
		section_note(s, "not tested (in use by other processes; --force tests them): %s", fs->skipped_busy);
	if (fs->why_not[0]) {
		section_note(s, "no configuration was tried: %s", fs->why_not);
		return EXIT_CANNOT_RUN;
	}
	section_add(s, "gpus", "GPUs tried", val_int(fs->ndev));
	if (!fs->command)
		section_note(s, "each trial: one process per GPU, all_reduce float sum at 8 B, 1 MiB%s%s, 5 iterations after 1 warm-up, "
				"data checked; a deadline for init and for each collective",
			     fs->max_bytes >= 64ULL << 20 ? ", 64 MiB" : "", fs->max_bytes >= 256ULL << 20 ? ", 256 MiB" : "");
	else
		section_note(s, "each trial: your command with the configuration's variables, in its own process group, killed at its deadline");
	char tx[32];
	snprintf(tx, sizeof(tx), "%.1f s", fs->secs);
	section_add(s, "search_s", "search time", val_with_display(val_double(round(fs->secs * 100) / 100), tx));
	trials_table(fs, s);
	int ncut = 0;
	for (int i = 0; i < fs->n; i++)
		ncut += fs->t[i].state == TRIAL_CUT;
	if (ncut)
		section_note(s, "%d trial%s still running within every phase's deadline when %s share of the budget ran out: "
				"slow, not shown to be broken; --budget %.0f gives each more time",
			     ncut, ncut == 1 ? " was" : "s were", ncut == 1 ? "its" : "their", fs->budget * 2 > 60 ? fs->budget * 2 : 60);
	wedged_notes(fs, r, s);
	recommendation(fs, s);
	given_findings(fs, r);
	forms(fs, r, s, form_mask);
	permanent(r);
	const struct fix_trial *g = fs->n > 0 && strcmp(fs->t[0].cand.name, "as given") == 0 ? &fs->t[0] : NULL;
	if (fs->winner < 0) {
		/* nothing worked among what ran; trials left void (a wedged GPU,
		 * the budget) leave the question open: could not run */
		bool any_ran = false, voided = false;
		for (int i = 0; i < fs->n; i++) {
			any_ran |= fs->t[i].state >= TRIAL_OK;
			voided |= fs->t[i].state == TRIAL_VOID_WEDGED || fs->t[i].state == TRIAL_NO_BUDGET || fs->t[i].state == TRIAL_CUT;
		}
		return any_ran && !voided ? EXIT_PROBLEM : EXIT_CANNOT_RUN;
	}
	if (g && fs->winner == 0 && !g->slow)
		return EXIT_HEALTHY;
	return EXIT_WARNINGS;
}
