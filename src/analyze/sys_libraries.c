/* `sys`: every libnccl on the host, which program loads which copy, and the
 * findings about them (several versions, none at all, a bad
 * VLLM_NCCL_SO_PATH). The facts come from probe/ncclib. */
#include "analyze/sys_libraries.h"
#include "kb/findings.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void torch_label(const struct ncclib_torch *t, char *buf, size_t bufsz)
{
	if (t->version)
		snprintf(buf, bufsz, "PyTorch %s", t->version);
	else
		snprintf(buf, bufsz, "PyTorch (%s)", t->path);
}

static void vllm_label(const struct ncclib_vllm *v, char *buf, size_t bufsz)
{
	if (v->version)
		snprintf(buf, bufsz, "vLLM %s", v->version);
	else
		snprintf(buf, bufsz, "vLLM (%s)", v->path);
}

static void add_item(struct strbuf *sb, const char *s)
{
	if (sb->len)
		strbuf_adds(sb, ", ");
	strbuf_adds(sb, s);
}

/* "ld.so default, PyTorch 2.11.0+cu130, vLLM 0.11.0 (through PyTorch)" */
static void loaded_by(const struct ncclib_scan *s, int lib, struct strbuf *sb)
{
	char buf[512];
	if (s->ld_default == lib)
		add_item(sb, "ld.so default");
	for (size_t i = 0; i < s->ntorch; i++) {
		if (s->torch[i].how != TORCH_NCCL_SHARED || s->torch[i].lib != lib)
			continue;
		torch_label(&s->torch[i], buf, sizeof(buf));
		add_item(sb, buf);
	}
	if (s->vllm_so_path) {
		if (s->vllm_lib == lib && !s->vllm_so_error) {
			if (s->nvllm == 1 && s->vllm[0].version)
				snprintf(buf, sizeof(buf), "vLLM %s (VLLM_NCCL_SO_PATH)", s->vllm[0].version);
			else
				snprintf(buf, sizeof(buf), "vLLM (VLLM_NCCL_SO_PATH)");
			add_item(sb, buf);
		}
		return;
	}
	/* without VLLM_NCCL_SO_PATH vLLM dlopens libnccl.so.2 after importing
	 * torch and gets the copy PyTorch already loaded */
	for (size_t i = 0; i < s->nvllm; i++) {
		int t = s->vllm[i].torch;
		if (t < 0 || s->torch[t].how != TORCH_NCCL_SHARED || s->torch[t].lib != lib)
			continue;
		char vl[256];
		vllm_label(&s->vllm[i], vl, sizeof(vl));
		snprintf(buf, sizeof(buf), "%s (through PyTorch)", vl);
		add_item(sb, buf);
	}
}

static void join_strv(char *const *v, size_t n, struct strbuf *sb)
{
	for (size_t i = 0; i < n; i++)
		add_item(sb, v[i]);
}

/* Same NCCL release: the CUDA build it was made for does not change the
 * protocol ranks negotiate. */
static bool same_release(const struct nccl_version *a, const struct nccl_version *b)
{
	return a->major == b->major && a->minor == b->minor && a->patch == b->patch &&
	       strcmp(a->suffix, b->suffix) == 0;
}

struct seen_version {
	struct nccl_version v;
};

static void note_version(struct seen_version *seen, size_t *n, size_t max, const struct nccl_version *v)
{
	for (size_t i = 0; i < *n; i++)
		if (same_release(&seen[i].v, v))
			return;
	if (*n < max)
		seen[(*n)++].v = *v;
}

static int cmp_seen(const void *a, const void *b)
{
	return nccl_version_cmp(&((const struct seen_version *)a)->v, &((const struct seen_version *)b)->v);
}

/* The library PyTorch loads, when exactly one is known with a version. */
static const struct ncclib *torch_lib(const struct ncclib_scan *s, const struct ncclib_torch **tp)
{
	for (size_t i = 0; i < s->ntorch; i++) {
		const struct ncclib_torch *t = &s->torch[i];
		if (t->how == TORCH_NCCL_SHARED && t->lib >= 0 && s->libs[t->lib].has_version) {
			*tp = t;
			return &s->libs[t->lib];
		}
	}
	return NULL;
}

