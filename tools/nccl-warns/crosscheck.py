#!/usr/bin/env python3
"""Compare the hand-written NCCL rows of src/kb/nccl_signatures.c with
classified.tsv: for each literal of a row whose source names NCCL (N:...),
list the NCCL messages that contain it and the classes they were given here,
and flag literals found in no NCCL message and class disagreements with the
class of the row's finding (src/kb/findings_*.def, src/kb/findings/*.def). Windows-only rows
(os/windows*) are left out: NCCL never prints them on Linux, and gen_c.py
leaves them out of src/kb/nccl_warns_gen.def too.
A literal that is not a substring of any format is tried with values filled
in for the conversions (at least half of it must be fixed text): a heuristic.

Each disagreement was reviewed (issue 14 item 1); those kept are listed with
their reason in crosscheck-exceptions.tsv (sig, literal, the table's classes,
the row's class, verdict, reason). --check (ctest t801) exits 1 on a
disagreement that list does not hold (a new one, or one whose classes
changed) and on a listed one that no longer occurs (a stale entry), and 2
when the tables cannot be read. Without --check: the report, exit 0.
Usage: crosscheck.py [--repo DIR] [--exceptions FILE] [--check] [-q]
  (default repo: the repository root)
"""
import argparse
import fnmatch
import functools
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def signatures(path):
    """(id, finding, literals) of every row whose source names NCCL; raises
    ValueError when a row of the table is not understood."""
    text = open(path, encoding="utf-8").read()
    rows = []
    parsed = 0
    # literals as L("...", ...), or the rows of kb/rm_status.def included
    # in braces (K03, K04: the driver's status names, no NCCL text)
    for m in re.finditer(r'\{\s*"(\w+)",\s*(?:"(\w+)"|F\((\w+)\)),\s*([A-Z_| ]+),\s*'
                         r'(?:L\((.*?)\)|\{\s*#define RM_STATUS.*?#undef RM_STATUS\s*\}),\s*(NULL|"(?:\\.|[^"])*")', text, re.S):
        parsed += 1
        lits = re.findall(r'"((?:\\.|[^"\\])*)"', m.group(5) or "")
        src = text[m.end():text.find("},", m.end())]
        if "N:" not in src:
            continue
        rows.append((m.group(1), m.group(2) or m.group(3), lits))
    total = len(re.findall(r'\{\s*"\w+",\s*F\(', text))
    if parsed != total or not rows:
        raise ValueError("%s: %d signature rows, %d understood" % (path, total, parsed))
    return rows


def finding_classes(kbdir):
    """finding id -> cause class, from every findings_*.def of src/kb and
    every .def of src/kb/findings/ (the findings of logs, by domain)."""
    out = {}
    paths = glob.glob(os.path.join(kbdir, "findings_*.def")) + glob.glob(os.path.join(kbdir, "findings", "*.def"))
    for path in sorted(paths):
        text = open(path, encoding="utf-8").read()
        out.update(re.findall(r"^FINDING\((\w+),\s*(\w+)", text, re.M))
    if not out:
        raise ValueError("%s: no FINDING rows" % kbdir)
    return out


