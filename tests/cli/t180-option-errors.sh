#!/usr/bin/env bash
# Usage errors of every command come from the one option parser and name the
# option as it was typed: a value option given without a value, a bad number,
# an unknown option (long and short). Each is one line and the hint, exit 64,
# before any work starts.
. "$(dirname "$0")/lib.sh"

# usage_error PREFIX REGEX ARGS...: exit 64, stderr is "PREFIX: <REGEX>" and the hint
usage_error() {
  local prefix="$1" re="$2"; shift 2
  run_nd "$@"
  local what="'$*'"
  if [ "$RC" -ne 64 ]; then not_ok "$what: exit $RC, wanted 64"; sed 's/^/    err: /' "$ERR" | head -3; return; fi
  local first; first=$(head -1 "$ERR")
  if printf '%s\n' "$first" | grep -qxE -- "$prefix: $re" && [ "$(wc -l <"$ERR")" -eq 2 ] &&
     grep -qE "^try 'nccl-doctor" "$ERR"; then
    ok "$what: $first"
  else
    not_ok "$what: stderr is not '$prefix: $re' and the hint"; sed 's/^/    err: /' "$ERR" | head -3
  fi
}

# missing CMD OPTION...: each option, last on the line, names itself
missing() {
  local cmd="$1"; shift
  for o in "$@"; do
    usage_error "nccl-doctor $cmd" "option '$o' requires a value" $cmd "$o"
  done
}
missing check --budget --max-bytes
missing fix --budget --max-bytes --write-env --form
missing bench -b -e -i -f -n -w -m -N -c -z -o -d -r -g -t -a -T -C -G -J --deadline-init --timer
missing p2p --size --bw-size --gpu-size --reps
missing logs --max-line --input-timeout --threads
missing kernel --since -s --input-timeout
missing explain --kind -k
missing snapshot --output -o
missing watch --stall --on-stall --log-dir --kernel-log --retry-budget --retry-fix-args --user
for o in --sysroot --gpus --timeout --nccl; do
  usage_error "nccl-doctor" "option '$o' requires a value" sys "$o"
done

# a value taken from the next argument is named the same way
usage_error "nccl-doctor check" "option '--budget' requires a value" check --force --budget

# bad numbers: the option as typed, what it expects, the value
bad() {
  local cmd="$1" o="$2"; shift 2
  usage_error "nccl-doctor $cmd" "option '$o' expects .+, not 'abc'" $cmd "$o" abc
}
bad check --budget
bad check --max-bytes
bad fix --budget
bad fix --max-bytes
bad bench -n
bad bench -T
bad bench --deadline-init
bad p2p --size
bad p2p --reps
bad logs --max-line
bad logs --threads
bad logs --input-timeout
bad kernel --since
bad watch --stall
bad watch --retry-budget
usage_error "nccl-doctor" "option '--timeout' expects .+, not 'abc'" --timeout abc sys
usage_error "nccl-doctor bench" "option '-n' expects .+, not 'abc'" bench -nabc
usage_error "nccl-doctor logs" "option '--threads' expects a number from 1 to 64, not '0'" logs --threads=0 x.log
usage_error "nccl-doctor watch" "option '--on-stall' expects report, kill or keep, not 'abc'" watch --on-stall abc -- true
usage_error "nccl-doctor check" "option '--budget' expects a number of seconds from 5 to 86400, not '4'" check --budget 4

# unknown options, long and short, as typed
for cmd in check fix bench p2p logs kernel explain snapshot watch sys topo; do
  usage_error "nccl-doctor $cmd" "unknown option '--frob'" $cmd --frob
done
usage_error "nccl-doctor logs" "unknown option '-T'" logs -T 3 x.log
usage_error "nccl-doctor bench" "unknown option '-Z'" bench -Z
usage_error "nccl-doctor explain" "unknown option '-x'" explain -lx
usage_error "nccl-doctor check" "unknown option '--frob'" check --frob=1
usage_error "nccl-doctor check" "option '--force' takes no value" check --force=1

# the accepted forms still work: --opt=value, a prefix, a short cluster
run_nd explain -lk xid;          expect_rc 0 "explain -lk xid"
run_nd explain --list --kind=xid; expect_rc 0 "explain --list --kind=xid"
run_nd explain --li --ki xid;    expect_rc 0 "explain: long names by unique prefix"
finish
