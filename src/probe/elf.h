/* A small, defensive ELF reader for the library scan: ELF32 and ELF64, little
 * and big endian, read with pread() from a file descriptor (never the whole
 * file, never mmap). It gives the section headers by name, the dynamic
 * entries the loader uses to find libraries (DT_NEEDED, DT_SONAME,
 * DT_RUNPATH, DT_RPATH) and a bounded scan of a byte range for a pattern.
 *
 * Every offset and size read from the file is checked against the file size
 * before use: a truncated or garbage file gives -ENOEXEC ("not an ELF file")
 * or -EBADMSG ("malformed or truncated ELF file"), never a crash. Functions
 * return 0 (or a count) on success and a negative errno; they print nothing. */
#ifndef ND_PROBE_ELF_H
#define ND_PROBE_ELF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on what is read from one file. */
#define ELF_MAX_SECTIONS 65536
#define ELF_MAX_SEGMENTS 4096
#define ELF_MAX_DYN_ENTRIES 16384
#define ELF_MAX_STRTAB (4u << 20)   /* the section name table (read whole) */
#define ELF_MAX_STRING 4096         /* one DT_NEEDED / DT_RUNPATH string */

struct elf_section {
	const char *name;   /* points into the file's name table; "" if unnamed */
	uint32_t type;      /* SHT_* */
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
};

struct elf_segment {
	uint32_t type;      /* PT_* */
	uint32_t flags;     /* PF_R | PF_W | PF_X */
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t memsz;
};

struct elf_file {
	int fd;
	bool own_fd;
	uint64_t size;       /* file size */
	bool is64;
	bool big_endian;
	uint16_t type;       /* ET_DYN, ET_EXEC, ... */
	uint16_t machine;    /* EM_X86_64, EM_AARCH64, ... */
	struct elf_section *secs;
	size_t nsecs;
	struct elf_segment *segs;
	size_t nsegs;
	char *shstrtab;      /* section names (NUL-terminated copy) */
	size_t shstrtab_len;
};

/* The dynamic entries that matter for library lookup; every string is a heap
 * copy, NULL when the entry is absent. */
struct elf_dynamic {
	char **needed;
	size_t nneeded;
	char *soname;
	char *runpath;
	char *rpath;
};

/* Opens path (inside the sysroot) and reads its headers. The file must be a
 * regular file. Release with elf_close. */
int elf_open(struct elf_file *e, const char *path);
/* The same over an open descriptor, which stays the caller's. */
int elf_open_fd(struct elf_file *e, int fd);
void elf_close(struct elf_file *e);

/* The first section with this name, or NULL. */
const struct elf_section *elf_section_by_name(const struct elf_file *e, const char *name);

/* Reads the dynamic entries: from the PT_DYNAMIC segment (what the loader
 * uses), else from the .dynamic section. A file without dynamic entries
 * (static executable, object file) gives 0 and an empty d. */
int elf_read_dynamic(const struct elf_file *e, struct elf_dynamic *d);
void elf_dynamic_release(struct elf_dynamic *d);

/* Reads exactly len bytes at off; -EBADMSG when the range is outside the file. */
int elf_read_at(const struct elf_file *e, uint64_t off, void *buf, size_t len);

/* Looks for pat in [off, off + len) of the file (clipped to the file size),
 * reading it in chunks. Returns 1 and the file offset of the first match in
 * *at, 0 when there is none, or a negative errno. */
int elf_scan(const struct elf_file *e, uint64_t off, uint64_t len, const void *pat, size_t patlen,
	     uint64_t *at);

/* Text for the negative errno values above: "not an ELF file", ... */
const char *elf_strerror(int neg_errno);

#endif
