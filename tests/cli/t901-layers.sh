#!/usr/bin/env bash
# The include graph of src/ follows DESIGN.md's layers (tests/tools/layers.py):
# no include from a lower folder to a higher one, no two folders including
# each other. First proves the checker catches both on a made-up tree.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
L="$ND_SRC/tests/tools/layers.py"

# a made-up tree: util includes model (upward), kb and model include each other
T="$ND_TMP/src"; mkdir -p "$T/util" "$T/model" "$T/kb" "$T/cmd"
printf '#include "model/a.h"\n' >"$T/util/u.c"
printf '#include "kb/k.h"\n#include "util/u.h"\n' >"$T/model/a.c"
printf '#include "model/a.h"\n' >"$T/kb/k.c"
printf '#include "kb/k.h"\n#include "b.h"\n' >"$T/cmd/c.c"
python3 "$L" "$T" >"$ND_TMP/bad"; rc=$?
[ "$rc" -eq 1 ] && ok "made-up tree: violations found (exit 1)" || not_ok "made-up tree: exit $rc, wanted 1"
grep -q '^util/u.c:1 .*: util includes model, a higher layer' "$ND_TMP/bad" && ok "an upward include is named with file and line" || not_ok "upward include not reported"
grep -q 'folders kb and model include each other' "$ND_TMP/bad" && ok "a folder cycle is reported" || not_ok "folder cycle not reported"
grep -q 'cmd' "$ND_TMP/bad" && not_ok "downward includes reported as violations" || ok "downward and same-folder includes pass"
python3 "$L" --graph "$T" >/dev/null; printf '#include "extra/x.h"\n' >"$T/cmd/d.c"
python3 "$L" "$T" | grep -q "folder 'extra' is not in the layer list" && ok "an unknown folder is reported" || not_ok "unknown folder not reported"

# the real tree
if python3 "$L" "$ND_SRC/src" >"$ND_TMP/real"; then ok "src/ include graph follows the layers"
else not_ok "src/ include graph has $(wc -l <"$ND_TMP/real") violations"; sed 's/^/    /' "$ND_TMP/real"; fi
python3 "$L" --graph "$ND_SRC/src" >"$ND_TMP/graph"
grep -q '^cmd ' "$ND_TMP/graph" && ok "the graph sees cmd's includes" || not_ok "the scan found no includes of cmd/: it is broken"

# one place each: findings are ordered by cmd_finish alone, and only report/
# turns the typed members into text or JSON
grep -rln 'result_sort_findings *(' "$ND_SRC/src" --include='*.c' | sed "s#^$ND_SRC/src/##" | sort >"$ND_TMP/sorts"
[ "$(tr '\n' ' ' <"$ND_TMP/sorts")" = "cmd/common.c model/result.c " ] && ok "findings are sorted in cmd/common.c only (cmd_order)" ||
  not_ok "result_sort_findings called in: $(tr '\n' ' ' <"$ND_TMP/sorts")"
grep -rlnE 'report_(causes|ranks|topo)_(json|table)|report_first_failure_json' "$ND_SRC/src" --include='*.c' |
  sed "s#^$ND_SRC/src/##" | grep -v '^report/' >"$ND_TMP/typed" && not_ok "typed members rendered outside report/: $(tr '\n' ' ' <"$ND_TMP/typed")" ||
  ok "typed members are rendered by report/ alone"

