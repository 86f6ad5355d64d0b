#!/usr/bin/env python3
"""Include-graph check of src/ against the layer list of DESIGN.md.

Reads every #include "..." in src/ (.c, .h, .def) and prints one line per
violation: an include from a lower layer to a higher one, an include of a
folder that is not in the list, or two folders that include each other.
Exit status 0 when clean, 1 with violations, 2 on bad usage.

    layers.py SRC_DIR            check a tree
    layers.py --graph SRC_DIR    also print the folder graph (edges and counts)
"""
import os
import re
import sys

# Top first. main.c (src/main.c, in no folder) sits above cmd. engine/
# holds the active work commands call (stage runner, p2p scheduler, bench
# executor, fix search, watch's supervisor), below cmd/ and above report/
# (an engine fills results, report/ renders them). collect/
# gathers the facts (probe/, run/, gpu/ below it) into the machine model;
# model/ holds the data and pure functions every layer shares (the result
# model, the machine model, the fact types probe/ fills), so it sits low.
LAYERS = ["main", "cmd", "engine", "report", "analyze", "kb", "collect", "run", "gpu",
          "probe", "nvlib", "model", "util"]
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(src, path):
    rel = os.path.relpath(path, src)
    parts = rel.split(os.sep)
    return "main" if len(parts) == 1 else parts[0]


def scan(src):
    """Returns {(from_folder, to_folder): [file:line of each include]}."""
    edges = {}
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(root, name)
            here = folder_of(src, path)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                there = target.split("/")[0] if "/" in target else here
                line = text.count("\n", 0, m.start()) + 1
                where = "%s:%d" % (os.path.relpath(path, src), line)
                edges.setdefault((here, there), []).append(where + ' "%s"' % target)
    return edges


def check(edges):
    bad = []
    for (a, b), sites in sorted(edges.items()):
        if a == b:
            continue
        for f in (a, b):
            if f not in RANK:
                bad.append("folder '%s' is not in the layer list (%s)" % (f, sites[0]))
        if a in RANK and b in RANK and RANK[b] < RANK[a]:
            for s in sites:
                bad.append("%s: %s includes %s, a higher layer" % (s, a, b))
        if a < b and (b, a) in edges:
            bad.append("folders %s and %s include each other (%s; %s)"
                       % (a, b, sites[0], edges[(b, a)][0]))
    return bad


def main(argv):
    graph = False
    if argv and argv[0] == "--graph":
        graph, argv = True, argv[1:]
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: layers.py [--graph] SRC_DIR", file=sys.stderr)
        return 2
    edges = scan(argv[0])
    if graph:
        for (a, b), sites in sorted(edges.items()):
            if a != b:
                print("%-8s -> %-8s %d" % (a, b, len(sites)))
    bad = check(edges)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
