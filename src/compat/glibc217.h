/* The glibc floor of the release binaries (tools/release/, docs/install.md):
 * GLIBC_2.17, the manylinux2014 floor, so that one binary runs on Ubuntu
 * 20.04, Debian 11, RHEL/Rocky/Alma 8, Amazon Linux 2 and the CUDA images
 * built on them. Release builds are made in a Debian 11 root (glibc 2.31),
 * and this header is put in front of every source file by the build only
 * then (-include, CMake option NCCL_DOCTOR_GLIBC_COMPAT); a normal build
 * never sees it. tools/release/check-glibc.sh fails the release when
 * `objdump -T` shows a GLIBC_ version newer than 2.17, which is how a new
 * pin is found: each one below names the symbol, the version glibc 2.31
 * would bind it to, and why the older one is the same for this program.
 *
 * The base version is the oldest one of the architecture: every symbol
 * there is at least that old. */
#ifndef ND_COMPAT_GLIBC217_H
#define ND_COMPAT_GLIBC217_H

#define ND_GLIBC_FLOOR "2.17"

#if defined(__x86_64__)
#define ND_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define ND_GLIBC_BASE "GLIBC_2.17"
#else
#error "release builds are made for x86_64 and aarch64 only (tools/release/)"
#endif

/* log2 -> GLIBC_2.29: 2.29 dropped the SVID error-handling wrapper
 * (matherr, _LIB_VERSION) from log2; the result of a finite positive
 * argument is the same, and envfilter.c's entropy only passes 0 < p <= 1. */
__asm__(".symver log2, log2@" ND_GLIBC_BASE);

/* log, pow -> GLIBC_2.29: the same change as log2 (2.29's new log and pow
 * leave out the SVID wrapper, which only acts on a domain or range error).
 * bench.c's size_limit passes log only ratios of positive times and sizes,
 * and pow a ratio > 1 raised to g in [0, 1]: no error case is reached. */
__asm__(".symver log, log@" ND_GLIBC_BASE);
__asm__(".symver pow, pow@" ND_GLIBC_BASE);

/* glob -> GLIBC_2.27: 2.27 made glob test a name with lstat (gl_lstat under
 * GLOB_ALTDIRFUNC), so that a dangling symbolic link matches (glibc bug
 * 866). The old version tests with stat where the glibc it runs on is old
 * (Debian 11's 2.31 leaves a dangling link out; 2.36's matches it): only
 * a pattern whose last part has no wildcard can differ, as a wildcard part
 * is matched against the folder's names. The callers pass no
 * GLOB_ALTDIRFUNC, and the one such pattern that meets dangling links (a
 * systemd unit's link in a sysroot, fabric.c) tests the link itself. */
__asm__(".symver glob, glob@" ND_GLIBC_BASE);

#endif
