#!/usr/bin/env python3
"""One report never contradicts itself (tests/cli/t610-report-consistency.sh).

    consistency.py DIR      checks every case of DIR: NAME.txt (text report),
                            NAME.json (the --json report), NAME.err (stderr of
                            the text run), NAME.rc / NAME.jrc (exit statuses),
                            NAME.cmd (the command line after the global options)
    consistency.py --selftest
                            feeds every rule a doctored report, which it must
                            fail, and a sound one, which it must pass

Rules (each a function below, named in its complaints):
  verdict      the text's verdict line == the JSON verdict; both runs exit the
               same and as the verdict says (summary.exit_code, and the verdict
               word's own status where it has one); check's headline starts
               with the verdict
  healthy      "healthy machine (expected)" never beside "no comparison with a
               healthy machine"
  keeps        one configuration never shown with two different "keeps"
               numbers; a configuration that hung or failed never shown with an
               expected/keeps percentage (the trials table's expected column
               is "-" there)
  p2p-nccl     p2p (and check's p2p stage): a pair's NCCL outcome in the stderr progress lines
               ("nccl A<->B: ... hang ...") agrees with the table's NCCL column
  check-opts   the check's stages never advise an option or argument check
               cannot take (a FILE to pass, an option of another command),
               except inside a quoted command line of another command
  cause        "most likely cause" only when the verdict is not HEALTHY
  forms        every form printed (shell/docker/kubernetes/torchrun/vllm) has
               a body
  fr-ranks     flight recorder: "dumps from N" counts distinct ranks
"""
import json
import os
import re
import sys

FORMS = ("shell", "docker", "kubernetes", "torchrun", "vllm")
# verdict words whose exit status is fixed (README, `check -h`, docs/fix.md):
# the one vocabulary; fix exits with its search's outcome, so a BROKEN
# configuration as given where the search found a fix exits 1
VERDICT_RC = {"HEALTHY": {0}, "BROKEN": {2}, "DEGRADED": {1}, "NOTHING TO CHECK": {3}}
FIX_VERDICT_RC = dict(VERDICT_RC, BROKEN={1, 2})
# options every command takes (main.c's global options)
GLOBAL_OPTS = {"--json", "--sysroot", "--gpus", "--timeout", "--nccl", "--no-color", "--help", "--version", "--quiet", "--progress"}
CHECK_OPTS = {"--budget", "--force", "--max-bytes", "--quiet", "--progress", "--driver"}


class Case:
    def __init__(self, name, txt, js, err="", rc=None, jrc=None, cmd=""):
        self.name, self.txt, self.err, self.rc, self.jrc = name, txt, err, rc, jrc
        self.cmd = cmd.split()
        self.command = self.cmd[0] if self.cmd else ""
        self.js = None
        self.js_error = None
        if js is not None and js.strip():
            try:
                self.js = json.loads(js)
            except ValueError as e:
                self.js_error = str(e)


def text_verdict(txt):
    """The verdict of the last 'Verdict: X (N errors, ...)' line of a text report."""
    v = None
    for line in txt.splitlines():
        m = re.match(r"^Verdict: (.*?) \(\d+ errors?, ", line)
        if m:
            v = m.group(1).strip()
    return v


# commands that do no GPU work: their two runs (text, --json) must say the
# same. A GPU command's two runs are two measurements (under load a deadline
# may pass in one and not in the other), so each is checked on its own.
SAME_INPUT = {"sys", "topo", "kernel", "logs", "explain"}
HEADLINE_VERDICT = {"check", "fix"}


