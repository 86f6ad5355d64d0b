#!/bin/bash
# `bench` gather, scatter, alltoallv, hypercube (nccl-tests 2.19's other four
# operations) and NCCL 2.28's own ncclAlltoAll/ncclGather/ncclScatter on the
# fake GPU stack: results checked right element by element (on the GPU's
# check kernels and on the host), nccl-tests' byte counts and busbw factors,
# the native call where the library has it (2.28.3) and grouped send/recv
# where it does not (2.27.3), a corrupted result caught, a hang in each new
# operation ending with its phase and ranks, hypercube's power-of-two rule.
. "$(dirname "$0")/lib.sh"
use_fake_gpus
SC="$ND_FIXTURES/fakegpu"
derive() { # FIXTURE PYDICT NAME [TOP]: NAME.json with extra faults (TOP: top-level keys), in use
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); (d if sys.argv[4] else d.setdefault("faults", {})).update(eval(sys.argv[2])); json.dump(d,open(sys.argv[3],"w"))' \
    "$SC/$1.json" "$2" "$ND_TMP/$3.json" "${4:-}"
  export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/$3.json"
}
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"

# the byte counts and formulas, as nccl-tests 2.19's *GetCollByteCount and
# *GetBw (alltoallv: the distance-weighted pattern, spread 1)
FORMULAS='
def a2av(i, j, n, total):
    if n == 1: return total & ~15
    dist = (j - i + n) % n
    return int(dist * total / (n * (n - 1) / 2)) & ~15
def want(op, n, r):
    c = r["count"]
    if op in ("gather", "scatter"): return c * 4 * n, (n - 1) / n
    if op == "hypercube": return c * 4 * (n - 1), 1.0
    return sum(a2av(0, j, n, c * 4 * n) for j in range(n)), (n - 1) / n
def good(d, op, n, inplace_checked=True):
    rows = d["bench"]["rows"]
    ok = d["bench"]["complete"] and len(rows) > 0 and d["bench"]["out_of_bounds"] == 0
    for r in rows:
        b, f = want(op, n, r)
        for k in ("out_of_place", "in_place"):
            c = r[k]
            if k == "in_place" and not inplace_checked:
                ok = ok and c["wrong"] is None
            else:
                ok = ok and c["wrong"] == 0
            ok = ok and abs(c["algbw"] - b / 1e9 / (c["time_us"] * 1e-6)) <= 1e-6 * c["algbw"] + 1e-12
            ok = ok and abs(c["busbw"] - c["algbw"] * f) < 1e-9
    return ok
'
n=4
for op in gather scatter alltoallv hypercube; do
  run_nd --json bench "$op" -g "$n" -b 1K -e 1M -f 32 --timer event -r $((n - 1))
  expect_rc 0 "$op on $n ranks"
  ip=True; [ "$op" = alltoallv ] && ip=False
  json_check "exec(compile('''$FORMULAS''', 'f', 'exec'), globals()) or good(d, '$op', $n, $ip)" \
    "$op/$n: every element right, nccl-tests' bytes and busbw factor"
done
# the size column: nccl-tests prints the larger of the send and receive
# buffers, alltoallv's the pattern's total (16-byte chunks)
json_check "[r['size'] for r in d['bench']['rows']] == [r['count'] * 4 * 4 for r in d['bench']['rows']]" "hypercube/4: size = count x 4 B x 4 ranks"
run_nd --json bench alltoallv -g 4 -b 1K -e 1K
json_check "exec(compile('''$FORMULAS''', 'f', 'exec'), globals()) or d['bench']['rows'][0]['size'] == sum(a2av(0, j, 4, 1024) for j in range(4))" \
  "alltoallv: size is the pattern's total per rank"
NCCL_TESTS_ALLTOALLV_SPREAD=0 run_nd --json bench alltoallv -g 4 -b 1K -e 1K
json_check "d['bench']['rows'][0]['size'] == 1024 and d['bench']['rows'][0]['out_of_place']['wrong'] == 0" "NCCL_TESTS_ALLTOALLV_SPREAD=0: uniform, 1024 B, right"
NCCL_TESTS_ALLTOALLV_SPREAD=x run_nd bench alltoallv -g 4
expect_rc 64 "NCCL_TESTS_ALLTOALLV_SPREAD=x: usage error"

