#!/usr/bin/env python3
"""Tests of tools/framework-errors: the pattern of a literal, the
classification rules, the extraction check on a small made-up checkout, and
the consistency of the committed files (classified.tsv is classify.py's
output, src/kb/framework_errors_gen.def is gen_c.py's, every source row
names its origin). Python 3 standard library only; no network, no mirror.

Usage: test_framework_errors.py [unittest arguments, e.g. Pattern Committed]
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import classify  # noqa: E402
import extract  # noqa: E402
import fwlib  # noqa: E402
import scan  # noqa: E402

W = fwlib.WILD


class Pattern(unittest.TestCase):
    def test_printf_fmt_fstring_and_splices(self):
        self.assertEqual(fwlib.pattern("format", "size: %d. sizes: %s."), "size: " + W + ". sizes: " + W + ".")
        self.assertEqual(fwlib.pattern("format", "connect to ({}, {})."), "connect to (" + W + ", " + W + ").")
        self.assertEqual(fwlib.pattern("format", "NCCL error: {error_str}"), "NCCL error: " + W)
        self.assertEqual(fwlib.pattern("format", "in: {{__FILE__}}:{{__LINE__}}, {{f(x)}}"),
                         "in: " + W + ":" + W + ", " + W)
        self.assertEqual(fwlib.pattern("format", "100%% done %5.2f"), "100% done " + W)

    def test_enum_and_name(self):
        self.assertEqual(fwlib.pattern("enum", "cudaErrorPeerAccessUnsupported = 217"), "cudaErrorPeerAccessUnsupported")
        self.assertEqual(fwlib.enum_parts("CUDA_ERROR_NO_DEVICE = 100"), ("CUDA_ERROR_NO_DEVICE", 100))
        self.assertEqual(fwlib.pattern("name", "DistNetworkError"), "DistNetworkError")
        with self.assertRaises(ValueError):
            fwlib.enum_parts("not an enum")

    def test_key_stable(self):
        self.assertEqual(fwlib.key("vllm", "x"), fwlib.key("vllm", "x"))
        self.assertNotEqual(fwlib.key("vllm", "x"), fwlib.key("vllm", "x", "also"))
        self.assertRegex(fwlib.key("a", "b"), r"^[0-9a-f]{12}$")


def src(lit, kind="format", fw="pytorch"):
    return {"framework": fw, "repo": "o/r", "path": "p.cpp", "commit": "0" * 40, "line": "", "kind": kind,
            "literal": lit}


def rule(match, cls, also="-"):
    return {"match": match, "also": also, "class": cls, "reason": "r", "next": "-"}


class Classification(unittest.TestCase):
    classes = {"bootstrap_network", "version_mismatch"}

    def test_first_rule_wins_and_also_adds_a_row(self):
        rows, err = classify.classify(
            [src("NCCL operation %s failed: %s"), src("The client socket has failed")],
            [rule("NCCL operation", "version_mismatch", "ncclCommInitRank"), rule("NCCL operation", "context"),
             rule("socket", "bootstrap_network"), rule("socket", "version_mismatch")][:3], self.classes)
        self.assertEqual(err, [])
        self.assertEqual([(r["class"], r["also"]) for r in rows],
                         [("version_mismatch", "ncclCommInitRank"), ("context", "-"), ("bootstrap_network", "-")])

    def test_framework_scope(self):
        rows, err = classify.classify([src("socket failed"), src("socket failed", fw="vllm")],
                                      [rule("vllm::^socket", "bootstrap_network"), rule("^socket", "version_mismatch")],
                                      self.classes)
        self.assertEqual(err, [])
        self.assertEqual([(r["framework"], r["class"]) for r in rows],
                         [("pytorch", "version_mismatch"), ("vllm", "bootstrap_network")])
        _, err = classify.classify([src("x")], [rule("nosuch::^x", "info")], self.classes)
        self.assertIn("unknown framework 'nosuch'", "\n".join(err))

    def test_errors(self):
        _, err = classify.classify([src("a"), src("b")], [rule("^a", "no_such_class"), rule("^c", "info")],
                                   self.classes)
        text = "\n".join(err)
        self.assertIn("unknown class 'no_such_class'", text)
        self.assertIn("no rule gives a class to 'b'", text)
        self.assertIn("matches no literal: stale", text)


class Extract(unittest.TestCase):
    def test_joined_literals_enums_and_a_miss(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "o+r", "x"))
            with open(os.path.join(d, "o+r", "x", "a.py"), "w") as f:
                f.write('import x\nlogger.warning(\n    "Custom allreduce is disabled due to an unsupported world"\n'
                        '    " size: %d. Supported", n)\nE = 3\ncudaErrorNoDevice = 100,\n')
            row = dict(src("Custom allreduce is disabled due to an unsupported world size: %d. Supported"),
                       repo="o/r", path="x/a.py")
            self.assertEqual(extract.find(row, extract.source_text(row, d, None)), 3)
            self.assertEqual(extract.find(dict(row, kind="enum", literal="cudaErrorNoDevice = 100"),
                                          extract.source_text(row, d, None)), 6)
            self.assertEqual(extract.find(dict(row, kind="enum", literal="cudaErrorNoDevice = 101"),
                                          extract.source_text(row, d, None)), 0)
            self.assertEqual(extract.find(dict(row, literal="Custom allreduce is enabled"),
                                          extract.source_text(row, d, None)), 0)

    def test_cxx_message_pieces(self):
        # c10::str("a ", x, "b ",\n "c"): the pieces join across commas and line breaks, a value is a wildcard
        text = ('void f() {\n  std::string e = c10::str(\n      "Parameter at index ",\n      index,\n'
                '      " has been marked as ready twice. This means that multiple autograd engine ",\n'
                '      " hooks have fired.");\n}\n')
        row = dict(src("Parameter at index {{index}} has been marked as ready twice. This means that multiple "
                       "autograd engine  hooks have fired."), repo="o/r", path="x/r.cpp")
        self.assertEqual(extract.find(row, text), 3)
        self.assertEqual(extract.find(dict(row, path="x/r.py"), text), 0)


PY = """
import logging
logger = logging.getLogger(__name__)
def f(rank, n):
    if n < 0:
        raise ValueError(f"world size {n} of rank {rank} "
                         'is negative')
    assert rank < n, "rank %d out of range" % rank
    logger.warning("Custom allreduce is disabled: %s." " To silence" ".", n)
    raise RuntimeError("NCCL error: " + str(n) + " in init")
    raise RuntimeError(msg)
    raise KeyError
    warnings.warn("{} is deprecated".format(n))
    print("not an error")
    self.helper.error("no")
    err_msg = "NCCL library " + path
    count = "not a message"
