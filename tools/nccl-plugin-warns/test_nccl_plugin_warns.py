#!/usr/bin/env python3
"""Tests of the network plugins' message extraction (extract.py), its
independent checker (check.py), the classification (classify.py) and the
generated C table (gen_c.py).

The parser tests need nothing; the consistency tests read the committed
warns.tsv / classes.tsv / classified.tsv and src/kb/nccl_plugin_warns_gen.def;
the source tests run check.py (and a negative check, and a re-extraction)
against the plugins' mirrors and are skipped when a mirror is absent
($AWS_OFI_NCCL_MIRROR, $SHARP_PLUGIN_MIRROR; defaults under /work/.mirror).
Run: python3 tools/nccl-plugin-warns/test_nccl_plugin_warns.py
"""
import glob
import importlib.util
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

OFI_SAMPLE = r'''
/* NCCL_OFI_WARN("in a comment") is not a call */
#define NCCL_OFI_WARN(fmt, ...) (*ofi_log_function)(NCCL_LOG_WARN, NCCL_ALL, __PRETTY_FUNCTION__, \
	__LINE__, "NET/OFI " fmt, ##__VA_ARGS__)
static int f(void) {
	NCCL_OFI_WARN("Couldn't open a fabric provider. RC: %d, ERROR: %s",
		      ret, fi_strerror(-ret));
	NCCL_OFI_WARN("Invalid size %" PRIu64 " for %s", sz, name);
	NCCL_OFI_WARN(PACKAGE_NAME " initialization failed");
	NCCL_OFI_INFO(NCCL_INIT | NCCL_NET, "Selected provider is %s", prov);
	NCCL_OFI_INFO(NCCL_NET, "Could not disable CUDA API usage for HMEM, disabling GDR");
	NCCL_OFI_TRACE(NCCL_NET, "Trace is compiled out: failed");
	(*ofi_log_function)(NCCL_LOG_WARN, NCCL_ALL, file, line,
			    "NET/OFI pthread_mutex_lock failed: %s", strerror(ret));
	return 0;
}
'''


class Parser(unittest.TestCase):
    def setUp(self):
        cfg = extract.PLUGINS["aws-ofi-nccl"]
        self.found = extract.extract_file(OFI_SAMPLE, cfg)
        self.lits = [l for _, l in self.found]

    def test_prefix_and_joining(self):
        self.assertIn("NET/OFI Couldn't open a fabric provider. RC: %d, ERROR: %s", self.lits)
        self.assertIn("NET/OFI Invalid size %lu for %s", self.lits)
        self.assertNotIn("NET/OFI in a comment", self.lits)

    def test_macro_definition_and_trace_left_out(self):
        self.assertFalse(any("{{fmt}}" in l for l in self.lits))
        self.assertFalse(any("compiled out" in l for l in self.lits))

    def test_package_name_resolved_later(self):
        self.assertIn("NET/OFI {{PACKAGE_NAME}} initialization failed", self.lits)
        self.assertEqual(extract.nw.resolve("NET/OFI {{PACKAGE_NAME}} x", {"PACKAGE_NAME": "aws-ofi-nccl"}),
                         "NET/OFI aws-ofi-nccl x")

    def test_info_filter_and_direct_logger_call(self):
        info = [l for k, l in self.found if k == "INFO"]
        self.assertEqual(info, ["NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR"])
        self.assertIn(("WARN", "NET/OFI pthread_mutex_lock failed: %s"), self.found)

    def test_checker_agrees_on_sample(self):
        text = check.nwc.normalize(OFI_SAMPLE)
        cfg = check.PLUGINS["aws-ofi-nccl"]
        for kind, lit in self.found:
            if "PACKAGE_NAME" in lit:
                continue
            ok = any(lit.startswith(p) and re.search(b + '"' + re.escape(lit[len(p):]) + '"', text)
                     for b, p in cfg["calls"][kind])
            self.assertTrue(ok, lit)

    def test_ranges_and_keys(self):
        order = ["1.0", "1.1", "1.2", "1.3", "1.5"]
        self.assertEqual(extract.ranges(["1.0", "1.1", "1.3", "1.5"], order), "1.0-1.1,1.3-1.5")
        self.assertEqual(check.expand("1.0-1.1,1.3-1.5", ["v1.0.1-aws", "v1.1.5-aws", "v1.2.0-aws", "v1.3.0-aws", "v1.5.0-aws"]),
                         ["v1.0.1-aws", "v1.1.5-aws", "v1.3.0-aws", "v1.5.0-aws"])
        k = extract.key_of("aws-ofi-nccl", "x", "a.c", "WARN")
        self.assertNotEqual(k, extract.key_of("nccl-rdma-sharp-plugins", "x", "a.c", "WARN"))
        self.assertNotEqual(k, extract.key_of("aws-ofi-nccl", "x", "a.c", "INFO"))