# every root in turn (-r -1), and the host check
run_nd --json bench gather -g 4 -b 4K -e 4K -r -1
json_check "[r['root'] for r in d['bench']['rows']] == [0, 1, 2, 3] and all(r['out_of_place']['wrong'] == 0 and r['in_place']['wrong'] == 0 for r in d['bench']['rows'])" "gather -r -1: each root, right"
for op in gather scatter alltoallv hypercube; do
  run_nd --json bench "$op" -g 4 -b 1K -e 64K -f 64 --host-check
  json_check "d['bench']['checked_on'] == 'host' and d['bench']['out_of_bounds'] == 0 and all(r['out_of_place']['wrong'] == 0 for r in d['bench']['rows'])" "$op --host-check: right on the host"
done

# NCCL's own calls (2.28.3), and grouped send/recv below 2.28
for op in alltoall gather scatter; do
  native=$(python3 -c "print({'alltoall': 'ncclAlltoAll', 'gather': 'ncclGather', 'scatter': 'ncclScatter'}['$op'])")
  export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"
  if [ "$op" = alltoall ]; then
    run_nd bench "$op" -g 4 -b 1K -e 16K -f 4
    expect_out "^# nccl-doctor: $op ran as $native \\(NCCL's own, 2.28\\+\\)$" "$op on 2.28.3: $native"
  fi
  run_nd --json bench "$op" -g 4 -b 1K -e 16K -f 4
  json_check "d['facts']['bench']['entry'] == '$native' and d['bench']['out_of_bounds'] == 0" "$op on 2.28.3: entry $native in JSON, right"
  derive nvlink8 '{"nccl_version": 22703}' nccl-2.27 top
  run_nd bench "$op" -g 4 -b 1K -e 16K -f 4
  expect_rc 0 "$op on 2.27.3: runs"
  expect_out "^# nccl-doctor: $op ran as grouped ncclSend/ncclRecv \\(the loaded NCCL has no $native: 2.28\\+\\)$" "$op on 2.27.3: grouped send/recv, said"
  expect_out '^# Out of bounds values : 0 OK$' "$op on 2.27.3: right"
done
run_nd --json bench sendrecv -g 2 -b 1K -e 1K
json_check "'entry' not in d['facts']['bench']" "sendrecv: no entry (no choice)"

# a corrupted result on GPU 2: gather to root 2 and scatter to rank 2 see it
derive nvlink8 '{"nccl_corrupt": [2]}' corrupt-2
for op in gather scatter alltoallv hypercube; do
  run_nd bench "$op" -g 4 -b 4K -e 4K -r 2
  expect_rc 2 "$op, GPU 2 corrupts: exit 2"
  expect_out '^# Out of bounds values : [1-9][0-9]* FAILED$' "$op, GPU 2 corrupts: FAILED"
done

# a hang in each new operation (P2P between GPUs 0 and 1 from 64 KiB per
# call on: the 64 KiB size, or 256 KiB where each peer gets a quarter):
# the four runs side by side (each waits ~ -T + 5 s for the parent's
# stage deadline), then each names the size, op, phase and ranks
derive nccl-p2p-hang '{"nccl_p2p_hang_min_bytes": 65536}' p2p-hang-64k
for op in gather scatter alltoallv hypercube; do
  (timeout 60 "$ND_BIN" bench "$op" -g 4 -b 16K -e 256K -f 4 -T 1 -r 1 >"$ND_TMP/hang-$op.out" 2>&1; echo $? >"$ND_TMP/hang-$op.rc") &
done
wait
for op in gather scatter alltoallv hypercube; do
  rc=$(cat "$ND_TMP/hang-$op.rc")
  [ "$rc" = 2 ] && ok "$op hang: exit 2" || not_ok "$op hang: exit $rc"
  if grep -qE "^# nccl-doctor: HANG\\(size (65536|262144) of op $op warm-up\\): ranks [0-9,]+ (\\(|had not finished)" "$ND_TMP/hang-$op.out" &&
     grep -qE '^ +1[0-9]{4} +[0-9]+ +float ' "$ND_TMP/hang-$op.out"; then
    ok "$op hang: the ~16 KiB row stays, HANG names size, op, phase and ranks"
  else
    not_ok "$op hang: no HANG line"; grep '^# nccl-doctor' "$ND_TMP/hang-$op.out" | head -5 | sed 's/^/    out: /'
  fi
done
sleep 0.2
[ -z "$(own_workers)" ] && ok "hangs: no rank process left" || not_ok "hangs: rank processes left: $(own_workers)"

# hypercube: 2^k ranks
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"
run_nd bench hypercube -g 3
expect_rc 64 "hypercube on 3 ranks: usage error"
expect_err "power-of-two number of ranks, not 3" "hypercube on 3 ranks: says why"
run_nd bench hypercube_perf -g 8 -b 8K -e 8K
expect_rc 0 "hypercube_perf on 8 ranks (nccl-tests' binary name)"
finish
