// The toy protocol's AFL++ custom-mutator library: the macro a user writes
// for a protocol of their own (built by dualfuzz_add_afl_custom_mutator).
#include "dualfuzz/mutator/afl_custom_mutator.h"
#include "support/toy_protocol.h"

DUALFUZZ_AFL_CUSTOM_MUTATOR(dualfuzz::toy::protocol())
