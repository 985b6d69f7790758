// HTTP entity tags (RFC 9110 §8.8.3) in the oracle's marked-string theory:
// the weakness indicator "W/" is the marker, the opaque tag the core. The
// strong comparison excludes marked (weak) tags, the weak one ignores marks.
//
//   Sym tag = Sym::var(3, Sort::Str);                   // an ETag the server invented
//   Sym ok = strong_match(Sym::lit("\"abc\""), tag);    // If-Match evaluation
//   Sym fresh = weak_match(Sym::lit("W/\"abc\""), tag); // If-None-Match evaluation
//   oracle::ServerModel m{"...", initial};
//   m.strings = entity_tags();                          // how the oracle reads them
#pragma once

#include "dualfuzz/oracle/symbolic.h"
#include "dualfuzz/oracle/theory.h"

namespace dualfuzz::http {

// The theory of entity tags; every model comparing them registers it.
const oracle::StringTheory& entity_tags();

// RFC 9110 §8.8.3.2's comparisons, folded like the oracle's other helpers.
// An empty tag (the model's "no ETag") and a non-string constant match nothing.
oracle::Sym strong_match(const oracle::Sym& a, const oracle::Sym& b);
oracle::Sym weak_match(const oracle::Sym& a, const oracle::Sym& b);

}  // namespace dualfuzz::http
