#!/usr/bin/env bash
# The binary needs nothing beyond glibc at run time: jansson is linked in,
# NVIDIA libraries are dlopen'ed.
. "$(dirname "$0")/lib.sh"
if ! command -v ldd >/dev/null; then echo "ldd missing: skipped"; echo "0 passed, 0 failed"; exit 0; fi
ldd "$ND_BIN" >"$ND_TMP/ldd" 2>&1
bad=$(grep -vE 'linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libasan|libubsan|libstdc\+\+|libgcc_s' "$ND_TMP/ldd" | grep -E '=>|\.so' || true)
if [ -z "$bad" ]; then ok "only glibc libraries needed"; else not_ok "extra run-time libraries:"; echo "$bad" | sed 's/^/    /'; fi
if grep -qE 'jansson|cuda|nvidia-ml|nccl' "$ND_TMP/ldd"; then not_ok "links jansson or an NVIDIA library"; else ok "no jansson or NVIDIA library linked"; fi
finish