def load_exceptions(path):
    """(sig, literal) -> (table classes, row class, verdict, reason)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l and not l.startswith("#")]
    head = ["sig", "literal", "table", "row", "verdict", "reason"]
    if not lines or lines[0].split("\t") != head:
        raise ValueError("%s: expected header %s" % (path, " ".join(head)))
    for n, line in enumerate(lines[1:], 2):
        cols = line.split("\t")
        if len(cols) != 6 or cols[4] not in ("a", "c") or not cols[5].strip():
            raise ValueError("%s: entry %d: want 6 columns, verdict a or c and a reason: %r" % (path, n, line))
        if (cols[0], cols[1]) in out:
            raise ValueError("%s: entry %d: (%s, %r) listed twice" % (path, n, cols[0], cols[1]))
        out[(cols[0], cols[1])] = (cols[2], cols[3], cols[4], cols[5])
    return out


CONV = re.compile(r"%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|t|j|L)?[diouxXeEfgGcspm%]|\{\{\w+\}\}")


def fragments(literal):
    """The fixed text between printf conversions and {{macro}} parts."""
    return [f.replace('\\"', '"').replace("\\n", "\n").lower() for f in CONV.split(literal)]


@functools.lru_cache(maxsize=None)
def middle(frags):
    """The regular expression of the fixed parts between two conversions'
    neighbours: any text, each fragment in order, any text."""
    mid = ".*".join(re.escape(f) for f in frags)
    return re.compile(".*" + (mid + ".*" if mid else ""), re.S)


def fits(text, frags):
    """text can be part of a rendering of the literal: some of it is the
    literal's fixed text and conversions hold the rest."""
    n = len(frags)
    for i in range(n):
        for j in range(i + 1, n):
            pat = None
            for a in range(0, min(len(frags[i]), len(text)) + 1):
                if a and not text.startswith(frags[i][-a:]):
                    continue
                rest = text[a:]
                for b in range(0, min(len(frags[j]), len(rest)) + 1):
                    fixed = a + b + sum(len(f) for f in frags[i + 1:j])
                    if fixed < max(6, (len(text) + 1) // 2):
                        continue  # mostly inside conversions: a value, not the format
                    if not b or rest.endswith(frags[j][:b]):
                        pat = pat or middle(tuple(frags[i + 1:j]))
                        if pat.fullmatch(rest[:len(rest) - b]):
                            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=os.path.normpath(os.path.join(HERE, "..", "..")))
    ap.add_argument("--exceptions", default=os.path.join(HERE, "crosscheck-exceptions.tsv"))
    ap.add_argument("--check", action="store_true", help="exit 1 on an unlisted disagreement or a stale entry")
    ap.add_argument("-q", action="store_true", help="print only disagreements and the totals")
    a = ap.parse_args()
    try:
        sigs = signatures(os.path.join(a.repo, "src/kb/nccl_signatures.c"))
        fclass = finding_classes(os.path.join(a.repo, "src/kb"))
        exc = load_exceptions(a.exceptions)
        with open(os.path.join(HERE, "classified.tsv"), encoding="utf-8") as f:
            rows = [l.split("\t") for l in f.read().split("\n")[1:] if l]
    except (OSError, ValueError) as e:
        print("crosscheck: %s" % e, file=sys.stderr)
        return 2
    rows = [r for r in rows if len(r) == 9 and not fnmatch.fnmatchcase(r[5], "os/windows*")]
    frags = [fragments(r[8]) for r in rows]
    missing = disagree = listed = 0
    new, seen = [], set()
    for sid, finding, lits in sigs:
        want = fclass.get(finding, "?")
        for lit in lits:
            low = lit.lower()
            hits = [r for r in rows if low in r[8].lower()]
            how = ""
            if not hits:
                hits = [r for r, fr in zip(rows, frags) if fits(low, fr)]
                how = " (with values filled in)"
            if not hits:
                missing += 1
                if not a.q:
                    print("%-5s %-28s NOT IN ANY NCCL FORMAT (a value such as a CUDA error text, or not NCCL's): %r"
                          % (sid, finding, lit))
                continue
            got = ",".join(sorted({r[1] for r in hits}))
            flag = ""
            if want not in got.split(","):
                disagree += 1
                e = exc.get((sid, lit))
                seen.add((sid, lit))
                if e and e[0] == got and e[1] == want:
                    listed += 1
                    flag = "  <-- finding class %s (reviewed: %s)" % (want, e[2])
                else:
                    flag = "  <-- finding class %s NOT REVIEWED%s" % (
                        want, " (%s says table %s, row %s)" % ((os.path.basename(a.exceptions),) + e[:2]) if e else "")
                    new.append("%s %r: table %s, row %s" % (sid, lit, got, want))
            if flag or not a.q:
                print("%-5s %-28s %3d msgs %-45s %r%s%s" % (sid, finding, len(hits), got[:45], lit, how, flag))
    stale = sorted(k for k in exc if k not in seen)
    for sid, lit in stale:
        print("crosscheck: stale entry of %s: %s %r no longer disagrees (remove it)" % (os.path.basename(a.exceptions), sid, lit))
    for n in new:
        print("crosscheck: not reviewed: %s (fix the row, the generator's rule, or list it with the reason in %s)"
              % (n, os.path.basename(a.exceptions)))
    print("crosscheck: %d signature rows naming NCCL, %d literals in no NCCL message, %d class disagreements"
          " (%d reviewed and listed, %d not), %d stale entries"
          % (len(sigs), missing, disagree, listed, len(new), len(stale)))
    return 1 if a.check and (new or stale) else 0


if __name__ == "__main__":
    sys.exit(main())