static void dir_of(const char *path, char *out, size_t outsz)
{
	str_copy(out, path, outsz);
	char *sl = strrchr(out, '/');
	if (sl && sl != out)
		*sl = '\0';
}

static void report_multiple(struct result *r, const struct ncclib_scan *s)
{
	struct seen_version seen[NCCLIB_MAX_LIBS + 64];
	size_t nseen = 0, max = sizeof(seen) / sizeof(seen[0]);
	for (size_t i = 0; i < s->nlibs; i++)
		if (s->libs[i].has_version)
			note_version(seen, &nseen, max, &s->libs[i].version);
	for (size_t i = 0; i < s->ntorch; i++) {
		struct nccl_version v;
		if (s->torch[i].how == TORCH_NCCL_STATIC && s->torch[i].static_version &&
		    nccl_version_parse(s->torch[i].static_version, &v) == 0)
			note_version(seen, &nseen, max, &v);
	}
	if (nseen < 2)
		return;
	qsort(seen, nseen, sizeof(seen[0]), cmp_seen);
	/* Two copies on one host are normal (the system package and a wheel);
	 * they cost a job something only when one process loads two of them:
	 * vLLM's pynccl through VLLM_NCCL_SO_PATH beside PyTorch's copy. */
	const struct ncclib_torch *t = NULL;
	const struct ncclib *tl = torch_lib(s, &t);
	bool vllm_differs = tl && s->vllm_so_path && s->vllm_lib >= 0 &&
			    !(s->libs[s->vllm_lib].has_version && same_release(&s->libs[s->vllm_lib].version, &tl->version));
	struct strbuf list = STRBUF_INIT;
	for (size_t i = 0; i < nseen; i++) {
		char vb[64];
		snprintf(vb, sizeof(vb), "%d.%d.%d%s", seen[i].v.major, seen[i].v.minor, seen[i].v.patch,
			 seen[i].v.suffix);
		add_item(&list, vb);
	}
	struct finding *f = finding_add(r, FID_NCCL_MULTIPLE_VERSIONS, vllm_differs ? SEV_WARNING : SEV_INFO,
					       "%zu different NCCL versions on this host: %s%s", nseen, strbuf_str(&list),
					       vllm_differs ? "; vLLM loads another one than PyTorch in the same process" : "");
	strbuf_release(&list);

	for (size_t i = 0; i < s->nlibs; i++) {
		const struct ncclib *l = &s->libs[i];
		char vb[64];
		struct strbuf where = STRBUF_INIT, by = STRBUF_INIT;
		join_strv(l->where, l->nwhere, &where);
		loaded_by(s, (int)i, &by);
		finding_evidence(f, NULL, 0, "%s: %s (found in %s%s%s)", l->path,
				 l->has_version ? nccl_version_str(&l->version, vb, sizeof(vb)) : "version unknown",
				 strbuf_str(&where), by.len ? "; loaded by " : "", strbuf_str(&by));
		strbuf_release(&where);
		strbuf_release(&by);
	}
	for (size_t i = 0; i < s->ntorch; i++) {
		const struct ncclib_torch *st = &s->torch[i];
		if (st->how != TORCH_NCCL_STATIC)
			continue;
		char label[512];
		torch_label(st, label, sizeof(label));
		finding_evidence(f, NULL, 0, "%s: %s linked into %s", label,
				 st->static_version ? st->static_version : "NCCL (version unknown)",
				 st->libtorch ? st->libtorch : st->path);
	}

	if (tl) {
		char vb[64], dir[4096], label[512];
		nccl_version_str(&tl->version, vb, sizeof(vb));
		torch_label(t, label, sizeof(label));
		dir_of(tl->path, dir, sizeof(dir));
		if (vllm_differs || (s->nvllm > 0 && s->vllm_so_path))
			finding_fix(f, "env", "vLLM then loads the same NCCL as PyTorch in the same process",
				    "VLLM_NCCL_SO_PATH=%s", tl->path);
		if (s->ld_default >= 0 && !(s->libs[s->ld_default].has_version &&
					    same_release(&s->libs[s->ld_default].version, &tl->version)))
			finding_fix(f, "shell",
				    "programs that link libnccl.so.2 themselves (nccl-tests, C++ applications) then load the copy PyTorch uses",
				    "export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", dir);
		if (tl->version.cuda_major > 0)
			finding_fix(f, "shell", "installs the NCCL that PyTorch uses into another Python environment",
				    "pip install nvidia-nccl-cu%d==%d.%d.%d", tl->version.cuda_major, tl->version.major,
				    tl->version.minor, tl->version.patch);
		finding_fix(f, "note", NULL, "%s uses NCCL %s from %s; make every program that joins the same job load that one",
			    label, vb, tl->path);
	} else {
		char vb[64];
		const struct nccl_version *newest = &seen[nseen - 1].v;
		snprintf(vb, sizeof(vb), "%d.%d.%d%s", newest->major, newest->minor, newest->patch, newest->suffix);
		finding_fix(f, "note", NULL,
			    "make every program that joins the same job load one version (the newest here is %s): "
			    "remove or upgrade the older copies, or point LD_LIBRARY_PATH (and VLLM_NCCL_SO_PATH) at one of them",
			    vb);
	}
}