def rule_verdict(c):
    bad = []
    tv = text_verdict(c.txt)
    jv = c.js.get("verdict") if c.js is not None else None
    if c.command in SAME_INPUT:
        if c.rc is not None and c.jrc is not None and c.rc != c.jrc:
            bad.append("text run exits %d, --json run %d" % (c.rc, c.jrc))
        if jv is not None and tv is not None and tv != jv:
            bad.append("text says 'Verdict: %s', JSON verdict '%s'" % (tv, jv))
    # the text run: its verdict line, its headline, its exit status
    rcs = FIX_VERDICT_RC if c.command == "fix" else VERDICT_RC
    want = rcs.get(tv)
    if want is not None and c.rc is not None and c.rc not in want:
        bad.append("text says 'Verdict: %s' but exits %d (wanted %s)" % (tv, c.rc, sorted(want)))
    first = c.txt.lstrip().split("\n", 1)[0]
    if c.command in HEADLINE_VERDICT and tv and not first.startswith(tv + ":"):
        bad.append("text headline '%s' does not start with its verdict %s" % (first[:80], tv))
    if c.js is None:
        if c.jrc is not None and c.jrc not in (3, 64, 124) and c.js_error:
            bad.append("--json output is not JSON: %s" % c.js_error)
        return bad
    # the --json run: its verdict, its summary, its exit status, its headline
    code = (c.js.get("summary") or {}).get("exit_code")
    if code is not None and c.jrc is not None and code != c.jrc:
        bad.append("JSON summary.exit_code %s but the run exits %d" % (code, c.jrc))
    want = rcs.get(jv)
    if want is not None and c.jrc is not None and c.jrc not in want:
        bad.append("JSON verdict %s but the run exits %d (wanted %s)" % (jv, c.jrc, sorted(want)))
    head = str(c.js.get("headline") or "")
    if c.command in HEADLINE_VERDICT and jv and not head.startswith(jv + ":"):
        bad.append("JSON headline '%s' does not start with its verdict %s" % (head[:80], jv))
    return bad


def rule_healthy(c):
    for where, s in (("text", c.txt), ("JSON", json.dumps(c.js) if c.js is not None else "")):
        if "healthy machine (expected)" in s and "no comparison with a healthy machine" in s:
            return ["%s shows 'healthy machine (expected)' and says 'no comparison with a healthy machine'" % where]
    return []


# "NCCL_P2P_LEVEL=PIX keeps ~79% of ..." / a row "keeps  ~79%" (the
# recommendation's), a trials table with an expected column
KEEPS_NOTE = re.compile(r"^\s*(\S.*?) keeps ~(\d+)%")
KEEPS_ROW = re.compile(r"^\s*keeps(?: \(expected\))?\s{2,}~?(\d+)%")
REC_ROW = re.compile(r"^\s*recommended\s{2,}(\S.*?)\s*$")
# a trial that hung or failed; "not finished in X s (deadline cut by the
# budget)" is neither (a cut-short run never makes a configuration look broken)
FAILED = re.compile(r"^(HANG|FAIL|ERROR|CRASH|init |exit|killed|error|cannot|timed out)", re.I)


def trials_rows(txt):
    """(configuration, expected cell, result cell) of every trials table."""
    rows = []
    lines = txt.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)configuration(\s+)(keeps \(expected\)|expected)(\s+)", line)
        if not m:
            continue
        hdr = line
        c_exp = hdr.index(m.group(3))
        # the result column: the third header word after expected (init/all_reduce/command)
        res_name = None
        for name in ("all_reduce", "command"):
            if re.search(r"\s%s\s" % name, hdr + " "):
                res_name = name
                break
        c_res = (hdr + " ").index(" " + res_name + " ") + 1 if res_name else None
        starts = [mm.start() for mm in re.finditer(r"(?<=\s\s)\S", hdr)]
        for row in lines[i + 1:]:
            if not row.strip() or not row.startswith(" ") or row.lstrip().startswith("each trial"):
                break
            body = row[: c_exp].strip().lstrip("!* ").strip()
            nxt = [s for s in starts if s > c_exp]
            exp = row[c_exp: nxt[0] if nxt else None].strip()
            res = ""
            if c_res is not None:
                nr = [s for s in starts if s > c_res]
                res = row[c_res: nr[0] if nr else None].strip()
            rows.append((body, exp, res))
    return rows


def rule_keeps(c):
    bad = []
    seen = {}
    rec = None
    for line in c.txt.splitlines():
        m = REC_ROW.match(line)
        if m:
            rec = m.group(1)
        m = KEEPS_ROW.match(line)
        if m and rec:
            seen.setdefault(rec, set()).add(int(m.group(1)))
        m = KEEPS_NOTE.match(line)
        if m:
            seen.setdefault(m.group(1).strip(), set()).add(int(m.group(2)))
    for cfg, vals in seen.items():
        if len(vals) > 1:
            bad.append("'%s' shown keeping %s" % (cfg, " and ".join("~%d%%" % v for v in sorted(vals))))
    failed = set()
    for cfg, exp, res in trials_rows(c.txt):
        if res and FAILED.match(res):
            failed.add(cfg)
            if re.match(r"~?\d+%", exp):
                bad.append("'%s' %s but shown with expected %s" % (cfg, res[:60], exp))
    for cfg in failed & set(seen):
        bad.append("'%s' hung or failed but is shown keeping ~%d%%" % (cfg, min(seen[cfg])))
    # the JSON's keeps number is the text's
    if c.js is not None and rec in seen:
        fix = (c.js.get("facts") or {}).get("fix") or {}
        kp = fix.get("keeps_percent")
        if isinstance(kp, (int, float)) and int(round(kp)) not in seen[rec]:
            bad.append("JSON keeps_percent %s, text ~%s%%" % (kp, "/".join(map(str, sorted(seen[rec])))))
    return bad


