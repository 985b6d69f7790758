// HTTP generation heuristics (thesis §5.2), used by the mutator and by
// `dualfuzz fuzz`.
//
//   Jexp q = dualfuzz::http::generate_request(rng, context);
#pragma once

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::http {
harness::Jexp generate_request(std::mt19937_64& rng,
                               const harness::Protocol::Context& ctx);
harness::Jexp mutate_request(std::mt19937_64& rng, const harness::Jexp& request,
                             const harness::Protocol::Context& ctx);
// A request that changes what the answer to `source` described: other
// content at its path (a PUT whose body differs from the script's latest
// PUT there; now and then a DELETE). Protocol::supersede: the mutator puts
// it between a response and a later request whose validator refers to it,
// the stale tag a server that remembers old ones answers 304 to.
std::optional<harness::Jexp> supersede(std::mt19937_64& rng, const harness::Jexp& source,
                                       const harness::Protocol::Context& ctx);
// The same mutations but never a defect of the syntax (malformation.h) or a
// Host edit: for plug-ins whose model does not judge those (the proxy's).
harness::Jexp mutate_well_formed(std::mt19937_64& rng, const harness::Jexp& request,
                                 const harness::Protocol::Context& ctx);
// Targeted mutation: the precondition field of `request_ir` that carried
// `old_value` (an entity tag in If-Match / If-None-Match, a date in seconds
// in If-Modified-Since / If-Unmodified-Since), rewritten to `new_value`.
std::optional<harness::Protocol::Retarget> retarget(const harness::Json& request_ir,
                                                    const harness::Json& old_value,
                                                    const harness::Json& new_value);
// ... written into a script's request: `request` with the header `field.field`
// (any case) set to `field.text`; nullopt when `request` is no object of
// fields or its "headers" no object.
std::optional<harness::Jexp> apply_retarget(const harness::Jexp& request,
                                            const harness::Protocol::Retarget& field);
}  // namespace dualfuzz::http
