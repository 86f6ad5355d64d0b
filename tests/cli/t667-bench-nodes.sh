#!/bin/bash
# `bench` across "nodes" on one machine: every rank a process started with
# the variables of a launcher (srun, Open MPI's mpirun, MPICH's Hydra,
# torchrun, a Kubernetes Indexed Job; Hydra's in the unit test), each node its own fake GPU scenario
# and node name, ranks meeting in our rendezvous on loopback; the fake NCCL
# takes its network between ranks of different nodes. Cases: healthy nodes
# (rank 0 alone prints nccl-tests' table with every rank's node, the nodes
# and the launcher in JSON); a node that never starts (named within the
# rendezvous deadline, by every rank; with -g by the ranks it would have
# carried); a rank that hangs in init (its node,
# rank and phase named); the pairwise sweep of 3 nodes finding the slow
# link between two of them, and of 4 nodes the slow node (the fake's
# network slowed, modelled time);
# check across 2 nodes (one fleet verdict, the all_reduce between them);
# bad variables; nothing left running.
. "$(dirname "$0")/lib.sh"
use_fake_gpus
SC="$ND_FIXTURES/fakegpu/nvlink8.json"
TAG=$NCCL_DOCTOR_FAKEGPU_SHM_TAG
PORT=$((20000 + ($$ % 700) * 16)) # below the ephemeral ports (32768 on): no outgoing connection holds one
# every process is killed past this: a hang ends the test; a sanitized build
# runs the 30-odd processes of the jobs at once several times slower
KILL_S=30; [ -n "${ND_SANITIZE:-}" ] && KILL_S=120

# start JOB KIND NODES RANKS_PER_NODE ARGS...: one bench process per rank
# with KIND's variables, in the background; node k is "n$k" with scenario
# $SC_n1 for n1 (else $SC); nodes named in $SKIP are not started. Each
# rank's stdout, stderr, exit status and wall time (ms) in
# $ND_TMP/JOB/R.{out,err,rc,ms}; each
# job its own port. Jobs run at once (their deadlines overlap); `wait` ends them.
start() {
  local job=$1 kind=$2 nn=$3 rpn=$4 r; shift 4
  PORT=$((PORT + 16)) # torchrun takes MASTER_PORT+1, the pairs of --pairs the ports after it
  mkdir -p "$ND_TMP/$job"
  for ((r = 0; r < nn * rpn; r++)); do
    local node="n$((r / rpn))" sc=$SC
    [ "$node" = n1 ] && sc=${SC_n1:-$SC}
    case " ${SKIP:-} " in *" $node "*) continue ;; esac
    local env=(NCCL_DOCTOR_FAKEGPU_SCENARIO="$sc" NCCL_DOCTOR_FAKEGPU_NODE="$node") args=("$@")
    # node n1's own machine: $ROOT_n1 in place of the fixture sysroot
    if [ "$node" = n1 ] && [ -n "${ROOT_n1:-}" ]; then
      local i; for i in "${!args[@]}"; do [ "${args[$i]}" = "$ND_FIXTURES/sysroot/pcie-4gpu-acs" ] && args[$i]=$ROOT_n1; done
    fi
    case $kind in
      slurm) env+=(SLURM_PROCID=$r SLURM_NTASKS=$((nn * rpn)) SLURM_STEP_ID=0 SLURM_JOB_ID=$$ SLURM_LOCALID=$((r % rpn))
                   SLURM_NODEID=$((r / rpn)) SLURMD_NODENAME=$node "SLURM_STEP_NODELIST=n[0-$((nn - 1))]"
                   "SLURM_STEP_TASKS_PER_NODE=$rpn(x$nn)" MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT) ;;
      ompi) env+=(OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$((nn * rpn)) OMPI_COMM_WORLD_LOCAL_RANK=$((r % rpn))
                  OMPI_COMM_WORLD_LOCAL_SIZE=$rpn)
            args+=(--rendezvous "127.0.0.1:$PORT" --node-name "$node") ;;
      torchrun) env+=(RANK=$r WORLD_SIZE=$((nn * rpn)) LOCAL_RANK=$((r % rpn)) LOCAL_WORLD_SIZE=$rpn GROUP_RANK=$((r / rpn))
                      MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT)
                args+=(--node-name "$node") ;; # these launchers name no node: the host name's place
      indexed) env+=(JOB_COMPLETION_INDEX=$r WORLD_SIZE=$((nn * rpn)) NODE_NAME=$node MASTER_ADDR=127.0.0.1
                     MASTER_PORT=$PORT) ;;
    esac
    (t=$(date +%s%N)
     env "${env[@]}" timeout "$KILL_S" "$ND_BIN" "${args[@]}" >"$ND_TMP/$job/$r.out" 2>"$ND_TMP/$job/$r.err" </dev/null
     echo $? >"$ND_TMP/$job/$r.rc"; echo $((($(date +%s%N) - t) / 1000000)) >"$ND_TMP/$job/$r.ms") &
  done
}
# rcs JOB: every started rank's exit status, in rank order
rcs() { local r s=""; for r in 0 1 2 3 4 5; do [ -f "$ND_TMP/$1/$r.rc" ] && s+="$(cat "$ND_TMP/$1/$r.rc") "; done; echo "${s% }"; }

