#!/usr/bin/env bash
# Honest verdicts (issue 10 item 7): an empty input says that nothing was read
# (exit 3), not HEALTHY; a log with no NCCL line says "cannot tell" with the
# rerun advice instead of "no failure found"; an input that cannot be read
# prints only the error, never an empty report before it.
. "$(dirname "$0")/lib.sh"
: >"$ND_TMP/empty.log"
printf 'starting server\nlistening on :8000\n' >"$ND_TMP/plain.log"
good="$ND_FIXTURES/logs/real-h200/torch-1rank-info.log"
for cmd in kernel logs; do
  run_nd $cmd /dev/null
  expect_rc 3 "$cmd /dev/null: not healthy"
  expect_err "nothing was read: '/dev/null' is empty" "$cmd /dev/null: says nothing was read"
  expect_no_out "HEALTHY|no failure found|^NCCL logs|^Kernel log" "$cmd /dev/null: no report"
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  timeout 60 "$ND_BIN" $cmd - <"$ND_TMP/empty.log" >"$OUT" 2>"$ERR"; RC=$?
  expect_rc 3 "$cmd: empty stdin"; expect_err "nothing was read: 'stdin' is empty|nothing was read: '<stdin>' is empty" "$cmd: empty stdin: says so"
  run_nd $cmd --json "$ND_TMP/empty.log"
  expect_rc 3 "$cmd --json: empty file"; json_check '"nothing was read" in d["error"]' "$cmd --json: the error says nothing was read"
  run_nd $cmd "$ND_TMP/missing.log"
  expect_rc 3 "$cmd: a missing file"
  expect_out "^Could not complete: cannot read '.*missing.log': no such file or directory" "$cmd: missing file: the error"
  if [ "$(wc -l <"$OUT")" -eq 1 ]; then ok "$cmd: missing file: only the error on stdout"; else not_ok "$cmd: missing file: a report before the error"; head -5 "$OUT" | sed 's/^/    out: /'; fi
done
run_nd logs "$ND_TMP/plain.log"
expect_rc 1 "logs without NCCL lines: a warning"
expect_out "^NCCL logs: 1 file, 2 lines: cannot tell — no NCCL lines; rerun the job with 'd=\\\$\\(mktemp -d\\) && NCCL_DEBUG=INFO NCCL_DEBUG_FILE=\\\$d/nccl\\.%h\\.%p CMD' and run 'nccl-doctor logs \\\$d'\$" "logs without NCCL lines: cannot tell, with the rerun advice (a private directory)"
expect_no_out "no failure found" "logs without NCCL lines: no 'no failure found'"
run_nd logs "$good" "$ND_TMP/missing.log"
expect_rc 3 "logs: a good log and a missing one"
if [ "$(wc -l <"$OUT")" -eq 1 ]; then ok "logs: good + missing: only the error"; else not_ok "logs: good + missing: a report too"; fi
run_nd logs "$good"
expect_no_out "cannot tell" "a real NCCL log is not 'cannot tell'"
# no NCCL line, but a cause ranked with its evidence (a health check's bandwidth
# line and the command that set NCCL_TOPO_FILE): the headline names it
printf '%s\n' "ERROR:  nhc:  Health check failed:  check_nccl_allreduce: NCCL allreduce, BUS BW (expected >=431.0 GB/s, but measured 15.1043 GB/s). FaultCode: NHC2010" \
  "root@vm:/azure-nhc# mpirun -np 8 -x NCCL_SOCKET_IFNAME=eth0 -x NCCL_TOPO_FILE=/azure-nhc/topofiles/ndv5-topo.xml /opt/nccl-tests/build/all_reduce_perf -b 16G" >"$ND_TMP/nhc.log"
run_nd logs "$ND_TMP/nhc.log"
expect_out "^NCCL logs: 1 file, 2 lines, none from NCCL: most likely .*\\[nccl_config_error\\]" "no NCCL line, a cause ranked: the headline names it"
expect_no_out "cannot tell" "no NCCL line, a cause ranked: not 'cannot tell'"
finish
