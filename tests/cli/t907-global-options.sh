#!/usr/bin/env bash
# One style across commands: every global option (--json, --format, --md,
# --quiet, --progress, --full, --no-color, --timeout, --nccl, --sysroot,
# --gpus, --out, --node-name, --reason-line, --fail-on, --exit-style) is
# accepted by every command, before or after the command's name, or refused
# by name (--gpus on a command without GPUs, --progress on one
# without progress lines say they are ignored); never "unknown option". And
# --quiet silences the progress lines of the commands that print them (p2p,
# check, fix, bench, logs), which print them on a terminal or with
# --progress only.
. "$(dirname "$0")/lib.sh"
SR="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
globals=("--json" "--format text" "--format json" "--format markdown" "--md" "--quiet" "--progress" "--full" "--no-color"
  "--timeout 5" "--nccl /nonexistent/libnccl.so.2" "--sysroot $SR" "--gpus 0" "--out $ND_TMP/help-%h.txt"
  "--node-name n1" "--reason-line" "--fail-on error" "--exit-style npd")
cmds=$("$ND_BIN" --help | awk '/^commands:/{f=1; next} f && /^  [a-z]/{print $1} f && /^$/{exit}')
[ -n "$cmds" ] && ok "the command table: $(echo $cmds | tr '\n' ' ')" || not_ok "no command listed by --help"
for c in $cmds; do
  for g in "${globals[@]}"; do
    for where in before after; do
      # shellcheck disable=SC2086
      if [ $where = before ]; then run_nd $g "$c" --help; else run_nd "$c" $g --help; fi
      if [ "$RC" -eq 0 ] && ! grep -q "unknown option" "$ERR"; then :
      else not_ok "$c: $g $where the command: exit $RC: $(head -1 "$ERR")"; continue; fi
    done
  done
done
ok "every command accepts every global option before and after its name"
run_nd --gpus 0 sys --sysroot "$SR"
expect_err "nccl-doctor sys: --gpus does not apply to this command and is ignored" "a global option a command cannot use is refused by name"
for c in sys topo explain kernel snapshot watch; do
  run_nd "$c" --progress --help
  expect_err "nccl-doctor $c: --progress does not apply to this command \(it prints no progress\) and is ignored" "$c refuses --progress by name"
done

# --format: one form; --json and --md are its short forms; watch refuses
# markdown by name (stdout is the job's)
run_nd sys --sysroot "$SR" --format markdown
expect_rc 2 "sys --format markdown"
expect_out '^### nccl-doctor sys: ' "--format markdown: the markdown report"
run_nd --md sys --sysroot "$SR"
expect_out '^### nccl-doctor sys: ' "--md before the command: the same"
run_nd sys --format json --sysroot "$SR"
json_check "d['command'] == 'sys'" "--format json is --json"
run_nd sys --format text --sysroot "$SR"
expect_out '^Verdict: ' "--format text: the text report"
run_nd sys --json --md --sysroot "$SR"
expect_rc 64 "--json with --md: a usage error"
expect_err "^nccl-doctor: two output forms asked for, json and markdown: give one of --format, --json, --md$" "named"
run_nd sys --format json --json --sysroot "$SR"
expect_rc 2 "--format json with --json: one form, accepted"
run_nd sys --format yaml
expect_rc 64 "--format yaml: a usage error"
expect_err "option '--format' expects text, json or markdown, not 'yaml'" "the forms named"
run_nd watch --md -- true
expect_rc 64 "watch --md: refused"
expect_err "^nccl-doctor watch: --format markdown: stdout belongs to the job" "watch refuses markdown by name"

# --quiet: no progress lines
use_fake_gpus
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p.json" run_nd p2p --quick
expect_err_lines 0 "p2p: no progress lines when stderr is no terminal"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p.json" run_nd p2p --quick --progress
expect_err '^nccl-doctor p2p \[ *[0-9.]+s\] p2p: round 1/' "p2p --progress prints progress lines in the one style"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p.json" run_nd p2p --quick --quiet
expect_rc 0 "p2p --quiet"
expect_err_lines 0 "p2p --quiet: no progress line"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/h200-1gpu.json" run_nd check --progress --max-bytes 1M
expect_err '^nccl-doctor check \[ *[0-9.]+s\] sys' "check --progress prints the stages"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/h200-1gpu.json" run_nd --quiet check --progress --max-bytes 1M
if grep -qE '^nccl-doctor check \[' "$ERR"; then not_ok "check: the global --quiet wins over --progress"; else ok "check: the global --quiet wins over --progress"; fi
finish