static void report_not_found(struct result *r, const struct ncclib_scan *s)
{
	if (s->nlibs > 0)
		return;
	const struct ncclib_torch *st = NULL;
	for (size_t i = 0; i < s->ntorch; i++)
		if (s->torch[i].how == TORCH_NCCL_STATIC)
			st = &s->torch[i];
	struct finding *f;
	if (st) {
		char tl[512];
		torch_label(st, tl, sizeof(tl));
		f = finding_add(r, FID_NCCL_NOT_FOUND, SEV_INFO,
				       "no libnccl found on this host; %s has NCCL linked in (static)", tl);
		finding_evidence(f, NULL, 0, "%s: %s", st->libtorch ? st->libtorch : st->path,
				 st->static_version ? st->static_version : "no DT_NEEDED libnccl");
	} else {
		f = finding_add(r, FID_NCCL_NOT_FOUND, SEV_INFO, "no libnccl found on this host");
	}
	finding_evidence(f, NULL, 0, "searched LD_LIBRARY_PATH, ld.so.conf and system directories, CUDA, "
				     "/opt/nvidia, conda and Python site-packages (%u directories)",
			 s->dirs_scanned);
	finding_fix(f, "shell", "the NCCL wheel PyTorch uses (pick cu12 or cu13 to match your CUDA)",
		    "pip install nvidia-nccl-cu13");
	finding_fix(f, "note", NULL,
		    "only programs that load NCCL themselves need it (nccl-tests, vLLM's pynccl, C++ applications); "
		    "a framework that bundles NCCL works without it");
}

static void report_vllm_env(struct result *r, const struct ncclib_scan *s)
{
	if (!s->vllm_so_path || !s->vllm_so_error)
		return;
	struct finding *f = finding_add(r, FID_VLLM_NCCL_SO_PATH_INVALID, SEV_ERROR,
					       "VLLM_NCCL_SO_PATH='%s' is not a usable NCCL library: %s",
					       s->vllm_so_path, s->vllm_so_error);
	finding_evidence(f, NULL, 0, "VLLM_NCCL_SO_PATH=%s", s->vllm_so_path);
	const struct ncclib_torch *t = NULL;
	const struct ncclib *tl = torch_lib(s, &t);
	if (tl)
		finding_fix(f, "env", "the copy PyTorch loads", "VLLM_NCCL_SO_PATH=%s", tl->path);
	finding_fix(f, "shell", "vLLM then uses the NCCL that PyTorch loaded", "unset VLLM_NCCL_SO_PATH");
}

static const struct column LIB_COLS[] = {
	{ "path", "path", SHOW_BOTH },
	{ "version", "version", SHOW_BOTH },
	{ "found_in", "found in", SHOW_BOTH },
	{ "loaded_by", "loaded by", SHOW_BOTH },
	{ "names", "names", SHOW_JSON_ONLY },
	{ "soname", "SONAME", SHOW_JSON_ONLY },
	{ "size", "size", SHOW_JSON_ONLY },
};

static const struct column FW_COLS[] = {
	{ "framework", "framework", SHOW_BOTH },
	{ "path", "path", SHOW_BOTH },
	{ "nccl", "NCCL it loads", SHOW_BOTH },
	{ "via", "found through", SHOW_BOTH },
};

