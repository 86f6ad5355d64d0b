/* Defensive ELF32/ELF64 reader over pread(): see elf.h. Field offsets follow
 * the System V gABI (and glibc's <elf.h>, whose constants we use). */
#include "probe/elf.h"
#include "util/sysroot.h"
#include "util/xalloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_CHUNK (256u * 1024u)

/* ---- raw reads ---- */

int elf_read_at(const struct elf_file *e, uint64_t off, void *buf, size_t len)
{
	if (off > e->size || len > e->size - off)
		return -EBADMSG;
	char *p = buf;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(e->fd, p + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG; /* file shrank under us */
		done += (size_t)n;
	}
	return 0;
}

static uint16_t get16(const struct elf_file *e, const unsigned char *p)
{
	return e->big_endian ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t get32(const struct elf_file *e, const unsigned char *p)
{
	if (e->big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t get64(const struct elf_file *e, const unsigned char *p)
{
	uint64_t a = get32(e, p), b = get32(e, p + 4);
	return e->big_endian ? a << 32 | b : b << 32 | a;
}

/* A word: 4 bytes in ELF32, 8 in ELF64. */
static uint64_t getw(const struct elf_file *e, const unsigned char *p)
{
	return e->is64 ? get64(e, p) : get32(e, p);
}

static bool range_ok(const struct elf_file *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

/* ---- headers ---- */

static int read_sections(struct elf_file *e, uint64_t shoff, uint32_t shnum, uint16_t shentsize,
			 uint32_t shstrndx)
{
	size_t need = e->is64 ? 64 : 40;
	if (shoff == 0 || shnum == 0)
		return 0; /* no section headers (stripped to the bone): allowed */
	if (shentsize < need || shnum > ELF_MAX_SECTIONS)
		return -EBADMSG;
	uint64_t total = (uint64_t)shnum * shentsize;
	if (!range_ok(e, shoff, total))
		return -EBADMSG;
	unsigned char *raw = xmalloc((size_t)total);
	int r = elf_read_at(e, shoff, raw, (size_t)total);
	if (r < 0) {
		free(raw);
		return r;
	}
	/* section 0 carries the real count and name index when they overflow */
	const unsigned char *s0 = raw;
	if (shstrndx == SHN_XINDEX)
		shstrndx = get32(e, s0 + (e->is64 ? 40 : 24));
	e->secs = xcalloc(shnum, sizeof(*e->secs));
	uint32_t *names = xcalloc(shnum, sizeof(uint32_t));
	for (uint32_t i = 0; i < shnum; i++) {
		const unsigned char *p = raw + (size_t)i * shentsize;
		struct elf_section *s = &e->secs[i];
		names[i] = get32(e, p);
		s->type = get32(e, p + 4);
		if (e->is64) {
			s->flags = get64(e, p + 8);
			s->addr = get64(e, p + 16);
			s->offset = get64(e, p + 24);
			s->size = get64(e, p + 32);
			s->link = get32(e, p + 40);
		} else {
			s->flags = get32(e, p + 8);
			s->addr = get32(e, p + 12);
			s->offset = get32(e, p + 16);
			s->size = get32(e, p + 20);
			s->link = get32(e, p + 24);
		}
		s->name = "";
	}
	e->nsecs = shnum;
	free(raw);

	/* the section name table; a bad one leaves the sections unnamed */
	if (shstrndx != SHN_UNDEF && shstrndx < shnum) {
		const struct elf_section *st = &e->secs[shstrndx];
		if (st->type != SHT_NOBITS && st->size > 0 && st->size <= ELF_MAX_STRTAB &&
		    range_ok(e, st->offset, st->size)) {
			e->shstrtab = xmalloc((size_t)st->size + 1);
			if (elf_read_at(e, st->offset, e->shstrtab, (size_t)st->size) == 0) {
				e->shstrtab[st->size] = '\0';
				e->shstrtab_len = (size_t)st->size;
			} else {
				free(e->shstrtab);
				e->shstrtab = NULL;
			}
		}
	}
	if (e->shstrtab)
		for (uint32_t i = 0; i < shnum; i++)
			if (names[i] < e->shstrtab_len)
				e->secs[i].name = e->shstrtab + names[i];
	free(names);
	return 0;
}

static int read_segments(struct elf_file *e, uint64_t phoff, uint32_t phnum, uint16_t phentsize)
{
	size_t need = e->is64 ? 56 : 32;
	if (phoff == 0 || phnum == 0)
		return 0;
	if (phentsize < need || phnum > ELF_MAX_SEGMENTS)
		return -EBADMSG;
	uint64_t total = (uint64_t)phnum * phentsize;
	if (!range_ok(e, phoff, total))
		return -EBADMSG;
	unsigned char *raw = xmalloc((size_t)total);
	int r = elf_read_at(e, phoff, raw, (size_t)total);
	if (r < 0) {
		free(raw);
		return r;
	}
	e->segs = xcalloc(phnum, sizeof(*e->segs));
	for (uint32_t i = 0; i < phnum; i++) {
		const unsigned char *p = raw + (size_t)i * phentsize;
		struct elf_segment *s = &e->segs[i];
		s->type = get32(e, p);
		if (e->is64) {
			s->flags = get32(e, p + 4);
			s->offset = get64(e, p + 8);
			s->vaddr = get64(e, p + 16);
			s->filesz = get64(e, p + 32);
			s->memsz = get64(e, p + 40);
		} else {
			s->offset = get32(e, p + 4);
			s->vaddr = get32(e, p + 8);
			s->filesz = get32(e, p + 16);
			s->memsz = get32(e, p + 20);
			s->flags = get32(e, p + 24);
		}
	}
	e->nsegs = phnum;
	free(raw);
	return 0;
}

int elf_open_fd(struct elf_file *e, int fd)
{
	memset(e, 0, sizeof(*e));
	e->fd = fd;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	e->size = (uint64_t)st.st_size;

	unsigned char h[64];
	if (e->size < EI_NIDENT || elf_read_at(e, 0, h, EI_NIDENT) < 0)
		return -ENOEXEC;
	if (memcmp(h, ELFMAG, SELFMAG) != 0)
		return -ENOEXEC;
	if (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
		return -EBADMSG;
	if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
		return -EBADMSG;
	e->is64 = h[EI_CLASS] == ELFCLASS64;
	e->big_endian = h[EI_DATA] == ELFDATA2MSB;
	size_t ehsize = e->is64 ? 64 : 52;
	if (elf_read_at(e, 0, h, ehsize) < 0)
		return -EBADMSG;

	e->type = get16(e, h + 16);
	e->machine = get16(e, h + 18);
	uint64_t phoff, shoff;
	uint16_t phentsize, phnum, shentsize, shnum, shstrndx;
	if (e->is64) {
		phoff = get64(e, h + 32);
		shoff = get64(e, h + 40);
		phentsize = get16(e, h + 54);
		phnum = get16(e, h + 56);
		shentsize = get16(e, h + 58);
		shnum = get16(e, h + 60);
		shstrndx = get16(e, h + 62);
	} else {
		phoff = get32(e, h + 28);
		shoff = get32(e, h + 32);
		phentsize = get16(e, h + 42);
		phnum = get16(e, h + 44);
		shentsize = get16(e, h + 46);
		shnum = get16(e, h + 48);
		shstrndx = get16(e, h + 50);
	}

	uint32_t nsec = shnum;
	if (shoff != 0 && shnum == 0) {
		/* more than 0xff00 sections: the count is in section 0's sh_size */
		unsigned char s0[64];
		size_t s0len = e->is64 ? 64 : 40;
		if (shentsize < s0len || elf_read_at(e, shoff, s0, s0len) < 0)
			return -EBADMSG;
		uint64_t n = e->is64 ? get64(e, s0 + 32) : get32(e, s0 + 20);
		if (n > ELF_MAX_SECTIONS)
			return -EBADMSG;
		nsec = (uint32_t)n;
	}
	int r = read_segments(e, phoff, phnum, phentsize);
	if (r == 0)
		r = read_sections(e, shoff, nsec, shentsize, shstrndx);
	if (r < 0) {
		int keep = e->fd;
		elf_close(e);
		e->fd = keep;
		return r;
	}
	return 0;
}

int elf_open(struct elf_file *e, const char *path)
{
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	int fd = sr_open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	int r = elf_open_fd(e, fd);
	if (r < 0) {
		close(fd);
		e->fd = -1;
		return r;
	}
	e->own_fd = true;
	return 0;
}

void elf_close(struct elf_file *e)
{
	if (e->own_fd && e->fd >= 0)
		close(e->fd);
	free(e->secs);
	free(e->segs);
	free(e->shstrtab);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

const struct elf_section *elf_section_by_name(const struct elf_file *e, const char *name)
{
	for (size_t i = 0; i < e->nsecs; i++)
		if (strcmp(e->secs[i].name, name) == 0)
			return &e->secs[i];
	return NULL;
}

/* ---- dynamic entries ---- */

/* File offset of a virtual address, through the PT_LOAD segments. */
static int vaddr_to_off(const struct elf_file *e, uint64_t vaddr, uint64_t *off, uint64_t *avail)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct elf_segment *s = &e->segs[i];
		if (s->type != PT_LOAD || vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz)
			continue;
		uint64_t o = s->offset + (vaddr - s->vaddr);
		if (o < s->offset || o > e->size)
			return -EBADMSG;
		*off = o;
		*avail = s->filesz - (vaddr - s->vaddr);
		if (*avail > e->size - o)
			*avail = e->size - o;
		return 0;
	}
	return -EBADMSG;
}

/* A NUL-terminated string at strtab + idx, within strsz bytes of strtab. */
static int read_dynstr(const struct elf_file *e, uint64_t strtab, uint64_t strsz, uint64_t idx, char **out)
{
	if (idx >= strsz)
		return -EBADMSG;
	uint64_t len = strsz - idx;
	if (len > ELF_MAX_STRING)
		len = ELF_MAX_STRING;
	if (strtab + idx < strtab || !range_ok(e, strtab + idx, 0))
		return -EBADMSG;
	if (len > e->size - (strtab + idx))
		len = e->size - (strtab + idx);
	if (len == 0)
		return -EBADMSG;
	char *buf = xmalloc((size_t)len + 1);
	int r = elf_read_at(e, strtab + idx, buf, (size_t)len);
	if (r < 0) {
		free(buf);
		return r;
	}
	if (!memchr(buf, '\0', (size_t)len)) {
		free(buf);
		return -EBADMSG; /* unterminated or longer than ELF_MAX_STRING */
	}
	*out = buf;
	return 0;
}

int elf_read_dynamic(const struct elf_file *e, struct elf_dynamic *d)
{
	memset(d, 0, sizeof(*d));
	uint64_t dyn_off = 0, dyn_size = 0;
	bool have = false;
	for (size_t i = 0; i < e->nsegs; i++) {
		if (e->segs[i].type == PT_DYNAMIC) {
			dyn_off = e->segs[i].offset;
			dyn_size = e->segs[i].filesz;
			have = true;
			break;
		}
	}
	const struct elf_section *dynsec = NULL;
	for (size_t i = 0; i < e->nsecs; i++) {
		if (e->secs[i].type == SHT_DYNAMIC) {
			dynsec = &e->secs[i];
			break;
		}
	}
	if (!have && dynsec) {
		dyn_off = dynsec->offset;
		dyn_size = dynsec->size;
		have = true;
	}
	if (!have)
		return 0;
	size_t ent = e->is64 ? 16 : 8;
	if (!range_ok(e, dyn_off, dyn_size))
		return -EBADMSG;
	uint64_t n = dyn_size / ent;
	if (n > ELF_MAX_DYN_ENTRIES)
		n = ELF_MAX_DYN_ENTRIES;
	if (n == 0)
		return 0;
	unsigned char *raw = xmalloc((size_t)(n * ent));
	int r = elf_read_at(e, dyn_off, raw, (size_t)(n * ent));
	if (r < 0) {
		free(raw);
		return r;
	}

	/* first pass: where the strings are */
	uint64_t strtab_addr = 0, strsz = 0;
	bool have_strtab = false, have_strsz = false;
	size_t count = 0;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *p = raw + i * ent;
		int64_t tag = e->is64 ? (int64_t)get64(e, p) : (int32_t)get32(e, p);
		uint64_t val = getw(e, p + ent / 2);
		if (tag == DT_NULL)
			break;
		count++;
		if (tag == DT_STRTAB) {
			strtab_addr = val;
			have_strtab = true;
		} else if (tag == DT_STRSZ) {
			strsz = val;
			have_strsz = true;
		}
	}
	uint64_t strtab_off = 0, avail = 0;
	r = -EBADMSG;
	if (have_strtab && e->nsegs > 0)
		r = vaddr_to_off(e, strtab_addr, &strtab_off, &avail);
	if (r < 0 && dynsec && dynsec->link < e->nsecs) {
		/* no usable program headers: the section's linked string table */
		const struct elf_section *ss = &e->secs[dynsec->link];
		if (ss->type == SHT_STRTAB && range_ok(e, ss->offset, ss->size)) {
			strtab_off = ss->offset;
			avail = ss->size;
			r = 0;
			have_strsz = false;
		}
	}
	if (r < 0) {
		free(raw);
		/* entries that need strings but no string table: malformed */
		return count ? -EBADMSG : 0;
	}
	if (!have_strsz || strsz > avail)
		strsz = avail;
	/* no cap here: strings are read one at a time (ELF_MAX_STRING each), and
	 * PyTorch 2.11's libtorch_cuda.so has a 4.3 MB .dynstr with DT_NEEDED
	 * names beyond its first 4 MiB */

	size_t aneeded = 0;
	for (uint64_t i = 0; i < count; i++) {
		const unsigned char *p = raw + i * ent;
		int64_t tag = e->is64 ? (int64_t)get64(e, p) : (int32_t)get32(e, p);
		uint64_t val = getw(e, p + ent / 2);
		char **slot = NULL, *s = NULL;
		switch (tag) {
		case DT_NEEDED:
			XGROW(d->needed, aneeded, d->nneeded + 1);
			slot = &d->needed[d->nneeded];
			break;
		case DT_SONAME:
			slot = &d->soname;
			break;
		case DT_RUNPATH:
			slot = &d->runpath;
			break;
		case DT_RPATH:
			slot = &d->rpath;
			break;
		default:
			continue;
		}
		r = read_dynstr(e, strtab_off, strsz, val, &s);
		if (r < 0) {
			free(raw);
			elf_dynamic_release(d);
			return r;
		}
		if (*slot) /* a repeated DT_SONAME/DT_RUNPATH: the loader uses the last */
			free(*slot);
		*slot = s;
		if (tag == DT_NEEDED)
			d->nneeded++;
	}
	free(raw);
	return 0;
}

void elf_dynamic_release(struct elf_dynamic *d)
{
	for (size_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->soname);
	free(d->runpath);
	free(d->rpath);
	memset(d, 0, sizeof(*d));
}

/* ---- scanning ---- */

int elf_scan(const struct elf_file *e, uint64_t off, uint64_t len, const void *pat, size_t patlen,
	     uint64_t *at)
{
	if (patlen == 0 || patlen > SCAN_CHUNK / 2)
		return -EINVAL;
	if (off >= e->size)
		return 0;
	if (len > e->size - off)
		len = e->size - off;
	if (len < patlen)
		return 0;
	/* no larger than the range: most scans are of a small section */
	unsigned char *buf = xmalloc(len < SCAN_CHUNK ? (size_t)len : SCAN_CHUNK);
	uint64_t pos = off, end = off + len;
	int ret = 0;
	while (pos < end && end - pos >= patlen) {
		size_t want = end - pos > SCAN_CHUNK ? SCAN_CHUNK : (size_t)(end - pos);
		int r = elf_read_at(e, pos, buf, want);
		if (r < 0) {
			ret = r;
			break;
		}
		const unsigned char *hit = memmem(buf, want, pat, patlen);
		if (hit) {
			*at = pos + (uint64_t)(hit - buf);
			ret = 1;
			break;
		}
		if (want < SCAN_CHUNK)
			break;
		pos += want - (patlen - 1); /* overlap: a match across chunks */
	}
	free(buf);
	return ret;
}

const char *elf_strerror(int neg_errno)
{
	switch (-neg_errno) {
	case ENOEXEC:
		return "not an ELF file";
	case EBADMSG:
		return "malformed or truncated ELF file";
	default:
		return sr_strerror(neg_errno);
	}
}
