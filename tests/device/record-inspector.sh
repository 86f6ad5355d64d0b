#!/bin/bash
# Records real NCCL Inspector dumps on the GPU machine, for
# tests/fixtures/logs/inspector (whose files are constructed today), and runs
# `nccl-doctor logs` on each set (issue 14 item 7).
#
# The Inspector plugin is not shipped in libnccl packages: it is built here
# from NCCL's source, which the machine cannot download. Put the plugin's
# folder of the release that matches a libnccl on the machine into the
# repository's shared/ folder first, e.g. on the build machine:
#   mkdir -p shared/nccl-src && git -C /work/.mirror/NVIDIA+nccl/repo archive v2.28.3-1 \
#     ext-profiler/inspector | tar -x -C shared/nccl-src
# (2.29+: plugins/profiler/inspector). NCCL_HOME must hold include/nccl.h
# (/usr with libnccl-dev; else the CUDA toolkit's or PyTorch's include dir).
#
# Scenarios (torch, 2 ranks; with one GPU both ranks share it, each with its
# own NCCL_HOSTID so NCCL sees two one-GPU nodes joined by its network
# transport instead of refusing a duplicate GPU; 16 MiB all_reduce):
#   healthy   40 all_reduce + 4 broadcast, JSON dumps every 500 us
#   prom      the same with NCCL_INSPECTOR_PROM_DUMP=1 (2.29+ plugins only)
#   stopped   rank 1 exits after 30 all_reduce; rank 0 waits in the
#             31st until `timeout 40` kills it: where do the dumps stop?
# Each writes $OUT/<scenario>/dumps/*, the ranks' output (ranks.log) and
# nccl-doctor's report (report.txt, report.json).
#
# usage (repository root; python3 with torch; CUDA GPUs):
#   OUT=DIR [ND_BIN=build/nccl-doctor] [INSPECTOR_SRC=shared/nccl-src/ext-profiler/inspector] \
#     [NCCL_HOME=/usr] bash tests/device/record-inspector.sh [SCENARIO...]
set -u
: "${OUT:?set OUT to the output folder}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
. "$(dirname "$0")/lib.sh"
nd_binary build-dev-insp || { echo "record-inspector: no nccl-doctor binary (see $OUT/build.log)" >&2; exit 3; }
SRC=${INSPECTOR_SRC:-shared/nccl-src/ext-profiler/inspector}
[ -d "$SRC" ] || SRC=shared/nccl-src/plugins/profiler/inspector
[ -f "$SRC/Makefile" ] || { echo "record-inspector: no Inspector source in '$SRC' (see the header)" >&2; exit 3; }
python3 -c 'import torch' 2>/dev/null || { echo "record-inspector: python3 cannot import torch" >&2; exit 3; }
W=$(mktemp -d /tmp/nd-insp.XXXXXX)
cp -r "$SRC/." "$W/src"
timeout 300 make -C "$W/src" NCCL_HOME="${NCCL_HOME:-/usr}" CUDA_HOME=/usr/local/cuda >"$OUT/plugin-build.log" 2>&1
PLUGIN=$W/src/libnccl-profiler-inspector.so
[ -f "$PLUGIN" ] || { echo "record-inspector: the plugin did not build (see $OUT/plugin-build.log)" >&2; exit 3; }
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())')
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') torch $(python3 -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())') gpus $ngpu plugin $SRC" | tee "$OUT/summary.txt"

cat >"$W/t.py" <<'PY'
import os, sys, torch, torch.distributed as dist
scenario, rank, world = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.cuda.set_device(rank % torch.cuda.device_count())
dist.init_process_group("nccl", rank=rank, world_size=world, init_method="tcp://127.0.0.1:29541")
x = torch.ones(4 << 20, device="cuda")  # 16 MiB of float32
for i in range(40):
    if scenario == "stopped" and rank == 1 and i == 30:
        torch.cuda.synchronize(); print("rank 1 exits after 30 all_reduce", flush=True); os._exit(0)
    dist.all_reduce(x)
for i in range(4):
    dist.broadcast(x, 0)
torch.cuda.synchronize()
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PY

scenarios=${*:-healthy prom stopped}
world=2
[ "$ngpu" -ge 1 ] || { echo "record-inspector: no CUDA GPU" >&2; exit 3; }
for s in $scenarios; do
  d=$OUT/$s; mkdir -p "$d/dumps"
  prom=0; [ "$s" = prom ] && prom=1
  for r in $(seq 0 $((world - 1))); do
    hostid=""; [ "$ngpu" -lt 2 ] && hostid=nd-insp-node$r
    env ${hostid:+NCCL_HOSTID=$hostid} NCCL_PROFILER_PLUGIN=$PLUGIN NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR=$d/dumps \
      NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=$([ $prom = 1 ] && echo 30000000 || echo 500) \
      NCCL_INSPECTOR_PROM_DUMP=$prom NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,PROFILE \
      timeout 40 python3 "$W/t.py" "$s" "$r" "$world" >"$d/rank$r.log" 2>&1 &
  done
  wait
  ls -la "$d/dumps" >"$d/dumps.txt" 2>&1
  timeout 60 "$ND_BIN" logs --no-color "$d/dumps" >"$d/report.txt" 2>&1; rc=$?
  timeout 60 "$ND_BIN" --json logs "$d/dumps" >"$d/report.json" 2>/dev/null
  echo "$s: $(ls "$d/dumps" | wc -l) dump files, $(cat "$d"/dumps/* 2>/dev/null | wc -l) lines; nccl-doctor exit $rc: $(head -1 "$d/report.txt")" |
    tee -a "$OUT/summary.txt"
done
rm -rf "$W"
