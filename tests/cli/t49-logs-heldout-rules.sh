#!/bin/bash
# nccl-doctor logs: the rules added after scoring the held-out public cases
# (tests/fixtures/logs/public 043-062, docs/logs.md "Accuracy"), on small
# constructed logs in the real formats:
#  - the dynamic linker's "undefined symbol: nccl..." is an NCCL older than
#    the program was built for (version_mismatch);
#  - a SIGBUS (UCX, gdb, shell, faulthandler, a back-trace through
#    ncclShmOpen, a rank's exit code -7) is /dev/shm running out; a PCIe
#    AER "Bus Error" and exit code -9 are not;
#  - "Socket creation failed : Address family not supported" is no usable
#    interface; nccl-tests' first error form "NCCL failure f.cu:N" counts;
#  - bootstrap's "Message truncated : received" names NCCL builds, not the
#    application's collectives; with one version on every rank a bug of that
#    version follows; NET/Socket's "message truncated : receiving" stays a
#    collective mismatch;
#  - "no cuda-capable device" from nvidia-container-cli is the host's GPUs
#    failing, not a device mapping; from a framework it stays a mapping error.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}


echo "ImportError: /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister" >"$ND_TMP/sym.log"
run_nd logs --json "$ND_TMP/sym.log"
first version_mismatch "undefined nccl symbol: an older libnccl than the build's"
json_check 'any(f["id"] == "LOG_NCCL_SYMBOL_MISSING" for f in d["findings"])' "undefined nccl symbol: its finding"
echo "ImportError: libfoo.so: undefined symbol: cublasLtCreate" >"$ND_TMP/sym2.log"
run_nd logs --json "$ND_TMP/sym2.log"
json_check 'not any(f["id"] == "LOG_NCCL_SYMBOL_MISSING" for f in d["findings"])' "another library's symbol is no NCCL mismatch"

cat >"$ND_TMP/bus.log" <<'LOG'
[node1:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)
==== backtrace (tid:   3095) ====
 0 0x0000000000043090 killpg()  ???:0
 2 0x000000000007587d ncclGroupEnd()  ???:0
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
LOG
run_nd logs --json "$ND_TMP/bus.log"
first shm_too_small "SIGBUS in an NCCL job: /dev/shm"
printf '%s\n' 'Thread 9 "python" received signal SIGBUS, Bus error.' \
  '#0 0x00007f6b59544f3b in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) ()' >"$ND_TMP/gdb.log"
run_nd logs --json "$ND_TMP/gdb.log"
first shm_too_small "gdb: SIGBUS in ncclShmOpen"
echo "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 (pid: 5275) of binary: /usr/bin/python" >"$ND_TMP/ec7.log"
run_nd logs --json "$ND_TMP/ec7.log"
first shm_too_small "a rank killed by signal 7 (exitcode -7): /dev/shm"
echo "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 5275) of binary: /usr/bin/python" >"$ND_TMP/ec9.log"
run_nd logs --json "$ND_TMP/ec9.log"
json_check 'not any(f["id"] == "LOG_SHM_SIGBUS" for f in d["findings"])' "exitcode -9 (SIGKILL) is no SIGBUS"
echo "[ 8.1] pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)" >"$ND_TMP/aer.log"
run_nd logs --json "$ND_TMP/aer.log"
json_check 'not any(f["id"] == "LOG_SHM_SIGBUS" for f in d["findings"])' "a PCIe AER Bus Error is no SIGBUS"

echo "node1:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4" >"$ND_TMP/bt.log"
run_nd logs --json "$ND_TMP/bt.log"
first version_mismatch "bootstrap message truncated: NCCL builds first"
json_check 'any(c["cause"] == "driver_or_kernel_bug" for c in d["causes"][:3])' "no versions seen: an NCCL bug among the first three"
json_check 'not any(c["cause"] == "collective_mismatch_app_bug" for c in d["causes"])' "bootstrap messages are no application collectives"
cat >"$ND_TMP/bt2.log" <<'LOG'
node1:4827:4827 [0] NCCL INFO cudaDriverVersion 12020
NCCL version 2.19.3+cuda12.3
node2:5120:5120 [0] NCCL INFO cudaDriverVersion 12020
node2:5120:5120 [0] NCCL INFO NCCL version 2.19.3+cuda12.3
node1:4827:6900 [0] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4
LOG
run_nd logs --json "$ND_TMP/bt2.log"
json_check '[c for c in d["causes"] if c["cause"] == "driver_or_kernel_bug"][0]["confidence"] >= 0.45' "one version on every rank: an NCCL bug weighs more"
echo "node1:4242:4300 [0] transport/net_socket.cc:410 NCCL WARN NET/Socket : peer 10.0.0.2<41877> message truncated : receiving 1048576 bytes instead of 65536" >"$ND_TMP/ns.log"
run_nd logs --json "$ND_TMP/ns.log"
first collective_mismatch_app_bug "NET/Socket message truncated: still a collective mismatch"

printf '%s\n' "box:11:11 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported by protocol" \
  "NCCL failure common.cu:874 'unhandled system error'" >"$ND_TMP/af.log"
run_nd logs --json "$ND_TMP/af.log"
first bootstrap_network "socket of an unsupported address family: no usable interface"
echo "NCCL failure all_reduce.cu:95 'unhandled cuda error'" >"$ND_TMP/old.log"
run_nd logs --json "$ND_TMP/old.log"
json_check 'any(f["id"] == "LOG_NCCL_ERROR" for f in d["findings"])' "nccl-tests' first error form is an NCCL error"

echo 'docker: Error response from daemon: OCI runtime create failed: container_linux.go:346: starting container process caused "process_linux.go:432: running prestart hook 1 caused "error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: cuda error: no cuda-capable device is detected' >"$ND_TMP/nc.log"
run_nd logs --json "$ND_TMP/nc.log"
first hardware_xid_nvlink "container runtime: the host's GPUs fail"
json_check 'not any(c["cause"] == "duplicate_gpu_or_device_mapping" for c in d["causes"])' "container runtime: no device-mapping verdict"
echo "RuntimeError: CUDA error: no CUDA-capable device is detected" >"$ND_TMP/nodev.log"
run_nd logs --json "$ND_TMP/nodev.log"
first duplicate_gpu_or_device_mapping "a framework's 'no CUDA-capable device': device mapping"
printf '%s\n' "DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid argument, NCCL version 2.14.3" \
  "ncclInvalidArgument: Invalid value for an argument." "Last error:" "Invalid config blocking attribute value -2147483648" >"$ND_TMP/cfg.log"
run_nd logs --json "$ND_TMP/cfg.log"
first version_mismatch "config attribute INT_MIN rejected: headers newer than the libnccl"
json_check 'any(f["id"] == "LOG_NCCL_CONFIG_UNDEF_REJECTED" for f in d["findings"])' "the config finding is raised"
echo "node1:4242:4242 [0] init.cc:1270 NCCL WARN Invalid config blocking attribute value 5" >"$ND_TMP/cfg5.log"
run_nd logs --json "$ND_TMP/cfg5.log"
json_check 'not any(f["id"] == "LOG_NCCL_CONFIG_UNDEF_REJECTED" for f in d["findings"])' "a real bad value is no version mismatch"
echo "hostname:116024:116024 [0] misc/strongstream.cc:53 NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA driver < R465." >"$ND_TMP/graph.log"
run_nd logs --json "$ND_TMP/graph.log"
first version_mismatch "NCCL cannot be captured in a graph: an NCCL build for old CUDA"
finish