def rule_p2p_nccl(c):
    if c.command not in ("p2p", "check"):
        return []
    bad = []
    # the table's NCCL column, per ordered pair
    table = {}
    lines = c.txt.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\s*pair\s+link\s", line) and " NCCL " in line + " ":
            col = line.index(" NCCL") + 1
            starts = [mm.start() for mm in re.finditer(r"(?<=\s\s)\S", line)]
            nxt = [s for s in starts if s > col]
            for row in lines[i + 1:]:
                m = re.match(r"^\s*[!*]?\s*(\d+)->(\d+)\s", row)
                if not m:
                    break
                table[(int(m.group(1)), int(m.group(2)))] = row[col: nxt[0] if nxt else None].strip()
            break
    for line in c.err.splitlines():
        m = re.search(r"\bnccl (\d+)<->(\d+): (.*)$", line)
        if not m:
            continue
        a, b, what = int(m.group(1)), int(m.group(2)), m.group(3).lower()
        failed = bool(re.search(r"hang|fail|error|corrupt|wrong|timed out", what))
        for pair in ((a, b), (b, a)):
            cell = table.get(pair)
            if cell is None:
                continue
            cell_ok = cell.lower().startswith("ok")
            if failed and cell_ok:
                bad.append("stderr 'nccl %d<->%d: %s' but the table's NCCL column says '%s' for %d->%d" %
                           (a, b, m.group(3)[:60], cell, pair[0], pair[1]))
            elif not failed and "ok" in what and cell and not cell_ok and cell not in ("-", "not run", "skipped"):
                bad.append("stderr 'nccl %d<->%d: %s' but the table's NCCL column says '%s' for %d->%d" %
                           (a, b, m.group(3)[:60], cell, pair[0], pair[1]))
    return bad


def check_advice_spans(c):
    """The texts check's stages show: the Stages table and 'Stages that could
    not do their job' (text), facts.check.stages[].result and
    facts.stage_errors (JSON)."""
    spans = []
    lines = c.txt.splitlines()
    for i, line in enumerate(lines):
        if line.strip() in ("Stages", "Stages that could not do their job"):
            for row in lines[i + 1:]:
                if not row.strip() or not row.startswith("   "):
                    break
                spans.append(row)
    if c.js is not None:
        f = c.js.get("facts") or {}
        for s in (f.get("check") or {}).get("stages") or []:
            spans.append(str(s.get("result", "")))
        se = f.get("stage_errors")
        if se:
            spans.append(json.dumps(se))
    return spans


def rule_check_opts(c):
    if c.command != "check":
        return []
    bad = []
    for s in check_advice_spans(c):
        # a quoted command line of another command is fine ('nccl-doctor kernel FILE')
        bare = re.sub(r"'nccl-doctor (?!check\b)[a-z]+[^']*'?", "", s)
        bare = re.sub(r"'(?:sudo )?(?:dmesg|journalctl)[^']*'", "", bare)
        if re.search(r"\b(?:as|a|the) FILE\b|\bFILE\b", bare):
            bad.append("check advises a FILE it cannot take: %s" % s.strip()[:120])
        for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]*", bare):
            if opt not in GLOBAL_OPTS and opt not in CHECK_OPTS:
                bad.append("check advises %s, which check does not take: %s" % (opt, s.strip()[:120]))
    return bad


def rule_cause(c):
    if c.js is None:
        return []
    v = c.js.get("verdict")
    if v != "HEALTHY":
        return []
    bad = []
    if "most likely cause" in c.txt or "most likely " in c.txt.split("\n", 1)[0]:
        bad.append("verdict HEALTHY but the text names a 'most likely cause'")
    if "most likely cause" in str(c.js.get("headline", "")):
        bad.append("verdict HEALTHY but the JSON headline names a 'most likely cause'")
    return bad


