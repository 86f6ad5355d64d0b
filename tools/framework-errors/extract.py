#!/usr/bin/env python3
"""Check the literals of sources.tsv against the frameworks' own files and
fill in the line each literal starts on.

The committed sources.tsv was written by hand from the files read through
the source index (README.md, "How the rows were read"); this script repeats
the check wherever a copy of the sources is at hand:
  --root DIR    DIR/<owner>+<name>/<path> (a plain checkout per repository), or
  --mirror DIR  DIR/<owner>+<name>/repo, a bare git mirror (`git show COMMIT:path`)
A row passes when the fixed parts of its literal (the text between values)
occur in order in the file once string-literal joins are undone ("a " "b",
'a' + 'b', a backslash-newline); an enum row passes when `NAME = N` (or
`NAME(N)`) is there. Rows whose file is not at hand are reported and skipped.

Usage: extract.py (--root DIR | --mirror DIR) [--sources FILE] [--write]
  --write: put the lines found into sources.tsv (deterministic)
Exit: 0 every row at hand passed; 1 a row failed; 2 bad usage.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fwlib  # noqa: E402

# the end of one string literal and the start of the next: the same quote
# on one line ("a" "b"), or either quote across a line break (Python's
# "..." then '...' on the next line, as accelerate's state.py writes a text
# that holds double quotes)
JOIN = re.compile(r"([\"'])\s*(?:\+\s*)?(?:\\\n\s*)?\n?\s*(?:f|r|rb|b)?([\"'])", re.M)
# C++ also joins the literal pieces of a c10::str / TORCH_CHECK message: between
# "a " and "b" a comma, blanks, a `+` or a macro's backslash-newline go ("a ",\n "b"
# is "a b"); a value between them stays and the pattern's wildcard takes it
JOIN_CXX = re.compile(r'(")(?:\s|,|\+|\\\n)*(")')
CXX_EXT = (".cpp", ".cc", ".cu", ".c", ".hpp", ".h")


def source_text(row, root, mirror):
    repo = row["repo"].split(" ")[0]
    if "/" not in repo or not re.fullmatch(r"[0-9a-f]{40}", row["commit"]):
        return None
    d = repo.replace("/", "+")
    if root:
        p = os.path.join(root, d, row["path"])
        if os.path.isfile(p):
            with open(p, encoding="utf-8", errors="replace") as f:
                return f.read()
        return None
    git = os.path.join(mirror, d, "repo")
    if not os.path.isdir(git):
        return None
    r = subprocess.run(["git", "--git-dir", git, "show", "%s:%s" % (row["commit"], row["path"])],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


def find(row, text):
    """The 1-based line where the literal starts, 0 when it is not there."""
    if row["kind"] == "enum":
        name, num = fwlib.enum_parts(row["literal"])
        m = re.search(r"\b%s\s*(?:=\s*%d\b|\(\s*%d\s*\))" % (re.escape(name), num, num), text)
        return text.count("\n", 0, m.start()) + 1 if m else 0
    if row["kind"] == "name":
        m = re.search(r"\b%s\b" % re.escape(row["literal"]), text)
        return text.count("\n", 0, m.start()) + 1 if m else 0
    # undo the joins but remember where each kept byte came from
    joined, where, i = [], [], 0
    for m in (JOIN_CXX if row.get("path", "").endswith(CXX_EXT) else JOIN).finditer(text):
        if m.group(1) != m.group(2) and "\n" not in m.group(0):
            continue
        joined.append(text[i:m.start()])
        where.extend(range(i, m.start()))
        i = m.end()
    joined.append(text[i:])
    where.extend(range(i, len(text)))
    flat = "".join(joined)
    frags = [f for f in fwlib.pattern("format", row["literal"]).split(fwlib.WILD) if f.strip()]
    if not frags:
        return 0
    start = flat.find(frags[0])
    while start >= 0:
        pos, ok = start + len(frags[0]), True
        for f in frags[1:]:
            q = flat.find(f, pos)
            if q < 0 or q - pos > 400:
                ok = False
                break
            pos = q + len(f)
        if ok:
            return text.count("\n", 0, where[start]) + 1
        start = flat.find(frags[0], start + 1)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--root")
    g.add_argument("--mirror")
    ap.add_argument("--sources", default=os.path.join(fwlib.HERE, "sources.tsv"))
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    with open(a.sources, encoding="utf-8") as f:
        raw = f.read().split("\n")
    rows = fwlib.read_tsv(a.sources)
    failed = checked = 0
    for r in rows:
        text = source_text(r, a.root, a.mirror)
        if text is None:
            print("extract: not at hand: %s %s@%s" % (r["repo"], r["path"], r["commit"][:12]))
            continue
        checked += 1
        line = find(r, text)
        if not line:
            failed += 1
            print("extract: NOT FOUND in %s %s@%s: %s" % (r["repo"], r["path"], r["commit"][:12], r["literal"]),
                  file=sys.stderr)
        r["line"] = str(line) if line else r["line"]
    print("extract: %d rows, %d checked, %d not found" % (len(rows), checked, failed))
    if a.write and not failed:
        head = [l for l in raw if l.startswith("#")]
        cols = [c for c in raw[len(head)].split("\t")]
        with open(a.sources, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(head + ["\t".join(cols)] + ["\t".join(r[c] for c in cols) for r in rows]) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
