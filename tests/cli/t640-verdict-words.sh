#!/usr/bin/env bash
# One verdict vocabulary: every command that ends with a verdict says one of
# HEALTHY, DEGRADED, BROKEN, INCOMPLETE or NOTHING TO CHECK, in its text (the
# last "Verdict:" line; bench's "# Verdict:" comment; check's and fix's
# headline) and in --json's "verdict", and no older word (PROBLEM FOUND,
# WARNINGS, FIX FOUND, WORKS AS GIVEN, NOTHING WORKS, COULD NOT RUN). fix
# says its search's outcome under the verdict ("search: ... (fix found)")
# and keeps the old word in "search_outcome". Exit statuses are unchanged.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
use_fake_gpus
WORDS='HEALTHY|DEGRADED|BROKEN|INCOMPLETE|NOTHING TO CHECK'
OLD='PROBLEM FOUND|WARNINGS|FIX FOUND|WORKS AS GIVEN|NOTHING WORKS|COULD NOT RUN'
S="$ND_FIXTURES/fakegpu"
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
NOGPU="$ND_SRC/tests/golden/sysroot-nogpu"

# last_verdict WORD WHAT: the text report's last "Verdict:" line is WORD
last_verdict() {
	local v
	v=$(sed -n 's/^\(# \)\{0,1\}Verdict: \([A-Z][A-Z ]*[A-Z]\)\( (.*\)\{0,1\}$/\2/p' "$OUT" | tail -1)
	if [ "$v" = "$1" ]; then ok "$2: Verdict: $v"; else not_ok "$2: verdict line '$v', wanted '$1'"; tail -3 "$OUT" | sed 's/^/    /'; fi
	if grep -Eq "^(# )?Verdict: ($OLD)" "$OUT"; then not_ok "$2: an old verdict word"; else ok "$2: no old verdict word"; fi
}
# json_verdict WORD WHAT: --json's "verdict" is WORD
json_verdict() { json_check "d.get('verdict') == '$1'" "$2: JSON verdict $1"; }

# sys, topo: a recorded machine, and one with nothing NVIDIA on it
run_nd sys --sysroot "$ACS"
last_verdict BROKEN "sys, ACS redirect"
run_nd --json sys --sysroot "$ACS"
json_verdict BROKEN "sys, ACS redirect"
run_nd topo --sysroot "$ND_FIXTURES/sysroot/hgx-fm-healthy"
rc=$RC; v=$(sed -n 's/^Verdict: \([A-Z ]*[A-Z]\) (.*/\1/p' "$OUT")
if echo "$v" | grep -Eqx "$WORDS"; then ok "topo: verdict '$v' of the vocabulary (exit $rc)"; else not_ok "topo: verdict '$v'"; fi
for cmd in sys topo check fix; do
	drv=; [ $cmd = check ] || [ $cmd = fix ] && drv=--driver
	run_nd --json $cmd $drv --sysroot "$NOGPU"
	expect_rc 3 "$cmd, no GPU and no driver: exit 3 as before"
	json_verdict "NOTHING TO CHECK" "$cmd, no GPU and no driver"
done
run_nd check --driver --sysroot "$NOGPU"
expect_out '^NOTHING TO CHECK: no NVIDIA GPU or driver here$' "check, no GPU: the headline says NOTHING TO CHECK"
run_nd fix --driver --sysroot "$NOGPU"
expect_out '^NOTHING TO CHECK: no NVIDIA GPU or driver here$' "fix, no GPU: the headline says NOTHING TO CHECK"

# kernel and logs: a log with a problem, and nothing given to read
run_nd kernel "$ND_FIXTURES/kernel/dmesg.gz"
last_verdict BROKEN "kernel, Xid 79"
run_nd --json kernel "$ND_FIXTURES/kernel/dmesg.gz"
json_verdict BROKEN "kernel, Xid 79"
run_nd --json kernel /dev/null
expect_rc 3 "kernel, an empty input: exit 3 as before"
json_verdict "NOTHING TO CHECK" "kernel, an empty input"
run_nd logs "$ND_FIXTURES/logs/constructed/bootstrap-hang-2node"
last_verdict BROKEN "logs, bootstrap hang"
run_nd --json logs "$ND_FIXTURES/logs/constructed/bootstrap-hang-2node"
json_verdict BROKEN "logs, bootstrap hang"
mkdir -p "$ND_TMP/empty"
run_nd --json logs "$ND_TMP/empty"
expect_rc 3 "logs, a directory with no log: exit 3 as before"
json_verdict "NOTHING TO CHECK" "logs, a directory with no log"
run_nd --json logs /dev/null
json_verdict "NOTHING TO CHECK" "logs, an empty input"

