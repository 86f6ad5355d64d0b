#!/usr/bin/env python3
"""Check every row of notes.tsv against the NCCL mirror, with its own reading
of the commit messages (not extract.py's item parser):
  - the commit exists and its subject names the release fixed_in
    ("2.18.3-1" or "NCCL 2.18.3-1");
  - the tag, unless "-", names that commit;
  - the message's line `line` starts the note: the note's text, blanks
    normalised, is the text of the message from that line on (after a list
    bullet), up to the end of the item;
  - no earlier release's message carries the note (fixed_in is the first);
  - introduced, unless "before", is a version the note itself names and is
    before fixed_in.
Prints one line per failed row and a summary; exit 0 when every row holds,
1 when one fails, 2 when the mirror or the table cannot be read.

Usage: check.py [--mirror DIR] [--tsv FILE]
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MIRROR = os.environ.get("NCCL_MIRROR", "/work/.mirror/NVIDIA+nccl/repo")
COLUMNS = ["key", "fixed_in", "introduced", "tag", "commit", "line", "kind", "note"]


def git(mirror, *args):
    p = subprocess.run(["git", "--git-dir", mirror] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       universal_newlines=True, encoding="utf-8", errors="replace")
    return p.stdout if p.returncode == 0 else None


def vt(v):
    return tuple(int(x) for x in v.split("."))


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR)
    ap.add_argument("--tsv", default=os.path.join(HERE, "notes.tsv"))
    a = ap.parse_args()
    if not os.path.isdir(a.mirror):
        print("check: no NCCL mirror at '%s'" % a.mirror, file=sys.stderr)
        return 2
    try:
        with open(a.tsv, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        print("check: cannot read '%s': %s" % (a.tsv, e.strerror), file=sys.stderr)
        return 2
    if lines[0].split("\t") != COLUMNS:
        print("check: '%s': expected header %s" % (a.tsv, " ".join(COLUMNS)), file=sys.stderr)
        return 2
    rows = [dict(zip(COLUMNS, l.split("\t"))) for l in lines[1:] if l]
    # every release commit's message, by version (for the "first release" check)
    log = git(a.mirror, "log", "--all", "--format=%H%x00%s%x00%B%x1e") or ""
    msgs = {}
    subj = re.compile(r"^(?:NCCL )?(2\.\d+\.\d+)-\d+\b")
    for rec in log.split("\x1e"):
        rec = rec.lstrip("\n")
        if not rec:
            continue
        h, s, body = rec.split("\x00", 2)
        m = subj.match(s)
        if m:
            msgs.setdefault(m.group(1), []).append((h, norm(body)))
    bad = 0
    cache = {}
    for r in rows:
        why = []
        h = r["commit"]
        if h not in cache:
            cache[h] = (git(a.mirror, "show", "-s", "--format=%s", h), git(a.mirror, "show", "-s", "--format=%B", h))
        s, body = cache[h]
        if s is None or body is None:
            why.append("no commit %s" % h)
        else:
            m = subj.match(s.strip())
            if not m or m.group(1) != r["fixed_in"]:
                why.append("subject '%s' does not name %s" % (s.strip(), r["fixed_in"]))
            if r["tag"] != "-":
                t = git(a.mirror, "rev-parse", r["tag"] + "^{commit}")
                if not t or t.strip() != h:
                    why.append("tag %s does not name %s" % (r["tag"], h[:12]))
            blines = body.split("\n")
            n = int(r["line"])
            if n < 1 or n > len(blines):
                why.append("no line %d" % n)
            else:
                first = re.sub(r"^\s*(?:[*\-\u2022]|\d+[.)])\s+", "", blines[n - 1])
                rest = norm(" ".join([first] + blines[n:]))
                if not rest.startswith(norm(r["note"])):
                    why.append("line %d does not start the note: '%s'" % (n, norm(first)[:60]))
        for v, ms in msgs.items():
            if vt(v) < vt(r["fixed_in"]) and any(norm(r["note"]) in b for _, b in ms):
                why.append("release %s already carries the note" % v)
        if r["introduced"] != "before":
            if r["introduced"] not in r["note"] or vt(r["introduced"]) >= vt(r["fixed_in"]):
                why.append("introduced %s is not a version before %s that the note names" % (r["introduced"], r["fixed_in"]))
        if why:
            bad += 1
            print("FAIL %s %s: %s" % (r["key"], r["fixed_in"], "; ".join(why)))
    print("check: %d rows, %d ok, %d failed" % (len(rows), len(rows) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
