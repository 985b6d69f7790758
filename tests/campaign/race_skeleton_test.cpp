// A race's skeleton (campaign/race_skeleton.h), built from a violating
// run of the reference server with its deterministic concurrency bug, and
// played again: the same violation, without what the race did not need.
#include "dualfuzz/campaign/race_skeleton.h"

#include <gtest/gtest.h>

#include "dualfuzz/campaign/player.h"
#include "dualfuzz/http/plugin.h"
#include "race_scripts.h"

namespace dualfuzz::campaign {
namespace {

using test_scripts::kRace;

std::vector<std::pair<harness::Label, harness::ConnId>> requests(
    const harness::Script& s) {
  std::vector<std::pair<harness::Label, harness::ConnId>> out;
  for (const auto& st : s.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st))
      out.emplace_back(q->label, q->conn);
  return out;
}

// A violating run of `text` on the reference server with `bug` planted.
class RaceSkeleton : public ::testing::Test {
 protected:
  void Play(const char* bug, const char* text) {
    auto made = Player::make(http::plugin(), std::string("inprocess:") + bug);
    ASSERT_TRUE(made) << made.error();
    p = std::move(*made);
    auto parsed = p->parse(text);
    ASSERT_TRUE(parsed) << parsed.error();
    script = std::move(*parsed);
    r = p->play(script);
    ASSERT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation) << r.report();
  }
  const harness::Protocol& fns() const { return p->protocol(); }
  std::unique_ptr<Player> p;
  harness::Script script;
  harness::RunResult r;
};

TEST_F(RaceSkeleton, KeepsThePathsHistoryAndTheRaceOnly) {
  ASSERT_NO_FATAL_FAILURE(Play("racy-if-match", kRace));
  const harness::Json* kill = killing_request(r);
  ASSERT_NE(kill, nullptr);

  auto d = distilled(script, r, fns());
  ASSERT_TRUE(d);
  // PUT 1 (answered before the race) on c0, then the racing PUTs: the
  // killing one on c0, the other on c1, in the order they were sent.
  const harness::Label k = harness::request_of(r.events[r.verdict.event_index].label);
  const std::vector<std::pair<harness::Label, harness::ConnId>> want = {
      {1, 0}, {5, k == 5 ? 0u : 1u}, {7, k == 7 ? 0u : 1u}};
  EXPECT_EQ(requests(*d), want) << harness::print_script(*d);

  harness::RunResult again = p->play(*d);
  ASSERT_EQ(again.outcome, harness::RunResult::Outcome::ModelViolation)
      << harness::print_script(*d) << again.report();
  EXPECT_LT(again.trace.size(), r.trace.size());
}

TEST_F(RaceSkeleton, CandidatesSmallestFirstAndTheFirstThatShowsIsMinimal) {
  ASSERT_NO_FATAL_FAILURE(Play("racy-if-match", kRace));
  const std::vector<harness::Script> cands = race_candidates(script, r, fns());
  ASSERT_FALSE(cands.empty());
  // The two racing PUTs alone come first (4 messages), ...
  EXPECT_EQ(requests(cands.front()).size(), 2u) << harness::print_script(cands.front());
  for (std::size_t i = 1; i < cands.size(); ++i)
    EXPECT_LE(requests(cands[i - 1]).size(), requests(cands[i]).size());
  // ... but without the PUT that made the resource both If-Match PUTs fail,
  // as they must: the first candidate that shows the violation is that PUT
  // and the race, 6 messages (the original script has 8).
  const harness::Script* shown = nullptr;
  harness::RunResult again;
  for (const auto& c : cands) {
    again = p->play(c);
    if (again.outcome == harness::RunResult::Outcome::ModelViolation) {
      shown = &c;
      break;
    }
  }
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(requests(*shown).size(), 3u) << harness::print_script(*shown);
  EXPECT_EQ(again.trace.size(), 6u) << again.report();
  EXPECT_EQ(requests(*shown).front().first, 1u) << harness::print_script(*shown);
}

