#!/bin/bash
# The MPI build of `bench` (-DNCCL_DOCTOR_MPI=ON) on the fake GPU stack:
# `mpirun -np N nccl-doctor bench ...` runs one rank per process, rank 0
# makes the unique id and broadcasts it, rank 0 prints nccl-tests' table and
# footers for all; a corrupted result and a rank that hangs in init end
# every process with rank 0's exit status; a busy GPU of any rank stops all;
# a usage error ends the job; srun without an MPI plugin meets in our
# rendezvous; NCCL_TESTS_SPLIT splits the processes into groups as
# nccl-tests' MPI build does, and a hang in one group names its ranks;
# -g 2 in each of 2 processes runs 4 ranks (process x 2 + k) as nccl-tests'
# MPI build, and a hang of one rank names it, its process and the phase.
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
TAG="mpi-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG" NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-*' EXIT
MPIEXEC=${ND_MPIEXEC:-mpirun}
# Open MPI: run as root in containers, more processes than cores, shared
# memory without cross-process copies (CMA needs ptrace in containers), no
# network probing; the environment of this shell goes to every process
mpi() {
  local np=$1; shift
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  timeout 120 "$MPIEXEC" --oversubscribe --allow-run-as-root --mca btl self,vader \
    --mca btl_vader_single_copy_mechanism none -np "$np" \
    -x NCCL_DOCTOR_LIBRARY_PATH -x NCCL_DOCTOR_LIBRARY_PATH_ONLY -x NCCL_DOCTOR_FAKEGPU_SHM_TAG \
    -x NCCL_DOCTOR_FAKEGPU_SCENARIO "$ND_BIN" "$@" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
}

mpi 2 bench all_reduce -b 8 -e 64K -f 8 --timer event
expect_rc 0 "mpirun -np 2: all_reduce"
expect_out '^# nThread 1 nGpus 1 minBytes 8 maxBytes 65536 step: 8\(factor\)' "header: one GPU per process, as nccl-tests' MPI build"
expect_out '^#  Rank  0 Group  0 Pid +[0-9]+ on +[^ ]+ device  0 \[' "rank 0 on device 0"
expect_out '^#  Rank  1 Group  0 Pid +[0-9]+ on +[^ ]+ device  1 \[' "rank 1 on device 1 (local rank 1)"
n=$(grep -cE '^ +[0-9]+ +[0-9]+ +float +sum +-1 ' "$OUT")
if [ "$n" = 5 ]; then ok "five rows (8 B to 32 KiB), printed once"; else not_ok "$n rows"; cat "$OUT"; fi
expect_out '^# Out of bounds values : 0 OK$' "footer: OK"
expect_out '^# Avg bus bandwidth    : [0-9.]+(e[-+][0-9]+)? $' "footer: average busbw as nccl-tests prints it"
n=$(grep -c '^# Collective test concluded: all_reduce_perf$' "$OUT")
if [ "$n" = 1 ]; then ok "one report (rank 0's)"; else not_ok "$n reports"; fi
# the modelled time: 2 ranks over NV18 (360 GB/s), 64 KiB all_reduce
python3 - "$OUT" <<'PY' && ok "busbw = algbw x 2(n-1)/n on 2 ranks" || not_ok "busbw formula"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1] == ' ' and len(l.split()) == 13]
assert rows and all(abs(float(r[7]) - float(r[6])) <= 0.011 for r in rows), rows
PY

mpi 3 bench sendrecv -b 1K -e 4K -f 4
expect_rc 0 "mpirun -np 3: sendrecv"
expect_out '^#  Rank  2 Group  0 Pid' "three ranks"

