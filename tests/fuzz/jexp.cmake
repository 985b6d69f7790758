# Parsers of the J-expression language.
dualfuzz_fuzzer(script_parser_fuzzer SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/script_parser_fuzzer.cpp
                LIBS dualfuzz::harness_instrumented)
dualfuzz_fuzzer(jexp_eval_fuzzer SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/jexp_eval_fuzzer.cpp
                LIBS dualfuzz::harness_instrumented)
