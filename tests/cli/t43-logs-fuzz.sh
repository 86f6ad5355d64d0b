#!/bin/bash
# Fuzz-style test of nccl-doctor logs: random bytes and random mutations of the
# real and constructed logs (flipped bytes, cut lines, NULs, colour codes, long
# lines, shuffled and duplicated lines). Every run must end by itself within
# the time limit with a status of 0..3, never a signal.
. "$(dirname "$0")/lib.sh"
# sanitizer builds: a report must fail the test, not look like exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
N=${ND_FUZZ_RUNS:-90}
python3 - "$ND_FIXTURES/logs" "$ND_TMP/fuzz" "$N" <<'PY'
import os, random, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out, exist_ok=True)
logs = []
for d, _, fs in os.walk(src):
    for f in fs:
        if f.endswith(".md") or f == "EXPECTED":
            continue
        logs.append(open(os.path.join(d, f), "rb").read())
rnd = random.Random(1234)
for i in range(n):
    kind = i % 6
    if kind == 0:
        data = os.urandom(rnd.randint(0, 50000))
    else:
        lines = rnd.choice(logs).split(b"\n") + rnd.choice(logs).split(b"\n")
        rnd.shuffle(lines) if kind == 1 else None
        for _ in range(rnd.randint(1, 40)):
            j = rnd.randrange(len(lines)) if lines else 0
            op = rnd.randrange(7)
            if not lines:
                break
            l = bytearray(lines[j])
            if op == 0 and l:
                l[rnd.randrange(len(l))] = rnd.randrange(256)
            elif op == 1:
                l = l[: rnd.randint(0, len(l))]
            elif op == 2:
                l.insert(rnd.randint(0, len(l)), 0)
            elif op == 3:
                l = bytearray(b"\x1b[1;31m") + l + bytearray(b"\x1b[0m")
            elif op == 4:
                # a long line, at most ~4 MB: a fixture whose one line is a
                # whole dump (a pickle) times 3000 would not fit in memory
                l = l * min(rnd.randint(2, 3000), max(2, 4000000 // max(1, len(l))))
            elif op == 5:
                lines.insert(j, bytes(l))
            else:
                l = bytearray(b"[rank%d]:(VllmWorkerProcess pid=%d) " % (rnd.randrange(9), rnd.randrange(99999))) + l
            lines[j] = bytes(l)
        data = b"\n".join(lines)
        if kind == 5:
            data = data[: rnd.randint(0, len(data))]
    open(os.path.join(out, "case%03d.log" % i), "wb").write(data)
PY
# the generator must have made every case: a crash of it is a failure, not
# "0 cases, no crash"
gen=$?
made=$(ls "$ND_TMP"/fuzz/case*.log 2>/dev/null | wc -l)
if [ "$gen" -ne 0 ] || [ "$made" -ne "$N" ]; then
  not_ok "the case generator failed (exit $gen, $made of $N cases made)"; finish; exit 1
fi
bad=0
for f in "$ND_TMP"/fuzz/case*.log; do
  timeout 20 "$ND_BIN" logs --json "$f" >"$ND_TMP/out" 2>"$ND_TMP/err" </dev/null
  rc=$?
  if [ "$rc" -gt 3 ] || grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$ND_TMP/err"; then
    bad=$((bad + 1)); not_ok "fuzz $(basename "$f"): exit $rc"; cp "$f" "${TMPDIR:-/tmp}/nd-fuzz-fail-$(basename "$f")"
  elif [ "$rc" -ne 3 ] && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$ND_TMP/out" 2>/dev/null; then
    bad=$((bad + 1)); not_ok "fuzz $(basename "$f"): output is not JSON"
  fi
done
[ "$bad" -eq 0 ] && ok "$made fuzz cases: no crash, no hang, valid JSON"
finish
