#!/bin/bash
# nccl-doctor logs: the rules of versions and known bugs (versions.c), each on
# small constructed lines in the real formats, once where it fires and once
# where it must not (docs/logs.md says which public cases motivated each):
#  - CUDA's 'named symbol not found': a libnccl without this GPU's kernels;
#  - glibc's heap corruption aborts; the dynamic linker's undefined nccl
#    symbol; a config attribute INT_MIN rejected; NCCL 1.x;
#  - bootstrap's "Message truncated : received": NCCL builds, or a bug of
#    the version when every rank runs one;
#  - two different libnccl files or NCCL wheels;
#  - NCCL's CUDA runtime newer than the driver, aws-ofi-nccl's registration;
#  - a NIC that is not on PCI and NCCL's busid warning; an RTX 50-series
#    GPU with NCCL before 2.26.2.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

finding() { json_check "any(f['id'] == '$1' for f in d['findings'])" "$2"; }

# CUDA error text decides
echo "gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'" >"$ND_TMP/sym.log"
run_nd logs --json "$ND_TMP/sym.log"
first version_mismatch "named symbol not found: a libnccl without kernels for this GPU"
has_finding LOG_NCCL_NO_KERNEL_IMAGE "named symbol not found: its finding"

echo "h:9:9 [0] transport/p2p.cc:1 NCCL WARN Cuda failure 'invalid argument'" >"$ND_TMP/inv.log"
run_nd logs --json "$ND_TMP/inv.log"
no_finding LOG_NCCL_NO_KERNEL_IMAGE "another CUDA error is no missing kernel image"

echo 'nccl-tests hang and free(): invalid next size (fast) with NCCL 2.19.3' >"$ND_TMP/heap.log"
run_nd logs --json "$ND_TMP/heap.log"
first driver_or_kernel_bug "glibc's heap corruption abort: a memory bug of a library in the process"
echo 'free(): invalid pointer' >"$ND_TMP/heap2.log"
run_nd logs --json "$ND_TMP/heap2.log"
no_finding LOG_HEAP_CORRUPTION "an invalid pointer passed to free() is not a corrupted heap"

echo "ImportError: /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister" >"$ND_TMP/sym.log"
run_nd logs --json "$ND_TMP/sym.log"
first version_mismatch "undefined nccl symbol: an older libnccl than the build's"
json_check 'any(f["id"] == "LOG_NCCL_SYMBOL_MISSING" for f in d["findings"])' "undefined nccl symbol: its finding"
echo "ImportError: libfoo.so: undefined symbol: cublasLtCreate" >"$ND_TMP/sym2.log"
run_nd logs --json "$ND_TMP/sym2.log"
json_check 'not any(f["id"] == "LOG_NCCL_SYMBOL_MISSING" for f in d["findings"])' "another library's symbol is no NCCL mismatch"

# the dynamic linker's symbol version error: a NET plugin for a newer libfabric
echo "ip-10-1-2-3:52:52 [0] NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version \`FABRIC_1.7' not found (required by /opt/conda/lib/libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation" >"$ND_TMP/ver.log"
run_nd logs --json "$ND_TMP/ver.log"
first version_mismatch "a library's symbol version not found: versions first"
has_finding LOG_LIB_VERSION_NOT_FOUND "a library's symbol version not found: its finding"
echo "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory" >"$ND_TMP/ver2.log"
run_nd logs --json "$ND_TMP/ver2.log"
no_finding LOG_LIB_VERSION_NOT_FOUND "a library that is not there is no version refused"

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

# a build without this GPU's kernels
echo "gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'" >"$ND_TMP/sym500.log"
run_nd logs --json "$ND_TMP/sym500.log"
first version_mismatch "'named symbol not found': a libnccl without this GPU's kernels"
echo "gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'out of memory'" >"$ND_TMP/oom.log"
run_nd logs --json "$ND_TMP/oom.log"
no_finding LOG_NCCL_NO_KERNEL_IMAGE "another CUDA error is no missing kernel"

