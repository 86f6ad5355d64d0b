#!/bin/bash
# nccl-doctor logs: the rules of /dev/shm (shm.c), each on small constructed
# lines in the real formats, once where it fires and once where it must not
# (docs/logs.md says which public cases motivated each):
#  - a SIGBUS (UCX, gdb, faulthandler, exit code -7) is /dev/shm running
#    out; exit code -9 and a PCIe AER "Bus Error" are not;
#  - a bus error while loading libnccl is a damaged library, not /dev/shm;
#  - NCCL 2.3's /dev/shm allocation: EINTR is NCCL's bug, ENOSPC a full
#    /dev/shm.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

finding() { json_check "any(f['id'] == '$1' for f in d['findings'])" "$2"; }

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

# a bus error while loading libnccl
echo "[Bug]: bus error when Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" >"$ND_TMP/lib.log"
run_nd logs --json "$ND_TMP/lib.log"
first version_mismatch "SIGBUS while loading libnccl: a damaged library"
finding LOG_NCCL_LIB_LOAD_CRASH "SIGBUS while loading libnccl: its finding"
no_finding LOG_SHM_SIGBUS "SIGBUS while loading libnccl: not /dev/shm"
echo "INFO 04-14 06:28:59 pynccl.py:58] Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" >"$ND_TMP/libok.log"
run_nd logs --json "$ND_TMP/libok.log"
no_finding LOG_NCCL_LIB_LOAD_CRASH "loading libnccl without a bus error is no crash"

printf '%s\n' "INFO 04-14 06:28:59 pynccl.py:58] Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" \
  "Bus error (core dumped)" >"$ND_TMP/lib2.log"
run_nd logs --json "$ND_TMP/lib2.log"
first version_mismatch "bus error on the line after the libnccl load, no NCCL line between: a damaged library"
json_check "all(c['confidence'] <= 0.2 for c in d['causes'] if c['cause'] == 'shm_too_small')" "bus error right after the load: /dev/shm steps back"
printf '%s\n' "INFO 04-14 06:28:59 pynccl.py:58] Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" \
  "box:11:11 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>" "box:11:11 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct" \
  "Bus error (core dumped)" >"$ND_TMP/lib3.log"
run_nd logs --json "$ND_TMP/lib3.log"
first shm_too_small "bus error after NCCL ran (SHM connected): /dev/shm"
no_finding LOG_NCCL_LIB_LOAD_CRASH "bus error after NCCL ran: no library crash"

# /dev/shm allocation of NCCL 2.3: EINTR is NCCL's bug, ENOSPC a full /dev/shm
printf '%s\n' 'WARN Unable to allocate shared memory (4214784 bytes) : Interrupted system call' >"$ND_TMP/t2.log"
run_nd logs --json "$ND_TMP/t2.log"
first driver_or_kernel_bug "EINTR from posix_fallocate: NCCL 2.3's missing retry"
has_finding LOG_SHM_ALLOC_INTERRUPTED "EINTR: its finding"
no_cause shm_too_small "EINTR is not a full /dev/shm"
printf '%s\n' 'h:1:2 [0] include/shm.h:26 NCCL WARN Unable to allocate shared memory (4214784 bytes) : No space left on device' >"$ND_TMP/t2n.log"
run_nd logs --json "$ND_TMP/t2n.log"
first shm_too_small "ENOSPC from posix_fallocate: /dev/shm full"
no_finding LOG_SHM_ALLOC_INTERRUPTED "ENOSPC is not the EINTR bug"
# /dev/shm's size shown in the paste (df, docker run --shm-size, compose shm_size)
e="RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"
printf '%s\n' "Filesystem      Size  Used Avail Use% Mounted on" "shm              64M     0   64M   0% /dev/shm" "$e" >"$ND_TMP/df.log"
run_nd logs --json "$ND_TMP/df.log"
first shm_too_small "a 64 MiB /dev/shm beside a system error: /dev/shm"
json_check "any(f['id'] == 'LOG_SHM_SIZE_SEEN' and f['severity'] == 'warning' and '64 MiB' in f['title'] for f in d['findings'])" "the size said, as a warning"
json_check "[c for c in d['causes'] if c['cause'] == 'shm_too_small'][0]['confidence'] >= 0.35" "the size weighs more than the code's prior"
printf '%s\n' "shm              16G     0   16G   0% /dev/shm" "$e" >"$ND_TMP/dfbig.log"
run_nd logs --json "$ND_TMP/dfbig.log"
json_check "not any(f['id'] == 'LOG_SHM_SIZE_SEEN' and f['severity'] != 'info' for f in d['findings'])" "a 16 GiB /dev/shm is no warning"
json_check "[c for c in d['causes'] if c['cause'] == 'shm_too_small'][0]['confidence'] < 0.35" "a 16 GiB /dev/shm adds nothing"
printf '%s\n' "docker run --gpus all --shm-size=64m -it img torchrun --nproc_per_node 4 train.py" "$e" >"$ND_TMP/dk.log"
run_nd logs --json "$ND_TMP/dk.log"
json_check "any(f['id'] == 'LOG_SHM_SIZE_SEEN' and f['severity'] == 'warning' for f in d['findings'])" "docker's --shm-size=64m in a failed run: a warning"
printf '%s\n' "docker run --gpus all --shm-size 16g -it img" "$e" >"$ND_TMP/dk2.log"
run_nd logs --json "$ND_TMP/dk2.log"
json_check "not any(f['id'] == 'LOG_SHM_SIZE_SEEN' and f['severity'] != 'info' for f in d['findings'])" "--shm-size 16g: no warning"
printf '%s\n' "shm              64M     0   64M   0% /dev/shm" >"$ND_TMP/dfok.log"
run_nd logs --json "$ND_TMP/dfok.log"
json_check "not any(c['cause'] == 'shm_too_small' for c in d['causes'])" "a small /dev/shm in a paste of no failure names no cause"
finish
