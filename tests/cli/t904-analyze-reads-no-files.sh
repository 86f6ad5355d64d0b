#!/bin/bash
# DESIGN.md: analyze/ "reads no files"; probe/ reads them, through the
# sysroot. A call that opens, reads, lists or stats a file in src/analyze/
# fails this test (issue 9: the reads of kernel_analyze.c, sys_pci.c,
# sys_env.c and sys_host.c moved to probe/).
. "$(dirname "$0")/lib.sh"
SRC="${ND_SRC:?ND_SRC must name the source tree}/src"
pat='\b(sr_(read_file|read_str|read_ll|list_dir|open|stat|exists|glob|readlink|realpath)|fopen|opendir|open|stat|lstat|access|readlink)[[:space:]]*\('
hits=$(grep -nE "$pat" "$SRC"/analyze/*.c | grep -vE '^\S+:[0-9]+:\s*(/\*|\*)' || true)
if [ -z "$hits" ]; then ok "no file read in src/analyze/"; else
  not_ok "src/analyze/ reads files itself:"; echo "$hits" | sed 's/^/    /'; fi
# the pattern itself finds a read
probe="$ND_TMP/probe.c"
printf 'static void f(void)\n{\n\tsr_read_str("/proc/x", b, 8);\n}\n' >"$probe"
if grep -qE "$pat" "$probe"; then ok "the scan finds an sr_read_str call"; else not_ok "the scan misses an sr_read_str call"; fi
finish
