/* bench's operations, types, inputs and result check (see bench_data.h).
 * Geometry follows nccl-tests' GetCollByteCount functions (the per-op .cu files of NVIDIA/
 * nccl-tests 2.19): gathers, scatters and alltoall round the per-rank count
 * down to a multiple of 16 bytes. */
#include "gpu/bench_data.h"
#include "nvlib/nccl_api.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static const struct bench_op_info ops[BOP_COUNT] = {
	[BOP_ALL_REDUCE] = { "all_reduce", "all_reduce_perf", true, false, "none" },
	[BOP_ALL_GATHER] = { "all_gather", "all_gather_perf", false, false, "none" },
	[BOP_REDUCE_SCATTER] = { "reduce_scatter", "reduce_scatter_perf", true, false, "none" },
	[BOP_BROADCAST] = { "broadcast", "broadcast_perf", false, true, "none" },
	[BOP_REDUCE] = { "reduce", "reduce_perf", true, true, "none" },
	[BOP_ALLTOALL] = { "alltoall", "alltoall_perf", false, false, "none" },
	[BOP_SENDRECV] = { "sendrecv", "sendrecv_perf", true, false, "none" },
	[BOP_GATHER] = { "gather", "gather_perf", false, true, "none" },
	[BOP_SCATTER] = { "scatter", "scatter_perf", false, true, "none" },
	[BOP_ALLTOALLV] = { "alltoallv", "alltoallv_perf", false, false, "none" },
	[BOP_HYPERCUBE] = { "hypercube", "hypercube_perf", false, false, "" },
};

const struct bench_op_info *bench_op_info(int op)
{
	return op >= 0 && op < BOP_COUNT ? &ops[op] : NULL;
}

const char *bench_native_call(int op)
{
	switch (op) {
	case BOP_ALLTOALL: return "ncclAlltoAll";
	case BOP_GATHER: return "ncclGather";
	case BOP_SCATTER: return "ncclScatter";
	default: return NULL;
	}
}

int bench_op_parse(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < BOP_COUNT; i++) {
		if (strcmp(name, ops[i].name) == 0 || strcmp(name, ops[i].program) == 0)
			return i;
		/* "allreduce", "all-reduce" */
		char a[32], b[32];
		size_t na = 0, nb = 0;
		for (const char *p = name; *p && na < sizeof(a) - 1; p++)
			if (*p != '_' && *p != '-')
				a[na++] = *p;
		for (const char *p = ops[i].name; *p && nb < sizeof(b) - 1; p++)
			if (*p != '_')
				b[nb++] = *p;
		a[na] = b[nb] = '\0';
		if (na && strcmp(a, b) == 0)
			return i;
	}
	return -1;
}

struct type_info {
	const char *name;
	size_t size;
	int nccl;
	bool floating;
	bool is_signed;
};

static const struct type_info types[BT_COUNT] = {
	[BT_INT8] = { "int8", 1, ncclInt8, false, true },
	[BT_UINT8] = { "uint8", 1, ncclUint8, false, false },
	[BT_INT32] = { "int32", 4, ncclInt32, false, true },
	[BT_UINT32] = { "uint32", 4, ncclUint32, false, false },
	[BT_INT64] = { "int64", 8, ncclInt64, false, true },
	[BT_UINT64] = { "uint64", 8, ncclUint64, false, false },
	[BT_HALF] = { "half", 2, ncclFloat16, true, true },
	[BT_FLOAT] = { "float", 4, ncclFloat32, true, true },
	[BT_DOUBLE] = { "double", 8, ncclFloat64, true, true },
	[BT_BFLOAT16] = { "bfloat16", 2, ncclBfloat16, true, true },
};

const char *bench_type_name(int t) { return t >= 0 && t < BT_COUNT ? types[t].name : NULL; }
size_t bench_type_size(int t) { return t >= 0 && t < BT_COUNT ? types[t].size : 0; }
int bench_type_nccl(int t) { return t >= 0 && t < BT_COUNT ? types[t].nccl : -1; }

