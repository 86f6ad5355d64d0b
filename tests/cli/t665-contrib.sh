#!/usr/bin/env bash
# contrib/: each Slurm script passes bash -n (and shellcheck where it is
# installed), each Kubernetes YAML and node-problem-detector JSON parses,
# and what they run is what this binary accepts: every nccl-doctor command
# line in them parses (--help after it) and the plugin's arguments give a
# one-line reason with node-problem-detector's statuses.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
C="$ND_SRC/contrib"
n=0
for f in "$C"/slurm/*.sh; do
  n=$((n + 1))
  if bash -n "$f" 2>"$ND_TMP/e"; then ok "bash -n ${f#"$C"/}"; else not_ok "bash -n ${f#"$C"/}: $(head -2 "$ND_TMP/e")"; fi
  [ -x "$f" ] && ok "${f#"$C"/} is executable" || not_ok "${f#"$C"/} is not executable"
  if command -v shellcheck >/dev/null; then
    shellcheck "$f" >"$ND_TMP/e" 2>&1 && ok "shellcheck ${f#"$C"/}" || not_ok "shellcheck ${f#"$C"/}: $(head -3 "$ND_TMP/e")"
  fi
done
[ "$n" -ge 2 ] && ok "$n Slurm scripts" || not_ok "only $n Slurm scripts"
for f in "$C"/node-problem-detector/*.json; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["plugin"] == "custom" and d["rules"]' "$f" 2>"$ND_TMP/e" &&
    ok "${f#"$C"/} parses" || not_ok "${f#"$C"/}: $(tail -1 "$ND_TMP/e")"
done
if python3 -c 'import yaml' 2>/dev/null; then
  for f in "$C"/kubernetes/*.yaml; do
    python3 -c 'import yaml,sys; d=list(yaml.safe_load_all(open(sys.argv[1]))); assert d and all(x.get("kind") for x in d)' "$f" 2>"$ND_TMP/e" &&
      ok "${f#"$C"/} parses" || not_ok "${f#"$C"/}: $(tail -1 "$ND_TMP/e")"
  done
else
  skip "python3 has no yaml module (python3-yaml): the Kubernetes YAML is not parsed"
fi

# the plugin's arguments, run here: one line, an npd status
args=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["rules"][0]["args"]))' "$C/node-problem-detector/nccl-doctor-plugin.json")
# shellcheck disable=SC2086  # the plugin's argument list, word by word
run_nd $args --help
expect_rc 0 "the plugin's arguments parse: $args"
# shellcheck disable=SC2086
run_nd ${args/check --profile healthcheck/sys} --sysroot "$ND_FIXTURES/sysroot/hgx-fm-stopped"
expect_rc 1 "the plugin's global options on a broken node: 1, npd's problem"
[ "$(wc -l <"$OUT")" -eq 1 ] && grep -q '^nccl-doctor: BROKEN ' "$OUT" && ok "one line for the condition's message" || not_ok "output: $(head -3 "$OUT")"
# every profile named in contrib/ (--profile NAME in a command line or an
# argument list, profile=NAME in the Slurm script; comments aside) is one
# check accepts
{ cat "$C"/slurm/*.sh "$C"/kubernetes/*.yaml "$C"/node-problem-detector/*.json | grep -v '^ *#' | grep -oE -- '--profile"?,? "?[a-z]+'
  grep -ohE '^ *[a-z_]+\) profile=[a-z]+' "$C"/slurm/*.sh; } | grep -oE '[a-z]+$' | sort -u >"$ND_TMP/profiles"
while read -r p; do
  run_nd check --profile "$p" --help
  expect_rc 0 "check --profile $p parses"
done <"$ND_TMP/profiles"
[ "$(tr '\n' ' ' <"$ND_TMP/profiles")" = "epilog full healthcheck prolog " ] && ok "contrib/ uses every profile" || not_ok "profiles in contrib/: $(tr '\n' ' ' <"$ND_TMP/profiles")"
finish
