#!/usr/bin/env python3
"""List EVERY error and warning literal of whole source files: the files
named by scan.tsv (a framework, its repository, the commit, path globs), read
from bare git mirrors (`git cat-file` at the commit) or plain copies, into
scanned.tsv. Nothing is picked by hand: each `raise X(...)`, `assert c, ...`,
`logger.error/warning/exception/critical(...)`, `warnings.warn(...)`, an
exception built outside a raise (`return ValueError(...)`, `_error(...)`), DDP's
`self._log_and_throw(ValueError, "...")` (the message is the second argument) and
a message built into a variable (`msg = f"..."`) of a Python file (read with
the `ast` module, so implicit concatenation, f-strings, `+`, `%` and
`.format` are undone as Python does), and each `TORCH_CHECK*`,
`C10_THROW_ERROR`, `C10D_THROW_ERROR`, `TORCH_WARN*`, `TORCH_INTERNAL_ASSERT`,
`LOG(ERROR|WARNING|FATAL) << ...`, `throw std::*_error(...)`, TensorRT-LLM's
`TLLM_CHECK_WITH_INFO` and `TLLM_THROW` (printf style: the format alone), TensorFlow's
`errors::Internal(...)` and kin (the pieces concatenated), PyTorch DDP's
`REDUCER_CHECK(cond, logger_, ...)` (as TORCH_CHECK), other callees
named like an error or warning (`C10D_ERROR`, `C10D_WARNING`, `recordError`)
and `msg = fmt::format("...")` of a C++ file becomes a row with its line. A
value spliced into the text becomes `{{expr}}` (README.md, "The literal, the
kind, the pattern"); an f-string field `{name}`.

  --mirror DIR  DIR/<owner>+<name>/repo, bare git mirrors (what `fetch` gives):
                the rows of scan.tsv whose source is `mirror`
  --root DIR    DIR/<owner>+<name>/<path>, copies of single files: the rows whose
                source is `index:ID:CHARS` (a file read whole through the source
                index, `read_file` id ID, CHARS characters long; a copy of
                another length is refused) or `mirror` when --mirror is not given
  --check       compare with the committed scanned.tsv instead of writing it;
                a file not at hand is reported and its rows kept
Exit: 0 done / current; 1 differs, a copy of the wrong length, or a glob that
matches nothing; 2 usage.
Usage: scan.py [--mirror DIR] [--root DIR] [--spec FILE] [--out FILE] [--check]
"""
import argparse
import ast
import fnmatch
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fwlib  # noqa: E402

COLS = ["framework", "repo", "path", "commit", "line", "api", "literal"]
LOG_CALLS = {"error", "warning", "warn", "exception", "critical", "fatal"}
SIMPLE = re.compile(r"[A-Za-z_][A-Za-z_0-9.]*")
# a callee that builds an exception or an error message (ValueError, _error, _env_error, recordError)
ERROR_CALL = re.compile(r"(Error|Exception|_error|_err)$")
# a variable that holds a message: msg, err_msg, error_message, warning_msg
MSG_NAME = re.compile(r"(^|_)(msg|message|err|error)(_|$)|Msg$|Message$", re.I)


# ---- Python ------------------------------------------------------------------

def splice(node):
    """How a value spliced into a message is written: {{expr}}."""
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - any node ast cannot print back
        text = "value"
    return "{{" + re.sub(r"\s+", " ", text).replace("}}", "} }") + "}}"


def py_text(node):
    """The message a node builds, or None when it holds no string at all."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            else:
                expr = ast.unparse(v.value) if hasattr(v, "value") else ""
                out.append("{%s}" % expr if SIMPLE.fullmatch(expr) else "{}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = py_text(node.left), py_text(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else splice(node.left)) + (right if right is not None else splice(node.right))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return py_text(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return py_text(node.func.value)
    return None


def dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return base + "." + node.attr if base else node.attr
    if isinstance(node, ast.Call):
        return dotted(node.func)
    return ""


def scan_python(text):
    """(line, api, literal) of every message of the file."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    out, raised = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            raised.add(id(node.exc))
    for node in ast.walk(tree):
        api = msg = None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            api, msg = "raise " + dotted(node.exc.func), node.exc.args[0]
        elif (isinstance(node, ast.Call) and id(node) not in raised and node.args and
              ERROR_CALL.search(dotted(node.func).rsplit(".", 1)[-1]) and py_text(node.args[0]) is not None):
            # an exception built to be raised elsewhere: return ValueError("..." + msg), _error("...")
            api, msg = "call " + dotted(node.func), node.args[0]
        elif isinstance(node, ast.Assert) and node.msg is not None:
            api, msg = "assert", node.msg
        elif (isinstance(node, ast.Call) and len(node.args) >= 2 and
              dotted(node.func).rsplit(".", 1)[-1] == "_log_and_throw"):
            # PyTorch DDP: self._log_and_throw(ValueError, "..."), the error type first
            api, msg = "call " + dotted(node.func), node.args[1]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            name = dotted(node.func)
            base = name.rsplit(".", 1)[0].lower()
            if node.func.attr in LOG_CALLS and ("log" in base or base == "warnings"):
                api, msg = name, node.args[0]
        elif (isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and
              py_text(node.value) is not None):
            # a message built into a variable before it is raised or logged: msg = f"..."
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [dotted(t) for t in targets if isinstance(t, (ast.Name, ast.Attribute))]
            if any(MSG_NAME.search(n.rsplit(".", 1)[-1]) for n in names):
                api, msg = "%s =" % names[0], node.value
        if api is None:
            continue
        lit = py_text(msg)
        if lit is None:
            lit = splice(msg)
        out.append((msg.lineno if hasattr(msg, "lineno") else node.lineno, api, lit))
    return sorted(out)


