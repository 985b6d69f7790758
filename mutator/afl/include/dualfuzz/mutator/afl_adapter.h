// The state behind the AFL++ custom-mutator ABI (afl_custom_mutator.h): a
// ScriptMutator, its random engine, the buffers handed to afl-fuzz, and a
// step-wise trimmer. The extern "C" hooks (DUALFUZZ_AFL_CUSTOM_MUTATOR) are
// one-line forwards to detail/afl_hooks.h, which calls this.
//
//   AflAdapter a(protocol, seed);  // a harness::Protocol or a ScriptMutator
//   std::string_view next = a.fuzz(input, splice_or_empty, max_size);
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <string_view>

#include "dualfuzz/harness/script.h"
#include "dualfuzz/mutator/script_mutator.h"

namespace dualfuzz::mutator {

// Deletes one step at a time, keeping a deletion only when the engine says
// the shorter script behaves the same (AFL: same coverage checksum).
// Candidates are canonical prints of the script, never longer than the
// input (afl-fuzz copies them into the input's buffer) and never empty.
class StepTrimmer {
 public:
  // The number of steps to try; 0 when `input` is not a script.
  std::size_t start(std::string_view input, const harness::FunctionRegistry& fns);
  // The next candidate; the current text when none is left (a no-op try).
  const std::string& next();
  // Verdict on the last next(); returns how many steps are settled, which
  // equals start()'s count when trimming is done.
  std::size_t report(bool success);

  const std::string& current() const { return current_; }
  bool done() const { return pos_ >= best_.steps.size(); }

 private:
  harness::Script best_, candidate_script_;
  std::string current_, candidate_;
  std::size_t limit_ = 0;    // the input's size: no candidate may exceed it
  std::size_t pos_ = 0;      // the step tried next
  std::size_t removed_ = 0;  // steps gone so far (repair may drop dangling waits too)
  bool pending_ = false;     // next() proposed a real deletion
};

class AflAdapter {
 public:
  AflAdapter(harness::Protocol protocol, unsigned int seed)
      : mutator_(std::move(protocol)), rng_(seed) {}
  // With a mutator of one's own, e.g. one with targeted mutation:
  //   AflAdapter a(campaign::Player::engine_mutator(plugin, spec), seed);
  AflAdapter(ScriptMutator mutator, unsigned int seed)
      : mutator_(std::move(mutator)), rng_(seed) {}

  // Mutates `input` (or crosses it with `splice` when given): always a
  // parseable script of 1..max_size bytes (empty only if max_size is 0).
  // The view stays valid until the next fuzz().
  std::string_view fuzz(std::string_view input, std::string_view splice,
                        std::size_t max_size);
  // After an exception escaped fuzz(): a valid output that is certainly
  // parseable (the input if it is a script that fits, else an empty script).
  std::string_view fallback(std::string_view input, std::size_t max_size);
  // "<op>:<steps>", cut to max_len; valid until the next describe().
  const char* describe(std::size_t max_len);

  StepTrimmer& trimmer() { return trimmer_; }
  const harness::FunctionRegistry& functions() const {
    return mutator_.protocol().functions;
  }

 private:
  ScriptMutator mutator_;
  std::mt19937_64 rng_;
  std::string out_, description_;
  const char* last_op_ = "none";
  std::size_t last_steps_ = 0;
  StepTrimmer trimmer_;
};

}  // namespace dualfuzz::mutator
