// The black-box fuzz loop (campaign/fuzz_loop.h) against the reference
// server: a planted bug is found from a fixed seed, the correct server
// shows none, and --keep-going counts each signature once.
#include "dualfuzz/campaign/fuzz_loop.h"

#include <gtest/gtest.h>

#include <set>

#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/http/plugin.h"

namespace dualfuzz::campaign {
namespace {

FuzzSummary fuzz(FuzzOptions o, std::uint64_t seed, FuzzObserver obs = {}) {
  auto c = FuzzCampaign::make(http::plugin(), std::move(o));
  EXPECT_TRUE(c) << c.error();
  if (!c) return {};
  std::mt19937_64 rng(seed);
  return (*c)->run(rng, obs);
}

TEST(FuzzLoop, FindsAPlantedBugFromAFixedSeed) {
  std::size_t reported = 0;
  FuzzObserver obs;
  obs.on_violation = [&](const FuzzObserver::Violation& v) {
    ++reported;
    EXPECT_EQ(v.index, 0u);
    EXPECT_TRUE(v.shrunk.run.violation());
  };
  const FuzzSummary s = fuzz({.target = "inprocess:lost-update", .seconds = 30}, 1, obs);
  ASSERT_TRUE(s.first) << s.counters.executions << " executions";
  EXPECT_EQ(reported, 1u);
  EXPECT_EQ(s.first->kind, "model");
  EXPECT_TRUE(s.first->shrunk.reproduced);
  EXPECT_TRUE(s.first->shrunk.run.violation());
  EXPECT_LE(s.first->shrunk.script.steps.size(), s.first->original.steps.size());
  EXPECT_LT(s.first->seconds, 30);
  EXPECT_GE(s.counters.executions, 1u);
  EXPECT_GE(s.counters.messages, s.counters.requests_sent);
}

TEST(FuzzLoop, TheCorrectServerShowsNone) {
  const FuzzSummary s = fuzz({.target = "inprocess", .seconds = 3}, 7);
  EXPECT_FALSE(s.violation());
  EXPECT_GT(s.counters.executions, 10u);
  EXPECT_EQ(s.counters.internal_errors, 0u);
  EXPECT_GE(s.seconds, 3);
}

TEST(FuzzLoop, KeepGoingCountsEachSignatureOnce) {
  std::size_t reported = 0;
  FuzzObserver obs;
  obs.on_violation = [&](const FuzzObserver::Violation& v) {
    EXPECT_EQ(v.index, ++reported);
  };
  const FuzzSummary s =
      fuzz({.target = "inprocess:lost-update", .seconds = 8, .keep_going = true}, 1, obs);
  ASSERT_FALSE(s.findings.empty());
  EXPECT_FALSE(s.first);
  EXPECT_EQ(reported, s.findings.size());
  std::set<std::string> sigs;
  for (const Finding& f : s.findings) {
    EXPECT_TRUE(sigs.insert(f.signature).second) << f.signature;
    EXPECT_GE(f.count, 1u);
  }
}

TEST(FuzzLoop, TheSameSeedGivesTheSameScripts) {
  // Only the rng decides what is generated: two runs of one seed against
  // the correct server execute the same first scripts (time aside).
  std::vector<std::string> a, b;
  for (auto* out : {&a, &b}) {
    auto c = FuzzCampaign::make(
        http::plugin(),
        {.target = "inprocess:lost-update", .seconds = 30, .targeted = false});
    ASSERT_TRUE(c);
    std::mt19937_64 rng(3);
    FuzzObserver obs;
    obs.on_violation = [out](const FuzzObserver::Violation& v) {
      out->push_back(harness::print_script(v.original));
    };
    (*c)->run(rng, obs);
  }
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace dualfuzz::campaign