TEST_F(RaceSkeleton, CandidatesSendTheTwoRacersInEitherOrder) {
  ASSERT_NO_FATAL_FAILURE(Play("racy-if-match", kRace));
  const harness::Label k = harness::request_of(r.events[r.verdict.event_index].label);
  const harness::Label other = k == 5 ? 7 : 5;
  // After PUT 1: the killing PUT (c0) and the other (c1), each first once.
  bool kill_first = false, other_first = false;
  for (const auto& c : race_candidates(script, r, fns())) {
    const auto q = requests(c);
    if (q.size() != 3 || q[0].first != 1) continue;
    kill_first |= q[1] == std::make_pair(k, harness::ConnId{0}) &&
                  q[2] == std::make_pair(other, harness::ConnId{1});
    other_first |= q[1] == std::make_pair(other, harness::ConnId{1}) &&
                   q[2] == std::make_pair(k, harness::ConnId{0});
  }
  EXPECT_TRUE(kill_first);
  EXPECT_TRUE(other_first);
}

TEST_F(RaceSkeleton, NoneWithoutARace) {
  // A creation answered 204 (create-204) is wrong on its own.
  ASSERT_NO_FATAL_FAILURE(
      Play("create-204",
           "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"a\"}\n"
           "req 3 on c1: {\"method\":\"GET\",\"path\":\"/other\"}\n"));
  EXPECT_FALSE(distilled(script, r, fns()));
  EXPECT_TRUE(race_candidates(script, r, fns()).empty());
}

TEST_F(RaceSkeleton, SequentialCandidatesKeepThePathsLastRequests) {
  // DELETE answered 204 keeps the resource (delete-noop): only the final
  // GET shows it. The HEAD before the PUT and the other path are noise.
  ASSERT_NO_FATAL_FAILURE(
      Play("delete-noop",
           "req 1 on c0: {\"method\":\"HEAD\",\"path\":\"/doc\"}\n"
           "req 3 on c1: {\"method\":\"GET\",\"path\":\"/other\"}\n"
           "req 5 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"a\"}\n"
           "req 7 on c0: {\"method\":\"DELETE\",\"path\":\"/doc\"}\n"
           "req 9 on c0: {\"method\":\"GET\",\"path\":\"/doc\"}\n"));
  EXPECT_FALSE(distilled(script, r, fns()));  // no race
  const std::vector<harness::Script> cands = sequential_candidates(script, r, fns());
  // The GET alone, after the DELETE, after PUT and DELETE, after all three.
  ASSERT_EQ(cands.size(), 4u);
  for (std::size_t i = 0; i < cands.size(); ++i) {
    EXPECT_EQ(count_requests(cands[i]), i + 1) << harness::print_script(cands[i]);
    for (const auto& [label, conn] : requests(cands[i])) EXPECT_EQ(conn, 0u);
    EXPECT_EQ(requests(cands[i]).back().first, 9u);
  }
  // The first that shows the violation is PUT, DELETE, GET: 6 messages.
  std::size_t shown = cands.size();
  harness::RunResult again;
  for (std::size_t i = 0; i < cands.size() && shown == cands.size(); ++i) {
    again = p->play(cands[i]);
    if (again.outcome == harness::RunResult::Outcome::ModelViolation) shown = i;
  }
  ASSERT_EQ(shown, 2u);
  EXPECT_EQ(again.trace.size(), 6u) << again.report();
  const std::vector<std::pair<harness::Label, harness::ConnId>> want = {
      {5, 0}, {7, 0}, {9, 0}};
  EXPECT_EQ(requests(cands[shown]), want);
}

TEST_F(RaceSkeleton, NoSequentialCandidateThatIsTheScriptItself) {
  // A creation answered 204 (create-204), with no earlier request on the
  // path: the only skeleton is the script, which is no candidate.
  ASSERT_NO_FATAL_FAILURE(
      Play("create-204", "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/doc\"}\n"));
  EXPECT_TRUE(sequential_candidates(script, r, fns()).empty());
}

}  // namespace
}  // namespace dualfuzz::campaign
