/* Test helper: writes small but valid ELF shared objects byte by byte
 * (ELF32/ELF64, little/big endian) with a .dynstr, a .rodata, a .dynamic
 * (DT_NEEDED, DT_SONAME, DT_RUNPATH, DT_RPATH, DT_STRTAB, DT_STRSZ), a
 * .shstrtab, one PT_LOAD covering the file (vaddr 0x10000 + offset) and a
 * PT_DYNAMIC. Used by test_elf.c and test_ncclib.c; header-only. */
#ifndef ND_TESTS_ELFGEN_H
#define ND_TESTS_ELFGEN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct elfgen {
	bool is32;
	bool be;
	const char *soname;
	const char *needed[8];
	const char *runpath;
	const char *rpath;
	const void *rodata;
	size_t rodata_len;
	bool no_sections;   /* e_shoff 0: only program headers */
	bool no_segments;   /* e_phoff 0: only section headers */
	bool no_dynamic;    /* neither PT_DYNAMIC nor .dynamic */
	uint32_t bad_needed_index; /* nonzero: DT_NEEDED pointing here */
	size_t strsz_cut;   /* DT_STRSZ this much short: the last string loses its NUL */
	size_t dynstr_pad;  /* NUL bytes at the start of .dynstr (a big string table) */
};

#define ELFGEN_BASE 0x10000u

struct eg_buf {
	unsigned char *p;
	size_t len, cap;
	bool be;
};

static void eg_need(struct eg_buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
	}
}

