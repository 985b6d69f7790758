// Z3-targeted mutation (after "Type Targeted Testing"): the solver picks a
// request value that sends one of the model's symbolic branches the other
// way — the entity tag an If-Match must carry to pass where it failed, a
// date just before the resource's hidden Last-Modified — and the value is
// written into the script: as a reference to the earlier answer that
// carried it (relink.h), else as a literal. Branches on which the live
// explanations disagree come first: flipping one separates them.
//
//   harness::RunOptions o;  o.oracle_options.limits.record_decisions = true;
//   harness::RunResult run = executor.run(script);
//   if (auto next = targeted_mutation(script, run, protocol, solver, rng))
//     corpus.push_back(*next);
//
// Needs the protocol's `retarget` (which request field carried a value the
// model compared) and `apply_retarget` (how a script's request carries
// that field); nullopt when no branch of the run can be flipped.
#pragma once

#include <optional>
#include <random>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/oracle/solver.h"

namespace dualfuzz::mutator {

std::optional<harness::Script> targeted_mutation(const harness::Script& script,
                                                 const harness::RunResult& run,
                                                 const harness::Protocol& protocol,
                                                 oracle::Solver& solver,
                                                 std::mt19937_64& rng);

}  // namespace dualfuzz::mutator
