// Shrinking a violating script to a small counterexample of the same
// violation, for any protocol plug-in. One greedy loop
// (mutator::shrink_greedy) runs over every kind of candidate: the
// structural ones of mutator::minimize (deletions, trimming, re-pointed
// references), the killing request's path alone, lighter requests (a
// precondition the violation does not need), the interaction in sequence,
// race skeletons and sequential candidates (race_skeleton.h).
//
//   campaign::ViolationShrinker shrinker(protocol, [&](const harness::Script& s) {
//     return player.play(s);
//   }, {.same_violation = true});
//   campaign::Shrunk s = shrinker.shrink(script, run);   // run: a violation
//   if (s.reproduced) std::cout << harness::print_script(s.script);
#pragma once

#include <chrono>

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/mutator/minimize.h"
#include "dualfuzz/mutator/shrink_loop.h"

namespace dualfuzz::campaign {

// A shrunk counterexample: the script, a run of it that showed the
// violation, and whether the violation showed again at all (a race may
// not; then `script` is the original and `run` its first run).
struct Shrunk {
  harness::Script script;
  harness::RunResult run;
  bool reproduced = true;
  // Why it may not have shown again, when the shrinker's caller knows: the
  // server was down during the shrink ("the server was down during the
  // shrink: it refused connections ..."), or could not be restarted to
  // replay a death. Empty otherwise.
  std::string note = {};
};

// What the shrinker learns from a failing run: its trace (to re-point or
// inline references) and the requests with another race key than the
// killing request's (HTTP: other paths; the model keeps them independent,
// so they are tried deleted all at once; the same-violation check still
// decides).
mutator::FailingRun failing_run(const harness::Protocol& p, const harness::RunResult& r);

// Where the explanations went wrong ("response.status",
// "response.headers.etag", or a reason kind such as "contradiction"): the
// verdict's structured reasons (harness::reason_keys).
std::set<std::string> reasons(const harness::Protocol& p, const harness::RunResult& r);

// The script with every request on connection 0, each followed by a wait
// for its response (closes dropped): the same interaction without
// concurrency. Nullopt when that is the script itself or invalid.
std::optional<harness::Script> serialized(const harness::Script& s,
                                          const harness::FunctionRegistry& fns);
// The same, the requests in the order their answers came in `run` (those
// not answered last, in the script's order): the order the server most
// likely took them in. A wrong 304 to a GET sent before a PUT that created
// its path but answered after it is, in sequence, a GET after the PUT; in
// the script's order it is a GET of nothing, answered 404, and the bug
// would stay named by its race.
std::optional<harness::Script> serialized_as_answered(const harness::Script& s,
                                                      const harness::RunResult& run,
                                                      const harness::FunctionRegistry& fns);

// The script with one request made plainer (Protocol::plainer: HTTP's GET
// for a HEAD, a PUT...), one candidate per request that has a plainer form,
// except the request labelled `keep` (0: none kept): a read the violation
// needs by a HEAD or by a GET is one counterexample, and a death by an
// untagged If list under PUT, DELETE and GET one finding.
std::vector<harness::Script> plainer_candidates(const harness::Protocol& p,
                                                const harness::Script& s,
                                                harness::Label keep = 0);

// The script with one resource moved up (Protocol::flatter: HTTP's /a/b as
// /b in every request), one candidate per resource that can move.
std::vector<harness::Script> flatter_candidates(const harness::Protocol& p,
                                                const harness::Script& s);

// Beyond this many messages a counterexample is tried from its skeleton
// (a race) or its path in sequence.
inline constexpr std::size_t kShortRace = 6;

struct ShrinkOptions {
  // false: keep any violation of the same kind (what bench/eval_blackbox.py's
  // figures were measured with). true (--keep-going): the same violation
  // (quick_key), settled so that its signature names the bug: a
  // precondition or the concurrency it does not need goes.
  bool same_violation = false;
  // Replays of race skeletons are multiplied by this (--shrink: one script
  // to spend the time on).
  int effort = 1;
  std::size_t max_replays = 2000;  // per shrinking loop; ×5 with same_violation
  // Violations that do not count as showing it (a campaign's known ones,
  // known_violations.h): an unknown bug is not shrunk into a known one.
  std::function<bool(const harness::RunResult&)> known = nullptr;
  // No candidate is tried after this time (a campaign's end: `--seconds`
  // bounds the whole run, shrinking included). The result is then the
  // smallest script that showed the violation so far, a counterexample
  // still, and Shrunk::note says it was cut.
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
};

// Shrunk::note of a shrink cut by ShrinkOptions::deadline.
inline constexpr const char* kShrinkCut =
    "shrinking stopped at the run's time limit: the script shows the violation but may "
    "not be minimal (`dualfuzz minimize` goes on)";

// One candidate of the same-violation loop, and how it is judged.
struct ShrinkCandidate {
  enum class Kind {
    OnlyThePath,  // requests with another race key dropped
    Lighter,      // a precondition dropped from the killing request
    Structural,   // mutator::structural_candidates
    Serialized,   // every request in sequence on c0
    Skeleton,     // race_candidates / distilled
    Sequential,   // sequential_candidates
    Nudged,       // mutator::nudged_candidates: must show in every play
  };
  Kind kind = Kind::Structural;
  harness::Script script;
  std::string want;  // Lighter: the quick_key it must show
  // Lighter: the field kept with another value (Protocol::Lighter::
  // restates): its run must share a broken reason with the one it came
  // from, not keep within them (another value may fail more ways).
  bool restates = false;
  int plays = 1;                 // replays before giving up (Nudged: all must show)
  double seconds = 0;            // Skeleton: and at most this long (0: no limit)
  std::size_t max_messages = 0;  // Skeleton/Sequential: its run must be shorter
};

// The state of the same-violation loop.
struct ShrinkState {
  harness::Script script;
  harness::RunResult run;
  std::string key;  // quick_key that must stay (changes with Lighter/Serialized)
};

class ViolationShrinker {
 public:
  using Play = std::function<harness::RunResult(const harness::Script&)>;
  ViolationShrinker(const harness::Protocol& p, Play play, ShrinkOptions o)
      : p_(p), play_(std::move(play)), o_(o) {}

