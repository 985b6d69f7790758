// Races apart (issue 47; campaign/consistency.h: stop_on_races): by default
// a finding classed not linearizable is reported and counted but neither
// ends a fuzz run nor is a violation, nor aborts a fuzz target, and the
// script is judged again past it; `stop_on_races` (DUALFUZZ_STOP_ON_RACES=1)
// stops on it as before. A sequential bug still ends the run, also when it
// comes after a race in the same play.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>

#include "dualfuzz/campaign/consistency.h"
#include "dualfuzz/campaign/fuzz_loop.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/fuzz_target.h"
#include "dualfuzz/http/plugin.h"
#include "wrapped_server.h"

namespace dualfuzz::campaign {
namespace {

using Kind = Classification::Kind;
using Outcome = harness::RunResult::Outcome;

// Two creating PUTs in flight at once: two-step-writes answers both 201 (a
// race: explained once writes take effect over an interval).
constexpr const char* kCreates =
    "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
    "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n";
// The same race, then in sequence a PUT whose If-Match no resource matches
// (RFC 9110 §13.1.1: 412, nothing written).
constexpr const char* kRaceThenIfMatch =
    "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
    "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n"
    "wait 1\n"
    "wait 3\n"
    "req 5 on c0: {\"method\":\"PUT\",\"path\":\"/b\",\"body\":\"z\","
    "\"headers\":{\"if-match\":\"\\\"nope\\\"\"}}\n";

// Renames each request's If-Match on its way to the server, which then
// ignores it: a sequential RFC bug on top of two-step-writes' races.
class IfMatchBlind final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  void send(harness::ConnId c, std::string_view bytes) override {
    std::string b(bytes), lower(bytes);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char x) { return std::tolower(x); });
    for (std::size_t i = 0; (i = lower.find("\r\nif-match:", i)) != std::string::npos;
         i += 2)
      b.replace(i + 2, 8, "x-ifmtch");  // (as long: the framing stays)
    t_.send(c, b);
  }
};

// The reference server with two-step-writes (races only) that also ignores
// If-Match (a protocol bug), at "inprocess".
Plugin two_bugs() { return wrapped<IfMatchBlind>(http::plugin(), "two-step-writes"); }

std::unique_ptr<FuzzCampaign> campaign(const Plugin& plugin, FuzzOptions o) {
  auto c = FuzzCampaign::make(plugin, std::move(o));
  EXPECT_TRUE(c) << c.error();
  return c ? std::move(*c) : nullptr;
}

harness::Script parse(const FuzzCampaign& c, const char* text) {
  auto s = harness::parse_script(text, c.protocol().functions);
  EXPECT_TRUE(s) << s.error();
  return s ? *s : harness::Script{};
}

TEST(RacesApart, StoppingOnRacesIsAskedForOrAStrictlyNamedConsistency) {
  EXPECT_FALSE(stop_on_races(false, "", false));
  EXPECT_FALSE(stop_on_races(false, "", true));  // --strict alone: SHOULDs only
  EXPECT_FALSE(stop_on_races(false, "atomic", false));
  EXPECT_TRUE(stop_on_races(true, "", false));
  EXPECT_TRUE(stop_on_races(false, "atomic", true));
  // Judged past races: the weakest consistency that classifies; none once
  // the protocol is tested under it (its races are no findings there).
  auto past = past_races(http::plugin().protocol);
  ASSERT_TRUE(past);
  EXPECT_EQ(past->consistency, "interval");
  auto interval = with_consistency(http::plugin().protocol, "interval");
  ASSERT_TRUE(interval);
  EXPECT_FALSE(past_races(*interval));
}

// The oracle stops at a trace's first violation; a race's play judged past
// races shows the protocol violation after it, and nothing on a server
// that only races.
TEST(RacesApart, APlayJudgedPastARaceShowsTheBugAfterIt) {
  auto c = campaign(two_bugs(), {.target = "inprocess"});
  ASSERT_TRUE(c);
  const harness::Script s = parse(*c, kRaceThenIfMatch);
  const harness::RunResult r = c->play(s);
  ASSERT_EQ(r.outcome, Outcome::ModelViolation) << r.report(c->protocol());
  EXPECT_EQ(classify(c->protocol(), r).kind, Kind::NotLinearizable);
  const harness::RunResult past = c->play_past_races(s);
  ASSERT_EQ(past.outcome, Outcome::ModelViolation) << past.report(c->protocol());
  EXPECT_EQ(classify(c->protocol(), past).kind, Kind::Protocol);
  EXPECT_NE(quick_key(c->protocol(), past).find("PUT if-match"), std::string::npos)
      << quick_key(c->protocol(), past);

  auto racy = campaign(http::plugin(), {.target = "inprocess:two-step-writes"});
  ASSERT_TRUE(racy);
  const harness::Script creates = parse(*racy, kCreates);
  EXPECT_EQ(racy->play(creates).outcome, Outcome::ModelViolation);
  EXPECT_EQ(racy->play_past_races(creates).outcome, Outcome::Pass);
  // Stopping on races: nothing is judged past them.
  auto stopping = campaign(
      http::plugin(), {.target = "inprocess:two-step-writes", .stop_on_races = true});
  ASSERT_TRUE(stopping);
  EXPECT_EQ(stopping->play_past_races(creates).outcome, Outcome::ModelViolation);
}

