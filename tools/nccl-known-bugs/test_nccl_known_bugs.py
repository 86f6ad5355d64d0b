#!/usr/bin/env python3
"""Tests of the known-bug catalog: the release-note parser (extract.py), the
classification (classify.py), the generated C table (gen_c.py) and the
independent checker (check.py).

The parser and classification tests need nothing; the consistency tests read
the committed notes.tsv / keys.tsv / classified.tsv / src/kb/nccl_known_bugs_gen.def;
the source tests run check.py and a re-extraction against the NCCL mirror and
are skipped when it is absent (NCCL_MIRROR, default /work/.mirror/NVIDIA+nccl/repo).
Run: python3 tools/nccl-known-bugs/test_nccl_known_bugs.py
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
import extract  # noqa: E402
import gen_c  # noqa: E402

LINE_MODE = """2.18.3-1

Fix data corruption with Tree/LL128 on systems with 1GPU:1NIC.
Fix hang with Collnet on bfloat16 on systems with less than one NIC
per GPU.
Fix PXN operation when CUDA_VISIBLE_DEVICES is set.
Add a thing with
NCCL_FOO set.

Signed-off-by: Someone <a@b.c>
"""

PARA_MODE = """NCCL 2.26.3-1

Minimize the overheads of the profiler.

Fix the exchange of enhanced connection establishment (ECE) options to
address potential slowdowns on networks utilizing RoCE.

Test if cuMem host allocations work, not available under
Docker. We recommend it.