# NCCL 1.x
printf '%s\n' "# NCCL Tests compiled with NCCL 1.0" "# Using devices" "NCCL failure all_reduce.cu:95 'unhandled cuda error'" >"$ND_TMP/nccl1.log"
run_nd logs --json "$ND_TMP/nccl1.log"
first driver_or_kernel_bug "NCCL 1.x: the obsolete NCCL first"
finding LOG_NCCL_OBSOLETE "NCCL 1.x: its finding"
printf '%s\n' "# NCCL Tests compiled with NCCL 2.4" "NCCL failure all_reduce.cu:95 'unhandled cuda error'" >"$ND_TMP/nccl2.log"
run_nd logs --json "$ND_TMP/nccl2.log"
no_finding LOG_NCCL_OBSOLETE "NCCL 2.4 is not obsolete"

# two libnccl
printf '%s\n' "[pip3] nvidia-nccl-cu11==2.14.3" "[pip3] nvidia-nccl-cu12==2.27.3" "[rank0]: RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)" >"$ND_TMP/wheels.log"
run_nd logs --json "$ND_TMP/wheels.log"
finding LOG_LIBNCCL_SEVERAL "two NCCL wheels: their finding"
first version_mismatch "two NCCL wheels and an NCCL error: version mismatch first"
printf '%s\n' "lrwxrwxrwx 1 root root 17 Jul 17 19:02 /opt/nccl/lib/libnccl.so.2 -> libnccl.so.2.27.0" \
  "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2 -> libnccl.so.2.23.4" >"$ND_TMP/two.log"
run_nd logs --json "$ND_TMP/two.log"
finding LOG_LIBNCCL_SEVERAL "two libnccl files in other directories: their finding"
json_check "not any(c['cause'] == 'version_mismatch' and c['confidence'] >= 0.3 for c in d['causes'])" "two libnccl in a run that did not fail name no cause"
printf '%s\n' "INFO 07-22 03:07:02 utils.py:918] Found nccl from library libnccl.so.2" \
  " 5 0x00000000000489b1 ???()  /usr/lib/x86_64-linux-gnu/libnccl.so.2:0" "[pip3] nvidia-nccl-cu12==2.27.3" "nvidia-nccl-cu12 2.27.3" >"$ND_TMP/one.log"
run_nd logs --json "$ND_TMP/one.log"
no_finding LOG_LIBNCCL_SEVERAL "one libnccl named in several ways is one"

# NCCL's CUDA runtime older than the driver needs (S53r)
printf '%s\n' 'NCCL version 2.1.4+cuda9.1' "h:7:7 [0] init.cu:674 WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'" >"$ND_TMP/drv.log"
run_nd logs --json "$ND_TMP/drv.log"
first version_mismatch "NCCL's Cuda failure 'driver version is insufficient': a libnccl for a newer CUDA"
has_finding LOG_NCCL_CUDA_NEWER_THAN_DRIVER "NCCL's Cuda failure 'driver version is insufficient': its finding"
echo 'RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version' >"$ND_TMP/drv2.log"
run_nd logs --json "$ND_TMP/drv2.log"
no_finding LOG_NCCL_CUDA_NEWER_THAN_DRIVER "the framework's own CUDA error is not NCCL's runtime"
first version_mismatch "the framework's own CUDA error 35: the driver older than its runtime, a version disagreement"
has_finding LOG_CUDA_DRIVER_TOO_OLD "the framework's own CUDA error 35: its finding"

# aws-ofi-nccl's memory registration (OF01)
echo 'register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument' >"$ND_TMP/ofi.log"
run_nd logs --json "$ND_TMP/ofi.log"
first version_mismatch "NET/OFI cannot register memory: plugin, libfabric and NCCL not made for one another"
has_finding LOG_OFI_REGISTER_MR_FAILED "NET/OFI cannot register memory: its finding"
echo 'h:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)' >"$ND_TMP/ofi2.log"
run_nd logs --json "$ND_TMP/ofi2.log"
no_finding LOG_OFI_REGISTER_MR_FAILED "the plugin's provider line is no registration failure"

