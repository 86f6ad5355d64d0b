#!/bin/bash
# `bench` on the fake GPU stack: every operation on 2, 4 and 8 ranks checked
# against the busbw formulas and the fake NCCL's modelled time (--timer
# event), nccl-tests' text read by scrapers written for nccl-tests, a rank
# that hangs in init, a P2P hang at one size (partial table), a corrupted
# result (#wrong, FAILED, exit 2), -J, NCCL_TESTS_MIN_BW, no GPU, bad usage.
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
TAG="t600-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-*' EXIT
scenario() { export NCCL_DOCTOR_FAKEGPU_SCENARIO="$1"; }
# derive NAME.json from a fixture with extra faults (a Python dict literal)
derive() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{}).update(eval(sys.argv[2])); json.dump(d,open(sys.argv[3],"w"))' \
    "$SC/$1.json" "$2" "$ND_TMP/$3.json"
  scenario "$ND_TMP/$3.json"
}
# our worker processes still alive (found by the tag in their environment)
leftovers() {
  local n=0 p
  for p in /proc/[0-9]*; do
    if grep -qa "NCCL_DOCTOR_FAKEGPU_SHM_TAG=$TAG" "$p/environ" 2>/dev/null && grep -qa "__worker" "$p/cmdline" 2>/dev/null; then
      n=$((n + 1))
    fi
  done
  echo "$n"
}

# --- every op on 2, 4, 8 ranks: formulas and the modelled time ----------------
# nvlink8: every pair NV18 behind NVSwitches, 18 x 20 GB/s = 360 GB/s per link.
# Fake time of a collective: wire bytes / 360e9 + 10 us x (n-1) + 5 us, wire
# bytes: all_reduce 2(n-1)/n S, all_gather and reduce_scatter (n-1) x per-rank
# bytes, broadcast and reduce S; send and recv 5 us + bytes / bw each.
scenario "$SC/nvlink8.json"
for n in 2 4 8; do
  for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
    run_nd --json bench "$op" -g "$n" -b 1K -e 4M -f 16 --timer event -r $((n - 1))
    expect_rc 0 "$op on $n ranks"
    # the checks of one run in one python3 (json_checks), the modelled time's last
    case $op in
      all_reduce|all_gather|reduce_scatter|broadcast|reduce)
        timecheck=("
(lambda n, op: all(
  abs(c['time_us'] - (({'all_reduce': 2*(n-1)/n * r['size'], 'all_gather': (n-1) * r['count'] * 4, 'reduce_scatter': (n-1) * r['count'] * 4}.get(op, r['size'])) / 360e9 * 1e6 + 10 * (n-1) + 5)) < 1e-3
  for r in d['bench']['rows'] for c in (r['out_of_place'], r['in_place'])))($n, '$op')" "$op/$n: time is the fake NCCL's modelled time");;
      sendrecv)
        timecheck=("all(abs(c['time_us'] - (2 * r['size'] / 360e9 * 1e6 + 10)) < 1e-3 for r in d['bench']['rows'] for c in (r['out_of_place'], r['in_place']))" "sendrecv/$n: time is two modelled P2P transfers");;
      *) timecheck=();;
    esac
    json_checks "len(d['bench']['rows']) == 4 and d['bench']['complete'] and d['bench']['out_of_bounds'] == 0" "$op/$n: 4 rows, complete, nothing wrong" \
      "
all(c['wrong'] == 0 for r in d['bench']['rows'] for c in (r['out_of_place'], r['in_place']))" "$op/$n: every element checked right" \
      "
(lambda n, op: all(
  abs(c['busbw'] - c['algbw'] * {'all_reduce': 2*(n-1)/n, 'all_gather': (n-1)/n, 'reduce_scatter': (n-1)/n, 'alltoall': (n-1)/n}.get(op, 1.0)) < 1e-9
  and abs(c['algbw'] - r['count'] * 4 * (n if op in ('all_gather', 'reduce_scatter', 'alltoall') else 1) / 1e9 / (c['time_us'] * 1e-6)) < 1e-6 * c['algbw'] + 1e-12
  for r in d['bench']['rows'] for c in (r['out_of_place'], r['in_place'])))($n, '$op')" "$op/$n: busbw = algbw x factor, algbw = bytes / time" \
      "${timecheck[@]}"
  done
