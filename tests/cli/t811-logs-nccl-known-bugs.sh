#!/usr/bin/env bash
# logs: NCCL's known bugs by version (kb/nccl_known_bugs.h, generated from
# NCCL's release notes by tools/nccl-known-bugs). A log whose NCCL version is
# before a fix and that shows the note's symptoms gets LOG_NCCL_KNOWN_BUG with
# the note, its release and the fix, and driver_or_kernel_bug ranks; the same
# symptoms on the fixed release, the version without the symptoms, or a
# symptom without the place it happened give nothing; a confirmed
# environmental cause keeps the first place (the known bug is then a finding).
# And the CUDA compatibility matrix (kb/cuda_compat.h): a build for a newer
# CUDA than the driver names the minimum driver of NVIDIA's table.
. "$(dirname "$0")/lib.sh"
c="$ND_SRC/tests/fixtures/logs/constructed"
bug() { json_check "any(f['id'] == 'LOG_NCCL_KNOWN_BUG' and f['title'] == '''$1''' for f in d['findings'])" "$2"; }
fix() { json_check "any(f['id'] == 'LOG_NCCL_KNOWN_BUG' and any(x['kind'] == '$1' and x['text'] == '$2' for x in f['fixes']) for f in d['findings'])" "$3"; }
ev() { json_check "any(f['id'] == 'LOG_NCCL_KNOWN_BUG' and any('''$1''' in e['text'] for e in f['evidence']) for f in d['findings'])" "$2"; }

# 2.19.3, every rank stuck in an alltoall (PyTorch's watchdog, OpType=ALLTOALL_BASE):
# 2.20.3's "Fix hang during A2A connection."
run_nd logs --json "$c/nccl-2.19-alltoall-watchdog.log"
expect_rc 2 "2.19.3 alltoall hang: a problem"
bug 'NCCL 2.19.3 has a known bug that the release notes of 2.20.3-1 describe as "Fix hang during A2A connection."; fixed in 2.20.3' \
  "2.19.3 alltoall hang: the known bug with the note, its release and the fix's version"
ev 'NCCL 2.20.3 release notes (v2.20.3-1, commit b6475625fbca, line 12): "Fix hang during A2A connection." (the log shows: hang, alltoall)' \
  "the evidence names the release commit, the line and what the log shows"
fix note "upgrade NCCL to >= 2.20.3 (the release whose notes fix it)" "the fix: upgrade NCCL to the fixed release"
fix shell "pip install \\'nvidia-nccl-cu12>=2.20.3\\'" "the fix: the pip wheel of the fixed release (the log's +cuda12 build)"
top3 driver_or_kernel_bug "2.19.3 alltoall hang: the known NCCL bug ranks"
json_check "next(c for c in d['causes'] if c['cause'] == 'driver_or_kernel_bug')['finding_ids'] == ['LOG_NCCL_KNOWN_BUG']" \
  "the ranked cause's reason is the known bug"
# the rows of MNNVL / over 80 ranks need those conditions: not in this log
json_check "not any('MNNVL' in e['text'] for f in d['findings'] if f['id'] == 'LOG_NCCL_KNOWN_BUG' for e in f['evidence'])" \
  "a row whose condition (MNNVL, a large job) the log does not show is not named"

# the same log on 2.20.5 (after the fix): nothing
run_nd logs --json "$c/nccl-2.20-alltoall-watchdog.log"
no_finding LOG_NCCL_KNOWN_BUG "2.20.5 alltoall hang: fixed release, no known bug"
no_cause driver_or_kernel_bug "2.20.5 alltoall hang: no known-bug cause"

# 2.19.3 with an allreduce stuck (no alltoall): the version alone is not a symptom
run_nd logs --json "$c/pcie-p2p-watchdog.log"
no_finding LOG_NCCL_KNOWN_BUG "2.19.3 allreduce hang: the affected version without the symptom, no known bug"
first p2p_pcie_acs_iommu "2.19.3 allreduce hang: the ACS/IOMMU story unchanged"

# 2.18.1: shared-memory creation fails, then the process segfaults: 2.18.3's
# "Fix crash when shared memory creation fails."; /dev/shm full stays first
run_nd logs --json "$c/nccl-2.18-shm-crash.log"
bug 'NCCL 2.18.1 has a known bug that the release notes of 2.18.3-1 describe as "Fix crash when shared memory creation fails."; fixed in 2.18.3' \
  "2.18.1 shm crash: the known bug"

ev 'failed to extend /dev/shm' "2.18.1 shm crash: the shared-memory warning is evidence"
first shm_too_small "2.18.1 shm crash: the confirmed cause (/dev/shm) stays first"
no_cause driver_or_kernel_bug "2.18.1 shm crash: beside a confirmed root failure the known bug is a finding, not a ranked cause"

# the same on 2.18.3: fixed
sed 's/NCCL version 2.18.1+cuda12.1/NCCL version 2.18.3+cuda12.1/' "$c/nccl-2.18-shm-crash.log" >"$ND_TMP/fixed.log"
run_nd logs --json "$ND_TMP/fixed.log"
no_finding LOG_NCCL_KNOWN_BUG "2.18.3 shm crash: fixed release, no known bug"
first shm_too_small "2.18.3 shm crash: /dev/shm first"

# 2.18.1, shared memory fails but nothing crashes: the note is a crash, not an init failure
sed 's/NCCL version 2.20.5+cuda12.4/NCCL version 2.18.1+cuda12.1/' "$c/docker-shm-2.20.log" >"$ND_TMP/nocrash.log"
run_nd logs --json "$ND_TMP/nocrash.log"
no_finding LOG_NCCL_KNOWN_BUG "2.18.1 shm failure without a crash: no known bug"

