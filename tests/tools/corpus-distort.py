#!/usr/bin/env python3
"""A copy of the public corpus with every paste wrapped the way pastes reach
people (docs/logs.md "Pastes as they arrive"): the same cases, the same
manifest, only the bytes around each line changed. Scoring the copy with
tests/cli/corpus-score.sh --corpus DIR measures what a paste's shape alone
costs; it needs no new case.

    corpus-distort.py --kind KIND OUT_DIR [--corpus DIR]

KIND: quote ("> " before each line, a mail or Markdown quote), ts (an RFC 3339
time, as `kubectl logs --timestamps` and log collectors write), compose (a
docker compose service, "worker-1  | "), catn (`cat -n`'s number and tab),
mixed (each case one of the four, by its position), lineno (a line number
and blanks, as an editor or a code view shows it), crlf (Windows line ends), wrap100 (every line cut at 100 characters, as
a mail client or a narrow terminal does). Standard library only.
"""
import argparse
import os
import shutil
import sys


def wrap(kind, text, n):
    lines = text.split("\n")
    if kind == "mixed":
        kind = ("quote", "ts", "compose", "catn")[n % 4]
    if kind == "quote":
        return "\n".join("> " + l for l in lines)
    if kind == "ts":
        return "\n".join("2026-12-06T10:00:%02d.%09dZ %s" % (i % 60, i, l) for i, l in enumerate(lines))
    if kind == "compose":
        return "\n".join("worker-1  | " + l for l in lines)
    if kind == "lineno":
        return "\n".join("%4d  %s" % (i + 1, l) for i, l in enumerate(lines))
    if kind == "catn":
        return "\n".join("%6d\t%s" % (i + 1, l) for i, l in enumerate(lines))
    if kind == "crlf":
        return text.replace("\n", "\r\n")
    if kind == "wrap100":
        out = []
        for l in lines:
            while len(l) > 100:
                out.append(l[:100])
                l = l[100:]
            out.append(l)
        return "\n".join(out)
    raise ValueError(kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", required=True,
                    choices=["quote", "ts", "compose", "mixed", "lineno", "catn", "crlf", "wrap100"])
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "..", "fixtures", "logs", "public"))
    ap.add_argument("out")
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    shutil.copy(os.path.join(a.corpus, "manifest.tsv"), a.out)
    cases = sorted(d for d in os.listdir(a.corpus) if os.path.isdir(os.path.join(a.corpus, d)))
    for n, d in enumerate(cases):
        os.makedirs(os.path.join(a.out, d))
        for f in sorted(os.listdir(os.path.join(a.corpus, d))):
            with open(os.path.join(a.corpus, d, f), encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
            with open(os.path.join(a.out, d, f), "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
                fh.write(wrap(a.kind, text, n))
    print("%d cases written to %s (%s)" % (len(cases), a.out, a.kind))
    return 0


if __name__ == "__main__":
    sys.exit(main())