# ---- C++ ---------------------------------------------------------------------

CXX_MACRO = re.compile(r"\b(TORCH_CHECK(?:_WITH|_VALUE|_TYPE|_INDEX|_NOT_IMPLEMENTED)?|TORCH_INTERNAL_ASSERT|"
                       r"C10_THROW_ERROR|C10D_THROW_ERROR|C10D_CHECK_WITH|TORCH_WARN(?:_ONCE)?|"
                       # TensorRT-LLM: TLLM_CHECK_WITH_INFO(cond, fmt, ...), TLLM_THROW(fmt, ...)
                       r"TLLM_CHECK_WITH_INFO|TLLM_THROW|"
                       # PyTorch DDP's reducer.cpp: REDUCER_CHECK(cond, logger_, ...), TORCH_CHECK's pieces
                       # after the logger (its own #define is not a message site)
                       r"(?<!define )REDUCER_CHECK|"
                       # TensorFlow: errors::Internal("NCCL: ", x, "..."), its pieces concatenated (StrCat)
                       r"(?<![\w:])errors::[A-Z][A-Za-z]*|"
                       r"throw\s+std::[a-z_]*error|LOG\s*\(\s*(?:ERROR|WARNING|FATAL)\s*\)|"
                       # any other callee that logs or builds an error: C10D_ERROR, C10D_WARNING, recordError
                       r"(?<![.>])[A-Za-z_]\w*(?:Error|_ERROR|_WARNING|_WARN)(?=\s*\()|"
                       # a message built into a variable first: msg = fmt::format("..."), auto* msg = "..."
                       r"[A-Za-z_]*(?:msg|Msg|message|Message)\w*\s*=(?!=)\s*(?=fmt::format\s*\(|\"|c10::str\s*\())")
# arguments before the message: the condition, an error type
SKIP_ARGS = {"TORCH_CHECK": 1, "TORCH_CHECK_VALUE": 1, "TORCH_CHECK_TYPE": 1, "TORCH_CHECK_INDEX": 1,
             "TORCH_CHECK_NOT_IMPLEMENTED": 1, "TORCH_INTERNAL_ASSERT": 1, "TORCH_CHECK_WITH": 2,
             "C10D_CHECK_WITH": 2, "TLLM_CHECK_WITH_INFO": 1, "TLLM_THROW": 0, "REDUCER_CHECK": 2}
STRING = re.compile(r'(?:u8|L|u|U)?"((?:[^"\\\n]|\\.)*)"|R"([^(]*)\((.*?)\)\2"', re.S)


def cxx_unescape(s):
    return re.sub(r'\\(["\\\'?])', r"\1", s).replace("\\n", "\n").replace("\\t", "\t")


def cxx_args(text, i):
    """The top-level arguments of the call whose '(' is at text[i], and the end."""
    depth, args, start, k = 0, [], i + 1, i
    while k < len(text):
        c = text[k]
        if c == '"' or c == "'":
            m = re.compile(r'%s(?:[^%s\\]|\\.)*%s' % (c, c, c), re.S).match(text, k)
            k = m.end() if m else k + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:k])
                return args, k + 1
        elif c == "," and depth == 1:
            args.append(text[start:k])
            start = k + 1
        k += 1
    return args, k


