# NCCL_DOCTOR_FUZZ=ON: every object of the build is instrumented for
# libFuzzer's coverage feedback and checked by ASan and UBSan; the harnesses
# of fuzz/ then link libFuzzer itself. clang only (-DCMAKE_C_COMPILER=clang).
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "NCCL_DOCTOR_FUZZ=ON needs clang: cmake -DCMAKE_C_COMPILER=clang ...")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
  -fno-sanitize-recover=undefined -g)
add_link_options(-fsanitize=address,undefined)
