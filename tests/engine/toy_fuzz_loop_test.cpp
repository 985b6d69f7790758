// The black-box fuzz loop over the toy protocol: it finds the planted bug
// from a fixed seed and shrinks it to the overwrite that shows it, and the
// correct server shows nothing.
#include <gtest/gtest.h>

#include <random>

#include "dualfuzz/campaign/fuzz_loop.h"
#include "support/toy_protocol.h"

namespace dualfuzz {
namespace {

campaign::FuzzSummary fuzz(campaign::FuzzOptions o, std::uint64_t seed) {
  auto c = campaign::FuzzCampaign::make(toy::plugin(), std::move(o));
  EXPECT_TRUE(c) << c.error();
  if (!c) return {};
  std::mt19937_64 rng(seed);
  return (*c)->run(rng, {});
}

TEST(ToyFuzzLoop, FindsThePlantedBug) {
  const campaign::FuzzSummary s =
      fuzz({.target = std::string("inprocess:") + toy::kLostOverwrite, .seconds = 30}, 1);
  ASSERT_TRUE(s.first) << s.counters.executions << " executions";
  EXPECT_EQ(s.first->kind, "model");
  EXPECT_TRUE(s.first->shrunk.reproduced);
  EXPECT_TRUE(s.first->shrunk.run.violation());
  // The least that shows it: two PUTs of one key and a GET of it.
  const std::string shrunk = harness::print_script(s.first->shrunk.script);
  std::size_t requests = 0;
  for (const auto& step : s.first->shrunk.script.steps)
    requests += std::holds_alternative<harness::RequestStep>(step);
  EXPECT_EQ(requests, 3u) << shrunk;
  EXPECT_LT(s.first->seconds, 30);
}

TEST(ToyFuzzLoop, TheCorrectServerShowsNone) {
  const campaign::FuzzSummary s = fuzz({.target = "inprocess", .seconds = 3}, 7);
  EXPECT_FALSE(s.violation());
  EXPECT_GT(s.counters.executions, 100u);
  EXPECT_EQ(s.counters.internal_errors, 0u);
}

}  // namespace
}  // namespace dualfuzz
