#!/usr/bin/env python3
"""Extract NCCL's failure messages from NCCL's own source, per release.

For the last patch tag of every NCCL minor release from 2.4 to the newest in a
bare git mirror of NVIDIA/nccl, read every C/C++/CUDA file under src/, find
each WARN(...) call and each INFO(...) / INFO_LOC(...) / INFO_LOC_FN(...) call
whose format carries a failure, and take its format string (adjacent string
literals joined, printf conversions kept, C escapes kept as written).
Identical (literal, file, kind) triples are collapsed across versions into one row
with the first and last version that has them.

Output (deterministic): warns.tsv next to this script, columns
  literal  file  first_version  last_version  kind  key  versions
  - literal: the format as written in C (escapes such as \\n kept, so the
    text can be pasted into a C string literal); "%" PRIx64 style macros are
    resolved for LP64 Linux (PRIx64 -> lx); any other identifier spliced
    between literals (a macro parameter such as `name`) is written {{name}}
  - file: path under src/ (NCCL's own __FILE__ spelling in the WARN prefix)
  - first_version / last_version: release tags, e.g. v2.4.8-1
  - kind: WARN or INFO
  - key: first 12 hex digits of sha1(literal TAB file), with TAB INFO
    appended for INFO rows (one literal can be a WARN in some releases and
    an INFO in others: that gives two rows)
  - versions: the minor releases that have the row, as ranges (2.4-2.9,2.12)
    -- there are gaps when a literal was removed and came back

Usage: extract.py [--mirror DIR] [--out FILE] [--stats] [--ref BRANCH]...
--ref adds a pre-release branch (e.g. dev) as a last version labelled
2.MINOR.PATCHSUFFIX@commit; the committed warns.tsv is made without it.
The mirror defaults to $NCCL_MIRROR or /work/.mirror/NVIDIA+nccl/repo.
Python 3 standard library only.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MIRROR = os.environ.get("NCCL_MIRROR", "/work/.mirror/NVIDIA+nccl/repo")
MIN_MINOR = 4
SOURCE_EXT = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp")

# <inttypes.h> macros as glibc defines them on LP64 (x86_64, aarch64).
PRI_MACROS = {}
for _c in "diouxX":
    PRI_MACROS["PRI%s64" % _c] = "l" + _c
    PRI_MACROS["PRI%s32" % _c] = _c
    PRI_MACROS["PRI%s16" % _c] = _c
    PRI_MACROS["PRI%s8" % _c] = _c
    PRI_MACROS["PRI%sPTR" % _c] = "l" + _c
    PRI_MACROS["PRI%sMAX" % _c] = "l" + _c

# Which argument is the format, per logging macro.
LOG_MACROS = {"WARN": 0, "INFO": 1, "INFO_LOC": 1, "INFO_LOC_FN": 4}

# An INFO line is kept when its format says something failed.
INFO_FAILURE = re.compile(
    r"fail|error|\berr\b|timeout|timed out|time out|abort|unable|cannot|can't|could not|couldn't|"
    r"not supported|unsupported|invalid|mismatch|refused|exceed|fatal|retry|retrying|"
    r"closed|reset by|broken|\blost\b|no such|not found|not available|unavailable|denied|"
    r"not permitted|out of memory|disabled because|falling back|fall back|giving up|"
    r"unexpected|illegal|corrupt|\bhang|stuck|panic|revok|"
    # weaker words, for the INFO lines that report a degraded or ignored set-up
    r"disabled|disabling|\bwrong\b|didn't|did not|not open|count not open|no plugin found|"
    r"no device found|not valid|not a valid|no valid|too low|too high|too big|too small|"
    r"unsafe|not visible|not sufficient|deprecated|is unused|\bunknown\b|hint:|ignoring|"
    r"\bskipping\b|requires driver|not a pci device|using the default|does not match|limiting|"
    r"cap it to|missing data|no longer current|will not be",
    re.IGNORECASE)
# The generic error back-trace lines ("%s:%d -> %d", "-> %d (%s)") say
# nothing by themselves: the WARN before them does.
BACKTRACE = re.compile(r"^(%s:%d(\s*\(%s\))?\s*)?->\s*%d")

TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)")
  | (?P<str>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  | (?P<chr>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[eEpP][+-]|[\w.'])*)
  | (?P<punct>->|::|\.\.\.|[^\s])
""", re.VERBOSE | re.DOTALL)


def splice_lines(text):
    return text.replace("\\\r\n", "").replace("\\\n", "")


def tokenize(text):
    """C/C++ tokens as (kind, text), comments and white space dropped."""
    out = []
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        if kind == "delim":
            kind = "raw"
        out.append((kind, m.group(0)))
    return out


