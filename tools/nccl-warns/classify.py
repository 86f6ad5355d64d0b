#!/usr/bin/env python3
"""Give every row of warns.tsv a cause class, using the rules of classes.tsv.

classes.tsv rules are tried in order; the first that matches a row wins:
  match  file  class  reason
  match: key:<key> | text:<substring of the literal, case-insensitive> | *
  file:  glob on the row's file (fnmatch; * also matches /)
  class: one of the project's cause classes (src/kb/causes.c) or context
Writes classified.tsv (key, class, reason, rule, kind, file, first_version,
last_version, literal) and prints the coverage. Exit 0 when every row is
classified, every key/text rule matches some row and every class is valid;
1 otherwise.
Usage: classify.py [--warns FILE] [--classes FILE] [--out FILE]
Python 3 standard library only.
"""
import argparse
import fnmatch
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# src/kb/causes.c, in its order, plus "context".
CLASSES = ["p2p_pcie_acs_iommu", "p2p_virtualization", "shm_too_small", "bootstrap_network",
           "ib_rdma_config", "version_mismatch", "nccl_config_error",
           "duplicate_gpu_or_device_mapping", "gpu_hardware", "nvlink_fabric", "pcie_link", "host_memory", "app_gpu_fault", "fabric_manager_nvswitch",
           "peer_died_or_oom", "custom_allreduce_or_cumem", "collective_mismatch_app_bug",
           "driver_or_kernel_bug", "unknown", "context"]


def read_tsv(path, header):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    rows = []
    seen_header = False
    for n, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if not seen_header:
            if cols[:len(header)] != header:
                raise SystemExit("classify: %s:%d: expected header %s" % (path, n, "\t".join(header)))
            seen_header = True
            continue
        rows.append((n, cols))
    return rows


def load_rules(path):
    rules, bad = [], 0
    for n, cols in read_tsv(path, ["match", "file", "class", "reason"]):
        if len(cols) != 4:
            print("classify: %s:%d: want 4 tab-separated columns" % (path, n), file=sys.stderr)
            bad += 1
            continue
        match, glob, cls, reason = cols
        if cls not in CLASSES:
            print("classify: %s:%d: unknown class %s" % (path, n, cls), file=sys.stderr)
            bad += 1
        if not reason.strip():
            print("classify: %s:%d: no reason" % (path, n), file=sys.stderr)
            bad += 1
        if not (match == "*" or match.startswith("text:") and len(match) > 5
                or match.startswith("key:") and len(match) == 16):
            print("classify: %s:%d: bad match %r" % (path, n, match), file=sys.stderr)
            bad += 1
        rules.append({"line": n, "match": match, "glob": glob, "class": cls, "reason": reason,
                      "needle": match[5:].lower() if match.startswith("text:") else None, "used": 0})
    return rules, bad


def matches(rule, row):
    if not fnmatch.fnmatchcase(row["file"], rule["glob"]):
        return False
    m = rule["match"]
    if m == "*":
        return True
    if m.startswith("key:"):
        return row["key"] == m[4:]
    return rule["needle"] in row["literal"].lower()


def report_rule_use(rules, classes_path):
    """Prints the rules no row used; returns how many of them are stale. A
    text or key rule that matches nothing is stale; a file default (*)
    shadowed by text rules is kept as the net for rows of later releases.
    (tools/nccl-plugin-warns/classify.py reports its rules with it too.)"""
    dead = [x for x in rules if not x["used"] and x["match"] != "*"]
    for x in dead:
        print("UNUSED RULE %s:%d %s %s" % (os.path.basename(classes_path), x["line"], x["match"], x["glob"]))
    idle = [x for x in rules if not x["used"] and x["match"] == "*"]
    if idle:
        print("file defaults that match no row today (kept for later releases): "
              + ", ".join(x["glob"] for x in idle))
    return len(dead)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warns", default=os.path.join(HERE, "warns.tsv"))
    ap.add_argument("--classes", default=os.path.join(HERE, "classes.tsv"))
    ap.add_argument("--out", default=os.path.join(HERE, "classified.tsv"))
    a = ap.parse_args()
    cols = ["literal", "file", "first_version", "last_version", "kind", "key", "versions"]
    rows = [dict(zip(cols, c)) for _, c in read_tsv(a.warns, cols)]
    rules, bad = load_rules(a.classes)
    out = ["key\tclass\treason\trule\tkind\tfile\tfirst_version\tlast_version\tliteral"]
    unclassified = []
    per_class, per_type = {}, {}
    for r in rows:
        rule = next((x for x in rules if matches(x, r)), None)
        if rule is None:
            unclassified.append(r)
            continue
        rule["used"] += 1
        c = per_class.setdefault(rule["class"], {"WARN": 0, "INFO": 0})
        c[r["kind"]] += 1
        t = "key" if rule["match"].startswith("key:") else "text" if rule["needle"] else "file default"
        per_type[t] = per_type.get(t, 0) + 1
        out.append("\t".join([r["key"], rule["class"], rule["reason"],
                              "%s %s" % (rule["match"], rule["glob"]), r["kind"], r["file"],
                              r["first_version"], r["last_version"], r["literal"]]))
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    n = len(rows)
    print("classify: %d of %d rows classified (%.1f%%), %d rules" % (n - len(unclassified), n,
          100.0 * (n - len(unclassified)) / n if n else 0, len(rules)))
    print("by rule: " + ", ".join("%s %d" % kv for kv in sorted(per_type.items())))
    print("class\tWARN\tINFO\ttotal")
    for cls in CLASSES:
        c = per_class.get(cls)
        if c:
            print("%s\t%d\t%d\t%d" % (cls, c["WARN"], c["INFO"], c["WARN"] + c["INFO"]))
    for r in unclassified:
        print("UNCLASSIFIED %s %s %s" % (r["key"], r["file"], r["literal"]))
    dead = report_rule_use(rules, a.classes)
    return 1 if unclassified or dead or bad else 0


if __name__ == "__main__":
    sys.exit(main())
