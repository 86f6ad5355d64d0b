#!/usr/bin/env python3
"""Extract the failure messages of NCCL's network plugins from their source.

NCCL's net plugins log through the logger NCCL hands them, so their failures
appear as `host:pid:tid [dev] <func or file>:<line> NCCL WARN ...` lines. For
each plugin of PLUGINS below (a bare git mirror each), for the last patch of
every minor release, read the plugin's C/C++ files, find each WARN-level call
and each INFO-level call whose format carries a failure, and take its format
string (adjacent string literals joined, the prefix the plugin's macro adds
included, printf conversions and C escapes kept as written). Identical
(plugin, literal, file, kind) rows are collapsed across releases.

The parser is tools/nccl-warns/extract.py's (tokenizer, argument splitter,
literal joiner, the INFO failure words); only the plugins' macros differ:
  aws-ofi-nccl   NCCL_OFI_WARN(fmt, ...), NCCL_OFI_INFO(flags, fmt, ...), both
                 prefixing "NET/OFI " (include/nccl_ofi_log.h, every release),
                 and (*ofi_log_function)(NCCL_LOG_WARN, flags, file, line, fmt, ...)
                 (include/nccl_ofi_pthread.h). NCCL_OFI_TRACE is compiled out
                 unless the plugin is built with --enable-trace: left out.
  nccl-rdma-sharp-plugins  WARN(fmt, ...), INFO(flags, fmt, ...) as NCCL's
                 (include/debug.h), no prefix.

Output (deterministic): warns.tsv next to this script, columns
  plugin  literal  file  first_version  last_version  kind  key  versions
  - file: the path in the plugin's repository (SHARP: under src/, as its
    WARN's __FILE__ prints it)
  - first_version / last_version: release tags, or `branch@commit` for a
    release branch with no tag (SHARP v2.2.x .. v2.28.x)
  - key: first 12 hex digits of sha1(plugin TAB literal TAB file), plus TAB
    INFO for INFO rows
  - versions: the plugin's minor releases that have the row, as ranges over
    the releases read, in order (aws-ofi-nccl 1.0-1.21; SHARP 1.0, 2.0 ..
    2.7, 2.28: "2.7-2.28" means those two consecutive releases)

Usage: extract.py [--plugin NAME]... [--out FILE] [--stats]
Mirrors: $AWS_OFI_NCCL_MIRROR, $SHARP_PLUGIN_MIRROR, else /work/.mirror/...
A plugin whose mirror is absent is left out with a note on stderr, unless
--require is given (then exit 3). Python 3 standard library only.
"""
import argparse
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plugcommon  # noqa: E402
from plugcommon import COLUMNS  # noqa: E402,F401




nw = plugcommon.nccl_warns("extract")

SOURCE_EXT = (".c", ".cc", ".cpp", ".h", ".hpp")


def aws_tags(mirror):
    """The last patch of each 1.x minor; where a patch has a plain and an
    -aws tag (1.0 .. 1.5), the -aws one (the EFA build AWS ships)."""
    best = {}
    for tag in nw.git(mirror, "tag", "--list", "v1.*").decode().split():
        m = re.fullmatch(r"v1\.(\d+)\.(\d+)(-aws)?", tag)
        if not m:
            continue
        minor, patch, aws = int(m.group(1)), int(m.group(2)), bool(m.group(3))
        if minor not in best or (patch, aws) > best[minor][0]:
            best[minor] = ((patch, aws), tag)
    return [best[k][1] for k in sorted(best)]


SHARP_BRANCHES = ["v2.2.x", "v2.3.x", "v2.4.x", "v2.5.x", "v2.6.x", "v2.7.x", "v2.28.x"]


def sharp_tags(mirror):
    """Tags v1.0, v2.0.1, v2.1.0 (last patch of each minor), then the release
    branches that carry no tag, each as branch@commit (the label stays valid
    if the branch moves; check.py reads the commit). The hpcx-* tags are
    HPC-X bundle labels of the same code; master is not a release."""
    best = {}
    for tag in nw.git(mirror, "tag", "--list", "v*").decode().split():
        m = re.fullmatch(r"v(\d+)\.(\d+)(?:\.(\d+))?", tag)
        if not m:
            continue
        k = (int(m.group(1)), int(m.group(2)))
        p = int(m.group(3) or 0)
        if k not in best or p > best[k][0]:
            best[k] = (p, tag)
    out = [best[k][1] for k in sorted(best)]
    for b in SHARP_BRANCHES:
        try:
            sha = nw.git(mirror, "rev-parse", "--verify", "-q", "refs/heads/%s^{commit}" % b).decode().strip()
        except Exception:
            continue
        out.append("%s@%s" % (b, sha[:12]))
    return out


