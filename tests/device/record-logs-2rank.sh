#!/bin/bash
# Records real two-rank NCCL_DEBUG=INFO logs of failures on the GPU machine,
# for tests/fixtures/logs/real-h200-2rank (issue 14: real logs, not only
# constructed ones), and runs `nccl-doctor logs` on each.
#
# Works on one GPU: each rank gets its own NCCL_HOSTID, which replaces the
# hostname/boot-id hash NCCL tells hosts apart by (misc/utils.cc), so NCCL sees
# two one-GPU nodes joined by NET/Socket instead of refusing a duplicate GPU.
# With 2+ GPUs the ranks take a GPU each and no NCCL_HOSTID is set.
#
# Scenarios (torch, 2 ranks, process-group timeout 20 s):
#   healthy     ten all_reduce, one log file per rank (NCCL_DEBUG_FILE)
#   version     rank 0 runs the system libnccl (LD_PRELOAD), rank 1 PyTorch's
#               own: two NCCL versions in one communicator
#   collsize    after two all_reduce, rank 0 all_reduces 4 MiB, rank 1 16 MiB:
#               the watchdog times out (an all_reduce on rank 0 and a broadcast
#               on rank 1 of the same bytes completed on 2026-12-03: NCCL does
#               not compare the operations, only the bytes on the wire)
#   badif       rank 1 has NCCL_SOCKET_IFNAME=nd_no_such_if: no interface
#   killed      after two all_reduce rank 1 SIGKILLs itself (what the OOM killer
#               does); rank 0's third all_reduce loses its peer
#   netib       NCCL_NET=IB on both ranks, on a machine without InfiniBand
#   protodiff   rank 0 NCCL_PROTO=LL, rank 1 NCCL_PROTO=Simple (NCCL's variables
#               must agree across ranks)
#   hostidsame  both ranks with the same NCCL_HOSTID: one host, one GPU, two ranks
#   devassert   rank 1 triggers a device-side assert (index out of bounds) before
#               its third all_reduce; rank 0 waits in it
#   buffsize    rank 0 NCCL_BUFFSIZE=1048576, rank 1 the default (4 MiB)
#   algodiff    rank 0 NCCL_ALGO=Ring, rank 1 NCCL_ALGO=Tree
#   nchan       rank 0 NCCL_MIN_NCHANNELS=8, rank 1 NCCL_MAX_NCHANNELS=2
#   late        rank 1 starts 40 s after rank 0 (the store's timeout is 20 s)
#   wrongport   rank 1 is given another rendezvous port than rank 0
#   ipv6        rank 1 NCCL_SOCKET_FAMILY=AF_INET6 (the machine may have no
#               global IPv6 address)
#   oom         after two all_reduce rank 1 takes all free GPU memory it can;
#               both ranks then create a new process group, whose NCCL
#               communicator cannot allocate its buffers (one GPU: both ranks
#               share the memory)
# Each writes $OUT/<scenario>/rank<r>.log (stdout+stderr; NCCL's lines go to
# stderr, or to nccl.<r>.log with NCCL_DEBUG_FILE) and report.txt/report.json.
#
# usage (repository root; python3 with torch; CUDA GPUs):
#   OUT=DIR [ND_BIN=build/nccl-doctor] [SYS_NCCL=/usr/lib/x86_64-linux-gnu/libnccl.so.2] \
#     bash tests/device/record-logs-2rank.sh [SCENARIO...]
set -u
: "${OUT:?set OUT to the output folder}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ND_BIN=${ND_BIN:-build/nccl-doctor}
SYS_NCCL=${SYS_NCCL:-/usr/lib/x86_64-linux-gnu/libnccl.so.2}
python3 -c 'import torch' 2>/dev/null || { echo "record-logs-2rank: python3 cannot import torch" >&2; exit 3; }
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())')
[ "$ngpu" -ge 1 ] || { echo "record-logs-2rank: no CUDA GPU" >&2; exit 3; }
mkdir -p "$OUT"
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') torch $(python3 -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())') gpus $ngpu system libnccl $(readlink -f "$SYS_NCCL")" | tee "$OUT/summary.txt"
W=$(mktemp -d /tmp/nd-2rank.XXXXXX)
cat >"$W/t.py" <<'PY'
import os, sys
from datetime import timedelta
import torch, torch.distributed as dist
scenario, rank = sys.argv[1], int(sys.argv[2])
if scenario == "late" and rank == 1:
    import time
    time.sleep(40)