// Two PATCHes and two PUTs in flight on one path, then in sequence a PUT
// and a GET: under "interval" the incremental search meets 20,000
// hypotheses at the first answer. lost-update answers the last PUT without
// storing it, which no consistency explains.
constexpr const char* kFourWritesInFlight =
    "req 1 on c0: {\"method\":\"PATCH\",\"path\":\"/a\","
    "\"headers\":{\"if-none-match\":\"\\\"2\\\"\"}}\n"
    "req 3 on c1: {\"method\":\"PATCH\",\"path\":\"/a\","
    "\"headers\":{\"if-none-match\":\"\\\"2\\\"\"}}\n"
    "req 5 on c2: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
    "req 7 on c3: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"yy\"}\n"
    "wait 5\n"
    "req 9 on c2: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"zzz\"}\n"
    "wait 9\n"
    "req 11 on c2: {\"method\":\"GET\",\"path\":\"/a\"}\n";

// Where the incremental search gives up, the whole-trace check decides
// (executor.cpp, judge_whole_trace): both ways, within the fuzz budget.
TEST(RacesApart, WhereTheSearchGivesUpTheWholeTraceCheckDecides) {
  Plugin interval = http::plugin();
  auto q = with_consistency(interval.protocol, "interval");
  ASSERT_TRUE(q);
  interval.protocol = std::move(*q);
  auto bad = campaign(interval, {.target = "inprocess:lost-update"});
  ASSERT_TRUE(bad);
  const harness::RunResult r = bad->play(parse(*bad, kFourWritesInFlight));
  EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report(bad->protocol());
  auto good = campaign(interval, {.target = "inprocess"});
  ASSERT_TRUE(good);
  const harness::RunResult g = good->play(parse(*good, kFourWritesInFlight));
  EXPECT_EQ(g.outcome, Outcome::Pass) << g.report(good->protocol());
  EXPECT_FALSE(g.inconclusive()) << g.report(good->protocol());
}

// A protocol finding is shrunk past races. Where that search gives up even
// on the whole trace (a budget of 1,000) and the atomic one decides, the
// atomic play's violation is taken when no weaker consistency explains it:
// before, such a finding never re-occurred in its replays.
TEST(RacesApart, APastRacesPlayThatGivesUpTakesTheAtomicPlaysProtocolViolation) {
  auto bad = campaign(http::plugin(),
                      {.target = "inprocess:lost-update", .oracle_budget = 1000});
  ASSERT_TRUE(bad);
  const harness::RunResult r = bad->play_past_races(parse(*bad, kFourWritesInFlight));
  ASSERT_EQ(r.outcome, Outcome::ModelViolation) << r.report(bad->protocol());
  EXPECT_EQ(classify(bad->protocol(), r).kind, Kind::Protocol);
  auto good = campaign(http::plugin(), {.target = "inprocess", .oracle_budget = 1000});
  ASSERT_TRUE(good);
  EXPECT_EQ(good->play_past_races(parse(*good, kFourWritesInFlight)).outcome,
            Outcome::Pass);
}

TEST(RacesApart, ARaceNeitherEndsTheRunNorIsAViolation) {
  std::size_t races = 0, violations = 0;
  FuzzObserver obs;
  obs.on_violation = [&](const FuzzObserver::Violation& v) {
    ++(v.race ? races : violations);
    EXPECT_EQ(v.classification.kind, Kind::NotLinearizable);
    EXPECT_GE(v.index, 1u);
  };
  auto c =
      campaign(http::plugin(), {.target = "inprocess:two-step-writes", .seconds = 3});
  ASSERT_TRUE(c);
  std::mt19937_64 rng(1);
  const FuzzSummary s = c->run(rng, obs);
  EXPECT_FALSE(s.violation());
  EXPECT_FALSE(s.first);
  EXPECT_GE(s.seconds, 3);
  ASSERT_GE(s.races(), 1u);
  EXPECT_EQ(s.races(), s.findings.size());
  EXPECT_EQ(races, s.races());
  EXPECT_EQ(violations, 0u);
  EXPECT_GE(s.counters.races, s.races());
  EXPECT_EQ(s.counters.past_race_violations, 0u);  // (it only races)
  std::uint64_t counted = 0;
  for (const Finding& f : s.findings) {
    EXPECT_TRUE(f.race);
    EXPECT_EQ(f.classification.kind, Kind::NotLinearizable) << f.signature;
    counted += f.count;
  }
  EXPECT_EQ(counted, s.counters.races);
}

