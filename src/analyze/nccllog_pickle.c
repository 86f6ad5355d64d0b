/* NCCL log reader: a reader of the Python pickle subset that PyTorch's
 * flight recorder writes (protocol 2 to 5: dicts, lists, tuples, str,
 * bytes, int, float, bool, None, the memo, and torch.jit._pickle's
 * build_*list wrappers), into a JSON value; anything else (another
 * global, a class instance) is refused with its name. Bounded: the stack,
 * the memo and the count of values are capped, every read is checked
 * against the end of the buffer, and no opcode runs code. */
#include "analyze/nccllog_fr.h"
#include "analyze/nccllog_int.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PK_MAX_STACK 4096
#define PK_MAX_MEMO (1u << 20)
#define PK_MAX_VALUES (16u << 20)
/* what to do with a dump this reader does not take */
#define PK_CONVERT "; convert it to JSON where torch is installed: python3 -c 'import json,pickle,sys; " \
	"json.dump(pickle.load(sys.stdin.buffer),sys.stdout,default=str)' < DUMP > DUMP.json"

struct pk {
	const unsigned char *p, *end;
	json_t *stack[PK_MAX_STACK];
	int sp;
	int marks[PK_MAX_STACK];
	int nmarks;
	json_t **memo;
	size_t nmemo, amemo;
	size_t nvalues;
	char *why;
	size_t whysz;
	/* a GLOBAL of torch.jit._pickle's list builders: REDUCE returns its argument */
	json_t *builder;
};

static int fail(struct pk *k, const char *fmt, const char *arg) __attribute__((format(printf, 2, 0)));
static int fail(struct pk *k, const char *fmt, const char *arg)
{
	/* fmt is always "%s" or "<words> %s" of this file */
	const char *pct = strstr(fmt, "%s");
	snprintf(k->why, k->whysz, "%.*s%s%s", pct ? (int)(pct - fmt) : (int)strlen(fmt), fmt, pct ? arg : "",
		 pct ? pct + 2 : "");
	return -EBADMSG;
}

static int need(struct pk *k, size_t n)
{
	return (size_t)(k->end - k->p) >= n ? 0 : fail(k, "%s", "a truncated Python pickle");
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int push(struct pk *k, json_t *v)
{
	if (!v)
		return fail(k, "a damaged or unsupported Python pickle: %s", "out of memory");
	if (k->sp >= PK_MAX_STACK || ++k->nvalues > PK_MAX_VALUES) {
		json_decref(v);
		return fail(k, "a damaged or unsupported Python pickle: %s", "too deep or too large");
	}
	k->stack[k->sp++] = v;
	return 0;
}

static json_t *pop(struct pk *k)
{
	int floor = k->nmarks ? k->marks[k->nmarks - 1] : 0;
	return k->sp > floor ? k->stack[--k->sp] : NULL;
}

static json_t *top(struct pk *k)
{
	return k->sp > 0 ? k->stack[k->sp - 1] : NULL;
}

/* A dict key as JSON wants it: a string (numbers in decimal). */
static int dict_set(struct pk *k, json_t *d, json_t *key, json_t *val)
{
	char buf[32];
	const char *ks = NULL;
	if (json_is_string(key))
		ks = json_string_value(key);
	else if (json_is_integer(key))
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(key)), ks = buf;
	int rc = 0;
	if (!json_is_object(d) || !ks || val == d)
		rc = fail(k, "a damaged or unsupported Python pickle: %s", "a dict entry of an unsupported shape");
	else if (json_object_set(d, ks, val) < 0)
		rc = fail(k, "a damaged or unsupported Python pickle: %s", "a dict key that is not UTF-8");
	json_decref(key);
	json_decref(val);
	return rc;
}

static int list_add(struct pk *k, json_t *l, json_t *val)
{
	int rc = (!json_is_array(l) || val == l) ? fail(k, "a damaged or unsupported Python pickle: %s", "an append to something not a list") : json_array_append(l, val);
	json_decref(val);
	return rc < 0 ? -EBADMSG : rc;
}

/* Pops down to the last mark; the items into a new array. */
static json_t *pop_mark(struct pk *k)
{
	if (!k->nmarks)
		return NULL;
	int m = k->marks[--k->nmarks];
	json_t *a = json_array();
	for (int i = m; i < k->sp; i++)
		json_array_append_new(a, k->stack[i]);
	k->sp = m;
	return a;
}

static int op_string(struct pk *k, size_t n, bool bytes)
{
	if (need(k, n) < 0)
		return -EBADMSG;
	json_t *s = bytes ? NULL : json_stringn((const char *)k->p, n);
	if (!s) {
		/* bytes, or text that is not UTF-8: kept cleaned */
		char *t = xmalloc(n + 1);
		nl_copy_clean(t, n + 1, (const char *)k->p, n);
		s = json_string(t);
		free(t);
	}
	k->p += n;
	return push(k, s);
}

