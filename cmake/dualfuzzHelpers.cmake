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

# dualfuzz_add_afl_custom_mutator(<name> SOURCES a.cpp... [LIBS lib...]):
# the AFL++ custom-mutator library (lib<name>.so, for
# AFL_CUSTOM_MUTATOR_LIBRARY) of the protocol whose sources define it with
# DUALFUZZ_AFL_CUSTOM_MUTATOR (dualfuzz/mutator/afl_custom_mutator.h); LIBS
# are the protocol's libraries. E.g.
#   dualfuzz_add_afl_custom_mutator(my_afl_mutator SOURCES my_afl_mutator.cpp
#                                   LIBS my_protocol)
# The library exports only the afl_custom_* hooks: nothing of ours or of the
# static libraries may interpose on symbols of afl-fuzz or of other
# mutators. A shared object must be position independent throughout, so
# every static library it links, directly or through others, is built with
# -fPIC (a no-op cost on x86-64); the link graph is walked once the whole
# project is configured, when every library in it exists. (An installed
# dualfuzz's libraries already are.)
function(dualfuzz_add_afl_custom_mutator name)
  cmake_parse_arguments(M "" "" "SOURCES;LIBS" ${ARGN})
  if(NOT M_SOURCES)
    message(FATAL_ERROR "dualfuzz_add_afl_custom_mutator(${name}): no SOURCES")
  endif()
  add_library(${name} SHARED ${M_SOURCES})
  target_link_libraries(${name} PRIVATE dualfuzz::mutator ${M_LIBS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${name} PRIVATE -Wl,--exclude-libs,ALL)
  # (EVAL: the deferred call gets the name now, not a variable then.)
  cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\"
                 CALL dualfuzz_position_independent \"${name}\")")
  dualfuzz_copy_z3_backend(${name})
endfunction()

# dualfuzz_position_independent(<target>): -fPIC for every static library
# <target> links, found by walking the link graph (so a new protocol
# plug-in needs no entry anywhere).
function(dualfuzz_position_independent target)
  foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(deps ${target} ${prop})
    if(NOT deps)
      continue()
    endif()
    foreach(dep IN LISTS deps)
      if(NOT TARGET ${dep})
        continue()
      endif()
      get_target_property(real ${dep} ALIASED_TARGET)
      if(real)
        set(dep ${real})
      endif()
      get_target_property(imported ${dep} IMPORTED)
      get_target_property(type ${dep} TYPE)
      get_target_property(done ${dep} DUALFUZZ_PIC_VISITED)
      if(imported OR done)
        continue()
      endif()
      set_property(TARGET ${dep} PROPERTY DUALFUZZ_PIC_VISITED ON)
      if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
        set_property(TARGET ${dep} PROPERTY POSITION_INDEPENDENT_CODE ON)
      endif()
      dualfuzz_position_independent(${dep})
    endforeach()
  endforeach()
endfunction()
