#!/usr/bin/env bash
# logs: framework errors without NCCL lines (kb/framework_errors.h, from the
# frameworks' sources by tools/framework-errors). A paste with only a
# PyTorch, vLLM, XLA or CUDA error and no NCCL warning ranks the catalog's
# class first, with the literal's origin (repository, file, commit) in the
# evidence of LOG_FRAMEWORK_ERROR; the same kind of line beside an NCCL
# WARN does not override the WARN's class (it supports, below it); a line a
# hand-written signature also weighs is counted once.
. "$(dirname "$0")/lib.sh"
c="$ND_SRC/tests/fixtures/logs/constructed"
origin() { json_check "any(f['id'] == 'LOG_FRAMEWORK_ERROR' and any('''$1''' in e['text'] for e in f['evidence']) for f in d['findings'])" "$2"; }
reason() { json_check "'LOG_FRAMEWORK_ERROR' in next(x for x in d['causes'] if x['cause'] == '$1')['finding_ids']" "$2"; }

# PyTorch's TCPStore client cannot reach MASTER_ADDR (socket.cpp), no NCCL line at all
run_nd logs --json "$c/torch-tcpstore-no-route-no-nccl.log"
expect_rc 2 "TCPStore no route: a problem"
first bootstrap_network "TCPStore no route, no NCCL line: bootstrap_network first"
reason bootstrap_network "its reason is the framework error"
origin "text from pytorch/pytorch torch/csrc/distributed/c10d/socket.cpp@8cf1b8e39425 'The client socket has failed to connect to any network address of ({}, {})." \
  "the evidence names the literal, its file and commit"
json_check "next(x for x in d['causes'] if x['cause'] == 'bootstrap_network')['confidence'] >= 0.79" \
  "NCCL printed no warning: the framework error decides (0.8)"

# vLLM cannot load the libnccl it found (pynccl_wrapper.py)
run_nd logs --json "$c/vllm-nccl-library-load.log"
first version_mismatch "vLLM library load failure: version_mismatch first"
origin "vllm-project/vllm vllm/distributed/device_communicators/pynccl_wrapper.py@d722a571247e 'Failed to load NCCL library from %s ." \
  "vLLM: the origin of the literal"

# JAX/XLA: ncclCommInitRank failed, NCCL printed nothing of its own
run_nd logs --json "$c/jax-nccl-initrank-no-nccl.log"
first version_mismatch "XLA ncclCommInitRank failure: version_mismatch first (over the generic 'unhandled cuda error')"
origin "openxla/xla" "XLA: the origin of the literal"

# a CUDA driver error name: a device index beyond CUDA_VISIBLE_DEVICES
run_nd logs --json "$c/torch-cuda-invalid-device-no-nccl.log"
first duplicate_gpu_or_device_mapping "CUDA_ERROR_INVALID_DEVICE: duplicate_gpu_or_device_mapping first"
origin "CUDA_ERROR_INVALID_DEVICE = 101" "the enum name with its number from the header"
json_check "next(f for f in d['findings'] if f['id'] == 'LOG_FRAMEWORK_ERROR')['severity'] == 'error'" "a cause line: an error"
json_check "'set_device' in next(f for f in d['findings'] if f['id'] == 'LOG_FRAMEWORK_ERROR')['fixes'][0]['text']" \
  "its next step is the class's first step (kb/causes.c), not 'read the line'"
# a rule's own next step where the class's would mislead (classes.tsv `next`)
printf '%s\n' 'RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss.' >"$ND_TMP/ddp.log"
run_nd logs --json "$ND_TMP/ddp.log"
first collective_mismatch_app_bug "DDP's unfinished reduction: the application"
json_check "'find_unused_parameters=True' in next(f for f in d['findings'] if f['id'] == 'LOG_FRAMEWORK_ERROR')['fixes'][0]['text']" \
  "DDP's unfinished reduction: the rule's own next step (find_unused_parameters), not the class's"

# beside an NCCL WARN of its own: the WARN keeps first place, the framework line supports
run_nd logs --json "$c/torch-tcpstore-beside-shm-warn.log"
first shm_too_small "a TCPStore line beside NCCL's /dev/shm WARN: the WARN's class first"
json_check "0.2 < next(x for x in d['causes'] if x['cause'] == 'bootstrap_network')['confidence'] < 0.4" \
  "the framework line only supports (0.25)"
origin "supports NCCL's own warning" "the evidence says so"

# a line the hand-written signature PT04 weighs too: counted once, by the signature
cat >"$ND_TMP/timeout.log" <<'LOG'
[rank1]: torch.distributed.DistStoreError: The client socket has timed out after 30s while trying to connect to (node0, 29500).
LOG
run_nd logs --json "$ND_TMP/timeout.log"
first bootstrap_network "PT04's line: bootstrap_network first"
json_check "next(x for x in d['causes'] if x['cause'] == 'bootstrap_network')['finding_ids'] == ['LOG_RENDEZVOUS_FAILED']" \
  "the signature's weight alone: no second count"
origin "counted by the signature PT04" "the evidence names the signature that counts it"

# word boundaries: a longer CUDA name is not the shorter one
printf '%s\n' 'RuntimeError: CUDA error: cudaErrorInvalidDeviceFunction' >"$ND_TMP/func.log"
run_nd logs --json "$ND_TMP/func.log"
no_finding LOG_FRAMEWORK_ERROR "cudaErrorInvalidDeviceFunction is not cudaErrorInvalidDevice"
no_cause duplicate_gpu_or_device_mapping "cudaErrorInvalidDeviceFunction: no device-mapping cause"

