# `cmake --install BUILD [--prefix P]`: the libraries, their public headers,
# the Z3 back end, the `dualfuzz` program and the CMake package that
# find_package(dualfuzz CONFIG) reads (dualfuzzConfig.cmake, its version
# file, the exported targets dualfuzz::<module>). Included by the top-level
# CMakeLists.txt once the library folders are added; checked by
# scripts/check-package.sh (ctest -L package).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(DUALFUZZ_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dualfuzz)

# The targets of the given folders and theirs below, found by walking them,
# so that a new module or protocol plug-in needs no entry here.
function(dualfuzz_targets_below dir out)
  get_property(found DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    dualfuzz_targets_below(${sub} more)
    list(APPEND found ${more})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

get_property(candidates DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY BUILDSYSTEM_TARGETS)
foreach(dir IN LISTS DUALFUZZ_MODULE_DIRS)
  dualfuzz_targets_below(${PROJECT_SOURCE_DIR}/${dir} below)
  list(APPEND candidates ${below})
endforeach()

set(installed)
set(header_dirs)
foreach(target IN LISTS candidates)
  get_target_property(type ${target} TYPE)
  if(NOT target MATCHES "^dualfuzz" OR type STREQUAL "UTILITY")
    continue()
  endif()
  list(APPEND installed ${target})
  # dualfuzz_oracle -> dualfuzz::oracle, as the build tree's aliases.
  string(REGEX REPLACE "^dualfuzz_" "" name ${target})
  if(target STREQUAL "dualfuzz_z3")
    set(name z3_backend)
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  # A public include folder of the source tree is the build's alone: the
  # installed targets use <prefix>/include, where its headers are copied
  # (include/dualfuzz/<module>/...). The build's compile lines are unchanged.
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(dirs)
    set(wrapped)
    foreach(d IN LISTS dirs)
      string(FIND "${d}" "${PROJECT_SOURCE_DIR}/" in_source)
      if(in_source EQUAL 0 AND NOT d MATCHES "\\$<")
        list(APPEND wrapped "$<BUILD_INTERFACE:${d}>")
        list(APPEND header_dirs ${d})
      else()
        list(APPEND wrapped "${d}")
      endif()
    endforeach()
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
  endif()
endforeach()

install(TARGETS ${installed} EXPORT dualfuzzTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
list(REMOVE_DUPLICATES header_dirs)
foreach(d IN LISTS header_dirs)
  install(DIRECTORY ${d}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

# The installed `dualfuzz` looks for the Z3 back end beside itself
# (oracle/src/solver.cpp): a link to the one in the library folder.
if(TARGET dualfuzz_z3 AND TARGET dualfuzz)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(z3_link_target "${CMAKE_INSTALL_LIBDIR}/libdualfuzz_z3.so")
  else()
    file(RELATIVE_PATH z3_link_target /prefix/${CMAKE_INSTALL_BINDIR}
         /prefix/${CMAKE_INSTALL_LIBDIR}/libdualfuzz_z3.so)
  endif()
  install(CODE "
    set(bindir \"${CMAKE_INSTALL_BINDIR}\")
    if(NOT IS_ABSOLUTE \"\${bindir}\")
      set(bindir \"\${CMAKE_INSTALL_PREFIX}/\${bindir}\")
    endif()
    message(STATUS \"Installing: \$ENV{DESTDIR}\${bindir}/libdualfuzz_z3.so -> ${z3_link_target}\")
    file(CREATE_LINK \"${z3_link_target}\" \"\$ENV{DESTDIR}\${bindir}/libdualfuzz_z3.so\" SYMBOLIC)
  ")
endif()

install(EXPORT dualfuzzTargets NAMESPACE dualfuzz:: DESTINATION ${DUALFUZZ_CMAKE_DIR})
# The oracle links libz3 itself unless it loads the Z3 back end.
if(TARGET dualfuzz_z3)
  set(DUALFUZZ_LINKS_Z3 OFF)
else()
  set(DUALFUZZ_LINKS_Z3 ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dualfuzzConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/dualfuzzConfig.cmake
                              INSTALL_DESTINATION ${DUALFUZZ_CMAKE_DIR})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dualfuzzConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/dualfuzzConfig.cmake
              ${PROJECT_BINARY_DIR}/dualfuzzConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/dualfuzzFindZ3.cmake
              ${PROJECT_SOURCE_DIR}/cmake/dualfuzzHelpers.cmake
        DESTINATION ${DUALFUZZ_CMAKE_DIR})
