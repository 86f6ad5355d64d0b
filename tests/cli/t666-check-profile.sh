#!/usr/bin/env bash
# check --profile: each profile's budget (healthcheck 45 s, within Slurm's
# 60 s HealthCheckProgram limit; prolog 30 s; epilog 60 s; full 90 s, the
# default), --budget given beside it wins; a profile without the fix search
# says so and runs none where bench failed (NCCL hangs between the two
# PCIe switches of the fake pcie4 host: GPUs 0 and 2), and is BROKEN, not
# INCOMPLETE, for it.
. "$(dirname "$0")/lib.sh"
use_fake_gpus
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-nccl-p2p-hang.json" \
  run_nd --json --timeout 1 check --profile prolog --gpus 0,2 --driver --sysroot "$ACS" --max-bytes 1M
expect_rc 2 "prolog on a pair whose NCCL hangs: BROKEN"
json_checks \
  "d['profile'] == 'prolog' and d['budget_s'] == 30" "the profile and its 30 s budget in the JSON" \
  "[s['stage'] for s in d['facts']['check']['stages']] == ['sys', 'topo', 'kernel', 'p2p', 'bench']" "no fix stage" \
  "d['facts']['check']['notes'] == ['no fix search: --profile prolog runs none']" "said in the check's notes" \
  "d['verdict'] == 'BROKEN' and not any(s['stage'] == 'bench' and 'OK' in s['result'] for s in d['facts']['check']['stages'])" "BROKEN: the bench failed"
# the budgets: a machine with nothing to test answers at once
for p in healthcheck:45 prolog:30 epilog:60 full:90; do
  NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json" run_nd --json check --profile "${p%:*}" --gpus 0 --driver --sysroot "$ACS" --max-bytes 1M
  json_checks "d['profile'] == '${p%:*}' and d['budget_s'] == ${p#*:}" "--profile ${p%:*}: ${p#*:} s"
done
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json" run_nd --json check --budget 20 --profile healthcheck --gpus 0 --driver --sysroot "$ACS" --max-bytes 1M
json_checks "d['budget_s'] == 20 and d['profile'] == 'healthcheck'" "--budget beside --profile wins"
run_nd check --profile nightly
expect_rc 64 "an unknown profile: a usage error"
expect_err "option '--profile' expects full, healthcheck, prolog or epilog, not 'nightly'" "the profiles named"
finish
