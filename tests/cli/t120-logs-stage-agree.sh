#!/usr/bin/env bash
# Issue 10 item 9: the stage of a rank in the rank table and in the hang
# finding are the same; a rank whose transports were connected during init
# (stage T9, init complete) is said to wait in T10 beside it, not to have
# stopped at T10.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
L="$ND_FIXTURES/logs"
for log in constructed/pcie-p2p-watchdog.log constructed/vllm-tp2-pcie-hang-ctrl-c.log; do
  run_nd --json logs "$L/$log"
  json_check "any(f['id'].startswith('LOG_HANG') for f in d['findings'])" "$log: a hang finding"
  json_check "(lambda m: len(m) > 0 and all(m))([('stopped at %s ' % r['stage']) in e['text'] or ('stopped at %s;' % r['stage']) in e['text'] for r in d['ranks'] for f in d['findings'] if f['id'].startswith('LOG_HANG') for e in f['evidence'] if ('rank %d (%s:%d)' % (r['rank'], r['host'], r['pid'])) in e['text']])" \
    "$log: each rank's 'stopped at' is its stage in the rank table"
  run_nd logs "$L/$log"
  expect_no_out "stopped at T10 \(transports were connected" "$log: no 'stopped at T10' for a rank the table shows at T9"
done
run_nd logs "$L/constructed/pcie-p2p-watchdog.log"
expect_out "rank 0 \(gpu-box:7001\) stopped at T9 \(transports were connected during init: it waits in T10\)" "watchdog: T9, waiting in T10"
expect_out "the slowest rank stopped at T9 init complete with every transport connected, so it waits in T10 first collective" "watchdog: the title says both"
finish
