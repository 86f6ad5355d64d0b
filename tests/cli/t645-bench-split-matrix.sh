#!/bin/bash
# `bench` with nccl-tests 2.19's NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT
# (the ranks split into groups by color, each group its own communicator
# from ncclCommSplit, all at once: rows of rank 0's group, every rank's
# time, "Group" per rank) and NCCL_TESTS_ALLTOALLV_MATRIX_FILE (alltoallv's
# bytes per pair from a file, checked right; every bad file one line and
# exit 64), and -I's per-iteration statistics in --json, on the fake stack.
. "$(dirname "$0")/lib.sh"
use_fake_gpus
SC="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"

# --- split: two groups of two (rank & 1), text and -J -----------------------
NCCL_TESTS_SPLIT_MASK=0x1 run_nd bench all_reduce -g 4 -b 8 -e 4K -f 512 -J "$ND_TMP/s.json"
expect_rc 0 "NCCL_TESTS_SPLIT_MASK=0x1 on 4 ranks: runs"
expect_out '^#  Rank  0 Group  0 Pid' "rank 0 in group 0"
expect_out '^#  Rank  3 Group  1 Pid' "rank 3 in group 1 (3 & 1)"
expect_out '^ +4096 +1024 +float +sum +-1( +[0-9.]+){3} +0( +[0-9.]+){3} +0$' "rows of a group: right results"
expect_out '^# nccl-doctor: rank 1 device 1 NCCL [0-9.]+ init [0-9.]+ s transports P2P/IPC->3$' "rank 1's transports: its group's peer, as a rank of the run"
expect_out "^# nccl-doctor: NCCL_TESTS_SPLIT: 2 groups of ranks ran at once, each its own communicator \\(ncclCommSplit\\); the rows are group 0's \\(2 ranks\\)" "the split said"
# all_reduce in a communicator of 2: busbw = algbw x 2(2-1)/2
OUT="$ND_TMP/s.json" json_check "[x['group'] for x in d['config']['devices']] == [0, 1, 0, 1] and all(r[k]['nwrong'] == 0 and abs(r[k]['bus_bw'] - r[k]['alg_bw']) <= 0.011 for r in d['results'] for k in ('out_of_place', 'in_place'))" \
  "-J: each rank's group; busbw with the 2 ranks of a communicator"

# --- split by NCCL_TESTS_SPLIT, a ring in each group; what is refused -------
# (a matrix file is read by alltoallv only, as in nccl-tests: a bad one here is not read)
printf '1 2\n3 4 5\n' >"$ND_TMP/ragged"
NCCL_TESTS_ALLTOALLV_MATRIX_FILE="$ND_TMP/ragged" NCCL_TESTS_SPLIT="DIV 2" run_nd --json bench sendrecv -g 4 -b 1K -e 1K
json_check "d['bench']['complete'] and [r['group'] for r in d['facts']['bench']['ranks']] == [0, 0, 1, 1] and all(r[k]['wrong'] == 0 and r[k]['busbw'] == r[k]['algbw'] for r in d['bench']['rows'] for k in ('out_of_place', 'in_place'))" \
  "NCCL_TESTS_SPLIT='DIV 2' sendrecv: groups 0,0,1,1 in facts, right in each group; the matrix file not read"
NCCL_TESTS_SPLIT="XOR 1" run_nd bench -g 4 -b 8 -e 8
expect_rc 64 "NCCL_TESTS_SPLIT='XOR 1': usage error"
expect_err "^nccl-doctor bench: NCCL_TESTS_SPLIT is not AND\|OR\|MOD\|DIV N" "XOR: says what it takes"
NCCL_TESTS_SPLIT_MASK=1 run_nd bench broadcast -g 4 -b 8 -e 8 -r 2
expect_rc 64 "-r 2 with groups of 2: usage error"
expect_err "^nccl-doctor bench: -r 2: there are only 2 ranks in the smallest group" "-r beyond a group: said"
sed 's/"nccl_version": 22803/"nccl_version": 21703/' "$SC/nvlink8.json" >"$ND_TMP/nccl-2.17.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/nccl-2.17.json" NCCL_TESTS_SPLIT="MOD 2" run_nd bench -g 2 -b 8 -e 8
[ "$RC" -ne 0 ] && grep -q 'NCCL_TESTS_SPLIT needs ncclCommSplit (NCCL 2.18+); NCCL 2.17.3 has none' "$OUT" "$ERR" &&
  ok "NCCL 2.17: no ncclCommSplit, the rank says so (exit $RC)" || not_ok "NCCL 2.17 split: exit $RC"

