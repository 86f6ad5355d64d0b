/* Unit tests of the flight-recorder pickle reader (analyze/logs/inputs/pickle.c,
 * nl_pickle_to_json) and its bounds: nesting (256 levels, tracked through
 * the memo), memory (nl_fr_mem_limit), memo indexes, reference cycles, and
 * every error path releasing what it built (the sanitizer build's leak
 * check). Pickles are written here opcode by opcode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/logs/inputs/flight_recorder.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a pickle being written */
struct pb {
	unsigned char *b;
	size_t n, cap;
};

static void put(struct pb *p, const void *s, size_t n)
{
	if (p->n + n > p->cap) {
		p->cap = (p->n + n) * 2 + 64;
		p->b = realloc(p->b, p->cap);
		assert_non_null(p->b);
	}
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

/* opcodes as a string literal (NUL bytes included) */
#define OPS(p, lit) put((p), (lit), sizeof(lit) - 1)
#define REP(p, lit, times)                        \
	do {                                      \
		for (int i_ = 0; i_ < (times); i_++) \
			OPS(p, lit);              \
	} while (0)

static void op4(struct pb *p, int op, uint32_t arg)
{
	unsigned char b[5] = { (unsigned char)op, (unsigned char)arg, (unsigned char)(arg >> 8), (unsigned char)(arg >> 16),
			       (unsigned char)(arg >> 24) };
	put(p, b, 5);
}

/* BINUNICODE */
static void str(struct pb *p, const char *s)
{
	op4(p, 'X', (uint32_t)strlen(s));
	put(p, s, strlen(s));
}

static void begin(struct pb *p)
{
	memset(p, 0, sizeof(*p));
	OPS(p, "\x80\x02");
}

/* Reads p (STOP added); the rc, *out and why as nl_pickle_to_json sets them. */
static int read_pb(struct pb *p, json_t **out, char *why, size_t whysz)
{
	OPS(p, ".");
	why[0] = '\0';
	int rc = nl_pickle_to_json(p->b, p->n, out, why, whysz);
	free(p->b);
	p->b = NULL;
	return rc;
}

/* Expects p refused with a message holding want. */
static void refused(struct pb *p, const char *want)
{
	json_t *v = (json_t *)1;
	char why[400];
	int rc = read_pb(p, &v, why, sizeof(why));
	if (rc != -EBADMSG || !strstr(why, want))
		fail_msg("rc %d, why '%s', wanted -EBADMSG and '%s'", rc, why, want);
	assert_null(v);
}

/* Expects p read; returns its value (the caller releases it). */
static json_t *accepted(struct pb *p)
{
	json_t *v = NULL;
	char why[400];
	int rc = read_pb(p, &v, why, sizeof(why));
	if (rc != 0)
		fail_msg("rc %d, why '%s'", rc, why);
	assert_non_null(v);
	return v;
}

static int depth_of(json_t *v)
{
	int d = 0;
	while (json_is_array(v) && json_array_size(v) > 0)
		v = json_array_get(v, 0), d++;
	return json_is_array(v) ? d + 1 : d;
}

static void test_real_dumps(void **state)
{
	(void)state;
	static const char *const files[] = { "pickle/nccl_trace_rank_0", "pickle/nccl_trace_rank_1",
					     "real-h200-format/nccl_trace_rank_0", "real-h200-mismatch/nccl_trace_rank_0",
					     "real-h200-missing/nccl_trace_rank_0" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/logs/flight-recorder/%s", ND_FIXTURES, files[i]);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		unsigned char buf[8192];
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		json_t *v = NULL;
		char why[400];
		int rc = nl_pickle_to_json(buf, n, &v, why, sizeof(why));
		if (rc != 0)
			fail_msg("%s: rc %d, %s", files[i], rc, why);
		json_t *e = json_array_get(json_object_get(v, "entries"), 0);
		assert_true(json_is_integer(json_object_get(e, "collective_seq_id")));
		char *sizes = json_dumps(json_object_get(e, "input_sizes"), JSON_COMPACT);
		assert_string_equal(sizes, "[[3,4]]");
		free(sizes);
		json_decref(v);
		/* every cut of it: refused with a reason, nothing leaked */
		for (size_t k = 0; k < n; k++) {
			why[0] = '\0';
			v = (json_t *)1;
			rc = nl_pickle_to_json(buf, k, &v, why, sizeof(why));
			assert_true(rc == -EPROTONOSUPPORT || (rc == -EBADMSG && why[0]));
			assert_null(v);
		}
	}
}

static void test_depth(void **state)
{
	(void)state;
	struct pb p;
	/* [] then TUPLE1 255 times: 256 levels, read */
	begin(&p);
	OPS(&p, "]");
	REP(&p, "\x85", 255);
	json_t *v = accepted(&p);
	assert_int_equal(depth_of(v), 256);
	json_decref(v);
	/* one more: refused */
	begin(&p);
	OPS(&p, "]");
	REP(&p, "\x85", 256);
	refused(&p, "a Python pickle nested deeper than 256 levels");
	/* lists nested as pickle.dumps writes them: the stack's bound first */
	begin(&p);
	REP(&p, "]", 5000);
	REP(&p, "a", 4999);
	refused(&p, "over 4096 values on its stack");
	/* 300 lists nested, within the stack: the nesting bound */
	begin(&p);
	REP(&p, "]", 300);
	REP(&p, "a", 299);
	refused(&p, "nested deeper than 256 levels");
}

/* The depth of a container is shared by every reference to it: L0 is
 * memoized while empty, grows to 201 levels, and a reference to it taken
 * from the memo afterwards is 201 deep, not 1. */
static void test_depth_through_memo(void **state)
{
	(void)state;
	struct pb p;
	begin(&p);
	OPS(&p, "]q\x00");                /* L0, memo 0 */
	OPS(&p, "]");
	REP(&p, "\x85", 199);             /* a value 200 deep */
	OPS(&p, "a");                     /* into L0: 201 */
	OPS(&p, "h\x00");                 /* L0 again */
	REP(&p, "\x85", 56);              /* 257 */
	refused(&p, "nested deeper than 256 levels");
	/* 54 levels and a pair: 256, read: (L0, ((...(L0,)...),)) */
	begin(&p);
	OPS(&p, "]q\x00]");
	REP(&p, "\x85", 199);
	OPS(&p, "ah\x00");
	REP(&p, "\x85", 54);
	OPS(&p, "\x86");
	json_t *v = accepted(&p);
	json_decref(v);
}

static void test_cycles(void **state)
{
	(void)state;
	struct pb p;
	/* L0 = []; L1 = [L0]; L0.append(L1) */
	begin(&p);
	OPS(&p, "]q\x00]h\x00" "aa");
	refused(&p, "a Python pickle with a reference cycle");
	/* L0.append(L0) */
	begin(&p);
	OPS(&p, "]q\x00h\x00" "a");
	refused(&p, "reference cycle");
	/* d = {}; d["me"] = d */
	begin(&p);
	OPS(&p, "}q\x00");
	str(&p, "me");
	OPS(&p, "h\x00s");
	refused(&p, "reference cycle");
	/* d = {}; l = [(d,)]; d["x"] = l, through SETITEMS */
	begin(&p);
	OPS(&p, "}q\x00(");
	str(&p, "x");
	OPS(&p, "](h\x00\x85" "eu");
	refused(&p, "reference cycle");
	/* a list changed after it was stored in another (no cycle yet) */
	begin(&p);
	OPS(&p, "]q\x00]h\x00" "ah\x00K\x01" "a");
	refused(&p, "a container changed after it was stored in another");
	/* the same list stored twice, never changed after: a DAG, read */
	begin(&p);
	OPS(&p, "](K\x01K\x02" "eq\x00h\x00\x86");
	json_t *v = accepted(&p);
	assert_ptr_equal(json_array_get(v, 0), json_array_get(v, 1));
	json_decref(v);
}

/* A list shared at each of 64 levels: 2^64 leaves once expanded, 130 bytes
 * of input and as many values built. */
static void test_shared_levels(void **state)
{
	(void)state;
	struct pb p;
	begin(&p);
	OPS(&p, "K\x01q\x00");
	REP(&p, "h\x00\x86q\x00", 64);
	json_t *v = accepted(&p);
	assert_int_equal(depth_of(v), 64);
	json_decref(v);
}

static void test_memo(void **state)
{
	(void)state;
	struct pb p;
	begin(&p);
	op4(&p, 'j', 123456);
	refused(&p, "a Python pickle with a memo index (123456) that was never stored");
	begin(&p);
	OPS(&p, "h\x05");
	refused(&p, "memo index (5) that was never stored");
	begin(&p);
	OPS(&p, "K\x01");
	op4(&p, 'r', 0xffffffffu);
	refused(&p, "a Python pickle with a memo index (4294967295) past its own size");
	/* an index within the input's size: read */
	begin(&p);
	OPS(&p, "K\x01");
	op4(&p, 'r', 7);
	op4(&p, 'j', 7);
	OPS(&p, "\x86");
	json_t *v = accepted(&p);
	assert_int_equal(json_array_size(v), 2);
	json_decref(v);
	/* MEMOIZE numbers from 0 */
	begin(&p);
	OPS(&p, "K\x07\x94K\x08\x94\x86h\x00h\x01\x86\x86");
	v = accepted(&p);
	char *s = json_dumps(v, JSON_COMPACT);
	assert_string_equal(s, "[[7,8],[7,8]]");
	free(s);
	json_decref(v);
}

static void test_memory(void **state)
{
	(void)state;
	assert_int_equal(nl_fr_mem_limit(0, FR_MEM_MAX_PICKLE), 4u << 20);
	assert_int_equal(nl_fr_mem_limit(1u << 20, FR_MEM_MAX_PICKLE), 44u << 20);
	assert_int_equal(nl_fr_mem_limit(64u << 20, FR_MEM_MAX_PICKLE), 128u << 20);
	assert_int_equal(nl_fr_mem_limit((size_t)1 << 40, FR_MEM_MAX_JSON), 512u << 20);
	/* a million empty dicts (one byte each): 240 MB in jansson, refused at 44 MiB */
	struct pb p;
	begin(&p);
	OPS(&p, "]");
	for (int i = 0; i < 1000; i++) {
		OPS(&p, "(");
		REP(&p, "}", 1000);
		OPS(&p, "e");
	}
	refused(&p, "a Python pickle that would take over 42 MiB of memory (the limit: 40 times its size, at most 128 MiB)");
	/* a 64 KiB string as the key of 4000 dicts: each copies it */
	begin(&p);
	OPS(&p, "](");
	char *key = malloc(65537);
	memset(key, 'k', 65536);
	key[65536] = '\0';
	str(&p, key);
	free(key);
	OPS(&p, "q\x00");
	for (int i = 0; i < 4000; i++)
		OPS(&p, "}h\x00K\x01s");
	OPS(&p, "e");
	refused(&p, "would take over 7 MiB of memory");
}

/* Operands missing or of the wrong kind: refused, what was built released. */
static void test_shapes(void **state)
{
	(void)state;
	static const struct {
		const char *ops, *why;
	} cases[] = { /* no NUL byte in these */
		{ "K\x01s", "SETITEM without its operands" },
		{ "}(K\x01u", "SETITEMS without its operands" },
		{ "K\x01(K\x01K\x02u", "a dict entry of an unsupported shape" },
		{ "}(]K\x01u", "a dict entry of an unsupported shape" },
		{ "](K\x01K\x02", "an unbalanced stack at STOP" },
		{ "K\x01(]]e", "an append to something not a list" },
		{ "]e", "APPENDS without a mark" },
		{ "(K\x01" "a", "APPEND without its operands" },
		{ "]]]t", "TUPLE without a mark" },
		{ "(]\x86", "a tuple without its items" },
		{ "]K\x01R", "a call of an unsupported shape" },
		{ "cos\nsystem\n", "object of type os.system" },
		{ "ctorch\nTensor\n", "object of type torch.Tensor this reader does not take" },
		{ "\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09", "an integer over 64 bits" },
		{ "\x01", "opcode 0x01" },
		{ "]]\x93", "STACK_GLOBAL without names" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pb p;
		begin(&p);
		put(&p, cases[i].ops, strlen(cases[i].ops));
		refused(&p, cases[i].why);
	}
	/* torch.jit._pickle.build_intlist([3, 4]) is [3, 4] */
	struct pb p;
	begin(&p);
	OPS(&p, "ctorch.jit._pickle\nbuild_intlist\n(](K\x03K\x04" "et\x94R");
	json_t *v = accepted(&p);
	char *s = json_dumps(v, JSON_COMPACT);
	assert_string_equal(s, "[3,4]");
	free(s);
	json_decref(v);
	/* ... and not changed afterwards */
	begin(&p);
	OPS(&p, "ctorch.jit._pickle\nbuild_intlist\n(](K\x03" "etRK\x05" "a");
	refused(&p, "a container changed after it was stored in another");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_dumps),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_depth_through_memo),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_shared_levels),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