def split_args(tokens, i):
    """tokens[i] is '('. Return (list of argument token lists, index after ')')."""
    depth = 0
    args, cur = [], []
    n = len(tokens)
    while i < n:
        kind, text = tokens[i]
        if kind == "punct" and text in "([{":
            depth += 1
            if depth > 1:
                cur.append(tokens[i])
        elif kind == "punct" and text in ")]}":
            depth -= 1
            if depth == 0:
                args.append(cur)
                return args, i + 1
            cur.append(tokens[i])
        elif kind == "punct" and text == "," and depth == 1:
            args.append(cur)
            cur = []
        else:
            cur.append(tokens[i])
        i += 1
    return None, n


def string_body(tok):
    text = tok[1]
    q = text.index('"')
    return text[q + 1:-1]


def format_literal(arg):
    """Join a format argument made of string literals and identifiers.
    Returns the literal or None when the argument is not of that form."""
    if not arg or not any(k == "str" for k, _ in arg):
        return None
    parts = []
    stringize = False
    for kind, text in arg:
        if kind == "punct" and text == "#" and not stringize:
            stringize = True   # #param in a macro body: the argument's text
            continue
        if stringize and kind != "ident":
            return None
        if stringize:
            parts.append("{{%s}}" % text)
            stringize = False
        elif kind == "str":
            parts.append(string_body((kind, text)))
        elif kind == "ident":
            parts.append(PRI_MACROS.get(text, "{{%s}}" % text))
        else:
            return None
    return "".join(parts)


STRING_DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+"((?:\\.|[^"\\\n])*)"[ \t]*(?://.*|/\*.*)?$',
                           re.MULTILINE)


def string_defines(text):
    """Object-like macros defined as one string literal: NAME -> body."""
    return {m.group(1): m.group(2) for m in STRING_DEFINE.finditer(splice_lines(text))}


def resolve(literal, defines):
    """Replace {{NAME}} by the string NAME is #defined to in this release."""
    return re.sub(r"\{\{(\w+)\}\}", lambda m: defines.get(m.group(1), m.group(0)), literal)


def string_constant(toks, name):
    """The literal of `... name = "text";` in this file, or None."""
    for j in range(len(toks) - 3):
        if toks[j] == ("ident", name) and toks[j + 1][1] == "=" and toks[j + 2][0] == "str" \
                and toks[j + 3][1] == ";":
            return string_body(toks[j + 2])
    return None


def extract_file(text):
    """Yield (kind, literal) for each failure message in one source file.
    Also returns the count of calls whose format is not a literal."""
    # Translation phase 2: backslash-newline splices lines, also inside
    # string literals and macro definitions.
    toks = tokenize(splice_lines(text))
    found = []
    nonliteral = []
    for i, (kind, text_) in enumerate(toks):
        if kind != "ident" or text_ not in LOG_MACROS:
            continue
        if i > 0 and toks[i - 1][1] in (".", "->", "::", "define"):
            continue
        if i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        args, _ = split_args(toks, i + 1)
        fmt_index = LOG_MACROS[text_]
        if args is None or len(args) <= fmt_index:
            continue
        lit = format_literal(args[fmt_index])
        mkind = "WARN" if text_ == "WARN" else "INFO"
        if lit == "%s" and len(args) == fmt_index + 2 and len(args[fmt_index + 1]) == 1 \
                and args[fmt_index + 1][0][0] == "ident":
            # WARN("%s", name) where name is a string constant of this file
            const = string_constant(toks, args[fmt_index + 1][0][1])
            if const is not None:
                lit = const
        if lit is None:
            if mkind == "WARN":
                nonliteral.append(" ".join(t for _, t in args[fmt_index]))
            continue
        if mkind == "INFO":
            if BACKTRACE.search(lit) or not INFO_FAILURE.search(lit):
                continue
        found.append((mkind, lit))
    return found, nonliteral