hang=$ND_TMP/hang3.json
{ head -c -3 "$SC"; printf ',\n "faults": {"nccl_init_hang_rank": 3}\n}\n'; } >"$hang" # the scenario ends "]\n}\n"
t0=$(date +%s%N)
SMALL=(bench -b 1K -e 16K -f 4 -n 2 -w 0 --timer event)
start healthy slurm 2 2 "${SMALL[@]}"
start torchrun torchrun 2 1 --json "${SMALL[@]}"
# (node n1 of the Open MPI job loads another NCCL: its fake library says 2.27.3)
n1sc=$ND_TMP/n1-nccl.json
sed 's/"nccl_version": 22803/"nccl_version": 22703/' "$SC" >"$n1sc"
SC_n1=$n1sc start ompi ompi 2 1 --json "${SMALL[@]}"
start indexed indexed 2 1 --json "${SMALL[@]}"
SKIP=n1 start missing slurm 2 2 "${SMALL[@]}" --deadline-init 3
# ... and with -g 2 (one process a node): the process is named by the ranks it would have carried
SKIP=n1 start missingg slurm 2 1 --json "${SMALL[@]}" -g 2 --deadline-init 3
SC_n1=$hang start hang slurm 2 2 "${SMALL[@]}" --deadline-init 3
# the pairwise sweep of 3 nodes (a ring: 3 rounds), the link n0-n1 slow
NCCL_DOCTOR_FAKEGPU_SLOW_LINK=n0:n1:10 start pairs slurm 3 1 --json bench --pairs quick -b 1M -e 4M -f 4 -n 2 -w 0 --timer event
# ... and 4 nodes with node n2 slow on every link (text and JSON)
for j in slownode slownode-json; do
  NCCL_DOCTOR_FAKEGPU_SLOW_LINK='n2:*:10' start $j slurm 4 1 $([ $j = slownode-json ] && echo --json) bench --pairs quick -b 1M -e 1M -n 2 -w 0 --timer event
done
# one process per node driving 2 GPUs each (an Indexed Job's pod per node
# with -g 2): ranks node x 2 + k, one communicator across the nodes
start multi indexed 2 1 --json "${SMALL[@]}" -g 2
# four healthy nodes, one rank each
start four slurm 4 1 --json "${SMALL[@]}"
# check across 2 nodes (one process per node): each its own checkup, one fleet
# verdict; node n1's machine has another driver (a copy of the sysroot)
ROOT_n1=$ND_TMP/n1-root
cp -a "$ND_FIXTURES/sysroot/pcie-4gpu-acs" "$ROOT_n1"
sed -i 's/ 580\.95\.05 / 550.54.15 /' "$ROOT_n1/proc/driver/nvidia/version"
CHECK=(check --across-nodes --profile healthcheck --gpus 0,1 --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --max-bytes 1M)
# and another NCCL (its fake library says 2.27.3), which only the all_reduce
# across the nodes loads (the sysroot has no libnccl, the profile no bench)
n1pcie=$ND_TMP/n1-pcie4-nccl.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["nccl_version"]=22703; json.dump(d,open(sys.argv[2],"w"))' \
  "$ND_FIXTURES/fakegpu/pcie4.json" "$n1pcie"
