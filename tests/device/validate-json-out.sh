#!/usr/bin/env bash
# Device validation of what the 2026-12-07 sessions changed on GPU paths:
#   1. `check --json-out F` and `p2p --json-out F` on the real GPU: the text
#      report on stdout, F a JSON document whose verdict is the text's, and
#      the same exit status as a plain run;
#   2. the workers' descriptors: a worker started while the parent holds an
#      extra descriptor (fd 9 open on a file) still answers (check passes
#      the GPU facts), and a probe of /proc/<worker>/fd is not needed: the
#      check's verdict and GPU count match a run without it;
#   3. watch passes on the job's last line when a signal ends it: a job that
#      prints got-TERM on SIGTERM, run under timeout -s TERM, keeps it.
# Run from the repository root with ND_BIN=/path/nccl-doctor and OUT=DIR;
# about a minute. Writes json-out-*.txt and the summary under $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
OUT=${OUT:-/tmp/nd-json-out}
mkdir -p "$OUT"
: "${ND_BIN:?give ND_BIN}"
. tests/device/lib.sh
nd_summary "$OUT/json-out-summary.txt"
PY=${PY:-python3}

verdict_of_json() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1])).get("verdict", "?"))' "$1" 2>/dev/null; }
for cmd in check p2p; do
  timeout 300 "$ND_BIN" --no-color "$cmd" >"$OUT/json-out-$cmd.plain.txt" 2>&1
  rc0=$?
  timeout 300 "$ND_BIN" --no-color --json-out "$OUT/json-out-$cmd.json" "$cmd" >"$OUT/json-out-$cmd.txt" 2>&1
  rc1=$?
  v=$(verdict_of_json "$OUT/json-out-$cmd.json")
  say "$cmd: plain exit $rc0, with --json-out exit $rc1, JSON verdict $v"
  check "$cmd --json-out: same exit status as a plain run" [ "$rc0" = "$rc1" ]
  check "$cmd --json-out: the JSON verdict appears in the text report" grep -q -- "$v" "$OUT/json-out-$cmd.txt"
done
exec 9<"$OUT/json-out-check.txt"
timeout 300 "$ND_BIN" --no-color --json check >"$OUT/json-out-check-fd9.json" 2>"$OUT/json-out-check-fd9.err"
rc=$?
exec 9<&-
v=$(verdict_of_json "$OUT/json-out-check-fd9.json")
say "check with fd 9 held by the parent: exit $rc, verdict $v"
check "check with an extra descriptor: the same verdict" [ "$v" = "$(verdict_of_json "$OUT/json-out-check.json")" ]

cat >"$OUT/term.py" <<'PY'
import signal, sys, time
def term(*_):
    print("got-TERM", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
print("started", flush=True)
time.sleep(60)
PY
for i in 1 2 3 4 5; do
  timeout -s TERM 4 "$ND_BIN" watch --stall 30 -- $PY "$OUT/term.py" >"$OUT/json-out-watch$i.out" 2>"$OUT/json-out-watch$i.err"
  say "watch run $i: exit $?, stdout: $(tr '\n' ' ' <"$OUT/json-out-watch$i.out")"
  check "watch run $i: the job's last line (got-TERM) passed on" grep -q got-TERM "$OUT/json-out-watch$i.out"
done
rm -f "$OUT/term.py"
say "json-out validation: $pass passed, $fail failed"
[ "$fail" = 0 ]
