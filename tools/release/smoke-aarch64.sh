#!/usr/bin/env bash
# smoke-aarch64.sh [AARCH64_BIN [X86_64_BIN]]: runs the aarch64 release
# binary under qemu-user (qemu-aarch64 -L ROOT: the release root's arm64
# libc, multiarch) on inputs that need no GPU: --version, sys on every
# fixture sysroot, explain, logs, kernel and merge on fixtures. Each run's
# exit status and output must be the x86_64 release binary's, byte for byte
# (the same source on another architecture: a difference is a bug of one of
# them). ND_RELEASE_ROOT as in mkroot.sh.
set -euo pipefail
. "$(dirname "$0")/common.sh"
a=${1:-$src/dist/nccl-doctor-$version-aarch64}
x=${2:-$src/dist/nccl-doctor-$version-x86_64}
q=$(command -v qemu-aarch64-static || command -v qemu-aarch64) ||
	{ echo "smoke-aarch64.sh: no qemu-aarch64 (apt-get install qemu-user-static)" >&2; exit 2; }
[ -e "$root/lib/ld-linux-aarch64.so.1" ] ||
	{ echo "smoke-aarch64.sh: no arm64 libc in $root (tools/release/mkroot.sh)" >&2; exit 2; }
f=$src/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 COLUMNS=100
n=0 fail=0
same() { # ARGS...: both binaries, the same exit status, stdout and stderr
	local ra=0 rx=0
	(cd "$src" && "$q" -L "$root" "$a" "$@") >"$tmp/a.out" 2>"$tmp/a.err" </dev/null || ra=$?
	(cd "$src" && "$x" "$@") >"$tmp/x.out" 2>"$tmp/x.err" </dev/null || rx=$?
	n=$((n + 1))
	if [ "$ra" != "$rx" ] || ! cmp -s "$tmp/a.out" "$tmp/x.out" || ! cmp -s "$tmp/a.err" "$tmp/x.err"; then
		echo "smoke-aarch64.sh: differs: nccl-doctor $* (exit $ra on aarch64, $rx on x86_64)" >&2
		diff "$tmp/x.out" "$tmp/a.out" | head -5 >&2 || true
		fail=1
	fi
}
same --version
"$q" -L "$root" "$a" --version | grep -q '^glibc floor: 2.17 (release build)$' ||
	{ echo "smoke-aarch64.sh: $a is no release build" >&2; fail=1; }
for d in "$f"/sysroot/*/; do
	same sys --sysroot "tests/fixtures/sysroot/$(basename "$d")"
done
same --json sys --sysroot tests/fixtures/sysroot/h200-vm
same explain XID_79
same explain NCCL_P2P_LEVEL
same explain --list
same logs tests/fixtures/logs/real-h200
same kernel --sysroot tests/fixtures/sysroot/h200-vm tests/fixtures/kernel/aer-new.dmesg
same merge tests/fixtures/fleet
same sys --sysroot /nonexistent
[ "$fail" = 0 ] && echo "smoke-aarch64.sh: $n runs under $(basename "$q"), the same as x86_64's"
exit "$fail"
