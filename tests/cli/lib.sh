# Shared helpers for command-line tests (git's t/ style). A test script
# sources this, calls the checks, and ends with `finish`.
# Environment from ctest: ND_BIN (the binary), ND_SRC, ND_BUILD, ND_FIXTURES.
set -u
: "${ND_BIN:?ND_BIN must name the nccl-doctor binary}"
export NO_COLOR=1
unset COLUMNS # tables fit COLUMNS (report/text.c): tests set it where they mean to
ND_PASS=0
ND_FAIL=0
ND_TMP=$(mktemp -d "${TMPDIR:-/tmp}/nd-cli.XXXXXX")
trap 'rm -rf "$ND_TMP"' EXIT
# python3 as the interpreter itself, not a version manager's shim (a chain of
# bash scripts, up to a second a call on a loaded machine): ctest names it in
# ND_PYTHON3 (tests/CMakeLists.txt); a script run by hand asks python3 once
if [ -z "${ND_PYTHON3:-}" ] && command -v python3 >/dev/null; then
  ND_PYTHON3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
fi
if [ -n "${ND_PYTHON3:-}" ] && [ -x "$ND_PYTHON3" ]; then
  mkdir -p "$ND_TMP/.bin" && ln -s "$ND_PYTHON3" "$ND_TMP/.bin/python3" && PATH="$ND_TMP/.bin:$PATH"
fi

ok() { ND_PASS=$((ND_PASS + 1)); echo "ok - $*"; }
not_ok() { ND_FAIL=$((ND_FAIL + 1)); echo "not ok - $*"; }

# run_nd ARGS...: runs the binary; sets RC, OUT (stdout file), ERR (stderr file).
# ND_TEST_PROFILE=1 prints each run's wall time (finding a slow test's cost)
# Text is 1000 columns wide in the tests, one line per fact for grep; a test
# of the tool's own width (100 columns without a terminal) unsets COLUMNS.
export COLUMNS=1000

# A test that reads the details of a report (a table, a finding's evidence
# or fixes) sets ND_FULL=1: run_nd then asks for the whole text report
# (--full); without it the commands with a first screen print the short one.
run_nd() {
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  local t0; [ -n "${ND_TEST_PROFILE:-}" ] && t0=$(date +%s%N)
  local full=(); [ "${ND_FULL:-0}" = 1 ] && full=(--full)
  timeout "${ND_RUN_TIMEOUT:-60}" "$ND_BIN" "${full[@]}" "$@" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
  [ -n "${ND_TEST_PROFILE:-}" ] && echo "# profile: $((($(date +%s%N) - t0) / 1000000)) ms: $*"
  return 0
}

# Wall-clock limits hold on a loaded machine: load_factor is the 1-minute
# load average per CPU rounded up, at least 1 and at most 4 (a process on a
# busy machine waits its turn for a CPU); within LIMIT ELAPSED DESCRIPTION
# passes when ELAPSED <= LIMIT x load_factor (any one unit: s or ms).
load_factor() {
  local f
  f=$(awk -v n="$(nproc 2>/dev/null || echo 1)" '{ f = $1 / n; i = int(f); if (i < f) i++; if (i < 1) i = 1; if (i > 4) i = 4; print i }' /proc/loadavg 2>/dev/null)
  echo "${f:-1}"
}
within() {
  local f; f=$(load_factor)
  if [ "$2" -le $(($1 * f)) ]; then ok "$3 ($2 of $1${f:+ x $f})"; else not_ok "$3: took $2, limit $1 x load factor $f"; fi
}