FORM_HEAD = re.compile(r"^(\s*)(%s)(?: \(([^)]*)\))?:\s*$" % "|".join(FORMS))


def form_bodies(lines):
    """[(form, label, body lines)] for every form header in lines."""
    out = []
    for i, line in enumerate(lines):
        m = FORM_HEAD.match(line)
        if not m:
            continue
        ind = len(m.group(1))
        body = []
        for row in lines[i + 1:]:
            if not row.strip():
                break
            if len(row) - len(row.lstrip()) <= ind:
                break
            body.append(row)
        out.append((m.group(2), m.group(3), body))
    return out


def rule_forms(c):
    bad = []
    for form, label, body in form_bodies(c.txt.splitlines()):
        if not any(b.strip() for b in body):
            bad.append("text: the %s form%s is printed empty" % (form, " (%s)" % label if label else ""))
    if c.js is not None:
        def walk(o):
            if isinstance(o, dict):
                for v in o.values():
                    yield from walk(v)
            elif isinstance(o, list):
                if o and all(isinstance(x, str) for x in o):
                    yield o
                for v in o:
                    yield from walk(v)
        for notes in walk(c.js):
            for form, label, body in form_bodies(notes):
                if not any(b.strip() for b in body):
                    bad.append("JSON: the %s form%s is printed empty" % (form, " (%s)" % label if label else ""))
    return bad


def rule_fr_ranks(c):
    if c.js is None or c.command != "logs":
        return []
    bad = []
    ranks = set()
    for f in c.js.get("findings") or []:
        if f.get("id") == "LOG_FR_SUMMARY":
            for e in f.get("evidence") or []:
                m = re.match(r"rank (\d+) pg ", e.get("text", ""))
                if m:
                    ranks.add(int(m.group(1)))
    for f in c.js.get("findings") or []:
        for e in f.get("evidence") or []:
            m = re.search(r"dumps from (\d+)", e.get("text", ""))
            if m and ranks and int(m.group(1)) > len(ranks):
                bad.append("'%s' but the dumps are of %d distinct rank%s" % (
                    e["text"][:100], len(ranks), "" if len(ranks) == 1 else "s"))
    return bad


RULES = [("verdict", rule_verdict), ("healthy", rule_healthy), ("keeps", rule_keeps), ("p2p-nccl", rule_p2p_nccl),
         ("check-opts", rule_check_opts), ("cause", rule_cause), ("forms", rule_forms), ("fr-ranks", rule_fr_ranks)]


def check_case(c):
    out = []
    for name, fn in RULES:
        for msg in fn(c):
            out.append((name, msg))
    return out


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def load_dir(d):
    names = sorted({f[: -len(".cmd")] for f in os.listdir(d) if f.endswith(".cmd")})
    cases = []
    for n in names:
        p = os.path.join(d, n)

        def num(ext):
            s = read(p + ext).strip()
            return int(s) if s.lstrip("-").isdigit() else None
        cases.append(Case(n, read(p + ".txt"), read(p + ".json", None), read(p + ".err"), num(".rc"), num(".jrc"),
                          read(p + ".cmd").strip()))
    return cases


def main_dir(d):
    cases = load_dir(d)
    nbad = 0
    for c in cases:
        for rule, msg in check_case(c):
            nbad += 1
            print("%s [%s] %s: %s" % (c.name, " ".join(c.cmd)[:100], rule, msg))
    verdicts = {}
    for c in cases:
        if c.js is not None and c.js.get("verdict"):
            verdicts[c.js["verdict"]] = verdicts.get(c.js["verdict"], 0) + 1
    print("%d cases, %d contradictions; verdicts: %s" % (
        len(cases), nbad, ", ".join("%s %d" % kv for kv in sorted(verdicts.items()))))
    return 1 if nbad or not cases else 0


# ---- self-test: a sound report per command, and one doctoring per rule ----

