#!/bin/bash
# nccl-doctor logs on flight-recorder pickles nested deeper than any dump:
# refused with the bound named (256 levels), exit 3 as for any unreadable
# input, never a crash. A 500 KB pickle of 500000 TUPLE1 (one value, the
# stack one deep) crashed the JSON building (jansson's recursive dump and
# release); the form pickle.dumps writes (nested lists) and a deep pickle
# cut short (released on the error path) too. Pickles made by
# tests/tools/fr_pickle_gen.py.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
GEN="python3 $ND_SRC/tests/tools/fr_pickle_gen.py"

$GEN deep-tuple "$ND_TMP/deep_0" 500000
run_nd logs "$ND_TMP/deep_0"
expect_rc 3 "500 KB pickle, one value 500000 deep: refused"
expect_err "cannot read '.*deep_0': a Python pickle nested deeper than 256 levels" "the bound is named"
expect_err_lines 1 "in one line"
expect_out "^Could not complete: cannot read .*nested deeper than 256 levels" "stdout: could not complete, and why"
run_nd --json logs "$ND_TMP/deep_0"
expect_rc 3 "--json: the same exit"
json_check '"nested deeper than 256 levels" in d["error"] and d["summary"]["exit_code"] == 3' "--json: the error names the bound"

$GEN deep-list "$ND_TMP/lists_0" 100000
run_nd logs "$ND_TMP/lists_0"
expect_rc 3 "100000 nested lists as pickle.dumps writes them: refused"
expect_err "nested deeper than 256 levels|over 4096 values on its stack" "the bound is named"

# deep, then cut short: the values left on the stack are released
head -c 300000 "$ND_TMP/deep_0" >"$ND_TMP/cut_0"
run_nd logs "$ND_TMP/cut_0"
expect_rc 3 "a deep pickle cut short: refused"
expect_err "nested deeper than 256 levels|truncated Python pickle" "it says why"

# 200 levels (beyond any real dump, within the bound) are read
$GEN deep-tuple "$ND_TMP/ok_0" 200
run_nd --json logs "$ND_TMP/ok_0"
if [ "$RC" -le 2 ]; then ok "a value 200 deep: read (exit $RC)"; else not_ok "a value 200 deep: exit $RC"; fi
json_check 'any(f["id"] == "LOG_FR_SUMMARY" and any("[[[[[" in e["text"] for e in f["evidence"]) for f in d["findings"])' "its sizes are shown, cut"

# beside a good dump: exit 3 as for any input that cannot be read
run_nd logs "$ND_TMP/deep_0" "$ND_FIXTURES/logs/flight-recorder/real-h200-format/nccl_trace_rank_0"
expect_rc 3 "with a good dump beside it: exit 3, as for any unreadable input"
expect_err "deep_0.*nested deeper" "the bad one is named"
finish
