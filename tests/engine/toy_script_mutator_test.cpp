// The script mutator over a protocol it was not written for (the toy
// key-value store, tests/support/toy_protocol.h): every output is a valid
// script of it, and the correct server passes every one of them, so the
// toy's model and codec agree with its server.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "dualfuzz/campaign/player.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "support/toy_protocol.h"

namespace dualfuzz {
namespace {

const std::string kSeed = R"(req 1 on c0: {"key":"a","op":"put","value":"1"}
wait 1
req 3 on c1: {"key":"a","op":"get"}
wait 3
)";

TEST(ToyScriptMutator, OutputsAreScriptsTheCorrectServerPasses) {
  const campaign::Plugin toy = toy::plugin();
  auto player = campaign::Player::make(toy, "inprocess");
  ASSERT_TRUE(player) << player.error();
  const mutator::ScriptMutator m(toy.protocol);
  std::mt19937_64 rng(3);
  std::string cur = kSeed;
  std::size_t gets = 0, puts = 0;
  for (int i = 0; i < 300; ++i) {
    std::string out = m.mutate(cur, 2048, rng);
    ASSERT_LE(out.size(), 2048u);
    auto s = harness::parse_script(out, toy.protocol.functions);
    ASSERT_TRUE(s) << out << s.error();
    ASSERT_EQ(harness::validate(*s), std::nullopt) << out;
    const harness::RunResult r = (*player)->play(*s);
    ASSERT_EQ(r.outcome, harness::RunResult::Outcome::Pass)
        << out << (*player)->report(*s, r);
    gets += out.find("\"get\"") != std::string::npos;
    puts += out.find("\"put\"") != std::string::npos;
    cur = i % 50 == 49 ? kSeed : out;
  }
  EXPECT_GT(gets, 30u) << "the heuristics make both operations";
  EXPECT_GT(puts, 30u);
}

TEST(ToyScriptMutator, TheBuggyServerFailsTheOverwrite) {
  // The planted bug, shown by hand: what the fuzz loop must find.
  const campaign::Plugin toy = toy::plugin();
  auto player =
      campaign::Player::make(toy, std::string("inprocess:") + toy::kLostOverwrite);
  ASSERT_TRUE(player) << player.error();
  auto s = harness::parse_script(R"(req 1 on c0: {"key":"a","op":"put","value":"1"}
wait 1
req 3 on c0: {"key":"a","op":"put","value":"2"}
wait 3
req 5 on c0: {"key":"a","op":"get"}
wait 5
)",
                                 toy.protocol.functions);
  ASSERT_TRUE(s) << s.error();
  const harness::RunResult r = (*player)->play(*s);
  EXPECT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation)
      << (*player)->report(*s, r);
  EXPECT_NE((*player)->report(*s, r).find("toy: GET returns the last value PUT"),
            std::string::npos)
      << (*player)->report(*s, r);
}

}  // namespace
}  // namespace dualfuzz
