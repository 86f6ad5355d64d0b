/* Unit tests of the framework-error catalog (kb/framework_errors.h): the
 * matcher (fixed parts in order, case, word boundaries, `also`), the index
 * against a plain scan of the table, the table against classified.tsv, and
 * the catalog against the hand-written signatures (kb/nccl_signatures.h):
 * where both know a line, their classes agree or the difference is listed
 * below with its reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/logs/rules/rules.h"
#include "kb/causes.h"
#include "kb/framework_errors.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct framework_error *row_of(const char *literal, const char *also)
{
	size_t n;
	const struct framework_error *r = kb_framework_errors(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(r[i].literal, literal) == 0 && strcmp(r[i].also, also) == 0)
			return &r[i];
	fail_msg("no row for '%s'", literal);
	return NULL;
}

static bool m(const struct framework_error *r, const char *s)
{
	return framework_error_matches(r, s, strlen(s));
}

static void matcher(void **state)
{
	(void)state;
	const struct framework_error *r = row_of("The client socket has failed to connect to any network address of ({}, {}).", "");
	assert_true(m(r, "[rank2]: torch.distributed.DistNetworkError: The client socket has failed to connect to any network "
			 "address of (node0, 29500). more"));
	assert_true(m(r, "THE CLIENT SOCKET HAS FAILED TO CONNECT TO ANY NETWORK ADDRESS OF (a, 1)."));
	assert_false(m(r, "The client socket has failed to connect to any network address"));
	assert_false(m(r, "of (a, 1). The client socket has failed to connect to any network address"));

	const struct framework_error *d = row_of("cudaErrorInvalidDevice = 101", "");
	assert_int_equal(d->code, 101);
	assert_true(m(d, "RuntimeError: CUDA error: cudaErrorInvalidDevice"));
	assert_true(m(d, "x=cudaErrorInvalidDevice: invalid device ordinal"));
	assert_false(m(d, "RuntimeError: cudaErrorInvalidDeviceFunction"));
	assert_false(m(d, "my_cudaErrorInvalidDevice"));
	/* a later occurrence at a boundary still counts */
	assert_true(m(d, "cudaErrorInvalidDeviceFunction then cudaErrorInvalidDevice"));

	const struct framework_error *x = row_of(
		"%s:%d: NCCL operation %s failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'.",
		"ncclCommInitRank");
	const char *xla = "XlaRuntimeError: INTERNAL: nccl_api.cc:506: NCCL operation ncclCommInitRank(&comm, nranks, id, "
			  "rank) failed: unhandled cuda error. Last NCCL warning(error) log entry (may be unrelated) ''.";
	assert_true(m(x, xla));
	assert_false(m(x, "nccl_api.cc:506: NCCL operation ncclAllReduce(a) failed: x. Last NCCL warning(error) log entry "
			  "(may be unrelated) ''."));
	assert_string_equal(x->cause, "version_mismatch");
}

static void index_picks_the_specific_row(void **state)
{
	(void)state;
	struct fe_index *ix = fe_index_new();
	const char *xla = "nccl_api.cc:506: NCCL operation ncclCommInitRank(&comm) failed: unhandled cuda error. Last NCCL "
			  "warning(error) log entry (may be unrelated) ''.";
	const struct framework_error *r = fe_index_find(ix, xla, strlen(xla));
	assert_non_null(r);
	assert_string_equal(r->also, "ncclCommInitRank");
	const char *other = "nccl_api.cc:506: NCCL operation ncclAllReduce(x) failed: remote process exited. Last NCCL "
			    "warning(error) log entry (may be unrelated) ''.";
	r = fe_index_find(ix, other, strlen(other));
	assert_non_null(r);
	assert_string_equal(r->cause, "context");
	assert_null(fe_index_find(ix, "nothing of the catalog here", 27));
	assert_null(fe_index_find(ix, "", 0));
	fe_index_free(ix);
}

/* A message cut short (an issue title, "...") still finds its row once
 * FE_CUT_MIN (40) bytes of the row's first fragment show; fewer, or text
 * that goes on past the fragment with other words, does not. */
