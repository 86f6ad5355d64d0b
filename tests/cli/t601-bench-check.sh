#!/bin/bash
# `bench` result checks on the GPU: the check kernels of src/gpu/bench_ptx.h
# (performed by the fake libcuda) count a corrupted result for every op
# and type the fake NCCL has, exactly as the host check does; --host-check
# and a module that does not load (fault module_error) fall back to the
# host, said once. Busy-node safety (a GPU another process holds stops the
# run, exit 3, unless --force) and the wedged GPU after a hang. -G N: the
# iterations captured in a CUDA graph and launched N times (the fake libcuda
# models a launch as the captured time again, plus 2 us).
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
TAG="t601-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-*' EXIT
derive() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{}).update(eval(sys.argv[2])); json.dump(d,open(sys.argv[3],"w"))' \
    "$SC/$1.json" "$2" "$ND_TMP/$3.json"
  export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/$3.json"
}
oob() { sed -n 's/^# Out of bounds values : \([0-9]*\) .*/\1/p' "$OUT"; }

# --- right results: every op, type and reduction, checked on the GPU ----------
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"
for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
  run_nd bench "$op" -g 3 -b 8 -e 64K -f 32 -o all -d int8 -r -1
  expect_rc 0 "$op int8, every reduction and root: right"
  for t in uint8 int32 uint32 int64 uint64 float double; do
    run_nd bench "$op" -g 3 -b 8 -e 4K -f 32 -o all -d "$t"
    [ "$RC" -eq 0 ] && [ "$(oob)" = 0 ] || not_ok "$op $t: exit $RC, out of bounds $(oob)"
  done
  ok "$op: uint8 .. double right on the GPU"
done
expect_out '^# nccl-doctor: results checked on the GPU \(check kernels\)$' "the output says the GPU checked"

# --- a corrupted result: the same count on the GPU and on the host -------------
derive pcie4 '{"nccl_corrupt": [1]}' corrupt-1
for op in all_reduce all_gather reduce_scatter broadcast alltoall sendrecv; do
  run_nd bench "$op" -g 2 -b 1K -e 16K -f 4 -d int32
  expect_rc 2 "$op, corrupted on GPU 1: exit 2"
  gpu=$(oob); gw=$(awk '!/^#/ && NF == 13 {s += $9 + $13} END {print s + 0}' "$OUT")
  expect_out '^# nccl-doctor: results checked on the GPU' "$op: checked on the GPU"
  run_nd bench "$op" -g 2 -b 1K -e 16K -f 4 -d int32 --host-check
  hw=$(awk '!/^#/ && NF == 13 {s += $9 + $13} END {print s + 0}' "$OUT")
  if [ "$gpu" -gt 0 ] && [ "$gpu" = "$(oob)" ] && [ "$gw" -gt 0 ] && [ "$gw" = "$hw" ]; then
    ok "$op: GPU and host count the same ($gpu cells, $gw elements)"
  else not_ok "$op: GPU $gpu cells $gw elements, host $(oob) cells $hw elements"; fi
done
expect_out '^# nccl-doctor: results checked on the host \(rank 0: --host-check\)$' "--host-check: said once"
run_nd --json bench sendrecv -g 2 -b 1K -e 16K -f 4 -d int32 --host-check
json_check "d['bench']['checked_on'] == 'host' and d['bench']['out_of_bounds'] == 6" "--host-check --json: checked_on host"
run_nd --json bench sendrecv -g 2 -b 1K -e 16K -f 4 -d int32
json_check "d['bench']['checked_on'] == 'gpu' and d['bench']['out_of_bounds'] == 6" "--json: checked_on gpu"
run_nd bench all_reduce -g 2 -b 1K -e 16K -f 4 -c 0
expect_no_out 'results checked' "-c 0: no checker line"

# --- the module does not load: the host checks, said once -----------------------
derive pcie4 '{"nccl_corrupt": [1], "module_error": 218}' nomod
run_nd bench all_reduce -g 2 -b 1K -e 16K -f 4
expect_rc 2 "no module: the host still finds the corruption"
expect_out '^# Out of bounds values : 6 FAILED$' "no module: 6 cells wrong, as on the GPU"
n=$(grep -c 'results checked on the host (rank 0: cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX 218)' "$OUT")
if [ "$n" = 1 ]; then ok "no module: one line says the host checked and why"; else not_ok "no module: $n lines"; cat "$OUT"; fi

