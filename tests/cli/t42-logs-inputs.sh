#!/bin/bash
# nccl-doctor logs on bad and odd inputs: usage errors, missing and binary
# files, stdin, globs, directories, a 10 MB line, NUL bytes, CRLF, ANSI colour,
# a truncated last line, an empty file. Never a crash or a hang.
. "$(dirname "$0")/lib.sh"
# sanitizer builds: a report must fail the test, not look like exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
F="$ND_FIXTURES/logs/real-h200"
T="$ND_TMP"

run_nd logs --help
expect_rc 0 "--help"
expect_out '^usage: nccl-doctor logs' "usage text"
run_nd logs
expect_rc 64 "no input is a usage error"
run_nd logs --bogus "$F/torch-1rank-info.log"
expect_rc 64 "unknown option"
run_nd logs --max-line 1 "$F/torch-1rank-info.log"
expect_rc 64 "bad --max-line"
run_nd logs - -
expect_rc 64 "stdin twice"

run_nd logs "$T/does-not-exist.log"
expect_rc 3 "missing file"
expect_err "cannot read '.*does-not-exist.log': no such file or directory|cannot read '.*does-not-exist.log': No such file or directory" "missing file: one-line error naming it"
expect_err_lines 1 "missing file: one line on stderr"
run_nd logs "$T/nothing-*.log"
expect_rc 3 "glob without a match"
expect_err "no file matches" "glob: error"

head -c 20000 /dev/urandom >"$T/random.bin"
run_nd logs "$T/random.bin"
expect_rc 3 "binary file"
expect_err "binary data, not a text log" "binary file: says so"
printf '\x1f\x8b\x08\x00garbage' >"$T/log.gz"
run_nd logs "$T/log.gz"
expect_rc 3 "corrupt gzip file"
expect_err "'gzip -dc' failed .*: a corrupt or truncated file" "corrupt gzip: says so"
printf 'x:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n' | gzip >"$T/ok.log.gz"
run_nd logs --json "$T/ok.log.gz"
json_check '"2.21.5" in json.dumps(d)' "a gzip log is decompressed and read"
cat "$T/ok.log.gz" | timeout 60 "$ND_BIN" logs - >"$OUT" 2>"$ERR"; RC=$?
expect_rc 3 "gzip on stdin"; expect_err "zcat" "gzip on stdin: hint"

: >"$T/empty.log"
run_nd logs --json "$T/empty.log"
expect_rc 3 "empty file: nothing was read"
json_check '"nothing was read" in d["error"] and not d["findings"]' "empty file: only the error"
printf 'starting server\nlistening on :8000\n' >"$T/plain.log"
run_nd logs --json "$T/plain.log"
expect_rc 1 "no NCCL lines is a warning"
json_check 'any(f["id"] == "LOG_NO_NCCL_LINES" for f in d["findings"])' "no NCCL lines: LOG_NO_NCCL_LINES"
json_check '"cannot tell" in d["headline"] and "no failure found" not in d["headline"]' "no NCCL lines: cannot tell"

# stdin, CRLF and ANSI colour
sed 's/$/\r/' "$F/torch-bad-ifname.log" | sed 's/NCCL WARN/\x1b[31mNCCL WARN\x1b[0m/' >"$T/crlf.log"
timeout 60 "$ND_BIN" logs --json - <"$T/crlf.log" >"$ND_TMP/out" 2>"$ND_TMP/err"; RC=$?; OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
expect_rc 2 "stdin with CRLF and colour codes"
json_check 'd["causes"][0]["cause"] == "bootstrap_network" and d["causes"][0]["evidence"][0]["file"] == "<stdin>" and "\r" not in d["causes"][0]["evidence"][0]["text"]' "stdin: same verdict, file <stdin>"
json_check 'd["facts"]["inputs"]["files"][0]["skipped"].find("colour") >= 0' "colour codes counted"

# a 10 MB line, NUL bytes, and a truncated last line (no newline)
{ head -n 14 "$F/torch-dup-gpu-r0.log"; head -c 10000000 /dev/zero | tr '\0' 'x'; echo; printf 'vm:717:717 [0] NCCL INFO bad\0byte line\n'; tail -n +15 "$F/torch-dup-gpu-r0.log" | head -c -1; } >"$T/odd.log"
run_nd logs --json "$T/odd.log"
expect_rc 2 "10 MB line, NUL bytes, unterminated last line"
json_check 'd["causes"][0]["cause"] == "duplicate_gpu_or_device_mapping"' "odd input: same verdict"
json_check '"long line" in d["facts"]["inputs"]["files"][0]["skipped"] and "NUL" in d["facts"]["inputs"]["files"][0]["skipped"] and "unterminated" in d["facts"]["inputs"]["files"][0]["skipped"]' "odd input: the report says what was cut"
json_check 'any(f["id"] == "LOG_INPUT_SKIPPED" for f in d["findings"])' "odd input: LOG_INPUT_SKIPPED"

# globs and directories
run_nd logs --json "$F/torch-dup-gpu-r*.log"
expect_rc 2 "glob"
json_check 'len(d["ranks"]) == 2' "glob: both files"
mkdir -p "$T/dir/sub"; cp "$F/torch-dup-gpu-r0.log" "$T/dir/"; cp "$F/torch-dup-gpu-r1.log" "$T/dir/sub/"; cp "$T/random.bin" "$T/dir/"
run_nd logs --json "$T/dir"
expect_rc 2 "directory, recursive, binary file skipped"
json_check 'len(d["ranks"]) == 2 and len(d["facts"]["inputs"]["files"]) == 2' "directory: the two logs"
expect_err "skipping .*random.bin" "directory: binary file skipped with a note"

if [ "$(id -u)" != 0 ]; then
  cp "$F/torch-1rank-info.log" "$T/noperm.log"; chmod 000 "$T/noperm.log"
  run_nd logs "$T/noperm.log"
  expect_rc 3 "no permission"
  expect_err "permission denied|Permission denied" "no permission: says so"
fi
finish
