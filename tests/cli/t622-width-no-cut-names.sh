#!/usr/bin/env bash
# At any terminal width no cell that names something is cut and no line is
# wider than the terminal: every golden case (tests/golden/CASES) rendered
# (the whole report at COLUMNS=80, 100 and 200, the short one at 80) shows each
# PCI address, NCCL variable, GPU UUID and cause class whole (a column that
# does not fit moves below its table, whole; only prose columns such as a
# result or a detail are cut, marked with "…"), and a table line is never
# wider than the terminal unless its naming columns alone are.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cases.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
cd "$ND_SRC" || exit 1
mkdir -p "$ND_TMP/w" "$ND_TMP/doctored"
# the whole report (--full) at 80, 100 and 200 columns, the short one at 80
for form in full.80 full.100 full.200 short.80; do
  cols=${form#*.}
  width_case() {
    local name=$1 sc=$2; shift 2
    ND_FULL=$([ "${form%.*}" = full ] && echo 1 || echo 0) COLUMNS=$cols case_run "$sc" "$@" >"$ND_TMP/w/$name.$form.txt"
  }
  case_each width_case
done
# the fix search's trial table (configuration names) and sys's GPU and
# bridge tables on narrow terminals
F="$ND_BUILD/tests/fakegpu"
for cols in 60 80; do
  NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SHM_TAG="t622-$$" \
    NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-nccl-p2p-hang.json" COLUMNS=$cols \
    timeout 120 "$ND_BIN" fix --all --max-bytes 1M --timeout 3 >"$ND_TMP/w/fix.$cols.txt" 2>/dev/null </dev/null
  COLUMNS=$cols "$ND_BIN" sys --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" >"$ND_TMP/w/sys-acs.$cols.txt" 2>/dev/null
done
rm -f /dev/shm/fakenccl-t622-$$-*
grep -q 'NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1' "$ND_TMP/w/fix.80.txt" && ok "fix at 80 columns names its configurations" ||
  not_ok "fix at 80 columns: no trial table"
n=$(ls "$ND_TMP/w" | wc -l)
[ "$n" -ge 300 ] && ok "$n reports rendered at 80, 100 and 200 columns" || not_ok "only $n reports"
# cut_names DIR: the lines of DIR's reports with a name cut short (the
# start of a PCI address, an NCCL_/CUDA_ variable, a GPU UUID or a class
# id, then the cut mark), at most 10, and "# N cut names"
cut_names() {
  python3 - "$1" <<'PY'
import os, re, sys
cut = re.compile(r"(\b[0-9a-fA-F]{4}:[0-9a-fA-F]{0,2}(:[0-9a-fA-F]{0,2}(\.[0-9]?)?)?|\b(NCCL|CUDA)_[A-Z0-9_]*|\bGPU-[0-9a-f-]*|\b[a-z]+_[a-z_]*)\u2026")
bad = 0
for f in sorted(os.listdir(sys.argv[1])):
    for no, line in enumerate(open(os.path.join(sys.argv[1], f), errors="replace"), 1):
        if cut.search(line):
            bad += 1
            if bad <= 10:
                print("%s:%d: %r" % (f, no, line.rstrip()[:160]))
print("# %d cut names" % bad)
PY
}
cut_names "$ND_TMP/w" >"$ND_TMP/cut"
if grep -q '^# 0 cut names' "$ND_TMP/cut"; then ok "no PCI address, variable, UUID or class cut at any width"
else not_ok "names cut short"; sed 's/^/    /' "$ND_TMP/cut" | head -12; fi
# over_width DIR: the lines wider than their report's width (the number
# before .txt) other than one word alone (a word that has nowhere to break:
# the terminal wraps it), at most 10, and "# N lines over the width"
over_width() {
  python3 - "$1" <<'PY'
import os, sys
bad = 0
for f in sorted(os.listdir(sys.argv[1])):
    cols = int(f.rsplit(".", 2)[-2])
    for no, line in enumerate(open(os.path.join(sys.argv[1], f), encoding="utf-8", errors="replace"), 1):
        line = line.rstrip("\n")
        if len(line) > cols and " " in line.strip(" "):
            bad += 1
            if bad <= 10:
                print("%s:%d: (%d) %r" % (f, no, len(line), line[:160]))
print("# %d lines over the width" % bad)
PY
}
over_width "$ND_TMP/w" >"$ND_TMP/over"
if grep -q '^# 0 lines' "$ND_TMP/over"; then ok "no line wider than its terminal (prose wraps, tables fit or become lists)"
else not_ok "lines wider than the terminal"; sed 's/^/    /' "$ND_TMP/over" | head -12; fi
printf '%s\n' "    this line has words and is longer than forty columns, so it fails" >"$ND_TMP/doctored/wide.40.txt"
over_width "$ND_TMP/doctored" | grep -q '^# 1 lines' && ok "the width check catches a long line of words" ||
  not_ok "the width check misses a long line"
rm -f "$ND_TMP/doctored/wide.40.txt"
# the checker itself catches a cut name
printf '    0000:\xe2\x80\xa6  H100\n    NCCL_P2P_DIS\xe2\x80\xa6  4.50\n' >"$ND_TMP/doctored/doctored.80.txt"
cut_names "$ND_TMP/doctored" | grep -q '^# 2 cut names' && ok "the check catches '0000:…' and 'NCCL_P2P_DIS…'" ||
  not_ok "the check misses a cut name"
finish