static void framework_rows(struct section *sec, const struct ncclib_scan *s)
{
	if (s->ntorch == 0 && s->nvllm == 0)
		return;
	struct table *t = section_table(sec, "frameworks", "Frameworks", FW_COLS, sizeof(FW_COLS) / sizeof(FW_COLS[0]));
	char buf[4200], vb[64];
	for (size_t i = 0; i < s->ntorch; i++) {
		const struct ncclib_torch *tc = &s->torch[i];
		size_t row = table_add_row(t);
		torch_label(tc, buf, sizeof(buf));
		table_set(t, row, "framework", val_str(buf));
		table_set(t, row, "path", val_str(tc->path));
		switch (tc->how) {
		case TORCH_NCCL_SHARED: {
			const struct ncclib *l = tc->lib >= 0 ? &s->libs[tc->lib] : NULL;
			snprintf(buf, sizeof(buf), "%s %s",
				 l && l->has_version ? nccl_version_str(&l->version, vb, sizeof(vb)) : "version unknown",
				 tc->nccl_path ? tc->nccl_path : l ? l->path : "path unknown");
			table_set(t, row, "nccl", val_str(buf));
			break;
		}
		case TORCH_NCCL_MISSING:
			snprintf(buf, sizeof(buf), "%s not found: import torch fails", tc->needed ? tc->needed : "libnccl");
			table_set(t, row, "nccl", val_str(buf));
			table_mark(t, row, "nccl", MARK_BAD);
			break;
		case TORCH_NCCL_STATIC: {
			struct nccl_version v;
			if (tc->static_version && nccl_version_parse(tc->static_version, &v) == 0)
				snprintf(buf, sizeof(buf), "bundled (static) %s", nccl_version_str(&v, vb, sizeof(vb)));
			else
				snprintf(buf, sizeof(buf), "bundled (static)");
			table_set(t, row, "nccl", val_str(buf));
			break;
		}
		case TORCH_NCCL_NO_CUDA:
			table_set(t, row, "nccl", val_str("none (no libtorch_cuda.so: a CPU-only build)"));
			break;
		case TORCH_NCCL_UNKNOWN:
			table_set(t, row, "nccl", val_unknown(tc->error ? tc->error : "no library in torch/lib needs libnccl"));
			break;
		}
		if (tc->via)
			table_set(t, row, "via", val_str(tc->via));
	}
	for (size_t i = 0; i < s->nvllm; i++) {
		const struct ncclib_vllm *v = &s->vllm[i];
		size_t row = table_add_row(t);
		vllm_label(v, buf, sizeof(buf));
		table_set(t, row, "framework", val_str(buf));
		table_set(t, row, "path", val_str(v->path));
		if (s->vllm_so_path) {
			if (s->vllm_so_error) {
				snprintf(buf, sizeof(buf), "VLLM_NCCL_SO_PATH unusable: %s", s->vllm_so_error);
				table_set(t, row, "nccl", val_str(buf));
				table_mark(t, row, "nccl", MARK_BAD);
			} else {
				const struct ncclib *l = &s->libs[s->vllm_lib];
				snprintf(buf, sizeof(buf), "%s %s",
					 l->has_version ? nccl_version_str(&l->version, vb, sizeof(vb)) : "version unknown",
					 l->path);
				table_set(t, row, "nccl", val_str(buf));
			}
			table_set(t, row, "via", val_str("VLLM_NCCL_SO_PATH"));
		} else if (v->torch >= 0) {
			const struct ncclib_torch *tc = &s->torch[v->torch];
			if (tc->how == TORCH_NCCL_SHARED && tc->lib >= 0) {
				const struct ncclib *l = &s->libs[tc->lib];
				snprintf(buf, sizeof(buf), "%s %s",
					 l->has_version ? nccl_version_str(&l->version, vb, sizeof(vb)) : "version unknown",
					 l->path);
				table_set(t, row, "nccl", val_str(buf));
			} else {
				table_set(t, row, "nccl", val_str("libnccl.so.2 as the dynamic loader finds it"));
			}
			table_set(t, row, "via", val_str("PyTorch's copy (dlopen libnccl.so.2 after import torch)"));
		} else {
			table_set(t, row, "nccl", val_unknown("no PyTorch beside it"));
		}
	}
}

