#!/bin/bash
# nccl-doctor logs on constructed failure stories: every row of
# tests/fixtures/logs/constructed/EXPECTED (inputs | first cause | exit status).
. "$(dirname "$0")/lib.sh"
# sanitizer builds: a report must fail the test, not look like exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
C="$ND_FIXTURES/logs/constructed"
while IFS='|' read -r inputs cause code; do
  case "$inputs" in ''|'#'*) continue ;; esac
  args=()
  for i in $inputs; do args+=("$C/$i"); done
  run_nd logs --json "${args[@]}"
  expect_rc "$code" "$inputs"
  if [ "$cause" = "-" ]; then
    json_check 'd["causes"] == [] and all(r["init_complete"] for r in d["ranks"])' "$inputs: healthy, every rank completed init"
  else
    json_check "d['causes'][0]['cause'] == '$cause'" "$inputs: $cause first"
    json_check 'all(isinstance(e["line"], int) for c in d["causes"] for e in c["evidence"]) and all(0 <= c["confidence"] <= 1 for c in d["causes"])' "$inputs: causes well formed"
  fi
done <"$C/EXPECTED"

run_nd logs --json "$C/vllm-tp4-oom.log"
json_check 'len(d["ranks"]) == 4 and [r["rank"] for r in d["ranks"]] == [0, 1, 2, 3]' "vLLM: four ranks from one interleaved file"
json_check 'd["causes"][0]["evidence"][0]["line"] == 44 and "out of memory" in d["causes"][0]["evidence"][0]["text"]' "vLLM: first failure leads the evidence"
json_check '{f["id"]: f["severity"] for f in d["findings"]}["LOG_PEER_CONNECTION_LOST"] == "warning"' "vLLM: closed connections are consequences"
json_check 'any(t["transport"] == "P2P/CUMEM" and t["peer"] == 1 for t in d["ranks"][0]["transports"])' "vLLM: transport per peer"
run_nd logs --json "$C/pcie-p2p-watchdog.log"
json_check 'all(r["stage"] == "T9" for r in d["ranks"]) and any(f["id"] == "LOG_HANG_DATA_PATH" for f in d["findings"])' "PCIe: init complete, hang in the data path"
run_nd logs --json "$C/mpi-nccl-tests-2.7-healthy.log"
json_check 'all(r["nccl_version"] in ("2.7.8+cuda11.0", None) for r in d["ranks"]) and d["ranks"][0]["nccl_version"] == "2.7.8+cuda11.0"' "Open MPI prefix: bare version line of 2.7"
run_nd logs --json "$C/bootstrap-hang-2node"
json_check 'any(f["id"] == "LOG_BOOTSTRAP_VIRTUAL_IF" and f["severity"] == "warning" for f in d["findings"])' "bootstrap over docker0 flagged"
json_check 'any("14 of 16" in e["text"] or "2 of 16" in e["text"] for f in d["findings"] if f["id"] == "LOG_RANKS_MISSING" for e in f["evidence"])' "ranks missing counted"
# a log that just stops after init (no kill, no Destroy, no output after): a possible hang, a warning
cat >"$ND_TMP/stops.log" <<'LOG'
gpu:11:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
gpu:11:11 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x9 - Init START
gpu:12:12 [1] NCCL INFO ncclCommInitRank comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2000 commId 0x9 - Init START
gpu:11:11 [0] NCCL INFO P2P Chunksize set to 131072
gpu:11:30 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC
gpu:12:31 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC
gpu:11:11 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x9 - Init COMPLETE
gpu:12:12 [1] NCCL INFO ncclCommInitRank comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2000 commId 0x9 - Init COMPLETE
LOG
run_nd logs --json "$ND_TMP/stops.log"
expect_rc 1 "log that just stops after init: warnings only"
json_check 'd["causes"][0]["cause"] == "p2p_pcie_acs_iommu" and d["causes"][0]["confidence"] < 0.5' "just stops: data path suspected, low confidence"
printf 'step 1 loss 2.0\n' >>"$ND_TMP/stops.log"
run_nd logs --json "$ND_TMP/stops.log"
expect_rc 0 "the application printed after init: healthy"
finish