# --- alltoallv's traffic matrix ---------------------------------------------
# rows send 448 224 512 320 bytes, columns receive 352 512 416 224: the most
# a rank sends or receives is 512 (nccl-tests' AlltoAllvComputeMaxCounts)
M="$ND_TMP/matrix.txt"
printf '0 128 256 64\n96 0 32 96\n\n160 352 0 0\t\n96 32 128 64\n' >"$M"
NCCL_TESTS_ALLTOALLV_MATRIX_FILE="$M" run_nd --json bench alltoallv -g 4 -b 1K -e 1K --timer event
expect_rc 0 "a 4x4 matrix on 4 ranks: runs"
json_check "[(r['size'], r['count']) for r in d['bench']['rows']] == [(512, 0)] and d['bench']['rows'][0]['out_of_place']['wrong'] == 0 and d['bench']['rows'][0]['in_place']['wrong'] is None and abs(d['bench']['rows'][0]['out_of_place']['algbw'] - 512 / 1e3 / d['bench']['rows'][0]['out_of_place']['time_us']) < 1e-6" \
  "matrix: size 512 (the largest row or column), count 0, right, algbw from 512 B"
# with NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 nccl-tests 2.19.6's per-rank lines
# (alltoallv.cu, AlltoAllvPrintRankBandwidths), printed where its getBw prints
# them: inside the row, before each cell, with that cell's time
NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 NCCL_TESTS_ALLTOALLV_MATRIX_FILE="$M" NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=2 \
  run_nd bench alltoallv -g 2 -b 1K -e 1K --host-check
