// Generation heuristics for proxies (thesis §5.2): the HTTP plug-in's
// requests, with what a proxy must treat specially added now and then
// (fields named in Connection, hop-by-hop fields, Max-Forwards on TRACE and
// OPTIONS, an earlier Via, a Host that differs from the target, for a
// forward proxy an absolute-form target with an empty path: path ""), and
// origin answers over the forwarded request they answer.
//
//   Jexp q = proxy::generate_request(rng, ctx);
//   Jexp a = proxy::generate_answer(rng, /*forwarded=*/7);  // may use 7.(this@"path")
#pragma once

#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/proxy/forwarding.h"

namespace dualfuzz::proxy {
harness::Jexp generate_request(std::mt19937_64& rng,
                               const harness::Protocol::Context& ctx,
                               Mode mode = Mode::Forward);
harness::Jexp mutate_request(std::mt19937_64& rng, const harness::Jexp& request,
                             const harness::Protocol::Context& ctx,
                             Mode mode = Mode::Forward);
harness::Jexp generate_answer(std::mt19937_64& rng, harness::Label forwarded);
}  // namespace dualfuzz::proxy