def minor_label(tag):
    """v1.7.4-aws -> 1.7; v2.28.x@abc -> 2.28; v1.0 -> 1.0"""
    m = re.match(r"v(\d+)\.(\d+)", tag)
    return "%s.%s" % (m.group(1), m.group(2))


def rev(tag):
    return tag.split("@")[-1]


# Per plugin: mirror, releases, which source files, how a file is named in
# the table, and the log calls: macro -> (kind, index of the format, prefix).
PLUGINS = {
    "aws-ofi-nccl": {
        "mirror": os.environ.get("AWS_OFI_NCCL_MIRROR", "/work/.mirror/aws+aws-ofi-nccl/repo"),
        "tags": aws_tags,
        "dirs": ("src/", "include/"),
        "skip": ("include/nccl_ofi_log.h",),   # the macros' own definitions
        "strip": "",
        "macros": {"NCCL_OFI_WARN": ("WARN", 0, "NET/OFI "), "NCCL_OFI_INFO": ("INFO", 1, "NET/OFI ")},
        "logfn": "ofi_log_function",
    },
    "nccl-rdma-sharp-plugins": {
        "mirror": os.environ.get("SHARP_PLUGIN_MIRROR", "/work/.mirror/Mellanox+nccl-rdma-sharp-plugins/repo"),
        "tags": sharp_tags,
        "dirs": ("src/", "include/"),
        "skip": ("include/debug.h",),
        "strip": "src/",
        "macros": {"WARN": ("WARN", 0, ""), "INFO": ("INFO", 1, "")},
        "logfn": None,
    },
}
# Logger levels of a direct call of the plugin's logger function.
LEVELS = {"NCCL_LOG_WARN": "WARN", "NCCL_LOG_INFO": "INFO"}


def autoconf_defines(mirror, tag):
    """PACKAGE_NAME as autoconf's AC_INIT([name], ...) in configure.ac sets it
    (config.h); aws-ofi-nccl logs `PACKAGE_NAME " initialization failed"`."""
    try:
        text = nw.git(mirror, "show", rev(tag) + ":configure.ac").decode("utf-8", "replace")
    except Exception:
        return {}
    m = re.search(r"AC_INIT\(\s*\[([^\]]+)\]", text)
    return {"PACKAGE_NAME": m.group(1)} if m else {}


def keep(kind, lit):
    if kind == "WARN":
        return True
    return not nw.BACKTRACE.search(lit) and bool(nw.INFO_FAILURE.search(lit))


def extract_file(text, cfg):
    """(kind, literal) of each failure message of one plugin source file."""
    toks = nw.tokenize(nw.splice_lines(text))
    found = []
    for i, (kind, t) in enumerate(toks):
        if kind != "ident":
            continue
        if t in cfg["macros"]:
            if i > 0 and toks[i - 1][1] in (".", "->", "::", "define"):
                continue
            if i + 1 >= len(toks) or toks[i + 1][1] != "(":
                continue
            args, _ = nw.split_args(toks, i + 1)
            mkind, idx, prefix = cfg["macros"][t]
        elif t == cfg["logfn"]:
            # (*ofi_log_function)(NCCL_LOG_WARN, flags, file, line, fmt, ...)
            if i + 2 >= len(toks) or toks[i + 1][1] != ")" or toks[i + 2][1] != "(":
                continue
            args, _ = nw.split_args(toks, i + 2)
            if not args or len(args[0]) != 1 or args[0][0][1] not in LEVELS:
                continue
            mkind, idx, prefix = LEVELS[args[0][0][1]], 4, ""
        else:
            continue
        if args is None or len(args) <= idx:
            continue
        lit = nw.format_literal(args[idx])
        if lit is None or "{{fmt}}" in lit:
            continue   # not a literal, or a logging macro's own body ("NET/OFI " fmt)
        lit = prefix + lit
        if keep(mkind, lit):
            found.append((mkind, lit))
    return found


