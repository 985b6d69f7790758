// What the coverage-guided engine sees of one execution. A fuzz target
// calls forget_coverage() after an execution that must not enter the corpus
// (too slow to be worth its new coverage, or no verdict): libFuzzer before
// LLVM 15 ignores LLVMFuzzerTestOneInput's -1, but keeps no input that
// showed no coverage at all. (AFL++'s driver ignores -1 too; AFL++ favours
// fast inputs by itself, and its map is left alone.)
//
//   if (too_costly(r)) dualfuzz::campaign::detail::forget_coverage();
//   else dualfuzz::campaign::detail::count_behaviour(protocol, r.trace);
#pragma once

#include <cstddef>
#include <cstdint>

#include "dualfuzz/harness/labelled_trace.h"
#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::campaign::detail {

// Clears the coverage the engine reads after this execution: the
// -fsanitize-coverage inline 8-bit counters (libFuzzer).
// Returns the number of counter bytes cleared (0: the binary has none, e.g.
// the `dualfuzz` program).
std::size_t forget_coverage();

// Behaviour coverage, the engine's signal of what the server did whatever
// its code's instrumentation (none, for a black box): one counter per kind
// of exchange (Protocol::request_shape x response_shape: HTTP "PUT
// if-match" answered 412) and one per two consecutive kinds on one resource
// (Protocol::race_key): the edges of the protocol's state machine as the
// server walked it, AFL-style. It replaces instrumenting the model's code,
// whose counters grow with the oracle's search, not with the server's
// behaviour. Into libFuzzer's extra counters. Returns the number of
// exchanges counted.
std::size_t count_behaviour(const harness::Protocol& p, const harness::LabelledTrace& t);

// The counters count_behaviour writes to (libFuzzer reads and clears them
// around each execution; tests read them).
std::uint8_t* behaviour_counters();
inline constexpr std::size_t kBehaviourCounters = 1 << 14;

}  // namespace dualfuzz::campaign::detail
