# CMake toolchain of the aarch64 release binary, in the root that
# tools/release/mkroot.sh makes: Debian's cross compiler (its own libc in
# /usr/aarch64-linux-gnu) and the arm64 jansson of multiarch
# (/usr/lib/aarch64-linux-gnu/libjansson.a). build.sh names jansson's header
# folder itself, as /usr/include also holds the amd64 libc's headers, which
# must not come before the cross compiler's own.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