# the log rules (DESIGN.md: analyze/logs/rules/<domain>.c): no file, process
# or driver access, and no rules file that includes another (they share
# rules/rules.h and logs/ana.h only); the cause table is changed by
# analyze/logs/score.c alone (rules read it, add through contribute(), cap
# and drop through score.c with a reason)
rules_includes() { # DIR: the includes of DIR/*.c a rules file may not have
  grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$1"/*.c 2>/dev/null |
    grep -E '"(probe|run|gpu|nvlib)/|"analyze/logs/rules/|"[^/"]+"' | grep -v '"analyze/logs/rules/rules.h"'
  return 0
}
table_writes() { # FILE...: lines that change the cause table
  grep -nE '(->|\.)conf[[:space:]]*[-+*/]?=[^=]|ncauses[[:space:]]*(--|\+\+|[-+]?=[^=])|memmove[[:space:]]*\([^)]*causes|(->|\.)fids\[[^]]*\][[:space:]]*=[^=]|nfids[[:space:]]*(\+\+|[-+]?=[^=])' "$@" 2>/dev/null
  return 0
}
M="$ND_TMP/rules"; mkdir -p "$M"
printf '#include "analyze/logs/rules/rules.h"\n#include "kb/findings.h"\n#include <string.h>\n' >"$M/good.c"
printf '#include "probe/pci.h"\n#include "analyze/logs/rules/ib.h"\n#include "local.h"\nvoid f(struct ana *a) { a->causes[0].conf = 0.1; a->ncauses--; }\n' >"$M/bad.c"
[ "$(rules_includes "$M" | wc -l)" -eq 3 ] && ok "made-up rules: probe/, another rules file and a local include are found" ||
  not_ok "made-up rules: $(rules_includes "$M" | wc -l) bad includes found, wanted 3"
[ "$(table_writes "$M/bad.c" "$M/good.c" | wc -l)" -eq 1 ] && table_writes "$M/bad.c" | grep -q 'conf = 0.1' &&
  ok "made-up rules: a write to the cause table is found" || not_ok "made-up rules: the write to the cause table is not found"
