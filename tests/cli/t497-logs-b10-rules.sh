#!/bin/bash
# nccl-doctor logs: the rules added after scoring the held-out public batch 10
# (tests/fixtures/logs/public 134-141, docs/logs.md), each on small
# constructed lines in the real formats, once where it fires and once where
# it must not:
#  - a transport switched off where the run was started (command line,
#    export, mpirun -x, NCCL's 'set by environment'): that transport's
#    fallback causes go, a cause a line names stays;
#  - more than 2 GPUs of an NVSwitch model on one host: NVLS / fabric manager;
#  - a launcher's exit code after nccl-tests: failed (2, 3), not a hang;
#    testTimeout (4) is one;
#  - ncclRemoteError with no transport named: the sockets are a candidate;
#  - a bootstrap stop on one host with no hang marker: a warning that says so.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

nothing_out() { json_check "not any('taken out' in e.get('text', '') for f in d['findings'] for e in f['evidence'])" "$1"; }
title_has() { json_check "any(f['id'] == '$1' and '$2' in f['title'] for f in d['findings'])" "$3"; }

# the head of one process's NCCL log on one host, cut at T2 (no hang marker)
head_t2() {
	printf '%s\n' \
		"h1:500:500 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>" \
		"h1:500:500 [0] NCCL INFO cudaDriverVersion 12040" \
		"h1:500:500 [0] NCCL INFO NCCL version ${1:-2.26.5}+cuda12.4" \
		"h1:500:510 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."
}
# nccl-tests' GPU lines: N GPUs of model M on host h1
gpus() {
	local i
	echo "# Using devices"
	for i in $(seq 0 $(($1 - 1))); do
		printf '#  Rank %2d Group  0 Pid    500 on         h1 device %2d [0000:%02x:00] %s\n' "$i" "$i" $((16 + i)) "$2"
	done
}

# 1. a transport switched off where the run was started
{ echo 'root@h1:/nccl-tests# CUDA_VISIBLE_DEVICES=0,1 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./build/all_reduce_perf -g 2'; head_t2; } >"$ND_TMP/t1.log"
run_nd logs --json "$ND_TMP/t1.log"
no_cause p2p_pcie_acs_iommu "NCCL_P2P_DISABLE=1 on the command line: P2P over PCIe out of the fallbacks"
no_cause p2p_virtualization "NCCL_P2P_DISABLE=1: P2P in a VM out too"
has_cause shm_too_small "the other intra-node paths stay"
has_finding LOG_ENV_TRANSPORT_SWITCH "the switch's finding says what was taken out"
{ echo 'if it hangs, try (NCCL_P2P_DISABLE=1) and rerun'; head_t2; } >"$ND_TMP/t1n.log"
run_nd logs --json "$ND_TMP/t1n.log"
has_cause p2p_pcie_acs_iommu "advice text in parentheses is no command line: P2P stays"
{ echo 'root@h1:/nccl-tests# NCCL_P2P_DISABLE=0 ./build/all_reduce_perf -g 2'; head_t2; } >"$ND_TMP/t1z.log"
run_nd logs --json "$ND_TMP/t1z.log"
has_cause p2p_pcie_acs_iommu "NCCL_P2P_DISABLE=0 does not disable P2P"
{ echo 'export NCCL_SHM_DISABLE=1'; head_t2; } >"$ND_TMP/t1s.log"
run_nd logs --json "$ND_TMP/t1s.log"
no_cause shm_too_small "export NCCL_SHM_DISABLE=1: /dev/shm out of the fallbacks"
has_cause p2p_pcie_acs_iommu "P2P stays when only SHM is off"
{ echo 'mpirun -np 2 -x NCCL_P2P_DISABLE=1 ./all_reduce_perf'; head_t2
  echo 'h1:500:510 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC'; } >"$ND_TMP/t1p.log"
run_nd logs --json "$ND_TMP/t1p.log"
nothing_out "a P2P connection in the log: the switch did not apply to this run, nothing taken out"
has_cause p2p_pcie_acs_iommu "and P2P stays a candidate"
printf '%s\n' 'h1:500:500 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.' >"$ND_TMP/t1e.log"
head_t2 >>"$ND_TMP/t1e.log"
run_nd logs --json "$ND_TMP/t1e.log"
no_cause p2p_pcie_acs_iommu "NCCL's own 'set by environment' line switches P2P off as well"
{ echo 'NCCL_P2P_DISABLE=1 python train.py'
  echo 'h1:500:510 [0] transport/p2p.cc:300 NCCL WARN failed to open CUDA IPC handle : 201 invalid device context'
  echo 'h1:500:510 [0] NCCL INFO transport.cc:163 -> 1'; } >"$ND_TMP/t1w.log"
run_nd logs --json "$ND_TMP/t1w.log"
nothing_out "a warning from NCCL's P2P transport: P2P ran, the switch was not this run's"

