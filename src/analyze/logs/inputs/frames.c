/* Stack frames among the text lines of `logs` (inputs/frames.h). */
#include "analyze/logs/inputs/frames.h"
#include "analyze/logs/text.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static bool starts_at(const char *s, size_t n, size_t at, const char *lit)
{
	size_t k = strlen(lit);
	return at + k <= n && memcmp(s + at, lit, k) == 0;
}

static const char *find(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit));
}

bool nl_frame_shape(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t indent = i;
	if (i >= n)
		return false;
	/* gdb: "#3  0x00007f.. in ncclFoo (...) at file.cc:12", "#0  ncclFoo (...)" */
	if (s[i] == '#' && i + 1 < n && is_digit(s[i + 1])) {
		size_t j = i + 1;
		while (j < n && is_digit(s[j]))
			j++;
		return j < n && s[j] == ' ';
	}
	/* numbered frames: "15      0x7fbac5e867d9 lib.so(+0x2c7d9)", "3: 0x... " */
	if (is_digit(s[i])) {
		size_t j = i;
		while (j < n && is_digit(s[j]))
			j++;
		if (j < n && s[j] == ':')
			j++;
		size_t k = j;
		while (k < n && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k > j && starts_at(s, n, k, "0x"))
			return true;
	}
	/* PyTorch's C++ stack: "frame #5: ncclFoo + 0x12 (0x7f.. in libnccl.so.2)" */
	if (starts_at(s, n, i, "frame #"))
		return true;
	/* compute-sanitizer: "=========     Host Frame:ncclLaunchKernel [0x8e1c2] in libnccl.so.2" */
	if (find(s, n, "Host Frame:"))
		return true;
	/* Python: 'File "x.py", line 12, in f' (traceback), '... line 12 in f' (faulthandler) */
	if (starts_at(s, n, i, "File \"")) {
		const char *l = find(s + i, n - i, "\", line ");
		return l && (find(l, (size_t)(s + n - l), ", in ") || find(l, (size_t)(s + n - l), " in "));
	}
	/* a glibc back-trace: "/usr/lib/libnccl.so.2(ncclFoo+0x52)[0x7f..]" */
	const char *plus = find(s, n, "+0x");
	if (plus && find(plus, (size_t)(s + n - plus), ")[0x"))
		return true;
	/* py-spy: "    all_reduce (torch/distributed/distributed_c10d.py:2050)",
	 * "    ncclProxyService (libnccl.so.2)" */
	if (indent >= 2 && n > indent + 4 && s[n - 1] == ')' && (is_ident(s[i]) || s[i] == '<')) {
		size_t j = i;
		while (j < n && s[j] != ' ' && s[j] != '(')
			j++;
		if (starts_at(s, n, j, " (")) {
			const char *in = s + j + 2;
			size_t m = (size_t)(s + n - 1 - in);
			return find(in, m, ".py:") || find(in, m, ".so") || find(in, m, ".cc:") || find(in, m, ".cpp:") ||
			       find(in, m, ".cu:") || find(in, m, ".h:");
		}
	}
	return false;
}

/* The row of one identifier, or of the parts of a mangled C++ name
 * ("_ZN4c10d16ProcessGroupNCCL11getNCCLCommE...": length-prefixed names). */
static const struct nccl_frame *ident_row(const char *t, size_t k)
{
	const struct nccl_frame *r = kb_nccl_frame(t, k);
	if (r || k < 4 || t[0] != '_' || t[1] != 'Z')
		return r;
	const struct nccl_frame *best = NULL;
	for (size_t i = 2; i < k;) {
		if (!is_digit(t[i]) || (i > 0 && is_digit(t[i - 1]))) {
			i++;
			continue;
		}
		size_t len = 0, j = i;
		while (j < k && is_digit(t[j]) && len < 100000)
			len = len * 10 + (size_t)(t[j++] - '0');
		if (len == 0 || j + len > k) {
			i = j;
			continue;
		}
		const struct nccl_frame *p = kb_nccl_frame(t + j, len);
		if (p && (!best || p->kind > best->kind))
			best = p;
		i = j + len;
	}
	return best;
}

const struct nccl_frame *nl_frame_row(const char *s, size_t n)
{
	const struct nccl_frame *best = NULL;
	bool c10d_py = find(s, n, "distributed_c10d") != NULL;
	for (size_t i = 0; i < n;) {
		if (!is_ident(s[i]) || is_digit(s[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && is_ident(s[j]))
			j++;
		const struct nccl_frame *r = ident_row(s + i, j - i);
		/* torch.distributed's collectives count only in a frame of its file */
		if (r && r->kind == NFK_PY_COLLECTIVE && !c10d_py)
			r = NULL;
		if (r && (!best || r->kind > best->kind))
			best = r;
		i = j;
	}
	return best;
}

bool nl_frames_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	(void)lg;
	(void)file;
	(void)lineno;
	return n >= 6 && n <= 4096 && nl_frame_shape(s, n);
}

bool nl_frames_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	const struct nccl_frame *r = nl_frame_row(s, n);
	if (!r)
		return false;
	struct nl_frames *fr = lg->frames;
	if (!fr) {
		fr = xcalloc(1, sizeof(*fr));
		lg->frames = fr;
	}
	fr->lines++;
	uint32_t c = fr->count[r->kind]++;
	if (c < NL_FRAMES_PER_KIND) {
		struct nl_frame_hit *h = &fr->hits[r->kind][c];
		h->row = r;
		h->file = file;
		h->line = lineno;
		nl_copy_clean(h->text, sizeof(h->text), s, n);
	}
	return false;
}

void nl_frames_end_file(struct nccllog *lg, int file)
{
	(void)lg;
	(void)file;
}

void nl_frames_free(struct nccllog *lg)
{
	free(lg->frames);
	lg->frames = NULL;
}

const struct nl_frames *nl_frames_get(const struct nccllog *lg)
{
	const struct nl_frames *fr = lg->frames;
	return fr && fr->lines ? fr : NULL;
}
