// Structure-aware mutation of test scripts: every output parses, fits the
// size limit, and keeps the script rules (odd unique labels, waits for
// earlier requests). Deterministic for a given engine state.
//
//   ScriptMutator m(dualfuzz::specs::http_protocol());
//   std::mt19937_64 rng(seed);
//   std::string next = m.mutate(current, /*max_size=*/4096, rng);
#pragma once

#include <random>
#include <string>
#include <string_view>

#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"

namespace dualfuzz::mutator {

class ScriptMutator {
 public:
  explicit ScriptMutator(harness::Protocol protocol) : protocol_(std::move(protocol)) {}

  // One to four structural mutations; unparseable input is replaced by a
  // generated script. The result never exceeds max_size (steps are dropped
  // until it fits, so libFuzzer's -minimize_crash can shrink).
  std::string mutate(std::string_view input, std::size_t max_size,
                     std::mt19937_64& rng) const;
  // A prefix of `a` followed by a suffix of `b` (labels and references of
  // `b` renumbered to stay unique).
  std::string crossover(std::string_view a, std::string_view b, std::size_t max_size,
                        std::mt19937_64& rng) const;
  harness::Script generate(std::mt19937_64& rng, std::size_t requests) const;

  // Single operations, exposed for tests and for the AFL++ adapter.
  void mutate_once(harness::Script& s, std::mt19937_64& rng) const;
  static void repair(harness::Script& s);
  static void fit(harness::Script& s, std::size_t max_size);

  const harness::Protocol& protocol() const { return protocol_; }

 private:
  harness::Protocol::Context context(const harness::Script& s, std::size_t before) const;
  harness::Protocol protocol_;
};

}  // namespace dualfuzz::mutator
