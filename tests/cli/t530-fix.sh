#!/usr/bin/env bash
# nccl-doctor fix on the fake GPU stack (the scenarios of issue 13):
#  - the classic case: 4 GPUs on PCIe behind two switches, ACS redirect,
#    NCCL hanging when P2P crosses the switches: as given HANGs, the table
#    shows NCCL_P2P_LEVEL=PIX working (and, with --all, NCCL_P2P_DISABLE=1
#    too, but slower: its four SHM hops share host memory, PIX's two do),
#    PIX recommended, the setpci lines, their systemd unit and the GRUB line;
#    --write-env writes the env file and never replaces a foreign file;
#  - /dev/shm of 1 MiB: the SHM candidates fail with /dev/shm evidence, the
#    recommendation carries --shm-size;
#  - bootstrap on a wrong interface: NCCL_SOCKET_IFNAME=<eth0> from sys;
#  - a GPU held by another process: skipped, said so, incomplete;
#  - a wedged GPU: its trials are void, the reset command is printed;
#  - --command: the user's script, failing unless P2P is limited or off.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the reports (tables, evidence, fixes)
export COLUMNS=200 # a table row on one line
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
TAG="t530-$$"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
# the caller's own NCCL_* and CUDA_* variables would add the candidate
# without them (the last resort) to the tables below
scrub_user_nccl_env
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"

# the classic case
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" run_nd fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M --all --write-env "$ND_TMP/nccl.env"
expect_rc 1 "classic case: a configuration other than the given one works (exit 1)"
expect_out '^BROKEN: 4 GPUs, [0-9.]+ s; search: NCCL_P2P_LEVEL=PIX works \(fix found\); the recommendation was written to .*nccl.env$' "headline: broken as given, the search's winner, the env file written"
expect_out 'as given +- +[0-9.]+ .* HANG at size 8 of op all_reduce' "as given: init ok (its seconds), all_reduce HANG with its stage"
expect_out 'NCCL_P2P_LEVEL=PIX +~[0-9]+% +[0-9.]+ +[0-9.]+ .* OK$' "NCCL_P2P_LEVEL=PIX: OK with its busbw"
expect_out 'NCCL_P2P_DISABLE=1 +~[0-9]+% +[0-9.]+ +[0-9.]+ .* OK$' "NCCL_P2P_DISABLE=1: OK with its busbw (--all)"
pix=$(sed -n 's/^ *NCCL_P2P_LEVEL=PIX  *~[0-9]*%  *[0-9.]*  *\([0-9.]*\) .* OK$/\1/p' "$OUT")
dis=$(sed -n 's/^ *NCCL_P2P_DISABLE=1  *~[0-9]*%  *[0-9.]*  *\([0-9.]*\) .* OK$/\1/p' "$OUT")
if [ -n "$pix" ] && [ -n "$dis" ] && awk -v a="$pix" -v b="$dis" 'BEGIN{exit !(a > b)}'; then
  ok "PIX measured faster than NCCL_P2P_DISABLE=1 ($pix vs $dis GB/s)"; else not_ok "PIX '$pix' vs DISABLE '$dis'"; fi
expect_out 'recommended +NCCL_P2P_LEVEL=PIX' "recommends NCCL_P2P_LEVEL=PIX"
expect_out 'export NCCL_P2P_LEVEL=PIX' "shell form"
expect_out 'docker run -e NCCL_P2P_LEVEL=PIX' "docker form"
# PIX moves the pairs across the switches onto SHM: a container's default
# 64 MB /dev/shm would kill NCCL with SIGBUS
expect_out 'docker run -e NCCL_P2P_LEVEL=PIX --shm-size=16g ' "docker form: /dev/shm sized for SHM"
expect_out 'medium: Memory' "kubernetes form: a memory emptyDir on /dev/shm"
expect_out 'vllm serve MODEL --tensor-parallel-size 4 --disable-custom-all-reduce' "vLLM form: the GPUs tested, not N"
expect_out 'name: NCCL_P2P_LEVEL' "kubernetes form"
expect_out -- '--disable-custom-all-reduce' "vLLM form: custom all-reduce off (pairs broke)"
expect_out 'NCCL_P2P_LEVEL=PIX torchrun' "torchrun form"
expect_out 'shell, for ACS_REDIRECT_ENABLED: sudo setpci -s 0000:02:08.0 ECAP_ACS\+0x6.w=0000' "permanent: setpci per bridge"
expect_out 'risk/effect: clears ACS control' "with its risk"
expect_out 'ExecStart=setpci -s 0000:12:10.0 ECAP_ACS\+0x6.w=0000' "the systemd unit reapplies every setpci line"
expect_out 'kernel command line \(GRUB_CMDLINE_LINUX\), for ACS_REDIRECT_ENABLED: pci=disable_acs_redir=' "the GRUB line"
expect_out 'ALLREDUCE_P2P_FAILS' "the finding: P2P as given fails"
expect_out 'the recommendation was written to' "--write-env says where"
if head -1 "$ND_TMP/nccl.env" | grep -q '^# nccl-doctor fix' && grep -qx 'NCCL_P2P_LEVEL=PIX' "$ND_TMP/nccl.env"; then
  ok "--write-env: the env file"; else not_ok "--write-env wrote: $(cat "$ND_TMP/nccl.env" 2>&1)"; fi
