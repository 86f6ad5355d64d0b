#!/usr/bin/env python3
"""The shape of a markdown report (nccl-doctor --format markdown), for the
command-line tests t630 and t631: prints one line per fault, exits 1 when
there is one.

  mdcheck.py FILE [--action] [--max N]

Checks: no control byte but newline; at most N characters (default 60000);
<details> blocks balanced and never nested, each <summary> line followed by
a blank line; fenced blocks closed by a fence of their own length; every
table row outside a fence has the header's cell count (a cell's '|' is
escaped); --action: the first screen (before the first <details>) has a
"**Do this now" line followed by a ```sh fenced block.
"""
import re
import sys


def cells(line):
    """The cells of a table row: its unescaped '|' separate them."""
    n, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == "|":
            n += 1
        i += 1
    return n - 1


def main():
    args = sys.argv[1:]
    path = args[0]
    want_action = "--action" in args
    cap = int(args[args.index("--max") + 1]) if "--max" in args else 60000
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")
    bad = []
    ctl = [c for c in text if (ord(c) < 32 and c != "\n") or ord(c) == 127 or 0x80 <= ord(c) <= 0x9F]
    if ctl:
        bad.append("raw control characters: %r" % sorted(set(ctl)))
    if len(text) > cap:
        bad.append("%d characters, more than %d" % (len(text), cap))
    lines = text.split("\n")
    depth, fence, header = 0, None, None
    for no, line in enumerate(lines, 1):
        if fence:
            if line.strip() == fence:
                fence = None
            continue
        m = re.match(r"^(`{3,})", line)
        if m:
            fence = m.group(1)
            header = None
            continue
        opens = line.count("<details>")
        closes = line.count("</details>")
        depth += opens
        if depth > 1:
            bad.append("line %d: a <details> inside another" % no)
        depth -= closes
        if depth < 0:
            bad.append("line %d: </details> without <details>" % no)
            depth = 0
        if "<summary>" in line and (no >= len(lines) or lines[no] != ""):
            bad.append("line %d: no blank line after <summary>" % no)
        if line.startswith("|"):
            if header is None:
                header = cells(line)
            elif cells(line) != header:
                bad.append("line %d: %d cells, the header has %d: %s" % (no, cells(line), header, line[:120]))
        else:
            header = None
    if fence:
        bad.append("a fenced block (%s) is never closed" % fence)
    if depth:
        bad.append("%d <details> never closed" % depth)
    if want_action:
        first = text.split("<details>")[0]
        if not re.search(r"^\*\*Do this now.*\n\n```sh\n[^`]+\n```\n", first, re.M):
            bad.append("no '**Do this now' with a ```sh block on the first screen")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
