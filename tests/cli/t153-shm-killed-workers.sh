#!/bin/bash
# The /dev/shm segments of communicators whose ranks the tool killed are
# removed: bench with a rank that never joins (rank 0 has made and mapped
# the fake NCCL's segment and waits) ended by SIGINT, SIGTERM or SIGHUP to
# the tool, eight ranks interrupted at varied moments of their set-up, and
# p2p's NCCL pairs killed at their deadline leave no fakenccl-* segment
# (the listing of this script's tag before and after). What the tool did
# not make stays: a segment of the same pattern made before, and one that
# another live process still maps.
. "$(dirname "$0")/lib.sh"
set -m   # background jobs keep SIGINT
TAG="t153-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-*; [ -n "${holder:-}" ] && kill "$holder" 2>/dev/null' EXIT
derive() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{}).update(eval(sys.argv[2])); json.dump(d,open(sys.argv[3],"w"))' \
    "$ND_FIXTURES/fakegpu/$1.json" "$2" "$ND_TMP/$3.json"
  export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/$3.json"
}
segs() { ls /dev/shm 2>/dev/null | grep "^fakenccl-$TAG-" | sort; }
# waits (at most 10 s) for a segment of ours besides the bystander
wait_seg() {
  for _ in $(seq 200); do segs | grep -qv bystander && return 0; sleep 0.05; done
  return 1
}
# someone else's segment of the same pattern, there before
: >"/dev/shm/fakenccl-$TAG-bystander"
before=$(segs)

# --- a signal to the tool while rank 0 waits for rank 1 in set-up -----------
derive pcie4 '{"nccl_init_hang_rank": 1}' hang1
for sig in INT TERM HUP INT TERM; do
  "$ND_BIN" bench -g 2 -b 8 -e 64 -f 2 --deadline-init 60 >/dev/null 2>&1 </dev/null &
  nd=$!
  if wait_seg; then made=yes; else made=no; fi
  kill -s "$sig" "$nd"; wait "$nd"; rc=$?
  sleep 0.2
  left=$(comm -13 <(echo "$before") <(segs))
  if [ "$made" = yes ] && [ -z "$left" ]; then ok "SIG$sig during set-up (exit $rc): the segment rank 0 made is removed"
  elif [ "$made" = no ]; then not_ok "SIG$sig: rank 0 never made its segment"
  else not_ok "SIG$sig during set-up: left $(echo $left)"; rm -f $(printf '/dev/shm/%s ' $left); fi
done

# --- eight ranks, interrupted at varied moments -------------------------------
derive pcie4 '{}' healthy
n_left=0
for d in 0.05 0.1 0.15 0.2 0.25 0.3 0.35 0.4 0.5 0.6; do
  "$ND_BIN" bench -g 8 -b 8 -e 64 -f 2 --deadline-init 60 >/dev/null 2>&1 </dev/null &
  nd=$!
  sleep "$d"; kill -INT "$nd"; wait "$nd"
  sleep 0.2
  left=$(comm -13 <(echo "$before") <(segs))
  [ -n "$left" ] && { n_left=$((n_left + 1)); rm -f $(printf '/dev/shm/%s ' $left); }
done
if [ "$n_left" = 0 ]; then ok "8 ranks, SIGINT at 10 moments of set-up: no segment left"; else not_ok "8 ranks: $n_left of 10 interrupted runs left segments"; fi

# --- p2p: NCCL pairs killed at their deadline -----------------------------------
derive pcie4 '{"nccl_init_hang_rank": 1}' p2phang
run_nd p2p --timeout 3
sleep 0.2
left=$(comm -13 <(echo "$before") <(segs))
if [ -z "$left" ]; then ok "p2p: pairs killed at their deadline leave no segment (exit $RC)"; else not_ok "p2p: left $(echo $left)"; rm -f $(printf '/dev/shm/%s ' $left); fi

# --- a segment another process still maps stays -----------------------------------
derive pcie4 '{"nccl_init_hang_rank": 1}' held
"$ND_BIN" bench -g 2 -b 8 -e 64 -f 2 --deadline-init 60 >/dev/null 2>&1 </dev/null &
nd=$!
wait_seg
seg=$(segs | grep -v bystander | head -1)
python3 -c 'import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR); m = mmap.mmap(fd, 4096); os.close(fd)
open(sys.argv[2], "w").close(); time.sleep(60)' "/dev/shm/$seg" "$ND_TMP/holding" &
holder=$!
for _ in $(seq 100); do [ -e "$ND_TMP/holding" ] && break; sleep 0.05; done
kill -INT "$nd"; wait "$nd"
sleep 0.2
if [ -e "/dev/shm/$seg" ]; then ok "a segment another live process maps is not removed"; else not_ok "the segment $seg was removed under a live process"; fi
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; holder=
rm -f "/dev/shm/$seg"

if [ -e "/dev/shm/fakenccl-$TAG-bystander" ]; then ok "a segment the tool did not make stays"; else not_ok "the bystander segment was removed"; fi
finish
