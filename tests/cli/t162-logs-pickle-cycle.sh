#!/bin/bash
# nccl-doctor logs on flight-recorder pickles with reference cycles: a list
# stored into a list it holds, a dict that holds itself, a cycle through a
# dict, a tuple and a list. jansson never frees values in a cycle (they
# leaked: LeakSanitizer in the sanitizer build) and the first one was even
# read as a dump (exit 0). Now refused, exit 3, no leak; and a container
# changed after it was stored in another (how every cycle is made) too.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
GEN="python3 $ND_SRC/tests/tools/fr_pickle_gen.py"

$GEN cycle "$ND_TMP/cycle_0"
run_nd logs "$ND_TMP/cycle_0"
expect_rc 3 "two lists that hold each other: refused"
expect_err "cannot read '.*cycle_0': a Python pickle with a reference cycle" "the cycle is named"

$GEN self-dict "$ND_TMP/self_0"
run_nd logs "$ND_TMP/self_0"
expect_rc 3 "a dict that holds itself: refused"
expect_err "reference cycle" "the cycle is named"

# d = {}; t = (d,); l = [t]; d["x"] = l: a cycle through three containers,
# written by Python's own pickler (with the pad that makes it binary)
python3 - "$ND_SRC/tests/tools" "$ND_TMP/tri_0" <<'PY'
import pickle, sys
sys.path.insert(0, sys.argv[1])
import fr_pickle_gen as g
d = {}
l = [(d,)]
d["x"] = l
body = pickle.dumps({"version": "2.5", "entries": [{"collective_seq_id": 1, "state": "started", "input_sizes": d}]}, protocol=2)
# the pad goes first in the root dict, after "}q\x00("
assert body[2:6] == b"}q\x00("
open(sys.argv[2], "wb").write(body[:6] + g.PAD + body[6:])
PY
run_nd logs "$ND_TMP/tri_0"
expect_rc 3 "a cycle through a dict, a tuple and a list (pickle.dumps): refused"
expect_err "reference cycle" "the cycle is named"

# a list appended to after it was stored in another: no cycle, but how one
# is made; pickle writers never do it
python3 - "$ND_SRC/tests/tools" "$ND_TMP/late_0" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import fr_pickle_gen as g
# L0 = [] (memo 0); L1 = [L0]; then L0.append(1) through the memo
ops = g.EMPTY_LIST + g.BINPUT + b"\x00" + g.EMPTY_LIST + g.BINGET + b"\x00" + g.APPEND + g.BINGET + b"\x00" + g.i1(1) + g.APPEND
open(sys.argv[2], "wb").write(g.dump_with("input_sizes", ops))
PY
run_nd logs "$ND_TMP/late_0"
expect_rc 3 "a list changed after it was stored in another: refused"
expect_err "reference cycle \(a container changed after it was stored in another\)" "it says what was done"
finish