  // `r` is a violating run of `original`. Past ShrinkOptions::deadline no
  // candidate is tried: the smallest script shown so far, with kShrinkCut
  // as its note.
  Shrunk shrink(const harness::Script& original, const harness::RunResult& r) const;

  // The candidates of a state, in the order the loop tries them (exposed
  // for tests). `flaky`: the violation is a race.
  std::vector<ShrinkCandidate> candidates(const ShrinkState& s, bool flaky) const;
  // The loop from a state that showed the violation (exposed for tests);
  // its result shows it again (confirm, in shrink.cpp).
  mutator::Shrunk<ShrinkState> settle(ShrinkState s) const;

 private:
  Shrunk shrink_in_time(const harness::Script& original, const harness::RunResult& r) const;
  bool past_deadline() const;
  mutator::Tested<ShrinkState> test(const ShrinkCandidate& c,
                                    const ShrinkState& from) const;
  bool shows(const harness::Script& s, const std::string& key, int tries,
             harness::RunResult& out) const;
  mutator::Shrunk<ShrinkState> settle_once(ShrinkState s) const;
  void confirm(mutator::Shrunk<ShrinkState>& out,
               const std::vector<ShrinkState>& path) const;
  bool same(const harness::RunResult& x, const std::string& key) const;
  std::optional<Shrunk> distill(const harness::Script& s, const harness::RunResult& r,
                                const std::string& key) const;
  Shrunk shrink_any(const harness::Script& original, const harness::RunResult& r,
                    const harness::RunResult& replayed) const;
  Shrunk not_shown(const harness::Script& original, const harness::RunResult& r) const;
  // (`restating_only`: only the variants that keep the field, another value.)
  void add_lighter(const ShrinkState& s, std::vector<ShrinkCandidate>& out,
                   bool restating_only = false) const;
  void add_nudged(const ShrinkState& s, std::vector<ShrinkCandidate>& out) const;
  void add_races(const ShrinkState& s, bool flaky,
                 std::vector<ShrinkCandidate>& out) const;

  const harness::Protocol& p_;
  Play play_;
  ShrinkOptions o_;
};

}  // namespace dualfuzz::campaign
