#!/bin/bash
# nccl-doctor logs: the rules of the NVSwitch fabric and the hardware
# (fabric.c), each on small constructed lines in the real formats, once where
# it fires and once where it must not (docs/logs.md says which public cases
# motivated each):
#  - the fabric manager's failure (systemctl, its driver version check);
#  - a stop inside NVLS set-up; more than 2 GPUs of an NVSwitch model on one
#    host in a run that stopped: NVLS and the fabric manager;
#  - the container runtime's "no cuda-capable device": the host's GPUs;
#  - a stop after NCCL routed over NVLink keeps the NVLink a suspect.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

finding() { json_check "any(f['id'] == '$1' for f in d['findings'])" "$2"; }
# nccl-tests' GPU lines: N GPUs of model M on host h1
gpus() {
	local i
	echo "# Using devices"
	for i in $(seq 0 $(($1 - 1))); do
		printf '#  Rank %2d Group  0 Pid    500 on         h1 device %2d [0000:%02x:00] %s\n' "$i" "$i" $((16 + i)) "$2"
	done
}
# the head of one process's NCCL log on one host, cut at T2 (no hang marker)
head_t2() {
	printf '%s\n' \
		"h1:500:500 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>" \
		"h1:500:500 [0] NCCL INFO cudaDriverVersion 12040" \
		"h1:500:500 [0] NCCL INFO NCCL version ${1:-2.26.5}+cuda12.4" \
		"h1:500:510 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."
}

echo "h:9:9 [0] transport/nvls.cc:120 NCCL WARN Cuda failure 'operation not supported'" >"$ND_TMP/onsn.log"
run_nd logs --json "$ND_TMP/onsn.log"
first fabric_manager_nvswitch "operation not supported in NVLS set-up stays NVLS"

# other components
printf '%s\n' '● nvidia-fabricmanager.service - NVIDIA fabric manager service' \
	'     Active: failed (Result: exit-code) since Mon 2024-07-01 14:43:57 UTC; 5s ago' \
	'    Process: 444114 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=1/FAILURE)' >"$ND_TMP/fm.log"
run_nd logs --json "$ND_TMP/fm.log"
first fabric_manager_nvswitch "systemctl status of a failed fabric manager"
echo '     Process: 4441 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=0/SUCCESS)' >"$ND_TMP/fmok.log"
run_nd logs --json "$ND_TMP/fmok.log"
no_finding LOG_FABRIC_MANAGER_FAILED "a fabric manager that exited with success is no failure"
echo '`NVIDIA GPU driver interface version 550.90.07 don'"'"'t match with driver version 550.54.15`' >"$ND_TMP/fmv.log"
run_nd logs --json "$ND_TMP/fmv.log"
first fabric_manager_nvswitch "the fabric manager's driver version check"
has_finding FABRIC_MANAGER_VERSION_MISMATCH "the fabric manager's driver version check: its finding"

# a stop inside NVLS set-up; an nvidia-smi topo -m matrix of PCIe paths
echo 'c2ce1c877ea3:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824' >"$ND_TMP/nvls.log"
run_nd logs --json "$ND_TMP/nvls.log"
first fabric_manager_nvswitch "the log ends inside NVLS set-up"
has_finding LOG_HANG_NVLS_SETUP "the log ends inside NVLS set-up: its finding"

echo 'docker: Error response from daemon: OCI runtime create failed: container_linux.go:346: starting container process caused "process_linux.go:432: running prestart hook 1 caused "error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: cuda error: no cuda-capable device is detected' >"$ND_TMP/nc.log"
run_nd logs --json "$ND_TMP/nc.log"
first gpu_hardware "container runtime: the host's GPUs fail"
json_check 'not any(c["cause"] == "duplicate_gpu_or_device_mapping" for c in d["causes"])' "container runtime: no device-mapping verdict"

# NVLink in the graph, then the log stops
nvl() { # TYPE
cat <<LOG
box:5637:5671 [1] NCCL INFO Pattern 4, crossNic 0, nChannels 1, speed 21.000000/21.000000, type $1, sameChannels 1
box:5637:5671 [1] NCCL INFO  0 : GPU/0 GPU/1
box:5637:5670 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 1, speed 21.000000/21.000000, type $1, sameChannels 1
box:5637:5670 [0] NCCL INFO Channel 00/01 :    0   1
box:5637:5671 [1] NCCL INFO threadThresholds 8/8/64 | 16/8/64 | 8/8/64
box:5637:5671 [1] NCCL INFO Trees [0] -1/-1/-1->1->0|0->1->-1/-1/-1
box:5637:5670 [0] NCCL INFO threadThresholds 8/8/64 | 16/8/64 | 8/8/64
LOG
}
nvl NVL/PIX >"$ND_TMP/nvl.log"
run_nd logs --json "$ND_TMP/nvl.log"
first nvlink_fabric "a stop after NCCL routed over NVLink: the NVLink first"
finding LOG_GRAPH_NVLINK "NVLink graph: its info finding"
nvl PIX/PIX >"$ND_TMP/pix.log"
run_nd logs --json "$ND_TMP/pix.log"
json_check "d['causes'] and d['causes'][0]['cause'] != 'nvlink_fabric'" "a stop over PCIe does not put the NVLink first"

# more than 2 GPUs of an NVSwitch model on one host: NVLS and the fabric manager
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
# an NVSwitch SXid pasted with the job's output
echo "[ 5432.1] nvidia-nvswitch3: SXid (PCI:0000:c8:00.0): 24007, Fatal, Link 44 sourcetrack TCEN0 crumbstore ECC DBE Error" >"$ND_TMP/sx.log"
run_nd logs --json "$ND_TMP/sx.log"
first nvlink_fabric "an SXid line: the NVLink fabric"
has_finding LOG_NVSWITCH_SXID "an SXid line: its finding"
echo "h:1:2 [0] enqueue.cc:1 NCCL WARN Cuda failure 'uncorrectable NVLink error was detected during the execution'" >"$ND_TMP/nvl.log"
run_nd logs --json "$ND_TMP/nvl.log"
first nvlink_fabric "CUDA's uncorrectable NVLink error: the NVLink fabric"
finish
