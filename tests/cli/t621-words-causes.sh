#!/usr/bin/env bash
# Cause classes in words: every text report shows a class by its title, the
# first mention as "Title [id]" and later ones by the title alone; --json
# keeps the ids. Runs the text of every golden case (tests/golden/CASES) and
# checks that no class id stands bare: each is "[id]" right after its title,
# at most once per report, or (explain's listing) on a line with its title.
# "unknown" is an ordinary word in prose and is left out.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the reports (tables, evidence, fixes)
export COLUMNS=1000 # a title and its [id] on one line
. "$(dirname "$0")/cases.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
: "${ND_BUILD:?ND_BUILD must name the build tree}"
cd "$ND_SRC" || exit 1
mkdir -p "$ND_TMP/txt"

run_nd --json explain --list --kind cause
json_check 'len(d["entries"]) >= 15 and all(e["title"] and " " in e["title"] for e in d["entries"])' \
  "every cause class has a title of words"
cp "$OUT" "$ND_TMP/classes.json"

text_case() {
  local name=$1 sc=$2; shift 2
  case_run "$sc" "$@" >"$ND_TMP/txt/$name.txt"
}
case_each text_case
n=$(ls "$ND_TMP/txt" | wc -l)
[ "$n" -ge 50 ] && ok "$n text reports rendered" || not_ok "only $n text reports"

python3 - "$ND_TMP/classes.json" "$ND_TMP/txt" >"$ND_TMP/bare" <<'PY'
import json, os, re, sys
cls = {e["id"]: e["title"] for e in json.load(open(sys.argv[1]))["entries"] if e["id"] != "unknown"}
ids = sorted(cls, key=len, reverse=True)
pat = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, ids)) + r")(?![A-Za-z0-9_])")
bad = 0
for f in sorted(os.listdir(sys.argv[2])):
    seen = {}
    for no, line in enumerate(open(os.path.join(sys.argv[2], f), errors="replace"), 1):
        for m in pat.finditer(line):
            i, t = m.group(1), cls[m.group(1)]
            s, e = m.start(), m.end()
            tagged = line[s - 1:s] == "[" and line[e:e + 1] == "]" and line[:s - 2].endswith(t)
            if tagged:
                seen[i] = seen.get(i, 0) + 1
                if seen[i] > 1:
                    print(f"{f}:{no}: '[{i}]' a second time: {line.strip()[:160]}"); bad += 1
            elif t not in line:
                print(f"{f}:{no}: bare '{i}': {line.strip()[:160]}"); bad += 1
print(f"# {bad} bare or repeated ids")
PY
if grep -q '^# 0 bare' "$ND_TMP/bare"; then
  ok "no text report shows a class id without its title"
else
  not_ok "class ids without their titles"; head -20 "$ND_TMP/bare" | sed 's/^/    /'
fi

# the JSON keeps the ids
run_nd --json logs "$ND_FIXTURES/logs/constructed/docker-shm-2.20.log"
json_check 'd["causes"][0]["cause"] == "shm_too_small"' "--json: the class id, not its title"
run_nd logs "$ND_FIXTURES/logs/constructed/docker-shm-2.20.log"
expect_out 'most likely /dev/shm too small, full or cleared \[shm_too_small\] \(confidence' "text: the headline names the class in words, with its id"
expect_out '^  ! /dev/shm too small, full or cleared +0\.9' "text: the causes table by title alone after that"
finish
