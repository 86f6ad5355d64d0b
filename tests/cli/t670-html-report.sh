#!/usr/bin/env bash
# The HTML page (--html FILE, docs/html.md) of the quick commands: merge of
# the fleet fixtures and bench on the fake GPUs (--json and text), checked
# by htmlcheck.py: well formed, nothing loaded from elsewhere, the embedded
# JSON equal to the --json output of the same run. A node result with
# markup, a script block's end and secrets in its findings: shown as text,
# redacted in the page and in its JSON. The path is checked before any work
# (usage error for '-', exit 3 for a directory that is not there, a
# directory or a symbolic link at the name), the page is written through a
# temporary that is gone after, and the checker itself
# fails a page that loads something or leaves an element open. check and
# p2p's pages are checked where those runs are made already (t510, t520,
# t612); the browser's view in tests/cli/browser-html.sh (.ci/run).
. "$(dirname "$0")/lib.sh"
use_fake_gpus

# merge: the fleet fixtures
mkdir -p "$ND_TMP/pages"
run_nd merge --json --html "$ND_TMP/pages/merge.html" "$ND_FIXTURES/fleet"
expect_rc 2 "merge: exit 2 (a broken node)"
cp "$OUT" "$ND_TMP/merge.json"
files=$(ls -A "$ND_TMP/pages")
if [ "$files" = merge.html ]; then ok "the page alone in its directory (no temporary left)"; else not_ok "files: $files"; fi

# a node's result with hostile text in its worst finding's title (and so in
# its reason): markup, quotes, '&', a URL password and two secrets
H='ACS </script><script>alert(1)</script> <!-- x --> \\" '"'"' \& https://alice:hunter2@10.0.0.1/x NCCL_IB_TOKEN=plainsecret HF_TOKEN=hf_plain'
sed "s|ACS redirect is on at 4 bridges on the P2P path between GPUs|$H|g" "$ND_FIXTURES/fleet/sys-pcie-4gpu-acs.json" >"$ND_TMP/hostile.json"
run_nd merge --json --html "$ND_TMP/hostile.html" "$ND_TMP/hostile.json"
expect_rc 2 "hostile node: exit 2"
expect_out 'hunter2' "hostile node: the --json output has the secret (the page must not)"

# bench: --json and the text form (nccl-tests' columns on stdout) write the same page
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json" run_nd bench -g 2 -b 8 -e 64K -f 8 --json --html "$ND_TMP/pages/bench.html"
expect_rc 0 "bench --json: exit 0"
cp "$OUT" "$ND_TMP/bench.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json" run_nd bench -g 2 -b 8 -e 64K -f 8 --html "$ND_TMP/bench-text.html"
expect_rc 0 "bench text: exit 0"
expect_out '^# Verdict: HEALTHY$' "bench text: nccl-tests' lines on stdout as before"

# the four pages in one python3: the JSON inside equal to stdout's; the
# hostile text shown as text and kept in the JSON, its secrets nowhere
html_check "$ND_TMP/pages/merge.html" --json "$ND_TMP/merge.json" --text "nccl-doctor merge: BROKEN" --text "Nodes" \
	-- "$ND_TMP/hostile.html" --absent hunter2 --absent plainsecret --absent hf_plain --absent "<script>alert" \
	--text "</script><script>alert(1)</script> <!-- x -->" --text "https://<redacted>@10.0.0.1/x" \
	--json-text "</script><script>alert(1)</script> <!-- x -->" --json-text "NCCL_IB_TOKEN=<redacted>" \
	--json-text "https://<redacted>@10.0.0.1/x" \
	-- "$ND_TMP/pages/bench.html" --json "$ND_TMP/bench.json" --text "Bus bandwidth per size" --text "32 KiB" \
	-- "$ND_TMP/bench-text.html" --text "nccl-doctor bench: HEALTHY" --text "Bus bandwidth per size"

# the path: checked before the work, never stdout
run_nd merge --html - "$ND_FIXTURES/fleet"
expect_rc 64 "--html -: usage error"
expect_err "--html writes a file" "says it writes a file"
run_nd p2p --html "$ND_TMP/none/p.html"
expect_rc 3 "a directory that is not there: exit 3"
expect_err "p2p: --html: .*none" "names the path"
if [ ! -e "$ND_TMP/none" ]; then ok "nothing created"; else not_ok "created $ND_TMP/none"; fi
mkdir "$ND_TMP/dir.html"
run_nd merge --html "$ND_TMP/dir.html" "$ND_FIXTURES/fleet"
expect_rc 3 "a directory as the page: exit 3"
echo victim >"$ND_TMP/victim"
ln -s "$ND_TMP/victim" "$ND_TMP/link.html"
run_nd merge --html "$ND_TMP/link.html" "$ND_FIXTURES/fleet"
expect_rc 3 "a symbolic link at the name: refused, exit 3"
if [ "$(cat "$ND_TMP/victim")" = victim ] && [ -L "$ND_TMP/link.html" ]; then ok "the link and its target untouched"; else
	not_ok "the link or its target changed"; fi

# the checker fails a page that loads something or leaves an element open
sed -e '0,/<\/details>/s///' -e 's|<main>|<main><img src="http://example.com/x.png">|' "$ND_TMP/pages/merge.html" >"$ND_TMP/bad.html"
python3 -S "$(dirname "$0")/htmlcheck.py" "$ND_TMP/bad.html" >"$ND_TMP/bad.out" 2>&1
if [ $? -ne 0 ] && grep -q "^not ok bad.html: nothing loaded" "$ND_TMP/bad.out" && grep -q "^not ok bad.html: elements closed in order" "$ND_TMP/bad.out"; then
	ok "htmlcheck.py fails a tampered page"
else
	not_ok "htmlcheck.py passed a tampered page"; sed 's/^/    /' "$ND_TMP/bad.out"
fi
finish
