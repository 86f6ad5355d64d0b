#!/usr/bin/env bash
# Options that mean one thing in every command:
#  - a budget (check --budget, fix --budget, watch --retry-budget) has one
#    range, 5 to 86400 s (fix and watch took 10 before, check 5);
#  - --threads is a count in logs and in bench: bench --threads N runs N
#    ranks (-t N) as threads of one process; the bare --threads of before
#    still works with one deprecation line on stderr; --threads N with
#    another -t, or with --procs, is a usage error.
. "$(dirname "$0")/lib.sh"
use_fake_gpus
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json"

budget_range() { # WHAT ARGS...: refused below 5 and above 86400 with one message
	local what=$1 opt=$2; shift 2
	run_nd "$@" "$opt" 4
	expect_rc 64 "$what $opt 4: a usage error"
	expect_err "option '$opt' expects a number of seconds from 5 to 86400, not '4'" "$what $opt: the one range"
	run_nd "$@" "$opt" 86401
	expect_err "option '$opt' expects a number of seconds from 5 to 86400, not '86401'" "$what $opt: the one maximum"
}
budget_range check --budget check
budget_range fix --budget fix
budget_range watch --retry-budget watch --retry-with-fix
run_nd fix --budget 5 --help
expect_rc 0 "fix --budget 5: the minimum is taken (10 before)"
run_nd watch --retry-with-fix --retry-budget 5 --help
expect_rc 0 "watch --retry-budget 5: the minimum is taken (10 before)"
run_nd check --help
expect_out '\(default 90; 5 to 86400\)' "check --help says the range"
run_nd fix --help
expect_out '\(default 180; 5 to 86400\)' "fix --help says the same range"

# bench --threads N: a count, N ranks as threads of one process
run_nd --json bench all_reduce --threads 2 -b 1K -e 4K
expect_rc 0 "bench --threads 2"
json_check 'len(d["facts"]["bench"]["ranks"]) == 2 and len({r["pid"] for r in d["facts"]["bench"]["ranks"]}) == 1' \
	"bench --threads 2: two ranks, one process"
expect_err_lines 0 "bench --threads 2: no note"
run_nd --json bench all_reduce --threads=3 -b 1K -e 4K
json_check 'len(d["facts"]["bench"]["ranks"]) == 3 and len({r["pid"] for r in d["facts"]["bench"]["ranks"]}) == 1' \
	"bench --threads=3: three ranks, one process"
run_nd --json bench all_reduce -t 2 -b 1K -e 4K
json_check 'len(d["facts"]["bench"]["ranks"]) == 2 and len({r["pid"] for r in d["facts"]["bench"]["ranks"]}) == 2' \
	"bench -t 2 (the default --procs): two ranks, two processes"
# the bare form of before: the mode, with one line on stderr
run_nd --json bench all_reduce --threads -g 2 -b 1K -e 4K
expect_rc 0 "bench --threads -g 2 (bare, as before)"
json_check 'len(d["facts"]["bench"]["ranks"]) == 2 and len({r["pid"] for r in d["facts"]["bench"]["ranks"]}) == 1' \
	"bare --threads: still every rank a thread of one process"
expect_err_lines 1 "bare --threads: one line on stderr"
expect_err "a bare '--threads' is deprecated: say '--threads N'" "bare --threads: the deprecation names the new form"
run_nd --json bench --threads
expect_err "a bare '--threads' is deprecated" "bare --threads at the end: deprecated, not an error"
# refused
run_nd bench --threads 0
expect_rc 64 "bench --threads 0: usage"
expect_err "option '--threads' expects a number from 1 to 64, not '0'" "bench --threads 0: the range, as logs says it"
run_nd bench --threads 2 -t 3
expect_rc 64 "bench --threads 2 -t 3: usage"
expect_err "--threads 2 and -t 3: give the count once" "bench: two counts refused"
run_nd bench --procs --threads 2
expect_rc 64 "bench --procs --threads 2: usage"
expect_err "not both" "bench: threads and processes refused together"
run_nd bench --help
expect_out '^  --threads N  ' "bench --help: --threads N"
# logs --threads is a count too: the same words
run_nd logs --threads=0 x.log
expect_err "option '--threads' expects a number from 1 to 64, not '0'" "logs --threads: the same count"

finish