# 2. more than 2 GPUs of an NVSwitch model on one host: NVLS and the fabric manager
{ echo 'root@h1:/nccl-tests# NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4'; gpus 4 'NVIDIA H800'; head_t2; } >"$ND_TMP/t2.log"
run_nd logs --json "$ND_TMP/t2.log"
has_finding LOG_NVLS_CANDIDATE "4 H800 on one host in a run that stopped: the NVLS finding"
first fabric_manager_nvswitch "P2P off, NVLS on: the fabric manager first"
{ gpus 2 'NVIDIA H800'; head_t2; } >"$ND_TMP/t2two.log"
run_nd logs --json "$ND_TMP/t2two.log"
no_cause fabric_manager_nvswitch "2 GPUs: NCCL does not set up NVLS"
{ gpus 4 'NVIDIA H100 PCIe'; head_t2; } >"$ND_TMP/t2pcie.log"
run_nd logs --json "$ND_TMP/t2pcie.log"
no_cause fabric_manager_nvswitch "PCIe cards: no NVSwitch"
{ gpus 4 'NVIDIA H100 80GB HBM3'; head_t2 2.16.2; } >"$ND_TMP/t2old.log"
run_nd logs --json "$ND_TMP/t2old.log"
no_cause fabric_manager_nvswitch "NCCL 2.16: no NVLS yet"
{ gpus 4 'NVIDIA H200'; echo 'h1:500:500 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.'; head_t2; } >"$ND_TMP/t2off.log"
run_nd logs --json "$ND_TMP/t2off.log"
no_cause fabric_manager_nvswitch "NCCL_NVLS_ENABLE=0: NVLS ruled out"
{ gpus 8 'NVIDIA H200'; head_t2; echo 'h1:500:510 [0] transport/shm.cc:114 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9637892 bytes'; } >"$ND_TMP/t2root.log"
run_nd logs --json "$ND_TMP/t2root.log"
no_finding LOG_NVLS_CANDIDATE "a root failure explains the run: no NVLS candidate"

# 3. a launcher's exit code after nccl-tests
tests_tail() {
	printf '%s\n' '#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error' \
		'h1:500:500 [0] NCCL INFO Launch mode Parallel' \
		'mpirun detected that one or more processes exited with non-zero status, thus causing' \
		'the job to be terminated. The first process to do so was:' '' \
		'  Process name: [[11192,1],8]' "  Exit code:    $1"
}
tests_tail 3 >"$ND_TMP/t3.log"
run_nd logs --json "$ND_TMP/t3.log"
sev_of LOG_NCCL_TESTS_EXIT error "exit code 3 after nccl-tests: testNcclError, the run failed"
sev_of LOG_HANG_STAGE_UNKNOWN info "and the stop is no possible hang"
title_has LOG_HANG_STAGE_UNKNOWN 'not a hang' "the stage finding says why"
expect_rc 2 "a failed run: problem found"
tests_tail 4 >"$ND_TMP/t3t.log"
run_nd logs --json "$ND_TMP/t3t.log"
no_finding LOG_NCCL_TESTS_EXIT "exit code 4 is testTimeout: no 'did not hang'"
sev_of LOG_HANG_STAGE_UNKNOWN error "testTimeout: the stop is a hang"
tests_tail 3 | grep -v size >"$ND_TMP/t3n.log"
run_nd logs --json "$ND_TMP/t3n.log"
no_finding LOG_NCCL_TESTS_EXIT "an exit code with no nccl-tests output says nothing of nccl-tests' codes"
{ gpus 2 'Tesla V100-SXM2-32GB'; echo 'srun: error: node12: task 1: Exited with exit code 2'; } >"$ND_TMP/t3s.log"
run_nd logs --json "$ND_TMP/t3s.log"
title_has LOG_NCCL_TESTS_EXIT 'testCudaError' "Slurm's exit code 2 after nccl-tests' GPU lines: a CUDA error"

# 4. ncclRemoteError with no transport named
r='torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, remote process exited or there was a network error, NCCL version 2.18.6'
echo "$r" >"$ND_TMP/t4.log"
run_nd logs --json "$ND_TMP/t4.log"
top3 bootstrap_network "the remote error alone: the sockets' interface among the first three"
first peer_died_or_oom "the dead peer stays first"
printf '%s\n' "$r" 'Last error:' 'socketProgress: Connection closed by remote peer node2<42830>' >"$ND_TMP/t4c.log"
run_nd logs --json "$ND_TMP/t4c.log"
no_cause bootstrap_network "a connection that closed existed: no interface candidate from this rule"
printf '%s\n' 'h1:500:510 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>' "$r" >"$ND_TMP/t4ib.log"
run_nd logs --json "$ND_TMP/t4ib.log"
no_cause bootstrap_network "IB named: the IB reading stands"

# 5. a bootstrap stop on one host with no hang marker
{ gpus 4 'Tesla V100-SXM2-32GB'; head_t2; } >"$ND_TMP/t5.log"
run_nd logs --json "$ND_TMP/t5.log"
sev_of LOG_HANG_BOOTSTRAP warning "one host, no marker: the bootstrap stop is a warning"
title_has LOG_HANG_BOOTSTRAP 'possible hang' "and says the log may just stop"
json_check "any(f['id'] == 'LOG_HANG_BOOTSTRAP' and any('NCCL_SOCKET_IFNAME rarely matters' in e.get('text', '') for e in f['evidence']) for f in d['findings'])" "one process drives every GPU: the interface rarely matters"
{ gpus 4 'Tesla V100-SXM2-32GB'; head_t2; echo 'rc=124'; } >"$ND_TMP/t5k.log"
run_nd logs --json "$ND_TMP/t5k.log"
sev_of LOG_HANG_BOOTSTRAP error "killed by timeout(1): a hang marker, the bootstrap stop stays an error"
finish
