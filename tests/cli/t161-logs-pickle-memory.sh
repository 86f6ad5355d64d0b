#!/bin/bash
# nccl-doctor logs on flight-recorder dumps that would take far more memory
# than their size: read in bounded memory and CPU time, refused with the
# bound named, exit 3 (a pickle) or a finding that the dump could not be
# read (JSON, as for a JSON dump that does not parse). Peak RSS and CPU time
# (not wall time: the machine may be loaded) by tests/tools/rusage.py.
# Before: a 16 MB pickle of empty dicts took 4 GB and 22 s of CPU, a 16 MB
# JSON dump of "{}," lines 1 GB, and a value the memo shares at each of 64
# levels (2^64 leaves once expanded) never ended.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
GEN="python3 $ND_SRC/tests/tools/fr_pickle_gen.py"
OUT="$ND_TMP/out" ERR="$ND_TMP/err"
# measure CMD...: sets RC, RSS (KiB), CPU (s)
measure() { read -r RC RSS CPU < <(python3 "$ND_SRC/tests/tools/rusage.py" "$OUT" "$ERR" "$ND_BIN" "$@"); }
# within WHAT RSS_MIB CPU_S: checks the last measure (sanitizer builds: 3x)
within() {
  local rss=$2 cpu=$3
  if [ -n "${ND_SANITIZE:-}" ]; then rss=$((rss * 3)); cpu=$((cpu * 3)); fi
  if [ "$RSS" -lt $((rss * 1024)) ]; then ok "$1: max RSS $((RSS / 1024)) MiB (< $rss)"; else not_ok "$1: max RSS $((RSS / 1024)) MiB, wanted < $rss"; fi
  if awk -v c="$CPU" -v m="$cpu" 'BEGIN { exit !(c < m) }'; then ok "$1: CPU ${CPU} s (< $cpu)"; else not_ok "$1: CPU ${CPU} s, wanted < $cpu"; fi
}

# 16 MiB of empty dicts, one byte each
$GEN many-dicts "$ND_TMP/dicts_0"
measure logs "$ND_TMP/dicts_0"
expect_rc 3 "16 MiB pickle of 16 million empty dicts: refused"
expect_err "cannot read '.*dicts_0': a Python pickle that would take over 128 MiB of memory \(the limit: 40 times its size, at most 128 MiB\)" "the bound is named"
expect_err "convert it to JSON" "and what to do with a real dump that large"
within "16 MiB of dicts" 200 5

# an 8 MiB string used as the key of 1000 dicts (a key is copied per dict)
$GEN big-key "$ND_TMP/key_0" 1000
measure logs "$ND_TMP/key_0"
expect_rc 3 "an 8 MiB key in 1000 dicts: refused"
expect_err "would take over [0-9]+ MiB of memory" "the bound is named"
within "8 MiB key x 1000" 200 5

# a value shared through the memo at each of 64 levels: small, read; the
# entry's sizes are rendered from a cut copy
$GEN dag "$ND_TMP/dag_0" 64
measure --json logs "$ND_TMP/dag_0"
if [ "$RC" -le 2 ]; then ok "2^64 leaves shared through the memo: read (exit $RC)"; else not_ok "shared value: exit $RC"; sed 's/^/    err: /' "$ERR" | head -3; fi
json_check 'any(f["id"] == "LOG_FR_SUMMARY" and any("sizes [[[[[" in e["text"] for e in f["evidence"]) for f in d["findings"])' "its sizes are shown, cut"
within "shared value" 50 3

# real dumps stay within the bound: 20000 entries of the real H200 dump
python3 - "$ND_FIXTURES/logs/flight-recorder/real-h200-mismatch/nccl_trace_rank_0" "$ND_TMP/real_0" <<'PY'
import pickle, sys
d = pickle.load(open(sys.argv[1], "rb"))
e = d["entries"]
d["entries"] = [dict(e[0], collective_seq_id=i + 1, record_id=i, op_id=i + 1, frames=e[0]["frames"] * 3,
                    state="completed" if i < 19999 else "started") for i in range(20000)]
open(sys.argv[2], "wb").write(pickle.dumps(d, protocol=2))
PY
measure --json logs "$ND_TMP/real_0"
if [ "$RC" -le 2 ]; then ok "a real dump grown to 20000 entries ($(($(wc -c <"$ND_TMP/real_0") / 1024)) KiB): read (exit $RC)"; else not_ok "20000 real entries: exit $RC"; sed 's/^/    err: /' "$ERR" | head -3; fi
json_check 'any(f["id"] == "LOG_FR_SUMMARY" and any("last completed nccl:all_reduce seq 19999 sizes [[3,4]]" in e["text"] and "first not completed nccl:all_reduce seq 20000" in e["text"] for e in f["evidence"]) for f in d["findings"])' "its last completed and first pending entries are found"

# JSON: 4 million "{}," lines in a dump (16 MiB)
python3 - "$ND_TMP/fr_0.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"version": "2.5", "pg_config": {}, "entries": [{"collective_seq_id": 1, "state": "started"},\n')
    f.write("{},\n" * 4000000)
    f.write("{}]}\n")
PY
measure --json logs "$ND_TMP/fr_0.json"
expect_rc 1 "16 MiB JSON dump of 4 million empty entries: not parsed, a warning"
json_check 'any(f["id"] == "LOG_FR_SUMMARY" and "could not be read" in f["title"] and any("would take over 512 MiB of memory once read" in e["text"] for e in f["evidence"]) for f in d["findings"])' "the dump is named as not read, and why"
within "16 MiB JSON dump" 200 8
finish