static void eg_bytes(struct eg_buf *b, const void *d, size_t n)
{
	eg_need(b, n);
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void eg_align(struct eg_buf *b, size_t a)
{
	while (b->len % a) {
		unsigned char z = 0;
		eg_bytes(b, &z, 1);
	}
}

static void eg_put(struct eg_buf *b, uint64_t v, int size)
{
	unsigned char t[8];
	for (int i = 0; i < size; i++)
		t[b->be ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
	eg_bytes(b, t, (size_t)size);
}

static void eg_set(struct eg_buf *b, size_t at, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		b->p[at + (size_t)(b->be ? size - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

/* Returns a malloc'ed image; *len its size. */
static unsigned char *elfgen_build(const struct elfgen *g, size_t *len)
{
	struct eg_buf b = { NULL, 0, 0, g->be };
	int w = g->is32 ? 4 : 8;
	size_t ehsize = g->is32 ? 52 : 64, phentsize = g->is32 ? 32 : 56, shentsize = g->is32 ? 40 : 64;
	eg_need(&b, ehsize);
	memset(b.p, 0, ehsize);
	b.len = ehsize;
	unsigned char ident[16] = { 0x7f, 'E', 'L', 'F', (unsigned char)(g->is32 ? 1 : 2),
				    (unsigned char)(g->be ? 2 : 1), 1, 0 };
	memcpy(b.p, ident, 16);

	/* program headers come right after the ELF header; filled in later */
	size_t phoff = b.len;
	int nph = g->no_segments ? 0 : (g->no_dynamic ? 1 : 2);
	eg_need(&b, phentsize * (size_t)nph);
	memset(b.p + b.len, 0, phentsize * (size_t)nph);
	b.len += phentsize * (size_t)nph;

	/* .dynstr */
	size_t dynstr_off = b.len;
	unsigned char z = 0;
	eg_bytes(&b, &z, 1);
	if (g->dynstr_pad) {
		eg_need(&b, g->dynstr_pad);
		memset(b.p + b.len, 0, g->dynstr_pad);
		b.len += g->dynstr_pad;
	}
	uint64_t idx_needed[8] = { 0 }, idx_soname = 0, idx_runpath = 0, idx_rpath = 0;
	for (int i = 0; i < 8 && g->needed[i]; i++) {
		idx_needed[i] = b.len - dynstr_off;
		eg_bytes(&b, g->needed[i], strlen(g->needed[i]) + 1);
	}
	if (g->soname) {
		idx_soname = b.len - dynstr_off;
		eg_bytes(&b, g->soname, strlen(g->soname) + 1);
	}
	if (g->runpath) {
		idx_runpath = b.len - dynstr_off;
		eg_bytes(&b, g->runpath, strlen(g->runpath) + 1);
	}
	if (g->rpath) {
		idx_rpath = b.len - dynstr_off;
		eg_bytes(&b, g->rpath, strlen(g->rpath) + 1);
	}
	size_t dynstr_len = b.len - dynstr_off;

	/* .rodata */
	eg_align(&b, 16);
	size_t rodata_off = b.len;
	if (g->rodata_len)
		eg_bytes(&b, g->rodata, g->rodata_len);
	size_t rodata_len = g->rodata_len;

	/* .dynamic */
	eg_align(&b, 8);
	size_t dyn_off = b.len;
	if (!g->no_dynamic) {
		for (int i = 0; i < 8 && g->needed[i]; i++) {
			eg_put(&b, 1 /* DT_NEEDED */, w);
			eg_put(&b, idx_needed[i], w);
		}
		if (g->bad_needed_index) {
			eg_put(&b, 1, w);
			eg_put(&b, g->bad_needed_index, w);
		}
		if (g->soname) {
			eg_put(&b, 14 /* DT_SONAME */, w);
			eg_put(&b, idx_soname, w);
		}
		if (g->runpath) {
			eg_put(&b, 29 /* DT_RUNPATH */, w);
			eg_put(&b, idx_runpath, w);
		}
		if (g->rpath) {
			eg_put(&b, 15 /* DT_RPATH */, w);
			eg_put(&b, idx_rpath, w);
		}
		eg_put(&b, 5 /* DT_STRTAB */, w);
		eg_put(&b, ELFGEN_BASE + dynstr_off, w);
		eg_put(&b, 10 /* DT_STRSZ */, w);
		eg_put(&b, dynstr_len - g->strsz_cut, w);
		eg_put(&b, 0 /* DT_NULL */, w);
		eg_put(&b, 0, w);
	}
	size_t dyn_len = b.len - dyn_off;

	/* .shstrtab */
	static const char names[] = "\0.dynstr\0.rodata\0.dynamic\0.shstrtab\0";
	size_t shstr_off = b.len;
	eg_bytes(&b, names, sizeof(names));
	enum { N_DYNSTR = 1, N_RODATA = 9, N_DYNAMIC = 17, N_SHSTRTAB = 26 };

	/* section headers */
	eg_align(&b, 8);
	size_t shoff = b.len;
	int nsh = 0;
	if (!g->no_sections) {
		struct {
			uint32_t name, type;
			uint64_t flags, off, size;
			uint32_t link;
			uint64_t entsize;
		} sh[5] = {
			{ 0, 0, 0, 0, 0, 0, 0 },
			{ N_DYNSTR, 3 /* SHT_STRTAB */, 2, dynstr_off, dynstr_len, 0, 0 },
			{ N_RODATA, 1 /* SHT_PROGBITS */, 2, rodata_off, rodata_len, 0, 0 },
			{ N_DYNAMIC, 6 /* SHT_DYNAMIC */, 3, dyn_off, dyn_len, 1, (uint64_t)(2 * w) },
			{ N_SHSTRTAB, 3, 0, shstr_off, sizeof(names), 0, 0 },
		};
		nsh = 5;
		for (int i = 0; i < nsh; i++) {
			uint64_t addr = sh[i].type && sh[i].flags ? ELFGEN_BASE + sh[i].off : 0;
			eg_put(&b, sh[i].name, 4);
			eg_put(&b, g->no_dynamic && i == 3 ? 1 : sh[i].type, 4);
			eg_put(&b, sh[i].flags, w);
			eg_put(&b, addr, w);
			eg_put(&b, sh[i].off, w);
			eg_put(&b, sh[i].size, w);
			eg_put(&b, sh[i].link, 4);
			eg_put(&b, 0, 4);
			eg_put(&b, 1, w);
			eg_put(&b, sh[i].entsize, w);
		}
	}
	size_t total = b.len;

	/* program headers */
	if (nph > 0) {
		size_t p = phoff;
		uint32_t types[2] = { 1 /* PT_LOAD */, 2 /* PT_DYNAMIC */ };
		uint64_t offs[2] = { 0, dyn_off }, sizes[2] = { total, dyn_len };
		for (int i = 0; i < nph; i++, p += phentsize) {
			if (g->is32) {
				eg_set(&b, p, types[i], 4);
				eg_set(&b, p + 4, offs[i], 4);
				eg_set(&b, p + 8, ELFGEN_BASE + offs[i], 4);
				eg_set(&b, p + 12, ELFGEN_BASE + offs[i], 4);
				eg_set(&b, p + 16, sizes[i], 4);
				eg_set(&b, p + 20, sizes[i], 4);
				eg_set(&b, p + 24, i == 0 ? 5 : 6, 4);
				eg_set(&b, p + 28, i == 0 ? 0x1000 : 4, 4);
			} else {
				eg_set(&b, p, types[i], 4);
				eg_set(&b, p + 4, i == 0 ? 5 : 6, 4);
				eg_set(&b, p + 8, offs[i], 8);
				eg_set(&b, p + 16, ELFGEN_BASE + offs[i], 8);
				eg_set(&b, p + 24, ELFGEN_BASE + offs[i], 8);
				eg_set(&b, p + 32, sizes[i], 8);
				eg_set(&b, p + 40, sizes[i], 8);
				eg_set(&b, p + 48, i == 0 ? 0x1000 : 8, 8);
			}
		}
	}

	/* ELF header */
	eg_set(&b, 16, 3 /* ET_DYN */, 2);
	eg_set(&b, 18, g->is32 ? 3 /* EM_386 */ : 62 /* EM_X86_64 */, 2);
	eg_set(&b, 20, 1, 4);
	if (g->is32) {
		eg_set(&b, 28, nph ? phoff : 0, 4);
		eg_set(&b, 32, nsh ? shoff : 0, 4);
		eg_set(&b, 40, ehsize, 2);
		eg_set(&b, 42, phentsize, 2);
		eg_set(&b, 44, (uint64_t)nph, 2);
		eg_set(&b, 46, shentsize, 2);
		eg_set(&b, 48, (uint64_t)nsh, 2);
		eg_set(&b, 50, nsh ? 4 : 0, 2);
	} else {
		eg_set(&b, 32, nph ? phoff : 0, 8);
		eg_set(&b, 40, nsh ? shoff : 0, 8);
		eg_set(&b, 52, ehsize, 2);
		eg_set(&b, 54, phentsize, 2);
		eg_set(&b, 56, (uint64_t)nph, 2);
		eg_set(&b, 58, shentsize, 2);
		eg_set(&b, 60, (uint64_t)nsh, 2);
		eg_set(&b, 62, nsh ? 4 : 0, 2);
	}
	*len = total;
	return b.p;
}

/* Writes bytes to path (a host path); 0 or -1. */
static int eg_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t n = len ? fwrite(data, 1, len, f) : 0;
	int r = fclose(f);
	return n == len && r == 0 ? 0 : -1;
}

static int elfgen_write(const char *path, const struct elfgen *g)
{
	size_t len;
	unsigned char *img = elfgen_build(g, &len);
	int r = eg_write_file(path, img, len);
	free(img);
	return r;
}

#endif
