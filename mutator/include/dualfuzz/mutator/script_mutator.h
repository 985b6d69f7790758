// Structure-aware mutation of test scripts: every output parses, fits the
// size limit, and keeps the script rules (odd unique labels, waits for
// earlier requests). Deterministic for a given engine state.
//
//   ScriptMutator m(protocol);  // a harness::Protocol
//   std::mt19937_64 rng(seed);
//   std::string next = m.mutate(current, /*max_size=*/4096, rng);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"

namespace dualfuzz::mutator {

class ScriptMutator {
 public:
  // Plays a script with the oracle's decisions recorded
  // (oracle_options.limits.record_decisions), deterministically.
  using Runner = std::function<harness::RunResult(const harness::Script&)>;

  explicit ScriptMutator(harness::Protocol protocol) : protocol_(std::move(protocol)) {}
  // With a runner, one mutation in kTargetedOneIn plays the input and lets
  // the solver pick a header value that flips one of the model's branches
  // (targeted_mutation.h); when none can be flipped it mutates as usual.
  // The runner must be deterministic (in-process server) for mutate() to
  // stay a function of (input, rng state).
  //
  //   ScriptMutator m(protocol, [&](const Script& s) { return p.play(s, true, true); },
  //                   solver);
  ScriptMutator(harness::Protocol protocol, Runner runner,
                std::shared_ptr<oracle::Solver> solver)
      : protocol_(std::move(protocol)),
        runner_(std::move(runner)),
        solver_(std::move(solver)) {}
  static constexpr std::size_t kTargetedOneIn = 8;

  // How often mutate() ran the runner, and how many of those runs gave a
  // targeted rewrite (the rest fell back to structural mutation). Counters
  // only: they never influence a mutation.
  struct TargetedStats {
    std::uint64_t runs = 0, rewrites = 0;
    double seconds = 0;  // wall clock in the replays and the solver
  };
  const TargetedStats& targeted_stats() const { return targeted_stats_; }
  bool targeted() const { return runner_ && solver_; }

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
  // Between a request and a later one that refers to its answer, a request
  // that changes what the answer described (Protocol::supersede), waited
  // for; false, `s` unchanged, where there is no such pair or no hook.
  bool supersede_reference(harness::Script& s, std::mt19937_64& rng) const;
  static void repair(harness::Script& s);
  static void fit(harness::Script& s, std::size_t max_size);

  const harness::Protocol& protocol() const { return protocol_; }

 private:
  harness::Protocol::Context context(const harness::Script& s, std::size_t before) const;
  harness::Protocol protocol_;
  Runner runner_;
  std::shared_ptr<oracle::Solver> solver_;
  mutable TargetedStats targeted_stats_;
};

}  // namespace dualfuzz::mutator
