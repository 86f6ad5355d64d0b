#!/bin/bash
# `p2p` on the fake GPU stack: healthy PCIe and NVLink machines with modelled
# bandwidth, pairs across two PCIe switches that hang (HANG within the
# deadline while the others complete; the fix names the bridges with ACS
# redirect from the matching sysroot), a corrupting pair (CORRUPT with the
# first bad offset), P2P unsupported (NO_P2P, the host path tested and
# measured), a GPU lost mid-run, a GPU held by another process (skipped
# without --force), a GPU wedged by a hang (later pairs VOID), one GPU (no
# pair). Nothing is left behind: no worker process, no /dev/shm segment.
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t510-$$"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-t510-$$-*' EXIT
scenario() { export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/$1.json"; }
SMALL="--size 64K --bw-size 1M --gpu-size 1M --reps 3"

# --- usage ------------------------------------------------------------------
run_nd p2p -h
expect_rc 0 "p2p -h"
expect_out "--quick" "help lists --quick"
run_nd p2p --size 100
expect_rc 64 "--size below 4 KiB is a usage error"
expect_err "p2p: option '--size' expects bytes" "the message names the option"
run_nd p2p --reps 0
expect_rc 64 "--reps 0 is a usage error"
run_nd p2p --bogus
expect_rc 64 "unknown option"
run_nd p2p --sysroot "$ACS"
expect_rc 64 "a recorded sysroot without --driver"
expect_err "add --driver" "says how to test this machine with those facts"

# --- healthy 4 x PCIe, full mode, modelled numbers --------------------------
scenario pcie4-p2p
run_nd p2p --json --driver --sysroot "$ACS" $SMALL --html "$ND_TMP/p2p.html"
expect_rc 0 "healthy pcie4: exit 0"
html_check "$ND_TMP/p2p.html" --json "$OUT" --pairs 12 --text "GPU pairs: copy-engine bandwidth"
json_check 'len(d["pairs"]) == 12 and all(p["status"] == "OK" for p in d["pairs"])' "12 ordered pairs, all OK"
json_check 'all(p["ce_verified"] and p["sm_verified"] and p["nccl_verified"] and p["ce_path"] == "p2p" for p in d["pairs"])' "copy engine, SM and NCCL verified over P2P"
json_check 'all(p["can_access_peer"] and p["nvml_p2p_caps"]["write"] == "OK" and p["nvml_p2p_caps"]["atomics"] == "OK" for p in d["pairs"])' "capability: CUDA peer access and NVML read/write/atomics"
# 1 MiB over PIX at 24 GB/s + 8 us per copy: 20.285 GB/s; PHB at 18 GB/s: 15.83 GB/s
json_check 'abs(d["matrices"]["ce_unidir_gbs"][0][1] - 1048576 / (1048576 / 24e9 + 8e-6) / 1e9) < 0.01' "CE one way 0->1 (PIX) as modelled"
json_check 'abs(d["matrices"]["ce_unidir_gbs"][0][2] - 1048576 / (1048576 / 18e9 + 8e-6) / 1e9) < 0.01' "CE one way 0->2 (PHB) as modelled"
json_check 'd["matrices"]["ce_unidir_gbs"][1][1] is None and len(d["matrices"]["status"]) == 4' "matrices 4x4, diagonal null"
json_check 'all(d["matrices"][m][0][1] > 0 for m in ("sm_unidir_gbs", "ce_bidir_gbs", "ce_bidir_nop2p_gbs", "sm_bidir_gbs", "latency_us", "latency_nop2p_us"))' "every matrix measured"
json_check 'abs(d["matrices"]["ce_unidir_nop2p_gbs"][0][1] - 1048576 / (1048576 / 10e9 + 12e-6) / 1e9) < 0.01' "P2P off: through the host at 10 GB/s"
json_check 'all(abs(g["h2d_gbs"] - 1048576 / (1048576 / 24e9 + 5e-6) / 1e9) < 0.01 for g in d["gpus"])' "pinned H2D per GPU as modelled"
json_check 'all(g["local_copy_ce_gbs"] > 0 and g["d2h_gbs"] > 0 and g["status"] == "OK" for g in d["gpus"])' "per-GPU numbers for every GPU, kernels verified"
json_check 'all(0.6 < p["ratio"] < 1.0 for p in d["pairs"])' "bandwidth within its link class (gen4 x16 x 0.8)"

# --- healthy 8 x NVLink, function tests only ---------------------------------
scenario nvlink8
t0=$(date +%s%N)
run_nd p2p --json --quick --size 64K
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 0 "nvlink8 --quick: exit 0"
json_check 'len(d["pairs"]) == 56 and all(p["status"] == "OK" and p["link"] == "NV18" for p in d["pairs"])' "56 pairs over NV18, all OK"
json_check '"ce_unidir_gbs" not in d["matrices"]' "--quick measures no bandwidth"
within 20000 "$ms" "8 GPUs, function tests, in time (ms)"

# GPU 1 of nvlink8-faults trained at x8: its host copies are half the others'
scenario nvlink8-faults
run_nd p2p --json --gpus 0-3 --no-nccl $SMALL
json_check 'd["gpus"][1]["h2d_gbs"] < 0.6 * d["gpus"][0]["h2d_gbs"] and d["gpus"][1]["d2h_gbs"] < 0.6 * d["gpus"][2]["d2h_gbs"]' "a x8 GPU copies to and from the host at about half speed"
json_check 'sorted(f["title"][:30] for f in d["findings"] if f["id"] == "GPU_BANDWIDTH_LOW") == ["GPU 1: device-to-host copy at ", "GPU 1: host-to-device copy at "]' "GPU_BANDWIDTH_LOW names GPU 1, both directions"

# --- pairs across the two switches hang ---------------------------------------
scenario pcie4-p2p-hang
t0=$(date +%s%N)
run_nd p2p --json --quick --driver --sysroot "$ACS" --size 64K --timeout 2
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 2 "hang: problem found"
json_check 'sorted((p["src"], p["dst"]) for p in d["pairs"] if p["status"] == "HANG") == sorted([(a, b) for a in range(4) for b in range(4) if a // 2 != b // 2])' "the 8 ordered pairs across the switches HANG"
json_check 'all(p["status"] == "OK" for p in d["pairs"] if p["src"] // 2 == p["dst"] // 2)' "the pairs within a switch complete"
json_check 'all("ce copy" in p["step"] for p in d["pairs"] if p["status"] == "HANG")' "the hung step is named"
json_check 'any(f["id"] == "P2P_HANG" for f in d["findings"])' "P2P_HANG finding"
json_check 'set(x["text"] for f in d["findings"] if f["id"] == "P2P_HANG" for x in f["fixes"] if "setpci" in x["text"]) == {"sudo setpci -s %s ECAP_ACS+0x6.w=0000" % b for b in ["0000:02:08.0", "0000:02:10.0", "0000:12:08.0", "0000:12:10.0"]}' "the fix names the four bridges with ACS redirect"
json_check 'any(x["text"] == "export NCCL_P2P_LEVEL=PXB" for f in d["findings"] for x in f["fixes"])' "NCCL_P2P_LEVEL below the failing class (PHB)"
within 15000 "$ms" "hangs bounded (ms)"

# --- NCCL's own transport hangs while our copies arrive -------------------------
scenario nccl-p2p-hang
run_nd p2p --json --quick --size 64K --timeout 2
expect_rc 2 "NCCL hang: problem found"
json_check 'sorted((p["src"], p["dst"]) for p in d["pairs"] if p["status"] == "HANG") == [(0, 1), (1, 0)]' "0<->1 HANG in NCCL, the rest OK"
json_check 'all(p["step"] == "nccl ncclSend/ncclRecv" and p["ce_verified"] and p["sm_verified"] and p["nccl_verified"] is False for p in d["pairs"] if p["status"] == "HANG")' "the copies verified, NCCL send/recv named as the step"

# --- a corrupting pair --------------------------------------------------------
scenario pcie4-p2p-corrupt
run_nd p2p --json --quick --size 64K
expect_rc 2 "corrupt: problem found"
json_check 'sorted((p["src"], p["dst"]) for p in d["pairs"] if p["status"] == "CORRUPT") == [(1, 3), (3, 1)]' "1->3 and 3->1 CORRUPT"
json_check 'all(p["first_bad_offset"] == 0 and p["ce_verified"] is False for p in d["pairs"] if p["status"] == "CORRUPT")' "first bad offset 0 (one byte in every 4 KiB)"
json_check 'any(f["id"] == "P2P_CORRUPT" for f in d["findings"])' "P2P_CORRUPT finding"

# --- P2P crawls: slower than through the host ---------------------------------
scenario pcie4-p2p-slow
run_nd p2p --json --driver --sysroot "$ACS" $SMALL
expect_rc 1 "slow P2P: warnings"
json_check 'sorted((p["src"], p["dst"]) for p in d["pairs"] if p["status"] == "SLOW") == [(0, 1), (1, 0)]' "0<->1 SLOW, the rest OK"
json_check 'all(p["ratio"] < 0.1 and p["ce_gbs"] < p["ce_nop2p_gbs"] for p in d["pairs"] if p["status"] == "SLOW")' "ratio to the expected bandwidth, P2P slower than the host path"
json_check 'set(f["id"] for f in d["findings"]) == {"P2P_SLOW", "P2P_SLOWER_THAN_HOST"}' "P2P_SLOW and P2P_SLOWER_THAN_HOST"
json_check 'any("also takes P2P from 10 working" in x["text"] for f in d["findings"] for x in f["fixes"])' "the level work-around says what else it costs"

# --- no P2P: the host path instead ---------------------------------------------
scenario pcie4-p2p-nop2p
run_nd p2p --json $SMALL
expect_rc 1 "no P2P: warnings"
json_check 'all(p["status"] == "NO_P2P" and p["ce_path"] == "host" and p["ce_verified"] and p["nccl_verified"] for p in d["pairs"])' "every pair NO_P2P, host copy and NCCL (SHM) verified"
json_check 'all(p["ce_nop2p_gbs"] and p["ce_gbs"] is None for p in d["pairs"])' "host-path bandwidth measured, no P2P numbers"
json_check 'any(f["id"] == "P2P_NOT_SUPPORTED" for f in d["findings"])' "P2P_NOT_SUPPORTED finding"

# --- a GPU lost mid-run ---------------------------------------------------------
scenario pcie4-p2p-lost
run_nd p2p --json $SMALL --timeout 5
expect_rc 2 "lost GPU: problem found"
json_check 'all(p["status"] == "ERROR" and p["error"] == "CUDA_ERROR_DEVICE_UNAVAILABLE" for p in d["pairs"] if 3 in (p["src"], p["dst"]))' "pairs with GPU 3: ERROR DEVICE_UNAVAILABLE"
json_check 'all(p["status"] == "OK" for p in d["pairs"] if 3 not in (p["src"], p["dst"]))' "the other pairs OK"
json_check 'any(f["id"] == "GPU_LOCAL_CORRUPT" for f in d["findings"])' "GPU 3's own test failed"

# a GPU NVML already reports lost is left out, and said so
scenario gpu-lost
run_nd p2p --json --quick --size 64K
expect_rc 2 "NVML-lost GPU: problem found"
json_check 'd["gpus"][2]["state"] == "lost" and all(2 not in (p["src"], p["dst"]) for p in d["pairs"]) and len(d["pairs"]) == 6' "GPU 2 lost: the other 3 GPUs tested"
json_check 'any(f["id"] == "GPU_LOST" for f in d["findings"])' "GPU_LOST finding"

# --- a busy GPU -----------------------------------------------------------------
scenario pcie4-p2p-busy
run_nd p2p --json --quick --size 64K
expect_rc 1 "busy GPU: warning"
json_check 'len(d["pairs"]) == 6 and all(1 not in (p["src"], p["dst"]) for p in d["pairs"])' "GPU 1 skipped: 6 pairs"
json_check '[g["state"] for g in d["gpus"]][1] == "busy: skipped"' "GPU 1 shown as busy"
json_check 'any(f["id"] == "GPU_BUSY_SKIPPED" and "4242" in f["evidence"][0]["text"] for f in d["findings"])' "the finding names the process"
run_nd p2p --json --quick --size 64K --force
json_check 'len(d["pairs"]) == 12' "--force tests it too"

# --- a GPU wedged by a hang ------------------------------------------------------
scenario pcie4-p2p-wedge
run_nd p2p --json --quick --size 64K --timeout 2
expect_rc 2 "wedged: problem found"
json_check 'sorted(g["index"] for g in d["gpus"] if g["wedged"]) == [0, 2]' "GPUs 0 and 2 wedged after the hang"
json_check 'all(p["status"] == "VOID" for p in d["pairs"] if p["status"] not in ("OK", "HANG"))' "later pairs on them VOID"
json_check 'len([p for p in d["pairs"] if p["status"] == "VOID"]) == 4' "4 void pairs"
json_check 'any(f["id"] == "GPU_WEDGED" for f in d["findings"])' "GPU_WEDGED finding"

# --- one GPU -------------------------------------------------------------------
scenario h200-1gpu
run_nd p2p --gpu-size 1M --reps 3
expect_rc 0 "one GPU: healthy"
expect_out "no GPU pair exists" "says plainly that no pair exists"
expect_out "copy CE GB/s" "per-GPU numbers shown"
run_nd p2p --json --gpu-size 1M --reps 3
json_check 'd["pairs"] == [] and d["gpus"][0]["h2d_gbs"] > 0 and d["gpus"][0]["local_copy_ce_gbs"] > 0' "JSON: no pairs, per-GPU numbers"

# --- no driver -------------------------------------------------------------------
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/empty" run_nd p2p
expect_rc 3 "no driver: could not run"
expect_err "cannot test GPU pairs: libnvidia-ml.so.1 \(NVML, part of the NVIDIA driver\) is not installed .*'nccl-doctor sys', 'topo' and 'kernel' still work without it" "says plainly what is missing and what still works"

# --- CUDA's device order is not NVML's: caught, not mislabelled -------------------
scenario pcie4-p2p-order
run_nd p2p --json --quick --size 64K
expect_rc 2 "device order: problem found"
json_check 'all(p["status"] == "ERROR" and p["step"] == "device order" for p in d["pairs"] if {p["src"], p["dst"]} & {0, 1})' "pairs with GPU 0 or 1: ERROR device order"
json_check 'all(p["status"] == "OK" for p in d["pairs"] if not {p["src"], p["dst"]} & {0, 1})' "pair 2<->3 OK"

# --- CUDA broken while NVML works ------------------------------------------------
scenario cuinit-error
run_nd p2p --quick
expect_rc 3 "cuInit fails: could not run"
expect_err "CUDA driver cannot be used: .*cuInit failed" "names cuInit"
scenario cuinit-hang
t0=$(date +%s%N)
run_nd p2p --quick --timeout 2
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 3 "cuInit hangs: could not run"
expect_err "CUDA driver cannot be used: hang" "says it hung"
within 6000 "$ms" "cuInit hang bounded (ms)"

# --- nothing left behind ---------------------------------------------------------
sleep 0.2
left=$(own_workers p2p)
if [ -n "$left" ]; then not_ok "workers left running: $left"; else ok "no worker left running"; fi
if ls /dev/shm/fakenccl-t510-$$-* >/dev/null 2>&1; then not_ok "/dev/shm segments left"; else ok "no /dev/shm segment left"; fi
finish
