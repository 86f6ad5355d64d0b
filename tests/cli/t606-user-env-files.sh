#!/usr/bin/env bash
# The user's other NCCL variables on a healthy fake machine (two NVLink
# GPUs), each failing (or not) as real NCCL does:
#  - NCCL_SOCKET_IFNAME=bogus0: bootstrap_network first, NCCL's "Bootstrap :
#    no socket interface found", "unset NCCL_SOCKET_IFNAME" recommended;
#  - NCCL_TOPO_FILE cut short (inside a tag, between tags): NCCL's XML parse
#    error, nccl_config_error, "unset NCCL_TOPO_FILE" recommended;
#  - NCCL_TOPO_FILE that cannot be opened: NCCL skips it and works:
#    DEGRADED with NCCL_IGNORES_USER_VAR, no search;
#  - NCCL_GRAPH_FILE that cannot be opened: NCCL fails: "unset
#    NCCL_GRAPH_FILE" recommended;
#  - NCCL_IB_HCA alone (no IB: NCCL uses sockets) and no variable at all:
#    HEALTHY, the same verdict.
. "$(dirname "$0")/lib.sh"
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json"
TAG="t606-$$"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
scrub_user_nccl_env

clean="$ND_TMP/clean"
cp -r "$ND_FIXTURES/sysroot/h200-vm" "$clean"
python3 - "$clean/.nccl-doctor/libraries.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["libraries"] = d["libraries"][:1]; d["torch"] = []
json.dump(d, open(p, "w"))
PY
check() { run_nd --json --gpus 0,1 check --driver --sysroot "$clean" --max-bytes 1M --budget 60; }
evidence() { json_check "any(f['id'] == '$1' and any('''$2''' in e['text'] for e in f['evidence']) for f in d['findings'])" "$3"; }

# NCCL_SOCKET_IFNAME naming no interface
NCCL_SOCKET_IFNAME=bogus0 check
expect_rc 2 "NCCL_SOCKET_IFNAME=bogus0: a problem"
json_check 'd["causes"][0]["cause"] == "bootstrap_network"' "bootstrap_network first"
evidence ALLREDUCE_BOOTSTRAP_FAILS "NCCL WARN Bootstrap : no socket interface found" "NCCL's own line"
evidence ALLREDUCE_BOOTSTRAP_FAILS "NCCL_SOCKET_IFNAME=bogus0 is set by you" "named as set by the user"
has_finding P2P_NCCL_USER_BOOTSTRAP "p2p's NCCL step: the user's variable, not the pairs"
json_check 'd["recommendation"]["unset"] == ["NCCL_SOCKET_IFNAME"]' "unset NCCL_SOCKET_IFNAME recommended"

# NCCL_TOPO_FILE cut short inside a tag
printf '<system version="1">\n  <cpu numaid="0" affinity="ff" arch="x86_64">\n    <pci busid="0000:1' >"$ND_TMP/cut.xml"
NCCL_TOPO_FILE="$ND_TMP/cut.xml" check
expect_rc 2 "NCCL_TOPO_FILE cut short: a problem"
json_check 'd["causes"][0]["cause"] == "nccl_config_error"' "nccl_config_error first"
evidence ALLREDUCE_USER_ENV_FAILS "NCCL WARN XML Parse : Unexpected EOF" "NCCL's parse error"
evidence ALLREDUCE_USER_ENV_FAILS "NCCL_TOPO_FILE=$ND_TMP/cut.xml is set by you" "named as set by the user"
json_check 'd["recommendation"]["unset"] == ["NCCL_TOPO_FILE"]' "unset NCCL_TOPO_FILE recommended"
# between tags
printf '<system version="1">\n  <cpu numaid="0" affinity="ff" arch="x86_64">\n  </cpu>\n' >"$ND_TMP/cut2.xml"
NCCL_TOPO_FILE="$ND_TMP/cut2.xml" check
evidence ALLREDUCE_USER_ENV_FAILS "NCCL WARN XML Parse : unterminated system" "cut between tags: 'unterminated system'"
# a whole file parses: healthy
printf '<system version="1">\n  <cpu numaid="0" affinity="ff" arch="x86_64">\n  </cpu>\n</system>\n' >"$ND_TMP/whole.xml"
NCCL_TOPO_FILE="$ND_TMP/whole.xml" check
expect_rc 0 "a whole topology file: HEALTHY"

# NCCL_TOPO_FILE that cannot be opened: skipped by NCCL (2.27+: an INFO)
NCCL_TOPO_FILE="$ND_TMP/missing.xml" check
expect_rc 1 "an unopenable topology file: warnings only"
json_check 'd["verdict"] == "DEGRADED"' "DEGRADED, not BROKEN: NCCL works without it"
evidence NCCL_IGNORES_USER_VAR "Could not open XML topology file $ND_TMP/missing.xml" "NCCL's line, the file named"
json_check '[s["stage"] for s in d["facts"]["check"]["stages"]][-1] == "bench"' "no configuration search"

# NCCL_GRAPH_FILE that cannot be opened: NCCL fails
NCCL_GRAPH_FILE="$ND_TMP/missing.xml" check
expect_rc 2 "an unopenable graph file: a problem"
evidence ALLREDUCE_USER_ENV_FAILS "NCCL WARN Could not open XML graph file" "NCCL's line"
json_check 'd["recommendation"]["unset"] == ["NCCL_GRAPH_FILE"]' "unset NCCL_GRAPH_FILE recommended"

# NCCL_IB_HCA alone, and no variable: HEALTHY
NCCL_IB_HCA=mlx5_0 check
expect_rc 0 "NCCL_IB_HCA alone on a host without IB: HEALTHY"
check
expect_rc 0 "no variable: HEALTHY"
json_check 'd["verdict"] == "HEALTHY" and "recommendation" not in d' "no variable: no recommendation"

sleep 0.3
left=$(ls /dev/shm 2>/dev/null | grep -c "fakenccl-$TAG" || true)
if [ "$left" -eq 0 ]; then ok "no /dev/shm segment left"; else not_ok "$left segments left"; rm -f /dev/shm/fakenccl-$TAG-*; fi
procs=$(own_workers | wc -l)
if [ "$procs" -eq 0 ]; then ok "no worker process left"; else not_ok "$procs worker processes left"; fi
finish
