#!/usr/bin/env bash
# The command line: help, version, bad usage (64), a missing sysroot (3),
# global options anywhere, NO_COLOR, no colour when not a terminal.
. "$(dirname "$0")/lib.sh"
run_nd --help;            expect_rc 0 "--help";  expect_out '^usage: nccl-doctor' "--help prints usage"
expect_out '^  sys ' "--help lists sys"
expect_no_out '__worker' "--help hides the worker"
run_nd -h;                expect_rc 0 "-h"
run_nd --version;         expect_rc 0 "--version"; expect_out '^nccl-doctor [0-9]+\.[0-9]+\.[0-9]+$' "version line"
run_nd sys --help;        expect_rc 0 "sys --help"; expect_out '^usage: nccl-doctor sys' "sys usage"
run_nd snapshot -h;       expect_rc 0 "snapshot -h"
run_nd help sys;          expect_rc 0 "help sys"; expect_out '^usage: nccl-doctor sys' "help sys prints sys usage"
run_nd frobnicate;        expect_rc 64 "unknown command"; expect_err "'frobnicate' is not a command" "unknown command named"
run_nd sys --frob;        expect_rc 64 "unknown option"; expect_err "unknown option '--frob'" "unknown option named"
run_nd sys extra;         expect_rc 64 "unexpected argument"
run_nd --bogus;           expect_rc 64 "unknown global option"
run_nd --timeout abc sys; expect_rc 64 "bad --timeout"
run_nd --sysroot;         expect_rc 64 "--sysroot without a value"
run_nd --sysroot /nonexistent/nd sys; expect_rc 3 "missing sysroot"
expect_err "cannot use sysroot '/nonexistent/nd': no such file or directory" "missing sysroot: one clear line"
expect_err_lines 1 "missing sysroot: exactly one line on stderr"
touch "$ND_TMP/afile"
run_nd sys --sysroot "$ND_TMP/afile"; expect_rc 3 "sysroot that is a file"
fx="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
run_nd sys --sysroot "$fx" --json; expect_rc 2 "global options after the command"
json_check 'd["command"] == "sys"' "--json after the command works"
NCCL_DOCTOR_SYSROOT="$fx" run_nd --json; expect_rc 2 "no command runs check; NCCL_DOCTOR_SYSROOT honoured"
json_check 'd["command"] == "check" and d["facts"]["host"]["hostname"] == "pcie-box"' "default command is check on the env sysroot"
run_nd sys --sysroot="$fx"; expect_rc 2 "--sysroot=DIR form"
if grep -q $'\033\[' "$OUT"; then not_ok "colour written to a pipe"; else ok "no colour on a pipe"; fi
# colour on a terminal only, and NO_COLOR / --no-color turn it off there
if command -v script >/dev/null; then
  script -qec "env -u NO_COLOR $ND_BIN sys --sysroot $fx" /dev/null >"$ND_TMP/tty" 2>&1 </dev/null
  if grep -q $'\033\[' "$ND_TMP/tty"; then ok "colour on a terminal"; else not_ok "no colour on a terminal"; fi
  script -qec "NO_COLOR=1 $ND_BIN sys --sysroot $fx" /dev/null >"$ND_TMP/tty" 2>&1 </dev/null
  if grep -q $'\033\[' "$ND_TMP/tty"; then not_ok "NO_COLOR ignored"; else ok "NO_COLOR honoured"; fi
  script -qec "env -u NO_COLOR $ND_BIN --no-color sys --sysroot $fx" /dev/null >"$ND_TMP/tty" 2>&1 </dev/null
  if grep -q $'\033\[' "$ND_TMP/tty"; then not_ok "--no-color ignored"; else ok "--no-color honoured"; fi
fi
# writing to a closed pipe / full device is an error, not a crash
if [ -w /dev/full ]; then
  timeout 20 "$ND_BIN" sys --sysroot "$fx" >/dev/full 2>"$ND_TMP/err"; RC=$?; ERR="$ND_TMP/err"
  expect_rc 3 "stdout write failure is exit 3"
fi
finish