static int op_global(struct pk *k, const char *mod, size_t ml, const char *name, size_t nl)
{
	char full[160];
	snprintf(full, sizeof(full), "%.*s.%.*s", (int)(ml < 60 ? ml : 60), mod, (int)(nl < 60 ? nl : 60), name);
	if (strncmp(full, "torch.", 6) != 0)
		return fail(k, "a Python pickle that holds an object of type %s: no flight-recorder dump (not loaded: unpickling can run code)", full);
	if (strncmp(full, "torch.jit._pickle.build_", 24) != 0 && strcmp(full, "torch.jit._pickle.restore_type_tag") != 0)
		return fail(k, "a Python pickle with an object of type %s this reader does not take" PK_CONVERT, full);
	return push(k, json_string(full));
}

static int op_reduce(struct pk *k)
{
	json_t *args = pop(k), *fn = pop(k);
	int rc = 0;
	if (!json_is_array(args) || !json_is_string(fn) || json_array_size(args) < 1)
		rc = fail(k, "a damaged or unsupported Python pickle: %s", "a call of an unsupported shape");
	else
		rc = push(k, json_incref(json_array_get(args, 0))); /* build_intlist([..]) is [..] */
	json_decref(args);
	json_decref(fn);
	return rc;
}

static int op_memo(struct pk *k, uint64_t idx, bool put)
{
	if (put) {
		json_t *v = top(k);
		if (!v || idx >= PK_MAX_MEMO)
			return fail(k, "a damaged or unsupported Python pickle: %s", "a memo entry out of range");
		if (idx >= k->nmemo) {
			XGROW(k->memo, k->amemo, (size_t)idx + 1);
			memset(k->memo + k->nmemo, 0, (idx + 1 - k->nmemo) * sizeof(json_t *));
			k->nmemo = idx + 1;
		}
		json_decref(k->memo[idx]);
		k->memo[idx] = json_incref(v);
		return 0;
	}
	if (idx >= k->nmemo || !k->memo[idx])
		return fail(k, "a damaged or unsupported Python pickle: %s", "a memo entry that was never stored");
	return push(k, json_incref(k->memo[idx]));
}

