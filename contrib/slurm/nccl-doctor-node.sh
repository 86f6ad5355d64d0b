#!/bin/bash
# nccl-doctor as a Slurm node check (docs/fleet.md), one script for the three
# places slurm.conf runs one on every node, as root:
#   Prolog=/etc/slurm/nccl-doctor-node.sh             (before each job; a
#     non-zero exit drains the node and requeues the job)
#   Epilog=/etc/slurm/nccl-doctor-node.sh             (after each job)
#   HealthCheckProgram=/etc/slurm/nccl-doctor-node.sh (every
#     HealthCheckInterval; Slurm kills it at 60 s and ignores its status)
# It tells them apart by SLURM_SCRIPT_CONTEXT (prolog_slurmd, epilog_slurmd;
# unset for the health check) and runs `check` with the --profile that fits
# (prolog 30 s, epilog 60 s, healthcheck 45 s; no fix search; busy GPUs
# left alone). Only a BROKEN verdict drains (--fail-on error): a warning or
# a check that could not finish never takes a node out of service. The
# drain reason is nccl-doctor's one line (--reason-line); a node this
# script drained is resumed by the health check once it is healthy again.
# Settings (environment, or edit here):
#   NCCL_DOCTOR        the binary (default: nccl-doctor on PATH)
#   NCCL_DOCTOR_RESULTS a directory for one JSON per node and run
#                      (NODE-CONTEXT.json, for `nccl-doctor merge`); unset: none
#   NCCL_DOCTOR_TEXTFILE_DIR node_exporter's textfile collector directory:
#                      the check's metrics as nccl-doctor-check.prom there
#                      (docs/prometheus.md); unset: none
set -u
ND=${NCCL_DOCTOR:-nccl-doctor}
node=${SLURMD_NODENAME:-$(hostname -s)}
case ${SLURM_SCRIPT_CONTEXT:-} in
  prolog_slurmd) profile=prolog ;;
  epilog_slurmd) profile=epilog ;;
  *) profile=healthcheck ;;
esac
command -v "$ND" >/dev/null 2>&1 || { logger -t nccl-doctor "$ND not found: node not checked"; exit 0; }

# the reason line on stdout; the whole JSON beside it when asked for,
# and the check's metrics for Prometheus when asked for
prom=()
if [ -n "${NCCL_DOCTOR_TEXTFILE_DIR:-}" ] && [ -d "$NCCL_DOCTOR_TEXTFILE_DIR" ]; then
  prom=(--prom "$NCCL_DOCTOR_TEXTFILE_DIR/nccl-doctor-check.prom")
fi
reason=$(timeout 55 "$ND" --quiet --fail-on error --node-name "$node" --reason-line ${prom[@]+"${prom[@]}"} check --profile "$profile" 2>/dev/null)
rc=$?
if [ -n "${NCCL_DOCTOR_RESULTS:-}" ] && [ -d "$NCCL_DOCTOR_RESULTS" ]; then
  # sys only: no second GPU run; `merge` joins it with the others' files
  timeout 20 "$ND" --quiet --json --node-name "$node" --out "$NCCL_DOCTOR_RESULTS/%h-$profile.json" sys >/dev/null 2>&1
fi

case $rc in
  0)
    # healthy (or warnings only): undo a drain of ours, never anyone else's
    if [ "$profile" = healthcheck ] &&
       scontrol show node "$node" 2>/dev/null | grep -q 'Reason=nccl-doctor: '; then
      scontrol update nodename="$node" state=resume
    fi
    exit 0 ;;
  2)
    logger -t nccl-doctor "$node: $reason"
    scontrol update nodename="$node" state=drain reason="${reason:-nccl-doctor: BROKEN}"
    # the prolog's and epilog's status is what Slurm acts on
    [ "$profile" = healthcheck ] && exit 0
    exit 1 ;;
  *)
    # 3: nccl-doctor could not run; 124: the timeout; 64: a usage error
    logger -t nccl-doctor "$node: check --profile $profile ended with status $rc: ${reason:-no verdict}"
    exit 0 ;;
esac