# a NIC that is not on PCI and NCCL's busid warning (S23u)
u='h:1:2 [0] NCCL INFO Topology detection: network path /sys/devices/pci0000:2b/0000:2b:08.1/0000:2e:00.3/usb1/1-1/1-1.2/1-1.2:2.0 is not a PCI device (usb). Attaching to first CPU'
printf '%s\n' "$u" 'h:1:2 [0] graph/xml.h:85 NCCL WARN Attribute busid of node nic not found' >"$ND_TMP/usb.log"
run_nd logs --json "$ND_TMP/usb.log"
first driver_or_kernel_bug "a USB NIC then 'busid of node nic not found': NCCL's topology bug"
has_finding LOG_TOPO_NIC_NO_BUSID "a USB NIC then the busid warning: its finding"
printf '%s\n' "$u" 'h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0' 'h:1:2 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0x1 - Init COMPLETE' >"$ND_TMP/usb2.log"
run_nd logs --json "$ND_TMP/usb2.log"
has_finding LOG_TOPO_NIC_NOT_PCI "the USB NIC line alone is a note"
no_finding LOG_TOPO_NIC_NO_BUSID "a USB NIC without the busid warning is no failure"
no_cause driver_or_kernel_bug "a USB NIC in a run that completed init names no cause"
printf '%s\n' 'h:1:2 [0] graph/xml.h:85 NCCL WARN Attribute busid of node nic not found' >"$ND_TMP/usb3.log"
run_nd logs --json "$ND_TMP/usb3.log"
no_finding LOG_TOPO_NIC_NO_BUSID "the busid warning without a non-PCI NIC stays NCCL's message class"

# an RTX 50-series GPU with NCCL before 2.26.2 (S50r)
g='#  Rank  0 Group  0 Pid  12225 on       node device  0 [0000:16:00] NVIDIA GeForce RTX 5090'
mk() { printf '%s\n' "$g" "node:12225:12225 [0] NCCL INFO NCCL version $1+cuda12.8" \
	'node:12225:12255 [0] NCCL INFO ncclCommInitAll comm 0x55 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 16000 commId 0x1c - Init START' >"$2"; }
mk 2.25.1 "$ND_TMP/b1.log"
run_nd logs --json "$ND_TMP/b1.log"
first driver_or_kernel_bug "an RTX 5090 with NCCL 2.25.1 that stopped in init: NCCL's sm_120 bug"
has_finding LOG_NCCL_OLD_FOR_SM120 "an RTX 5090 with NCCL 2.25.1: its finding"
mk 2.26.2 "$ND_TMP/b2.log"
run_nd logs --json "$ND_TMP/b2.log"
no_finding LOG_NCCL_OLD_FOR_SM120 "NCCL 2.26.2 on an RTX 5090 is the fixed release"
sed 's/RTX 5090/RTX 4090/' "$ND_TMP/b1.log" >"$ND_TMP/b3.log"
run_nd logs --json "$ND_TMP/b3.log"
no_finding LOG_NCCL_OLD_FOR_SM120 "NCCL 2.25.1 on an RTX 4090 (sm_89) is no sm_120 case"
# the driver older than the program's CUDA, as PyTorch, CUDA's PTX JIT and the container runtime say it
for l in "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver" \
	"h:1:2 [0] enqueue.cc:1 NCCL WARN Cuda failure 'the provided PTX was compiled with an unsupported toolchain.'" \
	"nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver to a newer version, or use an earlier cuda container: unknown."; do
	echo "$l" >"$ND_TMP/old.log"
	run_nd logs --json "$ND_TMP/old.log"
	has_finding LOG_CUDA_DRIVER_TOO_OLD "driver older than the program's CUDA: ${l:0:40}"
	first version_mismatch "driver older than the program's CUDA: versions first (${l:0:40})"
done
echo "Failed to initialize NVML: Driver/library version mismatch" >"$ND_TMP/nvml.log"
run_nd logs --json "$ND_TMP/nvml.log"
first version_mismatch "NVML's driver/library mismatch: a driver upgraded without a reboot"
has_finding LOG_NVML_DRIVER_MISMATCH "NVML's driver/library mismatch: its finding"
echo "h:1:2 [0] enqueue.cc:100 NCCL WARN Cuda failure 'invalid device function'" >"$ND_TMP/idf.log"
run_nd logs --json "$ND_TMP/idf.log"
has_finding LOG_NCCL_NO_KERNEL_IMAGE "invalid device function: a build without this GPU's architecture"
finish
