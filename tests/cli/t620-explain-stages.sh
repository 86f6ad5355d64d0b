#!/usr/bin/env bash
# explain knows the words of the reports: T0..T10, the stages of NCCL's
# start-up timeline that `logs` and `watch` show per rank, each explained
# (what the log shows there, what a run that stops there means), never a
# word-search hit on some signature.
. "$(dirname "$0")/lib.sh"

for i in 0 1 2 3 4 5 6 7 8 9 10; do
  run_nd explain "T$i"
  expect_rc 0 "explain T$i"
  expect_out "^stage T$i\$" "T$i: the stage itself, not a word search"
  expect_out "a run that stops here +stopped" "T$i: what a run that stops there means"
  run_nd --json explain "T$i"
  json_check "len(d['entries']) == 1 and d['entries'][0]['kind'] == 'stage' and d['entries'][0]['id'] == 'T$i' and 'matches' not in d" "T$i --json: one stage entry"
done
run_nd explain t7
expect_out 'transports connected' "t7: any case"
expect_out 'P2P, SHM \(/dev/shm\), proxy or cuMem' "T7: stopping there points at transport set-up"
run_nd explain T10
expect_out 'first collective' "T10: the first collective"
run_nd --json explain --list --kind stage
json_check '[e["id"] for e in d["entries"]] == ["T%d" % i for i in range(11)]' "--list --kind stage: T0..T10"
run_nd explain T11
expect_no_out '^stage T11' "T11 is no stage"
finish
