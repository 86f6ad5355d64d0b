#!/usr/bin/env bash
# Files the tool writes, as root, in directories another user can write
# (util/outfile.h): `watch --json=FILE`, `snapshot -o FILE` (and its default
# name), `fix --write-env FILE`. A planted symbolic link, FIFO or the other
# user's file at the name (or at the old FILE.tmp) is refused, never written
# through or opened; a FIFO made while `fix` searches does not hang it; a
# full disk leaves the previous file whole and no partial file behind; the
# search's verdict stands when its file cannot be written; a healthy watch
# run replaces an old stall document; a --json path that cannot be written
# is said at the start; snapshots made as root are 0600.
. "$(dirname "$0")/lib.sh"
other_user
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
SNAPROOT="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t122-$$"

# the places an attacker can plant names: a directory the other user owns
# (fs.protected_symlinks never applies there), and a sticky world-writable
# one like /tmp, where it applies only when the sysctl is 1
STICKY="$ND_TMP/sticky"
mkdir -m 1777 "$STICKY"
ps_now=$(cat /proc/sys/fs/protected_symlinks 2>/dev/null || echo unknown)
DIRS="$OTHER_DIR"
if [ "$ps_now" = 0 ]; then DIRS="$DIRS $STICKY"
else echo "# fs.protected_symlinks is $ps_now here: the sticky-directory cases need it 0 (a global sysctl this test does not change); the other user's directory covers them"; fi

VICTIM="$ND_TMP/victim"   # root's private file
printf 'root secret\n' >"$VICTIM"; chmod 0600 "$VICTIM"
victim_intact() { [ "$(cat "$VICTIM")" = "root secret" ]; }

for D in $DIRS; do
  where=$([ "$D" = "$STICKY" ] && echo "sticky dir" || echo "other user's dir")
  # watch --json=FILE: a link at FILE.tmp (the old temporary) is not used
  as_other ln -sf "$VICTIM" "$D/w.json.tmp"
  timeout 30 "$ND_BIN" watch --stall 0.1 --on-stall keep --json="$D/w.json" -- sh -c 'sleep 0.5; exit 1' >/dev/null 2>"$ND_TMP/err"
  if victim_intact; then ok "$where: watch --json does not write through a planted FILE.tmp link"; else not_ok "$where: watch wrote through FILE.tmp"; fi
  [ -f "$D/w.json" ] && [ ! -L "$D/w.json" ] && ok "$where: watch wrote its own file" || not_ok "$where: no w.json: $(cat "$ND_TMP/err")"
  # a link or a FIFO at FILE itself: refused at the start, the job not run
  as_other ln -sf "$VICTIM" "$D/l.json"
  timeout 30 "$ND_BIN" watch --json="$D/l.json" -- sh -c "touch '$ND_TMP/ran'" >/dev/null 2>"$ND_TMP/err"; rc=$?
  if [ $rc = 3 ] && grep -q "symbolic link" "$ND_TMP/err" && victim_intact && [ ! -e "$ND_TMP/ran" ]; then
    ok "$where: watch --json at a planted link: refused at the start (exit 3)"; else not_ok "$where: link: rc $rc $(cat "$ND_TMP/err")"; fi
  as_other mkfifo "$D/f.json"
  start=$SECONDS
  timeout 30 "$ND_BIN" watch --json="$D/f.json" -- true >/dev/null 2>"$ND_TMP/err"; rc=$?
  if [ $rc = 3 ] && grep -q "a FIFO" "$ND_TMP/err" && [ $((SECONDS - start)) -lt 10 ]; then
    ok "$where: watch --json at a planted FIFO: refused, no hang"; else not_ok "$where: FIFO: rc $rc after $((SECONDS - start)) s: $(cat "$ND_TMP/err")"; fi
  # the other user's own file at the name: not replaced
  as_other sh -c "echo theirs >'$D/t.json'"
  timeout 30 "$ND_BIN" watch --json="$D/t.json" -- true >/dev/null 2>"$ND_TMP/err"; rc=$?
  if [ $rc = 3 ] && grep -q "belongs to uid $OTHER_UID" "$ND_TMP/err" && [ "$(cat "$D/t.json")" = theirs ]; then
    ok "$where: watch --json on the other user's file: refused"; else not_ok "$where: foreign: rc $rc $(cat "$ND_TMP/err")"; fi

  # snapshot -o: a planted link (gzip and plain tar) and the default name
  for name in s.tar.gz s.tar; do
    as_other ln -sf "$VICTIM" "$D/$name"
    run_nd snapshot --sysroot "$SNAPROOT" -o "$D/$name"
    if [ "$RC" = 3 ] && grep -q "symbolic link" "$ERR" && victim_intact; then
      ok "$where: snapshot -o $name at a planted link: refused, root's file intact"; else not_ok "$where: snapshot $name: rc $RC $(cat "$ERR")"; fi
  done
  host=$(cat "$SNAPROOT/proc/sys/kernel/hostname" 2>/dev/null || echo host)
  as_other ln -sf "$VICTIM" "$D/nccl-doctor-snapshot-$host.tar.gz"
  (cd "$D" && timeout 60 "$ND_BIN" snapshot --sysroot "$SNAPROOT" >/dev/null 2>"$ND_TMP/err"); rc=$?
  if [ $rc = 3 ] && victim_intact; then ok "$where: snapshot's default name at a planted link: refused"
  else not_ok "$where: default name: rc $rc $(cat "$ND_TMP/err")"; fi
  ls -a "$D" | grep -q '^\.[^.]' && not_ok "$where: a temporary was left: $(ls -a "$D")" || ok "$where: no temporary left behind"
