#!/bin/bash
# Helper programs (the decompressors of `kernel FILE.gz` and `logs FILE.xz`,
# snapshot's gzip) run by absolute path from /usr/local/bin, /usr/bin or
# /bin, never found through PATH: a planted `gzip`/`xz`/`bzip2`/`zstd` in a
# directory the other user owns, first in root's PATH (`sudo -E`), is not
# run (it would leave a marker); the real one still does the work. The
# same for a root-owned directory in PATH (the list is fixed, whoever owns
# PATH's directories), and for the other user's own runs.
. "$(dirname "$0")/lib.sh"
other_user
MARK="$OTHER_DIR/marker"
chmod 0777 "$OTHER_DIR"
mkdir -p "$OTHER_DIR/bin"
for t in gzip xz bzip2 zstd; do
  printf '#!/bin/sh\necho %s >>"%s"\nexit 1\n' "$t" "$MARK" >"$OTHER_DIR/bin/$t"
  chmod 0755 "$OTHER_DIR/bin/$t"
done
chown -R "$OTHER" "$OTHER_DIR/bin"
ran() { [ -e "$MARK" ]; }
K="$ND_FIXTURES/kernel/aer-new.dmesg"
gzip -c "$K" >"$ND_TMP/k.dmesg.gz"
L="$ND_TMP/nccl.log"
printf 'node1:10:10 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n' >"$L"
have_xz=0; command -v xz >/dev/null 2>&1 && xz -c "$L" >"$ND_TMP/nccl.log.xz" && have_xz=1
chmod 0644 "$ND_TMP"/k.dmesg.gz "$L" "$ND_TMP"/nccl.log.xz 2>/dev/null

# baseline: what kernel says about the plain file
run_nd kernel --json "$K"; want_rc=$RC

for who in "other's" "root's"; do
  if [ "$who" = "root's" ]; then
    mkdir -p "$ND_TMP/rootbin" && chmod 0755 "$ND_TMP/rootbin"
    cp "$OTHER_DIR"/bin/* "$ND_TMP/rootbin/"; chown root "$ND_TMP"/rootbin/*
    FAKEBIN="$ND_TMP/rootbin"
  else
    FAKEBIN="$OTHER_DIR/bin"
  fi
  rm -f "$MARK"
  PATH="$FAKEBIN:$PATH" run_nd kernel --json "$ND_TMP/k.dmesg.gz"
  if ran; then not_ok "root, $who gzip first in PATH: kernel FILE.gz ran it"; else ok "root, $who gzip first in PATH: kernel FILE.gz did not run it"; fi
  expect_rc "$want_rc" "root, $who PATH: kernel FILE.gz read through the real gzip"
  json_check 'd["findings"]' "root, $who PATH: the compressed kernel log has its findings"
  if [ "$have_xz" = 1 ]; then
    rm -f "$MARK"
    PATH="$FAKEBIN:$PATH" run_nd logs --json "$ND_TMP/nccl.log.xz"
    if ran; then not_ok "root, $who xz first in PATH: logs FILE.xz ran it"; else ok "root, $who xz first in PATH: logs FILE.xz did not run it"; fi
    json_check '"2.21.5" in json.dumps(d)' "root, $who PATH: the xz log was read through the real xz"
  else
    skip "no xz here to make a .xz log"
  fi
  rm -f "$MARK"
  PATH="$FAKEBIN:$PATH" run_nd snapshot --sysroot "$ND_FIXTURES/sysroot/docker-small-shm" -o "$ND_TMP/s.tar.gz"
  if ran; then not_ok "root, $who gzip first in PATH: snapshot -o x.tar.gz ran it"; else ok "root, $who gzip first in PATH: snapshot did not run it"; fi
  expect_rc 0 "root, $who PATH: snapshot -o x.tar.gz"
  if gzip -t "$ND_TMP/s.tar.gz" 2>/dev/null; then ok "root, $who PATH: the snapshot is real gzip"; else not_ok "root, $who PATH: the snapshot is not gzip"; fi
  rm -f "$ND_TMP/s.tar.gz"
done

# the other user's own run: the list is fixed for everyone
rm -f "$MARK"
as_other env PATH="$OTHER_DIR/bin:$PATH" timeout 60 "$ND_BIN" kernel --json "$ND_TMP/k.dmesg.gz" >"$OTHER_DIR/out" 2>"$OTHER_DIR/err" </dev/null
if ran; then not_ok "$OTHER: their PATH's gzip ran"; else ok "$OTHER: their PATH's gzip did not run"; fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["findings"] else 1)' "$OTHER_DIR/out" 2>/dev/null; then
  ok "$OTHER: kernel FILE.gz read through the real gzip"; else not_ok "$OTHER: kernel FILE.gz not read"; sed 's/^/    err: /' "$OTHER_DIR/err" | head -3; fi
finish
