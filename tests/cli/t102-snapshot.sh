#!/usr/bin/env bash
# snapshot: the archive is a sysroot; `sys` on the unpacked tree gives the
# same facts and findings as on the tree it was taken from.
. "$(dirname "$0")/lib.sh"
normalize() {  # drop what legitimately differs: the headline names the sysroot
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("headline",None); print(json.dumps(d, sort_keys=True, indent=1))' "$1"
}
for name in pcie-4gpu-acs docker-small-shm env-traps unprivileged; do
  fx="$ND_FIXTURES/sysroot/$name"
  for ext in tar tar.gz; do
    arc="$ND_TMP/$name.$ext"
    run_nd snapshot --sysroot "$fx" -o "$arc"
    expect_rc 0 "$name: snapshot to .$ext"
    expect_err "wrote $arc" "$name: says what it wrote"
    rm -rf "$ND_TMP/un"; mkdir "$ND_TMP/un"
    if tar -xf "$arc" -C "$ND_TMP/un" 2>"$ND_TMP/tarerr"; then ok "$name.$ext unpacks with tar"; else not_ok "$name.$ext: tar failed"; cat "$ND_TMP/tarerr"; fi
    run_nd sys --json --sysroot "$fx"; normalize "$OUT" >"$ND_TMP/a"
    run_nd sys --json --sysroot "$ND_TMP/un"; normalize "$OUT" >"$ND_TMP/b"
    if diff -u "$ND_TMP/a" "$ND_TMP/b" >"$ND_TMP/d"; then ok "$name.$ext: same report from the snapshot"
    else not_ok "$name.$ext: report differs"; head -40 "$ND_TMP/d" | sed 's/^/    /'; fi
  done
done
# the environment is filtered
fx="$ND_FIXTURES/sysroot/env-traps"
run_nd snapshot --sysroot "$fx" -o "$ND_TMP/e.tar"
rm -rf "$ND_TMP/un"; mkdir "$ND_TMP/un"; tar -xf "$ND_TMP/e.tar" -C "$ND_TMP/un"
if tr '\0' '\n' <"$ND_TMP/un/proc/self/environ" | grep -q '^NCCL_SOCKET_IFNAME=nosuchif0$'; then ok "NCCL variables kept"; else not_ok "NCCL variables lost"; fi
[ -f "$ND_TMP/un/.nccl-doctor/live.json" ] && ok "live facts recorded" || not_ok "no .nccl-doctor/live.json"
[ -f "$ND_TMP/un/.nccl-doctor/libraries.json" ] && ok "library scan recorded" || not_ok "no .nccl-doctor/libraries.json"
# a secret in the environment stays out
mkdir -p "$ND_TMP/sec/proc/self"
cp -r "$fx/." "$ND_TMP/sec/"
printf 'AWS_SECRET_ACCESS_KEY=hunter2\0NCCL_DEBUG=INFO\0' >"$ND_TMP/sec/proc/self/environ"
run_nd snapshot --sysroot "$ND_TMP/sec" -o "$ND_TMP/s.tar"
rm -rf "$ND_TMP/un"; mkdir "$ND_TMP/un"; tar -xf "$ND_TMP/s.tar" -C "$ND_TMP/un"
if grep -q hunter2 "$ND_TMP/un/proc/self/environ"; then not_ok "secret leaked into the snapshot"; else ok "unrelated variables dropped"; fi
# the live machine: a snapshot works without root or GPUs and unpacks
run_nd snapshot -o "$ND_TMP/live.tar.gz"; expect_rc 0 "snapshot of this machine"
rm -rf "$ND_TMP/un"; mkdir "$ND_TMP/un"
if tar -xzf "$ND_TMP/live.tar.gz" -C "$ND_TMP/un"; then ok "live snapshot unpacks"; else not_ok "live snapshot does not unpack"; fi
run_nd sys --json --sysroot "$ND_TMP/un"; json_check 'd["command"] == "sys" and "host" in d["facts"]' "sys runs on the live snapshot"
# errors
run_nd snapshot -o /nonexistent/dir/x.tar; expect_rc 3 "unwritable output"; expect_err "cannot write '/nonexistent/dir/x.tar'" "unwritable output named"
run_nd snapshot -o; expect_rc 64 "-o without a value"
finish