# p2p and bench on the fake GPUs
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-p2p-hang.json"
run_nd p2p --quick --timeout 3
expect_rc 2 "p2p, copies hang: exit 2 as before"
last_verdict BROKEN "p2p, copies hang"
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4.json"
run_nd --json p2p --quick --timeout 3
# (HEALTHY; a loaded or sanitizer build may measure a pair slow or past
# --timeout 3: then the word of that exit status)
json_check "{0: 'HEALTHY', 1: 'DEGRADED', 2: 'BROKEN', 3: 'INCOMPLETE'}.get(d['summary']['exit_code']) == d['verdict']" \
	"p2p, healthy: JSON verdict HEALTHY, or the word of its exit status"
run_nd bench all_reduce -g 2 -b 1K -e 4K
expect_rc 0 "bench, healthy: exit 0 as before"
last_verdict HEALTHY "bench"
[ "$(tail -1 "$OUT")" = "# Verdict: HEALTHY" ] && ok "bench: the verdict is the last line, a comment of nccl-tests' format" ||
	not_ok "bench: last line '$(tail -1 "$OUT")'"
run_nd --json bench all_reduce -g 2 -b 1K -e 4K
json_verdict HEALTHY "bench"

# fix: the verdict is the vocabulary, the search's outcome a line of its own
# in the headline and "search_outcome" in JSON; the exit status is the search's
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json"
ND_RUN_TIMEOUT=150 run_nd fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M
expect_rc 1 "fix, classic case: exit 1 (a fix was found) as before"
# (PIX is the fastest; under a sanitizer NCCL_P2P_DISABLE=1 may measure faster)
expect_out '^BROKEN: 4 GPUs, [0-9.]+ s; search: NCCL_P2P_(LEVEL=PIX|DISABLE=1) works \(fix found\)$' \
	"fix: BROKEN as given, the search's outcome after it"
last_verdict BROKEN "fix, classic case"
ND_RUN_TIMEOUT=150 run_nd --json fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M
json_check 'd["verdict"] == "BROKEN" and d["search_outcome"] == "FIX FOUND" and d["exit_code"] == 1' \
	"fix JSON: verdict BROKEN, search_outcome FIX FOUND, exit_code 1"
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4.json"
ND_RUN_TIMEOUT=150 run_nd fix --driver --sysroot "$S/sysroot-pxb" --gpus 0,1 --timeout 3 --max-bytes 1M
if [ "$RC" -eq 0 ]; then
	expect_out '^HEALTHY: 2 GPUs, [0-9.]+ s; search: works as given$' "fix, healthy: HEALTHY, works as given"
	last_verdict HEALTHY "fix, healthy"
else
	expect_out '; search: ' "fix on 2 GPUs: the search's outcome in the headline"
fi

# check: the headline and the last line say the same word
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/hgx8-healthy.json"
ND_RUN_TIMEOUT=150 run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/hgx-fm-healthy" --max-bytes 1M
expect_rc 0 "check, healthy: exit 0"
expect_out '^HEALTHY: 8 GPUs' "check: headline HEALTHY"
last_verdict HEALTHY "check, healthy"

# watch: the stall's diagnosis on stderr and in --json=FILE
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json"
timeout 60 "$ND_BIN" --sysroot "$ACS" watch --stall 2 --on-stall kill --json="$ND_TMP/w.json" \
	-- "$ND_BIN" __worker ranks --nranks 4 --deadline 60 >"$ND_TMP/wout" 2>"$ND_TMP/werr"
v=$(sed -n 's/^Verdict: \([A-Z ]*[A-Z]\) (.*/\1/p' "$ND_TMP/werr" | tail -1)
if echo "$v" | grep -Eqx "$WORDS"; then ok "watch: the stall's verdict '$v' is of the vocabulary"; else not_ok "watch: stall verdict '$v'"; fi
OUT="$ND_TMP/w.json"
json_check "d.get('verdict') in ('HEALTHY', 'DEGRADED', 'BROKEN', 'INCOMPLETE') and d['last_stall'].get('verdict') == '$v'" \
	"watch --json=FILE: verdict, and the stall's verdict as on stderr"

# explain has no verdict
run_nd explain XID_79
expect_no_out '^Verdict' "explain: no verdict line"
run_nd --json explain XID_79
json_check '"verdict" not in d' "explain: no JSON verdict"

finish
