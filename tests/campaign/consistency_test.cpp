// Classifying violations (campaign/consistency.h): the reference server's
// planted bugs that only break atomicity are "not linearizable", the others
// break the protocol, and a server that is only not atomic passes when
// tested under the weaker consistency.
#include "dualfuzz/campaign/consistency.h"

#include <gtest/gtest.h>

#include <string>

#include "dualfuzz/campaign/player.h"
#include "dualfuzz/http/plugin.h"
#include "race_scripts.h"

namespace dualfuzz::campaign {
namespace {
using Kind = Classification::Kind;

harness::RunResult play(const Plugin& plugin, const std::string& bug, const char* text) {
  auto p = Player::make(plugin, "inprocess:" + bug);
  EXPECT_TRUE(p) << p.error();
  auto script = (*p)->parse(text);
  EXPECT_TRUE(script) << script.error();
  return (*p)->play(*script);
}
harness::RunResult play(const std::string& bug, const char* text) {
  return play(http::plugin(), bug, text);
}

// Two creating PUTs in flight at once.
constexpr const char* kCreates =
    "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
    "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n";
// A creating PUT and a GET in flight at once.
constexpr const char* kCreateAndRead =
    "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
    "req 3 on c1: {\"method\":\"GET\",\"path\":\"/a\"}\n";
// A replacing PUT and a GET in flight at once.
constexpr const char* kReadDuringWrite =
    "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
    "wait 1\n"
    "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n"
    "req 5 on c1: {\"method\":\"GET\",\"path\":\"/a\"}\n";

TEST(Classify, OnlyNotAtomicIsNotLinearizable) {
  const harness::Protocol p = http::plugin().protocol;
  struct Case {
    const char* bug;
    const char* script;
    const char* consistency;
  };
  for (const Case& c : {Case{"two-step-writes", kCreates, "interval"},
                        Case{"racy-if-match", test_scripts::kRace, "interval"}}) {
    const harness::RunResult r = play(c.bug, c.script);
    ASSERT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation) << c.bug;
    const Classification k = classify(p, r);
    EXPECT_EQ(k.kind, Kind::NotLinearizable) << c.bug << ": " << k.text;
    EXPECT_EQ(k.consistency, c.consistency) << c.bug;
    EXPECT_GE(k.overlapping.size(), 2u) << c.bug;
    EXPECT_NE(k.text.find("not linearizable"), std::string::npos) << k.text;
  }
}

TEST(Classify, TornReadsDoNotClassify) {
  // torn-write: a GET overlapping a PUT sees the new body with the old
  // strong tag. Only torn reads explain it, and they explain any read that
  // overlaps a write: the finding stays the protocol's (RFC 9110 §8.8.3),
  // with what would explain it.
  const harness::RunResult r = play("torn-write", kReadDuringWrite);
  ASSERT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation);
  const Classification k = classify(http::plugin().protocol, r);
  EXPECT_EQ(k.kind, Kind::Protocol) << k.text;
  EXPECT_EQ(k.consistency, "torn");
  EXPECT_NE(k.text.find("explained only under 'torn'"), std::string::npos) << k.text;
}

TEST(Classify, ProtocolBugsStayProtocolBugsEvenWhenRequestsOverlap) {
  const harness::Protocol p = http::plugin().protocol;
  // lost-update: the third version of a resource is not stored (its PUT
  // answers 204); a GET overlapping the next PUT still sees a version that
  // was never the state, and afterwards the old one.
  const char* lost =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n"
      "wait 3\n"
      "req 5 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"z\"}\n"
      "req 7 on c1: {\"method\":\"GET\",\"path\":\"/b\"}\n"
      "wait 5\n"
      "req 9 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n";
  // create-204: a creating PUT answered 204, with a GET overlapping. (With
  // another creating PUT overlapping, 204 would be explained: each may have
  // found the other's file when it stored.)
  const char* create204 = kCreateAndRead;
  for (const auto& [bug, script] :
       {std::pair{"lost-update", lost}, std::pair{"create-204", create204}}) {
    const harness::RunResult r = play(bug, script);
    ASSERT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation) << bug;
    const Classification k = classify(p, r);
    EXPECT_EQ(k.kind, Kind::Protocol) << bug << ": " << k.text;
  }
  // Not a model violation: nothing to classify.
  EXPECT_EQ(classify(p, play("", kCreates)).kind, Kind::None);
}

TEST(WithConsistency, ANonAtomicServerPassesUnderInterval) {
  auto interval = with_consistency(http::plugin(), "interval");
  ASSERT_TRUE(interval) << interval.error();
  EXPECT_EQ(interval->protocol.consistency, "interval");
  ASSERT_EQ(interval->protocol.weaker.size(), 1u);
  EXPECT_EQ(interval->protocol.weaker[0].name, "torn");
  for (const char* bug : {"two-step-writes", "racy-if-match"}) {
    for (const char* s : {kCreates, test_scripts::kRace, kReadDuringWrite})
      EXPECT_EQ(play(*interval, bug, s).outcome, harness::RunResult::Outcome::Pass)
          << bug << "\n"
          << s;
  }
  // torn-write's read is not explained by an interval, only by a torn read.
  EXPECT_EQ(play(*interval, "torn-write", kReadDuringWrite).outcome,
            harness::RunResult::Outcome::ModelViolation);
  auto torn = with_consistency(http::plugin(), "torn");
  ASSERT_TRUE(torn) << torn.error();
  EXPECT_TRUE(torn->protocol.weaker.empty());
  EXPECT_EQ(play(*torn, "torn-write", kReadDuringWrite).outcome,
            harness::RunResult::Outcome::Pass);
  // And an RFC bug is still found under the weakest one.
  EXPECT_EQ(play(*torn, "create-204", kCreateAndRead).outcome,
            harness::RunResult::Outcome::ModelViolation);
}

TEST(WithConsistency, UnknownNamesAreAnErrorThatListsTheKnownOnes) {
  auto bad = with_consistency(http::plugin(), "eventual");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("atomic, interval, torn"), std::string::npos) << bad.error();
  auto same = with_consistency(http::plugin(), "atomic");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->protocol.weaker.size(), 2u);
}

}  // namespace
}  // namespace dualfuzz::campaign