static void index_reads_a_cut_message(void **state)
{
	(void)state;
	struct fe_index *ix = fe_index_new();
	const char *cut = "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one...";
	const struct framework_error *r = fe_index_find(ix, cut, strlen(cut));
	assert_non_null(r);
	assert_string_equal(r->cause, "collective_mismatch_app_bug");
	const char *title = "DDP: Expected to have finished reduction in the prior iteration before";
	assert_non_null(fe_index_find(ix, title, strlen(title))); /* an issue title: the message after "DDP: " */
	const char *quoted = "\"Expected to have finished reduction in the prior iteration before starting\"";
	r = fe_index_find(ix, quoted, strlen(quoted));
	assert_non_null(r);
	const char *short_cut = "RuntimeError: Expected to have finished reduction in";
	assert_null(fe_index_find(ix, short_cut, strlen(short_cut)));
	const char *other = "RuntimeError: Expected to have finished reduction in the prior iteration of my own loop";
	assert_null(fe_index_find(ix, other, strlen(other)));
	const char *mid = "my log: Expected to have finished reduction in the prior iteration before starting a new one";
	assert_non_null(fe_index_find(ix, mid, strlen(mid))); /* after ": " */
	const char *glued = "xExpected to have finished reduction in the prior iteration before starting a new one";
	assert_null(fe_index_find(ix, glued, strlen(glued)));
	/* wrapped after a placeholder: the line ends inside a later fragment
	 * (vLLM's pynccl assertion, its f-string pasted over two lines) */
	const char *wrapped = "this nccl communicator is created to work on cuda:1,";
	r = fe_index_find(ix, wrapped, strlen(wrapped));
	assert_non_null(r);
	assert_string_equal(r->cause, "duplicate_gpu_or_device_mapping");
	const char *wrapped2 = "this nccl communicator is created to work on cuda:1, but the input";
	assert_non_null(fe_index_find(ix, wrapped2, strlen(wrapped2)));
	/* text after the placeholder that is not the next fragment's start */
	const char *wrong = "this nccl communicator is created to work on cuda:1 and more";
	assert_null(fe_index_find(ix, wrong, strlen(wrong)));
	fe_index_free(ix);
}

/* The sample line of a row: its pattern with each value "X". */
static void sample(const struct framework_error *r, char *buf, size_t sz)
{
	size_t k = 0;
	for (const char *p = r->pattern; *p && k + 2 < sz; p++)
		buf[k++] = *p == FE_WILD ? 'X' : *p;
	buf[k] = '\0';
}

/* Every row's own sample line: the index finds it (or a row that also
 * matches it and is tried first), as a plain scan does. */
static void index_agrees_with_a_scan(void **state)
{
	(void)state;
	size_t n;
	const struct framework_error *t = kb_framework_errors(&n);
	struct fe_index *ix = fe_index_new();
	for (size_t i = 0; i < n; i++) {
		char s[1024];
		sample(&t[i], s, sizeof(s));
		if (t[i].also[0])
			snprintf(s + strlen(s), sizeof(s) - strlen(s), " %s", t[i].also);
		assert_true(framework_error_matches(&t[i], s, strlen(s)));
		const struct framework_error *f = fe_index_find(ix, s, strlen(s));
		assert_non_null(f);
		assert_true(framework_error_matches(f, s, strlen(s)));
	}
	fe_index_free(ix);
}

static void table_is_well_formed(void **state)
{
	(void)state;
	size_t n;
	const struct framework_error *t = kb_framework_errors(&n);
	assert_true(n >= 50);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(strlen(t[i].key), 12);
		assert_true(t[i].fixed > 0);
		assert_true(t[i].repo[0] && t[i].path[0] && t[i].commit[0] && t[i].reason[0]);
		if (framework_error_is_cause(&t[i]))
			assert_true(kb_cause_valid(t[i].cause));
		char o[512];
		assert_non_null(strstr(framework_error_origin(&t[i], o, sizeof(o)), t[i].path));
	}
}

/* Where a hand-written signature also weighs a catalog line and names
 * another class: reviewed, the signature keeps the weight (rules/framework.c
 * counts the line once, by the signature). */
static const struct {
	const char *sig, *literal, *why;
} agreed_differences[] = {
	{ "S53q", "cudaErrorPeerAccessUnsupported = 217",
	  "CUDA's meaning is a PCIe path without P2P (the catalog's class); in NCCL and vLLM runs error 217 comes "
	  "from cuMem host memory or the custom all-reduce's IPC buffers (S53q's custom_allreduce_or_cumem, whose "
	  "fix works either way): the signature keeps the weight" },
	{ "S53q", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217", "the driver API's name of the same error" },
	{ NULL, NULL, NULL },
};

static void crosscheck_signatures(void **state)
{
	(void)state;
	size_t n;
	const struct framework_error *t = kb_framework_errors(&n);
	int covered = 0, bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (!framework_error_is_cause(&t[i]))
			continue;
		char s[1024];
		sample(&t[i], s, sizeof(s));
		const struct nccl_signature *sig = framework_line_signature(s);
		if (!sig)
			continue;
		covered++;
		const char *sc = nccl_signature_cause(sig);
		if (strcmp(sc, t[i].cause) == 0)
			continue;
		bool listed = false;
		for (size_t k = 0; agreed_differences[k].sig && !listed; k++)
			listed = strcmp(agreed_differences[k].sig, sig->id) == 0 &&
				 strcmp(agreed_differences[k].literal, t[i].literal) == 0;
		if (!listed) {
			printf("class differs: %s (%s) vs catalog '%s' (%s)\n", sig->id, sc, t[i].literal, t[i].cause);
			bad++;
		}
	}
	printf("catalog rows a hand-written signature also weighs: %d\n", covered);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matcher),
		cmocka_unit_test(index_picks_the_specific_row),
		cmocka_unit_test(index_reads_a_cut_message),
		cmocka_unit_test(index_agrees_with_a_scan),
		cmocka_unit_test(table_is_well_formed),
		cmocka_unit_test(crosscheck_signatures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
