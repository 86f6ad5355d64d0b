#!/usr/bin/env python3
"""Check warns.tsv against the plugins' source: every row's literal must be
the format of a WARN-level (WARN rows) or INFO-level (INFO rows) log call in
its file, in its first and its last release (--all: every release its
versions column lists).

Not extract.py's parser: this uses tools/nccl-warns/check.py's rewriting
(adjacent string literals joined, "%" PRIx64 resolved, identifiers spliced
as {{name}}) and a regular expression after the macro name. For a macro that
prefixes its format ("NET/OFI " fmt), the prefix is checked separately: the
release's header must define the macro with exactly that prefix.

Usage: check.py [--tsv FILE] [--all]
Exit 0 when every row checks, 1 when some do not (each printed), 3 when the
table cannot be read; a plugin whose mirror is absent is skipped with a note
(exit 3 when no plugin could be checked). Python 3 standard library only.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plugcommon  # noqa: E402
from plugcommon import COLUMNS  # noqa: E402,F401




nwc = plugcommon.nccl_warns("check")


# plugin -> mirror, path prefix of the file column, header that defines the
# prefixing macros, and per kind the call forms: (regex before the format, prefix)
PLUGINS = {
    "aws-ofi-nccl": {
        "mirror": os.environ.get("AWS_OFI_NCCL_MIRROR", "/work/.mirror/aws+aws-ofi-nccl/repo"),
        "prefix_dir": "",
        "header": "include/nccl_ofi_log.h",
        "calls": {
            "WARN": [(r'(?<![\w.])NCCL_OFI_WARN\s*\(\s*', "NET/OFI "),
                     (r'\(\s*\*\s*ofi_log_function\s*\)\s*\(\s*NCCL_LOG_WARN\s*,[^;"]*?', "")],
            "INFO": [(r'(?<![\w.])NCCL_OFI_INFO\s*\([^;"]*?', "NET/OFI "),
                     (r'\(\s*\*\s*ofi_log_function\s*\)\s*\(\s*NCCL_LOG_INFO\s*,[^;"]*?', "")],
        },
    },
    "nccl-rdma-sharp-plugins": {
        "mirror": os.environ.get("SHARP_PLUGIN_MIRROR", "/work/.mirror/Mellanox+nccl-rdma-sharp-plugins/repo"),
        "prefix_dir": "src/",
        "header": None,
        "calls": {
            "WARN": [(r'(?<![\w.])WARN\s*\(\s*', "")],
            "INFO": [(r'(?<![\w.])INFO\s*\([^;"]*?', "")],
        },
    },
}


def repo_path(cfg, f):
    if cfg["prefix_dir"] and not f.startswith("include/"):
        return cfg["prefix_dir"] + f
    return f


def prefix_ok(mirror, tag, cfg, kind, prefix, cache):
    """The release's header defines the macro of this kind as
    `... "PREFIX" fmt ...`."""
    if not prefix:
        return True
    key = (tag, kind)
    if key not in cache:
        text = nwc.show(mirror, tag, cfg["header"]) or ""
        text = text.replace("\\\r\n", "").replace("\\\n", "")
        macro = "NCCL_OFI_WARN" if kind == "WARN" else "NCCL_OFI_INFO"
        m = re.search(r"#\s*define\s+" + macro + r"\s*\([^)]*\)(.*)", text)
        cache[key] = m.group(1) if m else ""
    return ('"%s" fmt' % prefix) in cache[key]


def package_name(mirror, tag, cache):
    """AC_INIT([name], ...) of the release's configure.ac (PACKAGE_NAME)."""
    if tag not in cache:
        m = re.search(r"AC_INIT\(\s*\[([^\]]+)\]", nwc.show(mirror, tag, "configure.ac") or "")
        cache[tag] = m.group(1) if m else None
    return cache[tag]


def found(mirror, tag, row, cfg, files, hdr):
    path = repo_path(cfg, row["file"])
    key = (tag, path)
    if key not in files:
        text = nwc.show(mirror, tag, path)
        if text is not None:
            name = package_name(mirror, tag, hdr.setdefault("ac", {}))
            if name:   # `PACKAGE_NAME " text"` -> `"name text"`
                text = re.sub(r'\bPACKAGE_NAME\s*"', lambda m: '"' + name, text)
        files[key] = None if text is None else nwc.normalize(text)
    text = files[key]
    if text is None:
        return "file missing"
    lit = row["literal"]
    for before, prefix in cfg["calls"][row["kind"]]:
        if not lit.startswith(prefix):
            continue
        if re.search(before + '"' + re.escape(lit[len(prefix):]) + '"', text):
            if prefix_ok(mirror, tag, cfg, row["kind"], prefix, hdr):
                return None
            return "macro prefix %r not in %s" % (prefix, cfg["header"])
    return "literal not found"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tsv", default=os.path.join(HERE, "warns.tsv"))
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    rows = nwc.read_rows(a.tsv, COLUMNS)
    if rows is None:
        return 3
    # every release of a plugin, in order, from the rows' first/last versions
    # and versions columns: the ranges are over this order
    tags = {}
    for r in rows:
        if len(r) != len(COLUMNS) or r["kind"] not in ("WARN", "INFO") or r["plugin"] not in PLUGINS:
            print("check: malformed row: %r" % r, file=sys.stderr)
            return 3
        tags.setdefault(r["plugin"], set()).update([r["first_version"], r["last_version"]])
    files, hdr, bad, checks, skipped = {}, {}, 0, 0, []
    for r in rows:
        cfg = PLUGINS[r["plugin"]]
        if not os.path.isdir(cfg["mirror"]):
            if r["plugin"] not in skipped:
                skipped.append(r["plugin"])
                print("check: no mirror of %s at %s: skipped" % (r["plugin"], cfg["mirror"]), file=sys.stderr)
            continue
        want = [r["first_version"], r["last_version"]]
        if a.all:
            want = expand(r["versions"], sorted(tags[r["plugin"]], key=vkey))
        for tag in dict.fromkeys(want):
            checks += 1
            why = found(cfg["mirror"], tag, r, cfg, files, hdr)
            if why:
                bad += 1
                print("MISSING %s %s %s %s %s: %s" % (r["key"], r["plugin"], tag, r["file"], why, r["literal"]))
    print("check: %d rows, %d checks, %d failed%s" % (len(rows), checks, bad,
          ", skipped " + " ".join(skipped) if skipped else ""))
    if bad:
        return 1
    return 3 if len(skipped) == len(tags) else 0


def vkey(t):
    return tuple(int(x) for x in re.findall(r"\d+", t.split("@")[0]))


def minor(t):
    m = re.match(r"v?(\d+)\.(\d+)", t)
    return "%s.%s" % m.groups()


def expand(versions, tags):
    """The releases of tags that a versions column such as 1.0-1.5,1.7 lists
    (ranges are over consecutive releases of the plugin)."""
    order = [minor(t) for t in tags]
    want = set()
    for part in versions.split(","):
        lo, _, hi = part.partition("-")
        i, j = order.index(lo), order.index(hi or lo)
        want.update(range(i, j + 1))
    return [tags[i] for i in sorted(want)]


if __name__ == "__main__":
    sys.exit(main())