# --- -G: CUDA graph launches -------------------------------------------------------
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"
run_nd bench all_reduce -g 2 -b 1K -e 64K -f 8 --timer event
cp "$OUT" "$ND_TMP/g0"
run_nd bench all_reduce -g 2 -b 1K -e 64K -f 8 --timer event -G 4 -n 10
expect_rc 0 "-G 4: runs"
expect_out '^# nThread 1 nGpus 2 .* graph: 4 unalign: 0$' "-G 4: the header says graph: 4"
expect_out '^# Out of bounds values : 0 OK$' "-G 4: results right"
if python3 - "$ND_TMP/g0" "$OUT" <<'PY'
import sys
def times(p):
    return [float(l.split()[5]) for l in open(p) if l[:1] == ' ' and len(l.split()) == 13]
a, b = times(sys.argv[1]), times(sys.argv[2])
# a launch of 10 captured calls costs their time plus 2 us: 0.2 us per call
assert len(a) == len(b) == 3 and all(abs(y - x - 0.2) < 0.011 for x, y in zip(a, b)), (a, b)
PY
then ok "-G 4: time per call = graph time / (iters x launches), as nccl-tests"; else not_ok "-G 4 times"; fi
run_nd bench -G -1
expect_rc 64 "-G -1: usage"

# --- busy node: GPU 1 is held by pid 4242 -----------------------------------------
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/pcie4-p2p-busy.json"
run_nd bench -g 2 -b 8 -e 8
expect_rc 3 "busy GPU 1: not run"
if grep -qE '^nccl-doctor bench: GPU 1 is in use by pid 4242 with [0-9.]+ [KMG]iB \(1 compute process, .* in use\); not run \(--force runs anyway\)$' "$ERR"; then
  ok "busy GPU 1: one line names the GPU, the process and its memory"; else not_ok "busy: $(cat "$ERR")"; fi
expect_no_out 'Out of bounds' "busy GPU 1: no table"
run_nd --json bench -g 2 -b 8 -e 8
json_check "d['findings'][0]['id'] == 'BENCH_GPU_BUSY' and 'GPU 1' in d['findings'][0]['title'] and 'pid 4242' in d['error']" "busy GPU 1: BENCH_GPU_BUSY in JSON, exit 3"
expect_rc 3 "busy GPU 1 --json: exit 3"
run_nd bench -g 2 -b 8 -e 8 --force
expect_rc 0 "busy GPU 1 with --force: runs"
run_nd --gpus 2,3 bench -b 8 -e 8
expect_rc 0 "GPUs 2 and 3 are idle: runs"
CUDA_VISIBLE_DEVICES=1,0 run_nd bench -g 1 -b 8 -e 8
expect_rc 3 "CUDA_VISIBLE_DEVICES=1,0: CUDA device 0 is GPU 1, busy"

# --- a wedged GPU after a hang --------------------------------------------------------
derive pcie4 '{"nccl_p2p_hang": [[0, 1]], "nccl_p2p_hang_min_bytes": 4096, "wedge_on_hang": True}' wedge
run_nd bench all_reduce -g 2 -b 1K -e 16K -f 4 -T 2
expect_rc 2 "hang on GPUs 0-1 that wedges them: problem"
expect_out '^# nccl-doctor: HANG\(size 4096 of op all_reduce' "wedge: the hang is named"
expect_out '^# nccl-doctor: GPU 0 \(([0-9a-f:.]+)\) stays busy with no process after the hang: wedged; reset it \(sudo nvidia-smi -r -i \1\)' "wedge: GPU 0 reported wedged with the reset command"
expect_out '^# nccl-doctor: GPU 1 .* wedged' "wedge: GPU 1 too"
run_nd --json bench all_reduce -g 2 -b 1K -e 16K -f 4 -T 2
json_check "sum(f['id'] == 'BENCH_GPU_WEDGED' for f in d['findings']) == 2" "wedge: two BENCH_GPU_WEDGED findings"
derive pcie4 '{"nccl_p2p_hang": [[0, 1]], "nccl_p2p_hang_min_bytes": 4096}' nowedge
run_nd bench all_reduce -g 2 -b 1K -e 16K -f 4 -T 2
expect_no_out 'wedged' "a hang that leaves the GPUs idle: no wedged GPU"
finish