Profiler improvements
 * Fix the logic on proxyCtrl Idle/Active events (Issue #1162).
 * Fix an issue where the network proxy profiler could lose track of an
   event identifier (Issue #1682).

Work around a potential hang in alltoall-like communication patterns on
MNNVL systems at a scale of over 80 ranks.
"""


class Parser(unittest.TestCase):
    def test_line_mode_joins_wrapped_lines(self):
        items = extract.items(LINE_MODE)
        texts = [t for _, t, _ in items]
        self.assertIn("Fix hang with Collnet on bfloat16 on systems with less than one NIC per GPU.", texts)
        self.assertIn("Add a thing with NCCL_FOO set.", texts)
        self.assertEqual([n for n, t, _ in items if t.startswith("Fix PXN")], [6])
        self.assertFalse(any("Signed-off-by" in t for t in texts))

    def test_paragraph_mode_and_bullets(self):
        items = {t: n for n, t, _ in extract.items(PARA_MODE)}
        self.assertIn("Test if cuMem host allocations work, not available under Docker. We recommend it.", items)
        self.assertEqual(items["Fix an issue where the network proxy profiler could lose track of an "
                               "event identifier (Issue #1682)."], 13)
        self.assertEqual(items["Fix the logic on proxyCtrl Idle/Active events (Issue #1162)."], 12)
        self.assertIn("Work around a potential hang in alltoall-like communication patterns on MNNVL systems at a "
                      "scale of over 80 ranks.", items)

    def test_introduced(self):
        self.assertEqual(extract.introduced_in("Fix a regression introduced in 2.19.3.", "2.20.3"), "2.19.3")
        self.assertEqual(extract.introduced_in("Fix failures when statically linked with NCCL-2.28.3 because",
                                               "2.28.7"), "2.28.3")
        self.assertEqual(extract.introduced_in("Fix hang during A2A connection.", "2.20.3"), "before")
        self.assertEqual(extract.introduced_in("Fix a regression introduced in 2.21.", "2.20.3"), "before")

    def test_key(self):
        self.assertEqual(len(extract.key_of("2.18.3", "x")), 12)
        self.assertNotEqual(extract.key_of("2.18.3", "x"), extract.key_of("2.18.5", "x"))


class Classification(unittest.TestCase):
    def setUp(self):
        self.rules = classify.load_rules(os.path.join(HERE, "keys.tsv"))

    def cls(self, note, kind="fix"):
        c, eff, keys, wa, _ = classify.classify_row({"note": note, "kind": kind}, self.rules)
        return c, eff, keys, wa

    def test_symptom_keys(self):
        c, eff, keys, _ = self.cls("Fix crash when shared memory creation fails.")
        self.assertEqual(c, "driver_or_kernel_bug")
        self.assertIn("crash", eff)
        self.assertEqual(keys, ["shm"])
        c, eff, keys, _ = self.cls("Fix hang with Collnet on bfloat16 on systems with less than one NIC per GPU.")
        self.assertEqual((eff, sorted(keys)), (["hang"], ["bfloat16", "collnet"]))

    def test_no_log_symptom(self):
        self.assertEqual(self.cls("Fix performance of alltoall at scale with more than one NIC per GPU.")[0], "-")
        self.assertEqual(self.cls("Fix memory leaks.")[0], "-")
        # a leak that crashes is a log symptom
        self.assertEqual(self.cls("Fixes multicast object leaks in case of failed NVLS user buffer registrations, "
                                  "which could lead to crashes.")[0], "driver_or_kernel_bug")

    def test_workaround_variable(self):
        self.assertEqual(self.cls("Work around a hang; set NCCL_FOO_ENABLE=0 to avoid it.", "workaround")[3],
                         "NCCL_FOO_ENABLE=0")
        self.assertEqual(self.cls("Fix P2C; use NCCL_PXN_C2C=1 to enable.")[3], "-")


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l and not l.startswith("#")]
    return [l.split("\t") for l in lines[1:]]


DEF_ROW = re.compile(r'^NKB\("([0-9a-f]{12})", "([0-9.]+)", "([0-9.]+|before)", "([^"]*)", "([0-9a-f]{40})", (\d+), '
                     r'(NKB_FIX|NKB_WORKAROUND|NKB_KNOWN_ISSUE), "([a-z_]+|-)", ([A-Z_|0-9]+), ([A-Z_|0-9]+), '
                     r'"([^"]*)", "((?:\\.|[^"\\])*)"\)$')


def def_rows():
    rows = []
    with open(gen_c.OUT, encoding="utf-8") as f:
        for line in f:
            if line.startswith("NKB("):
                m = DEF_ROW.match(line.rstrip("\n"))
                if not m:
                    raise AssertionError("unreadable row of nccl_known_bugs_gen.def: " + line)
                rows.append(m.groups())
    return rows


class Committed(unittest.TestCase):
    def test_notes_rows_well_formed(self):
        rows = read("notes.tsv")
        self.assertGreater(len(rows), 100)
        keys = set()
        for r in rows:
            self.assertEqual(len(r), len(extract.COLUMNS), r)
            self.assertEqual(r[0], extract.key_of(r[1], r[7]))
            self.assertNotIn(r[0], keys)
            keys.add(r[0])
            self.assertRegex(r[2], r"^(before|2\.\d+(\.\d+)?)$")
            self.assertRegex(r[4], r"^[0-9a-f]{40}$")
            self.assertIn(r[6], ("fix", "workaround", "known_issue"))

    def test_classification_is_current(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "classified.tsv")
            p = subprocess.run([sys.executable, os.path.join(HERE, "classify.py"), "--out", out, "-q"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            with open(out, encoding="utf-8") as f, open(os.path.join(HERE, "classified.tsv"), encoding="utf-8") as g:
                self.assertEqual(f.read(), g.read(), "classified.tsv is stale: run classify.py")

    def test_known_rows(self):
        by_note = {r[11]: r for r in read("classified.tsv")}
        r = by_note["Fix crash when shared memory creation fails."]
        self.assertEqual((r[1], r[2], r[3], r[5], r[7], r[8], r[9]),
                         ("2.18.3", "before", "v2.18.3-1", "9", "driver_or_kernel_bug", "crash,init,error", "shm"))
        self.assertEqual(by_note["Fix hang during A2A connection."][1], "2.20.3")

    def test_generated_file_is_current(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "gen_c.py"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stdout)

    def test_check_detects_a_stale_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".def", delete=False) as f:
            f.write(gen_c.generate(os.path.join(HERE, "classified.tsv"), os.path.join(HERE, "keys.tsv"))[0]
                    .replace('"2.18.3"', '"2.18.4"', 1))
            name = f.name
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "gen_c.py"), "--check", "--out", name],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        finally:
            os.unlink(name)
        self.assertEqual(p.returncode, 1)

    def test_def_rows_are_the_tables_rows(self):
        rows = def_rows()
        cl = read("classified.tsv")
        self.assertEqual(len(rows), len(cl))
        kinds = {"NKB_FIX": "fix", "NKB_WORKAROUND": "workaround", "NKB_KNOWN_ISSUE": "known_issue"}
        for d, c in zip(rows, cl):
            key, fixed, intro, tag, commit, line, kind, cls, eff, keys, wa, note = d
            self.assertEqual((key, fixed, intro, tag, commit, line, kinds[kind], cls), tuple(c[:8]))
            self.assertEqual(eff, gen_c.mask("NKB_E_", c[8]))
            self.assertEqual(keys, gen_c.mask("NKB_K_", c[9]))
            self.assertEqual(note.replace("\\?", "?").replace('\\"', '"'), c[11])


@unittest.skipUnless(os.path.isdir(check.DEFAULT_MIRROR), "no NCCL mirror at " + check.DEFAULT_MIRROR)
class Source(unittest.TestCase):
    def test_every_row_in_its_release_commit(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "check.py")], stdout=subprocess.PIPE,
                           universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])

    def test_checker_rejects_wrong_rows(self):
        rows = read("notes.tsv")
        r = [x for x in rows if x[7] == "Fix crash when shared memory creation fails."][0]
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write("\t".join(check.COLUMNS) + "\n")
            f.write("\t".join(r[:5] + ["10"] + r[6:]) + "\n")                        # wrong line
            f.write("\t".join(r[:1] + ["2.18.5"] + r[2:]) + "\n")                    # wrong release
            f.write("\t".join(r[:2] + ["2.18.1"] + r[3:]) + "\n")                    # introduced not in the note
            f.write("\t".join(r[:7] + ["Fix crash when shared memory creation works."]) + "\n")
            name = f.name
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "check.py"), "--tsv", name],
                               stdout=subprocess.PIPE, universal_newlines=True)
        finally:
            os.unlink(name)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("4 failed", p.stdout)

    def test_extraction_is_reproducible(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "notes.tsv")
            subprocess.run([sys.executable, os.path.join(HERE, "extract.py"), "--out", out],
                           stdout=subprocess.PIPE, check=True)
            with open(out, encoding="utf-8") as f, open(os.path.join(HERE, "notes.tsv"), encoding="utf-8") as g:
                self.assertEqual(f.read(), g.read(), "notes.tsv differs from a fresh extraction")


if __name__ == "__main__":
    unittest.main()
