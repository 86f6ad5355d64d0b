#!/usr/bin/env python3
"""Tests of the NCCL failure-message extraction (extract.py), its independent
checker (check.py) and the classification (classify.py).

The parser tests need nothing; the consistency tests read the committed
warns.tsv / classes.tsv / classified.tsv; the source test runs check.py
against the NCCL mirror and is skipped when the mirror is absent
(NCCL_MIRROR, default /work/.mirror/NVIDIA+nccl/repo).
Run: python3 tools/nccl-warns/test_nccl_warns.py
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402
import classify  # noqa: E402
import gen_c  # noqa: E402
import extract  # noqa: E402

SAMPLE = r'''
/* WARN("in a comment") is not a call */
#define WARN(...) ncclDebugLog(NCCL_LOG_WARN, __VA_ARGS__)
#define SYSCHECK(call, name) do { \
    if ((call) == -1) { WARN("Call to " name " failed : %s", strerror(errno)); } \
  } while (0)
#define NVMLCHECK(name, ...) WARN(#name "() failed: %s", err)
static const char* raceMsg = "Fatal: host threads racing.";
void f() {
  WARN("Bootstrap : no socket interface found");
  WARN("busId %" PRIx64 " rank %d"
       " of %d", id, r, n);
  WARN("peer %s message truncated, \
          there may be a mismatch", a);
  INFO(NCCL_INIT, "%s:%d -> %d", __FILE__, __LINE__, res);
  INFO(NCCL_ALL, "-> %d (%s)", ncclSystemError, strerror(errno));
  INFO(NCCL_INIT|NCCL_NET, "NET/IB : Using %s", name);
  INFO(NCCL_NET, "Call to connect returned %s, retrying", strerror(errno));
  INFO_LOC_FN(NCCL_ALLOC, file, line, fn, "Cuda failure %d '%s'", e, s);
  WARN("%s", raceMsg);
  char c = '"'; WARN("after a quote char: %c", c);
  WARN("escaped \"%s\" quotes", s);
  obj.WARN("not a call of the macro");
}
'''


class Parser(unittest.TestCase):
    def setUp(self):
        self.found, self.nonlit = extract.extract_file(SAMPLE)
        self.lits = [l for _, l in self.found]

    def test_plain_and_comment(self):
        self.assertIn("Bootstrap : no socket interface found", self.lits)
        self.assertNotIn("in a comment", self.lits)
        self.assertNotIn("not a call of the macro", self.lits)

    def test_adjacent_literals_and_pri_macros(self):
        self.assertIn("busId %lx rank %d of %d", self.lits)

    def test_line_splice_inside_string(self):
        self.assertIn("peer %s message truncated,           there may be a mismatch", self.lits)

    def test_macro_parameters(self):
        self.assertIn("Call to {{name}} failed : %s", self.lits)
        self.assertIn("{{name}}() failed: %s", self.lits)

    def test_info_filter(self):
        info = [l for k, l in self.found if k == "INFO"]
        self.assertEqual(sorted(info), ["Call to connect returned %s, retrying", "Cuda failure %d '%s'"])

    def test_string_constant_and_quotes(self):
        self.assertIn("Fatal: host threads racing.", self.lits)
        self.assertIn("after a quote char: %c", self.lits)
        self.assertIn(r'escaped \"%s\" quotes', self.lits)

    def test_every_call_accounted(self):
        warns = [l for k, l in self.found if k == "WARN"]
        self.assertEqual(len(warns), 8)
        self.assertEqual(self.nonlit, [])

    def test_checker_agrees_on_sample(self):
        text = check.normalize(SAMPLE)
        for kind, lit in self.found:
            if lit == "Fatal: host threads racing.":
                continue  # checked through the constant, see check.found
            self.assertTrue(check.call_regex(kind, lit).search(text), lit)
        self.assertFalse(check.call_regex("WARN", "in a comment").search(text))

    def test_ranges_and_keys(self):
        self.assertEqual(extract.ranges([4, 5, 6, 9, 12, 13]), "2.4-2.6,2.9,2.12-2.13")
        self.assertNotEqual(extract.key_of("x", "a.cc", "WARN"), extract.key_of("x", "a.cc", "INFO"))
        self.assertEqual(len(extract.key_of("x", "a.cc", "WARN")), 12)


class Committed(unittest.TestCase):
    def read(self, name):
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            return [l.split("\t") for l in f.read().split("\n")[1:] if l]

    def test_warns_rows_well_formed(self):
        rows = self.read("warns.tsv")
        self.assertGreater(len(rows), 1000)
        keys = set()
        for r in rows:
            self.assertEqual(len(r), 7, r)
            self.assertIn(r[4], ("WARN", "INFO"))
            self.assertEqual(r[5], extract.key_of(r[0], r[1], r[4]))
            self.assertNotIn(r[5], keys)
            keys.add(r[5])

    def test_classification_is_current_and_complete(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "classified.tsv")
            p = subprocess.run([sys.executable, os.path.join(HERE, "classify.py"), "--out", out],
                               stdout=subprocess.PIPE, universal_newlines=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            with open(out, encoding="utf-8") as f, \
                    open(os.path.join(HERE, "classified.tsv"), encoding="utf-8") as g:
                self.assertEqual(f.read(), g.read(), "classified.tsv is stale: run classify.py")
        classes = {r[0]: r[1] for r in self.read("classified.tsv")}
        self.assertEqual(set(classes), {r[5] for r in self.read("warns.tsv")})
        self.assertTrue(set(classes.values()) <= set(classify.CLASSES))

    def test_known_classes(self):
        by_lit = {(r[8], r[5]): r[1] for r in self.read("classified.tsv")}
        self.assertEqual(by_lit[("Bootstrap : no socket interface found", "bootstrap.cc")], "bootstrap_network")
        self.assertEqual(by_lit[("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx",
                                 "init.cc")], "duplicate_gpu_or_device_mapping")
        self.assertEqual(by_lit[("Error: failed to extend %s to %ld bytes, error: %s (%d)",
                                 "misc/shmutils.cc")], "shm_too_small")
        self.assertEqual(by_lit[("Cuda failure '%s'", "include/checks.h")], "context")


DEF_ROW = re.compile(r'^NW\((NW_WARN|NW_INFO), "([0-9a-f]{12})", "([^"]*)", "([^"]*)", "([a-z0-9_]+)", '
                     r'"((?:\\.|[^"\\])*)", "((?:\\.|[^"\\])*)", (\d+)\)$')


def def_rows():
    """The rows of the generated src/kb/nccl_warns_gen.def, read back from its C text."""
    rows = []
    with open(gen_c.OUT, encoding="utf-8") as f:
        for line in f:
            if line.startswith("NW("):
                m = DEF_ROW.match(line.rstrip("\n"))
                if not m:
                    raise AssertionError("unreadable row of nccl_warns_gen.def: " + line)
                rows.append(m.groups())
    return rows


class Generated(unittest.TestCase):
    """src/kb/nccl_warns_gen.def: the fallback table of `logs`."""

    def test_committed_file_is_the_generators_output(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "gen_c.py"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stdout)

    def test_check_detects_a_stale_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".def", delete=False) as f:
            f.write(gen_c.generate(os.path.join(HERE, "classified.tsv"), os.path.join(HERE, "warns.tsv"))[0]
                    .replace("NW_WARN", "NW_INFO", 1))
            name = f.name
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "gen_c.py"), "--check", "--out", name],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        finally:
            os.unlink(name)
        self.assertEqual(p.returncode, 1)

    def test_rows_are_the_tables_rows(self):
        warns = {(r[5].split("\t")[0], r[4]): r for r in Committed.read(self, "warns.tsv")}
        classes = {(r[0], r[4]): r[1] for r in Committed.read(self, "classified.tsv")}
        rows = def_rows()
        self.assertEqual(len(rows), len(warns))
        for kind, key, file, versions, cls, fmt, pat, fixed in rows:
            k = (key, "WARN" if kind == "NW_WARN" else "INFO")
            w = warns[k]
            self.assertEqual((fmt.replace("\\?", "?"), file, versions), (w[0], w[1], w[6]), key)
            self.assertEqual(cls, classes[k], key)
            self.assertEqual(int(fixed), len(pat.replace("\\001", "").replace("\\?", "?")
                                              .encode().decode("unicode_escape").encode("latin-1")), key)

    def test_patterns(self):
        self.assertEqual(gen_c.pattern("busId %lx rank %d of %d\\n"), "busId \x01 rank \x01 of \x01")
        self.assertEqual(gen_c.pattern("Call to {{name}} failed : %s"), "Call to \x01 failed : \x01")
        self.assertEqual(gen_c.pattern("%s:%d %s"), "\x01:\x01 \x01")
        self.assertEqual(gen_c.pattern(r'100%% of %zu, \"q\" %5.2f%-8s'), '100% of \x01, "q" \x01')
        self.assertEqual(gen_c.c_string("a\x01?\"\\"), '"a\\001\\?\\"\\\\"')


@unittest.skipUnless(os.path.isdir(check.DEFAULT_MIRROR), "no NCCL mirror at " + check.DEFAULT_MIRROR)
class Source(unittest.TestCase):
    def test_every_literal_in_its_first_and_last_release(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "check.py")],
                           stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])

    def test_generated_table_in_every_release_it_names(self):
        """Each row of the generated C table, read back from its text: its
        literal is a call's format in its file in every release its
        versions column names (check.py --all)."""
        warns = {(r[5].split("\t")[0], r[4]): r for r in Committed.read(self, "warns.tsv")}
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write("\t".join(check.COLUMNS) + "\n")
            for kind, key, file, versions, cls, fmt, pat, fixed in def_rows():
                k = "WARN" if kind == "NW_WARN" else "INFO"
                w = warns[(key, k)]
                f.write("\t".join([fmt.replace("\\?", "?"), file, w[2], w[3], k, w[5], versions]) + "\n")
            name = f.name
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "check.py"), "--all", "--tsv", name],
                               stdout=subprocess.PIPE, universal_newlines=True)
        finally:
            os.unlink(name)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])

    def test_checker_rejects_a_wrong_literal(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write("\t".join(check.COLUMNS) + "\n")
            f.write("Bootstrap : no socket interface found, or is it\tbootstrap.cc\tv2.4.8-1\tv2.4.8-1"
                    "\tWARN\t000000000000\t2.4\n")
            f.write("Bootstrap : no socket interface found\tbootstrap.cc\tv2.4.8-1\tv2.4.8-1"
                    "\tINFO\t000000000001\t2.4\n")
            name = f.name
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "check.py"), "--tsv", name],
                               stdout=subprocess.PIPE, universal_newlines=True)
        finally:
            os.unlink(name)
        self.assertEqual(p.returncode, 1)
        self.assertIn("2 failed", p.stdout)

    def test_extraction_is_reproducible(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "warns.tsv")
            subprocess.run([sys.executable, os.path.join(HERE, "extract.py"), "--out", out],
                           stdout=subprocess.PIPE, check=True)
            with open(out, encoding="utf-8") as f, open(os.path.join(HERE, "warns.tsv"), encoding="utf-8") as g:
                self.assertEqual(f.read(), g.read(), "warns.tsv differs from a fresh extraction")


if __name__ == "__main__":
    unittest.main()
