#!/usr/bin/env python3
"""Extract NCCL's known bugs from its release notes, which are the messages
of its release commits (subject "2.18.3-1" or "NCCL 2.26.5-1"), into
notes.tsv: one row per "Fix ..." / "Work around ..." item (and each item of a
"Known issues" list) of every release from 2.4 to the newest release commit
of the mirror.

Columns:  key fixed_in introduced tag commit line note
  key         first 12 hex digits of sha1(fixed_in TAB note): stable while the note does not change
  fixed_in    the release whose notes carry the line ("2.18.3"); for a known
              issue, the release that names it (the issue is open there)
  introduced  the release the note says the bug came with ("2.19.1", "2.26"),
              else "before" (any release before fixed_in)
  tag         the release tag naming the commit ("v2.18.3-1"), or "-" when
              the release has no tag
  commit      the release commit (40 hex digits)
  line        the note's first line in `git show -s --format=%B <commit>`
              (line 1 is the subject)
  kind        fix, workaround (a "Work around ..." item) or known_issue
  note        the item's text, wrapped lines joined with one blank

A release with several commits of that subject (mirrored branches) gives
its items once: the tagged commit's first, then the others' in hash order;
a note a later release repeats word for word stays with the first.
Deterministic: the same mirror gives the same bytes.

Usage: extract.py [--mirror DIR] [--out FILE] [--stats]
Python 3 standard library only; git on PATH.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MIRROR = os.environ.get("NCCL_MIRROR", "/work/.mirror/NVIDIA+nccl/repo")
COLUMNS = ["key", "fixed_in", "introduced", "tag", "commit", "line", "kind", "note"]
SUBJECT = re.compile(r"^(?:NCCL )?(2\.(\d+)\.(\d+))-(\d+)\b")
FIRST_MINOR = 4
TRAILER = re.compile(r"^(Signed-off-by|Mirrored-from|Co-authored-by|Release notes|Reviewed-by|Change-Id):", re.I)
BULLET = re.compile(r"^(\s*)([*\-\u2022]|\d+[.)])\s+")
FIX = re.compile(r"^(fix|fixes|fixed|fixing|work around|workaround|worked around|works around)\b", re.I)
WORKAROUND = re.compile(r"^(work around|workaround|worked around|works around)\b", re.I)
KNOWN = re.compile(r"^known issues?\b", re.I)
# An item that says it fixes a GitHub issue without starting with "Fix"
# ("Make topology detection more deterministic when PCI speeds are not
# available (fix issue #1020)", 2.19.4): a fix all the same.
FIXES_ISSUE = re.compile(r"\b(fix|fixes|fixed)\s+(github\s*)?issue\s*#?\d+", re.I)
INTRODUCED = [
    re.compile(r"\b(?:regression|bug|issue|problem)s?\s+(?:that was\s+|which was\s+)?(?:introduced|added)\s+in\s+(?:NCCL\s+)?v?(2\.\d+(?:\.\d+)?)", re.I),
    re.compile(r"\b(?:introduced|added|appeared)\s+in\s+(?:NCCL\s+)?v?(2\.\d+(?:\.\d+)?)", re.I),
    re.compile(r"\bregression\s+(?:in|since|from)\s+(?:NCCL\s+)?v?(2\.\d+(?:\.\d+)?)", re.I),
    re.compile(r"\b(?:NCCL\s+)?v?(2\.\d+(?:\.\d+)?)\s+regression", re.I),
    re.compile(r"\bsince\s+(?:NCCL\s+)?v?(2\.\d+(?:\.\d+)?)", re.I),
    re.compile(r"\bwith\s+NCCL-(2\.\d+\.\d+)\b"),  # "statically linked with NCCL-2.28.3"
]


def git(mirror, *args):
    return subprocess.run(["git", "--git-dir", mirror] + list(args), check=True, stdout=subprocess.PIPE,
                          universal_newlines=True, encoding="utf-8", errors="replace").stdout


def vkey(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def release_commits(mirror):
    """{version: [commit, ...]} of every release commit 2.4+, tagged first."""
    tags = {}
    for line in git(mirror, "for-each-ref", "--format=%(refname:short) %(*objectname) %(objectname)", "refs/tags").splitlines():
        parts = line.split()
        name, obj = parts[0], parts[-1] if len(parts) == 2 else parts[1]
        tags.setdefault(obj, []).append(name)
    by = {}
    out = git(mirror, "log", "--all", "--format=%H%x00%s")
    for line in out.splitlines():
        h, _, s = line.partition("\0")
        m = SUBJECT.match(s)
        if not m or int(m.group(2)) < FIRST_MINOR:
            continue
        by.setdefault(m.group(1), set()).add(h)
    res = {}
    for v, hs in by.items():
        tagged = sorted(h for h in hs if any(t.startswith("v" + v + "-") for t in tags.get(h, [])))
        res[v] = [(h, sorted(t for t in tags.get(h, []) if t.startswith("v" + v + "-"))[0] if h in tagged else "-")
                  for h in tagged + sorted(hs - set(tagged))]
    return res


def first_word_is_identifier(s):
    w = s.split()[0] if s.split() else ""
    w = w.strip(".,;:()")
    return bool(w) and (w.isupper() or "_" in w or any(c.isdigit() for c in w))


def items(message):
    """The items of a commit message: (first line number, text, in_known_issues)."""
    lines = message.split("\n")
    body = [(i + 1, l.rstrip()) for i, l in enumerate(lines)][2:]  # line 1 subject, line 2 blank
    body = [(n, l) for n, l in body if not TRAILER.match(l.strip())]
    paras = 0
    prev_blank = True
    for _, l in body:
        if l.strip() and prev_blank:
            paras += 1
        prev_blank = not l.strip()
    para_mode = paras >= 3
    res = []
    cur = None  # [line, [texts], bullet_indent or None, known]
    known = False

    def close():
        if cur is not None:
            res.append((cur[0], " ".join(cur[1]), cur[3]))

    prev = ""
    for n, l in body:
        s = l.strip()
        if not s:
            close()
            cur = None
            prev = ""
            known = known and False
            continue
        b = BULLET.match(l)
        if b:
            close()
            cur = [n, [l[b.end():].strip()], len(b.group(1)), known]
        elif cur is not None and cur[2] is not None and (len(l) - len(l.lstrip())) > cur[2]:
            cur[1].append(s)
        elif cur is not None and para_mode and cur[2] is None:
            cur[1].append(s)
        elif cur is not None and not re.search(r"[.:;!]$", prev) and (not s[0].isupper() or first_word_is_identifier(s)):
            cur[1].append(s)
        else:
            close()
            cur = [n, [s], None, known]
        if KNOWN.match(s.lstrip("*- ")) and s.endswith(":"):
            known = True
        prev = s
    close()
    return res


def introduced_in(note, fixed_in):
    for r in INTRODUCED:
        m = r.search(note)
        if m and vkey(m.group(1)) < vkey(fixed_in):
            return m.group(1)
    return "before"


def key_of(fixed_in, note):
    return hashlib.sha1((fixed_in + "\t" + note).encode("utf-8")).hexdigest()[:12]


def extract(mirror):
    rows = []
    rel = release_commits(mirror)
    seen = set()  # a note repeated by a later release was fixed in the first
    for v in sorted(rel, key=vkey):
        for h, tag in rel[v]:
            msg = git(mirror, "show", "-s", "--format=%B", h)
            for n, text, known in items(msg):
                text = re.sub(r"\s+", " ", text).strip()
                if text in seen:
                    continue
                kind = None
                if known or KNOWN.match(text):
                    kind = "known_issue"
                elif FIX.match(text):
                    kind = "workaround" if WORKAROUND.match(text) else "fix"
                elif FIXES_ISSUE.search(text):
                    kind = "fix"
                if not kind:
                    continue
                if KNOWN.match(text) and text.endswith(":"):
                    continue  # the heading of a list
                seen.add(text)
                rows.append([key_of(v, text), v, introduced_in(text, v), tag, h, str(n), kind, text])
    return rows, rel


def write(rows, path):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR)
    ap.add_argument("--out", default=os.path.join(HERE, "notes.tsv"))
    ap.add_argument("--stats", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(a.mirror):
        print("extract: no NCCL mirror at '%s' (set NCCL_MIRROR)" % a.mirror, file=sys.stderr)
        return 2
    rows, rel = extract(a.mirror)
    write(rows, a.out)
    print("extract: wrote %s (%d rows from %d releases %s..%s)" % (
        a.out, len(rows), len(rel), min(rel, key=vkey), max(rel, key=vkey)))
    if a.stats:
        per = {}
        for r in rows:
            per[r[1]] = per.get(r[1], 0) + 1
        for v in sorted(rel, key=vkey):
            print("%-8s %3d" % (v, per.get(v, 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
