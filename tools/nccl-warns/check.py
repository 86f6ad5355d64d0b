#!/usr/bin/env python3
"""Check warns.tsv against NCCL's source: every row's literal must be the
format of a WARN(...) (WARN rows) or INFO(...)/INFO_LOC(...)/INFO_LOC_FN(...)
call (INFO rows) in its file, in its first and its last version.

This does not reuse extract.py's parser: it rewrites each source file so that
adjacent string literals become one ("a" "b" -> "ab", "%" PRIx64 -> "%lx",
"x" name "y" -> "x{{name}}y", #name -> {{name}}) and then looks for the
literal right after the macro name with a regular expression.

Usage: check.py [--mirror DIR] [--tsv FILE] [--all]
  --all  also check every release listed in the versions column
Exit 0 when every row checks, 1 when some do not (each printed), 3 when the
mirror or the table cannot be read. Python 3 standard library only.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MIRROR = os.environ.get("NCCL_MIRROR", "/work/.mirror/NVIDIA+nccl/repo")
COLUMNS = ["literal", "file", "first_version", "last_version", "kind", "key", "versions"]


def show(mirror, tag, path):
    p = subprocess.run(["git", "--git-dir", mirror, "show", "%s:%s" % (tag.split("@")[-1], path)],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        return None
    return p.stdout.decode("utf-8", "replace")


STR = r'"(?:\\.|[^"\\\n])*"'
# A run of adjacent string literals, with identifiers or #param between them
# and an optional PRIx64-style macro at the end. Char literals and comments
# are matched too so that a quote inside them starts nothing.
RUN = re.compile(r"""(?P<chr>'(?:\\.|[^'\\\n])*')|(?P<cmt>//[^\n]*|/\*.*?\*/)"""
                 r'|(?P<run>(?:#\s*\w+\s*)?' + STR + r'(?:\s*(?:#\s*)?(?:\w+\s*)?' + STR + r')*(?:\s*PRI\w+)?)',
                 re.DOTALL)
PIECE = re.compile(r'(' + STR + r')|#\s*(\w+)|(\w+)')
PRI = re.compile(r"PRI([diouxX])(64|32|16|8|PTR|MAX)$")


def join_run(run):
    out = []
    for m in PIECE.finditer(run):
        if m.group(1):
            out.append(m.group(1)[1:-1])
        else:
            name = m.group(2) or m.group(3)
            p = PRI.match(name)
            if p:
                out.append(("l" if p.group(2) in ("64", "PTR", "MAX") else "") + p.group(1))
            else:
                out.append("{{%s}}" % name)
    return '"' + "".join(out) + '"'


def normalize(text):
    text = text.replace("\\\r\n", "").replace("\\\n", "")
    def one(m):
        if m.group("run"):
            return join_run(m.group("run"))
        return " " if m.group("cmt") else m.group(0)
    return RUN.sub(one, text)


def string_defines(mirror, tag, cache):
    if tag not in cache:
        out = subprocess.run(["git", "--git-dir", mirror, "grep", "-h", "-E",
                              r'^\s*#\s*define\s+\w+\s+"[^"]*"\s*$', tag.split("@")[-1], "--", "src"],
                             stdout=subprocess.PIPE).stdout.decode("utf-8", "replace")
        d = {}
        for line in out.splitlines():
            m = re.match(r'\s*#\s*define\s+(\w+)\s+"([^"]*)"', line)
            if m:
                d[m.group(1)] = m.group(2)
        cache[tag] = d
    return cache[tag]


def call_regex(kind, literal):
    lit = re.escape(literal)
    if kind == "WARN":
        return re.compile(r'(?<![\w.])WARN\s*\(\s*"' + lit + '"')
    return re.compile(r'(?<![\w.])INFO(?:_LOC(?:_FN)?)?\s*\([^;"]*?"' + lit + '"')


def found(mirror, tag, row, files, defines):
    key = (tag, row["file"])
    if key not in files:
        text = show(mirror, tag, "src/" + row["file"])
        files[key] = None if text is None else normalize(text)
    text = files[key]
    if text is None:
        return "file missing"
    if call_regex(row["kind"], row["literal"]).search(text):
        return None
    # A {{NAME}} that extract.py resolved from a #define "string" in the tag.
    d = string_defines(mirror, tag, defines)
    for m in set(re.findall(r"\{\{(\w+)\}\}", text)):
        if m in d and d[m] in row["literal"]:
            text = text.replace("{{%s}}" % m, d[m])
    if call_regex(row["kind"], row["literal"]).search(text):
        return None
    # WARN("%s", name) with `name = "literal";` in the same file.
    m = re.search(r'(\w+)\s*=\s*"' + re.escape(row["literal"]) + r'"\s*;', text)
    if m and call_regex(row["kind"], "%s").pattern and re.search(
            call_regex(row["kind"], "%s").pattern + r"\s*,\s*" + m.group(1) + r"\s*\)", text):
        return None
    return "literal not found"


def expand(versions, tags):
    minors = set()
    for part in versions.split(","):
        a, _, b = part.partition("-")
        lo = int(a.split(".")[1])
        hi = int((b or a).split(".")[1])
        minors.update(range(lo, hi + 1))
    return [t for t in tags if int(t.split(".")[1]) in minors]


def read_rows(path, columns):
    """The rows of a warns.tsv as dicts; None (said on stderr) when the file
    cannot be read or its header is not `columns`. (tools/nccl-plugin-warns/
    check.py reads its table with it too.)"""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        print("check: cannot read %s: %s" % (path, e.strerror), file=sys.stderr)
        return None
    if lines[0].split("\t") != columns:
        print("check: %s: unexpected header" % path, file=sys.stderr)
        return None
    return [dict(zip(columns, l.split("\t"))) for l in lines[1:] if l]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR)
    ap.add_argument("--tsv", default=os.path.join(HERE, "warns.tsv"))
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(a.mirror):
        print("check: no nccl mirror at %s" % a.mirror, file=sys.stderr)
        return 3
    rows = read_rows(a.tsv, COLUMNS)
    if rows is None:
        return 3
    tags = sorted({r["first_version"] for r in rows} | {r["last_version"] for r in rows},
                  key=lambda t: [int(x) for x in re.findall(r"\d+", t)])
    files, defines, bad, checks = {}, {}, 0, 0
    for r in rows:
        if len(r) != len(COLUMNS) or r["kind"] not in ("WARN", "INFO"):
            print("check: malformed row: %r" % r, file=sys.stderr)
            return 3
        want = [r["first_version"], r["last_version"]]
        if a.all:
            want = expand(r["versions"], tags) if a.all else want
        for tag in dict.fromkeys(want):
            checks += 1
            why = found(a.mirror, tag, r, files, defines)
            if why:
                bad += 1
                print("MISSING %s %s src/%s %s: %s" % (r["key"], tag, r["file"], why, r["literal"]))
    print("check: %d rows, %d checks, %d failed" % (len(rows), checks, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
