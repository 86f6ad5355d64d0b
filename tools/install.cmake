# Install and packages (docs/install.md): the binary, the man page and the
# bash and zsh completion (generated from the binary's own help and option
# tables by tools/gen-docs.sh, so they cannot drift), docs/ and contrib/;
# CPack makes .deb, .rpm and .tar.gz of that tree. Packages are made from
# the release build (tools/release/build.sh --packages): it needs only glibc
# 2.17, so the packages depend on libc alone.
include(GNUInstallDirs)
install(TARGETS nccl-doctor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# A cross build runs the binary under CMAKE_CROSSCOMPILING_EMULATOR
# (qemu-user); without one it has no man page or completion.
option(NCCL_DOCTOR_DOCS "generate the man page and shell completion (tools/gen-docs.sh)" ON)
set(ND_DOCS_DIR ${CMAKE_BINARY_DIR}/docs-gen)
if(NCCL_DOCTOR_DOCS AND CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(STATUS "cross build without an emulator: no man page or completion")
  set(NCCL_DOCTOR_DOCS OFF)
endif()
if(NCCL_DOCTOR_DOCS)
  set(ND_DOCS_OUT ${ND_DOCS_DIR}/nccl-doctor.1 ${ND_DOCS_DIR}/nccl-doctor.1.gz ${ND_DOCS_DIR}/nccl-doctor.bash
    ${ND_DOCS_DIR}/_nccl-doctor)
  # the installed page compressed (Debian policy), without name or time (-n)
  add_custom_command(OUTPUT ${ND_DOCS_OUT}
    COMMAND bash ${CMAKE_SOURCE_DIR}/tools/gen-docs.sh ${ND_DOCS_DIR} ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:nccl-doctor>
    COMMAND gzip -9nf -k ${ND_DOCS_DIR}/nccl-doctor.1
    DEPENDS nccl-doctor ${CMAKE_SOURCE_DIR}/tools/gen-docs.sh
    COMMENT "man page and completion from nccl-doctor's help" VERBATIM)
  add_custom_target(nd-docs ALL DEPENDS ${ND_DOCS_OUT})
  install(FILES ${ND_DOCS_DIR}/nccl-doctor.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${ND_DOCS_DIR}/nccl-doctor.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
    RENAME nccl-doctor)
  # Debian's zsh reads vendor-completions under /usr; zsh's own default
  # (site-functions) elsewhere, /usr/local included
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(ND_ZSH_DIR ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
  else()
    set(ND_ZSH_DIR ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
  endif()
  install(FILES ${ND_DOCS_DIR}/_nccl-doctor DESTINATION ${ND_ZSH_DIR})
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY contrib/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/contrib USE_SOURCE_PERMISSIONS)
install(FILES tools/release/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
# the change log Debian wants of a native package: this version, its commit
# and date (SOURCE_DATE_EPOCH, when set, makes it reproducible)
string(TIMESTAMP ND_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(ND_MAINTAINER "nccl-doctor maintainers <nccl-doctor@users.noreply.github.com>"
  CACHE STRING "the packages' maintainer (name <address>)")
file(WRITE ${CMAKE_BINARY_DIR}/changelog
  "nccl-doctor (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
  "  * Release ${PROJECT_VERSION}; the changes are in the project's git history.\n\n"
  " -- ${ND_MAINTAINER}  ${ND_CHANGELOG_DATE}\n")
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/changelog.gz
  COMMAND gzip -9nf -k ${CMAKE_BINARY_DIR}/changelog DEPENDS ${CMAKE_BINARY_DIR}/changelog VERBATIM)
add_custom_target(nd-changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
# lintian's overrides, each with its reason (tools/release/lintian-overrides)
install(FILES tools/release/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
  RENAME nccl-doctor)

# ---- CPack: the architecture names of each format ----
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(ND_ARCH aarch64)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
else()
  set(ND_ARCH x86_64)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()
set(CPACK_PACKAGE_NAME nccl-doctor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "nccl-doctor")
set(CPACK_PACKAGE_CONTACT ${ND_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "find why NCCL hangs or fails on a GPU server")
set(CPACK_PACKAGE_DESCRIPTION "nccl-doctor diagnoses NCCL hangs and failures on Linux GPU servers:
host facts, GPU links, the kernel log and every GPU pair tested under
deadlines, with the likely cause, its evidence and the fix. It loads the
NVIDIA driver's libraries and libnccl at run time.")
set(CPACK_PACKAGE_FILE_NAME nccl-doctor-${PROJECT_VERSION}-${ND_ARCH})
set(CPACK_GENERATOR DEB RPM TGZ)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# .deb: libc alone (the release binary's floor), lspci for the PCI names
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.17)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pciutils")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# .rpm: rpmbuild's automatic requirements are the libc sonames; no folder
# of the file system's own package is claimed
set(CPACK_RPM_PACKAGE_ARCHITECTURE ${ND_ARCH})
set(CPACK_RPM_PACKAGE_LICENSE "not yet chosen (see copyright)")
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
# CPack writes no Recommends tag itself (Suggests only); this line lands in
# the spec's preamble (rpm 4.12 and newer read it, older ones skip it)
set(CPACK_RPM_SPEC_MORE_DEFINE "Recommends: pciutils")
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
  /usr/share/man /usr/share/man/man1 /usr/share/bash-completion /usr/share/bash-completion/completions
  /usr/share/zsh /usr/share/zsh/vendor-completions /usr/share/doc /usr/share/lintian
  /usr/share/lintian/overrides)
include(CPack)
