#!/usr/bin/env bash
# build.sh [--packages]: the release binaries, dist/nccl-doctor-VERSION-x86_64
# and dist/nccl-doctor-VERSION-aarch64, built in a Debian 11 root (glibc
# 2.31; mkroot.sh makes it once and keeps it) with jansson linked statically
# and the glibc 2.17 pins of src/compat/glibc217.h, then checked by
# check-glibc.sh. --packages also makes the .deb, .rpm and .tar.gz of each
# (CPack, docs/install.md) in dist/. Needs root (chroot). The source copied
# into the root is what git tracks plus the files it does not ignore, so an
# uncommitted change is built too (and --version says "-dirty").
# Warnings do not fail it: gcc 10 of the root warns where the CI compiler
# (-Werror there) does not (a -Wformat-truncation guess in engine/bench.c).
# ND_RELEASE_ARCHES limits the architectures ("x86_64", "aarch64").
set -euo pipefail
. "$(dirname "$0")/common.sh"
packages=0
[ "${1:-}" = --packages ] && packages=1
arches=${ND_RELEASE_ARCHES:-x86_64 aarch64}
t0=$(date +%s)
root=$("$src/tools/release/mkroot.sh")
commit=$(git -C "$src" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
dist=$src/dist
mkdir -p "$dist"

# the source, with its files' times kept: the build folders in the root
# stay, and an unchanged file is not compiled again
rm -rf "$root/nd/src"
mkdir -p "$root/nd/src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z -co --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -xf - -C "$root/nd/src"
else
	tar -C "$src" --exclude=./.release --exclude=./dist --exclude='./build*' -cf - . | tar -xf - -C "$root/nd/src"
fi
# qemu-user runs the aarch64 binary in the root (its man page and completion
# come from its own --help), with the root's arm64 libc (multiarch)
emu=""
if q=$(command -v qemu-aarch64-static || command -v qemu-aarch64); then
	cp "$q" "$root/usr/local/bin/qemu-aarch64" && emu="-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/local/bin/qemu-aarch64;-L;/"
fi
# jansson's header alone, away from /usr/include's amd64 libc headers
mkdir -p "$root/nd/jansson/include"
cp "$root"/usr/include/jansson.h "$root"/usr/include/jansson_config.h "$root/nd/jansson/include/"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }
for arch in $arches; do
	args=(-S /nd/src -B "/nd/build-$arch" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNCCL_DOCTOR_TESTS=OFF
		-DNCCL_DOCTOR_WERROR=OFF -DNCCL_DOCTOR_GLIBC_COMPAT=ON "-DNCCL_DOCTOR_GIT_COMMIT=$commit"
		-DCMAKE_INSTALL_PREFIX=/usr "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-z,relro,-z,now")
	strip=strip
	if [ "$arch" = aarch64 ]; then
		args+=(-DCMAKE_TOOLCHAIN_FILE=/nd/src/tools/release/aarch64-linux-gnu.cmake
			-DJANSSON_INCLUDE_DIR=/nd/jansson/include
			-DJANSSON_STATIC=/usr/lib/aarch64-linux-gnu/libjansson.a)
		[ -n "$emu" ] && args+=("$emu")
		strip=aarch64-linux-gnu-strip
	fi
	echo "build.sh: $arch" >&2
	in_root cmake "${args[@]}" >/dev/null
	in_root cmake --build "/nd/build-$arch" -j"$(nproc)" --target nccl-doctor
	out=$dist/nccl-doctor-$version-$arch
	in_root "$strip" -o "/nd/nccl-doctor-$arch" "/nd/build-$arch/nccl-doctor"
	cp "$root/nd/nccl-doctor-$arch" "$out"
	"$src/tools/release/check-glibc.sh" "$out"
	if [ "$packages" = 1 ]; then
		in_root cmake --build "/nd/build-$arch" -j"$(nproc)" --target nccl-doctor nd-docs nd-changelog
		rm -rf "$root/nd/pkg-$arch"
		in_root sh -c "cd /nd/build-$arch && cpack -B /nd/pkg-$arch" >/dev/null
		cp "$root/nd/pkg-$arch"/*.deb "$root/nd/pkg-$arch"/*.rpm "$root/nd/pkg-$arch"/*.tar.gz "$dist/"
	fi
done
ls -l "$dist" >&2
echo "build.sh: release step took $(( $(date +%s) - t0 )) s" >&2
