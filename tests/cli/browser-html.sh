#!/usr/bin/env bash
# The HTML page (--html FILE, docs/html.md) in a real browser: Debian's
# chromium, headless, opens the pages of p2p (two fake GPUs: a heatmap),
# bench and merge at once (one start of the browser: a frame each, in a
# harness page of this test) and a control page that breaks its own
# Content-Security-Policy. Passes when the control's violation is logged
# (the console is read) and none of the pages logs anything, and when the
# browser's own DOM of each page has one heatmap cell per pair and the
# embedded JSON parses to the command's. Skipped (exit 77) without
# chromium. Not one of ctest's tests (tests/cli/t*.sh): a start of chromium
# costs 9 to 16 s of wall time on the loaded 2-core machine the README's
# test command is timed on; .ci/run installs chromium and runs this after
# that command, with the same environment:
#   ND_BIN=build/nccl-doctor ND_SRC=. ND_BUILD=build ND_FIXTURES=tests/fixtures \
#     bash tests/cli/browser-html.sh
. "$(dirname "$0")/lib.sh"
use_fake_gpus
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip_all "no chromium here (apt-get install chromium)"

P="$ND_TMP/pages"
mkdir -p "$P"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p-slow.json" \
	run_nd p2p --gpus 0,1 --no-nccl --size 64K --bw-size 64K --gpu-size 64K --reps 1 --html "$P/p2p.html"
expect_rc 1 "p2p on two slow fake GPUs: exit 1"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json" run_nd bench -g 2 -b 8 -e 8K -f 8 --html "$P/bench.html"
expect_rc 0 "bench: exit 0"
run_nd merge --html "$P/merge.html" "$ND_FIXTURES/fleet"
expect_rc 2 "merge: exit 2"
cat >"$P/control.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>control</title></head><body><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt=""></body></html>
EOF
# the harness: a frame per page; on load, what the browser made of each
cat >"$P/index.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>harness</title></head><body>
<iframe src="p2p.html"></iframe><iframe src="bench.html"></iframe><iframe src="merge.html"></iframe><iframe src="control.html"></iframe>
<pre id="out"></pre>
<script>
window.addEventListener('load', function () {
  var lines = [];
  document.querySelectorAll('iframe').forEach(function (f) {
    var d = f.contentDocument, j = d && d.getElementById('nccl-doctor-json'), cmd = 'none', pairs = -1;
    if (j) {
      var doc = JSON.parse(j.textContent);
      cmd = doc.command;
      pairs = (doc.pairs || (doc.p2p_test || {}).pairs || []).length;
    }
    lines.push('page ' + f.getAttribute('src') + ' command=' + cmd + ' json_pairs=' + pairs +
      ' status_cells=' + (d ? d.querySelectorAll('svg.status g.pair').length : -1) +
      ' bw_cells=' + (d ? d.querySelectorAll('svg.bandwidth g.pair').length : -1) +
      ' details=' + (d ? d.querySelectorAll('details').length : -1));
  });
  document.getElementById('out').textContent = lines.join('\n');
});
</script></body></html>
EOF
# no D-Bus (chromium asks for one otherwise), no first-run, update or
# network work: a start costs about 2.5 CPU-seconds; the harness reads its
# frames' documents (--allow-file-access-from-files), the pages themselves
# run no script
DBUS_SESSION_BUS_ADDRESS=disabled: timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
	--allow-file-access-from-files --no-first-run --disable-extensions --disable-dev-shm-usage \
	--disable-software-rasterizer --disable-background-networking --disable-component-update --disable-sync \
	--no-default-browser-check --mute-audio --disable-breakpad --renderer-process-limit=1 \
	--user-data-dir="$ND_TMP/profile" --dump-dom "file://$P/index.html" >"$ND_TMP/dom" 2>"$ND_TMP/log"
rc=$?
# the harness's lines (the first one after <pre id="out">)
grep -oE 'page [a-z0-9]+\.html .*' "$ND_TMP/dom" | sed 's|</pre>$||' >"$ND_TMP/pages.txt"
if [ $rc -eq 0 ] && [ "$(wc -l <"$ND_TMP/pages.txt")" -eq 4 ]; then ok "chromium rendered the pages"; else
	not_ok "chromium: exit $rc"; tail -5 "$ND_TMP/log" | sed 's/^/    /'; fi
sed 's/^/# /' "$ND_TMP/pages.txt"
if grep -q 'CONSOLE.*source: file://.*/control\.html' "$ND_TMP/log"; then ok "the control page's violation is logged"; else
	not_ok "no console line of the control page"; fi
for pg in p2p bench merge; do
	if grep 'CONSOLE' "$ND_TMP/log" | grep -q "source: file://.*/$pg\.html"; then
		not_ok "$pg: console messages"; grep "CONSOLE.*$pg\.html" "$ND_TMP/log" | head -3 | sed 's/^/    /'
	else ok "$pg: no console message"; fi
done
page() { # NAME REGEX DESCRIPTION
	if grep -qE "^page $1\.html $2" "$ND_TMP/pages.txt"; then ok "$3"; else not_ok "$3: $(grep "^page $1\.html" "$ND_TMP/pages.txt")"; fi
}
page p2p 'command=p2p json_pairs=2 status_cells=2 bw_cells=2 details=[1-9]' "p2p: one cell per pair in both heatmaps"
page bench 'command=bench json_pairs=0 status_cells=0 bw_cells=0 details=[1-9]' "bench: its JSON, no heatmap"
page merge 'command=merge json_pairs=0 status_cells=0 bw_cells=0 details=[1-9]' "merge: its JSON, its details"
finish