row=$(sed -n '/^ *256 /,/N\/A$/p' "$OUT" | tr '\n' '|')
[[ "$row" =~ ^\ +256\ +0\ +float\ +none\ +-1(\#[^|]*\|){3}(\ +[0-9.]+){3}\ +0(\#[^|]*\|){3}(\ +[0-9.]+){3}\ +N/A\|$ ]] &&
  ok "matrix x 2 on 2 ranks: its 2x2 corner, right on the host; the summary inside the row, before each cell" || not_ok "row with the summary: $row"
python3 -S - "$OUT" <<'PY' && ok "summary: nccl-tests' lines; each cell's time; the 2x2 corner's bytes (0 256 / 192 0); alg_bw the larger over the time" || not_ok "summary lines"
import re, sys
t = open(sys.argv[1]).read()
heads = re.findall(r"# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=matrix nranks=2 matrix_dim=4 scale=2\.000 time_usec=([0-9]+\.[0-9]{2})\n"
                   r"#   rank=0 send_bytes=256 recv_bytes=192 alg_bw=([0-9.]+) bus_bw=([0-9.]+)\n"
                   r"#   rank=1 send_bytes=192 recv_bytes=256 alg_bw=([0-9.]+) bus_bw=([0-9.]+)\n +([0-9.]+) ", t)
assert len(heads) == 2, heads
for us, a0, b0, a1, b1, cell in heads:
    assert us == cell, (us, cell)
    alg = 256 / 1e3 / float(us)
    assert a0 == a1 == "%.2f" % alg and b0 == b1 == "%.2f" % (alg / 2), (a0, b0, alg)
PY
expect_out "^# nccl-doctor: alltoallv: the bytes of each pair of ranks from NCCL_TESTS_ALLTOALLV_MATRIX_FILE '.*matrix.txt' \\(4x4, its top-left corner\\)$" "the matrix file said"
# the generated pattern: total_bytes is count x ranks x 4, every rank sends
# and receives the row's size (the pattern is balanced); no summary unless set
NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 NCCL_TESTS_ALLTOALLV_SPREAD=0.5 run_nd bench alltoallv -g 4 -b 4K -e 4K
expect_out '^ +4080 +256 +float +none +-1# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=generated nranks=4 total_bytes=4096 spread=0\.500 time_usec=[0-9]+\.[0-9][0-9]$' \
  "generated: the mode line after the row's first columns"
[ "$(grep -c '^#   rank=[0-3] send_bytes=4080 recv_bytes=4080 alg_bw=[0-9.]* bus_bw=[0-9.]*$' "$OUT")" = 8 ] &&
  ok "generated: each rank's line, for each cell" || not_ok "generated: rank lines"
NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=0 run_nd bench alltoallv -g 2 -b 1K -e 1K
expect_no_out 'PRINT_SUMMARY' "NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=0: no summary"

# bad files and rules: one line each, exit 64, before any rank starts
printf '16 16\n16 x\n' >"$ND_TMP/word"
printf '16 16\n16 16\n' >"$ND_TMP/two"
printf '0 1e19 0 0\n%s\n%s\n%s\n' '0 0 0 0' '0 0 0 0' '0 0 0 0' >"$ND_TMP/huge"
: >"$ND_TMP/empty"
while IFS='|' read -r file args why; do
  NCCL_TESTS_ALLTOALLV_MATRIX_FILE="$file" run_nd bench alltoallv -g 4 $args
  if [ "$RC" -eq 64 ] && [ "$(wc -l <"$ERR")" -eq 1 ] && grep -q "^nccl-doctor bench: NCCL_TESTS_ALLTOALLV_MATRIX_FILE '.*': .*$why" "$ERR"; then
    ok "matrix: $why (one line, exit 64)"
  else
    not_ok "matrix '$file' $args: exit $RC, wanted 64 and one line with '$why'"; sed 's/^/    err: /' "$ERR" | head -3
  fi
done <<EOF
$ND_TMP/ragged|-b 1K -e 1K|line 2 has 3 values
$ND_TMP/word|-b 1K -e 1K|line 2, value 2: 'x' is not a non-negative number
$ND_TMP/two|-b 1K -e 1K|2x2, smaller than the 4 ranks
$ND_TMP/empty|-b 1K -e 1K|empty
$ND_TMP/nothere|-b 1K -e 1K|nothere
/dev/zero|-b 1K -e 1K|device
$M|-b 1K -e 4K|-b and -e must be equal
$M|-b 400 -e 400|-e 400 is less than the 512 bytes a rank sends or receives
$ND_TMP/huge|-b 1K -e 1K|-e 1024 is less than the 10000000000000000000 bytes rank 0 sends rank 1
EOF

# --- --json with -I: the per-iteration statistics of each cell (the schema:
# t902's bench-per-iter case) ----------------------------------------------
run_nd --json bench all_reduce -g 2 -b 8 -e 64 -f 8 -n 4 -I 1 -K 1
json_check "all(len(r[k]['per_iter']['times_us']) == 4 and r[k]['per_iter']['skipped_iterations'] == 1 and r[k]['per_iter']['min_us'] <= r[k]['per_iter']['p50_us'] <= r[k]['per_iter']['max_us'] and len(r[k]['per_iter']['per_process_max_times_us']) == 2 and r[k]['per_iter']['times_us'] == [max(x) for x in zip(*r[k]['per_iter']['per_process_max_times_us'])] for r in d['bench']['rows'] for k in ('out_of_place', 'in_place'))" \
  "--json -I 1 -K 1: per_iter in each cell, 4 times, the slowest rank's"
finish