dev = torch.device("cuda", rank % torch.cuda.device_count())
torch.cuda.set_device(dev)
dist.init_process_group("nccl", rank=rank, world_size=2, timeout=timedelta(seconds=20),
                        init_method="tcp://127.0.0.1:%s" % os.environ["ND_PORT"], device_id=dev)
x = torch.ones(1 << 20, device=dev)
for _ in range(10 if scenario == "healthy" else 2):
    dist.all_reduce(x)
torch.cuda.synchronize()
if scenario == "killed" and rank == 1:
    os.kill(os.getpid(), 9)
if scenario == "oom":
    dist.barrier()   # its small tensor's 2 MiB page is taken before the GPU fills
    if rank == 1:
        hog = []
        for chunk in (1 << 30, 64 << 20, 2 << 20):   # torch allocates in 2 MiB pages
            try:
                while True:
                    hog.append(torch.empty(chunk, dtype=torch.uint8, device=dev))
            except torch.OutOfMemoryError:
                pass
        print("rank 1 left %d MiB free" % (torch.cuda.mem_get_info(dev)[0] >> 20), flush=True)
    dist.barrier()
    g = dist.new_group([0, 1])
    dist.all_reduce(x, group=g)
    torch.cuda.synchronize()
if scenario == "devassert" and rank == 1:
    v = torch.ones(4, device=dev)
    v[torch.tensor([7], device=dev)] += 1
if scenario in ("collsize", "killed", "devassert"):
    y = x if rank == 0 else torch.ones(4 << 20, device=dev)
    dist.all_reduce(y)
    torch.cuda.synchronize()
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PY
port=$((29600 + $$ % 1000))
for s in ${*:-healthy version collsize badif killed oom netib protodiff hostidsame devassert buffsize algodiff nchan late wrongport ipv6}; do
  port=$((port + 1)); d=$OUT/$s; mkdir -p "$d"
  for r in 0 1; do
    e=(NCCL_DEBUG=INFO ND_PORT=$port)
    [ "$ngpu" -lt 2 ] && e+=("NCCL_HOSTID=nd-node$r")
    [ "$s" = healthy ] && e+=("NCCL_DEBUG_FILE=$d/nccl.$r.log")
    [ "$s" = version ] && [ $r = 0 ] && e+=("LD_PRELOAD=$SYS_NCCL")
    [ "$s" = badif ] && [ $r = 1 ] && e+=("NCCL_SOCKET_IFNAME=nd_no_such_if")
    [ "$s" = netib ] && e+=("NCCL_NET=IB")
    [ "$s" = wrongport ] && [ $r = 1 ] && e=("${e[@]/ND_PORT=*/ND_PORT=$((port + 500))}")
    [ "$s" = ipv6 ] && [ $r = 1 ] && e+=("NCCL_SOCKET_FAMILY=AF_INET6")
    [ "$s" = hostidsame ] && e=("${e[@]/NCCL_HOSTID=*/NCCL_HOSTID=nd-same}")
    [ "$s" = buffsize ] && [ $r = 0 ] && e+=("NCCL_BUFFSIZE=1048576")
    [ "$s" = algodiff ] && { [ $r = 0 ] && e+=("NCCL_ALGO=Ring") || e+=("NCCL_ALGO=Tree"); }
    [ "$s" = nchan ] && { [ $r = 0 ] && e+=("NCCL_MIN_NCHANNELS=8") || e+=("NCCL_MAX_NCHANNELS=2"); }
    [ "$s" = protodiff ] && { [ $r = 0 ] && e+=("NCCL_PROTO=LL") || e+=("NCCL_PROTO=Simple"); }
    env "${e[@]}" timeout 90 python3 "$W/t.py" "$s" "$r" >"$d/rank$r.log" 2>&1 &
  done
  wait
  files=("$d"/rank?.log); ls "$d"/nccl.?.log >/dev/null 2>&1 && files+=("$d"/nccl.?.log)
  timeout 60 "$ND_BIN" logs --no-color "${files[@]}" >"$d/report.txt" 2>&1; rc=$?
  timeout 60 "$ND_BIN" --json logs "${files[@]}" >"$d/report.json" 2>/dev/null
  echo "$s: exit $rc: $(head -1 "$d/report.txt")" | tee -a "$OUT/summary.txt"
done
rm -rf "$W"
