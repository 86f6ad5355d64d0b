"""Shared helpers of the framework-error tools: TSV reading, row keys, and the
log pattern of a literal. Python 3 standard library only."""
import hashlib
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
WILD = "\x01"
# our notation for a value spliced between literals: {{expr}} (C++ string +, a macro)
SPLICE = re.compile(r"\{\{.*?\}\}")
# printf (C, Python %) conversions
PRINTF = re.compile(r"%%|%(?:\([A-Za-z_0-9]+\))?[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t)?[diouxXeEfFgGcspr]")
# fmt / str.format / f-string fields: {} {0} {:x} {name} {name!r}
BRACES = re.compile(r"\{[A-Za-z_0-9.!:\[\]()<>=^+\- ]*\}")
MARKS = ("info", "hang", "context", "not_cause")
# a format literal with less fixed text than this, or no fixed run as long as
# MIN_RUN, cannot identify a line: it stays out of the generated table
MIN_FIXED = 20
MIN_RUN = 12
# the framework ids of sources.tsv and the name a report gives each (gen_c.py
# writes it into every row, so the C side keeps no list of its own)
FRAMEWORKS = {"pytorch": "PyTorch", "vllm": "vLLM", "sglang": "SGLang", "ray": "Ray", "deepspeed": "DeepSpeed",
              "accelerate": "accelerate", "jax": "JAX", "xla": "XLA", "cuda": "CUDA",
              "megatron": "Megatron-LM", "horovod": "Horovod", "lmdeploy": "lmdeploy", "lightning": "Lightning",
              "tensorrt_llm": "TensorRT-LLM", "tensorflow": "TensorFlow"}


def read_tsv(path):
    """The rows of a TSV whose first non-comment line is its header."""
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l and not l.startswith("#")]
    head = lines[0].split("\t")
    rows = []
    for n, l in enumerate(lines[1:], 2):
        cells = l.split("\t")
        if len(cells) != len(head):
            raise SystemExit("%s: row %d has %d cells, the header %d" % (path, n, len(cells), len(head)))
        rows.append(dict(zip(head, cells)))
    return rows


def key(framework, literal, also=""):
    s = framework + "\t" + literal + ("\t" + also if also else "")
    return hashlib.sha1(s.encode("utf-8")).hexdigest()[:12]


def enum_parts(literal):
    """('cudaErrorPeerAccessUnsupported', 217) of 'cudaErrorPeerAccessUnsupported = 217'."""
    m = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9]*) = (-?\d+)", literal)
    if not m:
        raise ValueError("not an enum literal: %r" % literal)
    return m.group(1), int(m.group(2))


def pattern(kind, literal):
    """The text a log line shows for the literal, WILD for each value."""
    if kind == "enum":
        return enum_parts(literal)[0]
    if kind == "name":
        return literal
    text = SPLICE.sub(WILD, literal)
    text = PRINTF.sub(lambda m: "%" if m.group(0) == "%%" else WILD, text)
    text = BRACES.sub(WILD, text)
    text = re.sub(WILD + "+", WILD, text)
    return text.strip(" \t")


def cause_classes():
    """The cause classes of src/kb/causes.c (the first string of each entry)."""
    with open(os.path.join(ROOT, "src", "kb", "causes.c"), encoding="utf-8") as f:
        text = f.read()
    return set(re.findall(r"^\s*\{\s*\"([a-z_0-9]+)\"", text, re.M))


def kept_out(cls, kind, literal):
    """Why a classified literal stays out of the generated table, "" when it goes in."""
    if cls == "not_cause":
        return "not a cause"
    # enum and exception names match whole words; info lines, hang markers
    # and wrappers are listed beside a cause line, never ranked
    if kind != "format" or cls in ("info", "hang", "context"):
        return ""
    frags = [f.strip() for f in pattern(kind, literal).split(WILD)]
    fixed = sum(len(f.encode("utf-8")) for f in frags)
    if fixed < MIN_FIXED:
        return "too short: %d bytes of fixed text" % fixed
    if max(len(f.encode("utf-8")) for f in frags) < MIN_RUN:
        return "too generic: no fixed run of %d bytes" % MIN_RUN
    return ""
