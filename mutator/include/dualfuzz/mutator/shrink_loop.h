// The one shrinking loop of dualfuzz, the way rapidcheck's Shrinkable works:
// a candidate source lists the smaller variants of the current state, the
// loop tests them in order, accepts the first one that still shows the
// failure and goes on from it, until a whole pass over a state's
// candidates accepts none or the budget is spent. Every shrinker (the
// structural one of mutator::minimize, race skeletons, sequential
// candidates, lighter requests) is a candidate source for this loop.
//
//   mutator::Shrinker<std::vector<int>, std::vector<int>> s;
//   s.candidates = [](const std::vector<int>& v) { return drop_each(v); };
//   s.test = [](const std::vector<int>& c) -> mutator::Tested<std::vector<int>> {
//     return {fails(c) ? std::optional(c) : std::nullopt, /*replays=*/1};
//   };
//   auto out = mutator::shrink_greedy(start, s, {.max_replays = 100});
//   // out.best: no candidate of it fails (or out.stats.exhausted)
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dualfuzz::mutator {

struct ShrinkBudget {
  std::size_t max_replays = 2000;  // runs of the system under test
  std::chrono::steady_clock::duration max_time =
      std::chrono::steady_clock::duration::max();
};

struct ShrinkStats {
  std::size_t tests = 0;    // candidates tested
  std::size_t replays = 0;  // runs those tests made (a flaky test makes several)
  std::size_t accepted = 0;
  bool exhausted = false;  // stopped by the budget, not at a fixed point
  // Accepted states a confirmation went back over: the smallest did not
  // show the failure again (campaign/shrink.h's confirm).
  std::size_t went_back = 0;
};

// What testing one candidate gave: the new state when it still shows the
// failure, and how many runs that took.
template <class State>
struct Tested {
  std::optional<State> state;
  std::size_t replays = 1;
};

template <class State, class Candidate>
struct Shrinker {
  // The candidates of a state, in the order they are tried (cheap and
  // likely first). None may equal the state itself.
  std::function<std::vector<Candidate>(const State&)> candidates;
  std::function<Tested<State>(const Candidate&)> test;
  // Optional: a failed candidate's key; a candidate with a known key is not
  // tested again (for deterministic tests; the key should include whatever
  // the test's verdict depends on besides the candidate).
  std::function<std::string(const Candidate&)> memo_key;
};

template <class State>
struct Shrunk {
  State best;
  ShrinkStats stats;
};

// After an accepted candidate i the loop goes on with candidate i of the
// new state (those before it were just tried on a larger one); when the
// list runs out it starts over from the first, and stops after a pass from
// the first that accepted nothing.
template <class State, class Candidate>
Shrunk<State> shrink_greedy(State start, const Shrinker<State, Candidate>& s,
                            ShrinkBudget budget) {
  const auto t0 = std::chrono::steady_clock::now();
  auto over = [&](const ShrinkStats& st) {
    return st.replays >= budget.max_replays ||
           (budget.max_time != std::chrono::steady_clock::duration::max() &&
            std::chrono::steady_clock::now() - t0 >= budget.max_time);
  };
  Shrunk<State> out{std::move(start), {}};
  std::set<std::string> failed;  // memo keys
  std::vector<Candidate> list = s.candidates(out.best);
  std::size_t i = 0;
  bool clean_pass = true;  // from the first candidate, none accepted yet
  for (;;) {
    if (i >= list.size()) {
      if (clean_pass) return out;
      i = 0;
      clean_pass = true;
      continue;
    }
    std::string key = s.memo_key ? s.memo_key(list[i]) : std::string();
    if (s.memo_key && failed.count(key)) {
      ++i;
      continue;
    }
    if (over(out.stats)) {
      out.stats.exhausted = true;
      return out;
    }
    Tested<State> t = s.test(list[i]);
    ++out.stats.tests;
    out.stats.replays += t.replays;
    if (!t.state) {
      if (s.memo_key) failed.insert(std::move(key));
      ++i;
      continue;
    }
    ++out.stats.accepted;
    out.best = std::move(*t.state);
    list = s.candidates(out.best);
    clean_pass = false;
  }
}

}  // namespace dualfuzz::mutator
