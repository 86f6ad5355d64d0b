#!/usr/bin/env bash
# The host-integration exit contracts (docs/fleet.md): the Nagios statuses
# by default (0 HEALTHY, 1 DEGRADED, 2 BROKEN, 3 could not run), --fail-on
# error (a warning exits 0, as a Slurm prolog needs), --exit-style npd
# (node-problem-detector: 0 ok, 1 problem, 2 unknown), both together, for a
# node's own command and for merge; --reason-line's one line; the JSON keeps
# the verdict and the Nagios exit_code whatever the process exits with.
. "$(dirname "$0")/lib.sh"
SR="$ND_FIXTURES/sysroot"
# a verdict of each kind: sys on recorded trees (3: logs with nothing to read)
declare -A want_nagios=([healthy]=0 [degraded]=1 [broken]=2 [unknown]=3)
declare -A want_fail_error=([healthy]=0 [degraded]=0 [broken]=2 [unknown]=3)
declare -A want_npd=([healthy]=0 [degraded]=1 [broken]=1 [unknown]=2)
declare -A want_npd_error=([healthy]=0 [degraded]=0 [broken]=1 [unknown]=2)
: >"$ND_TMP/empty.log"
run_kind() { # KIND GLOBAL-OPTIONS...
  local k=$1; shift
  case $k in
    healthy) run_nd "$@" sys --sysroot "$SR/hgx-fm-healthy" ;;
    degraded) run_nd "$@" sys --sysroot "$SR/unprivileged" ;;
    broken) run_nd "$@" sys --sysroot "$SR/hgx-fm-stopped" ;;
    unknown) run_nd "$@" logs "$ND_TMP/empty.log" ;;
  esac
}
for k in healthy degraded broken unknown; do
  run_kind $k; expect_rc "${want_nagios[$k]}" "$k: Nagios by default"
  run_kind $k --fail-on error; expect_rc "${want_fail_error[$k]}" "$k: --fail-on error"
  run_kind $k --exit-style npd; expect_rc "${want_npd[$k]}" "$k: --exit-style npd"
  run_kind $k --exit-style npd --fail-on error; expect_rc "${want_npd_error[$k]}" "$k: npd and --fail-on error"
done
run_kind degraded --fail-on warning --exit-style nagios; expect_rc 1 "--fail-on warning --exit-style nagios: the defaults"
# the JSON is the same under any exit style: the verdict and the Nagios status
run_kind broken --json --exit-style npd
expect_rc 1 "npd: exit 1"
json_checks "d['verdict'] == 'BROKEN' and d['summary']['exit_code'] == 2" "the JSON still says BROKEN, exit_code 2" \
  "d['reason'] == 'nccl-doctor: BROKEN FABRIC_MANAGER_NOT_RUNNING: the fabric manager is not running (4 NVSwitches)' and d['hostname'] == 'hgx-b'" "reason and hostname members"

# --reason-line: one line, the drain reason
run_kind degraded --reason-line
expect_rc 1 "--reason-line keeps the exit status"
[ "$(wc -l <"$OUT")" -eq 1 ] && ok "--reason-line: one line" || not_ok "--reason-line: $(wc -l <"$OUT") lines"
expect_out '^nccl-doctor: DEGRADED ACS_UNKNOWN_NEEDS_ROOT: ACS state of 8 bridges above the GPUs is unknown: reading it needs root$' "the verdict, the worst finding's id and title"
run_kind healthy --reason-line
expect_out '^nccl-doctor: HEALTHY$' "healthy: the verdict alone"
run_nd --reason-line --json sys
expect_rc 64 "--reason-line with --json: a usage error"
expect_err "^nccl-doctor: --reason-line is its own output form" "said"
run_nd --fail-on never sys
expect_rc 64 "--fail-on never: a usage error"
expect_err "option '--fail-on' expects warning or error, not 'never'" "the levels named"
run_nd --exit-style systemd sys
expect_err "option '--exit-style' expects nagios or npd, not 'systemd'" "the styles named"

# merge's status maps the same way: a broken node
"$ND_BIN" --json --out "$ND_TMP/b.json" sys --sysroot "$SR/hgx-fm-stopped" 2>/dev/null
"$ND_BIN" --json --out "$ND_TMP/d.json" --node-name other sys --sysroot "$SR/unprivileged" 2>/dev/null
run_nd --exit-style npd merge "$ND_TMP/b.json"; expect_rc 1 "merge, a broken node, npd: 1"
run_nd --fail-on error merge "$ND_TMP/d.json"; expect_rc 0 "merge, a degraded node, --fail-on error: 0"
run_nd --exit-style npd merge --expect-nodes other,gone "$ND_TMP/d.json"; expect_rc 2 "merge, a missing node, npd: 2 (unknown)"
finish
