#!/usr/bin/env bash
# The first screen: the commands people run in an outage (check, fix, p2p,
# logs, kernel, watch) start with what to do. Within the first 25 lines:
# the action (the environment measured to work, the flags that stop using
# hanging copies, or the top problem's first fix), the most likely cause
# with at most three evidence lines, and what could not be checked; a rule
# "---- details ----" separates it from the details. A healthy run has no
# action and no cause there. --json is unchanged (its own members).
. "$(dirname "$0")/lib.sh"
unset COLUMNS # the tool's own width: 100 columns without a terminal
use_fake_gpus

first25() { head -25 "$OUT" >"$ND_TMP/first"; grep -Eq "$1" "$ND_TMP/first"; }
within25() { # REGEX DESCRIPTION
	if first25 "$1"; then ok "$2"; else not_ok "$2"; head -30 "$OUT" | sed 's/^/    /'; fi
}
before_rule() { # REGEX DESCRIPTION: REGEX appears above the details rule
	local n r
	n=$(grep -nE "$1" "$OUT" | head -1 | cut -d: -f1)
	r=$(grep -n '^---- details ----$' "$OUT" | head -1 | cut -d: -f1)
	if [ -n "$n" ] && [ -n "$r" ] && [ "$n" -lt "$r" ]; then ok "$2"; else not_ok "$2 (line ${n:-none}, rule ${r:-none})"; fi
}

# at_most N DESCRIPTION: the report has at most N lines
at_most() {
	local n; n=$(wc -l <"$OUT")
	if [ "$n" -le "$1" ]; then ok "$2 ($n lines)"; else not_ok "$2: $n lines"; fi
}

# bg_nd NAME ARGS...: run_nd ARGS in the background, into $ND_TMP/NAME/
# (out, err, rc); use_nd NAME waits for it and makes it the current run.
# The hang cases at the default deadlines wait out NCCL's 15 s p2p
# deadline (three runs, about 60 s of waiting and little CPU): they run
# beside the other cases, and are checked last. The copies-hang case is
# not one of them: its verdict rests on a benchmark up to 64 MiB finishing
# within its --timeout 3 budget (beside three others on a loaded machine
# it did not, and the action became NCCL_P2P_DISABLE=1); it runs first,
# alone.
bg_nd() {
	local name=$1; shift
	( ND_TMP="$ND_TMP/$name"; mkdir -p "$ND_TMP"; run_nd "$@"; echo "$RC" >"$ND_TMP/rc" ) &
	eval "BG_$name=$!"
}
use_nd() {
	local pid; eval "pid=\$BG_$1"
	wait "$pid"
	OUT="$ND_TMP/$1/out"; ERR="$ND_TMP/$1/err"; RC=$(cat "$ND_TMP/$1/rc" 2>/dev/null || echo -1)
}
# copies hang, NCCL works: the flags that stop using the copies; with
# --full, the same first screen and then every fact
ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p-hang.json" \
	run_nd --full check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --timeout 3
within25 '^Do this now: turn off what uses direct GPU-to-GPU copies' "copies hang: the action turns them off"
within25 '^    vllm serve MODEL --tensor-parallel-size 4 --disable-custom-all-reduce$' "the vLLM flags, with the GPUs tested"
expect_out '^PCIe bridges above GPUs$' "--full: the host facts"
expect_out '^        evidence: ' "--full: each finding's evidence"
expect_no_out '^Left out here' "--full leaves nothing out"
n=$(grep -c 'setpci -s 0000:02:08.0 ECAP_ACS' "$OUT")
[ "$n" -ge 1 ] && [ "$n" -le 3 ] && ok "--full: a setpci line at most in the permanent fixes, one finding and the unit ($n)" ||
	not_ok "--full: one setpci line $n times"

ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-nccl-p2p-hang.json" \
	bg_nd classic check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --max-bytes 1M
ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-nccl-p2p-hang.json" \
	bg_nd classic_json --json check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --max-bytes 1M

ND_RUN_TIMEOUT=200 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie8-acs-hang.json" \
	bg_nd pcie8 check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-8gpu-acs" --max-bytes 1M

# a saved kernel log: the top problem and its first fix
run_nd kernel "$ND_FIXTURES/kernel/dmesg.gz"
within25 '^Problem: XID_79 ' "kernel: the worst event first"
within25 '^Next \(for XID_79\):$' "and what to do about it"
before_rule '^Problem: XID_79' "above the details"

# logs: the ranked cause and its evidence
run_nd logs "$ND_FIXTURES/logs/constructed/bootstrap-hang-2node"
within25 '^Most likely cause: bootstrap network \(interface / address / firewall\)( \[bootstrap_network\])? \(' "logs: the most likely cause"