SC_n1=$n1pcie SC=$ND_FIXTURES/fakegpu/pcie4.json start check slurm 2 1 --json "${CHECK[@]}" --join-timeout 5
# ... and with a node that never starts: the fleet verdict all the same, the
# node missing (3 nodes, n2 never starts: JSON; 2 nodes, n1 never starts: text)
SKIP=n2 SC=$ND_FIXTURES/fakegpu/pcie4.json start checkmiss slurm 3 1 --json "${CHECK[@]}" --join-timeout 3
SKIP=n1 SC=$ND_FIXTURES/fakegpu/pcie4.json start checkmiss1 slurm 2 1 --full --fail-on warning "${CHECK[@]}" --join-timeout 3
wait
echo "# the jobs took $((($(date +%s%N) - t0) / 1000000)) ms"

# --- healthy: srun's variables, 2 nodes x 2 GPUs -----------------------------
if [ "$(rcs healthy)" = "0 0 0 0" ]; then ok "srun: every rank exits 0"; else not_ok "srun: exit statuses $(rcs healthy)"; cat "$ND_TMP"/healthy/*.err; fi
OUT="$ND_TMP/healthy/0.out"
expect_out '^#  Rank  0 Group  0 Pid +[0-9]+ on +n0 device  0 ' "rank 0 lists rank 0 on node n0"
expect_out '^#  Rank  3 Group  0 Pid +[0-9]+ on +n1 device  1 ' "rank 0 lists rank 3 on node n1, its local GPU 1"
expect_out '^# nccl-doctor: node n1: ranks 2,3, network Socket lo:127.0.0.1<0>$' "the node line names its ranks and network"
expect_out 'through host memory or the network.*1->2 NET/Socket/0' "between the nodes NCCL took the network"
expect_out '^# Verdict: HEALTHY' "one verdict"
if [ ! -s "$ND_TMP/healthy/1.out" ] && [ ! -s "$ND_TMP/healthy/3.out" ]; then ok "only rank 0 prints"; else not_ok "other ranks printed"; fi

# --- a node that never starts: named within the deadline, by every rank --------
if [ "$(rcs missing)" = "3 3" ]; then ok "a node missing: the started ranks exit 3"; else not_ok "exit statuses $(rcs missing)"; fi
for r in 0 1; do
  ERR="$ND_TMP/missing/$r.err"
  expect_err '^nccl-doctor: bench: ranks 2,3 \(node n1\) never joined within 3 s$' "rank $r names the missing node's ranks"
done
within 5000 "$(cat "$ND_TMP/missing/0.ms")" "the missing node named at the 3 s deadline, not later (ms)"
ERR="$ND_TMP/missingg/0.err"
if [ "$(rcs missingg)" = "3" ]; then ok "-g 2, a node missing: rank 0 exits 3"; else not_ok "-g 2: exit statuses $(rcs missingg)"; fi
expect_err '^nccl-doctor: bench: ranks 2,3 \(process 1, node n1\) never joined within 3 s$' "-g 2: the missing process named by its 2 ranks, its process and node"

# --- a rank that hangs in init: node, rank and phase -------------------------
OUT="$ND_TMP/hang/0.out"
if [ "$(rcs hang)" = "2 2 2 2" ]; then ok "a hang: every rank exits 2"; else not_ok "exit statuses $(rcs hang)"; fi
expect_out '^# nccl-doctor: HANG\(init\): ranks 0,1,2,3 had not finished' "the hang's phase"
expect_out "^# nccl-doctor: node n1: ranks 2,3, .*not finished: 2 \(hang in 'init'\), 3 \(hang in 'init'\)$" "the hang names node n1 with its ranks and stage"
expect_out '^# Verdict: BROKEN' "BROKEN"

# --- JSON, in one python3: the launchers (torchrun, Open MPI, an Indexed
# Job) and the nodes; check across the nodes (every node's checkup merged,
# the all_reduce between them); the pairwise sweep finds the slow link (the
# fake's network, 2 GB/s, 10 times slower between n0 and n1)
OUT="$ND_TMP/all.json"
for j in torchrun ompi indexed multi check checkmiss pairs slownode-json four missingg; do printf '%s"%s": %s' "$([ $j = torchrun ] && echo '{' || echo ',')" $j "$(cat "$ND_TMP/$j/0.out")"; done >"$OUT"
echo '}' >>"$OUT"
B="['torchrun', 'ompi', 'indexed']"
json_checks \
  "d['torchrun']['verdict'] == d['indexed']['verdict'] == 'HEALTHY' and d['ompi']['verdict'] == 'DEGRADED'" "the JSON runs HEALTHY, Open MPI's DEGRADED by its two NCCL versions ($(rcs torchrun); $(rcs ompi); $(rcs indexed))" \
  "[d[k]['bench']['launcher']['name'] for k in $B] == ['torchrun', 'openmpi', 'kubernetes-indexed-job']" "the launcher seen" \
  "d['torchrun']['bench']['launcher']['rendezvous_from'] == 'MASTER_ADDR/MASTER_PORT+1' and d['ompi']['bench']['launcher']['rendezvous_from'] == '--rendezvous'" "where rank 0's address came from" \
  "all(d[k]['bench']['launcher']['rank_nodes'] == ['n0', 'n1'] for k in $B)" "each rank's node" \
  "[n['node'] for n in d['torchrun']['bench']['nodes']] == ['n0', 'n1'] and d['torchrun']['bench']['nodes'][1]['network'].startswith('Socket')" "the nodes with their network" \
  "d['ompi']['bench']['nodes'][0]['transports'] == [{'rank': 0, 'transports': 'NET/Socket/0->1'}]" "per-node transports" \
  "(lambda t: t == ['NCCL differs across the ranks: 2.28.3 on n0; 2.27.3 on n1'])([f['title'] for f in d['ompi']['findings'] if f['id'] == 'FLEET_VERSION_DIFFERS'])" "node n1's other NCCL named by the run" \
  "not any(f['id'] == 'FLEET_VERSION_DIFFERS' for j in ('torchrun', 'indexed', 'four') for f in d[j]['findings'])" "one NCCL everywhere: no such finding" \
  "d['multi']['verdict'] == 'HEALTHY' and d['multi']['bench']['complete'] and len(d['multi']['bench']['rows']) == 3" "-g 2 in each of 2 processes: HEALTHY, every size ($(rcs multi))" \
  "[(n['node'], n['ranks'], n['devices']) for n in d['multi']['bench']['nodes']] == [('n0', [0, 1], [0, 1]), ('n1', [2, 3], [0, 1])]" "-g 2: ranks node x 2 + k on the node's GPUs 0 and 1" \
  "d['multi']['bench']['launcher']['rank_nodes'] == ['n0', 'n0', 'n1', 'n1'] and d['multi']['bench']['launcher']['ranks_per_process'] == 2 and d['multi']['bench']['launcher']['world_size'] == 2" "-g 2: each rank's node, 2 ranks a process of 2 processes" \
  "[t['transports'] for t in d['multi']['bench']['nodes'][0]['transports']] == ['P2P/IPC->1', 'NET/Socket/0->2']" "-g 2: within a node GPU to GPU, between the nodes the network: one communicator" \
  "d['check']['command'] == 'merge' and d['check']['verdict'] == 'DEGRADED'" "check across nodes: one fleet verdict ($(rcs check))" \
  "[n['node'] for n in d['check']['facts']['nodes']['nodes']] == ['n0', 'n1'] and d['check']['facts']['fleet']['missing'] == 0" "both nodes' checkups, none missing" \
  "d['check']['facts']['internode']['complete'] and d['check']['facts']['internode']['nodes'] == 2 and 1.9 < d['check']['facts']['internode']['avg_busbw'] < 2.1" "the all_reduce across the nodes over the network" \
  "any(f['id'] == 'FLEET_NODE_DEGRADED' for f in d['check']['findings'])" "each node's own finding kept" \
  "d['pairs']['verdict'] == 'DEGRADED' and d['pairs']['bench']['pairs']['rounds'] == 3" "pairs: 3 links of a ring in 3 rounds, DEGRADED ($(rcs pairs))" \
  "[(l['a'], l['b'], l['slow']) for l in d['pairs']['bench']['pairs']['links']] == [('n0', 'n1', True), ('n0', 'n2', False), ('n1', 'n2', False)]" "the slow link n0-n1, and only it" \
  "0.18 < d['pairs']['bench']['pairs']['links'][0]['busbw'] < 0.22" "the slow link n0-n1 at a tenth of the network's 2 GB/s" \
  "all(l['complete'] for l in d['pairs']['bench']['pairs']['links']) and 1.9 < d['pairs']['bench']['pairs']['links'][1]['class_median'] < 2.1" "every link measured, the class median at the network's 2 GB/s" \
  "(lambda t: len(t) == 1 and t[0].startswith('slow link n0-n1: 0.20 GB/s, the median of its class 1.9'))([f['title'] for f in d['pairs']['findings'] if f['id'] == 'FLEET_OUTLIER'])" "one finding names the slow link" \
  "d['pairs']['bench']['pairs']['slow_nodes'] == []" "no node slow on every link" \
  "d['slownode-json']['verdict'] == 'DEGRADED' and d['slownode-json']['bench']['pairs']['slow_nodes'] == ['n2']" "a slow node of 4: n2 named slow ($(rcs slownode-json))" \
  "[(l['a'], l['b']) for l in d['slownode-json']['bench']['pairs']['links'] if l['busbw'] < 0.5] == [('n1', 'n2'), ('n2', 'n3')] and not any(l['slow'] for l in d['slownode-json']['bench']['pairs']['links'])" "its two slow links, half the ring: no link outlier by itself" \
  "(lambda t: len(t) == 1 and t[0].startswith('slow node n2: its fastest link 0.20 GB/s, the median of the nodes'))([f['title'] for f in d['slownode-json']['findings'] if f['id'] == 'FLEET_OUTLIER'])" "one finding names the slow node" \
  "[(f['id'], f['title']) for f in d['missingg']['findings']] == [('FLEET_NODE_MISSING', 'ranks 2,3 (process 1, node n1) never joined within 3 s')] and d['missingg']['summary']['exit_code'] == 3" "-g 2, a node missing (JSON): its process's ranks and node named" \
  "d['four']['verdict'] == 'HEALTHY' and [n['node'] for n in d['four']['bench']['nodes']] == ['n0', 'n1', 'n2', 'n3']" "four nodes: HEALTHY, a line each ($(rcs four))" \
  "any(f['id'] == 'FLEET_VERSION_DIFFERS' and '550.54.15' in json.dumps(f) and '580.95.05' in json.dumps(f) for f in d['check']['findings'])" "check across nodes: node n1's other driver named" \
  "[(n['node'], n['nccl']) for n in d['check']['facts']['nodes']['nodes']] == [('n0', '2.28.3'), ('n1', '2.27.3')]" "check across nodes: each node's NCCL, as its rank of the all_reduce loaded it" \
  "[f['title'] for f in d['check']['findings'] if f['id'] == 'FLEET_VERSION_DIFFERS' and 'NCCL' in f['title']] == ['NCCL differs across 2 nodes (all nodes): 2 values'] and any('2.27.3 on 1 (n1)' in e['text'] for f in d['check']['findings'] for e in f['evidence'])" "check across nodes: node n1's other NCCL named, once (merge's)" \
  "d['checkmiss']['command'] == 'merge' and d['checkmiss']['facts']['fleet']['missing'] == 1 and d['checkmiss']['facts']['fleet']['nodes'] == 2" "a node never joined: the fleet verdict of the 2 that came ($(rcs checkmiss))" \
  "[(n['node'], n['state'], n['exit_code']) for n in d['checkmiss']['facts']['nodes']['nodes']][0] == ('n2', 'missing', 3)" "the missing node first, by merge's order" \
  "d['checkmiss']['facts']['nodes']['nodes'][0]['reason'] == 'never joined the rendezvous within 3 s'" "the missing node's reason" \
  "sorted(n['node'] for n in d['checkmiss']['facts']['nodes']['nodes'][1:]) == ['n0', 'n1'] and all(n['state'] != 'missing' for n in d['checkmiss']['facts']['nodes']['nodes'][1:])" "the nodes that joined with their own verdicts" \
  "any(f['id'] == 'FLEET_NODE_MISSING' and f['title'] == 'n2: never joined the rendezvous within 3 s' for f in d['checkmiss']['findings'])" "FLEET_NODE_MISSING names it" \
  "any(f['id'] == 'FLEET_VERSION_DIFFERS' for f in d['checkmiss']['findings'])" "the joined nodes still compared (n1's other driver)" \
  "d['checkmiss']['facts']['internode']['complete'] is False and d['checkmiss']['facts']['internode']['not_run'] == 'rank 2 (node n2) never joined within 3 s'" "no all_reduce across the nodes without n2, and why" \
  "d['checkmiss']['summary']['exit_code'] == 3" "exit status the worst node's: 3 (missing)"
if [ "$(rcs check)" = "1 1" ] && [ ! -s "$ND_TMP/check/1.out" ]; then ok "check: every node exits with rank 0's status, rank 0 alone prints"
else not_ok "check: exit statuses $(rcs check)"; fi

if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$ND_TMP"/{torchrun,ompi,indexed,multi,check,checkmiss,pairs,slownode-json,four,missingg}/0.out >"$ND_TMP/v" 2>&1
then ok "the documents validate against docs/schema/bench.json and merge.json"; else not_ok "schema: $(head -3 "$ND_TMP/v")"; fi

if [ "$(rcs checkmiss)" = "3 3" ] && [ "$(rcs checkmiss1)" = "3" ]; then ok "a node missing: every node that came exits 3, the worst node's"
else not_ok "check with a node missing: exit statuses $(rcs checkmiss); $(rcs checkmiss1)"; fi
# (the checkup itself after the deadline: a second here, several in the sanitized build)
within 20000 "$(cat "$ND_TMP/checkmiss/0.ms")" "the fleet verdict after the 3 s deadline, not at the kill (ms)"
OUT="$ND_TMP/checkmiss1/0.out"
expect_out '^INCOMPLETE: 2 nodes, .*; missing: n1$' "text: the fleet's headline names the missing node"
expect_out '^  ! n1 +missing +- +- +never joined the rendezvous within 3 s$' "text: the missing node's row"
expect_out '^  \* n0 +INCOMPLETE +4x H100 PCIe ' "text: the node that came, with its own verdict"
expect_out '^    n0 +slurm +scontrol update nodename=n0 state=drain reason="nccl-doctor: INCOMPLETE ' "text: the drain line (--fail-on warning)"
expect_out '^ ! not run +rank 1 \(node n1\) never joined within 3 s$' "text: why the all_reduce across the nodes did not run"

OUT="$ND_TMP/slownode/0.out"
if [ "$(rcs slownode)" = "1 1 1 1" ]; then ok "a slow node: every rank exits 1 (DEGRADED)"; else not_ok "slow node: exit statuses $(rcs slownode)"; fi
expect_out "^# nccl-doctor: slow node n2: its fastest link 0\.20 GB/s, the median of the nodes' fastest links 1\.9[0-9]$" "text: the slow node named, with its fastest link and the nodes' median"
expect_out '^# n2  +-  +0\.20  +-  +0\.20 $' "text: its row of the matrix"
if ! grep -q 'slow link' "$OUT"; then ok "text: no link called slow by itself"; else not_ok "text: a slow link named"; fi

# --- bad variables: one line, usage -------------------------------------------
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 run_nd "${SMALL[@]}"
expect_rc 64 "mpirun's variables without a rank-0 address"
expect_err "where rank 0 listens is not known: give --rendezvous HOST:PORT" "says what to give"
RANK=5 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 run_nd "${SMALL[@]}" --rendezvous 'a b:1'
expect_rc 64 "RANK outside WORLD_SIZE"
expect_err_lines 2 "one line and the usage hint"

# srun --ntasks-per-node=1 ... bench -t 2: each process drives its GPUs itself (-g), no threads; --local
SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_STEP_ID=0 run_nd "${SMALL[@]}" -t 2
expect_rc 64 "srun's 2 tasks with -t 2"
expect_err "every process drives its ranks' GPUs itself: no -t or --threads \(-g G: G GPUs of each process; --local: each process a benchmark of its own node\)" "says -g and --local"
SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_STEP_ID=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 run_nd bench --pairs quick -g 2
expect_rc 64 "--pairs with -g 2"
expect_err "--pairs runs one rank per process: no -g" "says so"
SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_STEP_ID=0 NCCL_DOCTOR_FAKEGPU_SCENARIO=$SC run_nd "${SMALL[@]}" -g 2 --local
expect_rc 0 "--local: this node's own 2 ranks"

# --- nothing left running -----------------------------------------------------
# (the processes that carry this script's tag, grep itself aside: one grep over every environment)
left=$(for e in $(grep -lzx "NCCL_DOCTOR_FAKEGPU_SHM_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null); do
  tr '\0' ' ' <"${e%/environ}/cmdline" 2>/dev/null | grep -q nccl-doctor && echo "${e%/environ}"; done)
if [ -z "$left" ] && ! ls /dev/shm/fakenccl-"$TAG"-* >/dev/null 2>&1; then ok "no process or segment left"; else not_ok "left: $left"; fi
finish
