#include "dualfuzz/mutator/afl_adapter.h"

#include <algorithm>

namespace dualfuzz::mutator {

std::size_t StepTrimmer::start(std::string_view input,
                               const harness::FunctionRegistry& fns) {
  current_.assign(input);
  limit_ = input.size();
  pos_ = removed_ = 0;
  pending_ = false;
  auto parsed = harness::parse_script(input, fns);
  best_ = parsed ? std::move(*parsed) : harness::Script{};
  return best_.steps.size();
}

const std::string& StepTrimmer::next() {
  pending_ = false;
  for (; pos_ < best_.steps.size(); ++pos_) {
    harness::Script cand = best_;
    cand.steps.erase(cand.steps.begin() + static_cast<std::ptrdiff_t>(pos_));
    // Deleting a request also drops the waits for it; references to it stay
    // (loose evaluation re-instantiates them), as in ScriptMutator.
    ScriptMutator::repair(cand);
    std::string text = harness::print_script(cand);
    // An empty script is no test, and afl-fuzz writes the accepted candidate
    // over the input's buffer, so a longer one (the canonical print of a
    // hand-written seed can be) must not be proposed.
    if (text.empty() || text.size() > limit_ || text == current_) continue;
    candidate_script_ = std::move(cand);
    candidate_ = std::move(text);
    pending_ = true;
    return candidate_;
  }
  return current_;
}

std::size_t StepTrimmer::report(bool success) {
  if (pending_ && success) {
    // The step at pos_ is gone: the next one slides into its place.
    removed_ += best_.steps.size() - candidate_script_.steps.size();
    best_ = std::move(candidate_script_);
    current_ = std::move(candidate_);
  } else if (pending_) {
    ++pos_;
  }
  pending_ = false;
  // Invariant: removed_ + best_.steps.size() is start()'s count.
  return std::min(pos_, best_.steps.size()) + removed_;
}

std::string_view AflAdapter::fuzz(std::string_view input, std::string_view splice,
                                  std::size_t max_size) {
  if (max_size == 0) {
    out_.clear();
    last_op_ = "none";
    return out_;
  }
  if (!splice.empty() && rng_() % 4 == 0) {
    out_ = mutator_.crossover(input, splice, max_size, rng_);
    last_op_ = "crossover";
  } else {
    const std::uint64_t rewrites = mutator_.targeted_stats().rewrites;
    out_ = mutator_.mutate(input, max_size, rng_);
    last_op_ = mutator_.targeted_stats().rewrites != rewrites ? "targeted" : "mutate";
  }
  // mutate() may delete the last step, or fit() drop every step of a big
  // script into a small max_size; an empty output would make afl-fuzz skip
  // the run, so offer a fresh one-request script, else a blank line (which
  // parses as the empty script).
  for (int tries = 0; out_.empty() && tries < 8; ++tries) {
    harness::Script s = mutator_.generate(rng_, 1);
    ScriptMutator::fit(s, max_size);
    out_ = harness::print_script(s);
    last_op_ = "generate";
  }
  if (out_.empty()) out_ = "\n";
  last_steps_ = static_cast<std::size_t>(std::count(out_.begin(), out_.end(), '\n'));
  return out_;
}

std::string_view AflAdapter::fallback(std::string_view input, std::size_t max_size) {
  last_op_ = "fallback";
  out_.clear();
  if (max_size == 0) return out_;
  if (!input.empty() && input.size() <= max_size &&
      harness::parse_script(input, functions()))
    out_.assign(input);
  else
    out_ = "\n";
  return out_;
}

const char* AflAdapter::describe(std::size_t max_len) {
  // No '/' or spaces: afl-fuzz puts this into file names.
  description_ = std::string(last_op_) + "-" + std::to_string(last_steps_) + "steps";
  if (description_.size() > max_len) description_.resize(max_len);
  return description_.c_str();
}

}  // namespace dualfuzz::mutator