# NCCL_TESTS_SPLIT as nccl-tests' MPI build: the processes split by color
# (world rank % 2), each group its own communicator (ncclCommSplit)
NCCL_TESTS_SPLIT="MOD 2" mpi 4 bench all_reduce -b 8 -e 4K -f 512 --timer event
expect_rc 0 "mpirun -np 4, NCCL_TESTS_SPLIT='MOD 2': runs"
expect_out '^#  Rank  3 Group  1 Pid' "rank 3 in group 1"
expect_out '^ +4096 +1024 +float +sum +-1( +[0-9.]+){3} +0( +[0-9.]+){3} +0$' "rows of rank 0's group, right"
expect_out '^# nccl-doctor: rank 0 device 0 NCCL [0-9.]+ init [0-9.]+ s transports P2P/IPC->2$' "rank 0's peer in its group is rank 2"
# a hang in one group (its P2P link 1-3 blocks from 4 KiB): the other group
# finishes its rows, the hang names group 1's ranks and the phase
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{}).update({"nccl_p2p_hang": [[1, 3]], "nccl_p2p_hang_min_bytes": 4096}); json.dump(d,open(sys.argv[2],"w"))' \
  "$SC/nvlink8.json" "$ND_TMP/hang13.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/hang13.json" NCCL_TESTS_SPLIT="MOD 2" mpi 4 bench all_reduce -b 1K -e 4K -f 4 -T 1 --force
expect_rc 2 "a hang in group 1: every process exits 2"
expect_out '^# nccl-doctor: HANG\(size 4096 of op all_reduce warm-up\): ranks 1,3 had not finished' "the hang names group 1's ranks and its phase"

python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{})["nccl_corrupt"]=[1]; json.dump(d,open(sys.argv[2],"w"))' \
  "$SC/nvlink8.json" "$ND_TMP/corrupt.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/corrupt.json" mpi 2 bench all_reduce -b 1K -e 16K -f 4
expect_rc 2 "corrupted result on rank 1's GPU: every process exits 2"
expect_out '^# Out of bounds values : 6 FAILED$' "corrupted: FAILED footer, counted on the GPU"

python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{})["nccl_init_hang_rank"]=1; json.dump(d,open(sys.argv[2],"w"))' \
  "$SC/nvlink8.json" "$ND_TMP/hang.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/hang.json" mpi 2 bench all_reduce -b 8 -e 64 -f 2 --deadline-init 2
expect_rc 2 "rank 1 hangs in init: exit 2"
expect_out '^# nccl-doctor: HANG\((init|bootstrap)' "the hang is named with its phase"
expect_no_out '^# Out of bounds' "no footer after a hang"

# busy node: rank 1's GPU (1) is held by pid 4242; every process stops
NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/pcie4-p2p-busy.json" mpi 2 bench -b 8 -e 8
expect_rc 3 "rank 1's GPU busy: the job does not run"
if grep -q 'GPU 1 is in use by pid 4242' "$ERR"; then ok "busy: rank 1 names its GPU and the process"; else not_ok "busy: $(head -3 "$ERR")"; fi
expect_no_out 'Out of bounds' "busy: no table"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/pcie4-p2p-busy.json" mpi 2 bench -b 8 -e 8 --force
expect_rc 0 "busy with --force: runs"

# a usage error ends every process (none waits for rank 0 in a collective)
mpi 2 bench -b 1M -e 8
expect_rc 3 "usage error under mpirun: the job ends (MPI_Abort, 3)"
if grep -q 'invalid sizes' "$ERR"; then ok "usage error: said"; else not_ok "usage error: $(head -3 "$ERR")"; fi

# -g 2 in each of 2 processes, as nccl-tests' MPI build: 4 ranks, process x
# 2 + k on the process's local GPUs (local rank x 2 + k), one communicator
mpi 2 bench all_reduce -b 8 -e 64K -f 8 --timer event -g 2
expect_rc 0 "mpirun -np 2 -g 2: all_reduce"
expect_out '^# nThread 1 nGpus 2 minBytes 8 maxBytes 65536 ' "header: 2 GPUs per process, as nccl-tests' MPI build"
for r in 0 1 2 3; do
  expect_out "^#  Rank  $r Group  0 Pid +[0-9]+ on +[^ ]+ device  $r \\[" "-g 2: rank $r on its node, device $r (process $((r / 2)), local GPU $((r % 2)))"
