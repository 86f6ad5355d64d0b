#!/usr/bin/env python3
"""Runs a command and says what it took, for the tests of bounded inputs:

usage: rusage.py OUT ERR CMD...

CMD's stdout goes to OUT and its stderr to ERR; printed: its exit status
(128+N for signal N), its peak RSS in KiB and its CPU time (user + system)
in seconds. CPU time, not wall time: the test machine may be loaded."""
import resource
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
        try:
            rc = subprocess.run(sys.argv[3:], stdin=subprocess.DEVNULL, stdout=out, stderr=err, timeout=300).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    if rc < 0:
        rc = 128 - rc
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("%d %d %.2f" % (rc, ru.ru_maxrss, ru.ru_utime + ru.ru_stime))


if __name__ == "__main__":
    main()
