// Structural shrinking of a failing script (thesis §5.3): delete steps, then
// strip requests down, keeping whatever still fails. The candidates
// (`structural_candidates`) are tried by the one shrinking loop,
// shrink_loop.h; campaign/shrink.h adds the candidates of races. References are
// re-instantiated on every re-run (loose evaluation), so a shrunk script
// stays meaningful.
//
//   Script small = minimize(script, [&](const Script& s) { return run(s).violation(); });
//
// With the failing run's trace, references are shrunk too, so that the
// steps they point at can go: a reference is re-pointed at the message its
// (loose) evaluation actually used, or at a remaining message with the
// same value when its own step is deleted, or replaced by the literal value
// it evaluated to — a short one only: a tag or a date is the run's own
// (relink.h), and its step stays. Literals an earlier answer gave are
// first made references to it (relink.h). Steps the caller names as
// unrelated (e.g. requests on other paths) are then tried deleted all at
// once.
//
//   Script small = minimize(script, first_run, fns, [&](const Script& s) {
//     RunResult r = run(s);
//     return same_violation(r) ? std::optional(FailingRun{r.trace, {}}) : std::nullopt;
//   });
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/harness/function_registry.h"
#include "dualfuzz/harness/labelled_trace.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"

namespace dualfuzz::mutator {

// `still_fails` must be deterministic. At most `max_runs` calls. Top-level
// request fields named in `keep` (Protocol::required_fields) are never
// dropped.
harness::Script minimize(const harness::Script& failing,
                         const std::function<bool(const harness::Script&)>& still_fails,
                         std::size_t max_runs = 2000,
                         const std::vector<std::string>& keep = {});

// What the shrinker learns from a failing run of a candidate.
struct FailingRun {
  harness::LabelledTrace trace;        // the messages as sent and received
  std::set<harness::Label> unrelated;  // request labels the failure does not involve
};
// The run of a candidate when it still fails (the same failure), else nullopt.
using RunIfFails = std::function<std::optional<FailingRun>(const harness::Script&)>;

// The structural candidates of a failing script, in the order tried: its
// literals relinked (relink.h), the unrelated requests all at once, each step that only
// serves as the target of references (its references re-pointed or made literal), each
// reference re-pointed or made literal, chunks of steps deleted (halving
// the chunk size, ddmin-style), request bodies with one field fewer (not a
// top-level one named in `keep`), and last each identity reference put
// through each of `nudges` (Protocol::nudges) that changes its value. Each
// repaired, none equal to `failing`.
std::vector<harness::Script> structural_candidates(
    const harness::Script& failing, const FailingRun& run,
    const harness::FunctionRegistry& fns, const std::vector<std::string>& keep,
    const std::vector<std::string>& nudges = {});

// Each reference of `failing` that copies a value as it is (the identity
// function) put through each of `nudges` that changes the value it gave in
// `run`, one a candidate. A nudge makes nothing smaller: a caller whose test
// is not deterministic should accept one only when it shows every time (a
// date a second later may put a comparison *onto* its boundary, and show
// only when a server's clock lags).
std::vector<harness::Script> nudged_candidates(const harness::Script& failing,
                                               const FailingRun& run,
                                               const harness::FunctionRegistry& fns,
                                               const std::vector<std::string>& nudges);

// Protocol::probe: a request that reads the state a request acts on, and
// where its answer gives a value like a literal of it.
using ProbeFn = std::function<std::optional<harness::Protocol::Probe>(
    const harness::Jexp& request, const harness::Json& value)>;

// Each literal of a request of `failing` that no earlier answer in `run`
// gave (of at least kMinRelinked characters, as relink.h would make a
// reference) and that `probe` names a probe for: the probe inserted before
// the request on its connection, its answer awaited, and the literal a
// reference to the field that answer gives it in. One candidate each, the
// request's other literals relinked. A literal the fuzzer carried over from
// another run (nginx's entity tag, when its 201 carries none) matched in
// the failing run only within its second; probed, it matches on every
// replay. Tried before anything else: until then no other candidate shows.
std::vector<harness::Script> probed_candidates(const harness::Script& failing,
                                               const FailingRun& run,
                                               const harness::FunctionRegistry& fns,
                                               const ProbeFn& probe);

// `run` is a failing run of `failing`; `fns` evaluates its references. The
// probed candidates come first, then the structural ones.
harness::Script minimize(const harness::Script& failing, FailingRun run,
                         const harness::FunctionRegistry& fns,
                         const RunIfFails& still_fails, std::size_t max_runs = 2000,
                         const std::vector<std::string>& keep = {},
                         const std::vector<std::string>& nudges = {},
                         const ProbeFn& probe = {});

}  // namespace dualfuzz::mutator
