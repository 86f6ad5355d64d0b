#!/bin/bash
# The safety net of a refactoring of the log analysis: runs `nccl-doctor
# logs` (text and --json) over every log fixture set and writes the outputs
# into a directory, or compares them byte for byte with one written before.
#
#   tests/tools/logs-golden.sh [--bin PATH] [--recorded DIR] write OUTDIR
#   tests/tools/logs-golden.sh [--bin PATH] [--recorded DIR] check OUTDIR
#
# The cases: every file of the flat fixture folders (constructed, fabric,
# real-h200, real-h200-torchrun, ras-real), every set folder (flight-recorder,
# inspector, hosts, real-h200-2rank, constructed's folders) as one input,
# every public corpus case as corpus-score.sh runs it (CASE/*), and the
# multi-file cases of tests/golden/CASES. --recorded DIR adds the `logs`
# runs that tests/tools/logs-record.sh recorded while the test scripts ran
# (the logs they write themselves), replayed in their own folders.
# Paths are relative to the source tree (or the recorded case's folder), so
# the outputs do not depend on where the tree is. Each case writes NAME.txt,
# NAME.json and its exit statuses into NAME.rc.
# check: exit 0 when every output is identical, 1 (with the differing
# names, and a diff of the first) otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${ND_BIN:-$root/build/nccl-doctor}
recorded=
while [ $# -gt 0 ]; do
	case "$1" in
	--bin) bin=$2; shift 2 ;;
	--recorded) recorded=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: logs-golden.sh [--bin PATH] [--recorded DIR] write|check OUTDIR" >&2; exit 64; }
mode=$1 dir=$2
case "$mode" in write|check) ;; *) echo "logs-golden: unknown mode '$mode'" >&2; exit 64 ;; esac
case "$bin" in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || { echo "logs-golden: no executable nccl-doctor at '$bin'" >&2; exit 3; }
if [ "$mode" = write ]; then
	out=$dir
	mkdir -p "$out" || exit 3
else
	[ -d "$dir" ] || { echo "logs-golden: no folder '$dir' to compare with" >&2; exit 3; }
	out=$(mktemp -d "${TMPDIR:-/tmp}/logs-golden.XXXXXX") || exit 3
	trap 'rm -rf "$out"' EXIT
fi
export NO_COLOR=1
unset COLUMNS

n=0
# one NAME ARGS...: the case NAME, run in the current folder
one() {
	local name=$1 rct rcj; shift
	timeout 300 "$bin" logs "$@" >"$out/$name.txt" 2>/dev/null </dev/null
	rct=$?
	timeout 300 "$bin" --json logs "$@" >"$out/$name.json" 2>/dev/null </dev/null
	rcj=$?
	echo "$rct $rcj" >"$out/$name.rc"
	n=$((n + 1))
}

cd "$root" || exit 3
F=tests/fixtures/logs
for d in constructed fabric real-h200 real-h200-torchrun ras-real; do
	for f in "$F/$d"/*; do
		b=${f##*/}
		case "$b" in README.md|EXPECTED|*.py) continue ;; esac
		if [ -d "$f" ]; then one "$d--$b" "$f"; else one "$d--$b" "$f"; fi
	done
done
for d in flight-recorder inspector hosts real-h200-2rank; do
	for f in "$F/$d"/*/; do
		b=${f%/}; b=${b##*/}
		one "$d--$b" "${f%/}"
	done
done
for f in "$F"/public/[0-9]*/; do
	b=${f%/}; b=${b##*/}
	one "public--$b" "${f%/}"/*
done
one "multi--real-h200-dir" "$F/real-h200"
one "multi--version-mismatch-both" "$F/constructed/version-mismatch-rank0.log" "$F/constructed/version-mismatch-rank1.log"
one "multi--dup-gpu-both" "$F/real-h200/torch-dup-gpu-r0.log" "$F/real-h200/torch-dup-gpu-r1.log"
one "multi--real-h200-2rank-all" "$F/real-h200-2rank"
one "multi--public-first" "$F/public/001-shm-docker-ipc-nccl-tests" "$F/public/002-shm-posix-fallocate-docker"

# the runs the test scripts made (tests/tools/logs-record.sh)
if [ -n "$recorded" ]; then
	for c in "$recorded"/*/; do
		c=${c%/}
		[ -f "$c/args" ] || continue
		mapfile -d '' -t args <"$c/args"
		name=rec--${c##*/}
		(
			cd "$c" || exit 3
			# shellcheck disable=SC1091
			[ -f env ] && . ./env
			stdin=/dev/null
			[ -f stdin ] && stdin=stdin
			timeout 300 "$bin" "${args[@]}" >"$out/$name.txt" 2>"$out/$name.err" <"$stdin"
			echo $? >"$out/$name.rc"
		)
		n=$((n + 1))
	done
fi

echo "logs-golden: $n cases" >&2
[ "$mode" = write ] && exit 0
bad=0
while read -r b; do
	cmp -s "$dir/$b" "$out/$b" && continue
	[ "$bad" -lt 40 ] && echo "differs: $b" >&2
	[ "$bad" -eq 0 ] && diff -u "$dir/$b" "$out/$b" 2>&1 | head -40 >&2
	bad=$((bad + 1))
done < <( (ls "$dir"; ls "$out") | sort -u)
[ "$bad" -eq 0 ] && { echo "logs-golden: identical" >&2; exit 0; }
echo "logs-golden: $bad outputs differ" >&2
exit 1
