#!/usr/bin/env python3
"""A strict reader of Prometheus' text exposition format (version 0.0.4), for
the --prom output of nccl-doctor (tests/cli/t125-prom.sh): prints one line
per fault and exits 1 when there is one.

  promcheck.py FILE...          check the files as node_exporter's textfile
                                collector joins them (one directory)
  promcheck.py --each FILE...   check each file alone (files of different hosts)
  promcheck.py --dump FILE...   also print "name{labels} value" per sample,
                                labels sorted, escapes undone (for greps)
  promcheck.py --self-test      check that the reader refuses what it must
                                (before the files, when files are given)

Follows the format's specification: metric and label names and their
characters, label values quoted with only \\\\, \\" and \\n escaped, HELP with
\\\\ and \\n, a TYPE of the known five, HELP and TYPE at most once per family
and before its samples, one group of lines per family, values as Go's
ParseFloat reads them, no duplicate series. Stricter where the textfile
collector and this project ask it: no time stamps, no NaN, every family with
HELP and TYPE, names prefixed nccl_doctor_, no unit but base units
(_seconds, _bytes, _bytes_per_second ...), the same HELP and TYPE for a
family in every file, and no series twice across the files.
"""
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|Inf|NaN)$")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
# units that are not base units (Prometheus' naming practices)
BAD_UNITS = re.compile(r"_(?:gbs|mbps|gbps|us|ms|usec|msec|kb|mb|gb|kib|mib|gib|gts|minutes|hours|percent)(?:_|$)")


def parse_labels(s, i, where, faults):
    """Labels from s[i] == '{' to the closing '}'; returns (dict, index after)."""
    labels = {}
    i += 1
    while True:
        if i < len(s) and s[i] == "}":
            return labels, i + 1
        m = LABEL.match(s, i)
        if not m:
            faults.append("%s: a label name expected at column %d" % (where, i + 1))
            return None, i
        name = m.group(0)
        if name.startswith("__"):
            faults.append("%s: label name '%s' is reserved" % (where, name))
        i = m.end()
        if s[i:i + 2] != '="':
            faults.append("%s: '=\"' expected after label '%s'" % (where, name))
            return None, i
        i += 2
        val = []
        while True:
            if i >= len(s):
                faults.append("%s: label '%s': unterminated value" % (where, name))
                return None, i
            c = s[i]
            if c == "\\":
                e = s[i + 1:i + 2]
                if e not in ("\\", '"', "n"):
                    faults.append("%s: label '%s': bad escape '\\%s'" % (where, name, e))
                    return None, i
                val.append("\n" if e == "n" else e)
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                faults.append("%s: label '%s': raw newline" % (where, name))
                return None, i
            else:
                val.append(c)
                i += 1
        if name in labels:
            faults.append("%s: label '%s' twice" % (where, name))
        labels[name] = "".join(val)
        if i < len(s) and s[i] == ",":
            i += 1
        elif i < len(s) and s[i] != "}":
            faults.append("%s: ',' or '}' expected at column %d" % (where, i + 1))
            return None, i


def unescape_help(text, where, faults):
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            e = text[i + 1:i + 2]
            if e not in ("\\", "n"):
                faults.append("%s: HELP: bad escape '\\%s'" % (where, e))
                return text
            out.append("\n" if e == "n" else "\\")
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


class Families:
    """What every file said of each family, shared by the files of one
    directory (node_exporter's textfile collector joins them)."""

    def __init__(self):
        self.help, self.type, self.series = {}, {}, {}


def check_text(text, fname, fam, faults, samples):
    if text and not text.endswith("\n"):
        faults.append("%s: the last line has no newline" % fname)
    done = set()  # families whose group of lines has ended in this file
    cur = None
    helps, types, seen = {}, {}, set()
    for n, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1):
        where = "%s:%d" % (fname, n)
        if line.strip() == "":
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                rest = parts[3] if len(parts) > 3 else ""
                if not NAME.fullmatch(name):
                    faults.append("%s: bad metric name '%s'" % (where, name))
                    continue
                if name != cur:
                    if cur is not None:
                        done.add(cur)
                    if name in done:
                        faults.append("%s: %s of '%s' after its group ended" % (where, parts[1], name))
                    cur = name
                if name in seen:
                    faults.append("%s: %s of '%s' after its samples" % (where, parts[1], name))
                table = helps if parts[1] == "HELP" else types
                if name in table:
                    faults.append("%s: a second %s for '%s'" % (where, parts[1], name))
                if parts[1] == "HELP":
                    table[name] = unescape_help(rest, where, faults)
                else:
                    if rest not in TYPES:
                        faults.append("%s: unknown TYPE '%s'" % (where, rest))
                    table[name] = rest
            continue  # other comments are allowed
        m = NAME.match(line)
        if not m:
            faults.append("%s: a metric name expected" % where)
            continue
        name, i = m.group(0), m.end()
        labels = {}
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i, where, faults)
            if labels is None:
                continue
        tail = line[i:]
        if not tail.startswith(" "):
            faults.append("%s: a space expected before the value" % where)
            continue
        fields = tail.split(" ")[1:]
        if len(fields) == 2:
            faults.append("%s: a time stamp (the textfile collector refuses them)" % where)
            continue
        if len(fields) != 1 or not FLOAT.match(fields[0]):
            faults.append("%s: bad value '%s'" % (where, tail.strip()))
            continue
        if "NaN" in fields[0]:
            faults.append("%s: NaN (an unknown value is no sample)" % where)
        if name != cur:
            if cur is not None:
                done.add(cur)
            if name in done:
                faults.append("%s: '%s' is split in more than one group" % (where, name))
            cur = name
        seen.add(name)
        if name not in helps or name not in types:
            faults.append("%s: '%s' has no %s before it" % (where, name, "HELP" if name not in helps else "TYPE"))
        key = (name, tuple(sorted(labels.items())))
        if key in fam.series:
            faults.append("%s: series %s%s twice (also %s)" % (where, name, dict(key[1]), fam.series[key]))
        fam.series[key] = where
        if not name.startswith("nccl_doctor_"):
            faults.append("%s: '%s' lacks the nccl_doctor_ prefix" % (where, name))
        if BAD_UNITS.search(name):
            faults.append("%s: '%s' has a unit that is not a base unit" % (where, name))
        samples.append((name, labels, float(fields[0])))
    for name in set(helps) | set(types):
        if name not in seen:
            continue
        for table, known, what in ((helps, fam.help, "HELP"), (types, fam.type, "TYPE")):
            if name in table and name in known and known[name][0] != table[name]:
                faults.append("%s: '%s' has another %s than in %s" % (fname, name, what, known[name][1]))
            if name in table:
                known.setdefault(name, (table[name], fname))


