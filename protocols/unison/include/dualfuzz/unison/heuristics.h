// Generation heuristics for the file synchronizer (thesis §5.2): state-based
// (paths the script already touched, on the other replica too: the same
// path changed on both sides is a conflict on purpose; parents before
// children; writes that keep the timestamp, `same_time`), trace-based (a
// content read from one replica written to the other: the same change on
// both sides), and syncs often enough that conflicts meet a reconciliation.
// The path space is small on purpose: names a, b; depth <= 2.
//
//   Jexp q = unison::generate_request(rng, context);
#pragma once

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::unison {
harness::Jexp generate_request(std::mt19937_64& rng,
                               const harness::Protocol::Context& ctx);
harness::Jexp mutate_request(std::mt19937_64& rng, const harness::Jexp& request,
                             const harness::Protocol::Context& ctx);
}  // namespace dualfuzz::unison