done
json_checks "not any(f['id'] == 'BENCH_TRANSPORT_VIA_HOST' for f in d['findings'])" "NVLink everywhere: no link through the host" \
  "all(r['transports'] == 'P2P/IPC->' + str((r['rank'] + 1) % 8) and r['nccl'] == '2.28.3' and r['init_s'] >= 0 for r in d['facts']['bench']['ranks'])" "per rank: NCCL version, init time, the transport NCCL printed"

# --- --threads: every rank a thread of one process (as nccl-tests without MPI)
for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
  run_nd --json bench "$op" --threads -g 4 -b 1K -e 1M -f 32
  expect_rc 0 "--threads: $op on 4 ranks"
  json_check "
(lambda n, op: d['bench']['complete'] and len(d['bench']['rows']) == 3 and
  len(set(r['pid'] for r in d['facts']['bench']['ranks'])) == 1 and
  all(c['wrong'] == 0 and abs(c['busbw'] - c['algbw'] * {'all_reduce': 2*(n-1)/n, 'all_gather': (n-1)/n, 'reduce_scatter': (n-1)/n, 'alltoall': (n-1)/n}.get(op, 1.0)) < 1e-9
      for r in d['bench']['rows'] for c in (r['out_of_place'], r['in_place'])))(4, '$op')" "--threads $op: one process, every element right, busbw = algbw x factor"
done
json_check "[r['transports'] for r in d['facts']['bench']['ranks']] == ['P2P/IPC->1', 'P2P/IPC->2', 'P2P/IPC->3', 'P2P/IPC->0']" "--threads: each rank's transport from the process's NCCL lines"
run_nd bench -t 2 -g 2 -b 8 -e 8
expect_rc 0 "-t 2 -g 2: four ranks"
expect_out '^# nThread 2 nGpus 2 ' "-t 2 -g 2: header as nccl-tests"
expect_out '^#  Rank  3 Group  0 ' "-t 2 -g 2: rank 3 listed"

