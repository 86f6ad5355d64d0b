#!/usr/bin/env bash
# contrib/prometheus/: the Grafana dashboard is JSON of the shape Grafana
# imports (unique panel ids on a 24-column grid, a query per panel, the
# datasource variable); the alert rules are YAML of Prometheus' rule-file
# shape (where python3 has yaml); every nccl_doctor_ name they and
# docs/prometheus.md use is a family of src/report/prom_int.h, every label
# they select on is one docs/prometheus.md gives that family, and the docs'
# table lists every family; the systemd units pass systemd-analyze verify
# (where it is installed) and their two command lines, run here on a
# recorded machine, write two files that read as one textfile directory.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
C="$ND_SRC/contrib/prometheus"
python3 - "$ND_SRC" >"$ND_TMP/r" 2>&1 <<'PY'
import json, re, sys
src = sys.argv[1]
C = src + "/contrib/prometheus/"
out = []
def check(cond, what):
    out.append(("ok " if cond else "not ok ") + what)
fams = set("nccl_doctor_" + n for n in re.findall(r'^\s*X\(\w+, "(\w+)",', open(src + "/src/report/prom_int.h").read(), re.M))
check(len(fams) > 30, "%d families in src/report/prom_int.h" % len(fams))
# the docs' table: metric -> its labels (GPU means gpu, UUID, pci_bus_id)
doc = {}
for m, labels in re.findall(r"^\| `(nccl_doctor_\w+)` \|([^|]*)\|", open(src + "/docs/prometheus.md").read(), re.M):
    ls = {"command", "Hostname", "instance", "job"}
    for l in labels.split(","):
        l = l.strip().strip("`")
        ls |= {"gpu", "UUID", "pci_bus_id"} if l == "GPU" else ({l} if l else set())
    doc[m] = ls
check(set(doc) == fams, "docs/prometheus.md lists every family and no other (%s)" % sorted(set(doc) ^ fams))
SEL = re.compile(r"(nccl_doctor_\w+)(?:\{([^}]*)\})?")
def exprs_ok(where, exprs):
    bad = []
    for e in exprs:
        for name, sel in SEL.findall(e):
            if name not in fams:
                bad.append(name)
            for lab in re.findall(r"(\w+)\s*(?:=~|!~|!=|=)", sel or ""):
                if name in doc and lab not in doc[name]:
                    bad.append("%s{%s}" % (name, lab))
    check(exprs and not bad, "%s: %d queries name only families and their labels %s" % (where, len(exprs), bad or ""))
d = json.load(open(C + "nccl-doctor-dashboard.json"))
ids = [p["id"] for p in d["panels"]]
check(len(ids) == len(set(ids)) and len(ids) >= 8, "dashboard: %d panels, unique ids" % len(ids))
types = {p["type"] for p in d["panels"]}
check(types <= {"stat", "bargauge", "table", "heatmap", "timeseries"} and {"heatmap", "table", "timeseries", "stat"} <= types,
      "dashboard: panel types %s (verdict stat, node table, P2P heatmap, busbw trend)" % sorted(types))
check(all(0 <= p["gridPos"]["x"] and p["gridPos"]["x"] + p["gridPos"]["w"] <= 24 and p["gridPos"]["h"] > 0 for p in d["panels"]),
      "dashboard: every panel inside the 24-column grid")
check(all(p.get("targets") and all(t.get("expr") and t.get("refId") for t in p["targets"]) for p in d["panels"]),
      "dashboard: every panel has queries with a refId")
vars_ = {v["name"] for v in d["templating"]["list"]}
used = set(re.findall(r"\$\{?(\w+)", json.dumps(d["panels"])))
check(used <= vars_ | {"__interval"} and "datasource" in vars_, "dashboard: variables %s defined (%s)" % (sorted(used), sorted(vars_)))
check(d.get("uid") and d.get("title") and isinstance(d.get("schemaVersion"), int), "dashboard: uid, title, schemaVersion")
exprs_ok("dashboard", [t["expr"] for p in d["panels"] for t in p["targets"]] +
         [v["definition"] for v in d["templating"]["list"] if "definition" in v])