done
n=$(grep -cE '^ +[0-9]+ +[0-9]+ +float +sum +-1 ' "$OUT")
if [ "$n" = 5 ]; then ok "-g 2: five rows, printed once"; else not_ok "-g 2: $n rows"; cat "$OUT"; fi
expect_out '^# Out of bounds values : 0 OK$' "-g 2: every result right"
expect_out '^# nccl-doctor: rank 3 device 3 NCCL [0-9.]+ init [0-9.]+ s transports P2P/IPC->0$' "-g 2: one ring of 4 ranks across both processes"
expect_out '^# nccl-doctor: node [^ ]+: ranks 0,1 \(process 0\), 2,3 \(process 1\), ' "-g 2: each process's ranks named"
# busbw = algbw x 2(n-1)/n of 4 ranks (1.5)
python3 - "$OUT" <<'PY' && ok "-g 2: busbw of 4 ranks" || not_ok "-g 2: busbw"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1] == ' ' and len(l.split()) == 13]
assert rows and all(abs(float(r[7]) - 1.5 * float(r[6])) <= 0.011 for r in rows), rows
PY
# ... and a rank of process 1 (rank 3) hangs in init: rank, process and phase named
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{})["nccl_init_hang_rank"]=3; json.dump(d,open(sys.argv[2],"w"))' \
  "$SC/nvlink8.json" "$ND_TMP/hang3.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/hang3.json" mpi 2 --json bench all_reduce -b 8 -e 64 -f 2 --deadline-init 2 -g 2
expect_rc 2 "-g 2, rank 3 hangs in init: every process exits 2"
json_checks \
  "d['bench']['launcher'] == {'exchange': 'mpi', 'world_size': 2, 'ranks_per_process': 2}" "-g 2: 2 processes of 2 ranks in the JSON" \
  "[n['processes'] for n in d['bench']['nodes']] == [[0, 1]] and d['bench']['nodes'][0]['ranks'] == [0, 1, 2, 3]" "-g 2: the node's processes and ranks" \
  "(lambda f: f['title'].startswith('HANG(init): ranks ') and any(e['text'].startswith(\"rank 3 (process 1, device 3): hang in 'init'\") for e in f['evidence']))([f for f in d['findings'] if f['id'] == 'BENCH_HANG'][0])" "-g 2: the hang names rank 3, its process and the phase"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/hang3.json" mpi 2 bench all_reduce -b 8 -e 64 -f 2 --deadline-init 2 -g 2
expect_rc 2 "-g 2, rank 3 hangs in init (text): exit 2"
expect_out '^# nccl-doctor: HANG\(init\): ranks [0-9,]*3 had not finished' "-g 2 (text): the hang's phase and rank 3"
expect_out "^# nccl-doctor: node [^ ]+: ranks 0,1 \\(process 0\\), 2,3 \\(process 1\\), .*not finished: .*3 \\(hang in 'init'\\)$" "-g 2 (text): rank 3 of process 1 not finished in init"

# the MPI engine's own usage errors (-t, --gpus by UUID), said by the command
mpi 2 bench -t 2 -b 8 -e 8
expect_rc 3 "-t under mpirun: the job ends"
if grep -q 'bench: under a launcher (srun, mpirun, torchrun) every process drives its ranks' "$ERR"; then
  ok "-t under mpirun: said as a usage error"; else not_ok "-t: $(head -3 "$ERR")"; fi
mpi 2 --gpus GPU-fa4e bench -b 8 -e 8
expect_rc 3 "--gpus by UUID under mpirun: the job ends"
if grep -q 'bench: --gpus takes GPU indices for bench' "$ERR"; then ok "--gpus by UUID under mpirun: said"; else not_ok "--gpus: $(head -3 "$ERR")"; fi

# srun without an MPI plugin: the processes meet in our rendezvous instead
# (util/launcher.h, engine/bench_net.c), in the MPI build as in any other
PORT=$((20000 + $$ % 20000))
for r in 0 1; do
  (SLURM_PROCID=$r SLURM_NTASKS=2 SLURM_STEP_ID=0 SLURM_LOCALID=$r SLURM_NODEID=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT \
    timeout 60 "$ND_BIN" bench -b 8 -e 64 -f 8 >"$ND_TMP/srun.$r" 2>&1 </dev/null; echo $? >"$ND_TMP/srun.$r.rc") &
done
wait
if [ "$(cat "$ND_TMP/srun.0.rc") $(cat "$ND_TMP/srun.1.rc")" = "0 0" ] && grep -q '^#  Rank  1 Group  0 Pid' "$ND_TMP/srun.0"; then
  ok "srun without --mpi: 2 ranks through the rendezvous"; else not_ok "srun: $(head -5 "$ND_TMP/srun.0")"; fi
finish
