#!/usr/bin/env python3
"""Give every row of notes.tsv its symptom keys and cause class, from the
rules of keys.tsv, and write classified.tsv.

A row's keys: every keys.tsv rule whose pattern occurs in its note.
Its class: "-" when a nolog rule matches and the note names no effect that a
log shows (hang, crash, corruption): the row stays in the table for
`explain` and is never matched; else driver_or_kernel_bug (a plain NCCL bug;
src/kb/causes.c). Its workaround: an NCCL_*=value the note tells to set.

Columns of classified.tsv:
  key fixed_in introduced tag commit line kind class effects keys workaround note
(effects, keys: comma-separated, "-" when none). Prints the counts; exits 1
on a keys.tsv rule that matches no row (stale) or an unknown group.

Usage: classify.py [--notes FILE] [--keys FILE] [--out FILE] [-q]
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["key", "fixed_in", "introduced", "tag", "commit", "line", "kind", "class", "effects", "keys",
           "workaround", "note"]
GROUPS = ("effect", "where", "feature", "nolog")
LOG_EFFECTS = ("hang", "crash", "corruption")
WORKAROUND_VAR = re.compile(r"\b(?:set|setting|use|using|with)\s+(NCCL_[A-Z0-9_]+=[^\s.,;)]+)(?!\s+to enable)")


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l and not l.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def load_rules(path):
    rules = []
    for r in read_tsv(path):
        if r["group"] not in GROUPS:
            raise SystemExit("classify: %s: unknown group '%s' of key %s" % (path, r["group"], r["key"]))
        rules.append((r["key"], r["group"], re.compile(r["pattern"], re.I)))
    return rules


def classify_row(row, rules):
    note = row["note"]
    eff, keys, nolog, hit = [], [], False, set()
    for key, group, rx in rules:
        if not rx.search(note):
            continue
        hit.add(key)
        if group == "effect" and key not in eff:
            eff.append(key)
        elif group in ("where", "feature") and key not in keys:
            keys.append(key)
        elif group == "nolog":
            nolog = True
    cls = "-" if nolog and not any(e in LOG_EFFECTS for e in eff) else "driver_or_kernel_bug"
    if row["kind"] == "known_issue" and not eff:
        cls = "-"
    m = WORKAROUND_VAR.search(note) if row["kind"] != "fix" or "work around" in note.lower() else None
    return cls, eff, keys, (m.group(1) if m else "-"), hit


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", default=os.path.join(HERE, "notes.tsv"))
    ap.add_argument("--keys", default=os.path.join(HERE, "keys.tsv"))
    ap.add_argument("--out", default=os.path.join(HERE, "classified.tsv"))
    ap.add_argument("-q", action="store_true")
    a = ap.parse_args()
    rules = load_rules(a.keys)
    used, out, per = set(), [], {}
    for r in read_tsv(a.notes):
        cls, eff, keys, wa, hit = classify_row(r, rules)
        used |= hit
        per[cls] = per.get(cls, 0) + 1
        out.append([r["key"], r["fixed_in"], r["introduced"], r["tag"], r["commit"], r["line"], r["kind"], cls,
                    ",".join(eff) or "-", ",".join(keys) or "-", wa, r["note"]])
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in out:
            f.write("\t".join(r) + "\n")
    stale = [k for k, _, _ in rules if k not in used]
    if not a.q:
        print("classify: %d rows: %s" % (len(out), ", ".join("%s %d" % (c, n) for c, n in sorted(per.items()))))
        matchable = [r for r in out if r[7] != "-"]
        print("classify: %d rows a log can match (%d with an effect and a specific key)" % (
            len(matchable), sum(1 for r in matchable if r[8] != "-" and r[9] != "-")))
    for k in stale:
        print("classify: stale rule: key '%s' matches no note" % k, file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
