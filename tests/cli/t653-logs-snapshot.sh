#!/bin/bash
# nccl-doctor logs --snapshot FILE: the machine facts of an archive `snapshot`
# wrote, joined with the logs exactly as `logs --sysroot DIR` joins those of the
# tree the snapshot was taken of (t650 has the rules):
#  - a log that stops after its P2P channels, with the snapshot of a machine
#    with ACS redirect on (one strong cause) and of one without (the cause
#    goes, unknown), as .tar.gz (and .tar): the same causes, confidences and
#    evidence as with --sysroot of the tree, the fact's origin naming the
#    snapshot;
#  - the unpacked copy is removed afterwards ($TMPDIR is left empty);
#  - `--snapshot -` reads the archive from stdin (not with a log from '-');
#  - bad input is one line and exit 3: missing, unreadable (as nobody when
#    root), not a tar, a
#    truncated .tar and .tar.gz, a tar `snapshot` did not write; hostile
#    members (made with python3's tarfile) refuse the archive: an absolute
#    name, '..', a link out of the tree, a member beneath a link, a device
#    node, a hard link, a FIFO named with a newline (the line stays one),
#    a file over the size cap; a pax archive (Python tarfile PAX_FORMAT)
#    read like the snapshot, hostile pax records (a length that lies, a path
#    with '..', a size past 64 bits, a NUL in a path); --snapshot with --sysroot
#    is a usage error.
. "$(dirname "$0")/lib.sh"
J="$ND_FIXTURES/logs/joined"
S="$ND_FIXTURES/sysroot"
LOG="$J/p2p-setup-stop.log"
export TMPDIR="$ND_TMP/tmp"
mkdir -p "$TMPDIR"

# the same report but for the name of the machine's origin
same() {
	python3 -S - "$1" "$2" "$3" <<'PY' && ok "$4" || not_ok "$4"
import json, re, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop("hostname", None)  # the node: the sysroot's, or this host's (--node-name)
def norm(d):
    s = json.dumps(d, sort_keys=True)
    return re.sub(r"the machine of (sysroot|snapshot) [^:\"]*", "the machine of X", s)
if norm(a) != norm(b):
    sys.exit(1)
# the snapshot's facts are there, named as its
if sys.argv[3] == "facts" and "the machine of snapshot" not in json.dumps(b):
    sys.exit(1)
PY
}

for sr in pcie-4gpu-acs hgx-fm-healthy; do
	run_nd --json --sysroot "$S/$sr" logs "$LOG"
	cp "$OUT" "$ND_TMP/want.json"
	[ $sr = pcie-4gpu-acs ] && cp "$OUT" "$ND_TMP/want-acs.json"
	rc_want=$RC
	exts="tar.gz tar"
	[ $sr = hgx-fm-healthy ] && exts=tar.gz # the .tar path is the same code
	for ext in $exts; do
		arc="$ND_TMP/$sr.$ext"
		run_nd --sysroot "$S/$sr" snapshot -o "$arc"
		expect_rc 0 "$sr: snapshot to .$ext"
		run_nd --json logs --snapshot "$arc" "$LOG"
		[ "$RC" = "$rc_want" ] && ok "$sr.$ext: exit $RC as with --sysroot" || not_ok "$sr.$ext: exit $RC, --sysroot $rc_want"
		case $sr in
		pcie-4gpu-acs) same "$ND_TMP/want.json" "$OUT" facts "$sr.$ext: the same causes and joined evidence as --sysroot (the snapshot's facts in them)" ;;
		*) same "$ND_TMP/want.json" "$OUT" nofacts "$sr.$ext: the same report as --sysroot (the P2P cause dropped)" ;;
		esac
	done
done
json_check 'd.get("cause_unknown") is True and not any(c["cause"] == "p2p_pcie_acs_iommu" for c in d["causes"])' \
	"hgx-fm-healthy: the P2P cause goes (the ranking changes with the machine)"
run_nd logs --snapshot "$ND_TMP/pcie-4gpu-acs.tar.gz" "$LOG"
expect_out '^    \[machine\] the machine of snapshot .*pcie-4gpu-acs\.tar\.gz: ACS redirect is on' "text: the fact names the snapshot"
[ -z "$(ls -A "$TMPDIR")" ] && ok "the unpacked copy is removed" || not_ok "left in \$TMPDIR: $(ls -A "$TMPDIR")"