void sys_report_libraries(struct result *r, const struct ncclib_scan *s)
{
	struct section *sec = result_section(r, "nccl_libraries", "NCCL libraries");
	if (s->record_err) {
		section_add(sec, "libraries", "libraries",
			    val_unknown("the recorded " NCCLIB_RECORD_PATH " is malformed"))->mark = MARK_WARN;
		return;
	}
	struct table *t = section_table(sec, "libraries", "libnccl", LIB_COLS, sizeof(LIB_COLS) / sizeof(LIB_COLS[0]));
	bool several = false;
	for (size_t i = 1; i < s->nlibs && !several; i++)
		for (size_t k = 0; k < i && !several; k++)
			several = s->libs[i].has_version && s->libs[k].has_version &&
				  !same_release(&s->libs[i].version, &s->libs[k].version);

	for (size_t i = 0; i < s->nlibs; i++) {
		const struct ncclib *l = &s->libs[i];
		size_t row = table_add_row(t);
		char vb[64];
		table_set(t, row, "path", val_str(l->path));
		if (l->has_version)
			table_set(t, row, "version", val_str(nccl_version_str(&l->version, vb, sizeof(vb))));
		else
			table_set(t, row, "version", val_unknown(l->error ? l->error : "no version string"));
		if (several)
			table_mark(t, row, "version", MARK_WARN);
		struct strbuf sb = STRBUF_INIT;
		join_strv(l->where, l->nwhere, &sb);
		table_set(t, row, "found_in", val_str(strbuf_str(&sb)));
		strbuf_reset(&sb);
		loaded_by(s, (int)i, &sb);
		table_set(t, row, "loaded_by", sb.len ? val_str(strbuf_str(&sb)) : val_str("-"));
		strbuf_reset(&sb);
		join_strv(l->names, l->nnames, &sb);
		table_set(t, row, "names", val_str(strbuf_str(&sb)));
		strbuf_release(&sb);
		table_set(t, row, "soname", l->soname ? val_str(l->soname) : val_none());
		table_set(t, row, "size", val_int((long long)l->size));
	}
	/* PyTorch with NCCL linked in: a copy too, inside libtorch_cuda.so */
	for (size_t i = 0; i < s->ntorch; i++) {
		const struct ncclib_torch *tc = &s->torch[i];
		if (tc->how != TORCH_NCCL_STATIC)
			continue;
		size_t row = table_add_row(t);
		char vb[64], label[512];
		struct nccl_version v;
		table_set(t, row, "path", val_str(tc->libtorch ? tc->libtorch : tc->path));
		if (tc->static_version && nccl_version_parse(tc->static_version, &v) == 0)
			table_set(t, row, "version", val_str(nccl_version_str(&v, vb, sizeof(vb))));
		else
			table_set(t, row, "version", val_unknown("no version string"));
		table_set(t, row, "found_in", val_str("python:torch (static)"));
		torch_label(tc, label, sizeof(label));
		table_set(t, row, "loaded_by", val_str(label));
	}
	if (s->nlibs == 0)
		section_note(sec, "no libnccl found");
	if (s->truncated)
		section_note(sec, "more libraries than the scan keeps (%d): the list is incomplete", NCCLIB_MAX_LIBS);
	if (s->from_record)
		section_note(sec, "from the recorded %s of the sysroot", &NCCLIB_RECORD_PATH[1]);
	if (s->ld_default >= 0)
		section_add(sec, "ld_default", "libnccl.so.2 for other programs",
			    val_strf("%s (%s)", s->libs[s->ld_default].path, s->ld_via ? s->ld_via : "ld.so"));
	else if (s->nlibs > 0)
		section_add(sec, "ld_default", "libnccl.so.2 for other programs",
			    val_str("not found by the dynamic loader"));
	if (s->vllm_so_path)
		section_add(sec, "vllm_nccl_so_path", "VLLM_NCCL_SO_PATH", val_str(s->vllm_so_path))->mark =
			s->vllm_so_error ? MARK_BAD : MARK_NONE;
	if (s->sudo)
		section_note(sec, "run through sudo: LD_LIBRARY_PATH, VIRTUAL_ENV and CONDA_PREFIX of the calling "
				  "shell are not seen; run without sudo (or with sudo -E) to see what your programs load");
	framework_rows(sec, s);

	report_vllm_env(r, s);
	report_multiple(r, s);
	report_not_found(r, s);
}
