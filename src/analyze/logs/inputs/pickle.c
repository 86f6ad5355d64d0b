/* An input of the NCCL log reader: a reader of the Python pickle subset that PyTorch's
 * flight recorder writes (protocol 2 to 5: dicts, lists, tuples, str,
 * bytes, int, float, bool, None, the memo, and torch.jit._pickle's
 * build_*list wrappers), into a JSON value; anything else (another
 * global, a class instance) is refused with its name. No opcode runs code.
 *
 * The input is hostile until read, so the reader is bounded, and says which
 * bound a pickle passed:
 *  - every read is checked against the end of the buffer;
 *  - nesting: at most PK_MAX_DEPTH levels of containers (a real dump has 5),
 *    so that jansson's recursive dump and release stay shallow; each
 *    container carries its depth (struct pk_node), the stack and the memo
 *    refer to it;
 *  - size: what the values take in memory (jansson's sizes, measured) is
 *    counted as they are built, and at most FR_MEM_PER_BYTE times the
 *    input (plus FR_MEM_BASE), FR_MEM_MAX_PICKLE in all;
 *  - the memo: an index at most the input's size, so the memo is no
 *    larger than the input allows;
 *  - no reference cycle: a container is sealed when it is stored in
 *    another (pickle writers store a container once it is complete), and a
 *    sealed container is never changed again: storing a container into
 *    itself, or into one it is inside of, would need that. jansson values
 *    in a cycle are never released; none is ever made. */
#include "analyze/logs/inputs/flight_recorder.h"
#include "analyze/logs/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PK_MAX_STACK 4096
#define PK_MAX_DEPTH 256
/* bytes a value takes (jansson 2.14 on glibc, amortised growth included) */
#define PK_C_OBJECT 224
#define PK_C_ARRAY 128
#define PK_C_SLOT 16   /* an array element */
#define PK_C_PAIR 96   /* a dict entry, plus its key's bytes */
#define PK_C_STRING 72 /* plus its bytes */
#define PK_C_NUMBER 32
#define PK_C_NODE ((size_t)sizeof(struct pk_node))
#define PK_C_MEMO ((size_t)sizeof(struct pk_slot))
/* what to do with a dump this reader does not take */
#define PK_CONVERT "; convert it to JSON where torch is installed: python3 -c 'import json,pickle,sys; " \
	"json.dump(pickle.load(sys.stdin.buffer),sys.stdout,default=str)' < DUMP > DUMP.json"
#define PK_BAD "a damaged or unsupported Python pickle: "

/* A container built by the reader: how deep it nests, and whether it was
 * stored in another (then it may not change). */
struct pk_node {
	uint32_t depth;
	bool sealed;
};

/* A value on the stack or in the memo; node 0: not a container. */
struct pk_slot {
	json_t *v;
	uint32_t node;
};

struct pk {
	const unsigned char *p, *end;
	size_t n;
	struct pk_slot stack[PK_MAX_STACK];
	int sp;
	int marks[PK_MAX_STACK];
	int nmarks;
	struct pk_slot *memo;
	size_t nmemo, amemo;
	struct pk_node *nodes; /* [0] unused */
	size_t nnodes, anodes;
	size_t cost, cost_max;
	char *why;
	size_t whysz;
};

