#!/usr/bin/env bash
# Makes (once) the old-glibc build root of the release binaries: Debian 11
# (bullseye, glibc 2.31) by debootstrap --variant=minbase from the Debian
# archive, with gcc, cmake, make, libjansson-dev (libjansson.a) and the
# aarch64 cross compiler with arm64 jansson (multiarch), and rpm (rpmbuild,
# for CPack's .rpm). The root is kept and
# reused: ND_RELEASE_ROOT names it (default .release/root in the repository,
# git-ignored); a root whose stamp matches the package list is not touched.
# Needs root (debootstrap, chroot). Prints the root's path on stdout.
set -euo pipefail
. "$(dirname "$0")/common.sh"
mirror=${ND_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bullseye
pkgs="gcc make cmake libjansson-dev libc6-dev rpm file gcc-aarch64-linux-gnu libc6-dev-arm64-cross libjansson-dev:arm64 binutils-aarch64-linux-gnu"
stamp="$suite $pkgs"

if [ -f "$root/.nd-root-stamp" ] && [ "$(cat "$root/.nd-root-stamp")" = "$stamp" ]; then
	echo "$root"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "mkroot.sh: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "mkroot.sh: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }

if [ ! -x "$root/usr/bin/apt-get" ]; then
	rm -rf "$root"
	mkdir -p "$root"
	echo "mkroot.sh: debootstrap $suite into $root" >&2
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >&2
fi
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
in_root dpkg --add-architecture arm64
in_root apt-get update -qq >&2
in_root apt-get install -y -qq --no-install-recommends $pkgs >&2
in_root apt-get clean
echo "$stamp" >"$root/.nd-root-stamp"
echo "$root"
