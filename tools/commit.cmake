# Writes OUT (nd_commit.h: ND_GIT_COMMIT, printed by --version) when its text
# changes, so that only main.c is rebuilt after a commit. COMMIT, when given
# (the release build in a root without git), is taken as it is; otherwise
# git describes SRC, and a tree without git says "unknown".
if(NOT COMMIT)
  execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
    OUTPUT_VARIABLE COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT COMMIT)
    set(COMMIT unknown)
  endif()
endif()
set(text "#define ND_GIT_COMMIT \"${COMMIT}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
