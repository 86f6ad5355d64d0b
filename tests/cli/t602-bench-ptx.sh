#!/usr/bin/env bash
# The PTX text of bench's check kernels (src/gpu/bench_ptx.c) and of p2p's
# kernels (src/gpu/ptx.c) assembles with ptxas for Turing to Blackwell, where
# a CUDA toolkit is installed (CUDA_HOME, /usr/local/cuda, or ptxas on PATH);
# skipped elsewhere (CI has none: the fake libcuda only reads entry names).
. "$(dirname "$0")/lib.sh"
PTXAS=
for p in "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" "$(command -v ptxas 2>/dev/null)"; do
  [ -n "$p" ] && [ -x "$p" ] && { PTXAS=$p; break; }
done
if [ -z "$PTXAS" ] || ! command -v cc >/dev/null; then echo "no ptxas or cc: skipped"; echo "0 passed, 0 failed"; exit 0; fi
cat >"$ND_TMP/dump.c" <<'C'
#include <stdio.h>
#include <string.h>
const char *bench_ptx_source(void);
const char *ptx_source(void);
int main(int argc, char **argv)
{
	fputs(argc > 1 && strcmp(argv[1], "p2p") == 0 ? ptx_source() : bench_ptx_source(), stdout);
	return 0;
}
C
if ! cc -std=c11 -D_GNU_SOURCE -I"$ND_SRC/src" "$ND_TMP/dump.c" "$ND_SRC/src/gpu/bench_ptx.c" "$ND_SRC/src/gpu/bench_data.c" "$ND_SRC/src/model/bench_op.c" \
     "$ND_SRC/src/gpu/ptx.c" -lm -o "$ND_TMP/dump" 2>"$ND_TMP/cc.err"; then
  not_ok "cannot build the PTX dumper: $(head -3 "$ND_TMP/cc.err")"; finish; fi
"$ND_TMP/dump" bench >"$ND_TMP/bench.ptx"
"$ND_TMP/dump" p2p >"$ND_TMP/p2p.ptx"
for kind in bench p2p; do
  for arch in sm_75 sm_80 sm_90 sm_100; do
    if "$PTXAS" -arch=$arch "$ND_TMP/$kind.ptx" -o "$ND_TMP/$kind-$arch.cubin" 2>"$ND_TMP/ptxas.err"; then
      ok "$kind kernels assemble for $arch"
    elif grep -q "not defined for option 'gpu-name'" "$ND_TMP/ptxas.err"; then
      ok "$kind kernels: this ptxas has no $arch (skipped)"
    else
      not_ok "$kind kernels for $arch: $(head -3 "$ND_TMP/ptxas.err")"
    fi
  done
done
for e in nd_bench_fill nd_bench_check; do
  if grep -q "^\.visible \.entry $e(" "$ND_TMP/bench.ptx"; then ok "entry $e"; else not_ok "no entry $e"; fi
done
finish
