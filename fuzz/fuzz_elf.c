/* Fuzz harness: the ELF reader (probe/elf.c) and the NCCL version lookup on
 * a library file (probe/ncclib.c), on the input written as a library inside
 * the harness's private sysroot: headers, sections by name, the dynamic
 * entries (DT_NEEDED, DT_SONAME, DT_RUNPATH, DT_RPATH), the bounded scan. */
#include "fuzz.h"

#include "probe/elf.h"
#include "probe/ncclib.h"

#include <stdlib.h>
#include <string.h>

#define LIB "/usr/lib/libnccl.so.2"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fz_put(LIB, data, size) < 0)
		abort();
	struct elf_file e;
	if (elf_open(&e, LIB) == 0) {
		static const char *const secs[] = { ".dynamic", ".rodata", ".dynstr", ".note.gnu.build-id", "" };
		for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
			const struct elf_section *s = elf_section_by_name(&e, secs[i]);
			uint64_t at;
			if (s)
				(void)elf_scan(&e, s->offset, s->size, "NCCL version", 12, &at);
		}
		struct elf_dynamic d;
		if (elf_read_dynamic(&e, &d) == 0) {
			for (size_t i = 0; i < d.nneeded; i++)
				if (!d.needed[i])
					abort();
			elf_dynamic_release(&d);
		}
		uint8_t buf[16];
		(void)elf_read_at(&e, e.size > 8 ? e.size - 8 : 0, buf, 8);
		elf_close(&e);
	}
	char *vstr = NULL;
	struct nccl_version v;
	(void)ncclib_read_version(LIB, &vstr, &v);
	free(vstr);
	return 0;
}
