# Defines z3::libz3: from Z3's own CMake package when it has one, else from
# libz3 and z3++.h found on the system (Debian's libz3-dev ships no CMake
# package). Used by the top-level CMakeLists.txt and, installed beside it, by
# dualfuzzConfig.cmake when the installed oracle links libz3 itself
# (DUALFUZZ_LAZY_Z3=OFF).
if(NOT TARGET z3::libz3)
  find_package(Z3 QUIET CONFIG)
  if(NOT Z3_FOUND)
    find_library(Z3_LIB z3 REQUIRED)
    find_path(Z3_INCLUDE z3++.h REQUIRED)
    add_library(z3::libz3 UNKNOWN IMPORTED)
    set_target_properties(z3::libz3 PROPERTIES IMPORTED_LOCATION ${Z3_LIB}
                          INTERFACE_INCLUDE_DIRECTORIES ${Z3_INCLUDE})
  endif()
endif()
