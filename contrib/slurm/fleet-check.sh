#!/bin/bash
# One check on every node of an allocation, joined into one report
# (docs/fleet.md):
#   salloc -N 16 contrib/slurm/fleet-check.sh /shared/nccl-doctor-results
# Each node writes DIR/NODE.json (--out %h, through a temporary file and a
# rename); merge then names the broken, slow and missing nodes and prints
# the scontrol lines that drain them (it runs none). Exit status: merge's
# (the worst node's: 0 healthy, 1 degraded, 2 broken, 3 missing).
set -u
dir=${1:?usage: fleet-check.sh DIR (a directory every node can write)}
ND=${NCCL_DOCTOR:-nccl-doctor}
mkdir -p "$dir" || exit 3
# SLURMD_NODENAME: the name scontrol knows the node by (%h is then that name)
# shellcheck disable=SC2016  # expanded by the bash that srun starts on each node
srun --ntasks-per-node=1 --kill-on-bad-exit=0 bash -c \
  'exec "$0" --quiet --json --node-name "$SLURMD_NODENAME" --out "$1/%h.json" check --profile healthcheck' "$ND" "$dir"
"$ND" merge --expect-nodes "${SLURM_JOB_NODELIST:?run it inside an allocation}" "$dir"
