#!/bin/bash
# logs: every cap and drop of a cause says why (analyze/logs/score.c keeps
# the reason, analyze/logs/analyze.c prints it). A cap is an evidence line
# of the cause it lowered, a drop one of the first cause (the dropped cause
# is not listed), each also a note under the text's causes table, which
# shows a cause's first evidence only. Nothing of the kind where nothing
# was capped or dropped.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
F="$ND_FIXTURES/logs"
reason() { # CAUSE PREFIX: an evidence line of CAUSE, no file, starting PREFIX
  echo "any(c['cause'] == '$1' and any(e['file'] is None and e['line'] == 0 and e['text'].startswith('$2') for e in c['evidence']) for c in d['causes'])"
}

# a cap: a framework's result code names its usual causes, so `unknown`
# steps back to 0.1 (rules/priors.c result_code_priors)
C="$F/public/001-shm-docker-ipc-nccl-tests"
run_nd --json logs "$C"
json_check "$(reason unknown 'lowered from 0.20 to 0.10: ')" "cap, JSON: unknown has the evidence line 'lowered from 0.20 to 0.10: ...'"
json_check "any('unknown steps back' in e['text'] for c in d['causes'] if c['cause'] == 'unknown' for e in c['evidence'])" \
  "cap, JSON: the line says why (the result code's causes)"
run_nd logs "$C"
expect_out '^   unknown lowered from 0\.20 to 0\.10: a framework.s NCCL result code names its usual causes' "cap, text: a note under the causes table names the cause and why"

# drops: NCCL_P2P_DISABLE=1 with no P2P connection takes the P2P causes out
# (rules/priors.c transport_switches), and weak echoes of a strong cause go
# at the close (score.c score_close)
S="$F/constructed/docker-shm-2.20.log"
run_nd --json logs "$S"
json_check "d['causes'][0]['cause'] == 'shm_too_small'" "drop: shm_too_small first"
json_check "$(reason shm_too_small 'dropped p2p_pcie_acs_iommu (0.05): NCCL_P2P_DISABLE=1 and no P2P connection')" \
  "drop, JSON: the first cause has 'dropped p2p_pcie_acs_iommu (0.05): NCCL_P2P_DISABLE=1 ...'"
json_check "$(reason shm_too_small 'dropped unknown (0.06): below 0.1 beside a cause of 0.3 or more')" \
  "drop at the close, JSON: 'dropped unknown (0.06): below 0.1 beside a cause of 0.3 or more ...'"
json_check "not any(c['cause'] in ('p2p_pcie_acs_iommu', 'unknown') for c in d['causes'])" "drop: the dropped causes are not listed"
json_check "d['causes'][0]['evidence'][0]['file'] is not None" "drop: the first evidence stays a log line"
run_nd logs "$S"
expect_out '^   dropped P2P broken in a VM \(vGPU / cloud instance\) \[p2p_virtualization\] \(0\.03\): NCCL_P2P_DISABLE=1 and no P2P connection in the log' "drop, text: a note names the dropped cause and why"
expect_out '^   dropped GPU hardware fault \(Xid / ECC / off the bus\) \[gpu_hardware\] \(0\.03\): below 0\.1 beside a cause of 0\.3 or more: an echo of it' "drop at the close, text: a note says why"
expect_out '/dev/shm too small, full or cleared +0\.97 +.* /.*docker-shm-2\.20\.log:23: Error: failed to extend' "drop, text: the table's first evidence is still the log line"

# nothing capped or dropped: no such line
H="$F/constructed/compose-healthy-2.26.log"
run_nd --json logs "$H"
json_check "not any(e['text'].startswith(('lowered from', 'dropped ')) for c in d['causes'] for e in c['evidence'])" "healthy: no cap or drop line in JSON"
run_nd logs "$H"
expect_no_out 'lowered from|dropped ' "healthy: no cap or drop note in text"
finish