/* One opcode; 1 at STOP. */
static int step(struct pk *k)
{
	if (need(k, 1) < 0)
		return -EBADMSG;
	unsigned char op = *k->p++;
	json_t *a, *b, *c;
	int n;
	switch (op) {
	case 0x80: return need(k, 1) < 0 ? -EBADMSG : (k->p++, 0);              /* PROTO */
	case 0x95: return need(k, 8) < 0 ? -EBADMSG : (k->p += 8, 0);           /* FRAME */
	case '}': return push(k, json_object());
	case ']': case ')': return push(k, json_array());
	case '(':
		if (k->nmarks >= PK_MAX_STACK)
			return fail(k, "a damaged or unsupported Python pickle: %s", "too many marks");
		k->marks[k->nmarks++] = k->sp;
		return 0;
	case 'N': return push(k, json_null());
	case 0x88: return push(k, json_true());
	case 0x89: return push(k, json_false());
	case 'K': return need(k, 1) < 0 ? -EBADMSG : push(k, json_integer(*k->p++));
	case 'M': if (need(k, 2) < 0) return -EBADMSG; k->p += 2; return push(k, json_integer((json_int_t)le(k->p - 2, 2)));
	case 'J': if (need(k, 4) < 0) return -EBADMSG; k->p += 4; return push(k, json_integer((int32_t)(uint32_t)le(k->p - 4, 4)));
	case 0x8a: /* LONG1: little-endian two's complement, up to 8 bytes kept */
		if (need(k, 1) < 0 || (n = *k->p++, need(k, (size_t)n) < 0))
			return -EBADMSG;
		if (n > 8)
			return fail(k, "a damaged or unsupported Python pickle: %s", "an integer over 64 bits");
		{
			uint64_t v = n ? le(k->p, n) : 0;
			if (n && n < 8 && (k->p[n - 1] & 0x80))
				v |= ~0ULL << (8 * n);
			k->p += n;
			return push(k, json_integer((json_int_t)v));
		}
	case 'G': {
		if (need(k, 8) < 0)
			return -EBADMSG;
		uint64_t v = 0;
		for (int i = 0; i < 8; i++)
			v = v << 8 | k->p[i];
		double d;
		memcpy(&d, &v, 8);
		k->p += 8;
		return push(k, json_real(d));
	}
	case 0x8c: case 'C': case 'U': /* SHORT_BINUNICODE, SHORT_BINBYTES, SHORT_BINSTRING */
		return need(k, 1) < 0 ? -EBADMSG : (n = *k->p++, op_string(k, (size_t)n, op != 0x8c));
	case 'X': case 'B': case 'T':
		if (need(k, 4) < 0)
			return -EBADMSG;
		k->p += 4;
		return op_string(k, (size_t)le(k->p - 4, 4), op != 'X');
	case 0x8d: case 0x8e:
		if (need(k, 8) < 0)
			return -EBADMSG;
		k->p += 8;
		return op_string(k, (size_t)le(k->p - 8, 8), op != 0x8d);
	case 0x94: return op_memo(k, k->nmemo, true);
	case 'q': return need(k, 1) < 0 ? -EBADMSG : op_memo(k, *k->p++, true);
	case 'r': if (need(k, 4) < 0) return -EBADMSG; k->p += 4; return op_memo(k, le(k->p - 4, 4), true);
	case 'h': return need(k, 1) < 0 ? -EBADMSG : op_memo(k, *k->p++, false);
	case 'j': if (need(k, 4) < 0) return -EBADMSG; k->p += 4; return op_memo(k, le(k->p - 4, 4), false);
	case 's':
		c = pop(k), b = pop(k);
		if (b && c && top(k))
			return dict_set(k, top(k), b, c);
		json_decref(b);
		json_decref(c);
		return fail(k, "a damaged or unsupported Python pickle: %s", "SETITEM without its operands");
	case 'u':
		if (!(a = pop_mark(k)) || !top(k) || json_array_size(a) % 2) {
			json_decref(a);
			return fail(k, "a damaged or unsupported Python pickle: %s", "SETITEMS without its operands");
		}
		for (size_t i = 0; i < json_array_size(a); i += 2)
			if (dict_set(k, top(k), json_incref(json_array_get(a, i)), json_incref(json_array_get(a, i + 1))) < 0) {
				json_decref(a);
				return -EBADMSG;
			}
		json_decref(a);
		return 0;
	case 'a':
		c = pop(k);
		if (c && top(k))
			return list_add(k, top(k), c);
		json_decref(c);
		return fail(k, "a damaged or unsupported Python pickle: %s", "APPEND without its operands");
	case 'e':
		if (!(a = pop_mark(k)) || !top(k)) {
			json_decref(a);
			return fail(k, "a damaged or unsupported Python pickle: %s", "APPENDS without its operands");
		}
		n = json_array_extend(top(k), a) < 0 || json_array_get(a, 0) == top(k);
		json_decref(a);
		return n ? fail(k, "a damaged or unsupported Python pickle: %s", "APPENDS to something not a list") : 0;
	case 't': return (a = pop_mark(k)) ? push(k, a) : fail(k, "a damaged or unsupported Python pickle: %s", "TUPLE without a mark");
	case 0x85: case 0x86: case 0x87: {
		int m = op - 0x84;
		int floor = k->nmarks ? k->marks[k->nmarks - 1] : 0;
		if (k->sp - floor < m)
			return fail(k, "a damaged or unsupported Python pickle: %s", "a tuple without its items");
		a = json_array();
		for (int i = k->sp - m; i < k->sp; i++)
			json_array_append_new(a, k->stack[i]);
		k->sp -= m;
		k->nvalues -= (size_t)m;
		return push(k, a);
	}
	case 'c': {
		const unsigned char *nl1 = memchr(k->p, '\n', (size_t)(k->end - k->p));
		const unsigned char *nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(k->end - nl1 - 1)) : NULL;
		if (!nl2)
			return fail(k, "%s", "a truncated GLOBAL");
		const char *mod = (const char *)k->p, *name = (const char *)nl1 + 1;
		k->p = nl2 + 1;
		return op_global(k, mod, (size_t)((const char *)nl1 - mod), name, (size_t)((const char *)nl2 - name));
	}
	case 0x93:
		c = pop(k), b = pop(k);
		n = json_is_string(b) && json_is_string(c)
			    ? op_global(k, json_string_value(b), json_string_length(b), json_string_value(c), json_string_length(c))
			    : fail(k, "a damaged or unsupported Python pickle: %s", "STACK_GLOBAL without names");
		json_decref(b);
		json_decref(c);
		return n;
	case 'R': return op_reduce(k);
	case 'b': /* BUILD: restore_type_tag's state, dropped */
		json_decref(pop(k));
		return 0;
	case '.': return 1;
	default: {
		char o[8];
		snprintf(o, sizeof(o), "0x%02x", op);
		return fail(k, "a Python pickle with the opcode %s this reader does not take" PK_CONVERT, o);
	}
	}
}

int nl_pickle_to_json(const unsigned char *buf, size_t n, json_t **out, char *why, size_t whysz)
{
	*out = NULL;
	if (n < 3 || buf[0] != 0x80 || buf[1] < 2 || buf[1] > 5)
		return -EPROTONOSUPPORT;
	struct pk *k = xcalloc(1, sizeof(*k));
	k->p = buf;
	k->end = buf + n;
	k->why = why;
	k->whysz = whysz;
	int rc;
	while ((rc = step(k)) == 0)
		;
	if (rc == 1) {
		if (k->sp == 1 && !k->nmarks) {
			*out = k->stack[0];
			k->sp = 0;
			rc = 0;
		} else {
			rc = fail(k, "a damaged or unsupported Python pickle: %s", "an unbalanced stack at STOP");
		}
	}
	for (int i = 0; i < k->sp; i++)
		json_decref(k->stack[i]);
	for (size_t i = 0; i < k->nmemo; i++)
		json_decref(k->memo[i]);
	free(k->memo);
	free(k);
	return rc;
}