try:
    import yaml
except ImportError:
    yaml = None
if yaml:
    r = yaml.safe_load(open(C + "nccl-doctor-alerts.yml"))
    rules = [x for g in r["groups"] for x in g["rules"]]
    check(all(g.get("name") and g.get("rules") for g in r["groups"]), "alerts: groups with a name and rules")
    check(all(set(x) <= {"alert", "expr", "for", "labels", "annotations", "keep_firing_for"} and x.get("alert") and x.get("expr")
              for x in rules), "alerts: %d rules, each an alert with an expr" % len(rules))
    check(all(re.fullmatch(r"[0-9]+[smhd]", x.get("for", "0s")) for x in rules), "alerts: durations")
    check(all(x["labels"].get("severity") in ("critical", "warning", "info") and x["annotations"].get("summary") for x in rules),
          "alerts: a severity and a summary each")
    names = [x["alert"] for x in rules]
    check(len(names) == len(set(names)), "alerts: unique names")
    exprs_ok("alerts", [x["expr"] for x in rules])
    used = set(re.findall(r"\$labels\.(\w+)", json.dumps(rules)))
    check(used <= {"Hostname", "command", "gpu", "peer_gpu", "pci_bus_id", "UUID", "link", "op", "instance"}, "alerts: $labels used %s" % sorted(used))
else:
    out.append("skip python3 has no yaml module (python3-yaml): the alert rules are not parsed")
print("\n".join(out))
PY
while IFS= read -r line; do
  case $line in
    "ok "*) ok "${line#ok }" ;;
    "skip "*) skip "${line#skip }" ;;
    *) not_ok "${line#not ok }" ;;
  esac
done <"$ND_TMP/r"

# the units: systemd's own check, then their command lines run here
mkdir -p "$ND_TMP/units" "$ND_TMP/textfile"
sed -e "s|/usr/local/bin/nccl-doctor|$ND_BIN|" "$C/nccl-doctor-textfile.service" >"$ND_TMP/units/nccl-doctor-textfile.service"
cp "$C/nccl-doctor-textfile.timer" "$ND_TMP/units/"
if command -v systemd-analyze >/dev/null 2>&1; then
  if systemd-analyze verify "$ND_TMP/units/nccl-doctor-textfile.service" "$ND_TMP/units/nccl-doctor-textfile.timer" >"$ND_TMP/v" 2>&1 && [ ! -s "$ND_TMP/v" ]; then
    ok "systemd-analyze verify: the service and the timer"
  else
    not_ok "systemd-analyze verify: $(head -3 "$ND_TMP/v")"
  fi
else
  skip "no systemd-analyze"
fi
n=0
while IFS= read -r cmd; do
  n=$((n + 1))
  cmd=${cmd//\$\{TEXTFILE_DIR\}/$ND_TMP/textfile}
  # shellcheck disable=SC2086  # the unit's command line, word by word
  run_nd ${cmd#* } --sysroot "$ND_FIXTURES/sysroot/kernel-p2p" --node-name gpu-node-7
  [ "$RC" -le 2 ] && ok "the unit's command $n runs: ${cmd#* } (exit $RC)" || not_ok "${cmd#* }: exit $RC: $(head -2 "$ERR")"
done < <(sed -n 's/^ExecStart=-//p' "$C/nccl-doctor-textfile.service")
[ "$n" = 2 ] && ok "two commands: sys and kernel" || not_ok "$n commands in the unit"
ls "$ND_TMP/textfile" >"$ND_TMP/ls"
[ "$(tr '\n' ' ' <"$ND_TMP/ls")" = "nccl-doctor-kernel.prom nccl-doctor-sys.prom " ] && ok "the two files, no temporary" || not_ok "files: $(cat "$ND_TMP/ls")"
if python3 -S "$ND_SRC/tests/cli/promcheck.py" "$ND_TMP"/textfile/*.prom >"$ND_TMP/p"; then ok "both read as one textfile directory"; else not_ok "$(head -3 "$ND_TMP/p")"; fi
finish