SOUND_FIX_TXT = """BROKEN: 4 GPUs, 10.4 s; most likely cause p2p_pcie_acs_iommu (0.94); works with NCCL_P2P_LEVEL=PIX

Check
  Stages
    stage   time    result
    sys     0.01 s  problem found
    kernel  0.00 s  cannot read '/dev/kmsg' in the sysroot 'x': missing; give a saved log: 'nccl-doctor kernel --sysroot DIR FILE'
    bench   3.17 s  HANG at size 8 of op all_reduce warm-up

Fix: configurations tried (fastest expected first)
   recommended          NCCL_P2P_LEVEL=PIX
   measured busbw (64M)  9.9
   healthy machine (expected)  12.5
   keeps                ~79%
  Trials (all_reduce, float sum, busbw in GB/s)
    configuration                          expected  init  init s  all_reduce                               busbw 1M  time
  ! as given                               -         ok    0.08    HANG at size 8 of op all_reduce warm-up  -         3.2 s
    NCCL_P2P_LEVEL=PIX                     ~55%      ok    0.08    OK                                       8.18      0.2 s
    NCCL_P2P_DISABLE=1                     ~35%      -     -       not tried (a faster one works)           -         -
   each trial: one process per GPU
   NCCL_P2P_LEVEL=PIX keeps ~79% of the bandwidth a healthy machine of this topology gives
   shell (NCCL_P2P_LEVEL=PIX):
       export NCCL_P2P_LEVEL=PIX
   docker (NCCL_P2P_LEVEL=PIX):
       docker run -e NCCL_P2P_LEVEL=PIX --shm-size=16g --gpus all IMAGE COMMAND

Verdict: BROKEN (3 errors, 1 warning, 1 note)
"""
SOUND_FIX_JSON = {"verdict": "BROKEN", "headline": "BROKEN: 4 GPUs", "summary": {"exit_code": 2},
                  "facts": {"check": {"stages": [{"stage": "kernel", "result": "give a saved log: 'nccl-doctor kernel FILE'"}]},
                            "fix": {"keeps_percent": 79, "notes": ["shell (X):", "    export X=1"]}},
                  "findings": []}
SOUND_P2P_TXT = """GPU pairs
    pair  link  peer access  status  CE      SM  NCCL  detail
    0->1  PIX   yes          OK      ok p2p  ok  ok
  ! 0->3  PXB   yes          HANG    -       -   BAD   0->3 ce copy
    3->0  PXB   yes          HANG    -       -   BAD   3->0 ce copy

Verdict: BROKEN (1 error, 0 warnings, 0 notes)
"""
SOUND_P2P_ERR = ("nccl-doctor p2p [  1.0s] p2p: nccl 0<->3: rank 0 hang at 'ncclSend/ncclRecv', 1/6 pairs\n"
                 "nccl-doctor p2p [  1.0s] p2p: nccl 0<->1: ok, 2/6 pairs\n")
SOUND_LOGS_JSON = {"verdict": "BROKEN", "summary": {"exit_code": 2}, "findings": [
    {"id": "LOG_FR_SUMMARY", "evidence": [{"text": "rank 0 pg 0: last completed x"}, {"text": "rank 1 pg 0: last completed y"}]},
    {"id": "LOG_FR_STRAGGLER", "evidence": [{"text": "pg 0 has 3 ranks (pg_config), dumps from 2; missing: 2"}]}]}
SOUND_HEALTHY_TXT = "HEALTHY: 8 GPUs, 3.0 s\n\nVerdict: HEALTHY (0 errors, 0 warnings, 0 notes)\n"
SOUND_HEALTHY_JSON = {"verdict": "HEALTHY", "headline": "HEALTHY: 8 GPUs, 3.0 s", "summary": {"exit_code": 0}}


def mk(name, cmd, txt, js, err="", rc=None):
    if rc is None:
        rc = (js or {}).get("summary", {}).get("exit_code", 0)
    return Case(name, txt, json.dumps(js) if js is not None else None, err, rc, rc, cmd)


