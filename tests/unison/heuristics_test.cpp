// The generation heuristics produce what the issue asks for: queries the
// harness accepts, the same path changed on both replicas (conflicts on
// purpose), same-size rewrites within one timestamp, references to earlier
// reads (trace-based), and syncs.
#include "dualfuzz/unison/heuristics.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "dualfuzz/unison/query.h"

namespace dualfuzz::unison {
namespace {

TEST(UnisonHeuristics, StateAndTraceBasedGeneration) {
  std::mt19937_64 rng(7);
  std::size_t valid = 0, same_time = 0, references = 0, syncs = 0, both_sides = 0;
  const std::size_t kScripts = 200, kSteps = 12;
  for (std::size_t s = 0; s < kScripts; ++s) {
    harness::Protocol::Context ctx;
    std::map<std::string, std::set<std::string>> writers;  // path -> replicas
    for (std::size_t i = 0; i < kSteps; ++i) {
      const harness::Jexp q = generate_request(rng, ctx);
      references += !harness::references(q).empty();
      // (references evaluate to null here: no trace)
      const harness::Json ir = harness::evaluate_loose(
          q, harness::LabelledTrace(), harness::FunctionRegistry::with_builtins());
      auto parsed = parse_query(ir);
      if (parsed) {
        ++valid;
        syncs += parsed->op == Query::Op::Sync;
        same_time += parsed->same_time;
        if (parsed->op == Query::Op::Write)
          writers[parsed->path].insert(parsed->replica ? "B" : "A");
      }
      ctx.earlier.push_back(q);
      ctx.earlier_labels.push_back(static_cast<harness::Label>(2 * i + 1));
    }
    for (const auto& [p, r] : writers) both_sides += r.size() == 2;
  }
  const std::size_t total = kScripts * kSteps;
  EXPECT_GT(valid, total * 8 / 10);
  EXPECT_GT(syncs, total / 10);
  EXPECT_GT(same_time, total / 20);
  EXPECT_GT(references, 0u);
  EXPECT_GT(both_sides, kScripts / 2);
}

TEST(UnisonHeuristics, MutationKeepsAQuery) {
  std::mt19937_64 rng(3);
  harness::Protocol::Context ctx;
  harness::Jexp q = generate_request(rng, ctx);
  for (int i = 0; i < 500; ++i) {
    q = mutate_request(rng, q, ctx);
    const harness::Json ir = harness::evaluate_loose(
        q, harness::LabelledTrace(), harness::FunctionRegistry::with_builtins());
    EXPECT_TRUE(ir.is_object() && ir.contains("op")) << ir.dump();
  }
}

}  // namespace
}  // namespace dualfuzz::unison