def check_files(paths, dump):
    faults, fam = [], Families()
    for p in paths:
        with open(p, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            faults.append("%s: not UTF-8: %s" % (p, e))
            continue
        samples = []
        check_text(text, p, fam, faults, samples)
        if dump:
            for name, labels, v in samples:
                lab = ",".join('%s="%s"' % (k, labels[k]) for k in sorted(labels))
                print("%s{%s} %r" % (name, lab, v))
        if not samples:
            faults.append("%s: no sample" % p)
    return faults


BAD = [
    ("duplicate series", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a{b=\"1\"} 1\nnccl_doctor_a{b=\"1\"} 2\n"),
    ("HELP after samples", "# TYPE nccl_doctor_a gauge\nnccl_doctor_a 1\n# HELP nccl_doctor_a x\n"),
    ("split group", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a{b=\"1\"} 1\n"
     "# HELP nccl_doctor_c x\n# TYPE nccl_doctor_c gauge\nnccl_doctor_c 1\nnccl_doctor_a{b=\"2\"} 1\n"),
    ("bad escape", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a{b=\"\\t\"} 1\n"),
    ("time stamp", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a 1 1700000000000\n"),
    ("no TYPE", "# HELP nccl_doctor_a x\nnccl_doctor_a 1\n"),
    ("NaN", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a NaN\n"),
    ("no prefix", "# HELP a x\n# TYPE a gauge\na 1\n"),
    ("unit", "# HELP nccl_doctor_bw_gbs x\n# TYPE nccl_doctor_bw_gbs gauge\nnccl_doctor_bw_gbs 1\n"),
    ("bad name", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a{1b=\"1\"} 1\n"),
    ("unquoted", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a{b=1} 1\n"),
    ("no newline", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a 1"),
    ("label twice", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a{b=\"1\",b=\"2\"} 1\n"),
    ("bad type", "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a meter\nnccl_doctor_a 1\n"),
]
GOOD = ("# HELP nccl_doctor_a x \\\\ y\\n\n# TYPE nccl_doctor_a gauge\n"
        "nccl_doctor_a{b=\"q\\\"\\\\\\n\",c=\"\"} -1.5e+09\nnccl_doctor_a{b=\"2\",} +Inf\n")


def self_test():
    bad = 0
    for what, text in BAD:
        faults = []
        check_text(text, what, Families(), faults, [])
        if not faults:
            print("self-test: accepted %s" % what)
            bad += 1
    faults, samples = [], []
    check_text(GOOD, "good", Families(), faults, samples)
    if faults or samples[0][1]["b"] != 'q"\\\n':
        print("self-test: refused or misread a good text: %s %s" % (faults, samples))
        bad += 1
    # two files of one directory with one series each: joined, the same series twice
    fam, faults = Families(), []
    one = "# HELP nccl_doctor_a x\n# TYPE nccl_doctor_a gauge\nnccl_doctor_a{b=\"1\"} 1\n"
    check_text(one, "f1", fam, faults, [])
    check_text(one.replace("HELP nccl_doctor_a x", "HELP nccl_doctor_a y"), "f2", fam, faults, [])
    if len(faults) != 2:
        print("self-test: two files: %s" % faults)
        bad += 1
    return bad


def main(argv):
    flags = ("--dump", "--each", "--self-test")
    dump, each = "--dump" in argv, "--each" in argv
    paths = [a for a in argv[1:] if a not in flags]
    faults = []
    if "--self-test" in argv and self_test():
        faults.append("the self-test failed")
    elif not paths and "--self-test" not in argv:
        print(__doc__)
        return 2
    for group in ([p] for p in paths) if each else [paths]:
        faults += check_files(group, dump)
    for f in faults:
        print(f)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