def cxx_message(parts):
    """The message of the argument texts: string literals joined, each other
    piece a {{splice}}; fmt::format("...", x) and c10::str(...) unwrapped."""
    out, any_string = [], False
    for p in parts:
        p = p.strip()
        m = re.fullmatch(r"(?:fmt::format|c10::str|std::string)\s*\((.*)\)", p, re.S)
        if m:
            inner, _ = cxx_args("(" + m.group(1) + ")", 0)
            first = inner[0].strip() if inner else ""
            if p.startswith("fmt::format") and STRING.match(first):
                p = first
            else:
                sub, anys = cxx_message(inner)
                out.append(sub)
                any_string |= anys
                continue
        pos, pieces = 0, []
        for s in STRING.finditer(p):
            gap = p[pos:s.start()].strip(" \t\n+")
            if gap:
                pieces.append("{{" + re.sub(r"\s+", " ", gap) + "}}")
            pieces.append(cxx_unescape(s.group(1)) if s.group(3) is None else s.group(3))
            any_string = True
            pos = s.end()
        rest = p[pos:].strip(" \t\n+")
        if rest:
            pieces.append("{{" + re.sub(r"\s+", " ", rest) + "}}")
        out.append("".join(pieces))
    return "".join(out), any_string


def strip_comments(text):
    """C++ comments blanked, strings and line breaks kept (lines stay)."""
    def blank(m):
        s = m.group(0)
        return s if s[0] in "\"'" or s.startswith('R"') else re.sub(r"[^\n]", " ", s)
    return re.sub(r'R"([^(]*)\(.*?\)\1"|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/', blank, text,
                  flags=re.S)


def scan_cxx(text):
    # a macro's line continuations (backslash, newline) are blanks between its tokens; lines stay
    text = strip_comments(text).replace("\\\n", " \n")
    out = []
    for m in CXX_MACRO.finditer(text):
        name = re.sub(r"\s+", " ", m.group(1)).strip()
        line = text.count("\n", 0, m.start()) + 1
        if name.startswith("LOG"):
            end = text.find(";", m.end())
            parts = re.split(r"<<", text[m.end():end if end >= 0 else len(text)])[1:]
            api = name.replace(" ", "")
        elif name.endswith("="):
            end = text.find(";", m.end())
            parts = [text[m.end():end if end >= 0 else len(text)]]
            api = "msg ="
        else:
            paren = text.find("(", m.end() - 1 if name.startswith("throw") else m.end())
            if paren < 0 or text[m.end():paren].strip():
                continue
            parts, _ = cxx_args(text, paren)
            skip = 0 if name.startswith("throw") else SKIP_ARGS.get(name, 0)
            # a THROW macro's (and C10_BUILD_ERROR's) first argument is the error type
            if ("THROW" in name or name == "C10_BUILD_ERROR") and parts and \
                    re.fullmatch(r"\s*[A-Za-z_][\w:]*\s*", parts[0]):
                skip = 1
            parts = parts[skip:]
            api = name
            known = name in SKIP_ARGS or name.startswith(("throw", "TORCH_WARN", "C10_", "C10D_", "errors::"))
            if not known and not any(STRING.search(p) for p in parts):
                continue  # setSocketError(int val): a callee named like an error builder, no message
            # fmt-style (C10D_WARNING, recordError): the first string is the format, the rest fill its {}
            # (TensorRT-LLM's TLLM_CHECK_WITH_INFO and TLLM_THROW are printf style: the format alone too)
            if (name not in SKIP_ARGS or name.startswith("TLLM_")) and not name.startswith(("TORCH_WARN", "errors::")) and \
                    parts and \
                    STRING.match(parts[0].strip()) and not STRING.sub("", parts[0]).strip():
                parts = parts[:1]
        if not any(p.strip() for p in parts):
            continue
        lit, anys = cxx_message(parts)
        out.append((line, api, lit if anys else "{{%s}}" % lit.strip("{}")))
    return out


# ---- files ---------------------------------------------------------------------

def git(gitdir, *args):
    r = subprocess.run(["git", "--git-dir", gitdir] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


def listing(spec, mirror, root):
    """The files of a spec row at its commit, or None when the repository is not at hand."""
    d = spec["repo"].replace("/", "+")
    if spec["source"].startswith("index:"):
        mirror = None
    if mirror:
        g = os.path.join(mirror, d, "repo")
        if not os.path.isdir(g):
            return None
        names = git(g, "ls-tree", "-r", "--name-only", spec["commit"])
        return None if names is None else names.split("\n")
    base = os.path.join(root or "", d)
    if not root or not os.path.isdir(base):
        return None
    if spec["source"].startswith("index:") and not os.path.isfile(os.path.join(base, spec["globs"])):
        return None  # one file copied from the index: its copy is not in this root (other copies may be)
    return [os.path.relpath(os.path.join(p, f), base) for p, _, fs in os.walk(base) for f in fs]


def read_blobs(gitdir, commit, paths):
    """{path: text} of the files at the commit: one `git cat-file --batch` for all."""
    req = "".join("%s:%s\n" % (commit, p) for p in paths).encode("utf-8")
    out = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "--batch"], input=req,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    texts, pos = {}, 0
    for p in paths:
        end = out.index(b"\n", pos)
        head = out[pos:end].split(b" ")
        pos = end + 1
        if len(head) != 3:  # "<name> missing"
            continue
        size = int(head[2])
        texts[p] = out[pos:pos + size].decode("utf-8", "replace")
        pos += size + 1
    return texts


