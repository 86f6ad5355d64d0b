#!/usr/bin/env bash
# check-glibc.sh BINARY [FLOOR]: fails (exit 1, naming each symbol) when
# BINARY needs a GLIBC_ symbol version newer than FLOOR (default 2.17, the
# release binaries' floor: src/compat/glibc217.h). objdump -T lists the
# dynamic symbols with the version each is bound to; for an aarch64 binary
# on an x86_64 host, aarch64-linux-gnu-objdump or a multi-arch objdump reads
# the same table (ND_OBJDUMP names it).
set -euo pipefail
bin=${1:?usage: check-glibc.sh BINARY [FLOOR]}
floor=${2:-2.17}
od=${ND_OBJDUMP:-}
if [ -z "$od" ]; then
	for c in objdump aarch64-linux-gnu-objdump; do
		if command -v "$c" >/dev/null && "$c" -T "$bin" >/dev/null 2>&1; then od=$c; break; fi
	done
fi
[ -n "$od" ] || { echo "check-glibc.sh: no objdump reads $bin (install binutils, binutils-aarch64-linux-gnu)" >&2; exit 2; }
table=$("$od" -T "$bin")
# each "GLIBC_x.y[.z] name" whose version sorts after the floor
newer=$(printf '%s\n' "$table" | awk -v floor="$floor" '
	function cmp(a, b,   x, y, i, n) {
		n = split(a, x, "."); split(b, y, ".")
		for (i = 1; i <= 3; i++) { if (x[i] + 0 != y[i] + 0) return x[i] + 0 < y[i] + 0 ? -1 : 1 }
		return 0
	}
	match($0, /GLIBC_[0-9][0-9.]*/) {
		v = substr($0, RSTART + 6, RLENGTH - 6)
		if (cmp(v, floor) > 0) print "GLIBC_" v " " $NF
	}' | sort -u)
max=$(printf '%s\n' "$table" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
if [ -n "$newer" ]; then
	echo "check-glibc.sh: $bin needs glibc newer than $floor:" >&2
	printf '%s\n' "$newer" | sed 's/^/    /' >&2
	exit 1
fi
echo "$bin: newest GLIBC_ version needed $max (floor $floor)"
