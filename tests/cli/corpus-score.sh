#!/bin/bash
# Scores `nccl-doctor logs` on the public corpus of real failure logs
# (tests/fixtures/logs/public/, issue 14 item 9): for every case in
# manifest.tsv it runs `nccl-doctor --json logs CASE_DIR/*`, reads the ranked
# causes and compares them with the cause the public thread confirmed.
#
#   tests/cli/corpus-score.sh [--bin PATH] [--corpus DIR] [--case ID]...
#                             [--from ID] [--until ID]
#                             [--min-top1 PCT] [--min-top3 PCT] [--json FILE]
#                             [--from-json FILE] [-q]
#
# Prints one line per case (expected, got top-3, hit) and the totals
#   top-1: N/M (P%)  top-3: N/M (P%)
# --from/--until keep the cases whose id sorts at or after / before ID: the
# development set is 001-042, the held-out set added later starts at 043.
# --from-json FILE scores the ranking a former run wrote with --json
# instead of running the tool again (t48 gates every batch from one run).
# A case counts as a hit when the cause ranked first (top-1) or any of the
# first three (top-3) is the expected class or the acceptable alternative.
# Exit status: 0 (a score, not a verdict) unless --min-top1/--min-top3 are
# given and not met (1), or the tool could not be run at all (3).
# ctest runs it through t48-logs-corpus-score.sh with the thresholds each set reached.
# Needs bash and python3 (standard library only).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${ND_BIN:-$root/build/nccl-doctor}
corpus=$root/tests/fixtures/logs/public
min1= min3= jsonout= quiet=0 from= until= fromjson=
cases=()
while [ $# -gt 0 ]; do
	case "$1" in
	--bin) bin=$2; shift 2 ;;
	--corpus) corpus=$2; shift 2 ;;
	--case) cases+=("$2"); shift 2 ;;
	--from) from=$2; shift 2 ;;
	--until) until=$2; shift 2 ;;
	--min-top1) min1=$2; shift 2 ;;
	--min-top3) min3=$2; shift 2 ;;
	--json) jsonout=$2; shift 2 ;;
	--from-json) fromjson=$2; shift 2 ;;
	-q) quiet=1; shift ;;
	-h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) if [ -x "$1" ] && [ ! -d "$1" ]; then bin=$1; shift; else echo "corpus-score: unknown argument '$1'" >&2; exit 64; fi ;;
	esac
done
[ -n "$fromjson" ] || [ -x "$bin" ] || { echo "corpus-score: no executable nccl-doctor at '$bin' (build it, or give --bin)" >&2; exit 3; }
[ -f "$corpus/manifest.tsv" ] || { echo "corpus-score: no manifest.tsv in '$corpus'" >&2; exit 3; }
command -v python3 >/dev/null || { echo "corpus-score: python3 is needed" >&2; exit 3; }

exec python3 - "$bin" "$corpus" "$min1" "$min3" "$jsonout" "$quiet" "$from" "$until" "$fromjson" "${cases[@]+"${cases[@]}"}" <<'PY'
import csv, json, os, subprocess, sys

