// The coverage-guided functional fuzz target of the built-in plug-ins: the
// input is a script of $DUALFUZZ_PROTOCOL (default http), played against the
// plug-in's in-process server (fresh state per execution; for HTTP a planted
// bug from $DUALFUZZ_BUG) — or against an external server at
// $DUALFUZZ_TARGET=HOST:PORT — and judged by the oracle. A violation prints
// the report and aborts, so every engine saves it as a crash;
// `dualfuzz replay --target inprocess:BUG CRASHFILE` prints the same report.
// Just before the report, one line counts what this process played since it
// started (bench/eval_libfuzzer.py reads it: messages to detection):
//   ==dualfuzz== played since start: 120 scripts, 2311 messages; mutator replays: 9 (4
//   rewritten)
// (the custom mutator's targeted-mutation replays are not in the first two
// counts). It is not part of the report, which stays identical on replay.
//   DUALFUZZ_BUG=lost-update ./http_inprocess_fuzzer corpus/
// The whole target is the fuzz-target API's macro (dualfuzz/fuzz_target.h),
// as a user's own target is.
#include "dualfuzz/fuzz_target.h"
#include "dualfuzz/protocols/builtin.h"

DUALFUZZ_FUZZ_TARGET(dualfuzz::protocols::plugin_from_env(),
                     dualfuzz::campaign::Player::spec_from_env())