static int fail(struct pk *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct pk *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->why, k->whysz, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static int need(struct pk *k, size_t n)
{
	return (size_t)(k->end - k->p) >= n ? 0 : fail(k, "a truncated Python pickle");
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Counts bytes about to be built: 0, or -EBADMSG past the size bound. */
static int charge(struct pk *k, size_t bytes)
{
	if (bytes > k->cost_max - k->cost) {
		k->cost = k->cost_max;
		return fail(k, "a Python pickle that would take over %zu MiB of memory (the limit: %d times its size, "
			       "at most %zu MiB)" PK_CONVERT, k->cost_max >> 20, FR_MEM_PER_BYTE, FR_MEM_MAX_PICKLE >> 20);
	}
	k->cost += bytes;
	return 0;
}

static void drop(struct pk_slot s)
{
	json_decref(s.v);
}

static int push_slot(struct pk *k, struct pk_slot s)
{
	if (!s.v)
		return fail(k, PK_BAD "out of memory");
	if (k->sp >= PK_MAX_STACK) {
		drop(s);
		return fail(k, "a Python pickle with over %d values on its stack", PK_MAX_STACK);
	}
	k->stack[k->sp++] = s;
	return 0;
}

/* A new scalar of cost bytes. */
static int push_scalar(struct pk *k, json_t *v, size_t cost)
{
	if (charge(k, cost) < 0) {
		json_decref(v);
		return -EBADMSG;
	}
	return push_slot(k, (struct pk_slot){ v, 0 });
}

/* A node for a container of the given depth. */
static int new_node(struct pk *k, uint32_t depth, bool sealed, uint32_t *out)
{
	if (charge(k, PK_C_NODE) < 0)
		return -EBADMSG;
	if (k->nnodes == 0)
		k->nnodes = 1;
	XGROW(k->nodes, k->anodes, k->nnodes + 1);
	k->nodes[k->nnodes] = (struct pk_node){ depth, sealed };
	*out = (uint32_t)k->nnodes++;
	return 0;
}

/* A new empty container (or one whose items were already checked, of
 * depth depth). */
static int push_container(struct pk *k, json_t *v, size_t cost, uint32_t depth)
{
	uint32_t node;
	if (charge(k, cost) < 0 || new_node(k, depth, false, &node) < 0) {
		json_decref(v);
		return -EBADMSG;
	}
	return push_slot(k, (struct pk_slot){ v, node });
}

static int floor_of(const struct pk *k)
{
	return k->nmarks ? k->marks[k->nmarks - 1] : 0;
}

static bool pop(struct pk *k, struct pk_slot *s)
{
	if (k->sp <= floor_of(k))
		return false;
	*s = k->stack[--k->sp];
	return true;
}

/* Whether child may be stored in the container parent: parent not sealed,
 * not the child itself, the nesting within bounds; then the child is
 * sealed and parent's depth updated. 0 or -EBADMSG. */
static int adopt(struct pk *k, struct pk_slot parent, struct pk_slot child)
{
	if (!parent.node)
		return fail(k, PK_BAD "a container of an unknown kind");
	struct pk_node *pn = &k->nodes[parent.node];
	if (pn->sealed || child.v == parent.v)
		return fail(k, "a Python pickle with a reference cycle (a container changed after it was stored in another)");
	uint32_t d = 1;
	if (child.node) {
		struct pk_node *cn = &k->nodes[child.node];
		cn->sealed = true;
		d = cn->depth + 1;
	}
	if (d > PK_MAX_DEPTH)
		return fail(k, "a Python pickle nested deeper than %d levels", PK_MAX_DEPTH);
	if (d > pn->depth)
		pn->depth = d;
	return 0;
}

/* d[key] = val; consumes key and val. */
static int dict_set(struct pk *k, struct pk_slot d, struct pk_slot key, struct pk_slot val)
{
	char buf[32];
	const char *ks = NULL;
	size_t kl = 0;
	if (json_is_string(key.v))
		ks = json_string_value(key.v), kl = json_string_length(key.v);
	else if (json_is_integer(key.v))
		kl = (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(key.v)), ks = buf;
	int rc = 0;
	if (!json_is_object(d.v) || !ks)
		rc = fail(k, PK_BAD "a dict entry of an unsupported shape");
	else if ((rc = adopt(k, d, val)) < 0 || (rc = charge(k, PK_C_PAIR + kl)) < 0)
		;
	else if (json_object_set(d.v, ks, val.v) < 0)
		rc = fail(k, PK_BAD "a dict key that is not UTF-8");
	drop(key);
	drop(val);
	return rc;
}

/* l.append(val); consumes val. */
static int list_add(struct pk *k, struct pk_slot l, struct pk_slot val)
{
	int rc = 0;
	if (!json_is_array(l.v))
		rc = fail(k, PK_BAD "an append to something not a list");
	else if ((rc = adopt(k, l, val)) < 0 || (rc = charge(k, PK_C_SLOT)) < 0)
		;
	else if (json_array_append(l.v, val.v) < 0)
		rc = fail(k, PK_BAD "out of memory");
	drop(val);
	return rc;
}

/* Drops the stack from index from on. */
static void drop_from(struct pk *k, int from)
{
	while (k->sp > from)
		drop(k->stack[--k->sp]);
}

/* SETITEMS / APPENDS: the items above the last mark into the value below
 * it. */
static int op_items(struct pk *k, bool dict)
{
	if (!k->nmarks)
		return fail(k, PK_BAD "%s without a mark", dict ? "SETITEMS" : "APPENDS");
	int m = k->marks[--k->nmarks];
	if (m <= floor_of(k) || (dict && (k->sp - m) % 2)) {
		drop_from(k, m);
		return fail(k, PK_BAD "%s without its operands", dict ? "SETITEMS" : "APPENDS");
	}
	struct pk_slot target = k->stack[m - 1];
	int top = k->sp, rc = 0;
	k->sp = m;
	int i = m;
	for (; i < top && rc == 0; i += dict ? 2 : 1)
		rc = dict ? dict_set(k, target, k->stack[i], k->stack[i + 1]) : list_add(k, target, k->stack[i]);
	for (; i < top; i++)
		drop(k->stack[i]);
	return rc;
}

/* TUPLE (from the last mark) or TUPLE1-3 (the top m values): a new array. */
static int op_tuple(struct pk *k, int from)
{
	json_t *a = json_array();
	struct pk_slot t = { a, 0 };
	int top = k->sp, rc = 0;
	k->sp = from;
	if (!a || charge(k, PK_C_ARRAY + PK_C_SLOT * (size_t)(top - from)) < 0 || new_node(k, 1, false, &t.node) < 0)
		rc = a ? -EBADMSG : fail(k, PK_BAD "out of memory");
	for (int i = from; i < top; i++) {
		if (rc == 0 && (rc = adopt(k, t, k->stack[i])) == 0) {
			if (json_array_append_new(a, k->stack[i].v) < 0) /* takes the reference even so */
				rc = fail(k, PK_BAD "out of memory");
			continue;
		}
		drop(k->stack[i]);
	}
	if (rc < 0) {
		json_decref(a);
		return rc;
	}
	return push_slot(k, t);
}

static int op_string(struct pk *k, size_t n, bool bytes)
{
	if (need(k, n) < 0 || charge(k, PK_C_STRING + n) < 0)
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
	return push_slot(k, (struct pk_slot){ s, 0 });
}

static int op_global(struct pk *k, const char *mod, size_t ml, const char *name, size_t nl)
{
	char full[160];
	snprintf(full, sizeof(full), "%.*s.%.*s", (int)(ml < 60 ? ml : 60), mod, (int)(nl < 60 ? nl : 60), name);
	nl_clean_in_place(full, sizeof(full));
	if (strncmp(full, "torch.", 6) != 0)
		return fail(k, "a Python pickle that holds an object of type %s: no flight-recorder dump (not loaded: unpickling can run code)", full);
	if (strncmp(full, "torch.jit._pickle.build_", 24) != 0 && strcmp(full, "torch.jit._pickle.restore_type_tag") != 0)
		return fail(k, "a Python pickle with an object of type %s this reader does not take" PK_CONVERT, full);
	return push_scalar(k, json_string(full), PK_C_STRING + strlen(full));
}

/* build_intlist([..]) is [..]: the call's first argument. */
static int op_reduce(struct pk *k)
{
	struct pk_slot args = { NULL, 0 }, fn = { NULL, 0 };
	int rc;
	if (!pop(k, &args) || !pop(k, &fn) || !json_is_array(args.v) || !json_is_string(fn.v) || json_array_size(args.v) < 1) {
		rc = fail(k, PK_BAD "a call of an unsupported shape");
	} else {
		/* the argument was stored in the arguments' tuple: sealed, and
		 * one level less deep than it */
		struct pk_slot r = { json_incref(json_array_get(args.v, 0)), 0 };
		rc = 0;
		if (json_is_array(r.v) || json_is_object(r.v)) {
			uint32_t d = args.node ? k->nodes[args.node].depth : PK_MAX_DEPTH;
			rc = new_node(k, d > 1 ? d - 1 : 1, true, &r.node);
		}
		rc = rc < 0 ? (json_decref(r.v), rc) : push_slot(k, r);
	}
	drop(args);
	drop(fn);
	return rc;
}

static int op_memo(struct pk *k, uint64_t idx, bool put)
{
	if (put) {
		if (k->sp <= 0)
			return fail(k, PK_BAD "a memo entry out of range");
		/* pickle writers number their memo entries from 0, one a value:
		 * an index beyond the input's size is no writer's */
		if (idx >= k->n)
			return fail(k, "a Python pickle with a memo index (%llu) past its own size", (unsigned long long)idx);
		if (idx >= k->nmemo) {
			if (charge(k, (size_t)(idx + 1 - k->nmemo) * PK_C_MEMO) < 0)
				return -EBADMSG;
			XGROW(k->memo, k->amemo, (size_t)idx + 1);
			k->nmemo = idx + 1;
		}
		struct pk_slot *m = &k->memo[idx], *top = &k->stack[k->sp - 1];
		json_decref(m->v);
		*m = (struct pk_slot){ json_incref(top->v), top->node };
		return 0;
	}
	if (idx >= k->nmemo || !k->memo[idx].v)
		return fail(k, "a Python pickle with a memo index (%llu) that was never stored", (unsigned long long)idx);
	struct pk_slot s = k->memo[idx];
	json_incref(s.v);
	return push_slot(k, s);
}

/* One opcode; 1 at STOP. */
static int step(struct pk *k)
{
	if (need(k, 1) < 0)
		return -EBADMSG;
	unsigned char op = *k->p++;
	struct pk_slot a = { NULL, 0 }, b = { NULL, 0 }, c = { NULL, 0 };
	int n;
	switch (op) {
	case 0x80: return need(k, 1) < 0 ? -EBADMSG : (k->p++, 0);              /* PROTO */
	case 0x95: return need(k, 8) < 0 ? -EBADMSG : (k->p += 8, 0);           /* FRAME */
	case '}': return push_container(k, json_object(), PK_C_OBJECT, 1);
	case ']': case ')': return push_container(k, json_array(), PK_C_ARRAY, 1);
	case '(':
		if (k->nmarks >= PK_MAX_STACK)
			return fail(k, PK_BAD "too many marks");
		k->marks[k->nmarks++] = k->sp;
		return 0;
	case 'N': return push_scalar(k, json_null(), 0);
	case 0x88: return push_scalar(k, json_true(), 0);
	case 0x89: return push_scalar(k, json_false(), 0);
	case 'K': return need(k, 1) < 0 ? -EBADMSG : push_scalar(k, json_integer(*k->p++), PK_C_NUMBER);
	case 'M': if (need(k, 2) < 0) return -EBADMSG; k->p += 2; return push_scalar(k, json_integer((json_int_t)le(k->p - 2, 2)), PK_C_NUMBER);
	case 'J': if (need(k, 4) < 0) return -EBADMSG; k->p += 4; return push_scalar(k, json_integer((int32_t)(uint32_t)le(k->p - 4, 4)), PK_C_NUMBER);
	case 0x8a: /* LONG1: little-endian two's complement, up to 8 bytes kept */
		if (need(k, 1) < 0 || (n = *k->p++, need(k, (size_t)n) < 0))
			return -EBADMSG;
		if (n > 8)
			return fail(k, PK_BAD "an integer over 64 bits");
		{
			uint64_t v = n ? le(k->p, n) : 0;
			if (n && n < 8 && (k->p[n - 1] & 0x80))
				v |= ~0ULL << (8 * n);
			k->p += n;
			return push_scalar(k, json_integer((json_int_t)v), PK_C_NUMBER);
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
		return push_scalar(k, json_real(d), PK_C_NUMBER);
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
		if (k->sp - floor_of(k) < 3)
			return fail(k, PK_BAD "SETITEM without its operands");
		pop(k, &c), pop(k, &b);
		return dict_set(k, k->stack[k->sp - 1], b, c);
	case 'u': return op_items(k, true);
	case 'a':
		if (k->sp - floor_of(k) < 2)
			return fail(k, PK_BAD "APPEND without its operands");
		pop(k, &c);
		return list_add(k, k->stack[k->sp - 1], c);
	case 'e': return op_items(k, false);
	case 't':
		if (!k->nmarks)
			return fail(k, PK_BAD "TUPLE without a mark");
		return op_tuple(k, k->marks[--k->nmarks]);
	case 0x85: case 0x86: case 0x87:
		if (k->sp - floor_of(k) < op - 0x84)
			return fail(k, PK_BAD "a tuple without its items");
		return op_tuple(k, k->sp - (op - 0x84));
	case 'c': {
		const unsigned char *nl1 = memchr(k->p, '\n', (size_t)(k->end - k->p));
		const unsigned char *nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(k->end - nl1 - 1)) : NULL;
		if (!nl2)
			return fail(k, "a truncated GLOBAL");
		const char *mod = (const char *)k->p, *name = (const char *)nl1 + 1;
		k->p = nl2 + 1;
		return op_global(k, mod, (size_t)((const char *)nl1 - mod), name, (size_t)((const char *)nl2 - name));
	}
	case 0x93:
		if (k->sp - floor_of(k) < 2)
			return fail(k, PK_BAD "STACK_GLOBAL without names");
		pop(k, &c), pop(k, &b);
		n = json_is_string(b.v) && json_is_string(c.v)
			    ? op_global(k, json_string_value(b.v), json_string_length(b.v), json_string_value(c.v), json_string_length(c.v))
			    : fail(k, PK_BAD "STACK_GLOBAL without names");
		drop(b);
		drop(c);
		return n;
	case 'R': return op_reduce(k);
	case 'b': /* BUILD: restore_type_tag's state, dropped */
		if (pop(k, &a))
			drop(a);
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
	k->n = n;
	k->why = why;
	k->whysz = whysz;
	k->cost_max = nl_fr_mem_limit(n, FR_MEM_MAX_PICKLE);
	int rc;
	while ((rc = step(k)) == 0)
		;
	if (rc == 1) {
		if (k->sp == 1 && !k->nmarks) {
			*out = k->stack[0].v;
			k->sp = 0;
			rc = 0;
		} else {
			rc = fail(k, PK_BAD "an unbalanced stack at STOP");
		}
	}
	drop_from(k, 0);
	for (size_t i = 0; i < k->nmemo; i++)
		json_decref(k->memo[i].v);
	free(k->memo);
	free(k->nodes);
	free(k);
	return rc;
}
