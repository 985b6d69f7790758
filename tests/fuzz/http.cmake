# The HTTP codec: response and request parsers (split-invariance, no crash,
# bounded memory) and the request printer (always exactly one request).
dualfuzz_fuzzer(http_response_parser_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_response_parser_fuzzer.cpp
                LIBS dualfuzz::http_codec_instrumented)
dualfuzz_fuzzer(http_request_parser_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_request_parser_fuzzer.cpp
                LIBS dualfuzz::http_codec_instrumented)
# The WebDAV XML body mutator (a tokenizer of any bytes): its source compiled
# into the target, instrumented, since it lives in the model library.
dualfuzz_fuzzer(http_xml_mutation_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_xml_mutation_fuzzer.cpp
                        ${PROJECT_SOURCE_DIR}/protocols/http/src/xml_mutation.cpp
                LIBS dualfuzz::http_codec_instrumented)
# The site's link extraction (gumbo over any bytes): site.cpp compiled into
# the target, instrumented, since it lives in the model library.
dualfuzz_fuzzer(http_site_links_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_site_links_fuzzer.cpp
                        ${PROJECT_SOURCE_DIR}/protocols/http/src/site.cpp
                LIBS dualfuzz::http_codec_instrumented PkgConfig::GUMBO)
# The functional fuzz target (in-process reference server + oracle), with the
# structure-aware custom mutator.
if(TARGET dualfuzz_campaign)
  dualfuzz_fuzzer(http_inprocess_fuzzer
                  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_inprocess_fuzzer.cpp
                  LIBS dualfuzz::protocols)
endif()
# The message rules and field grammars on any response bytes: the rules'
# sources compiled into the target, instrumented (they live in the model
# library); the grammars are in the instrumented codec.
dualfuzz_fuzzer(http_message_rules_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_message_rules_fuzzer.cpp
                        ${PROJECT_SOURCE_DIR}/protocols/http/src/message_rules.cpp
                        ${PROJECT_SOURCE_DIR}/protocols/http/src/connection_options.cpp
                        ${PROJECT_SOURCE_DIR}/protocols/http/src/status_fields.cpp
                LIBS dualfuzz::http_codec_instrumented)
# Content codings (zlib over any bytes, Accept-Encoding lists): the source
# compiled into the target, instrumented, since it lives in the model library.
find_package(ZLIB REQUIRED)
dualfuzz_fuzzer(http_content_coding_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_content_coding_fuzzer.cpp
                        ${PROJECT_SOURCE_DIR}/protocols/http/src/content_coding.cpp
                LIBS dualfuzz::http_codec_instrumented ZLIB::ZLIB)