# bad input: one line, exit 3
bad() { # FILE WHAT DESC
	run_nd logs --snapshot "$1" "$LOG"
	if [ "$RC" = 3 ] && [ "$(wc -l <"$ERR")" = 1 ] && grep -q -- "$2" "$ERR"; then ok "$3"
	else not_ok "$3: exit $RC, stderr: $(head -c 400 "$ERR")"; fi
}
bad "$ND_TMP/nonexistent.tar.gz" "cannot read '.*nonexistent.tar.gz': no such file" "a missing file"
mkdir -m 0755 "$ND_TMP/pub" && chmod 0755 "$ND_TMP" && cp "$LOG" "$ND_TMP/pub/log" && chmod 0644 "$ND_TMP/pub/log"
cp "$ND_TMP/pcie-4gpu-acs.tar" "$ND_TMP/pub/noperm.tar" && chmod 000 "$ND_TMP/pub/noperm.tar"
if [ "$(id -u)" != 0 ]; then
	bad "$ND_TMP/pub/noperm.tar" "permission denied" "an unreadable file"
elif command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then # root reads anything: as nobody
	TMPDIR=/tmp setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$ND_BIN" logs --snapshot "$ND_TMP/pub/noperm.tar" "$ND_TMP/pub/log" >/dev/null 2>"$ND_TMP/err"
	rc=$?
	[ "$rc" = 3 ] && [ "$(wc -l <"$ND_TMP/err")" = 1 ] && grep -q "noperm.tar': permission denied" "$ND_TMP/err" &&
		ok "an unreadable file (as nobody)" || not_ok "an unreadable file: exit $rc, $(cat "$ND_TMP/err")"
else
	skip "an unreadable file: root, and no setpriv or no user nobody"
fi
bad "$LOG" "not a tar archive" "a text file"
head -c 3000 "$ND_TMP/pcie-4gpu-acs.tar" >"$ND_TMP/cut.tar"
bad "$ND_TMP/cut.tar" "truncated" "a truncated .tar"
head -c 600 "$ND_TMP/pcie-4gpu-acs.tar.gz" >"$ND_TMP/cut.tar.gz"
bad "$ND_TMP/cut.tar.gz" "cut.tar.gz.*\(truncated\|corrupt\)" "a truncated .tar.gz"

# hostile archives, and a tar that is no snapshot
python3 -S - "$ND_TMP" <<'PY'
import io, os, sys, tarfile
d = sys.argv[1]
def arc(name, members):
    with tarfile.open(os.path.join(d, name), "w", format=tarfile.GNU_FORMAT) as t:
        live = tarfile.TarInfo(".nccl-doctor/live.json"); data = b"{}"; live.size = len(data)
        t.addfile(live, io.BytesIO(data))
        for m in members:
            ti = tarfile.TarInfo(m["name"]); ti.type = m.get("type", tarfile.REGTYPE)
            ti.linkname = m.get("link", ""); data = m.get("data", b""); ti.size = len(data)
            t.addfile(ti, io.BytesIO(data) if data else None)
arc("abs.tar", [{"name": "/etc/passwd", "data": b"x"}])
arc("dotdot.tar", [{"name": "sys/../../x", "data": b"x"}])
arc("linkout.tar", [{"name": "sys/l", "type": tarfile.SYMTYPE, "link": "../../etc"}])
arc("beneath.tar", [{"name": "sys", "type": tarfile.SYMTYPE, "link": "proc"}, {"name": "sys/f", "data": b"x"}])
arc("dev.tar", [{"name": "dev/sda", "type": tarfile.BLKTYPE}])
arc("hard.tar", [{"name": "etc/x", "type": tarfile.LNKTYPE, "link": "etc/y"}])
arc("newline.tar", [{"name": "dev/a\nb\x1b[31m", "type": tarfile.FIFOTYPE}])
with tarfile.open(os.path.join(d, "plain.tar"), "w", format=tarfile.USTAR_FORMAT) as t:
    ti = tarfile.TarInfo("etc/hostname"); ti.size = 2; t.addfile(ti, io.BytesIO(b"h\n"))
