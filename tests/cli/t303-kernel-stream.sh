#!/usr/bin/env bash
# nccl-doctor kernel streams: a large log of events and filler is read in
# bounded memory (max RSS well under the log's size), through a pipe too.
# bench/kernel-bigfile.sh runs the same with 1 GB.
. "$(dirname "$0")/lib.sh"
MB=${ND_STREAM_MB:-64}
big="$ND_TMP/big.log"
{ yes '[ 4321.000001] NVRM: Xid (PCI:0000:5d:00): 13, pid=77, name=python3, Graphics Exception on GPC 0: SM 1 Illegal Instruction' | head -c $((MB * 1024 * 1024 / 2))
  yes '[ 4321.000002] audit: type=1400 audit(1700000000.123:456): apparmor="DENIED" operation="open" profile="snap"' | head -c $((MB * 1024 * 1024 / 2))
  echo '[ 4400.000000] NVRM: Xid (PCI:0000:5d:00): 79, pid=1, name=x, GPU has fallen off the bus.'; } >"$big"
mkdir -p "$ND_TMP/empty"
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$ND_TMP/rss" timeout 280 "$ND_BIN" --sysroot "$ND_TMP/empty" --json kernel "$big" >"$ND_TMP/out" 2>"$ND_TMP/err"; RC=$?
else
  python3 -c 'import resource,subprocess,sys; r=subprocess.run(sys.argv[1:], stdout=open(sys.argv[-1]+".out","w"), stderr=subprocess.DEVNULL).returncode; print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r)' \
    "$ND_BIN" --sysroot "$ND_TMP/empty" --json kernel "$big" >"$ND_TMP/rss"; RC=$?; mv "$big.out" "$ND_TMP/out"
fi
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
expect_rc 2 "$MB MB log read"
rss=$(tail -1 "$ND_TMP/rss")
# 20000 kept events (~15 MB) plus the binary; sanitizer builds need more
limit=$((60 * 1024)); [ -n "${ASAN_OPTIONS+x}${ND_SANITIZE:-}" ] && limit=$((400 * 1024))
if [ "$rss" -lt "$limit" ]; then ok "max RSS ${rss} KiB for a $MB MB log"; else not_ok "max RSS ${rss} KiB for a $MB MB log"; fi
json_check 'any(f["id"] == "XID_79" for f in d["findings"])' "the last line's Xid 79 is found"
json_check 'any("earlier ones were dropped" in n for n in d["facts"]["kernel"]["notes"])' "dropped events are reported"
# through a pipe
OUT="$ND_TMP/out2"; ERR="$ND_TMP/err2"
head -c $((8 * 1024 * 1024)) "$big" | timeout 120 "$ND_BIN" --sysroot "$ND_TMP/empty" kernel - >"$OUT" 2>"$ERR"; RC=$?
expect_rc 2 "stdin pipe"
finish
