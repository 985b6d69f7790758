// HTTP generation heuristics (thesis §5.2), used by the mutator and by
// `dualfuzz fuzz`.
//
//   Jexp q = dualfuzz::specs::http_generate_request(rng, context);
#pragma once

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::specs {
harness::Jexp http_generate_request(std::mt19937_64& rng,
                                    const harness::Protocol::Context& ctx);
harness::Jexp http_mutate_request(std::mt19937_64& rng, const harness::Jexp& request,
                                  const harness::Protocol::Context& ctx);
}  // namespace dualfuzz::specs
