#!/bin/bash
# Over-long paths are errors, not silently cut names (issue 9 item 7): with
# NCCL_CONF_FILE one byte longer than the buffer that holds it, and a file
# at the name it would be cut to, `sys` must not read that other file. And
# a list too long for its message says so (" ...") instead of stopping
# silently.
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

# 999 missing ranks: the list is cut after whole numbers and marked
printf '%s\n' 'host1:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4' \
  'host1:100:100 [0] NCCL INFO comm 0x55 rank 0 nRanks 1000 nNodes 1 localRanks 1 localRank 0 MNNVL 0' \
  'host1:100:100 [0] NCCL INFO ncclCommInitRank comm 0x55 rank 0 nranks 1000 cudaDev 0 nvmlDev 0 busId 18000 commId 0xabc - Init COMPLETE' \
  >"$ND_TMP/many.log"
run_nd logs "$ND_TMP/many.log"
expect_out '1 of 1000 ranks seen; missing ranks 1,2,3,[0-9,]*[0-9] \.\.\.$' "a cut list of missing ranks ends in whole numbers and ' ...'"
finish