R="$ND_SRC/src/analyze/logs/rules"
n=$(ls "$R"/*.c 2>/dev/null | wc -l)
[ "$n" -ge 10 ] && ok "$n rules files in src/analyze/logs/rules" || not_ok "only $n rules files in src/analyze/logs/rules"
rules_includes "$R" >"$ND_TMP/ri"
[ ! -s "$ND_TMP/ri" ] && ok "the rules include nothing of probe/, run/, gpu/, nvlib/ and no other rules file" ||
  { not_ok "rules includes: $(wc -l <"$ND_TMP/ri")"; sed "s#^$ND_SRC/##; s/^/    /" "$ND_TMP/ri"; }
find "$ND_SRC/src/analyze" -name '*.c' ! -path '*/logs/score.c' -print0 | xargs -0 grep -l 'struct ana' |
  while IFS= read -r f; do table_writes "$f" | sed "s#^#${f#$ND_SRC/}:#"; done >"$ND_TMP/tw"
[ ! -s "$ND_TMP/tw" ] && ok "only analyze/logs/score.c changes the cause table" ||
  { not_ok "the cause table changed outside score.c: $(wc -l <"$ND_TMP/tw")"; sed 's/^/    /' "$ND_TMP/tw"; }
# analyze/ is pure (DESIGN.md): tests/tools/pure.py follows every include of
# src/analyze/ through the headers of src/ and reads its calls: nothing of
# probe/, run/, gpu/, nvlib/ or collect/, directly or through another header,
# and no call that opens, reads or lists a file, reads the sysroot or the
# environment, or starts a process or a library. First on a made-up tree.
P="$ND_SRC/tests/tools/pure.py"
U="$ND_TMP/pure"; mkdir -p "$U/analyze" "$U/model" "$U/probe"
printf '#include "model/m.h"\nint f(void) { return open("x", 0); }\n/* open( in a comment */\nconst char *s = "fopen(";\n' >"$U/analyze/a.c"
printf '#include "probe/p.h"\n' >"$U/model/m.h"
printf 'int p(void);\n' >"$U/probe/p.h"
python3 "$P" "$U" >"$ND_TMP/impure"; rc=$?
[ "$rc" -eq 1 ] && ok "made-up analyze/: violations found (exit 1)" || not_ok "made-up analyze/: exit $rc, wanted 1"
grep -q '^analyze/a.c: includes "probe/p.h" (through model/m.h)$' "$ND_TMP/impure" && ok "an include of probe/ through another header is found" ||
  not_ok "the indirect include of probe/ is not found"
grep -q '^analyze/a.c:2: calls open()$' "$ND_TMP/impure" && ok "a call of open() is found" || not_ok "the open() call is not found"
[ "$(wc -l <"$ND_TMP/impure")" -eq 2 ] && ok "comments and strings are not calls" || not_ok "$(wc -l <"$ND_TMP/impure") violations, wanted 2"
# the readers of util/ (util/sysroot.h, util/input.h, through another header
# too), and reading an fd an analysis was given: read(), pread(), input_*()
U2="$ND_TMP/pure2"; mkdir -p "$U2/analyze" "$U2/util"
printf '#include "analyze/h.h"\nlong f(int fd, char *b) { return read(fd, b, 1) + pread(fd, b, 1, 0); }\nint g(void *in) { return input_read_lines(in, 1, 0, 0); }\nlong h(struct r *r) { return r->readat(0, 0, 0, 0); }\n' >"$U2/analyze/k.c"
printf '#include "util/input.h"\n#include "util/errtext.h"\n' >"$U2/analyze/h.h"
printf '#include "util/sysroot.h"\n' >"$U2/util/input.h"
: >"$U2/util/sysroot.h"; : >"$U2/util/errtext.h"
python3 "$P" "$U2" >"$ND_TMP/impure2"
for want in 'analyze/k.c: includes "util/input.h" (through analyze/h.h)' 'analyze/k.c: includes "util/sysroot.h" (through analyze/h.h)' \
	'analyze/h.h: includes "util/input.h"' 'analyze/k.c:2: calls read()' 'analyze/k.c:3: calls input_read_lines()'; do
	grep -qxF "$want" "$ND_TMP/impure2" && ok "found: $want" || not_ok "not found: $want"
done
[ "$(wc -l <"$ND_TMP/impure2")" -eq 6 ] && ok "the util/ readers: 6 violations (pread on the same line, a readat callback is none)" ||
	{ not_ok "$(wc -l <"$ND_TMP/impure2") violations, wanted 6"; sed 's/^/    /' "$ND_TMP/impure2"; }
if python3 "$P" "$ND_SRC/src" >"$ND_TMP/pure.out"; then ok "src/analyze/ includes nothing of probe/, run/, gpu/, nvlib/, collect/ and reads nothing"
else not_ok "src/analyze/ is not pure: $(wc -l <"$ND_TMP/pure.out") violations"; sed 's/^/    /' "$ND_TMP/pure.out"; fi

# cmd/ takes the machine's facts from collect/ (gathered once per run): no
# command reads them with the probes itself or starts the NVML or CUDA query
# workers of its own
grep -nE '\b(pci_scan|host_probe|host_uptime|driver_probe|driver_gpu_info|net_probe|fabric_probe|ncclib_scan|iommu_units|iommu_unit_count|iommu_group_type)[[:space:]]*\(|task = "(nvml-topo|cuda-info)"' \
  "$ND_SRC"/src/cmd/*.c "$ND_SRC"/src/engine/*.c "$ND_SRC"/src/analyze/*.c "$ND_SRC"/src/report/*.c >"$ND_TMP/direct"
[ ! -s "$ND_TMP/direct" ] && ok "commands get PCI, host, driver, network, library, fabric and IOMMU facts and the NVML/CUDA answers through collect/" ||
  { not_ok "facts read around collect/: $(wc -l <"$ND_TMP/direct")"; sed "s#^$ND_SRC/##; s/^/    /" "$ND_TMP/direct"; }
grep -q '"collect/collect.h"' "$ND_SRC/src/engine/stages.c" && grep -q 'struct machine mach' "$ND_SRC/src/engine/stages.h" &&
  ok "check's stages share one machine model" || not_ok "engine/stages.* keep no machine model"

# the log analysis's own structure (tests/tools/logs-includes.py): the
# reader (read/) knows the other inputs (inputs/) only through the sniffer
# table's header, the inputs never include the reader's internals, and the
# include graph inside src/analyze/logs has no cycle. First on a made-up
# tree with each fault, then on the real one.
LI="$ND_SRC/tests/tools/logs-includes.py"
G="$ND_TMP/logs"; mkdir -p "$G/read" "$G/inputs" "$G/rules"
printf '#include "analyze/logs/inputs/inputs.h"\n#include "analyze/logs/read/read.h"\n' >"$G/read/reader.c"
printf '#include "analyze/nccllog.h"\n' >"$G/inputs/inputs.h"
printf '#include "analyze/logs/inputs/inputs.h"\n#include "analyze/logs/text.h"\n' >"$G/inputs/fr.c"
printf '#include "analyze/logs/ana.h"\n#include "analyze/logs/inputs/fr.h"\n' >"$G/rules/app.c"
printf '#include "analyze/logs/rules/rules.h"\n' >"$G/analyze.c"
python3 "$LI" "$G" >"$ND_TMP/li"; rc=$?
[ "$rc" -eq 0 ] && ok "made-up logs tree without faults passes" || { not_ok "made-up logs tree without faults: exit $rc"; sed 's/^/    /' "$ND_TMP/li"; }
printf '#include "analyze/logs/inputs/fr.h"\n' >>"$G/read/reader.c"
printf '#include "analyze/logs/read/read.h"\n' >>"$G/inputs/fr.c"
python3 "$LI" "$G" >"$ND_TMP/li"; rc=$?
[ "$rc" -eq 1 ] && grep -q "^read/reader.c:3 includes 'analyze/logs/inputs/fr.h'" "$ND_TMP/li" &&
  ok "made-up logs tree: the reader including an input's internals is found" || not_ok "made-up logs tree: read/ -> inputs/fr.h not found (exit $rc)"
grep -q "^inputs/fr.c:3 includes 'analyze/logs/read/read.h'" "$ND_TMP/li" &&
  ok "made-up logs tree: an input including the reader's internals is found" || not_ok "made-up logs tree: inputs/ -> read/read.h not found"
grep -q '^include cycle: .*inputs/.*read/' "$ND_TMP/li" && ok "made-up logs tree: the circle read/ <-> inputs/ is found" ||
  not_ok "made-up logs tree: the include cycle is not found"
printf '#include "analyze/logs/analyze.h"\n' >"$G/ana.h"; printf '#include "analyze/logs/rules/rules.h"\n' >"$G/rules/rules.h"
printf '#include "analyze/logs/ana.h"\n' >"$G/analyze.h"; : >"$G/read/reader.c"; : >"$G/inputs/fr.c"
python3 "$LI" "$G" | grep -q '^include cycle: ' && ok "made-up logs tree: a cycle among the top-level files and rules/ is found" ||
  not_ok "made-up logs tree: the cycle ana -> analyze -> rules/ -> ana is not found"
LD="$ND_SRC/src/analyze/logs"
if python3 "$LI" "$LD" >"$ND_TMP/li"; then ok "src/analyze/logs: read/ and inputs/ keep apart, no include cycle"
else not_ok "src/analyze/logs: $(wc -l <"$ND_TMP/li") include faults"; sed 's/^/    /' "$ND_TMP/li"; fi
[ -f "$LD/inputs/inputs.h" ] && grep -q '^#include "analyze/logs/inputs/inputs.h"' "$LD/read/reader.c" &&
  ok "the reader consults the inputs' sniffer table (read/reader.c includes inputs/inputs.h)" ||
  not_ok "no sniffer table of the inputs included by read/reader.c"
ls "$ND_SRC"/src/analyze/nccllog_*.[ch] 2>/dev/null | sed "s#^$ND_SRC/##" >"$ND_TMP/flat"
[ ! -s "$ND_TMP/flat" ] && ok "no flat analyze/nccllog_* files left beside analyze/nccllog.h" ||
  not_ok "flat files left: $(tr '\n' ' ' <"$ND_TMP/flat")"
finish