class Committed(unittest.TestCase):
    def read(self, name):
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            return [l.split("\t") for l in f.read().split("\n")[1:] if l]

    def test_warns_rows_well_formed(self):
        rows = self.read("warns.tsv")
        self.assertGreater(len(rows), 1500)
        keys = set()
        for r in rows:
            self.assertEqual(len(r), len(extract.COLUMNS), r)
            self.assertIn(r[0], extract.PLUGINS)
            self.assertIn(r[5], ("WARN", "INFO"))
            self.assertEqual(r[6], extract.key_of(r[0], r[1], r[2], r[5]))
            self.assertNotIn(r[6], keys)
            keys.add(r[6])
            if r[0] == "aws-ofi-nccl":
                self.assertTrue(r[1].startswith("NET/OFI "), r)

    def test_classification_is_current_and_complete(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "classified.tsv")
            p = subprocess.run([sys.executable, os.path.join(HERE, "classify.py"), "--out", out],
                               stdout=subprocess.PIPE, universal_newlines=True)
            self.assertEqual(p.returncode, 0, p.stdout[-2000:])
            with open(out, encoding="utf-8") as f, open(os.path.join(HERE, "classified.tsv"), encoding="utf-8") as g:
                self.assertEqual(f.read(), g.read(), "classified.tsv is stale: run classify.py")

    def test_every_class_valid(self):
        for r in self.read("classified.tsv"):
            self.assertIn(r[2], classify.nwc.CLASSES, r)

    def test_one_class_per_aws_literal(self):
        """aws-ofi-nccl's lines carry the function (__PRETTY_FUNCTION__), not
        the file, so the matcher cannot choose between files: a WARN literal
        has one class whatever file prints it."""
        seen = {}
        for r in self.read("classified.tsv"):
            if r[0] == "aws-ofi-nccl" and r[5] == "WARN":
                seen.setdefault(r[9], set()).add(r[2])
        self.assertEqual({k: v for k, v in seen.items() if len(v) > 1}, {})

    def test_hand_written_rows_agree(self):
        """A hand-written row of src/kb/nccl_signatures*.c whose source names
        a plugin (OF01, OF02: aws-ofi-nccl) sees its lines before this table:
        the plugin rows holding its literal have the class of its finding."""
        spec = importlib.util.spec_from_file_location(
            "nccl_warns_crosscheck", os.path.join(HERE, "..", "nccl-warns", "crosscheck.py"))
        cc = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cc)
        root = os.path.join(HERE, "..", "..")
        fclass = cc.finding_classes(os.path.join(root, "src", "kb"))
        table = self.read("classified.tsv")
        checked = 0
        for path in sorted(glob.glob(os.path.join(root, "src", "kb", "nccl_signatures*.c"))):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in re.finditer(r'\{\s*"(\w+)",\s*F\((\w+)\),\s*[A-Z_| ]+,\s*L\((.*?)\),', text, re.S):
                src = text[m.end():text.find("},", m.end())]
                if not re.search(r"aws-ofi-nccl|nccl-rdma-sharp-plugins", src):
                    continue
                for lit in re.findall(r'"((?:\\.|[^"\\])*)"', m.group(3)):
                    classes = {r[2] for r in table if lit.lower() in r[9].lower()}
                    if classes:
                        checked += 1
                        self.assertEqual(classes, {fclass[m.group(2)]}, (m.group(1), lit))
        self.assertGreaterEqual(checked, 2)  # OF01, OF02

    def test_generated_c_is_current(self):
        text, n = gen_c.generate(os.path.join(HERE, "classified.tsv"), os.path.join(HERE, "warns.tsv"))
        with open(gen_c.OUT, encoding="utf-8") as f:
            self.assertEqual(f.read(), text, "src/kb/nccl_plugin_warns_gen.def is stale: run gen_c.py")
        self.assertEqual(n, len(self.read("classified.tsv")))

    def test_unclassified_row_fails(self):
        with tempfile.TemporaryDirectory() as d:
            w = os.path.join(d, "w.tsv")
            with open(w, "w", encoding="utf-8") as f:
                f.write("\t".join(extract.COLUMNS) + "\n")
                f.write("nccl-rdma-sharp-plugins\tsomething new\tnew_file.c\tv2.1.0\tv2.1.0\tWARN\t%s\t2.1\n"
                        % extract.key_of("nccl-rdma-sharp-plugins", "something new", "new_file.c", "WARN"))
            p = subprocess.run([sys.executable, os.path.join(HERE, "classify.py"), "--warns", w,
                                "--out", os.path.join(d, "c.tsv")], stdout=subprocess.PIPE, universal_newlines=True)
            self.assertEqual(p.returncode, 1)
            self.assertIn("UNCLASSIFIED", p.stdout)


def mirrors():
    return [n for n, c in extract.PLUGINS.items() if os.path.isdir(c["mirror"])]


@unittest.skipUnless(len(mirrors()) == len(extract.PLUGINS), "plugin mirrors absent")
class Source(unittest.TestCase):
    def test_check_passes(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "check.py")], stdout=subprocess.PIPE,
                           universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stdout[-2000:])

    def test_check_fails_on_a_wrong_literal(self):
        with open(os.path.join(HERE, "warns.tsv"), encoding="utf-8") as f:
            rows = [l.split("\t") for l in f.read().split("\n") if l]
        with tempfile.TemporaryDirectory() as d:
            t = os.path.join(d, "w.tsv")
            bad = list(rows[1])
            bad[1] = bad[1] + " (not in the source)"
            with open(t, "w", encoding="utf-8") as f:
                f.write("\t".join(rows[0]) + "\n" + "\t".join(bad) + "\n")
            p = subprocess.run([sys.executable, os.path.join(HERE, "check.py"), "--tsv", t], stdout=subprocess.PIPE,
                               universal_newlines=True)
            self.assertEqual(p.returncode, 1)
            self.assertIn("MISSING", p.stdout)

    def test_extraction_is_reproducible(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "w.tsv")
            subprocess.run([sys.executable, os.path.join(HERE, "extract.py"), "--out", out, "--require"], check=True,
                           stdout=subprocess.DEVNULL)
            with open(out, encoding="utf-8") as f, open(os.path.join(HERE, "warns.tsv"), encoding="utf-8") as g:
                self.assertEqual(f.read(), g.read(), "warns.tsv differs from a fresh extraction")


if __name__ == "__main__":
    unittest.main()
