#!/usr/bin/env python3
"""Compare the hand-written NCCL rows of src/kb/nccl_signatures.c with
classified.tsv: for each literal of a row whose source names NCCL (N:...),
list the NCCL messages that contain it and the classes they were given here,
and flag literals found in no NCCL message and class disagreements with the
row's finding (src/kb/findings_logs.def). A report for the lead; exit 0.
A literal that is not a substring of any format is tried with values filled
in for the conversions (at least half of it must be fixed text): a heuristic.
Usage: crosscheck.py [--repo DIR]   (default: the repository root)
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def signatures(path):
    text = open(path, encoding="utf-8").read()
    rows = []
    for m in re.finditer(r'\{\s*"(\w+)",\s*(?:"(\w+)"|F\((\w+)\)),\s*([A-Z_| ]+),\s*L\((.*?)\),\s*(NULL|"(?:\\.|[^"])*")', text, re.S):
        lits = re.findall(r'"((?:\\.|[^"\\])*)"', m.group(5))
        src = text[m.end():text.find("},", m.end())]
        if "N:" not in src:
            continue
        rows.append((m.group(1), m.group(2) or m.group(3), lits))
    return rows


def finding_classes(path):
    text = open(path, encoding="utf-8").read()
    return dict(re.findall(r"^FINDING\((\w+),\s*(\w+)", text, re.M))


CONV = re.compile(r"%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|t|j|L)?[diouxXeEfgGcspm%]|\{\{\w+\}\}")


def fragments(literal):
    """The fixed text between printf conversions and {{macro}} parts."""
    return [f.replace('\\"', '"').replace("\\n", "\n").lower() for f in CONV.split(literal)]


def fits(text, frags):
    """text can be part of a rendering of the literal: some of it is the
    literal's fixed text and conversions hold the rest."""
    n = len(frags)
    for i in range(n):
        for j in range(i + 1, n):
            mid = ".*".join(re.escape(f) for f in frags[i + 1:j])
            pat = re.compile(".*" + (mid + ".*" if mid else ""), re.S)
            for a in range(0, min(len(frags[i]), len(text)) + 1):
                if a and not text.startswith(frags[i][-a:]):
                    continue
                rest = text[a:]
                for b in range(0, min(len(frags[j]), len(rest)) + 1):
                    fixed = a + b + sum(len(f) for f in frags[i + 1:j])
                    if fixed < max(6, (len(text) + 1) // 2):
                        continue  # mostly inside conversions: a value, not the format
                    if (not b or rest.endswith(frags[j][:b])) and pat.fullmatch(rest[:len(rest) - b]):
                        return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=os.path.normpath(os.path.join(HERE, "..", "..")))
    a = ap.parse_args()
    sigs = signatures(os.path.join(a.repo, "src/kb/nccl_signatures.c"))
    fclass = finding_classes(os.path.join(a.repo, "src/kb/findings_logs.def"))
    with open(os.path.join(HERE, "classified.tsv"), encoding="utf-8") as f:
        rows = [l.split("\t") for l in f.read().split("\n")[1:] if l]
    missing = disagree = 0
    for sid, finding, lits in sigs:
        want = fclass.get(finding, "?")
        for lit in lits:
            low = lit.lower()
            hits = [r for r in rows if low in r[8].lower()]
            how = ""
            if not hits:
                hits = [r for r in rows if fits(low, fragments(r[8]))]
                how = " (with values filled in)"
            if not hits:
                missing += 1
                print("%-5s %-28s NOT IN ANY NCCL FORMAT (a value such as a CUDA error text, or not NCCL's): %r"
                      % (sid, finding, lit))
                continue
            got = sorted({r[1] for r in hits})
            flag = "" if want in got else "  <-- finding class %s" % want
            if flag:
                disagree += 1
            print("%-5s %-28s %3d msgs %-45s %r%s%s" % (sid, finding, len(hits), ",".join(got)[:45], lit, how, flag))
    print("crosscheck: %d signature rows naming NCCL, %d literals in no NCCL message, %d class disagreements"
          % (len(sigs), missing, disagree))
    return 0


if __name__ == "__main__":
    sys.exit(main())
