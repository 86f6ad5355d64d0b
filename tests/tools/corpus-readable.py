#!/usr/bin/env python3
"""Whether a public case's paste shows a failure at all (docs/logs.md
"Readable pastes"): a measure beside the first-sight score, written before
batches 31 and 32 were gathered, that does not look at what nccl-doctor says.

    corpus-readable.py [--corpus DIR] [ID_PREFIX...]

Prints one line per case: `ID<TAB>readable|unreadable<TAB>the first line that
decided, cut to 100 characters`, then the counts. A paste is readable when
one of its lines holds a failure word (below, without regard to case) or an
exit status other than 0. Launcher banners, INFO lines, command lines,
Python warnings and environment dumps hold none: no tool and no engineer can
tell a cause from them alone, whatever the thread later confirmed.
Standard library only.
"""
import argparse
import csv
import os
import re
import sys

FAILURE = re.compile(
    r"error|exception|fail|fatal|abort|timed? ?out|killed|refused|denied|unreachable|"
    r"segmentation fault|core dumped|nccl warn|cannot|can't|unable to|no such|not found|"
    r"invalid|mismatch|traceback|hangs?\b|stuck|deadlock",
    re.IGNORECASE)
EXIT = re.compile(r"(exit ?code|exit status|exitcode|return code|rc)\s*[:=]?\s*(-?[1-9][0-9]*)", re.IGNORECASE)


def deciding_line(text):
    """The first line that makes the paste readable, or None."""
    for line in text.splitlines():
        if FAILURE.search(line) or EXIT.search(line):
            return line.strip()
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.path.join(here, "..", "fixtures", "logs", "public"))
    ap.add_argument("ids", nargs="*", help="case id prefixes (e.g. 293); all cases when none")
    args = ap.parse_args()
    try:
        with open(os.path.join(args.corpus, "manifest.tsv"), newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        print("corpus-readable: %s" % e, file=sys.stderr)
        return 3
    n = readable = 0
    for r in rows:
        cid = r["id"]
        if args.ids and not any(cid.startswith(p) for p in args.ids):
            continue
        d = os.path.join(args.corpus, cid)
        text = ""
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            p = os.path.join(d, name)
            if os.path.isfile(p):
                with open(p, errors="replace") as f:
                    text += f.read() + "\n"
        line = deciding_line(text)
        n += 1
        readable += line is not None
        print("%s\t%s\t%s" % (cid, "readable" if line else "unreadable", (line or "")[:100]))
    print("readable: %d/%d" % (readable, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