# a header that claims 100 GiB (no data follows: refused before reading it)
ti = tarfile.TarInfo("sys/big"); ti.size = 100 << 30
open(os.path.join(d, "big.tar"), "wb").write(ti.tobuf(tarfile.GNU_FORMAT))
PY
bad "$ND_TMP/abs.tar" "member '/etc/passwd' has an absolute name" "an absolute name"
bad "$ND_TMP/dotdot.tar" "has a '..' in its name" "a '..' in a name"
bad "$ND_TMP/linkout.tar" "link 'sys/l' points outside the snapshot" "a link out of the tree"
bad "$ND_TMP/beneath.tar" "member 'sys/f' lies beneath 'sys', which is a symbolic link" "a member beneath a link"
bad "$ND_TMP/dev.tar" "member 'dev/sda' is a block device" "a device node"
bad "$ND_TMP/hard.tar" "member 'etc/x' is a hard link" "a hard link"
bad "$ND_TMP/newline.tar" 'member .dev/a\\x0ab\\x1b\[31m. is a FIFO' "a FIFO whose name has a newline and an escape: one line, shown visibly"
bad "$ND_TMP/big.tar" "member 'sys/big' is over 64 MiB" "a member over the size cap"
bad "$ND_TMP/plain.tar" "not one .nccl-doctor snapshot. wrote" "a tar archive without the snapshot's manifest"
[ -z "$(ls -A "$TMPDIR")" ] && ok "refused archives leave nothing in \$TMPDIR" || not_ok "left in \$TMPDIR: $(ls -A "$TMPDIR")"
[ ! -e "$ND_TMP/etc" ] && ok "nothing written outside the private directory" || not_ok "a member escaped"

# pax: the snapshot repacked by Python's tarfile in PAX_FORMAT (a global
# header, and 'x' headers for a non-ASCII name and a name past ustar's 255
# bytes) reads as the original; hostile pax records refuse the archive
python3 - "$ND_TMP" <<'PY'
import io, os, sys, tarfile
d = sys.argv[1]
with tarfile.open(os.path.join(d, "pcie-4gpu-acs.tar")) as src, \
     tarfile.open(os.path.join(d, "pax.tar"), "w", format=tarfile.PAX_FORMAT, pax_headers={"comment": "repacked"}) as dst:
    for ti in src.getmembers():
        dst.addfile(ti, src.extractfile(ti) if ti.isfile() else None)
    for name in ("etc/caf\u00e9", "etc/" + "n" * 120 + "/" + "m" * 150):
        ti = tarfile.TarInfo(name); ti.size = 2; dst.addfile(ti, io.BytesIO(b"x\n"))
def rec(k, v):
    body = b" " + k + b"=" + v + b"\n"
    n = len(body) + 1
    while len(str(n).encode()) + len(body) != n:
        n += 1
    return str(n).encode() + body
def hostile(name, records):
    h = tarfile.TarInfo("PaxHeaders/m"); h.type = tarfile.XHDTYPE; h.size = len(records)
    buf = h.tobuf(tarfile.USTAR_FORMAT) + records + b"\0" * (-len(records) % 512)
    ti = tarfile.TarInfo("sys/m"); ti.size = 1
    buf += ti.tobuf(tarfile.USTAR_FORMAT) + b"x" + b"\0" * 511 + b"\0" * 1024
    open(os.path.join(d, name), "wb").write(buf)
hostile("pax-lie.tar", b"99 path=sys/x\n")
hostile("pax-dotdot.tar", rec(b"mtime", b"1.5") + rec(b"path", b"../x"))
hostile("pax-size.tar", rec(b"size", b"99999999999999999999999"))
hostile("pax-nul.tar", rec(b"path", b"sys/a\0b"))
PY
run_nd --json logs --snapshot "$ND_TMP/pax.tar" "$LOG"
same "$ND_TMP/want-acs.json" "$OUT" facts "a pax archive (Python tarfile PAX_FORMAT) reads as the snapshot it repacks"
bad "$ND_TMP/pax-lie.tar" "a malformed pax record" "a pax record whose length lies"
bad "$ND_TMP/pax-dotdot.tar" "member '../x' has a '..' in its name" "a pax path with '..'"
bad "$ND_TMP/pax-size.tar" "a pax size record .* is over 64 bits" "a pax size past 64 bits"
bad "$ND_TMP/pax-nul.tar" "a pax 'path' record .* is not text" "a pax path with a NUL"

run_nd logs --snapshot - - <"$ND_TMP/pcie-4gpu-acs.tar"
expect_rc 64 "--snapshot - with a log from '-': usage error"
"$ND_BIN" --json logs --snapshot - "$LOG" <"$ND_TMP/pcie-4gpu-acs.tar.gz" >"$ND_TMP/stdin.json" 2>&1
same "$ND_TMP/want-acs.json" "$ND_TMP/stdin.json" facts "--snapshot - reads the archive (.tar.gz) from stdin"
run_nd --sysroot "$S/pcie-4gpu-acs" logs --snapshot "$ND_TMP/pcie-4gpu-acs.tar" "$LOG"
expect_rc 64 "--snapshot with --sysroot: usage error"
expect_err "give one" "says to give one"
finish
