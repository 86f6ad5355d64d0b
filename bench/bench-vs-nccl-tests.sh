#!/bin/bash
# Compares `nccl-doctor bench` with nccl-tests, row by row, from their text
# outputs: prints the ratio bench / nccl-tests of time, algbw and busbw for
# out-of-place and in-place at every size both have, and checks the issue's
# criteria: algbw and busbw within 2% at sizes >= 1 MiB, time within 5% at the
# smallest size (8 B in the validation runs). Exit 0 when they hold, 1 when
# not, 2 on bad input.
#
#   bench/bench-vs-nccl-tests.sh NCCL_TESTS_OUTPUT BENCH_OUTPUT [LABEL]
set -u
if [ $# -lt 2 ] || [ ! -r "$1" ] || [ ! -r "$2" ]; then
  echo "usage: $0 NCCL_TESTS_OUTPUT BENCH_OUTPUT [LABEL]" >&2
  exit 2
fi
exec python3 - "$1" "$2" "${3:-}" <<'PY'
import sys

def rows(path):
    out = {}
    for line in open(path, errors="replace"):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        if len(f) != 13:
            continue
        try:
            size = int(f[0])
            cells = [(float(f[5]), float(f[6]), float(f[7])), (float(f[9]), float(f[10]), float(f[11]))]
        except ValueError:
            continue
        out.setdefault(size, cells)  # first cycle only
    return out

ref, ours, label = rows(sys.argv[1]), rows(sys.argv[2]), sys.argv[3]
if not ref or not ours:
    print("no table rows in %s" % (sys.argv[1] if not ref else sys.argv[2]), file=sys.stderr)
    sys.exit(2)
sizes = sorted(set(ref) & set(ours))
if not sizes:
    print("no common sizes", file=sys.stderr)
    sys.exit(2)
def ratio(a, b):
    return a / b if b else float("nan")
print("# %s bench / nccl-tests (ratio 1.000 = equal)" % label)
print("# %12s  %8s %8s %8s   %8s %8s %8s" % ("size", "oop time", "algbw", "busbw", "ip time", "algbw", "busbw"))
ok = True
fails = []
for s in sizes:
    r, o = ref[s], ours[s]
    vals = []
    for c in range(2):
        for k in range(3):
            vals.append(ratio(o[c][k], r[c][k]))
    print("  %12d  %8.3f %8.3f %8.3f   %8.3f %8.3f %8.3f" % (s, *vals))
    if s >= 1 << 20:
        for c in range(2):
            for k in (1, 2):
                v = ratio(o[c][k], r[c][k])
                if r[c][k] > 0 and abs(v - 1) > 0.02:
                    fails.append("size %d %s %s ratio %.3f (over 2%%)" % (s, ("out-of-place", "in-place")[c], ("", "algbw", "busbw")[k], v))
small = sizes[0]
for c in range(2):
    v = ratio(ours[small][c][0], ref[small][c][0])
    if abs(v - 1) > 0.05:
        fails.append("size %d %s time ratio %.3f (over 5%%)" % (small, ("out-of-place", "in-place")[c], v))
for f in fails:
    print("# FAIL %s: %s" % (label, f))
print("# %s: %s" % (label, "within the criteria" if not fails else "%d criteria missed" % len(fails)))
sys.exit(1 if fails else 0)
PY