int bench_type_parse(const char *s)
{
	static const struct { const char *alias; int t; } aliases[] = {
		{ "char", BT_INT8 }, { "int", BT_INT32 }, { "uint", BT_UINT32 }, { "float16", BT_HALF },
		{ "float32", BT_FLOAT }, { "float64", BT_DOUBLE }, { "bf16", BT_BFLOAT16 }, { "fp16", BT_HALF },
	};
	if (!s)
		return -1;
	for (int i = 0; i < BT_COUNT; i++)
		if (strcmp(s, types[i].name) == 0)
			return i;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(s, aliases[i].alias) == 0)
			return aliases[i].t;
	return -1;
}

static const char *redops[BR_COUNT] = { "sum", "prod", "max", "min", "avg" };
static const int redop_nccl[BR_COUNT] = { ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg };

const char *bench_redop_name(int r) { return r >= 0 && r < BR_COUNT ? redops[r] : NULL; }
int bench_redop_nccl(int r) { return r >= 0 && r < BR_COUNT ? redop_nccl[r] : -1; }

int bench_redop_parse(const char *s)
{
	for (int i = 0; s && i < BR_COUNT; i++)
		if (strcmp(s, redops[i]) == 0)
			return i;
	return -1;
}

/* elements rank i sends to ranks 0..upto-1 (to every rank: upto = n) */
static size_t a2av_sent(int i, int upto, int n, size_t total, size_t es)
{
	size_t c = 0;
	for (int k = 0; k < upto; k++)
		c += bench_alltoallv_bytes(i, k, n, total) / es;
	return c;
}

void bench_geometry(int op, size_t count, size_t es, int nranks, struct bench_geom *g)
{
	size_t n = nranks > 0 ? (size_t)nranks : 1;
	size_t mask = es && es <= 16 ? ~(16 / es - 1) : ~(size_t)0;
	size_t base = (count / n) & mask;
	memset(g, 0, sizeof(*g));
	switch (op) {
	case BOP_ALL_GATHER:
	case BOP_HYPERCUBE:
	case BOP_GATHER:
		g->send_count = base;
		g->recv_count = base * n;
		g->send_inplace_off = base;
		g->param_count = base;
		break;
	case BOP_REDUCE_SCATTER:
	case BOP_SCATTER:
		g->send_count = base * n;
		g->recv_count = base;
		g->recv_inplace_off = base;
		g->param_count = base;
		break;
	case BOP_ALLTOALL:
		g->param_count = base;
		g->send_count = g->recv_count = base * n;
		break;
	case BOP_ALLTOALLV: /* the most a rank sends and receives; a matrix's counts are its own (count 0) */
		g->param_count = bench_alltoallv_matrix_dim() ? 0 : base;
		bench_alltoallv_max((int)n, base * n * es, es, &g->send_count, &g->recv_count);
		break;
	default: /* all_reduce, broadcast, reduce, sendrecv */
		g->send_count = g->recv_count = g->param_count = count;
		break;
	}
}

bool bench_checks_inplace(int op)
{
	return op != BOP_ALLTOALLV; /* as nccl-tests: in place it overlaps, and is not checked */
}

/* ---- values ---------------------------------------------------------- */

#define PERIOD_MAX BENCH_PERIOD_MAX

static bool is_reduction(int op)
{
	return op == BOP_ALL_REDUCE || op == BOP_REDUCE || op == BOP_REDUCE_SCATTER;
}

/* The value rank s contributes at send index idx: small integers. For
 * reductions one "designated" rank per element ((idx + s) % n == 0) gives a
 * value that makes the result depend on idx and rep for every operator. */
static double input(const struct bench_data *d, size_t idx, int s)
{
	size_t n = (size_t)d->nranks, rep = (size_t)d->rep, v = (idx * 7 + rep) % 4;
	if (is_reduction(d->op)) {
		bool des = (idx + (size_t)s) % n == 0;
		switch (d->redop) {
		case BR_PROD: return des ? 2 + (double)((idx + rep) % 2) : 1;
		case BR_MAX: return des ? 4 + (double)v : (double)((idx * 7 + (size_t)s * 3 + rep) % 4);
		case BR_MIN: return des ? (double)v : 4 + (double)((idx * 7 + (size_t)s * 3 + rep) % 4);
		case BR_AVG: /* n x (1..4) on one rank: the average is exact (int8 while it fits) */
			return des ? (n * 4 <= 127 ? (double)n : 1) * (1 + (double)v) : 0;
		default: return des ? 1 + (double)v : (double)(((size_t)s + rep) % 2);
		}
	}
	return (double)((idx * 13 + (size_t)s * 29 + rep * 7) % 97);
}