def selftest():
    sound = [mk("fix", "check --driver", SOUND_FIX_TXT, SOUND_FIX_JSON),
             mk("p2p", "p2p --quick", SOUND_P2P_TXT, {"verdict": "BROKEN", "summary": {"exit_code": 2}}, SOUND_P2P_ERR),
             mk("logs", "logs x", "Verdict: BROKEN (1 error, 0 warnings, 0 notes)\n", SOUND_LOGS_JSON),
             mk("healthy", "check", SOUND_HEALTHY_TXT, SOUND_HEALTHY_JSON)]
    fails = 0
    for c in sound:
        got = check_case(c)
        if got:
            fails += 1
            print("FAIL sound report %s flagged: %s" % (c.name, got))
    fx = SOUND_FIX_TXT
    doctored = [
        ("verdict", mk("v1", "check", fx.replace("Verdict: BROKEN", "Verdict: HEALTHY"), SOUND_FIX_JSON)),
        ("verdict", mk("v2", "check", fx, SOUND_FIX_JSON, rc=0)),
        ("verdict", mk("v3", "check", fx.replace("BROKEN: 4 GPUs", "DEGRADED: 4 GPUs"), SOUND_FIX_JSON)),
        ("verdict", Case("v4", "Verdict: BROKEN (1 error, 0 warnings, 0 notes)\n", json.dumps(SOUND_LOGS_JSON),
                         "", 2, 1, "logs x")),
        ("verdict", mk("v5", "logs x", "Verdict: HEALTHY (0 errors, 0 warnings, 0 notes)\n", SOUND_LOGS_JSON, rc=2)),
        ("verdict", mk("v6", "check", fx, dict(SOUND_FIX_JSON, summary={"exit_code": 1}))),
        ("healthy", mk("h", "check", fx.replace("   keeps                ~79%",
                                                "   no comparison with a healthy machine"), SOUND_FIX_JSON)),
        ("keeps", mk("k1", "check", fx.replace("   keeps                ~79%", "   keeps                ~100%"), SOUND_FIX_JSON)),
        ("keeps", mk("k2", "check", fx.replace("! as given                               -        ",
                                               "! as given                               ~100%    "), SOUND_FIX_JSON)),
        ("keeps", mk("k3", "check", fx + "   as given keeps ~100% of the bandwidth\n", SOUND_FIX_JSON)),
        ("keeps", mk("k4", "check", fx, dict(SOUND_FIX_JSON, facts=dict(SOUND_FIX_JSON["facts"], fix={"keeps_percent": 100})))),
        ("p2p-nccl", mk("p", "p2p", SOUND_P2P_TXT.replace("HANG    -       -   BAD   0->3", "HANG    -       -   ok    0->3"),
                        {"verdict": "BROKEN", "summary": {"exit_code": 2}}, SOUND_P2P_ERR)),
        ("p2p-nccl", mk("p2", "p2p", SOUND_P2P_TXT, {"verdict": "BROKEN", "summary": {"exit_code": 2}},
                        SOUND_P2P_ERR.replace("nccl 0<->1: ok", "nccl 0<->1: rank 1 hang at 'ncclSend'"))),
        ("check-opts", mk("o1", "check", fx.replace("give a saved log: 'nccl-doctor kernel --sysroot DIR FILE'",
                                                    "pass a saved log as FILE"), SOUND_FIX_JSON)),
        ("check-opts", mk("o2", "check", fx.replace("problem found", "run again with --max-line 1M"), SOUND_FIX_JSON)),
        ("cause", mk("c", "check", SOUND_HEALTHY_TXT.replace("3.0 s", "3.0 s; most likely cause version_mismatch (0.25)"),
                     SOUND_HEALTHY_JSON)),
        ("forms", mk("f1", "check", fx.replace("       export NCCL_P2P_LEVEL=PIX\n", ""), SOUND_FIX_JSON)),
        ("forms", mk("f2", "check", fx, dict(SOUND_FIX_JSON, facts=dict(SOUND_FIX_JSON["facts"],
                                                                         fix={"notes": ["kubernetes (X):", "vllm (X):", "    vllm serve"]})))),
        ("fr-ranks", mk("r", "logs x", "Verdict: BROKEN (1 error)\n",
                        json.loads(json.dumps(SOUND_LOGS_JSON).replace("rank 1 pg 0", "rank 0 pg 0")))),
    ]
    for rule, c in doctored:
        got = [r for r, _ in check_case(c)]
        if rule not in got:
            fails += 1
            print("FAIL doctored report %s: rule %s did not fire (got %s)" % (c.name, rule, got))
        else:
            print("ok - rule %s fails doctored report %s" % (rule, c.name))
    tested = {r for r, _ in doctored}
    for name, _ in RULES:
        if name not in tested:
            fails += 1
            print("FAIL rule %s has no doctored report" % name)
    print("self-test: %d failures" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--selftest":
        sys.exit(selftest())
    if len(sys.argv) != 2:
        print("usage: consistency.py DIR | --selftest", file=sys.stderr)
        sys.exit(64)
    sys.exit(main_dir(sys.argv[1]))