def git(mirror, *args, data=None):
    return subprocess.run(["git", "--git-dir", mirror] + list(args), input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def release_tags(mirror):
    """The last patch tag of each minor release 2.MIN_MINOR..newest, oldest first."""
    best = {}
    for tag in git(mirror, "tag", "--list", "v2.*").decode().split():
        m = re.fullmatch(r"v2\.(\d+)\.(\d+)-(\d+)", tag)
        if not m:
            continue
        minor, patch, build = (int(x) for x in m.groups())
        if minor < MIN_MINOR:
            continue
        if minor not in best or (patch, build) > best[minor][0]:
            best[minor] = ((patch, build), tag)
    return [best[k][1] for k in sorted(best)]


def tag_files(mirror, tag):
    """(path under src/, blob id) of the source files of a tag."""
    out = git(mirror, "ls-tree", "-r", tag.split("@")[-1], "--", "src/").decode()
    files = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _, typ, blob = meta.split()
        if typ == "blob" and path.endswith(SOURCE_EXT):
            files.append((path[len("src/"):], blob))
    return files


def read_blobs(mirror, blobs):
    """Contents of many blobs in one git cat-file call."""
    proc = subprocess.Popen(["git", "--git-dir", mirror, "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out, _ = proc.communicate(("\n".join(blobs) + "\n").encode())
    res, pos = {}, 0
    for blob in blobs:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        size = int(header[2])
        res[blob] = out[nl + 1:nl + 1 + size].decode("utf-8", "replace")
        pos = nl + 1 + size + 1
    return res


def minor_of(tag):
    m = re.fullmatch(r"v2\.(\d+)\..*", tag) or re.fullmatch(r"2\.(\d+)\.[^@]*@[0-9a-f]+", tag)
    return int(m.group(1))


def prerelease(mirror, ref):
    """A branch as a version label 2.MINOR.PATCHSUFFIX@commit (from its
    makefiles/version.mk), so that the label stays valid when the branch moves."""
    sha = git(mirror, "rev-parse", "--verify", ref + "^{commit}").decode().strip()
    mk = git(mirror, "show", sha + ":makefiles/version.mk").decode()
    v = dict(re.findall(r"^(NCCL_\w+)\s*:=\s*(\S*)", mk, re.M))
    return "2.%s.%s%s@%s" % (v["NCCL_MINOR"], v["NCCL_PATCH"], v.get("NCCL_SUFFIX", ""), sha[:12])


def ranges(minors):
    out, start, prev = [], None, None
    for m in minors:
        if start is None:
            start = prev = m
        elif m == prev + 1:
            prev = m
        else:
            out.append((start, prev))
            start = prev = m
    if start is not None:
        out.append((start, prev))
    return ",".join("2.%d" % a if a == b else "2.%d-2.%d" % (a, b) for a, b in out)


def key_of(literal, path, kind):
    """Stable row key. The kind is hashed only for INFO rows, so that a WARN
    row's key is sha1(literal TAB file); a literal that NCCL logged as WARN in
    some releases and as INFO in others gets two rows with two keys."""
    text = literal + "\t" + path + ("\tINFO" if kind == "INFO" else "")
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR)
    ap.add_argument("--out", default=os.path.join(HERE, "warns.tsv"))
    ap.add_argument("--stats", action="store_true", help="print per-version counts")
    ap.add_argument("--ref", action="append", default=[],
                    help="also read this branch (a pre-release such as dev) after the releases")
    a = ap.parse_args()
    if not os.path.isdir(a.mirror):
        print("extract: no nccl mirror at %s" % a.mirror, file=sys.stderr)
        return 3
    tags = release_tags(a.mirror) + [prerelease(a.mirror, r) for r in a.ref]
    if not tags:
        print("extract: no v2.x release tags in %s" % a.mirror, file=sys.stderr)
        return 3
    cache = {}          # blob -> (found, nonliteral)
    rows = {}           # (literal, file) -> {"kind", "tags"}
    per_tag = []
    nonlit = {}
    for tag in tags:
        files = tag_files(a.mirror, tag)
        need = [b for _, b in files if b not in cache]
        for blob, text in read_blobs(a.mirror, sorted(set(need))).items() if need else []:
            cache[blob] = extract_file(text) + (string_defines(text),)
        defines = {}
        for path, blob in sorted(files):
            defines.update(cache[blob][2])
        counts = {"WARN": set(), "INFO": set()}
        for path, blob in files:
            found, nl, _ = cache[blob]
            for kind, lit in found:
                lit = resolve(lit, defines)
                r = rows.setdefault((lit, path, kind), [])
                if not r or r[-1] != tag:
                    r.append(tag)
                counts[kind].add((lit, path))
            for expr in nl:
                nonlit.setdefault((path, expr), []).append(tag)
        per_tag.append((tag, len(counts["WARN"]), len(counts["INFO"])))
    lines = ["literal\tfile\tfirst_version\tlast_version\tkind\tkey\tversions"]
    for (lit, path, kind), tl in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
        if "\t" in lit or "\n" in lit:
            raise SystemExit("extract: raw tab or newline in a literal of %s" % path)
        lines.append("\t".join([lit, path, tl[0], tl[-1], kind,
                                key_of(lit, path, kind), ranges([minor_of(t) for t in tl])]))
    keys = [l.split("\t")[5] for l in lines[1:]]
    if len(set(keys)) != len(keys):
        raise SystemExit("extract: key collision")
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    nw = sum(1 for l in lines[1:] if l.split("\t")[4] == "WARN")
    print("extract: %d rows (%d WARN, %d INFO) from %d releases %s..%s -> %s"
          % (len(lines) - 1, nw, len(lines) - 1 - nw, len(tags), tags[0], tags[-1], a.out))
    if a.stats:
        print("tag\tWARN\tINFO")
        for t, w, i in per_tag:
            print("%s\t%d\t%d" % (t, w, i))
        print("WARN calls whose format is not a literal (file, expression, releases):")
        for (path, expr), ts in sorted(nonlit.items()):
            print("  %s\t%s\t%s" % (path, expr, ranges(sorted(set(minor_of(t) for t in ts)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
