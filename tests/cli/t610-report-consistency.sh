#!/usr/bin/env bash
# One report never contradicts itself: every fixture and fake scenario the
# suite has, rendered as text and as --json, and the pairs that must agree
# checked by tests/tools/consistency.py (its rules are listed there). The
# commands that take --json-out (check, p2p, sys, topo, kernel) run once
# and write both renderings of one result; logs and fix run twice.
#  - every tests/fixtures/fakegpu/*.json scenario through `check`, and
#    through `p2p --quick` and `fix` alone where it has more than one GPU
#    (the default run: two of them, see Time below);
#  - every tests/fixtures/sysroot/* (and the fake stack's sysroot-pxb)
#    through `sys` and `topo`;
#  - every tests/fixtures/logs/** directory (its files together) and every
#    file alone (but those of public/, one case a directory) through `logs`;
#  - every tests/fixtures/kernel/* through `kernel`.
# First the checker's --selftest: each rule is fed a doctored report and must
# fail it (a rule that cannot fail proves nothing).
#
# Time (under ~3 minutes on a loaded 2-core machine): the GPU commands run
# with `--timeout 1 --max-bytes 1M`. Default options would make every hang
# scenario wait out NCCL's 30 s communicator deadline and measure up to 64 MiB
# per trial (minutes per scenario); the rules are about what one report says,
# not how long its deadlines are (t520/t530/t608 test the default options).
# `check` runs every scenario as text (with --progress: its p2p stage's
# progress lines on stderr) and as JSON; it renders the p2p and fix sections
# too. `p2p --quick` and `fix` run alone, as text and JSON, on the scenarios
# of the issue's two p2p/fix reports: the classic ACS case and the copies
# that hang where NCCL works (ND_T610_ALL=1: on every multi-GPU scenario,
# some ten minutes). The commands without GPU work run one at a time beside
# the GPU runs, which go four at a time (most of a hang run is waiting).
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
: "${ND_BUILD:?ND_BUILD must name the build tree}"
scrub_user_nccl_env
# in a sanitizer build a report is exit 99, counted below
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
cd "$ND_SRC" || exit 1
CHK="$ND_SRC/tests/tools/consistency.py"
D="$ND_TMP/r"
mkdir -p "$D"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t610-$$"

if python3 "$CHK" --selftest >"$ND_TMP/self" 2>&1; then ok "checker self-test: every rule fails its doctored report"
else not_ok "checker self-test"; sed 's/^/    /' "$ND_TMP/self" | tail -20; fi

FAKE="$ND_BUILD/tests/fakegpu/lib"
EMPTY="$ND_SRC/tests/golden/sysroot-empty"
SR="tests/fixtures/sysroot"
GPU_OPTS="--timeout 1"
# a sanitized worker starts in ~0.35 s and runs several times slower: under
# load its NVML query could miss a 1 s deadline (seen in CI when text and
# JSON were two runs of check: the JSON run HEALTHY, the text run naming a
# cause; one run writes both now, and a missed deadline still makes a
# report of its own)
[ -n "${ND_SANITIZE:-}" ] && GPU_OPTS="--timeout 5"
BENCH_OPTS="--max-bytes 1M"

# one run: NAME MODE(txt|json|both) SCENARIO(-: none) SYSROOT COMMAND ARGS...;
# writes $D/NAME.cmd and $D/NAME.{txt,err,rc} (text: stderr is p2p's
# progress) or $D/NAME.{json,jrc}; both: the text report and, through
# --json-out, the JSON of the same run (the commands that take it: check,
# p2p, sys, topo, kernel), so that both renderings hold the same facts
run1() {
  local name=$1 mode=$2 sc=$3 sr=$4 lib scen; shift 4
  if [ "$sc" = - ]; then lib=/nonexistent/nccl-doctor-t610; scen=/nonexistent/t610.json
  else lib=$FAKE; scen="tests/fixtures/fakegpu/$sc.json"; fi
  echo "$*" >"$D/$name.cmd"
  # the whole text report (--full), one line per fact (COLUMNS=1000): the rules read its tables
  local e=(env -u NCCL_DOCTOR_SYSROOT LANG=C LC_ALL=C NO_COLOR=1 TZ=UTC HOME="$ND_TMP" COLUMNS=1000
           NCCL_DOCTOR_LIBRARY_PATH="$lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SCENARIO="$scen"
           timeout 120 "$ND_BIN" --full --sysroot "$sr")
  # p2p's progress lines (stderr is no terminal here) are what the p2p-nccl rule reads
  [ "$1" = p2p ] && e+=(--progress)
  if [ "$mode" = both ]; then
    "${e[@]}" --json-out "$D/$name.json" "$@" >"$D/$name.txt" 2>"$D/$name.err" </dev/null
    echo $? >"$D/$name.rc"
    cp "$D/$name.rc" "$D/$name.jrc"
  elif [ "$mode" = txt ]; then
    "${e[@]}" "$@" >"$D/$name.txt" 2>"$D/$name.err" </dev/null
    echo $? >"$D/$name.rc"
  else
    "${e[@]}" --json "$@" >"$D/$name.json" 2>/dev/null </dev/null
    echo $? >"$D/$name.jrc"
  fi
}
one() { local name=$1; shift; run1 "$name" txt "$@"; run1 "$name" json "$@"; }
one_run() { local name=$1; shift; run1 "$name" both "$@"; }

