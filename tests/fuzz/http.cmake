# The HTTP response parser.
dualfuzz_fuzzer(http_response_parser_fuzzer
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/http_response_parser_fuzzer.cpp
                LIBS dualfuzz::harness)
