// libdualfuzz_afl_mutator.so: the AFL++ custom mutator of the built-in
// registry, the plug-in $DUALFUZZ_PROTOCOL names (the default one when
// unset). Its targeted mutation replays inputs on a server of its own, from
// the environment afl-fuzz passes to the target too ($DUALFUZZ_BUG,
// $DUALFUZZ_TARGET; $DUALFUZZ_TARGETED=0 turns it off). A protocol of one's
// own gets its library the same way (afl_custom_mutator.h).
#include "dualfuzz/mutator/afl_custom_mutator.h"

#include "dualfuzz/protocols/builtin.h"

DUALFUZZ_AFL_CUSTOM_MUTATOR(dualfuzz::protocols::engine_mutator_from_env())
