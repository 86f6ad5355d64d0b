#!/bin/bash
# nccl-doctor logs on hostile NCCL Inspector dumps: work bounded by the
# input, numbers out of every range, a deeply nested line; no crash, no
# sanitizer report, the usual exits. Before: 4096 records (1.8 MB), each of
# its own communicator claiming 2^20 ranks, took 4.6 s of CPU (every rank
# of every communicator was walked); ranks of INT_MIN and INT_MAX were
# subtracted in a sort (signed overflow) and 1e300 converted to an integer.
# Dumps made by tests/tools/inspector_gen.py.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
GEN="python3 $ND_SRC/tests/tools/inspector_gen.py"
OUT="$ND_TMP/out" ERR="$ND_TMP/err"

$GEN many-comms "$ND_TMP/node-a-pid1.log" 4096
read -r RC RSS CPU < <(python3 "$ND_SRC/tests/tools/rusage.py" "$OUT" "$ERR" "$ND_BIN" --json logs "$ND_TMP/node-a-pid1.log")
expect_rc 2 "4096 communicators of 2^20 ranks, one record each: missing ranks"
json_check 'sum(f["id"] == "LOG_INSPECTOR_MISSING_RANKS" for f in d["findings"]) >= 1 and any("ranks 1, 2, 3" in f["title"] and ", ... (1 of 1048576 ranks seen)" in f["title"] for f in d["findings"])' "the first missing ranks listed, and the count"
limit=1.5; [ -n "${ND_SANITIZE:-}" ] && limit=5
if awk -v c="$CPU" -v m="$limit" 'BEGIN { exit !(c < m) }'; then ok "CPU ${CPU} s (< $limit)"; else not_ok "CPU ${CPU} s, wanted < $limit"; fi

$GEN huge-numbers "$ND_TMP/node-b-pid2.log"
run_nd --json logs "$ND_TMP/node-b-pid2.log"
if [ "$RC" -le 2 ]; then ok "ranks of INT_MIN and INT_MAX, counts of 1e300: read (exit $RC)"; else not_ok "numbers out of range: exit $RC"; sed 's/^/    err: /' "$ERR" | head -5; fi
json_check 'any(f["id"] == "LOG_INSPECTOR_SUMMARY" and "3 communicators" in f["title"] for f in d["findings"])' "their communicators are counted"
expect_no_out "runtime error" "no sanitizer report"

# Prometheus labels out of range
printf 'nccl_bus_bandwidth_gbs{comm_id="0x9",hostname="h",rank="99999999999999999999",nranks="-99999999999999999999",n_nodes="1e300",gpu_device_id="GPU0",collective="AllReduce",coll_sn="99999999999999999999999",message_size="16.00 MB"} 1e400\n' >"$ND_TMP/m.prom"
printf 'nccl_bus_bandwidth_gbs{comm_id="0x9",hostname="h",rank="-2147483648",nranks="2147483647",n_nodes="1",gpu_device_id="GPU1",collective="AllReduce",coll_sn="-9223372036854775808",message_size="16.00 MB"} -1\n' >>"$ND_TMP/m.prom"
run_nd logs "$ND_TMP/m.prom"
if [ "$RC" -le 2 ]; then ok "Prometheus labels out of range: read (exit $RC)"; else not_ok "Prometheus labels out of range: exit $RC"; sed 's/^/    err: /' "$ERR" | head -5; fi

$GEN deep-line "$ND_TMP/node-c-pid3.log" 100000
run_nd --json logs --max-line 1048576 "$ND_TMP/node-c-pid3.log"
if [ "$RC" -le 2 ]; then ok "a line nested 100000 deep: no crash (exit $RC)"; else not_ok "deep line: exit $RC"; fi
json_check 'any(f["id"] == "LOG_INSPECTOR_SUMMARY" and any("1 line of the dumps could not be read" in e["text"] for e in f["evidence"]) for f in d["findings"])' "it is counted as a line that could not be read"
# a 12 MB line among records, read with --max-line raised: not a record,
# not parsed (jansson took 900 MB for it)
{ $GEN good /dev/stdout | head -1
  python3 -c 'import sys; sys.stdout.write("{\"header\": {}, \"coll_perf\": {}, \"x\": [" + "{}," * 4000000 + "{}]}\n")'
  $GEN good /dev/stdout | tail -1; } >"$ND_TMP/node-d-pid4.log"
read -r RC RSS CPU < <(python3 "$ND_SRC/tests/tools/rusage.py" "$OUT" "$ERR" "$ND_BIN" --json logs --max-line 67108864 "$ND_TMP/node-d-pid4.log")
if [ "$RC" -le 2 ]; then ok "a 12 MB line with --max-line 64 MiB: read (exit $RC)"; else not_ok "12 MB line: exit $RC"; fi
json_check 'any(f["id"] == "LOG_INSPECTOR_SUMMARY" and "2 records" in f["title"] and any("1 line of the dumps could not be read" in e["text"] for e in f["evidence"]) for f in d["findings"])' "the two records read, the long line counted as not read"
limit=100; [ -n "${ND_SANITIZE:-}" ] && limit=300
if [ "$RSS" -lt $((limit * 1024)) ]; then ok "max RSS $((RSS / 1024)) MiB (< $limit)"; else not_ok "max RSS $((RSS / 1024)) MiB, wanted < $limit"; fi
finish
