#!/usr/bin/env python3
"""Give every row of warns.tsv (the plugins' messages) a cause class, using
the rules of classes.tsv.

classes.tsv rules are tried in order; the first that matches a row wins:
  match  file  class  reason
  match: key:<key> | text:<substring of the literal, case-insensitive> | * |
         nccl: (the same literal is a row of tools/nccl-warns/classified.tsv,
         NCCL's own messages, and all its rows there have one class: that
         class; the class column of such a rule must be `nccl`)
  file:  glob on `<plugin>/<file>` (fnmatch; * also matches /)
  class: a cause class (src/kb/causes.c) or context
Writes classified.tsv (plugin, key, class, reason, rule, kind, file,
first_version, last_version, literal) and prints the coverage. Exit 0 when
every row is classified, every key/text/nccl rule matches some row and every
class is valid; 1 otherwise. The rule machinery is tools/nccl-warns/classify.py's.
Usage: classify.py [--warns FILE] [--classes FILE] [--out FILE] [--nccl FILE]
Python 3 standard library only.
"""
import argparse
import fnmatch
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plugcommon  # noqa: E402
from plugcommon import COLUMNS  # noqa: E402,F401




nwc = plugcommon.nccl_warns("classify")

NCCL_CLASSIFIED = os.path.join(HERE, "..", "nccl-warns", "classified.tsv")


def load_rules(path):
    """nccl-warns' rule loader, plus the `nccl:` match (class column `nccl`)."""
    rules, bad = [], 0
    for n, cols in nwc.read_tsv(path, ["match", "file", "class", "reason"]):
        if len(cols) != 4:
            print("classify: %s:%d: want 4 tab-separated columns" % (path, n), file=sys.stderr)
            bad += 1
            continue
        match, glob, cls, reason = cols
        twin = match == "nccl:"
        if twin != (cls == "nccl") or (not twin and cls not in nwc.CLASSES):
            print("classify: %s:%d: bad class %s for %s" % (path, n, cls, match), file=sys.stderr)
            bad += 1
        if not reason.strip():
            print("classify: %s:%d: no reason" % (path, n), file=sys.stderr)
            bad += 1
        if not (twin or match == "*" or match.startswith("text:") and len(match) > 5
                or match.startswith("key:") and len(match) == 16):
            print("classify: %s:%d: bad match %r" % (path, n, match), file=sys.stderr)
            bad += 1
        rules.append({"line": n, "match": match, "glob": glob, "class": cls, "reason": reason,
                      "needle": match[5:].lower() if match.startswith("text:") else None, "used": 0})
    return rules, bad


def nccl_classes(path):
    """literal -> {class: [files]} of NCCL's own classified messages."""
    out = {}
    for _, c in nwc.read_tsv(path, ["key", "class", "reason", "rule", "kind", "file",
                                    "first_version", "last_version", "literal"]):
        out.setdefault(c[8], {}).setdefault(c[1], []).append(c[5])
    return out


def apply(rule, row, twins):
    """(class, reason) when rule matches row, else None."""
    if not fnmatch.fnmatchcase(row["plugin"] + "/" + row["file"], rule["glob"]):
        return None
    m = rule["match"]
    if m == "nccl:":
        t = twins.get(row["literal"])
        if not t or len(t) != 1:
            return None
        cls, files = next(iter(t.items()))
        return cls, "%s (NCCL's %s)" % (rule["reason"], ", ".join(sorted(set(files))[:2]))
    if m == "*" or (m.startswith("key:") and row["key"] == m[4:]) or \
            (rule["needle"] is not None and rule["needle"] in row["literal"].lower()):
        return rule["class"], rule["reason"]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warns", default=os.path.join(HERE, "warns.tsv"))
    ap.add_argument("--classes", default=os.path.join(HERE, "classes.tsv"))
    ap.add_argument("--out", default=os.path.join(HERE, "classified.tsv"))
    ap.add_argument("--nccl", default=NCCL_CLASSIFIED, help="NCCL's own classified.tsv (the nccl: rule)")
    a = ap.parse_args()
    rows = [dict(zip(COLUMNS, c)) for _, c in nwc.read_tsv(a.warns, COLUMNS)]
    rules, bad = load_rules(a.classes)
    twins = nccl_classes(a.nccl)
    out = ["plugin\tkey\tclass\treason\trule\tkind\tfile\tfirst_version\tlast_version\tliteral"]
    unclassified, per_class, per_type, per_plugin = [], {}, {}, {}
    for r in rows:
        hit = None
        for x in rules:
            hit = apply(x, r, twins)
            if hit:
                break
        if hit is None:
            unclassified.append(r)
            continue
        x["used"] += 1
        cls, reason = hit
        c = per_class.setdefault(cls, {"WARN": 0, "INFO": 0})
        c[r["kind"]] += 1
        per_plugin.setdefault(r["plugin"], {}).setdefault(cls, 0)
        per_plugin[r["plugin"]][cls] += 1
        t = {"key:": "key", "text": "text", "nccl": "nccl twin"}.get(x["match"][:4], "file default")
        per_type[t] = per_type.get(t, 0) + 1
        out.append("\t".join([r["plugin"], r["key"], cls, reason, "%s %s" % (x["match"], x["glob"]),
                              r["kind"], r["file"], r["first_version"], r["last_version"], r["literal"]]))
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    n = len(rows)
    print("classify: %d of %d rows classified (%.1f%%), %d rules" % (n - len(unclassified), n,
          100.0 * (n - len(unclassified)) / n if n else 0, len(rules)))
    print("by rule: " + ", ".join("%s %d" % kv for kv in sorted(per_type.items())))
    print("class\tWARN\tINFO\ttotal\t" + "\t".join(sorted(per_plugin)))
    for cls in nwc.CLASSES:
        c = per_class.get(cls)
        if c:
            print("%s\t%d\t%d\t%d\t%s" % (cls, c["WARN"], c["INFO"], c["WARN"] + c["INFO"],
                  "\t".join(str(per_plugin[p].get(cls, 0)) for p in sorted(per_plugin))))
    for r in unclassified:
        print("UNCLASSIFIED %s %s %s %s" % (r["key"], r["plugin"], r["file"], r["literal"]))
    dead = nwc.report_rule_use(rules, a.classes)
    return 1 if unclassified or dead or bad else 0


if __name__ == "__main__":
    sys.exit(main())