# a GPU case: its text and its JSON run as two jobs, at most 4 jobs at once
running=0
spawn1() {
  if [ "$running" -ge 4 ]; then wait -n; running=$((running - 1)); fi
  run1 "$@" &
  running=$((running + 1))
}
spawn() { local name=$1; shift; spawn1 "$name" txt "$@"; spawn1 "$name" json "$@"; }
spawn_run() { local name=$1; shift; spawn1 "$name" both "$@"; }

# the sysroot a fake scenario's machine goes with (the fixtures t520/t530 use)
scenario_sysroot() {
  case "$1" in
    pcie4*|nccl-*|cuinit-*|gpu-lost|nvml-hang) echo "$SR/pcie-4gpu-acs" ;;
    pcie8*) echo "$SR/pcie-8gpu-acs" ;;
    shm-small) echo "$SR/docker-small-shm" ;;
    hgx8-healthy|hgx8-link-faults|hgx8-nvls-off) echo "$SR/hgx-fm-healthy" ;;
    hgx8-fm-not-started) echo "$SR/hgx-fm-stopped" ;;
    h200-1gpu) echo "$SR/h200-vm" ;;
    *) echo "$EMPTY" ;;
  esac
}

# the commands without GPU work, in order, in the background
no_gpu() {
  local s b k p i=0
  for s in "$SR"/*/ tests/fixtures/fakegpu/sysroot-pxb/; do
    b=$(basename "$s")
    one_run "sys-$b" - "$s" sys; one_run "topo-$b" - "$s" topo
  done
  for k in tests/fixtures/kernel/*; do
    case "$k" in *.md) continue ;; esac
    one_run "kernel-$(basename "$k")" - "$EMPTY" kernel "$k"
  done
  # logs: every directory (its files together) and every file alone but
  # those of public/ (there each directory is one case's files)
  while IFS= read -r p; do
    case "$p" in *.md|*.tsv) continue ;; tests/fixtures/logs/public/*/*) [ -f "$p" ] && continue ;; esac
    i=$((i + 1))
    one "logs-$i" - "$EMPTY" logs "$p"
  done < <(find tests/fixtures/logs -mindepth 1 \( -type d -o -type f \) | LC_ALL=C sort)
}

# p2p and fix alone: the classic ACS case, and copies hanging where NCCL works
ALONE=" pcie4-nccl-p2p-hang pcie4-p2p "
t0=$(date +%s)
no_gpu &

# the fake GPU scenarios, slowest (most GPUs, hangs) first
# (ND_T610_SCENARIOS="a b": only those; a sanitizer build, which runs its
# tests one at a time and each process several times slower, takes three
# by default: the classic case, copies hanging, one healthy GPU)
if [ -n "${ND_SANITIZE:-}" ] && [ -z "${ND_T610_SCENARIOS:-}" ]; then
  ND_T610_SCENARIOS="pcie4-nccl-p2p-hang pcie4-p2p h200-1gpu"
fi
for f in $(ls -S tests/fixtures/fakegpu/*.json); do
  sc=$(basename "$f" .json)
  [ -z "${ND_T610_SCENARIOS:-}" ] || [[ " $ND_T610_SCENARIOS " == *" $sc "* ]] || continue
  sr=$(scenario_sysroot "$sc")
  # shellcheck disable=SC2086
  spawn_run "check-$sc" "$sc" "$sr" check --progress --driver $GPU_OPTS $BENCH_OPTS
  ngpu=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("gpus", [])))' "$f")
  if [ "$ngpu" -gt 1 ] && { [ "${ND_T610_ALL:-0}" = 1 ] || [ "${ALONE#* $sc }" != "$ALONE" ]; }; then
    # shellcheck disable=SC2086
    spawn_run "p2p-$sc" "$sc" "$sr" p2p --driver --quick $GPU_OPTS
    # shellcheck disable=SC2086
    spawn "fix-$sc" "$sc" "$sr" fix --driver $GPU_OPTS $BENCH_OPTS
  fi
done
wait
t1=$(date +%s)
n=$(ls "$D"/*.cmd | wc -l)
echo "# $n cases rendered in $((t1 - t0)) s"
# ND_T610_KEEP=DIR keeps the rendered reports (reading a complaint)
[ -n "${ND_T610_KEEP:-}" ] && rm -rf "$ND_T610_KEEP" && cp -r "$D" "$ND_T610_KEEP"

san=$(grep -lx 99 "$D"/*.rc "$D"/*.jrc 2>/dev/null | wc -l)
[ "$san" -eq 0 ] && ok "no run crashed or tripped a sanitizer" || not_ok "$san runs exited 99 (sanitizer): $(grep -lx 99 "$D"/*.rc "$D"/*.jrc | head -5 | xargs -n1 basename | tr '\n' ' ')"
if python3 "$CHK" "$D" >"$ND_TMP/chk" 2>&1; then ok "$n reports agree with themselves ($(tail -1 "$ND_TMP/chk"))"
else not_ok "reports contradict themselves"; sed 's/^/    /' "$ND_TMP/chk" | head -60; fi
[ "$n" -ge 200 ] || [ -n "${ND_T610_SCENARIOS:-}" ] && ok "$n cases (every fixture and scenario)" || not_ok "only $n cases: the fixtures moved?"
sleep 0.3
left=$(ls /dev/shm 2>/dev/null | grep -c "fakenccl-t610-$$" || true)
if [ "$left" -eq 0 ]; then ok "no /dev/shm segment left"; else not_ok "$left segments left"; rm -f /dev/shm/fakenccl-t610-$$-*; fi
finish
