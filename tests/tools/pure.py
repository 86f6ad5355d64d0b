#!/usr/bin/env python3
"""The analysis layer is pure: a check of src/analyze/ (DESIGN.md, "analyze/").

    pure.py SRC_DIR

Prints one line per violation and exits 1 (0 when clean, 2 on bad usage):
 - an include, direct or through the headers it includes (followed through
   src/), of probe/, run/, gpu/, nvlib/ or collect/: the readers of files,
   processes and drivers, and the layer that calls them; or of the file
   readers of util/: util/sysroot.h and util/input.h (an analysis that
   reports a reader's error has util/errtext.h);
 - a call that opens, reads, lists or stats a file, reads the sysroot, the
   process environment, or starts a process or a library: open, fopen,
   opendir, openat, stat, fstat, access, readlink, lseek, read, pread,
   readv, recv, mmap, the sr_* readers, sysroot_*, the input_* openers and
   readers and linereader_map of util/, getenv, environ_*, fork, exec*,
   popen, system, dlopen. A reader in analyze/ takes lines, buffers or a
   read callback from its caller (analyze/kmsg.h kreader_take,
   nccllog_read_parallel's readat).
Comments and string literals are skipped.
"""
import os
import re
import sys

FORBIDDEN = ("probe", "run", "gpu", "nvlib", "collect")
FORBIDDEN_FILES = ("util/sysroot.h", "util/input.h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
CALL = re.compile(r'\b(open|openat|fopen|fdopen|opendir|stat|lstat|fstat|access|readlink|lseek|'
                  r'read|pread|pread64|readv|preadv|recv|recvfrom|recvmsg|mmap|fread|fgets|getline|'
                  r'sr_(?:read_file|read_str|read_ll|list_dir|open|stat|lstat|exists|glob|readlink|realpath|path)|'
                  r'sysroot_(?:get|set|is_live)|'
                  r'input_(?:open|from_fd|read|read_lines|read_kmsg|pread|linereader|list_add)|linereader_map|'
                  r'getenv|secure_getenv|environ_[a-z_]+|'
                  r'fork|vfork|execv|execve|execvp|execl|execlp|posix_spawnp?|popen|system|dlopen)\s*\(')


def includes(src, rel):
    try:
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return []
    return INCLUDE.findall(text)


def closure(src, start):
    """Every include reachable from file start (a path below src): {target: via}."""
    seen, todo = {}, [(start, None)]
    while todo:
        f, via = todo.pop()
        here = os.path.dirname(f)
        for t in includes(src, f):
            path = t if "/" in t else os.path.join(here, t)
            if path in seen:
                continue
            seen[path] = via       # the direct include it came through; None: itself
            todo.append((path, via or path))
    return seen


def main(argv):
    if len(argv) != 1 or not os.path.isdir(os.path.join(argv[0], "analyze")):
        print("usage: pure.py SRC_DIR", file=sys.stderr)
        return 2
    src = argv[0]
    bad = []
    for root, dirs, files in os.walk(os.path.join(src, "analyze")):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".def")):
                continue
            rel = os.path.relpath(os.path.join(root, name), src)
            for target, via in sorted(closure(src, rel).items()):
                if target.split("/")[0] in FORBIDDEN or target in FORBIDDEN_FILES:
                    how = " (through %s)" % via if via else ""
                    bad.append('%s: includes "%s"%s' % (rel, target, how))
            with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    s = line.strip()
                    if s.startswith(("/*", "*", "//")):
                        continue
                    code = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
                    code = re.sub(r'/\*.*?(\*/|$)|//.*$', ' ', code)
                    m = CALL.search(code)
                    if m:
                        bad.append("%s:%d: calls %s()" % (rel, n, m.group(1)))
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