def tag_files(mirror, tag, cfg):
    out = nw.git(mirror, "ls-tree", "-r", rev(tag)).decode()
    files = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _, typ, blob = meta.split()
        if typ != "blob" or not path.endswith(SOURCE_EXT) or path in cfg["skip"]:
            continue
        if path.startswith(cfg["dirs"]):
            files.append((path, blob))
    return files


def table_file(path, cfg):
    s = cfg["strip"]
    return path[len(s):] if s and path.startswith(s) else path


def key_of(plugin, literal, path, kind):
    text = plugin + "\t" + literal + "\t" + path + ("\tINFO" if kind == "INFO" else "")
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def ranges(labels, order):
    """Ranges of consecutive releases (positions in order) as labels."""
    pos = sorted(order.index(l) for l in set(labels))
    out, start, prev = [], None, None
    for p in pos:
        if start is None:
            start = prev = p
        elif p == prev + 1:
            prev = p
        else:
            out.append((start, prev))
            start = prev = p
    if start is not None:
        out.append((start, prev))
    return ",".join(order[a] if a == b else "%s-%s" % (order[a], order[b]) for a, b in out)


def extract_plugin(name, cfg, stats):
    mirror = cfg["mirror"]
    tags = cfg["tags"](mirror)
    order = [minor_label(t) for t in tags]
    cache, rows, per_tag = {}, {}, []
    for tag in tags:
        files = tag_files(mirror, tag, cfg)
        need = sorted({b for _, b in files if b not in cache})
        for blob, text in (nw.read_blobs(mirror, need).items() if need else []):
            cache[blob] = (extract_file(text, cfg), nw.string_defines(text))
        defines = autoconf_defines(mirror, tag)
        for path, blob in sorted(files):
            defines.update(cache[blob][1])
        counts = {"WARN": set(), "INFO": set()}
        for path, blob in files:
            for kind, lit in cache[blob][0]:
                lit = nw.resolve(lit, defines)
                f = table_file(path, cfg)
                r = rows.setdefault((lit, f, kind), [])
                if not r or r[-1] != tag:
                    r.append(tag)
                counts[kind].add((lit, f))
        per_tag.append((tag, len(counts["WARN"]), len(counts["INFO"])))
    out = []
    for (lit, path, kind), tl in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
        if "\t" in lit or "\n" in lit:
            raise SystemExit("extract: raw tab or newline in a literal of %s %s" % (name, path))
        out.append("\t".join([name, lit, path, tl[0], tl[-1], kind, key_of(name, lit, path, kind),
                              ranges([minor_label(t) for t in tl], order)]))
    if stats:
        print("%s: %d releases %s..%s" % (name, len(tags), tags[0], tags[-1]))
        print("tag\tWARN\tINFO")
        for t, w, i in per_tag:
            print("%s\t%d\t%d" % (t, w, i))
    return out, tags




def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin", action="append", choices=sorted(PLUGINS))
    ap.add_argument("--out", default=os.path.join(HERE, "warns.tsv"))
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--require", action="store_true", help="fail when a mirror is missing")
    a = ap.parse_args()
    lines = ["\t".join(COLUMNS)]
    for name in a.plugin or list(PLUGINS):
        cfg = PLUGINS[name]
        if not os.path.isdir(cfg["mirror"]):
            print("extract: no mirror of %s at %s" % (name, cfg["mirror"]), file=sys.stderr)
            if a.require:
                return 3
            continue
        out, tags = extract_plugin(name, cfg, a.stats)
        nwarn = sum(1 for l in out if l.split("\t")[5] == "WARN")
        print("extract: %s: %d rows (%d WARN, %d INFO) from %d releases %s..%s"
              % (name, len(out), nwarn, len(out) - nwarn, len(tags), tags[0], tags[-1]))
        lines += out
    keys = [l.split("\t")[6] for l in lines[1:]]
    if len(set(keys)) != len(keys):
        raise SystemExit("extract: key collision")
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print("extract: %d rows -> %s" % (len(lines) - 1, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