/* inputs repeat with this period in idx (at most 4 * 64) */
static size_t period(const struct bench_data *d)
{
	return is_reduction(d->op) ? 4 * (size_t)d->nranks : 97;
}

static double reduced(const struct bench_data *d, size_t idx)
{
	double acc = input(d, idx, 0);
	for (int s = 1; s < d->nranks; s++) {
		double v = input(d, idx, s);
		switch (d->redop) {
		case BR_PROD: acc *= v; break;
		case BR_MAX: acc = v > acc ? v : acc; break;
		case BR_MIN: acc = v < acc ? v : acc; break;
		default: acc += v; break;
		}
	}
	if (d->redop == BR_AVG) {
		acc /= d->nranks;
		if (!types[d->type].floating)
			acc = floor(acc);
	}
	return acc;
}

static uint16_t to_half(double v)
{
	float f = (float)v;
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, man = x & 0x7fffff;
	int fexp = (int)((x >> 23) & 0xff), exp = fexp - 127 + 15;
	if (fexp == 0)
		return (uint16_t)sign;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (exp <= 0) {
		if (exp < -10)
			return (uint16_t)sign;
		man |= 0x800000;
		int shift = 14 - exp;
		uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
		if (rem > halfway || (rem == halfway && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13), rem = man & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)h;
}

static double from_half(uint16_t h)
{
	int exp = (h >> 10) & 0x1f;
	double m = h & 0x3ff, v;
	if (exp == 0)
		v = ldexp(m, -24);
	else if (exp == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m + 1024, exp - 25);
	return h & 0x8000 ? -v : v;
}

static uint16_t to_bf16(double v)
{
	float f = (float)v;
	uint32_t x;
	memcpy(&x, &f, 4);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

static double from_bf16(uint16_t b)
{
	uint32_t x = (uint32_t)b << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

/* the bytes of v in type t (integers wrap as the GPU's arithmetic does) */
static void encode(int t, double v, unsigned char *out)
{
	switch (t) {
	case BT_HALF: { uint16_t h = to_half(v); memcpy(out, &h, 2); break; }
	case BT_BFLOAT16: { uint16_t b = to_bf16(v); memcpy(out, &b, 2); break; }
	case BT_FLOAT: { float f = (float)v; memcpy(out, &f, 4); break; }
	case BT_DOUBLE: memcpy(out, &v, 8); break;
	default: {
		uint64_t u = (uint64_t)(int64_t)v; /* two's complement, little endian */
		for (size_t i = 0; i < types[t].size; i++)
			out[i] = (unsigned char)(u >> (8 * i));
	}
	}
}

static double decode_float(int t, const unsigned char *p)
{
	uint16_t h;
	float f;
	double d;
	switch (t) {
	case BT_HALF: memcpy(&h, p, 2); return from_half(h);
	case BT_BFLOAT16: memcpy(&h, p, 2); return from_bf16(h);
	case BT_FLOAT: memcpy(&f, p, 4); return f;
	default: memcpy(&d, p, 8); return d;
	}
}

size_t bench_input_table(const struct bench_data *d, unsigned char *table)
{
	size_t es = types[d->type].size, p = period(d);
	for (size_t k = 0; k < p; k++)
		encode(d->type, input(d, k, d->rank), table + k * es);
	return p;
}

void bench_fill(const struct bench_data *d, const struct bench_geom *g, void *host)
{
	size_t es = types[d->type].size;
	unsigned char table[PERIOD_MAX * 8];
	size_t p = bench_input_table(d, table);
	unsigned char *out = host;
	for (size_t i = 0; i < g->send_count; i++)
		memcpy(out + i * es, table + (i % p) * es, es);
}

size_t bench_expect_table(const struct bench_data *d, const struct bench_block *b, unsigned char *table)
{
	size_t es = types[d->type].size, p = period(d);
	for (size_t k = 0; k < p; k++)
		encode(d->type, b->src < 0 ? reduced(d, b->idx_base + k) : input(d, b->idx_base + k, b->src),
		       table + k * es);
	return p;
}

double bench_check_tolerance(const struct bench_data *d, const struct bench_block *b)
{
	if (!(d->redop == BR_AVG && types[d->type].floating && b->src < 0 && is_reduction(d->op)))
		return 0;
	return d->type == BT_HALF ? 2e-3 : d->type == BT_BFLOAT16 ? 1.6e-2 : d->type == BT_FLOAT ? 2.4e-7 : 4.5e-16;
}

/* Compares block b of host with its expected values. */
static long long check_block(const struct bench_data *d, const unsigned char *host, const struct bench_block *b)
{
	size_t es = types[d->type].size;
	unsigned char table[PERIOD_MAX * 8];
	size_t p = bench_expect_table(d, b, table);
	double tol = bench_check_tolerance(d, b);
	long long wrong = 0;
	const unsigned char *q = host + b->start * es;
	for (size_t j = 0; j < b->len; j++, q += es) {
		const unsigned char *want = table + (j % p) * es;
		if (memcmp(q, want, es) == 0)
			continue;
		if (tol > 0) {
			double got = decode_float(d->type, q), w = decode_float(d->type, want);
			if (fabs(got - w) <= tol * (fabs(w) > 1 ? fabs(w) : 1))
				continue;
		}
		wrong++;
	}
	return wrong;
}

int bench_check_blocks(const struct bench_data *d, const struct bench_geom *g, struct bench_block *out, int max)
{
	int n = d->nranks, k = 0;
	size_t pc = g->param_count;
	struct bench_block one = { 0, g->recv_count, 0, -1 };
	switch (d->op) {
	case BOP_ALL_REDUCE:
		break;
	case BOP_REDUCE:
		if (d->rank != d->root)
			return 0;
		break;
	case BOP_REDUCE_SCATTER:
		one.idx_base = (size_t)d->rank * pc;
		break;
	case BOP_BROADCAST:
		one.src = d->root;
		break;
	case BOP_SENDRECV:
		one.src = (d->rank - 1 + n) % n;
		break;
	case BOP_SCATTER:
		one.idx_base = (size_t)d->rank * pc;
		one.src = d->root;
		break;
	case BOP_GATHER: /* on the root, every rank's data as all_gather */
	case BOP_ALL_GATHER:
	case BOP_HYPERCUBE:
	case BOP_ALLTOALL:
		if (d->op == BOP_GATHER && d->rank != d->root)
			return 0;
		for (int s = 0; s < n && k < max; s++) {
			struct bench_block b = { (size_t)s * pc, pc, d->op == BOP_ALLTOALL ? (size_t)d->rank * pc : 0, s };
			out[k++] = b;
		}
		return k;
	case BOP_ALLTOALLV: { /* from each source in rank order, its stretch for this rank */
		size_t es = types[d->type].size, total = pc * (size_t)n * es, at = 0;
		for (int s = 0; s < n && k < max; s++) {
			size_t len = bench_alltoallv_bytes(s, d->rank, n, total) / es;
			struct bench_block b = { at, len, a2av_sent(s, d->rank, n, total, es), s };
			if (len)
				out[k++] = b;
			at += len;
		}
		return k;
	}
	default:
		return 0;
	}
	if (max > 0)
		out[k++] = one;
	return k;
}

long long bench_check(const struct bench_data *d, const struct bench_geom *g, const void *host)
{
	struct bench_block b[BENCH_MAX_BLOCKS];
	int nb = bench_check_blocks(d, g, b, BENCH_MAX_BLOCKS);
	long long wrong = 0;
	for (int i = 0; i < nb; i++)
		wrong += check_block(d, host, &b[i]);
	return wrong;
}