# --- nccl-tests' text, read the way scrapers read it ------------------------------
scenario "$SC/pcie4.json"
run_nd bench all_reduce -g 4 -b 8 -e 1M -f 4
expect_rc 0 "text: all_reduce on 4 ranks"
expect_out '^# Out of bounds values : 0 OK$' "text: out-of-bounds footer"
expect_out '^# Avg bus bandwidth    : [0-9.]+(e[-+][0-9]+)? $' "text: bus bandwidth footer, trailing space as nccl-tests"
expect_out '^# Collective test concluded: all_reduce_perf$' "text: concluded line"
expect_out '^#  Rank  3 Group  0 Pid +[0-9]+ on +[^ ]+ device  3 \[0000:14:00\] NVIDIA H100 PCIe$' "text: device line of rank 3"
expect_out '^# nccl-doctor: through host memory or the network, not GPU to GPU: 1->2 SHM/direct/direct, 3->0 SHM/direct/direct$' "text: the links through host memory are named (PHB pairs at the default P2P level)"
expect_rc 0 "text: that is information, not a problem"
last=$(awk '/Avg bus bandwidth/ {print $NF}' "$OUT")   # FlagPerf, superbench style
f6=$(awk '/# Avg bus bandwidth/ {print $6}' "$OUT")    # field 6 with awk splitting
py=$(python3 -c 'import re,sys; m=re.search(r"^#\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+)", open(sys.argv[1]).read(), re.M); print(m.group(1) if m else "")' "$OUT")
rows=$(python3 -c '
import sys
n = 0
for l in open(sys.argv[1]):
    if l.startswith("#") or not l.strip():
        continue
    f = l.split()
    assert len(f) == 13, l
    int(f[0]); int(f[1]); float(f[5]); float(f[6]); float(f[7]); int(f[8]); float(f[9]); int(f[12])
    n += 1
print(n)' "$OUT" 2>&1)
if [ -n "$py" ] && [ "$last" = "$py" ] && [ "$f6" = "$py" ] && python3 -c "import sys; sys.exit(0 if float('$py') > 0 else 1)"; then
  ok "scrapers read the average bus bandwidth ($py)"; else not_ok "scrapers disagree: last='$last' f6='$f6' regex='$py'"; fi
if [ "$rows" = 9 ]; then ok "table: 9 rows of 13 fields"; else not_ok "table rows: $rows"; fi

# --- -o all, -d all, -r -1: the loops of nccl-tests, in its order ----------------
run_nd bench all_reduce -g 3 -b 1K -e 4K -f 4 -o all -d int32
expect_rc 0 "-o all: every reduction checked"
if [ "$(awk '!/^#/ && NF == 13 {printf "%s/%s ", $4, $1}' "$OUT")" = "sum/1024 sum/4096 prod/1024 prod/4096 max/1024 max/4096 min/1024 min/4096 avg/1024 avg/4096 " ]; then
  ok "-o all: rows by reduction, then size"; else not_ok "-o all rows: $(awk '!/^#/ && NF == 13 {printf "%s/%s ", $4, $1}' "$OUT")"; fi
run_nd --json bench reduce -g 3 -b 1K -e 1K -o max -r -1
expect_rc 0 "-r -1: every root"
json_check "[(r['redop'], r['root']) for r in d['bench']['rows']] == [('max', 0), ('max', 1), ('max', 2)] and d['bench']['out_of_bounds'] == 0" "-r -1: one row per root, checked on each root"
run_nd bench broadcast -g 2 -b 1K -e 1K -d all
expect_rc 2 "-d all: the fake NCCL has no half: a rank fails"
expect_out '^ +1024 +128 +uint64 +none +0 ' "-d all: the integer types before it ran, in nccl-tests' order"
expect_out 'FAILED\(size 1024 of op broadcast warm-up\)' "-d all: the failure names its phase"

# --- --algo: NCCL's algorithm and protocol per size (its TUNING lines) -------------
run_nd bench all_reduce -g 2 -b 8 -e 4M -f 4 --algo
expect_rc 0 "--algo"
expect_out '^# nccl-doctor: algorithm/protocol \(NCCL.s choice\): 8\.\.32768 RING/LL; 131072\.\.524288 RING/LL128; 2097152\.\.2097152 RING/SIMPLE$' "--algo: runs of one algorithm/protocol by size"
run_nd --json bench all_reduce -g 2 -b 8 -e 4M -f 4 --algo
json_check "[d['bench']['rows'][i].get('algo') for i in (0, 7, 9)] == ['RING/LL', 'RING/LL128', 'RING/SIMPLE']" "--algo: rows carry algo in JSON"
run_nd bench all_reduce -g 2 -b 8 -e 4M -f 4
expect_no_out 'algorithm/protocol' "without --algo no per-call lines are asked for"

# --- a rank that hangs in init ------------------------------------------------
derive pcie4 '{"nccl_init_hang_rank": 1}' init-hang-1
t0=$(date +%s%N)
run_nd bench -g 2 -b 8 -e 64 -f 2 --deadline-init 2
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 2 "init hang: problem"
expect_out '^# nccl-doctor: HANG\(init\): ranks 0,1 had not finished' "init hang: HANG(init), the ranks named"
expect_no_out 'Avg bus bandwidth' "init hang: no footer a scraper could take for a pass"
expect_out "^# nccl-doctor: rank 0's last NCCL line: .* NCCL INFO Bootstrap: Using lo" "init hang: the last NCCL line of the first rank that hung"
within 8000 "$ms" "init hang: over in time (deadline 2 s) (ms)"
if ls /dev/shm/fakenccl-$TAG-* >/dev/null 2>&1; then not_ok "init hang: a /dev/shm segment is left"; else ok "init hang: no /dev/shm segment left"; fi
sleep 0.2
if [ "$(leftovers)" = 0 ]; then ok "init hang: no rank process left"; else not_ok "init hang: $(leftovers) rank processes left"; fi
run_nd --json bench -g 2 -b 8 -e 64 -f 2 --deadline-init 2
json_check "d['findings'][0]['id'] == 'BENCH_HANG' and d['bench']['phase'] == 'init' and not d['bench']['complete']" "init hang: BENCH_HANG finding in JSON, phase init"

# the same in one process (--threads)
t0=$(date +%s%N)
run_nd bench --threads -g 2 -b 8 -e 64 -f 2 --deadline-init 2
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 2 "--threads init hang: problem"
expect_out '^# nccl-doctor: HANG\(init\): ranks 0,1 had not finished' "--threads init hang: HANG(init), both ranks"
within 8000 "$ms" "--threads init hang: over in time (ms)"
if ls /dev/shm/fakenccl-$TAG-* >/dev/null 2>&1; then not_ok "--threads init hang: a /dev/shm segment is left"; else ok "--threads init hang: no /dev/shm segment left"; fi

# --- a P2P hang from 64 KiB on: the partial table stays -----------------------
derive nccl-p2p-hang '{"nccl_p2p_hang_min_bytes": 65536}' p2p-hang-64k
t0=$(date +%s%N)
run_nd bench all_reduce -g 4 -b 1K -e 1M -f 4 -T 2
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 2 "P2P hang: problem"
expect_out '^ +16384 +4096 +float +sum +-1 ' "P2P hang: the rows before it stay printed"
expect_no_out '^ +65536 ' "P2P hang: no row for the size that hung"
expect_out '^# nccl-doctor: HANG\(size 65536 of op all_reduce warm-up\): ranks 0,1,2,3 had not finished' "P2P hang: HANG names size and op"
expect_out '^# nccl-doctor: rank 0 device 0 .*transports P2P/IPC->1' "P2P hang: rank 0's transport is P2P"
within 10000 "$ms" "P2P hang: over in time (-T 2) (ms)"
sleep 0.2
if [ "$(leftovers)" = 0 ]; then ok "P2P hang: no rank process left"; else not_ok "P2P hang: rank processes left"; fi
NCCL_P2P_DISABLE=1 run_nd bench all_reduce -g 4 -b 1K -e 1M -f 4 -T 2
expect_rc 0 "P2P hang avoided with NCCL_P2P_DISABLE=1"

# sendrecv with P2P hanging on the pair 0-1 only: those two ranks are named
# with their phase apart from the ranks that got further
derive pcie4 '{"nccl_p2p_hang": [[0, 1]], "nccl_p2p_hang_min_bytes": 4096}' p2p-hang-01
run_nd bench sendrecv -g 4 -b 1K -e 64K -f 4 -T 2
expect_rc 2 "sendrecv pair hang: problem"
expect_out '^ +1024 +256 +float +sum +-1 ' "sendrecv pair hang: the 1 KiB row is printed"
# sendrecv runs on a blocking communicator (see gpu/bench.c: polling a
# nonblocking one after every grouped call cost 170 us per call on the H200),
# so the parent's stage deadline ends the hang: ranks 0 and 1 (the pair) are
# stuck in the warm-up, and rank 2 with them (it waits for rank 1's send)
expect_out '^# nccl-doctor: HANG\(size 4096 of op sendrecv warm-up\): ranks 0,1(,2)? \(size 4096 of op sendrecv warm-up\)' "sendrecv pair hang: ranks 0,1 named stuck in the warm-up of 4 KiB"

# --- a corrupted result -------------------------------------------------------
derive pcie4 '{"nccl_corrupt": [1]}' corrupt-1
run_nd bench all_reduce -g 2 -b 1K -e 16K -f 4
expect_rc 2 "corrupted result: exit 2"
expect_out '^# Out of bounds values : 6 FAILED$' "corrupted result: FAILED footer (3 rows x 2 cells on rank 1)"
wrong=$(awk '!/^#/ && NF == 13 {s += $9 + $13} END {print s + 0}' "$OUT")
if [ "$wrong" -gt 0 ]; then ok "corrupted result: #wrong > 0 ($wrong)"; else not_ok "corrupted result: #wrong is $wrong"; fi
run_nd --json bench all_reduce -g 2 -b 1K -e 16K -f 4
json_check "any(f['id'] == 'BENCH_WRONG_RESULTS' for f in d['findings']) and d['bench']['out_of_bounds'] == 6" "corrupted result: BENCH_WRONG_RESULTS"
run_nd bench all_reduce -g 2 -b 1K -e 16K -f 4 -c 0
expect_rc 0 "corrupted result not checked with -c 0"
expect_out ' N/A$' "-c 0: #wrong is N/A"

# --- -J: nccl-tests' JSON -----------------------------------------------------
scenario "$SC/pcie4.json"
run_nd bench sendrecv -g 2 -b 8 -e 1K -f 8 -J "$ND_TMP/r.json"
expect_rc 0 "-J: sendrecv"
expect_out "^# Writing JSON output to $ND_TMP/r.json\$" "-J: says where, first, as nccl-tests"
run_nd bench sendrecv -g 2 -b 8 -e 1K -f 8 -J "$ND_TMP/r.json"
if python3 -c '
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    assert d["version"] == 3 and d["nccl_version"] == 22803 and len(d["results"]) == 3, p
    r = d["results"][0]
    assert r["size"] == 8 and r["redop"] == "sum" and r["root"] == "    -1" and r["out_of_place"]["nwrong"] == 0
    assert d["out_of_bounds"] == {"count": 0, "okay": "true"} and d["average_bus_bandwidth"]["okay"] == "unchecked"
    assert len(d["config"]["devices"]) == 2
' "$ND_TMP/r.json" "$ND_TMP/r.json.1"; then ok "-J: nccl-tests' schema; a second run writes FILE.1"; else not_ok "-J file wrong"; fi

# --- NCCL_TESTS_MIN_BW --------------------------------------------------------
NCCL_TESTS_MIN_BW=100000 run_nd bench -g 2 -b 1K -e 1K
expect_rc 2 "NCCL_TESTS_MIN_BW above the average: exit 2"
expect_out '^# Avg bus bandwidth    : [0-9.]+(e[-+][0-9]+)? FAILED$' "NCCL_TESTS_MIN_BW: FAILED on the footer"

# --- no GPU, usage --------------------------------------------------------------
unset NCCL_DOCTOR_FAKEGPU_SCENARIO
run_nd bench -b 8 -e 8
expect_rc 3 "no GPU: could not run"
expect_out '^# nccl-doctor: could not run: .*(cuInit|ncclGetVersion)' "no GPU: says why"
scenario "$SC/pcie4.json"
# nccl-tests' default of one rank, on 4 GPUs: kept, and said (busbw is 0)
run_nd bench -b 8 -e 8
expect_rc 0 "no -g on 4 GPUs: one rank, as nccl-tests"
expect_out '^# nccl-doctor: one rank measures no bus bandwidth .*4 GPUs are visible: -g 4 runs one rank on each' "no -g: the footer says one rank measures no busbw"
expect_err 'one rank measures no bus bandwidth; 4 GPUs are visible: -g 4' "no -g: and stderr"
run_nd --json bench -b 8 -e 8
json_check 'any(f["id"] == "BENCH_ONE_RANK" and f["severity"] == "info" for f in d["findings"])' "no -g: BENCH_ONE_RANK in the JSON"
run_nd bench -g 4 -b 8 -e 8
expect_no_out 'one rank measures' "-g 4: no such line"
run_nd bench -g 6 -b 8 -e 8 --deadline-init 2
expect_rc 3 "-g 6 on 4 GPUs: could not run"
expect_out '^# nccl-doctor: could not run: cuDeviceGet failed: invalid device ordinal' "-g 6 on 4 GPUs: the rank that failed by itself is named, not the ranks waiting for it"
# --gpus by bus id and UUID: the ranks run on exactly those GPUs, even when
# CUDA's ordinals are not NVML's (cuda_order reversed)
U1=GPU-fa4e0000-0000-4000-8000-000000000001
for sc in pcie4 reversed; do
  if [ "$sc" = reversed ]; then derive pcie4 '{}' rev; python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cuda_order"]=[3,2,1,0]; json.dump(d,open(sys.argv[1],"w"))' "$ND_TMP/rev.json"; fi
  run_nd bench --gpus "0000:13:00.0,$U1" -b 8 -e 8
  expect_rc 0 "--gpus bus id + UUID ($sc)"
  expect_out '^#  Rank  0 .* \[0000:04:00\]' "--gpus by UUID: rank 0 on GPU 1 ($sc)"
  expect_out '^#  Rank  1 .* \[0000:13:00\]' "--gpus by bus id: rank 1 on GPU 2 ($sc)"
done
run_nd bench --gpus 0000:13:00.0,GPU-1 -b 8 -e 8
expect_rc 3 "--gpus entry naming no GPU: could not run"
expect_err 'names none of the GPUs' "--gpus entry naming no GPU: says so"
unset NCCL_DOCTOR_FAKEGPU_SCENARIO
run_nd bench -b 8X
expect_rc 64 "bad size: usage"
run_nd bench allgatherv
expect_rc 64 "unknown op: usage"
run_nd bench -t 65
expect_rc 64 "-t 65: too many ranks"
run_nd bench -b 1M -e 8
expect_rc 64 "-b above -e: usage"
run_nd bench -h
expect_rc 0 "-h"
expect_out '^usage: nccl-doctor bench' "-h prints usage"
finish