done

# a snapshot made as root is private
run_nd snapshot --sysroot "$SNAPROOT" -o "$ND_TMP/mine.tar.gz"
m=$(stat -c %a "$ND_TMP/mine.tar.gz" 2>/dev/null)
if [ "$RC" = 0 ] && [ "$m" = 600 ] && grep -q "readable by root only" "$ERR"; then ok "a snapshot made as root is 0600, and says so"
else not_ok "snapshot mode '$m' rc $RC: $(cat "$ERR")"; fi
tar -tzf "$ND_TMP/mine.tar.gz" >/dev/null 2>&1 && ok "the archive reads" || not_ok "the archive does not read"
# as another user: 0644 (nothing root-only in it)
as_other "$ND_BIN" snapshot --sysroot "$SNAPROOT" -o "$OTHER_DIR/theirs.tar" >/dev/null 2>&1
m=$(stat -c %a "$OTHER_DIR/theirs.tar" 2>/dev/null)
[ "$m" = 644 ] && ok "a snapshot made by a user is 0644" || not_ok "user snapshot mode '$m'"

# watch --json: a healthy run replaces an old stall document; a path that
# cannot be written is said at the start
printf '{"stalls": 3, "old": true}\n' >"$ND_TMP/old.json"
timeout 30 "$ND_BIN" watch --json="$ND_TMP/old.json" -- true >/dev/null 2>"$ND_TMP/err"; rc=$?
if [ $rc = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("stalls") == 0 and "old" not in d else 1)' "$ND_TMP/old.json"; then
  ok "a healthy watch run writes its document (stalls 0), the old stall document is gone"; else not_ok "healthy run: rc $rc $(head -c 300 "$ND_TMP/old.json")"; fi
timeout 30 "$ND_BIN" watch --json="$ND_TMP/no/such/dir/x.json" -- sh -c "touch '$ND_TMP/ran2'" >/dev/null 2>"$ND_TMP/err"; rc=$?
if [ $rc = 3 ] && grep -q "cannot write '$ND_TMP/no/such/dir/x.json'" "$ND_TMP/err" && [ ! -e "$ND_TMP/ran2" ]; then
  ok "watch --json into a missing directory: said at the start, exit 3, the job not run"; else not_ok "bad path: rc $rc $(cat "$ND_TMP/err")"; fi

