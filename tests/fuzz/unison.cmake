# The file-synchronizer plug-in's parsers (answer lines, queries). Its
# functional target is the plug-in API's one: http_inprocess_fuzzer with
# DUALFUZZ_PROTOCOL=unison (DUALFUZZ_BUG=<planted bug> | unison | unison-fastcheck).
set(unison_codec_srcs ${PROJECT_SOURCE_DIR}/protocols/unison/src/codec.cpp
                      ${PROJECT_SOURCE_DIR}/protocols/unison/src/query.cpp
                      ${PROJECT_SOURCE_DIR}/protocols/unison/src/file_tree.cpp)
dualfuzz_fuzzer(unison_codec_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unison_codec_fuzzer.cpp ${unison_codec_srcs}
                LIBS dualfuzz::harness_instrumented)
target_include_directories(unison_codec_fuzzer PRIVATE
                           ${PROJECT_SOURCE_DIR}/protocols/unison/include)