# a crash with no place it happened: no generic 'Fix crash' row
cat >"$ND_TMP/crash.log" <<'LOG'
node1:100:100 [0] NCCL INFO cudaDriverVersion 12020
NCCL version 2.12.7+cuda11.6
node1:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>
node1:100:100 [0] NCCL INFO comm 0x55aa rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE
Fatal Python error: Segmentation fault
LOG
run_nd logs --json "$ND_TMP/crash.log"
no_finding LOG_NCCL_KNOWN_BUG "2.12.7 crash with no key where it happened: no known bug"

# 2.19.3: NCCL's ring check fails on its own line ('graph/rings.cc ... ring 0
# does not loop back to start'); 2.19.4's "Make topology detection more
# deterministic when PCI speeds are not available (fix issue #1020)" explains
# that very line (topology: graph/; consistency: the check's words), so the
# bug competes, behind the configuration class the line gives
cat >"$ND_TMP/ring.log" <<'LOG'
node1:1234:1234 [0] NCCL INFO NCCL version 2.19.3+cuda12.3
node1:1234:1300 [0] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (13 != 15).
node1:1234:1300 [0] NCCL INFO init.cc:1136 -> 3
LOG
run_nd logs --json "$ND_TMP/ring.log"
bug 'NCCL 2.19.3 has a known bug that the release notes of 2.19.4-1 describe as "Make topology detection more deterministic when PCI speeds are not available (fix issue #1020)."; fixed in 2.19.4' \
  "2.19.3 ring check: the known bug"
first nccl_config_error "2.19.3 ring check: the class of the line stays first"
json_check "[c['cause'] for c in d['causes']][1] == 'driver_or_kernel_bug'" "2.19.3 ring check: the known bug ranked second"
sed 's/2.19.3+cuda12.3/2.19.4+cuda12.3/' "$ND_TMP/ring.log" >"$ND_TMP/ring-fixed.log"
run_nd logs --json "$ND_TMP/ring-fixed.log"
no_finding LOG_NCCL_KNOWN_BUG "2.19.4 ring check: fixed release, no known bug"
no_cause driver_or_kernel_bug "2.19.4 ring check: no bug ranked"

# ---- the CUDA compatibility matrix: an NCCL built for a newer CUDA than the driver ----
cneeds() { json_check "any(f['id'] == 'LOG_NCCL_CUDA_NEWER_THAN_DRIVER' and any('''$1''' in e['text'] for e in f['evidence']) for f in d['findings'])" "$2"; }
# NCCL says the driver is insufficient: the finding names the minimum driver
run_nd logs --json "$c/nccl-2.18-cuda12-driver-11.4.log"
cneeds "runs NCCL 2.18.1+cuda12.1, built for CUDA 12.1: it needs a Linux driver of branch R525 or newer (CUDA 12.x, NVIDIA's compatibility table https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html); its driver supports CUDA 11.4 (cudaDriverVersion 11040)" \
  "'driver version is insufficient': the minimum driver of NVIDIA's table and the driver's CUDA"
first version_mismatch "'driver version is insufficient': version_mismatch first"
# no message, but the driver's CUDA family is older than the build's: the same finding
sed -e '/WARN Cuda failure/d' -e '/init.cc:1641/d' -e "s/^Cuda failure 'CUDA driver.*/unhandled cuda error/" "$c/nccl-2.18-cuda12-driver-11.4.log" >"$ND_TMP/nomsg.log"
run_nd logs --json "$ND_TMP/nomsg.log"
has_finding LOG_NCCL_CUDA_NEWER_THAN_DRIVER "+cuda12.1 on a CUDA 11.4 driver without NCCL's message: the build needs a newer driver"
first version_mismatch "+cuda12.1 on a CUDA 11.4 driver: version_mismatch first"
# 10.x: each minor needs its own driver
sed -e 's/cudaDriverVersion 11040/cudaDriverVersion 10010/' -e 's/2.18.1+cuda12.1/2.8.4+cuda10.2/' "$ND_TMP/nomsg.log" >"$ND_TMP/cu102.log"
run_nd logs --json "$ND_TMP/cu102.log"
cneeds "built for CUDA 10.2: it needs a Linux driver 440.33 or newer (CUDA 10.2" "+cuda10.2 on a CUDA 10.1 driver: 440.33"
# the same family (a 12.4 build on a 12.2 driver): minor version compatibility, no finding
sed -e 's/cudaDriverVersion 11040/cudaDriverVersion 12020/' -e 's/2.18.1+cuda12.1/2.21.5+cuda12.4/' "$ND_TMP/nomsg.log" >"$ND_TMP/minor.log"
run_nd logs --json "$ND_TMP/minor.log"
no_finding LOG_NCCL_CUDA_NEWER_THAN_DRIVER "+cuda12.4 on a CUDA 12.2 driver: minor version compatibility, no finding"

# the text report carries the note (wide: a report may wrap at its width)
COLUMNS=1000 run_nd logs "$c/nccl-2.19-alltoall-watchdog.log"
expect_out 'LOG_NCCL_KNOWN_BUG +NCCL 2\.19\.3 has a known bug that the release notes of 2\.20\.3-1 describe as "Fix hang during A2A connection\."; fixed in 2\.20\.3' \
  "text: the finding's line"
finish
