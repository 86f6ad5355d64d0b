#!/usr/bin/env bash
# --timeout takes finite seconds in (0, 86400] only (issue 10 item 4): nan,
# inf and 1e30 would let a hung NVML hang `topo` for ever; each is a usage
# error (64) before any work, for every command.
. "$(dirname "$0")/lib.sh"
for v in nan NaN inf -inf infinity 1e30 86401 0 -1 '' 5s abc 0x; do
  for cmd in sys topo kernel; do
    run_nd --timeout "$v" $cmd
    expect_rc 64 "--timeout '$v' $cmd"
  done
  expect_err "option '--timeout' expects a number of seconds" "--timeout '$v': says what it wants"
done
# the option after the command name too
run_nd sys --timeout inf; expect_rc 64 "sys --timeout inf"
for v in 0.5 20 86400; do
  run_nd --timeout "$v" explain 79; expect_rc 0 "--timeout $v accepted"
done
finish