def read(spec, paths, mirror, root):
    """{path: text} of a spec row's files."""
    d = spec["repo"].replace("/", "+")
    if mirror and not spec["source"].startswith("index:"):
        return read_blobs(os.path.join(mirror, d, "repo"), spec["commit"], paths)
    texts = {}
    for p in paths:
        with open(os.path.join(root, d, p), encoding="utf-8", errors="replace") as f:
            texts[p] = f.read()
    return texts


def scan_spec(spec, mirror, root):
    """The rows of one scan.tsv row, None when its repository is not at hand."""
    names = listing(spec, mirror, root)
    if names is None:
        return None, []
    rows, errors, todo = [], [], []
    for glob in spec["globs"].split(" "):
        hits = sorted(n for n in names if fnmatch.fnmatchcase(n, glob) and n.endswith((".py", ".cpp", ".cc", ".cu", ".hpp", ".h")))
        if not hits:
            errors.append("%s@%s: no file matches %s" % (spec["repo"], spec["commit"][:12], glob))
        todo += hits
    texts = read(spec, todo, mirror, root)
    for path in todo:
        text = texts.get(path)
        if text is None:
            errors.append("%s %s: not at %s" % (spec["repo"], path, spec["commit"][:12]))
            continue
        if spec["source"].startswith("index:") and len(text) != int(spec["source"].split(":")[2]):
            errors.append("%s %s: the copy has %d characters, the index's file %s" % (
                spec["repo"], path, len(text), spec["source"].split(":")[2]))
            continue
        found = scan_python(text) if path.endswith(".py") else scan_cxx(text)
        if found is None:
            errors.append("%s %s: not parsed" % (spec["repo"], path))
            continue
        for line, api, lit in sorted(found):
            lit = re.sub(r"[\t\n\r]+", " ", lit).strip()
            rows.append({"framework": spec["framework"], "repo": spec["repo"], "path": path,
                         "commit": spec["commit"], "line": str(line), "api": api, "literal": lit})
    return rows, errors


def render(rows):
    head = ["# GENERATED by tools/framework-errors/scan.py from scan.tsv and the repositories' files: every",
            "# error and warning literal of the files scan.tsv names (classes.tsv gives each its class)",
            "\t".join(COLS)]
    seen, lines = set(), []
    for r in rows:
        k = (r["framework"], r["repo"], r["path"], r["line"], r["literal"])
        if k not in seen:
            seen.add(k)
            lines.append("\t".join(r[c] for c in COLS))
    return "\n".join(head + lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror")
    ap.add_argument("--root")
    ap.add_argument("--spec", default=os.path.join(fwlib.HERE, "scan.tsv"))
    ap.add_argument("--out", default=os.path.join(fwlib.HERE, "scanned.tsv"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not a.mirror and not a.root:
        ap.error("give --mirror DIR, --root DIR or both")
    old = fwlib.read_tsv(a.out) if os.path.exists(a.out) else []
    rows, errors, absent = [], [], 0
    for spec in fwlib.read_tsv(a.spec):
        got, errs = scan_spec(spec, a.mirror, a.root)
        errors += errs
        if got is None:
            absent += 1
            print("scan: not at hand: %s@%s %s (its rows kept)" % (spec["repo"], spec["commit"][:12], spec["globs"]))
            got = [r for r in old if r["repo"] == spec["repo"] and r["commit"] == spec["commit"] and
                   any(fnmatch.fnmatchcase(r["path"], gl) for gl in spec["globs"].split(" "))]
        rows += got
    for e in errors:
        print("scan: " + e, file=sys.stderr)
    text = render(rows)
    n = text.count("\n") - 3
    if a.check:
        with open(a.out, encoding="utf-8") as f:
            same = f.read() == text
        print("scan: %d literals, %d scan.tsv rows not at hand; %s" % (n, absent, "current" if same else "DIFFERS"))
        return 0 if same and not errors else 1
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("scan: %d literals written to %s (%d scan.tsv rows not at hand)" % (n, a.out, absent))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
