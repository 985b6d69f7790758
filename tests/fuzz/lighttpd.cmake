# lighttpd in process (tests/fuzz/lighttpd_inprocess_fuzzer.cpp): built only
# when -DDUALFUZZ_LIGHTTPD_INPROCESS=DIR names a build of
# scripts/subjects/build-inprocess.sh lighttpd (minutes, and a Debian source
# mirror), so that other builds and CI need neither. Its ctest
# fuzz_lighttpd_inprocess runs it from its seeds and expects no finding;
# skipped without the build.
set(DUALFUZZ_LIGHTTPD_INPROCESS "" CACHE PATH
    "scripts/subjects/build-inprocess.sh lighttpd's DIR: builds lighttpd_inprocess_fuzzer")
set(lighttpd_fuzzer "")
if(DUALFUZZ_LIGHTTPD_INPROCESS AND TARGET dualfuzz_campaign)
  set(dir ${DUALFUZZ_LIGHTTPD_INPROCESS})
  if(NOT EXISTS ${dir}/lib/liblighttpd_inprocess.a OR NOT EXISTS ${dir}/link-libs)
    message(FATAL_ERROR "DUALFUZZ_LIGHTTPD_INPROCESS=${dir}: no build-inprocess.sh build there")
  endif()
  file(READ ${dir}/link-libs lighttpd_libs)
  separate_arguments(lighttpd_libs UNIX_COMMAND "${lighttpd_libs}")
  add_library(lighttpd_inprocess STATIC IMPORTED)
  set_target_properties(lighttpd_inprocess PROPERTIES
    IMPORTED_LOCATION ${dir}/lib/liblighttpd_inprocess.a
    INTERFACE_INCLUDE_DIRECTORIES ${dir}/include
    INTERFACE_LINK_LIBRARIES "${lighttpd_libs}")
  # (the fuzzer reaches mod_webdav's database itself: sqlite3 is among lighttpd's libraries)
  dualfuzz_fuzzer(lighttpd_inprocess_fuzzer
                  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/lighttpd_inprocess_fuzzer.cpp
                  LIBS lighttpd_inprocess dualfuzz::fuzz_target dualfuzz::http Threads::Threads)
  set(lighttpd_fuzzer $<TARGET_FILE:lighttpd_inprocess_fuzzer>)
endif()
add_test(NAME fuzz_lighttpd_inprocess
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lighttpd_inprocess_test.sh "${lighttpd_fuzzer}"
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(fuzz_lighttpd_inprocess PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     RUN_SERIAL TRUE)
