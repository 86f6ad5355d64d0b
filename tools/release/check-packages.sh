#!/usr/bin/env bash
# check-packages.sh [--system]: checks the packages build.sh --packages put
# in dist/: lintian finds no error or warning on the .deb (overrides, each
# with its reason: tools/release/lintian-overrides); the .deb installs, into
# a throwaway dpkg root (or, with --system, for real: CI, where the machine
# is thrown away), and there the binary runs, `man nccl-doctor` finds its
# page and the bash completion completes; the .rpm and the .tar.gz need
# nothing but libc (and /bin/sh for rpm's scriptlets) and hold the same files.
# The aarch64 packages, when there, get the same checks but the install.
set -euo pipefail
. "$(dirname "$0")/common.sh"
system=0
[ "${1:-}" = --system ] && system=1
dist=$src/dist
fail=0
bad() { echo "check-packages.sh: $*" >&2; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# each architecture's three: lintian (E and W fail; I is printed), the
# rpm's requirements, the same files in all three
for pair in amd64:x86_64 arm64:aarch64; do
	deb=$dist/nccl-doctor_${version}_${pair%:*}.deb
	arch=${pair#*:}
	[ -f "$deb" ] || { [ "$arch" = x86_64 ] && bad "no $deb (build.sh --packages)"; continue; }
	rpm=$(ls "$dist"/nccl-doctor-"$version"-*."$arch".rpm)
	tgz=$dist/nccl-doctor-$version-$arch.tar.gz
	before=$fail fail=0
	lintian --allow-root --fail-on error,warning -I "$deb" || bad "lintian finds errors or warnings in $deb"
	# glibc's libraries (libc, libm, libdl, libpthread, the loader) and rpm's own
	reqs=$(rpm -qp --requires "$rpm" 2>/dev/null |
		grep -vE '^(/bin/sh|rtld\(GNU_HASH\)|rpmlib\(|(lib(c|m|dl|pthread)|ld-linux-aarch64)\.so\.[0-9]+\()' || true)
	[ -z "$reqs" ] || bad "$rpm requires more than glibc: $reqs"
	rpm -qp --recommends "$rpm" 2>/dev/null | grep -qx pciutils || bad "$rpm does not recommend pciutils"
	dpkg-deb -f "$deb" Recommends | grep -qx pciutils || bad "$deb does not recommend pciutils"
	dpkg-deb -f "$deb" Depends | grep -qx 'libc6 (>= 2.17)' || bad "$deb depends on more than libc6 (>= 2.17)"
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" 2>/dev/null |
		awk '$1 !~ /^[dl]/ { print $2 }' | sort >"$tmp/rpm.files"
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort >"$tmp/deb.files"
	tar -tzf "$tgz" | grep -v '/$' | sed 's|^[^/]*||' | sort >"$tmp/tgz.files"
	cmp -s "$tmp/rpm.files" "$tmp/deb.files" || bad ".rpm and .deb of $arch hold different files: $(diff "$tmp/rpm.files" "$tmp/deb.files" | head -5)"
	cmp -s "$tmp/tgz.files" "$tmp/deb.files" || bad ".tar.gz and .deb of $arch hold different files: $(diff "$tmp/tgz.files" "$tmp/deb.files" | head -5)"
	[ "$fail" = 0 ] && echo "check-packages.sh: $(basename "$deb"), $(basename "$rpm"), $(basename "$tgz"): lintian clean, glibc only, $(wc -l <"$tmp/deb.files") files each"
	[ "$before" = 0 ] || fail=1
done

# the amd64 .deb installed
deb=$dist/nccl-doctor_${version}_amd64.deb
if [ "$system" = 1 ]; then
	apt-get install -y -qq "$deb" >/dev/null
	inst=/
	nd=/usr/bin/nccl-doctor
	# slim container images tell dpkg to leave man pages out
	# (/etc/dpkg/dpkg.cfg.d/docker): then the page of the .deb itself
	if excl=$(grep -ls '^path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/* 2>/dev/null) && [ -n "$excl" ]; then
		echo "check-packages.sh: dpkg leaves man pages out here ($excl): the .deb's own page with man -l"
		dpkg-deb -x "$deb" "$tmp/x"
		manpage=$tmp/x/usr/share/man/man1/nccl-doctor.1.gz
		man -l "$manpage" >"$tmp/man" 2>"$tmp/manerr" || bad "man -l $manpage fails: $(head -2 "$tmp/manerr")"
	else
		manpage=$(man -w nccl-doctor) || bad "man finds no nccl-doctor page"
		man nccl-doctor >"$tmp/man" 2>"$tmp/manerr" || bad "man nccl-doctor fails: $(head -2 "$tmp/manerr")"
	fi
else
	# dpkg into an empty root: its own database; libc6 is the host's
	inst=$tmp/root
	mkdir -p "$inst/var/lib/dpkg/info" "$inst/var/lib/dpkg/updates"
	: >"$inst/var/lib/dpkg/status"
	dpkg --root="$inst" --force-depends --force-script-chrootless -i "$deb" >/dev/null 2>"$tmp/dpkgerr" || bad "dpkg -i $deb fails"
	nd=$inst/usr/bin/nccl-doctor
	manpage=$(man -M "$inst/usr/share/man" -w nccl-doctor) || bad "man finds no nccl-doctor page in the package"
	man -M "$inst/usr/share/man" nccl-doctor >"$tmp/man" 2>"$tmp/manerr" || bad "man nccl-doctor fails: $(head -2 "$tmp/manerr")"
fi
dpkg --root="$inst" -s nccl-doctor | grep -q '^Status: install ok installed' || bad "dpkg does not list nccl-doctor as installed"
"$nd" --version | grep -q "^glibc floor: 2.17 (release build)" || bad "the installed binary is no release build"
grep -q "COMMAND CHECK" "$tmp/man" || bad "man nccl-doctor lacks the check command's section"
echo "man nccl-doctor: $manpage, $(wc -l <"$tmp/man") lines"
# the installed completion, from where bash-completion loads it
got=$(bash --norc -c '. "$1"; COMP_WORDS=(nccl-doctor ch); COMP_CWORD=1; _nccl_doctor; echo "${COMPREPLY[*]}"' _ \
	"$inst/usr/share/bash-completion/completions/nccl-doctor")
[ "$got" = check ] || bad "installed bash completion of 'nccl-doctor ch' gives '$got'"

[ "$fail" = 0 ] && echo "check-packages.sh: ok"
exit "$fail"
