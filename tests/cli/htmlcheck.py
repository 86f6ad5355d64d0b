#!/usr/bin/env python3
"""Checks the shape of nccl-doctor's HTML page (--html FILE, docs/html.md).

usage: htmlcheck.py PAGE [--json FILE] [--pairs N] [--absent TEXT]...
                         [--text TEXT]... [--json-text TEXT]... [-- PAGE ...]

Several pages, each with its options, are separated by "--" (one python3
start for all: the tests run on a loaded machine). Each line names the page.

Checks, each a line "ok ..." or "not ok ..." (exit 1 when one fails):
  - well formed: one DOCTYPE, every element closed in order (the void ones
    excepted), nothing left open, no parser error;
  - self-contained: no element that loads something (img, link, iframe,
    object, embed, audio, video, source, a script with src), no attribute
    src, href (but "#..."), action, srcset, poster, formaction or
    xlink:href, no url(, @import or "http:"/"https:"/"//" in a style, and
    the Content-Security-Policy default-src 'none';
  - one script only, of type application/json, whose text parses; with
    --json it equals the JSON in FILE (the --json output of the same run);
  - the heatmaps (svg.heatmap): one g.pair per ordered GPU pair of the
    embedded JSON ("pairs" or "p2p_test"."pairs"), each pair once (its
    <title> "GPU a -> GPU b"), in the status heatmap and the bandwidth one
    when there is one; with --pairs N, N pairs;
  - --absent TEXT: TEXT is nowhere in the file (a secret); --text TEXT:
    TEXT is in the page's visible text (entities decoded); --json-text
    TEXT: TEXT is in a string of the embedded JSON (escapes decoded).
"""
import json
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
LOADS = {"img", "link", "iframe", "frame", "object", "embed", "audio", "video", "source", "track", "image", "use"}
URL_ATTRS = {"src", "href", "action", "srcset", "poster", "formaction", "xlink:href", "data", "background"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.problems = []
        self.doctype = 0
        self.scripts = []  # [attrs, text]
        self.styles = []
        self.text = []
        self.csp = None
        self.svgs = []  # [class, [pair titles]]
        self.in_pair = None
        self.title_of = None

    def handle_decl(self, decl):
        if decl.lower() == "doctype html":
            self.doctype += 1

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        where = "%s at line %d" % (tag, self.getpos()[0])
        if tag in LOADS or (tag == "script" and "src" in a):
            self.problems.append("an element that loads something: " + where)
        for k, v in attrs:
            if k in URL_ATTRS and not (k == "href" and (v or "").startswith("#")):
                self.problems.append("attribute %s=%r: %s" % (k, v, where))
            if k == "style" and v and re.search(r"url\(|@import|https?:|//", v):
                self.problems.append("a style that loads something: " + where)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content")
        if tag == "script":
            self.scripts.append([a, ""])
        if tag == "svg":
            self.svgs.append([a.get("class") or "", []])
        if tag == "g" and "pair" in (a.get("class") or "").split():
            self.in_pair = len(self.stack)
        if tag == "title" and self.in_pair is not None:
            self.title_of = ""
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag in VOID or tag in ("rect", "path", "line", "circle"):
            self.handle_starttag(tag, attrs)
            if tag not in VOID:
                self.stack.pop()
        else:
            self.problems.append("self-closed <%s/> at line %d" % (tag, self.getpos()[0]))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append("</%s> at line %d closes %s" % (tag, self.getpos()[0], self.stack[-1:] or "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag == "title" and self.title_of is not None:
            self.svgs[-1][1].append(self.title_of)
            self.title_of = None
        if tag == "g" and self.in_pair == len(self.stack):
            self.in_pair = None

    def handle_data(self, data):
        top = self.stack[-1] if self.stack else ""
        if top == "script":
            self.scripts[-1][1] += data
        elif top == "style":
            self.styles.append(data)
        else:
            self.text.append(data)
        if self.title_of is not None:
            self.title_of += data


def strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)


def page(args):
    path, want_json, want_pairs, absent, texts, jtexts = args[0], None, None, [], [], []
    i = 1
    while i < len(args):
        opt, val = args[i], args[i + 1]
        if opt == "--json":
            want_json = val
        elif opt == "--pairs":
            want_pairs = int(val)
        elif opt == "--absent":
            absent.append(val)
        elif opt == "--text":
            texts.append(val)
        elif opt == "--json-text":
            jtexts.append(val)
        else:
            sys.exit("htmlcheck.py: unknown option " + opt)
        i += 2
    raw = open(path, encoding="utf-8").read()
    p = Page()
    p.feed(raw)
    p.close()
    fails = 0
    name = path.rsplit("/", 1)[-1]

    def check(good, what):
        nonlocal fails
        print(("ok " if good else "not ok ") + name + ": " + what)
        fails += not good

    check(p.doctype == 1 and raw.startswith("<!DOCTYPE html>"), "one DOCTYPE html, first")
    check(not p.stack, "every element closed (left open: %s)" % p.stack)
    closing = [x for x in p.problems if " closes " in x or "self-closed" in x]
    check(not closing, "elements closed in order%s" % (": " + "; ".join(closing[:3]) if closing else ""))
    loads = [x for x in p.problems if x not in closing]
    style = "".join(p.styles)
    check(not loads and not re.search(r"url\(|@import|https?:|//", style),
          "nothing loaded from elsewhere%s" % (": " + "; ".join(loads[:3]) if loads else ""))
    check(not re.search(r"<[^>]*\b(?:https?:|src=|href=\"(?!#))", raw, re.I), "no http:, src= or href= in any tag")
    check(p.csp is not None and "default-src 'none'" in p.csp, "Content-Security-Policy default-src 'none'")
    check(len(p.scripts) == 1 and p.scripts[0][0].get("type") == "application/json",
          "one script, of type application/json (%d scripts)" % len(p.scripts))
    doc = None
    try:
        doc = json.loads(p.scripts[0][1]) if p.scripts else None
        check(isinstance(doc, dict), "the embedded JSON parses")
    except ValueError as e:
        check(False, "the embedded JSON parses: %s" % e)
    if want_json is not None:
        ref = json.load(open(want_json))
        same = doc == ref
        why = ""
        if not same and isinstance(doc, dict):
            why = ": members differ: %s" % sorted(k for k in set(doc) | set(ref) if doc.get(k) != ref.get(k))[:5]
        check(same, "the embedded JSON equals the --json output" + why)
    pairs = None
    if isinstance(doc, dict):
        pairs = doc.get("pairs")
        if not isinstance(pairs, list):
            pairs = (doc.get("p2p_test") or {}).get("pairs")
    maps = [s for s in p.svgs if "heatmap" in s[0].split()]
    if pairs:
        want = {(q["src"], q["dst"]) for q in pairs}
        check(len(want) == len(pairs), "the JSON's pairs are distinct ordered pairs")
        if want_pairs is not None:
            check(len(pairs) == want_pairs, "%d pairs in the JSON (wanted %d)" % (len(pairs), want_pairs))
        check(any("status" in s[0].split() for s in maps), "a status heatmap")
        bw = any(isinstance(q.get("ce_gbs"), (int, float)) for q in pairs)
        check(any("bandwidth" in s[0].split() for s in maps) == bw,
              "a bandwidth heatmap exactly when bandwidth was measured (%s)" % bw)
        for cls, titles in maps:
            got = []
            for t in titles:
                m = re.match(r"GPU (\d+) \u2192 GPU (\d+):", t)
                got.append((int(m.group(1)), int(m.group(2))) if m else None)
            check(len(got) == len(pairs) and set(got) == want,
                  "%s: one cell per GPU pair (%d cells, %d pairs)" % (cls, len(got), len(pairs)))
    else:
        check(not maps, "no heatmap without pairs")
        if want_pairs is not None:
            check(False, "%d pairs wanted, the JSON has none" % want_pairs)
    for a in absent:
        check(a not in raw, "%r is nowhere in the page" % a)
    visible = re.sub(r"\s+", " ", "".join(p.text))
    for t in texts:
        check(t in visible, "%r in the visible text" % t)
    for t in jtexts:
        check(any(t in x for x in strings(doc)), "%r in the embedded JSON" % t)
    return fails


def main(argv):
    groups, cur = [], []
    for a in argv[1:]:
        if a == "--" and cur:
            groups.append(cur)
            cur = []
        else:
            cur.append(a)
    if cur:
        groups.append(cur)
    return 1 if sum(page(g) for g in groups) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