echo "MY_OWN=1" >"$ND_TMP/foreign.env"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" run_nd fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M --write-env "$ND_TMP/foreign.env"
expect_rc 3 "--write-env on a file fix did not write: exit 3"
expect_err "was not written by nccl-doctor fix: not replaced" "and says why"
grep -qx 'MY_OWN=1' "$ND_TMP/foreign.env" && ok "the foreign file is untouched" || not_ok "the foreign file changed"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" run_nd --json fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M --form docker
json_check 'd["exit_code"] == 1 and d["recommendation"]["env"] == {"NCCL_P2P_LEVEL": "PIX"} and list(d["recommendation"]["forms"]) == ["docker"]' "JSON: exit code, the winner's environment, --form docker only"
json_check '[t["result"] for t in d["facts"]["fix"]["trials"]][2:] == ["not tried (a faster one works)"] * 2' "JSON: early stop once PIX passed"

# a healthy pair of NVLink GPUs at 64 MiB: the configuration as given works
# and is fast (exit 0), what it keeps of a healthy machine, the early stop
cp -r "$ND_FIXTURES/sysroot/h200-vm" "$ND_TMP/clean"
python3 - "$ND_TMP/clean/.nccl-doctor/libraries.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["libraries"] = d["libraries"][:1]; d["torch"] = []
json.dump(d, open(p, "w"))
PY
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json" run_nd --gpus 0,1 fix --driver --sysroot "$ND_TMP/clean" --max-bytes 64M
expect_rc 0 "healthy NVLink pair: as given works and is fast (exit 0)"
expect_out '^HEALTHY: 2 GPUs, [0-9.]+ s; search: works as given$' "verdict HEALTHY, works as given"
# (the 256 MiB column, empty at --max-bytes 64M, is left out of the text)
expect_out 'as given +~100% +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ .* OK$' "busbw at 1 and 64 MiB and the 8 B time"
expect_out 'keeps +~(8[0-9]|9[0-9]|100)%' "keeps most of a healthy machine's busbw (64 MiB, not 1 MiB, measured)"
expect_out 'not tried \(a faster one works\): NCCL_P2P_DISABLE=1' "the rest not tried"
expect_out 'nothing to change' "the forms say nothing needs to change"

# /dev/shm of 1 MiB in a container
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/shm-small.json" run_nd fix --driver --sysroot "$ND_FIXTURES/sysroot/docker-small-shm" --timeout 3 --max-bytes 1M --all
expect_out 'ALLREDUCE_SHM_FAILS' "small /dev/shm: as given fails for /dev/shm"
expect_out "NCCL_P2P_DISABLE=1 +- +ERROR .* ERROR: .*(/dev/shm|shared memory)" "the SHM candidate fails with /dev/shm evidence (--all)"
expect_out 'recommended +NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1' "socket-only works meanwhile"
expect_out -- '--shm-size=' "the docker form carries --shm-size"

# bootstrap on a wrong interface
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-bootstrap-eth0.json" run_nd fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M
expect_rc 1 "bootstrap: fixed by another configuration"
expect_out 'ALLREDUCE_BOOTSTRAP_FAILS' "as given fails in bootstrap"
expect_out 'recommended +NCCL_SOCKET_IFNAME==eth0' "NCCL_SOCKET_IFNAME names the interface sys found up"
expect_out "export NCCL_SOCKET_IFNAME='?=eth0" "in the shell form"

