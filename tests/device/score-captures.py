#!/usr/bin/env python3
"""Scores a capture batch: the expected class (and alternative) of each
fault, read from a record script's header ("#   name  ... -> class
(alternative class)"), against the first cause `logs` named in the
summaries the script wrote ("name: exit N, ...; logs: VERDICT cls:conf ...").
A fault whose job did not fail (exit 0) or that was dropped is not a case.
  score-captures.py tests/device/record-field-faults.sh R5:10 R6:10 SUMMARY...
The R arguments name the batches in header order with their sizes."""
import re, sys

def header(path):
    faults, cur, text = [], None, []
    for line in open(path):
        if not line.startswith("#"):
            break
        m = re.match(r"#   ([a-z0-9][a-z0-9-]+)\s", line)
        if m:
            if cur:
                faults.append((cur, " ".join(text)))
            cur, text = m.group(1), [line[m.end():].strip()]
        elif cur and line.startswith("#    "):
            text.append(line[1:].strip())
        elif cur:
            faults.append((cur, " ".join(text)))
            cur, text = None, []
    if cur:
        faults.append((cur, " ".join(text)))
    out = []
    for name, t in faults:
        m = re.search(r"->\s*([a-z_0-9]+)(?:\s*\(alternative ([a-z_0-9]+)\))?", t)
        if m:
            out.append((name, m.group(1), m.group(2)))
    return out

def main(argv):
    faults = header(argv[1])
    batches = [(a.split(":")[0], int(a.split(":")[1])) for a in argv[2:] if re.match(r"R\d+:\d+$", a)]
    summaries = [a for a in argv[2:] if not re.match(r"R\d+:\d+$", a)]
    got = {}
    for s in summaries:
        for line in open(s):
            m = re.match(r"([a-z0-9-]+): (dropped.*|exit (\d+).*logs: (\S+) (\S+))", line.strip())
            if not m:
                continue
            if m.group(2).startswith("dropped"):
                got[m.group(1)] = ("dropped", None, None)
            else:
                first = m.group(5).split(":")[0] if m.group(5) != "none" else "none"
                got[m.group(1)] = ("exit " + m.group(3), m.group(4), first)
    i = 0
    for bname, size in batches:
        hit = cases = hit3 = 0
        print("%s:" % bname)
        for name, exp, alt in faults[i:i + size]:
            st, verdict, first = got.get(name, ("not run", None, None))
            if st in ("dropped", "not run", "exit 0"):
                print("  %-24s %-32s %s: not a case" % (name, exp, st))
                continue
            cases += 1
            ok = first == exp or (alt is not None and first == alt)
            hit += ok
            print("  %-24s %-32s %-8s %s %s -> %s" % (name, exp + ("/" + alt if alt else ""), st, verdict, first, "HIT" if ok else "miss"))
        print("  %s: %d/%d top-1" % (bname, hit, cases))
        i += size

main(sys.argv)
