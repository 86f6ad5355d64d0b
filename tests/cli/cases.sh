# Runs the cases of tests/golden/CASES and SCHEMA-CASES (NAME|SCENARIO|ARGS,
# see t900-golden.sh) in a clean environment from the source tree, on an empty
# sysroot (tests/golden/sysroot-empty) unless the case names one; sourced by
# t900 (golden outputs) and t902 (JSON Schema). Needs lib.sh, ND_SRC, ND_BUILD.

# The fake GPU stack's library path and scenario for a SCENARIO word.
case_env() {
  local fake="$ND_BUILD/tests/fakegpu/lib"
  case "$1" in
    -) CASE_LIBPATH=/nonexistent/nccl-doctor-golden; CASE_SCENARIO=/nonexistent/nccl-doctor-golden.json ;;
    nosym) CASE_LIBPATH="$ND_BUILD/tests/fakegpu/lib-nosym:$fake"; CASE_SCENARIO="tests/fixtures/fakegpu/pcie4.json" ;;
    *) CASE_LIBPATH="$fake"; CASE_SCENARIO="tests/fixtures/fakegpu/$1.json" ;;
  esac
}

# case_run SCENARIO ARGS...: runs the binary (stdout to stdout); returns its status.
# The caller's COLUMNS (the width) and ND_FULL=1 (--full, as run_nd) go
# through; nothing else of its environment does.
case_run() {
  case_env "$1"; shift
  local full=(); [ "${ND_FULL:-0}" = 1 ] && full=(--full)
  env -i PATH="$PATH" HOME="$ND_TMP" LANG=C LC_ALL=C NO_COLOR=1 TZ=UTC ${COLUMNS:+COLUMNS="$COLUMNS"} \
    NCCL_DOCTOR_SYSROOT="$ND_SRC/tests/golden/sysroot-empty" \
    NCCL_DOCTOR_LIBRARY_PATH="$CASE_LIBPATH" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 \
    NCCL_DOCTOR_FAKEGPU_SCENARIO="$CASE_SCENARIO" \
    timeout 60 "$ND_BIN" "${full[@]}" "$@" </dev/null 2>/dev/null
}

# case_each FUNCTION [FILE]: calls FUNCTION NAME SCENARIO ARGS... for every
# case of FILE (default tests/golden/CASES).
case_each() {
  local fn=$1 file=${2:-$ND_SRC/tests/golden/CASES} name sc args
  while IFS='|' read -r name sc args; do
    case "$name" in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086  # ARGS are words by design (no spaces in fixture paths)
    "$fn" "$name" "$sc" $args
  done <"$file"
}
