// The AFL++ custom-mutator library of the file server's fuzz target
// (libfile_server_afl_mutator.so, built by dualfuzz_add_afl_custom_mutator in
// this folder's CMakeLists.txt): the structure-aware mutator over the
// protocol the target speaks, whatever $DUALFUZZ_PROTOCOL says. It runs
// inside afl-fuzz, which cannot reach the target's in-process server, so it
// mutates without replaying (no targeted mutation).
//
//   export
//   AFL_CUSTOM_MUTATOR_LIBRARY=$PWD/build/examples/beast_file_server/libfile_server_afl_mutator.so
//   AFL_CUSTOM_MUTATOR_ONLY=1 afl-fuzz -i examples/beast_file_server/seeds -o out
//       -- build-afl-target/examples/beast_file_server/file_server_fuzzer
#include "dualfuzz/http/protocol.h"
#include "dualfuzz/mutator/afl_custom_mutator.h"

DUALFUZZ_AFL_CUSTOM_MUTATOR(dualfuzz::http::protocol())
