#!/bin/bash
# Over-long paths are errors, not silently cut names (issue 9 item 7): with
# NCCL_CONF_FILE one byte longer than the buffer that holds it, and a file
# at the name it would be cut to, `sys` must not read that other file.
. "$(dirname "$0")/lib.sh"
base="$ND_TMP/long"
p=$base
while [ ${#p} -lt 400 ]; do p=$p/$(printf 'd%.0s' $(seq 1 60)); done
mkdir -p "$p"
need=$((511 - ${#p} - 1))
cut="$p/$(printf 'f%.0s' $(seq 1 $need))"
echo "NCCL_TRAP_FROM_CUT_PATH=1" >"$cut"
if [ ${#cut} -eq 511 ]; then ok "a 511-byte file name stands where the cut name would point"; else not_ok "setup: ${#cut} bytes"; fi

NCCL_CONF_FILE="${cut}x" run_nd sys
expect_no_out 'NCCL_TRAP_FROM_CUT_PATH' "a 512-byte NCCL_CONF_FILE is not cut to another file's name"
expect_out 'NCCL config files +none' "no config file read"
# the same file under its own name is read (the test sees what it claims)
NCCL_CONF_FILE="$cut" run_nd sys
expect_out 'NCCL_TRAP_FROM_CUT_PATH' "the 511-byte name itself is read"
finish
