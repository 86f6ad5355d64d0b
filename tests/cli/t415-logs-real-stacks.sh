#!/bin/bash
# nccl-doctor logs on REAL stack dumps of stuck processes (faulthandler, from
# the device machine: tests/fixtures/logs/real-h100-stacks/README.md): the
# store rendezvous names the network or a rank that never came; a dump in
# the communicator's creation alone says the cause is unknown and names the
# stage; beside the rank's NCCL lines the bootstrap stop decides.
. "$(dirname "$0")/lib.sh"
F="$ND_FIXTURES/logs/real-h100-stacks"

run_nd --json logs "$F/store-rank0-faulthandler.txt"
expect_rc 2 "store: a stack is a failed run"
json_check 'd["causes"][0]["cause"] == "bootstrap_network" and d["causes"][0]["confidence"] >= 0.4' "store: bootstrap_network first"
json_check 'any(f["id"] == "LOG_STACK_STAGE" and "_create_c10d_store" in f["title"] for f in d["findings"])' "store: the stage and the frame named"

run_nd --json logs "$F/bootstrap-rank0-faulthandler.txt"
json_check 'd.get("cause_unknown") is True and d["causes"][0]["confidence"] < 0.25' "init frame alone: cause unknown, candidates only"
json_check 'any(f["id"] == "LOG_STACK_STAGE" and "communicator init" in f["title"] for f in d["findings"])' "init frame alone: the stage named"

run_nd --json logs "$F/bootstrap-rank0-faulthandler.txt" "$F/bootstrap-rank0-nccl.log"
json_check 'd["causes"][0]["cause"] == "bootstrap_network" and not d.get("cause_unknown")' "with the NCCL lines: bootstrap_network first"
finish
