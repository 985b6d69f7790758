# Functions for projects that use dualfuzz, through find_package(dualfuzz) or
# add_subdirectory() alike (installed beside dualfuzzConfig.cmake).

# dualfuzz_copy_z3_backend(<target>...): puts the Z3 back end
# libdualfuzz_z3.so beside each target's file after it is built. A dualfuzz
# built with DUALFUZZ_LAZY_Z3 (the default without DUALFUZZ_BUILD_FUZZERS)
# loads Z3 from that module at the first solver query, looked for beside the
# program (or the shared library) first, then at the path of the build tree
# it was made in, which an installed package may no longer have;
# $DUALFUZZ_Z3_MODULE overrides both. A no-op when the oracle links Z3
# itself (DUALFUZZ_LAZY_Z3=OFF, every fuzzer build).
function(dualfuzz_copy_z3_backend)
  if(NOT TARGET dualfuzz::z3_backend)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    add_custom_command(TARGET ${target} POST_BUILD
                       COMMAND ${CMAKE_COMMAND} -E copy_if_different
                               $<TARGET_FILE:dualfuzz::z3_backend> $<TARGET_FILE_DIR:${target}>
                       VERBATIM)
  endforeach()
endfunction()