# fix --write-env: a FIFO made at the name while the search runs does not
# hang it; the verdict stands
fixrun() {
  NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" \
    timeout 120 "$ND_BIN" fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M "$@"
}
rm -f "$OTHER_DIR/late.env"
fixrun --write-env "$OTHER_DIR/late.env" >"$ND_TMP/out" 2>"$ND_TMP/err" &
pid=$!
sleep 1; as_other mkfifo "$OTHER_DIR/late.env"
start=$SECONDS
wait $pid; rc=$?
if [ $rc = 1 ] && grep -q '^BROKEN: .*; search: NCCL_P2P_LEVEL=PIX works (fix found)' "$ND_TMP/out" && grep -q "late.env': not a regular file (a FIFO)" "$ND_TMP/err"; then
  ok "fix --write-env: a FIFO planted during the search: refused at the write, no hang, the fix found stands (exit 1)"
else not_ok "late FIFO: rc $rc after $((SECONDS - start)) s: $(head -3 "$ND_TMP/out") / $(cat "$ND_TMP/err")"; fi
grep -q -- '--write-env: nothing written' "$ND_TMP/out" && ok "the report says the file was not written" || not_ok "no note in the report"

# a full disk: the previous env file and archive stay whole, nothing partial
if unshare -m true 2>/dev/null; then
  unshare -m bash -s "$ND_BIN" "$SNAPROOT" "$F" "$S" "$ACS" "$ND_TMP" >"$ND_TMP/full" 2>&1 <<'SH'
ND_BIN=$1 SNAPROOT=$2 F=$3 S=$4 ACS=$5 T=$6
M="$T/full-mnt"; mkdir -p "$M"
mount -t tmpfs -o size=1m tmpfs "$M" || { echo "SKIP: no tmpfs mount"; exit 0; }
NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" \
  timeout 120 "$ND_BIN" fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M --write-env "$M/nccl.env" >/dev/null 2>&1
cp "$M/nccl.env" "$T/env.before"
"$ND_BIN" snapshot --sysroot "$SNAPROOT" -o "$M/s.tar" >/dev/null 2>&1 || echo "first snapshot failed"
cp "$M/s.tar" "$T/tar.before" 2>/dev/null
dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null
NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" \
  timeout 120 "$ND_BIN" fix --driver --sysroot "$ACS" --timeout 3 --max-bytes 1M --write-env "$M/nccl.env" >"$T/fixfull.out" 2>"$T/fixfull.err"
echo "fix rc $?"
"$ND_BIN" snapshot --sysroot "$SNAPROOT" -o "$M/s.tar" >/dev/null 2>"$T/snapfull.err"
echo "snapshot rc $?"
cmp -s "$M/nccl.env" "$T/env.before" && echo "env intact"
cmp -s "$M/s.tar" "$T/tar.before" && echo "tar intact"
ls -a "$M" | grep -q '^\.[^.]' && echo "temporary left: $(ls -a "$M")"
umount "$M"
SH
  if grep -q SKIP "$ND_TMP/full"; then skip "full disk: $(cat "$ND_TMP/full")"
  else
    grep -q 'fix rc 1' "$ND_TMP/full" && grep -q 'env intact' "$ND_TMP/full" && grep -q 'search: .* works (fix found)' "$ND_TMP/fixfull.out" &&
      ok "full disk: fix's verdict stands (fix found, exit 1), the previous env file is whole" ||
      not_ok "full disk, fix: $(cat "$ND_TMP/full") $(head -2 "$ND_TMP/fixfull.out") $(cat "$ND_TMP/fixfull.err")"
    grep -q 'snapshot rc 3' "$ND_TMP/full" && grep -q 'tar intact' "$ND_TMP/full" && grep -qi 'no space left' "$ND_TMP/snapfull.err" &&
      ok "full disk: snapshot fails (exit 3), the previous archive is whole" || not_ok "full disk, snapshot: $(cat "$ND_TMP/full") $(cat "$ND_TMP/snapfull.err")"
    grep -q 'temporary left' "$ND_TMP/full" && not_ok "full disk: $(grep 'temporary left' "$ND_TMP/full")" || ok "full disk: no partial file left"
  fi
else
  skip "full disk: cannot make a private mount namespace (unshare -m) for a small tmpfs"
fi
finish