# expect_rc CODE DESCRIPTION
expect_rc() {
  if [ "$RC" -eq "$1" ]; then ok "$2 (exit $RC)"; else
    not_ok "$2: exit $RC, wanted $1"; sed 's/^/    stderr: /' "$ERR" | head -5; fi
}
# expect_out REGEX DESCRIPTION   (grep -E over stdout)
expect_out() {
  if grep -qE -- "$1" "$OUT"; then ok "$2"; else not_ok "$2: stdout lacks /$1/"; head -20 "$OUT" | sed 's/^/    out: /'; fi
}
expect_no_out() {
  if grep -qE -- "$1" "$OUT"; then not_ok "$2: stdout has /$1/"; grep -E -- "$1" "$OUT" | head -3 | sed 's/^/    out: /'; else ok "$2"; fi
}
expect_err() {
  if grep -qE -- "$1" "$ERR"; then ok "$2"; else not_ok "$2: stderr lacks /$1/"; head -5 "$ERR" | sed 's/^/    err: /'; fi
}
# expect_lines N FILE DESCRIPTION
expect_err_lines() {
  local n; n=$(wc -l <"$ERR")
  if [ "$n" -eq "$1" ]; then ok "$2"; else not_ok "$2: stderr has $n lines, wanted $1"; head -5 "$ERR" | sed 's/^/    err: /'; fi
}
# json_check PYEXPR DESCRIPTION: evaluates a Python expression over d = the JSON on stdout
# (python3 -S: the standard library only, without the site packages' start-up,
# half the CPU of a start where site-packages holds .pth hooks; the suite
# starts python3 this way about a thousand times)
json_check() {
  if python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$OUT" "$1" 2>"$ND_TMP/pyerr"; then
    ok "$2"; else not_ok "$2: $1"; head -3 "$ND_TMP/pyerr" | sed 's/^/    py: /'; fi
}
# json_checks PYEXPR DESCRIPTION [PYEXPR DESCRIPTION ...]: json_check of each
# pair in order, in one python3 (a loop checking one output several ways
# starts one interpreter, not one per check)
json_checks() {
  local line i=0 desc=() expr=()
  while [ $# -ge 2 ]; do expr+=("$1"); desc+=("$2"); shift 2; done
  while IFS= read -r line; do
    case "$line" in
      ok) ok "${desc[$i]}" ;;
      *) not_ok "${desc[$i]}: ${expr[$i]}"; [ "$line" = fail ] || echo "    py: ${line#fail }" ;;
    esac
    i=$((i + 1))
  done < <(python3 -S -c '
import json, sys
try:
    d = json.load(open(sys.argv[1])); err = None
except Exception as e:
    err = "%s: %s" % (type(e).__name__, e)
for x in sys.argv[2:]:
    if err:
        print("fail " + err); continue
    try:
        print("ok" if eval(x) else "fail")
    except Exception as e:
        print("fail %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
' "$OUT" "${expr[@]}" 2>&1)
  while [ "$i" -lt "${#expr[@]}" ]; do not_ok "${desc[$i]}: ${expr[$i]} (python3 gave no answer)"; i=$((i + 1)); done
}

# Shorthands over the JSON of `logs --json` (the rule tests t400-t410):
# first CAUSE DESC, not_first, top3, has_cause, no_cause CAUSE DESC;
# has_finding, no_finding ID DESC; sev_of ID SEVERITY DESC.
first() { json_check "d['causes'] and d['causes'][0]['cause'] == '$1'" "$2"; }
not_first() { json_check "not d['causes'] or d['causes'][0]['cause'] != '$1'" "$2"; }
top3() { json_check "any(c['cause'] == '$1' for c in d['causes'][:3])" "$2"; }
has_cause() { json_check "any(c['cause'] == '$1' for c in d['causes'])" "$2"; }
no_cause() { json_check "not any(c['cause'] == '$1' for c in d['causes'])" "$2"; }
has_finding() { json_check "any(f['id'] == '$1' for f in d['findings'])" "$2"; }
no_finding() { json_check "not any(f['id'] == '$1' for f in d['findings'])" "$2"; }
sev_of() { json_check "any(f['id'] == '$1' and f['severity'] == '$2' for f in d['findings'])" "$3"; }

# own_workers [TASK]: the pids of this script's live `__worker` processes
# (TASK: only those of that task): those whose environment carries this
# script's NCCL_DOCTOR_FAKEGPU_SHM_TAG, so that tests running beside it
# (ctest -j) are not counted
own_workers() {
  local p tag=${NCCL_DOCTOR_FAKEGPU_SHM_TAG:?own_workers needs NCCL_DOCTOR_FAKEGPU_SHM_TAG exported}
  for p in /proc/[0-9]*; do
    tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q -- "__worker ${1:-}" || continue
    tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qx "NCCL_DOCTOR_FAKEGPU_SHM_TAG=$tag" && echo "${p#/proc/}"
  done
}

# skip REASON: counts a check that could not run here; a script whose every
# check was skipped exits 77, which ctest reports as "Skipped", not "Passed"
ND_SKIP=0
skip() { ND_SKIP=$((ND_SKIP + 1)); echo "ok - # SKIP $*"; }
# skip_all REASON: the whole script cannot run here (exit 77: ctest's skip)
skip_all() { echo "# SKIP $*"; echo "0 passed, 0 failed, skipped"; exit 77; }

# need_root: skip_all unless we are root (useradd, chown, mknod, namespaces)
need_root() { [ "$(id -u)" = 0 ] || skip_all "needs root (run ctest as root, as CI does)"; }

# other_user: creates a second local user for this script (removed at exit)
# and sets OTHER (its name), OTHER_UID, OTHER_DIR (a 0755 directory it owns,
# not sticky: fs.protected_symlinks does not apply there). Needs root; when
# useradd is missing it skips the script.
other_user() {
  need_root
  command -v useradd >/dev/null 2>&1 || skip_all "no useradd to make a second user"
  OTHER="ndt$$"
  OTHER=${OTHER:0:30}
  useradd -M -N -s /bin/sh -d /nonexistent "$OTHER" 2>/dev/null || skip_all "useradd $OTHER failed"
  OTHER_UID=$(id -u "$OTHER")
  OTHER_DIR="$ND_TMP/other"
  mkdir -p "$OTHER_DIR" && chmod 0755 "$ND_TMP" "$OTHER_DIR" && chown "$OTHER" "$OTHER_DIR"
  # the user's processes first (a server a test left running), then the user
  trap 'pkill -KILL -u "$OTHER_UID" 2>/dev/null; sleep 0.1; userdel "$OTHER" 2>/dev/null; rm -rf "$ND_TMP"' EXIT
}
# as_other CMD...: runs CMD as the second user (setpriv, else su)
as_other() {
  if command -v setpriv >/dev/null 2>&1; then
    setpriv --reuid="$OTHER_UID" --regid="$(id -g "$OTHER")" --clear-groups -- "$@"
  else
    su -s /bin/sh "$OTHER" -c "$(printf '%q ' "$@")"
  fi
}

finish() {
  local sk=""; [ "$ND_SKIP" -gt 0 ] && sk=", $ND_SKIP skipped"
  echo "$ND_PASS passed, $ND_FAIL failed$sk"
  [ "$ND_FAIL" -eq 0 ] || return 1
  # nothing passed and something was skipped: a skip, not a pass
  if [ "$ND_PASS" -eq 0 ] && [ "$ND_SKIP" -gt 0 ]; then exit 77; fi
}

# html_check PAGE [htmlcheck.py options]: the shape of an --html page
# (tests/cli/htmlcheck.py: well formed, nothing loaded from elsewhere, the
# embedded JSON, one heatmap cell per GPU pair), one ok/not ok per check
html_check() {
  local line n=0
  while IFS= read -r line; do
    n=$((n + 1))
    case $line in
      "ok "*) ok "html: ${line#ok }" ;;
      "not ok "*) not_ok "html: ${line#not ok }" ;;
      *) not_ok "html: $line" ;;
    esac
  done < <(python3 -S "$(dirname "${BASH_SOURCE[0]}")/htmlcheck.py" "$@" 2>&1)
  [ "$n" -gt 0 ] || not_ok "html: htmlcheck.py said nothing about $1"
}

# The caller's own NCCL_* and CUDA_* variables (NCCL_DOCTOR_* kept): check
# and fix treat them as the user's suspects, which a test must not inherit.
scrub_user_nccl_env() {
  local v
  for v in $(env | grep -oE '^(NCCL|CUDA)_[A-Za-z0-9_]*' | grep -v '^NCCL_DOCTOR_'); do unset "$v"; done
}

# use_fake_gpus: the binary runs on the fake GPU stack (tests/fakegpu) with a
# /dev/shm tag of this script's own (tNNN-PID, removed at exit) and none of
# the caller's NCCL_*/CUDA_* variables.
use_fake_gpus() {
  export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
  NCCL_DOCTOR_FAKEGPU_SHM_TAG="$(basename "$0" .sh | cut -d- -f1)-$$"
  export NCCL_DOCTOR_FAKEGPU_SHM_TAG
  trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-"$NCCL_DOCTOR_FAKEGPU_SHM_TAG"-*' EXIT
  scrub_user_nccl_env
}