# NVSwitch fabric down, no root, no driver: the first screen says what to do
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/hgx8-fabric-failed.json" \
	ND_RUN_TIMEOUT=150 run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/hgx-fm-stopped" --max-bytes 1M
within25 '^Most likely cause: NVSwitch fabric manager down' "fabric down: the cause"
within25 '^Do this now \(shell, for FABRIC_MANAGER_NOT_RUNNING\):' "fabric down: the next step"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json" \
	ND_RUN_TIMEOUT=150 run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/unprivileged" --max-bytes 1M
within25 '^Do this now \(shell, for ACS_UNKNOWN_NEEDS_ROOT\):' "no root: what to run as root"
within25 '^Not checked: kernel: ' "no root: what could not be checked"
run_nd check --sysroot "$ND_FIXTURES/sysroot/no-driver"
within25 '^Do this now \(shell, for NVIDIA_DRIVER_NOT_LOADED\):' "no driver: load it"
# a busy GPU: what was not tested says so; an action of one line per bridge
# is given whole, not its first bridge only
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p-busy.json" \
	ND_RUN_TIMEOUT=150 run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --max-bytes 1M
within25 '^Not checked: GPUs in use by other processes were not tested \(GPU 1 ' "busy GPUs: named as not checked"
n=$(head -25 "$OUT" | grep -cE '^    sudo setpci -s 0000:[01]2:[01][08]\.0 ECAP_ACS\+0x6\.w=0000$')
[ "$n" = 4 ] && ok "busy GPUs: the action clears ACS at all four bridges" || not_ok "the action names $n of 4 bridges"

# healthy: nothing to do, no cause
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/hgx8-healthy.json" \
	ND_RUN_TIMEOUT=150 run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/hgx-fm-healthy" --max-bytes 1M
expect_rc 0 "healthy: exit 0"
at_most 60 "healthy 8 GPUs: the short report"
expect_no_out '^ +[0-7]->[0-7] ' "healthy: the pairs summarised, not listed"
expect_out '^HEALTHY: 8 GPUs, [0-9.]+ s$' "healthy: the headline says HEALTHY and nothing else"
expect_no_out '^Do this now|^Most likely cause|^Problem:|^---- details' "healthy: no action, no cause, no rule"

# the classic case on 8 GPUs behind four switches
use_nd pcie8
expect_rc 2 "8-GPU classic case: BROKEN"
at_most 60 "8-GPU classic case: the short report"
within25 '^Do this now: NCCL_P2P_LEVEL=PIX \(measured to work on 8 GPUs' "8 GPUs: the measured action in the first 25 lines"
within25 '^Most likely cause: P2P over PCIe blocked' "8 GPUs: the cause in the first 25 lines"
expect_no_out '^ +[0-7]->[0-7] ' "8 GPUs: no list of the 56 pairs"

# the classic case, NCCL hanging across the switches: the measured fix
use_nd classic
expect_rc 2 "classic case: BROKEN"
at_most 60 "classic case: the short report"
expect_out '^Left out here: ' "it says what --full adds"
grep -n '' "$OUT" | head -1 | grep -q '^1:BROKEN: 4 GPUs' && ok "the verdict is the first line" || not_ok "the verdict is not the first line"
within25 '^Do this now: NCCL_P2P_LEVEL=PIX \(measured to work on 4 GPUs\)$' "the action, measured, in the first 25 lines"
within25 '^    export NCCL_P2P_LEVEL=PIX$' "as lines to paste"
within25 '^Most likely cause: P2P over PCIe blocked \(ACS / IOMMU\)( \[p2p_pcie_acs_iommu\])? \([0-9.]+\)$' "the cause in the first 25 lines"
within25 '^Not checked: kernel: ' "what could not be checked (no kernel log in this sysroot)"
before_rule '^Most likely cause' "the cause above the details"
n=$(awk '/^Most likely cause/{f=1; next} f && /^    /{c++; next} f{exit} END{print c+0}' "$OUT")
if [ "$n" -ge 1 ] && [ "$n" -le 3 ]; then ok "1 to 3 evidence lines under the cause ($n)"; else not_ok "evidence lines under the cause: $n"; fi
expect_out '^Stages|^  Stages' "the details follow"

# JSON keeps its own members and no first-screen text
use_nd classic_json
json_check 'd["recommendation"]["configuration"] == "NCCL_P2P_LEVEL=PIX"' "JSON: the recommendation as before"
expect_no_out 'Do this now' "JSON: no first-screen text"
finish
