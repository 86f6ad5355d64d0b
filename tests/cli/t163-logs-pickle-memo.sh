#!/bin/bash
# nccl-doctor logs on flight-recorder pickles with bad memo indexes and cut
# short: each refused with a clear message naming what is wrong, exit 3,
# no crash. A memo index must be one the pickle stored, and no larger than
# the pickle itself (pickle writers number their entries from 0): a
# 200-byte pickle made the reader grow its memo to a million slots and was
# read. A truncated pickle holding a deep value crashed while its stack
# was released; every cut of a real dump ends cleanly.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
GEN="python3 $ND_SRC/tests/tools/fr_pickle_gen.py"

$GEN memo-unset "$ND_TMP/unset_0"
run_nd logs "$ND_TMP/unset_0"
expect_rc 3 "LONG_BINGET of an index never stored: refused"
expect_err "cannot read '.*unset_0': a Python pickle with a memo index \(123456\) that was never stored" "the index is named"

$GEN memo-huge "$ND_TMP/huge_0"
run_nd logs "$ND_TMP/huge_0"
expect_rc 3 "LONG_BINPUT of index 2^32-1: refused"
expect_err "a Python pickle with a memo index \(4294967295\) past its own size" "the index and the bound are named"

# LONG_BINPUT 1000000 in a small good dump (below the old cap of 2^20)
python3 - "$ND_SRC/tests/tools" "$ND_TMP/far_0" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import fr_pickle_gen as g
ops = g.EMPTY_LIST + g.MARK + g.i1(3) + g.i1(4) + g.APPENDS + g.LONG_BINPUT + struct.pack("<I", 1000000)
open(sys.argv[2], "wb").write(g.dump_with("input_sizes", ops))
PY
run_nd logs "$ND_TMP/far_0"
expect_rc 3 "LONG_BINPUT 1000000 in a $(($(wc -c <"$ND_TMP/far_0") / 1024)) KiB pickle: refused"
expect_err "memo index \(1000000\) past its own size" "the index is named"

# cut short: in a BINUNICODE, in the middle of a deep value, a length past the end
$GEN truncated "$ND_TMP/cut_0"
run_nd logs "$ND_TMP/cut_0"
expect_rc 3 "a dump cut in a string: refused"
expect_err "cannot read '.*cut_0': a truncated Python pickle$" "it says truncated"
$GEN deep-tuple "$ND_TMP/deep_0" 500000
head -c 300000 "$ND_TMP/deep_0" >"$ND_TMP/deepcut_0"
run_nd logs "$ND_TMP/deepcut_0"
expect_rc 3 "a deep value cut short: refused, no crash"
expect_err "truncated Python pickle|nested deeper than 256" "it says why"
$GEN beyond "$ND_TMP/beyond_0"
run_nd logs "$ND_TMP/beyond_0"
expect_rc 3 "BINUNICODE8 of 2^40 bytes in a small pickle: refused"
expect_err "a truncated Python pickle" "it says truncated"

# every cut of a real dump: exit 3 with a message, never a crash
F="$ND_FIXTURES/logs/flight-recorder/real-h200-mismatch/nccl_trace_rank_0"
n=$(wc -c <"$F") bad=0
for ((i = 3; i < n; i += 29)); do
  head -c "$i" "$F" >"$ND_TMP/c"
  timeout 20 "$ND_BIN" logs "$ND_TMP/c" >/dev/null 2>"$ND_TMP/e"; rc=$?
  if [ "$rc" -ne 3 ] || ! grep -q "cannot read" "$ND_TMP/e"; then bad=$((bad + 1)); [ $bad -le 3 ] && echo "    cut at $i: exit $rc"; fi
done
if [ $bad -eq 0 ]; then ok "$(((n - 3 + 28) / 29)) cuts of a real dump: each exit 3 with its message"; else not_ok "$bad cuts of a real dump ended otherwise"; fi
finish
