#!/usr/bin/env bash
# The tool's own advice never sends root's NCCL logs to a fixed name in /tmp
# (NCCL_DEBUG_FILE=/tmp/nccl.%h.%p: another user can plant files or links
# there before the job runs): logs' "cannot tell" headline, the fix of
# LOG_NO_NCCL_LINES (logs and explain) and the README suggest a private
# directory made by mktemp -d. The finding's id is unchanged.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
: "${ND_SRC:?ND_SRC must name the source tree}"
printf 'a job that printed no NCCL line\nand ended\n' >"$ND_TMP/job.log"
run_nd logs "$ND_TMP/job.log"
expect_rc 1 "logs without NCCL lines: cannot tell (a warning)"
expect_out "^NCCL logs: 1 file, 2 lines: cannot tell — no NCCL lines; rerun the job with 'd=\\\$\\(mktemp -d\\) && NCCL_DEBUG=INFO NCCL_DEBUG_FILE=\\\$d/nccl\\.%h\\.%p CMD' and run 'nccl-doctor logs \\\$d'\$" "the headline's advice uses a private directory"
expect_out "fix \\(note\\): Rerun with NCCL_DEBUG=INFO, one file per rank in a private directory: d=\\\$\\(mktemp -d\\) && NCCL_DEBUG=INFO NCCL_DEBUG_FILE=\\\$d/nccl\\.%h\\.%p CMD; nccl-doctor logs \\\$d" "LOG_NO_NCCL_LINES's fix too"
expect_no_out "/tmp/nccl" "no fixed /tmp name in the report"
run_nd --json logs "$ND_TMP/job.log"
json_check 'any(f["id"] == "LOG_NO_NCCL_LINES" for f in d["findings"])' "the finding keeps its id"
json_check '"/tmp/nccl" not in json.dumps(d)' "no fixed /tmp name in the JSON"
run_nd explain LOG_NO_NCCL_LINES
expect_rc 0 "explain LOG_NO_NCCL_LINES"
expect_out 'mktemp -d' "explain gives the private directory"
expect_no_out "/tmp/nccl" "explain: no fixed /tmp name"
if grep -n 'NCCL_DEBUG_FILE=/tmp/' "$ND_SRC/README.md" "$ND_SRC"/src/kb/*.def "$ND_SRC"/src/cmd/*.c "$ND_SRC"/src/engine/*.c; then not_ok "advice with a fixed /tmp name left in README or src"; else ok "README and src advise no fixed /tmp name"; fi
finish
