#!/usr/bin/env bash
# One progress style on stderr for every long command (util/progress.h):
#   nccl-doctor COMMAND [ 12.3s] STAGE: what, 3/12 pairs, ETA 20 s
# with a counter and an ETA where the work is known (p2p's pairs, fix's
# trials, bench's sizes, the bytes logs reads). Shown when stderr is a
# terminal (script(1) gives one) or with --progress; never with --quiet,
# never on stdout, and not when stderr is a pipe or a file (p2p printed it
# always before).
. "$(dirname "$0")/lib.sh"
use_fake_gpus
S="$ND_FIXTURES/fakegpu"
FORM='^nccl-doctor (check|fix|p2p|bench|logs) \[ *[0-9]+\.[0-9]s\] [^ ]'

# every_line CMD WHAT: every stderr line is a progress line of CMD
every_line() {
	local n bad
	n=$(grep -c . "$ERR")
	bad=$(grep -vE "^nccl-doctor $1 \\[ *[0-9]+\\.[0-9]s\\] " "$ERR" | head -1)
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then ok "$2: $n lines, each in the one style"
	else not_ok "$2: $n lines; not in the style: '$bad'"; fi
}
no_progress_on_stdout() {
	if grep -qE "$FORM" "$OUT"; then not_ok "$1: a progress line on stdout"; else ok "$1: none on stdout"; fi
}

export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-p2p.json"
# p2p: not on a pipe; with --progress the rounds with their pairs and an ETA
run_nd p2p --quick --timeout 3
expect_rc 0 "p2p, healthy 4 GPUs"
expect_err_lines 0 "p2p: no progress when stderr is no terminal"
run_nd p2p --quick --timeout 3 --progress
every_line p2p "p2p --progress"
expect_err '^nccl-doctor p2p \[ *[0-9.]+s\] p2p: round 1/3: .*, 0/6 pairs$' "p2p: round 1 with its pair counter, no ETA yet"
expect_err '^nccl-doctor p2p \[ *[0-9.]+s\] p2p: round 2/3: .*, 2/6 pairs, ETA [0-9]+ (s|min)$' "p2p: round 2 with the pairs done and an ETA"
no_progress_on_stdout "p2p --progress"
run_nd --quiet p2p --quick --timeout 3 --progress
expect_err_lines 0 "p2p: --quiet wins over --progress"
# a terminal: script(1) runs it on a pseudo-terminal (stdout and stderr both)
if command -v script >/dev/null; then
	# shellcheck disable=SC2016
	ND_ARGS="p2p --quick --timeout 3" script -qfec '"$ND_BIN" $ND_ARGS 2>&1 >/dev/null' /dev/null </dev/null >"$ND_TMP/tty" 2>&1
	tr -d '\r' <"$ND_TMP/tty" >"$ND_TMP/tty.txt"
	grep -qE '^nccl-doctor p2p \[ *[0-9.]+s\] p2p: round 2/3: .*, 2/6 pairs, ETA' "$ND_TMP/tty.txt" &&
		ok "p2p on a terminal: progress without --progress" || { not_ok "p2p on a terminal: no progress"; head -3 "$ND_TMP/tty.txt" | sed 's/^/    /'; }
	# shellcheck disable=SC2016
	ND_ARGS="p2p --quick --timeout 3" script -qfec '"$ND_BIN" --quiet $ND_ARGS 2>&1 >/dev/null' /dev/null </dev/null >"$ND_TMP/tty" 2>&1
	if grep -q 'nccl-doctor p2p \[' "$ND_TMP/tty"; then not_ok "p2p --quiet on a terminal: progress"; else ok "p2p --quiet on a terminal: none"; fi
else
	ok "# script(1) missing: the terminal case is shown with --progress above"
fi

# bench: the sizes of the sweep
run_nd bench all_reduce -g 2 -b 1K -e 1M -f 4 --progress
expect_rc 0 "bench"
every_line bench "bench --progress"
# (progress lines that arrive together are printed as one, the latest: on a
# busy machine the 1 and 4 KiB sizes may end within one poll, seen once)
expect_err '^nccl-doctor bench \[ *[0-9.]+s\] bench: [0-9]+ B done, [1-5]/6 sizes, ETA [0-9]+ (s|min)$' "bench: a size done, the count and an ETA"
expect_err ', 6/6 sizes$' "bench: the last size, no ETA"
no_progress_on_stdout "bench --progress"
run_nd bench all_reduce -g 2 -b 1K -e 4K
expect_err_lines 0 "bench: no progress when stderr is no terminal"

# check and fix: the stages, p2p's pairs, the fix trials
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json"
ND_RUN_TIMEOUT=150 run_nd fix --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --timeout 3 --max-bytes 1M --progress
every_line fix "fix --progress"
expect_err '^nccl-doctor fix \[ *[0-9.]+s\] sys \.\.\.$' "fix: a stage starts, no counter (its work is not counted)"
expect_err '^nccl-doctor fix \[ *[0-9.]+s\] p2p: round 2/3: .*, 2/6 pairs, ETA ' "fix: p2p's pairs within fix"
expect_err '^nccl-doctor fix \[ *[0-9.]+s\] fix: trying as given \(deadline [0-9]+ s\), 0/[0-9]+ trials$' "fix: the first trial, the count of trials"
expect_err '^nccl-doctor fix \[ *[0-9.]+s\] fix: as given: HANG.*, 1/[0-9]+ trials, ETA [0-9]+ (s|min)$' "fix: a trial done, an ETA"
no_progress_on_stdout "fix --progress"
ND_RUN_TIMEOUT=150 run_nd fix --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --timeout 3 --max-bytes 1M
expect_err_lines 0 "fix: no progress when stderr is no terminal"

# logs: a directory of 16 files
mkdir -p "$ND_TMP/logs"
for i in $(seq 1 8); do
	cp "$ND_FIXTURES/logs/constructed/bootstrap-hang-2node/nccl.node0.4101" "$ND_TMP/logs/r$i.a"
	cp "$ND_FIXTURES/logs/constructed/bootstrap-hang-2node/nccl.node0.4102" "$ND_TMP/logs/r$i.b"
done
run_nd logs --progress "$ND_TMP/logs"
every_line logs "logs --progress, 16 files"
expect_err "^nccl-doctor logs \\[ *[0-9.]+s\\] logs: reading $ND_TMP/logs/r1.a, 0.0/[0-9.]+ KiB$" "logs: the first file, the bytes to read"
expect_err "^nccl-doctor logs \\[ *[0-9.]+s\\] logs: reading $ND_TMP/logs/r8.b, [0-9.]+/[0-9.]+ KiB, ETA [0-9]+ (s|min)$" "logs: the last file, the bytes read and an ETA"
run_nd logs --progress "$ND_FIXTURES/logs/constructed/bootstrap-hang-2node"
expect_err_lines 0 "logs: a small input has no progress"

finish
