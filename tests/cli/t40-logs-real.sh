#!/bin/bash
# nccl-doctor logs on the real H200 captures (tests/fixtures/logs/real-h200).
. "$(dirname "$0")/lib.sh"
# sanitizer builds: a report must fail the test, not look like exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
F="$ND_FIXTURES/logs/real-h200"

for f in torch-1rank-info torch-1rank-subsys-all torch-1rank-trace torch-all-disabled; do
  run_nd logs --json "$F/$f.log"
  expect_rc 0 "$f: healthy run"
  json_check 'd["causes"] == [] and len(d["ranks"]) == 1 and d["ranks"][0]["stage"] in ("T9", "T10") and d["ranks"][0]["init_complete"]' "$f: one rank at T9/T10, no cause"
  json_check 'd["ranks"][0]["nccl_version"] == "2.28.9+cuda13.0" and d["ranks"][0]["cuda_driver"] == 13000 and d["ranks"][0]["bus_id"] == "60"' "$f: version, driver, busId"
  json_check 'list(d.keys())[:4] == ["schema_version", "causes", "ranks", "findings"] and d["schema_version"] == 4' "$f: JSON starts with schema_version, causes, ranks, findings"
done
run_nd logs --json "$F/torch-all-disabled.log"
json_check 'd["ranks"][0]["env"].get("NCCL_P2P_DISABLE") == "1" and d["ranks"][0]["env"].get("NCCL_IB_DISABLE") == "1"' "all-disabled: environment overrides reported"

run_nd logs "$F/torch-1rank-info.log"
expect_rc 0 "text report of a healthy run"
expect_out 'Verdict: HEALTHY' "verdict healthy"
expect_out '0/1 +vm:565 .*T9 +T9 init complete' "rank line with its stage"

run_nd logs --json "$F/torch-bad-ifname.log"
expect_rc 2 "bad ifname: failure found"
json_check 'd["causes"][0]["cause"] == "bootstrap_network" and d["causes"][0]["confidence"] >= 0.8' "bad ifname: bootstrap_network first"
json_check 'any(e["file"].endswith("torch-bad-ifname.log") and e["line"] == 4 and "no socket interface" in e["text"] for e in d["causes"][0]["evidence"])' "bad ifname: evidence file:line of the WARN"
json_check '"LOG_BOOTSTRAP_NO_INTERFACE" in d["causes"][0]["finding_ids"]' "bad ifname: finding id"
json_check 'd["ranks"][0]["events"][0]["chain"].startswith("init.cc:126 -> 5")' "bad ifname: back-trace chain attached"

run_nd logs --json "$F/torch-dup-gpu-r0.log" "$F/torch-dup-gpu-r1.log"
expect_rc 2 "duplicate GPU: failure found"
json_check 'd["causes"][0]["cause"] == "duplicate_gpu_or_device_mapping"' "duplicate GPU: cause first"
json_check 'sorted(r["rank"] for r in d["ranks"]) == [0, 1] and all(r["nranks"] == 2 for r in d["ranks"])' "duplicate GPU: both ranks of 2"
json_check 'not any(f["id"] == "LOG_RANKS_MISSING" for f in d["findings"])' "duplicate GPU: no rank missing with both files"
run_nd logs --json "$F/torch-dup-gpu-r0.log"
json_check 'd["causes"][0]["cause"] == "duplicate_gpu_or_device_mapping" and any(f["id"] == "LOG_RANKS_MISSING" for f in d["findings"])' "duplicate GPU, one file: cause and the missing rank"

run_nd logs --json "$F/torch-missing-peer-timeout.log"
expect_rc 2 "silent wait killed after 45 s: failure found"
json_check 'any(f["id"] == "LOG_HANG_BEFORE_NCCL" for f in d["findings"])' "hang before any NCCL line"
json_check 'd["causes"][0]["cause"] == "bootstrap_network" and d["causes"][0]["confidence"] < 0.6 and "LOG_HANG_BEFORE_NCCL" in d["causes"][0]["finding_ids"]' "hang before NCCL: honest, moderate confidence"
json_check 'd["ranks"] == []' "no NCCL process"

run_nd logs "$F"
expect_rc 2 "whole directory (healthy and failed runs mixed)"
expect_out 'torch-dup-gpu-r1.log' "directory inputs listed"
finish
