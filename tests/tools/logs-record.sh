#!/bin/bash
# Records the `nccl-doctor logs` runs of the test scripts for
# tests/tools/logs-golden.sh --recorded: set as ND_BIN, it runs the real
# binary ($ND_RECORD_BIN) unchanged and, for a run of `logs`, copies its
# input files and folders (and stdin when an argument is "-") into a case
# folder of $ND_RECORD_DIR named by the hash of its arguments and inputs,
# with the arguments rewritten to those copies and the ND_LOGS_* and
# COLUMNS variables it saw:
#   ND_RECORD_BIN=build/nccl-doctor ND_RECORD_DIR=/tmp/rec \
#     ND_BIN=$PWD/tests/tools/logs-record.sh bash tests/cli/t405-logs-rules-ib.sh
set -u
real=${ND_RECORD_BIN:?ND_RECORD_BIN must name the real binary}
store=${ND_RECORD_DIR:?ND_RECORD_DIR must name the record folder}
islogs=0
for a in "$@"; do
	case "$a" in logs) islogs=1; break ;; -*) ;; *) break ;; esac
done
[ "$islogs" = 1 ] || exec "$real" "$@"
tmp=$(mktemp -d "$store/.new.XXXXXX") || exec "$real" "$@"
mkdir -p "$tmp/in"
args=() k=0 usestdin=0
for a in "$@"; do
	if [ "$a" = - ]; then
		usestdin=1
		args+=("$a")
	elif [ "$a" != logs ] && [ -e "$a" ] && [ "${a#-}" = "$a" ]; then
		mkdir -p "$tmp/in/$k"
		cp -r --no-preserve=mode "$a" "$tmp/in/$k/" 2>/dev/null
		args+=("in/$k/$(basename -- "$a")")
		k=$((k + 1))
	else
		args+=("$a")
	fi
done
printf '%s\0' "${args[@]}" >"$tmp/args"
env | grep -E '^(ND_LOGS_[A-Z_]*|COLUMNS)=' | sed -E "s/^([A-Z_]+)=(.*)$/export \1='\2'/" >"$tmp/env"
if [ "$usestdin" = 1 ]; then
	cat >"$tmp/stdin"
	exec <"$tmp/stdin"
fi
h=$( (cd "$tmp" && find . -type f -print0 | sort -z | xargs -0 sha1sum) | sha1sum | cut -c1-16)
if [ -d "$store/$h" ]; then
	rm -rf "$tmp"
	[ "$usestdin" = 1 ] && exec <"$store/$h/stdin"
else
	mv "$tmp" "$store/$h" 2>/dev/null || rm -rf "$tmp"
	[ "$usestdin" = 1 ] && exec <"$store/$h/stdin"
fi
exec "$real" "$@"