# lines of no cause alone (vLLM's custom all-reduce off, PyTorch's watchdog): no finding of their own
run_nd logs --json "$c/vllm-tp2-pcie-hang-ctrl-c.log"
no_finding LOG_FRAMEWORK_ERROR "info and hang lines alone: no framework finding"
first p2p_pcie_acs_iommu "the vLLM PCIe hang keeps its cause"

# the launchers and frameworks read from their own sources (one line each, no NCCL line)
fw_case() { # TEXT CLASS NAME ORIGIN
  printf '%s\n' "$1" >"$ND_TMP/fw.log"
  run_nd logs --json "$ND_TMP/fw.log"
  first "$2" "$3: $2 first"
  origin "$4" "$3: the origin of the literal"
}
fw_case "ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!" duplicate_gpu_or_device_mapping \
  "PyTorch, no GPU visible" "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
fw_case "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR expected, but not set" \
  bootstrap_network "PyTorch env:// rendezvous without MASTER_ADDR" "torch/distributed/rendezvous.py"
fw_case "[2024-05-01 10:00:00,000] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=1'] exits with return code = -9" \
  peer_died_or_oom "DeepSpeed launcher, a rank SIGKILLed" "microsoft/DeepSpeed deepspeed/launcher/launch.py:325@38327e07f6cd"
fw_case "ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes." \
  duplicate_gpu_or_device_mapping "SGLang memory imbalance" "sgl-project/sglang python/sglang/srt/model_executor/model_runner.py"
fw_case "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task." \
  peer_died_or_oom "Ray actor died" "ray-project/ray python/ray/exceptions.py"
fw_case "RuntimeError: Outdated cuDNN installation found." version_mismatch "JAX CUDA plugin, old cuDNN" \
  "jax-ml/jax jax_plugins/cuda/__init__.py:169@cec06d116c05"
fw_case "ValueError: Tried to launch on distributed with multinode, but \`MASTER_ADDR\` env was not set, please try exporting rank 0's hostname as \`MASTER_ADDR\`" \
  bootstrap_network "accelerate multinode without MASTER_ADDR" "huggingface/accelerate src/accelerate/state.py"
# the exit code decides DeepSpeed's line: an ordinary failure (1) names no cause
printf '%s\n' "[ERROR] [launch.py:325:sigkill_handler] ['python', 'train.py'] exits with return code = 1" >"$ND_TMP/ds1.log"
run_nd logs --json "$ND_TMP/ds1.log"
no_finding LOG_FRAMEWORK_ERROR "DeepSpeed 'return code = 1' alone: a wrapper, no framework finding"
no_cause peer_died_or_oom "return code = 1 is not a kill"
# torchrun's first failed rank (torch/distributed/elastic/multiprocessing/api.py): -9 a kill, 1 a wrapper
fw_case "E0401 00:26:08.212000 3016633 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 1 (pid: 3016739) of binary: /usr/bin/python3" \
  peer_died_or_oom "torchrun, the first failed rank SIGKILLed" "pytorch/pytorch torch/distributed/elastic/multiprocessing/api.py"
printf '%s\n' "E0401 00:26:08.212000 3016633 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 3016739) of binary: /usr/bin/python3" >"$ND_TMP/tr1.log"
run_nd logs --json "$ND_TMP/tr1.log"
no_cause peer_died_or_oom "torchrun 'exitcode: 1' is not a kill"

# rows scan.py listed from whole files (tools/framework-errors/scanned.tsv): each keeps its file and line
fw_case "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu." \
  version_mismatch "JAX without a CUDA jaxlib" "jax-ml/jax jax/_src/xla_bridge.py:878@cec06d116c05"
fw_case "OSError: MPI environment variables are not set. Ensure you are running the script with an MPI-compatible launcher." \
  bootstrap_network "DeepSpeed's MPI runner outside mpirun" "microsoft/DeepSpeed deepspeed/launcher/multinode_runner.py:154@38327e07f6cd"
fw_case "[W socket.cpp:697] [c10d] The server could not be initialized on any address for port=29500, family=2" \
  bootstrap_network "the TCPStore server on no address" "pytorch/pytorch torch/csrc/distributed/c10d/socket.cpp:590@056b6f38c0c2"
fw_case "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details." \
  bootstrap_network "torchrun's c10d rendezvous store unreachable" "pytorch/pytorch torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py:117@0fb4165e0e6c"
fw_case "AssertionError: tensor model parallel group is not initialized" collective_mismatch_app_bug \
  "Megatron's parallel state used before its initialisation" "NVIDIA/Megatron-LM megatron/core/parallel_state.py"
# a literal classified not_cause (a usage error unrelated to NCCL) is kept out of the table
printf '%s\n' "AssertionError: Seed (-1) should be a positive integer." "RuntimeError: Backend tpu already initialized" >"$ND_TMP/nc.log"
run_nd logs --json "$ND_TMP/nc.log"
no_finding LOG_FRAMEWORK_ERROR "not-a-cause literals (Megatron's seed, JAX's backend twice): no framework finding"

# text report
COLUMNS=1000 run_nd logs "$c/torch-tcpstore-no-route-no-nccl.log"
expect_out 'LOG_FRAMEWORK_ERROR +PyTorch printed an error of its own that points to bootstrap network' "text: the finding's line"
finish