# a GPU held by another process
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-p2p-busy.json" run_nd fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M
expect_out 'not tested \(in use by other processes; --force tests them\): GPU 1' "the busy GPU is skipped, said so"
expect_out '^(INCOMPLETE|BROKEN): .*incomplete' "the verdict says incomplete"
expect_out 'GPUs tried +3' "the other three are tried"

# a wedged GPU: p2p's hang left GPUs 0 and 2 busy with no process
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-wedge.json" run_nd fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M
expect_out 'void \(a GPU is wedged\)' "trials on the wedged GPU are void"
expect_out 'sudo nvidia-smi -r -i 0' "the reset command"
expect_no_out 'ALLREDUCE_P2P_FAILS|search: nothing worked' "no configuration is blamed for the wedged GPU"

# a GPU wedged by a trial (the user's command hangs as given on GPUs 0 and 1,
# where p2p found nothing): the later trials on it are void, not failures
cat >"$ND_TMP/hang.sh" <<'JOB'
#!/bin/sh
[ -n "${NCCL_P2P_LEVEL:-}" ] || [ "${NCCL_P2P_DISABLE:-}" = 1 ] || sleep 30
JOB
chmod +x "$ND_TMP/hang.sh"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-wedge.json" run_nd --gpus 0,1 fix --driver --sysroot "$ACS" --timeout 3 --budget 15 --command -- "$ND_TMP/hang.sh"
expect_rc 3 "wedged by a trial: could not finish (exit 3)"
expect_out '^INCOMPLETE' "the verdict says incomplete"
expect_out 'as given +- .*timed out after' "as given timed out"
expect_out 'NCCL_P2P_DISABLE=1 +~[0-9]+% .*void \(a GPU is wedged\)' "the next trial is void"
expect_out 'GPU 0 is wedged \(busy with no process after the trial of as given\)' "the wedged GPU is named with the trial before it"
expect_no_out 'FIX_NOTHING_WORKS' "no configuration is blamed"

# --command: the user's test
cat >"$ND_TMP/job.sh" <<'JOB'
#!/bin/sh
echo "job: P2P_LEVEL=${NCCL_P2P_LEVEL:-} P2P_DISABLE=${NCCL_P2P_DISABLE:-}"
[ -n "${NCCL_P2P_LEVEL:-}" ] || [ "${NCCL_P2P_DISABLE:-}" = 1 ] || { echo "job: hangs without a P2P limit"; sleep 30; }
JOB
chmod +x "$ND_TMP/job.sh"
t0=$(date +%s)
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" run_nd fix --driver --sysroot "$ACS" --timeout 3 --budget 40 --all --command -- "$ND_TMP/job.sh"
t1=$(date +%s)
expect_out 'Trials \(your command\)' "the table of the user's command"
expect_out 'as given +- .*timed out after [0-9]+ s' "as given: timed out"
expect_out 'NCCL_P2P_LEVEL=PIX +~[0-9]+% +0 .*OK \(exit 0\)' "NCCL_P2P_LEVEL=PIX: exit 0"
expect_out 'recommended +NCCL_P2P_LEVEL=PIX' "recommends the first that worked"
within 40 $((t1 - t0)) "--command within its budget (s)"
if pgrep -f "$ND_TMP/job.sh" >/dev/null; then not_ok "the timed-out job was left running"; pkill -f "$ND_TMP/job.sh"; else ok "the timed-out job was killed"; fi

sleep 0.5
left=$(ls /dev/shm 2>/dev/null | grep -c "fakenccl-$TAG" || true)
if [ "$left" -eq 0 ]; then ok "no /dev/shm segment left"; else not_ok "$left segments left"; rm -f /dev/shm/fakenccl-$TAG-*; fi

# a recorded tree without --driver: no GPU to try, could not run
run_nd fix --sysroot "$ACS"
expect_rc 3 "a recorded sysroot without --driver: exit 3"
expect_out 'no configuration was tried: no GPU was tested' "and says why"

# usage
run_nd fix --budget 1
expect_rc 64 "--budget below 10 s"
run_nd fix --form pdf
expect_rc 64 "--form unknown"
run_nd fix --command
expect_rc 64 "--command without a command"
run_nd fix extra
expect_rc 64 "an argument without --command"
run_nd fix --command -- /nonexistent/job.sh
expect_rc 3 "--command with a command that is not there: exit 3 before any stage"
expect_err "cannot run '/nonexistent/job.sh': not found" "and says so"
finish