TEST(RacesApart, StopOnRacesEndsTheRunAtTheFirstRace) {
  auto c = campaign(
      http::plugin(),
      {.target = "inprocess:two-step-writes", .seconds = 30, .stop_on_races = true});
  ASSERT_TRUE(c);
  std::mt19937_64 rng(1);
  const FuzzSummary s = c->run(rng, {});
  ASSERT_TRUE(s.first);
  EXPECT_TRUE(s.violation());
  EXPECT_EQ(s.first->classification.kind, Kind::NotLinearizable);
  EXPECT_LT(s.seconds, 30);
  EXPECT_EQ(s.races(), 0u);
  EXPECT_EQ(s.counters.races, 0u);
}

// A server with races and a sequential bug: the races are passed by, the
// bug ends the run, shrunk to a counterexample of the protocol's (no race).
// Stopping on races, the same seed stops on a race first. (Seed 1, no
// targeted mutation: the same scripts each time. Seeds 1-8 measured with
// the mutator of 2026-11-29, superseding references: 3, 4, 5 and 7 met a
// race before the bug; the seed is the generator's, not the property's.)
TEST(RacesApart, ASequentialBugStillEndsTheRun) {
  for (bool stop : {false, true}) {
    auto c = campaign(
        two_bugs(),
        {.target = "inprocess", .seconds = 60, .targeted = false, .stop_on_races = stop});
    ASSERT_TRUE(c);
    std::mt19937_64 rng(3);  // (its scripts meet a race before the If-Match bug)
    const FuzzSummary s = c->run(rng, {});
    ASSERT_TRUE(s.first) << s.counters.executions << " executions, " << s.races()
                         << " races";
    EXPECT_TRUE(s.violation());
    EXPECT_LT(s.seconds, 60);
    if (stop) {
      EXPECT_EQ(s.first->classification.kind, Kind::NotLinearizable);
      EXPECT_EQ(s.counters.races, 0u);
      continue;
    }
    EXPECT_GE(s.counters.races, 1u);
    EXPECT_GE(s.races(), 1u);
    EXPECT_EQ(s.first->classification.kind, Kind::Protocol)
        << s.first->classification.text;
    EXPECT_TRUE(s.first->shrunk.reproduced);
    // (Any method's If-Match ignored: the seed's scripts decide which.)
    EXPECT_NE(quick_key(c->protocol(), s.first->shrunk.run).find(" if-match -> "),
              std::string::npos)
        << quick_key(c->protocol(), s.first->shrunk.run);
    for (const Finding& f : s.findings) EXPECT_TRUE(f.race) << f.signature;
  }
}

TEST(RacesApart, KeepGoingKeepsRacesAndViolationsApart) {
  auto c =
      campaign(two_bugs(), {.target = "inprocess", .seconds = 5, .keep_going = true});
  ASSERT_TRUE(c);
  std::mt19937_64 rng(1);
  const FuzzSummary s = c->run(rng, {});
  EXPECT_TRUE(s.violation());
  EXPECT_GE(s.races(), 1u);
  EXPECT_LT(s.races(), s.findings.size());
  for (const Finding& f : s.findings)
    EXPECT_EQ(f.race, f.classification.kind == Kind::NotLinearizable) << f.signature;
}

// --- the fuzz target ---

int play(FuzzTarget& t, const std::string& in) {
  return t.test_one_input(reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
}

class RacesApartInTheFuzzTarget : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    ::setenv("DUALFUZZ_KNOWN_VIOLATIONS", "", 1);  // (none beside the test)
  }
  void TearDown() override {
    ::unsetenv("DUALFUZZ_STOP_ON_RACES");
    ::unsetenv("DUALFUZZ_KNOWN_VIOLATIONS");
  }
};

TEST_F(RacesApartInTheFuzzTarget, ARaceIsNoCrash) {
  FuzzTarget t(http::plugin(), "inprocess:two-step-writes");
  t.initialize();
  EXPECT_EQ(play(t, kCreates), -1);  // kept out of the corpus, as a violation
  EXPECT_EQ(play(t, kCreates), -1);
}

TEST_F(RacesApartInTheFuzzTarget, StopOnRacesAbortsOnARace) {
  ::setenv("DUALFUZZ_STOP_ON_RACES", "1", 1);
  EXPECT_DEATH(
      {
        FuzzTarget t(http::plugin(), "inprocess:two-step-writes");
        t.initialize();
        play(t, kCreates);
      },
      "class: not linearizable");
}

TEST_F(RacesApartInTheFuzzTarget, TheBugPastARaceAborts) {
  EXPECT_DEATH(
      {
        FuzzTarget t(two_bugs(), "inprocess");
        t.initialize();
        play(t, kRaceThenIfMatch);
      },
      "judged past races(.|\n)*violation key: model: PUT if-match");
}

}  // namespace
}  // namespace dualfuzz::campaign
