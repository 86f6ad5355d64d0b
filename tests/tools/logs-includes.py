#!/usr/bin/env python3
"""Include check of the log analysis (src/analyze/logs, DESIGN.md's
sub-house): who may include what, and no circle.

  - a file of read/ (the log reader) includes of inputs/ only the sniffer
    table's header inputs/inputs.h, and of analyze/ nothing but
    analyze/nccllog.h (the model), analyze/logs/text.h and read/'s own;
  - a file of inputs/ (the other formats) includes of analyze/ only
    analyze/nccllog.h, analyze/logs/text.h and inputs/'s own: never the
    reader's internals (read/), the rules or the analysis state;
  - the include graph has no cycle. Its nodes are the folders read/,
    inputs/ and rules/ (a folder's files share their headers, so a header
    stands for the folder that implements it) and each file directly in
    logs/ by its name without extension (ana.h with score.c and helpers.c
    is the analysis state, analyze.c the driver).

Prints one line per violation; exit 0 when clean, 1 with violations, 2 on
bad usage.

    logs-includes.py LOGS_DIR    (src/analyze/logs)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
PREFIX = "analyze/logs/"
FOLDERS = ("read", "inputs", "rules")

ALLOWED = {
    "read": lambda inc: inc in ("analyze/nccllog.h", "analyze/logs/text.h",
                                "analyze/logs/inputs/inputs.h")
    or inc.startswith("analyze/logs/read/"),
    "inputs": lambda inc: inc in ("analyze/nccllog.h", "analyze/logs/text.h")
    or inc.startswith("analyze/logs/inputs/"),
}


def node_of(rel):
    """rel: a path inside logs/ ("read/reader.c", "ana.h")."""
    parts = rel.split("/")
    if len(parts) > 1:
        return parts[0] + "/"
    return os.path.splitext(parts[0])[0]


def scan(logs):
    """[(rel, lineno, include)] of every #include "..." under logs."""
    out = []
    for root, dirs, files in os.walk(logs):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, logs).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as fh:
                for i, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if m:
                        out.append((rel, i, m.group(1)))
    return out


def find_cycle(edges):
    """A list of nodes forming a cycle, or None."""
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: logs-includes.py LOGS_DIR", file=sys.stderr)
        return 2
    bad = []
    edges = {}
    for rel, line, inc in scan(argv[1]):
        folder = rel.split("/")[0] if "/" in rel else ""
        if folder in ALLOWED and inc.startswith("analyze/") and not ALLOWED[folder](inc):
            bad.append("%s:%d includes '%s': %s/ may not" % (rel, line, inc, folder))
        if inc.startswith(PREFIX):
            a, b = node_of(rel), node_of(inc[len(PREFIX):])
            if a != b:
                edges.setdefault(a, set()).add(b)
    cycle = find_cycle(edges)
    if cycle:
        bad.append("include cycle: " + " -> ".join(cycle))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