"""

CXX = r'''
void g(int rank) {
  TORCH_CHECK(rank >= 0, "rank ", rank, " must be non-negative, got ", f(a, b), ".");
  // TORCH_CHECK(false, "a comment is no message");
  C10_THROW_ERROR(DistBackendError, fmt::format("NCCL communicator was aborted on rank {}.", rank));
  LOG(ERROR) << "[Rank " << rank << "] Watchdog "
             "caught collective operation timeout";
  TORCH_WARN_ONCE("TORCH_NCCL_BLOCKING_WAIT is deprecated");
  throw std::runtime_error("Connection reset by peer: " + std::to_string(rank));
  TORCH_CHECK_WITH(DistNetworkError, ok, "The server socket has failed to listen on ", addr);
}
'''


class Scan(unittest.TestCase):
    def test_python(self):
        got = scan.scan_python(PY)
        self.assertEqual(got, [
            (6, "raise ValueError", "world size {n} of rank {rank} is negative"),
            (8, "assert", "rank %d out of range"),
            (9, "logger.warning", "Custom allreduce is disabled: %s. To silence."),
            (10, "raise RuntimeError", "NCCL error: {{str(n)}} in init"),
            (11, "raise RuntimeError", "{{msg}}"),
            (13, "warnings.warn", "{} is deprecated"),
            (16, "err_msg =", "NCCL library {{path}}"),
        ])
        self.assertIsNone(scan.scan_python("def (:"))

    def test_cxx(self):
        got = scan.scan_cxx(CXX)
        self.assertEqual(got, [
            (3, "TORCH_CHECK", "rank {{rank}} must be non-negative, got {{f(a, b)}}."),
            (5, "C10_THROW_ERROR", "NCCL communicator was aborted on rank {}."),
            (6, "LOG(ERROR)", "[Rank {{rank}}] Watchdog caught collective operation timeout"),
            (8, "TORCH_WARN_ONCE", "TORCH_NCCL_BLOCKING_WAIT is deprecated"),
            (9, "throw std::runtime_error", "Connection reset by peer: {{std::to_string(rank)}}"),
            (10, "TORCH_CHECK_WITH", "The server socket has failed to listen on {{addr}}"),
        ])

    def test_ddp_sites(self):
        # PyTorch DDP: REDUCER_CHECK(cond, logger_, ...) as TORCH_CHECK (its #define is no site),
        # self._log_and_throw(ValueError, "...") with the message second
        cxx = ('#define REDUCER_CHECK(cond, logger_, ...) \\\n  TORCH_CHECK(false, ##__VA_ARGS__);\n'
               'void h() {\n  REDUCER_CHECK(n > 0, logger_, "Your training graph has changed ", "in this iteration");\n'
               '  REDUCER_CHECK(ok, logger_, common_error, "3) Incorrect unused parameter detection.");\n}\n')
        self.assertEqual(scan.scan_cxx(cxx), [
            (2, "TORCH_CHECK", "{{##__VA_ARGS__}}"),
            (4, "REDUCER_CHECK", "Your training graph has changed in this iteration"),
            (5, "REDUCER_CHECK", "{{common_error}}3) Incorrect unused parameter detection."),
        ])
        py = ('class D:\n    def f(self, ids):\n        self._log_and_throw(\n            ValueError,\n'
              '            "device_ids can only be None or contain a single element.",\n        )\n')
        self.assertEqual(scan.scan_python(py), [
            (5, "call self._log_and_throw", "device_ids can only be None or contain a single element.")])

    def test_spec_over_a_checkout(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "o+r", "pkg"))
            with open(os.path.join(d, "o+r", "pkg", "a.py"), "w") as f:
                f.write(PY)
            with open(os.path.join(d, "o+r", "pkg", "b.cpp"), "w") as f:
                f.write(CXX)
            spec = {"framework": "pytorch", "repo": "o/r", "commit": "0" * 40, "source": "mirror", "globs": "pkg/*.py pkg/*.cpp"}
            rows, errors = scan.scan_spec(spec, None, d)
            self.assertEqual(errors, [])
            self.assertEqual(len(rows), 13)
            self.assertEqual((rows[0]["path"], rows[0]["line"]), ("pkg/a.py", "6"))
            _, errors = scan.scan_spec(dict(spec, globs="nothing/*"), None, d)
            self.assertIn("no file matches nothing/*", errors[0])
            self.assertEqual(scan.scan_spec(dict(spec, repo="o/absent"), None, d), (None, []))
            # a file copied from the source index must have the index's length
            one = dict(spec, globs="pkg/a.py", source="index:1:%d" % len(PY))
            self.assertEqual(len(scan.scan_spec(one, None, d)[0]), 7)
            rows, errors = scan.scan_spec(dict(one, source="index:1:%d" % (len(PY) + 1)), None, d)
            self.assertEqual(rows, [])
            self.assertIn("the copy has %d characters" % len(PY), errors[0])


class KeptOut(unittest.TestCase):
    def test_reasons(self):
        self.assertEqual(fwlib.kept_out("not_cause", "format", "a long enough usage error text"), "not a cause")
        self.assertEqual(fwlib.kept_out("bootstrap_network", "format", "{description} is not initialized"),
                         "too short: 18 bytes of fixed text")
        self.assertEqual(fwlib.kept_out("bootstrap_network", "format", "rank {} of {} and {} in {} at {} / {}"),
                         "too short: 14 bytes of fixed text")
        self.assertEqual(fwlib.kept_out("bootstrap_network", "format", "rank {} local {} node {} host {} port {} addr {} size {}"),
                         "too generic: no fixed run of 12 bytes")
        self.assertEqual(fwlib.kept_out("bootstrap_network", "format", "The server socket has failed to bind"), "")
        # listed-only rows and whole-word names stay
        self.assertEqual(fwlib.kept_out("context", "format", "NCCL error: {error_str}"), "")
        self.assertEqual(fwlib.kept_out("bootstrap_network", "name", "DistNetworkError"), "")

    def test_one_row_per_literal(self):
        hand = [src("same text here"), src("other", fw="vllm")]
        scanned = [dict(src("same text here"), api="raise X", line="3"), dict(src("new"), api="assert", line="9"),
                   dict(src("new"), api="assert", line="12")]
        got = classify.literals(hand, scanned)
        self.assertEqual([(r["literal"], r["line"]) for r in got], [("same text here", ""), ("other", ""), ("new", "9")])
        self.assertEqual(got[2]["kind"], "format")


class Committed(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([sys.executable] + list(args), cwd=HERE, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)

    def test_classified_is_current(self):
        r = self.run_tool("classify.py", "--check", "-q")
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_def_is_current(self):
        r = self.run_tool("gen_c.py", "--check")
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_every_row_names_its_origin(self):
        for r in fwlib.read_tsv(os.path.join(HERE, "scanned.tsv")):
            self.assertIn(r["framework"], fwlib.FRAMEWORKS, r)
            self.assertTrue(re.fullmatch(r"[0-9a-f]{40}", r["commit"]) and int(r["line"]) > 0, r)
        for r in fwlib.read_tsv(os.path.join(HERE, "sources.tsv")):
            self.assertIn(r["framework"], fwlib.FRAMEWORKS, r)
            self.assertTrue(re.fullmatch(r"[0-9a-f]{40}|index:\d+", r["commit"]), r)
            self.assertTrue(r["repo"] and r["path"], r)
            self.assertIn(r["kind"], ("format", "enum", "name"), r)
            self.assertTrue(fwlib.pattern(r["kind"], r["literal"]).replace(W, ""), r)

    def test_examples_of_the_brief(self):
        rows = {(r["literal"], r["also"]): r["class"] for r in fwlib.read_tsv(os.path.join(HERE, "classified.tsv"))}
        want = {
            ("cudaErrorPeerAccessUnsupported = 217", "-"): "p2p_pcie_acs_iommu",
            ("cudaErrorInsufficientDriver = 35", "-"): "version_mismatch",
            ("cudaErrorInvalidDevice = 101", "-"): "duplicate_gpu_or_device_mapping",
            ("CUDA_ERROR_OUT_OF_MEMORY = 2", "-"): "peer_died_or_oom",
            ("DistNetworkError", "-"): "bootstrap_network",
            ("ProcessGroupNCCL is only supported with GPUs, no GPUs found!", "-"): "duplicate_gpu_or_device_mapping",
            ("environment variable %s expected, but not set", "-"): "bootstrap_network",
            ("{cmd} exits with return code = {last_return_code}", "return code = -7"): "shm_too_small",
            ("{cmd} exits with return code = {last_return_code}", "return code = -9"): "peer_died_or_oom",
            ("{cmd} exits with return code = {last_return_code}", "-"): "context",
        }
        for k, v in want.items():
            self.assertEqual(rows.get(k), v, k)
        by_prefix = lambda p: {c for (l, a), c in rows.items() if l.startswith(p)}
        self.assertEqual(by_prefix("Custom allreduce is disabled"), {"info"})
        self.assertEqual(by_prefix("[Rank {{rank_}}] Watchdog caught"), {"hang"})
        self.assertEqual(by_prefix("NCCL error in: "), {"context"})
        self.assertEqual(by_prefix("Failed to load NCCL library"), {"version_mismatch"})
        self.assertEqual(by_prefix("The client socket has timed out"), {"bootstrap_network"})
        self.assertIn(("%s:%d: NCCL operation %s failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'.",
                       "ncclCommInitRank"), rows)


if __name__ == "__main__":
    unittest.main(verbosity=1)