binary, corpus, min1, min3, jsonout, quiet, id_from, id_until, from_json = sys.argv[1:10]
only = set(sys.argv[10:])
scored = None
if from_json:
    try:
        with open(from_json) as f:
            scored = {c["id"]: c for c in json.load(f)["cases"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("corpus-score: cannot read the scores of '%s': %s" % (from_json, e), file=sys.stderr)
        sys.exit(3)
quiet = quiet == "1"


def cause_list(doc):
    """The ranked causes, best first, as (class, confidence) pairs.

    schema_version 1: a top-level "causes" array of objects with "cause" (the
    class) and "confidence". Tolerated too: the class under "class", and a
    later schema where the array sits under another key: the first array of
    objects carrying "class" or "cause", searched breadth-first."""
    def entries(arr):
        out = []
        for o in arr:
            if not isinstance(o, dict):
                continue
            c = o.get("class", o.get("cause"))
            if isinstance(c, dict):  # {"cause": {"class": ..}} shapes
                c = c.get("class") or c.get("id")
            if isinstance(c, str):
                conf = o.get("confidence", o.get("score"))
                out.append((c, conf if isinstance(conf, (int, float)) else None))
        return out

    if isinstance(doc, dict) and isinstance(doc.get("causes"), list):
        return entries(doc["causes"])
    queue = [doc]
    while queue:
        node = queue.pop(0)
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("findings",):  # findings carry "cause" too, but are not a ranking
                    continue
                if isinstance(v, list) and v and all(isinstance(o, dict) for o in v) \
                        and any(("class" in o or "cause" in o) and ("confidence" in o or "score" in o) for o in v):
                    return entries(v)
                queue.append(v)
        elif isinstance(node, list):
            queue.extend(node)
    return []


rows = []
with open(os.path.join(corpus, "manifest.tsv"), newline="") as f:
    for rec in csv.reader(f, delimiter="\t"):
        if not rec or rec[0].startswith("#") or rec[0] == "id":
            continue
        rec += [""] * (7 - len(rec))
        rows.append(rec)

results = []
n = hit1 = hit3 = 0
misses = {}
for cid, url, cause, alt, who, ver, summary in (r[:7] for r in rows):
    if only and cid not in only:
        continue
    if (id_from and cid < id_from) or (id_until and cid >= id_until):
        continue
    d = os.path.join(corpus, cid)
    files = sorted(os.path.join(d, x) for x in os.listdir(d)) if os.path.isdir(d) else []
    files = [p for p in files if os.path.isfile(p)]
    want = {cause} | ({alt} if alt and alt != "-" else set())
    got, err = [], ""
    if scored is not None:
        c = scored.get(cid)
        if c is None:
            err = "not in %s" % from_json
        else:
            got = [(g["class"], g.get("confidence")) for g in c.get("got", [])]
            err = c.get("error", "")
    elif not files:
        err = "no log files"
    else:
        try:
            p = subprocess.run([binary, "--json", "logs"] + files, capture_output=True, timeout=60)
            try:
                got = cause_list(json.loads(p.stdout.decode("utf-8", "replace")))
            except ValueError:
                err = "no JSON (exit %d): %s" % (p.returncode, p.stderr.decode("utf-8", "replace").strip()[:120])
        except subprocess.TimeoutExpired:
            err = "timed out"
    names = [c for c, _ in got]
    h1 = bool(names[:1]) and names[0] in want
    h3 = any(c in want for c in names[:3])
    n += 1
    hit1 += h1
    hit3 += h3
    if not h1:
        key = (cause, names[0] if names else "(none)")
        misses[key] = misses.get(key, 0) + 1
    results.append({"id": cid, "expected": cause, "alternative": alt if alt != "-" else "",
                    "got": [{"class": c, "confidence": s} for c, s in got],
                    "top1": h1, "top3": h3, "error": err})
    if not quiet:
        top = ", ".join("%s %.2f" % (c, s) if s is not None else c for c, s in got[:3]) or "(no cause)"
        mark = "top-1" if h1 else ("top-3" if h3 else "MISS ")
        exp = cause + ("|" + alt if alt and alt != "-" else "")
        print("%-5s %-46s expected %-45s got %s%s" % (mark, cid, exp, top, ("  [" + err + "]") if err else ""))

def pct(a, b):
    return 100.0 * a / b if b else 0.0

if not quiet and misses:
    print("\ntop-1 misses by (expected -> got first):")
    for (e, g), k in sorted(misses.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %2d  %s -> %s" % (k, e, g))
print("\ntop-1: %d/%d (%.1f%%)  top-3: %d/%d (%.1f%%)" % (hit1, n, pct(hit1, n), hit3, n, pct(hit3, n)))
if jsonout:
    with open(jsonout, "w") as f:
        json.dump({"cases": results, "top1": hit1, "top3": hit3, "total": n}, f, indent=2)
rc = 0
if min1 and pct(hit1, n) < float(min1):
    rc = 1
if min3 and pct(hit3, n) < float(min3):
    rc = 1
sys.exit(rc)
PY
