// The one shrinking loop (mutator/shrink_loop.h) on a toy predicate, and
// the same-violation shrinker (campaign/shrink.h) on the reference server
// with a planted bug.
#include "dualfuzz/campaign/shrink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/http/plugin.h"
#include "race_scripts.h"
#include "wrapped_server.h"

namespace dualfuzz::campaign {
namespace {

using Ints = std::vector<int>;

// Each element dropped, then each element decremented.
std::vector<Ints> smaller(const Ints& v) {
  std::vector<Ints> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    Ints c = v;
    c.erase(c.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] > 0) {
      Ints c = v;
      --c[i];
      out.push_back(std::move(c));
    }
  return out;
}

// "Fails" when the list holds a 3 or more and sums to 7 or more.
bool fails(const Ints& v) {
  int sum = 0;
  for (int x : v) sum += x;
  return sum >= 7 && std::any_of(v.begin(), v.end(), [](int x) { return x >= 3; });
}

mutator::Shrinker<Ints, Ints> toy(std::vector<Ints>* tested = nullptr) {
  mutator::Shrinker<Ints, Ints> s;
  s.candidates = smaller;
  s.test = [tested](const Ints& c) -> mutator::Tested<Ints> {
    if (tested) tested->push_back(c);
    return {fails(c) ? std::optional(c) : std::nullopt, 1};
  };
  return s;
}

TEST(ShrinkLoop, ReachesALocallyMinimalCandidate) {
  const Ints start = {5, 1, 9, 2, 8, 4};
  ASSERT_TRUE(fails(start));
  auto out = mutator::shrink_greedy(start, toy(), {});
  EXPECT_TRUE(fails(out.best));
  EXPECT_FALSE(out.stats.exhausted);
  // No candidate of the result fails: a fixed point.
  for (const Ints& c : smaller(out.best)) EXPECT_FALSE(fails(c));
  const int sum = [&] {
    int s = 0;
    for (int x : out.best) s += x;
    return s;
  }();
  EXPECT_EQ(sum, 7);
}

TEST(ShrinkLoop, RespectsItsBudget) {
  std::vector<Ints> tested;
  auto out =
      mutator::shrink_greedy(Ints{5, 1, 9, 2, 8, 4}, toy(&tested), {.max_replays = 5});
  EXPECT_EQ(out.stats.replays, 5u);
  EXPECT_EQ(tested.size(), 5u);
  EXPECT_TRUE(out.stats.exhausted);
  EXPECT_TRUE(fails(out.best));
}

TEST(ShrinkLoop, NeverAcceptsACandidateThatPasses) {
  std::vector<Ints> tested;
  auto s = toy(&tested);
  std::vector<Ints> states;
  s.candidates = [&states](const Ints& v) {
    states.push_back(v);
    return smaller(v);
  };
  auto out = mutator::shrink_greedy(Ints{3, 3, 3, 3}, s, {});
  for (const Ints& v : states) EXPECT_TRUE(fails(v));
  EXPECT_TRUE(fails(out.best));
  EXPECT_EQ(out.stats.accepted + 1, states.size());
}

TEST(ShrinkLoop, RemembersFailedCandidates) {
  std::vector<Ints> tested;
  auto s = toy(&tested);
  s.memo_key = [](const Ints& v) {
    std::string k;
    for (int x : v) k += std::to_string(x) + ",";
    return k;
  };
  auto out = mutator::shrink_greedy(Ints{4, 4, 1, 1}, s, {});
  std::set<Ints> once(tested.begin(), tested.end());
  EXPECT_EQ(once.size(), tested.size());  // none tested twice
  EXPECT_TRUE(fails(out.best));
}

// lost-update: the third PUT of a path is answered but lost; the GETs of
// other paths are noise that the shrinker drops.
constexpr const char* kLostUpdate =
    "req 1 on c0: {\"method\":\"GET\",\"path\":\"/other\"}\n"
    "wait 1\n"
    "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"a\"}\n"
    "wait 3\n"
    "req 5 on c0: {\"method\":\"GET\",\"path\":\"/x\",\"headers\":{\"accept\":\"*/*\"}}\n"
    "wait 5\n"
    "req 7 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"b\"}\n"
    "wait 7\n"
    "req 9 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"c\"}\n"
    "wait 9\n"
    "req 11 on c0: {\"method\":\"GET\",\"path\":\"/doc\"}\n"
    "wait 11\n";

class ShrinkViolation : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = Player::make(http::plugin(), "inprocess:lost-update");
    ASSERT_TRUE(made) << made.error();
    p = std::move(*made);
    auto parsed = p->parse(kLostUpdate);
    ASSERT_TRUE(parsed) << parsed.error();
    script = std::move(*parsed);
    r = p->play(script);
    ASSERT_TRUE(r.violation()) << r.report();
  }
  ViolationShrinker shrinker(bool same_violation, std::size_t max_replays = 2000) {
    ShrinkOptions o;
    o.same_violation = same_violation;
    o.max_replays = max_replays;
    return ViolationShrinker(
        p->protocol(),
        [this](const harness::Script& s) {
          ++plays;
          return p->play(s);
        },
        o);
  }
  std::unique_ptr<Player> p;
  harness::Script script;
  harness::RunResult r;
  std::size_t plays = 0;
};

TEST_F(ShrinkViolation, KeepsTheSameViolationAndDropsTheNoise) {
  const Shrunk s = shrinker(true).shrink(script, r);
  ASSERT_TRUE(s.reproduced);
  EXPECT_EQ(quick_key(p->protocol(), s.run), quick_key(p->protocol(), r));
  EXPECT_LT(count_requests(s.script), count_requests(script))
      << harness::print_script(s.script);
  // The run reported is one of the shrunk script itself.
  EXPECT_EQ(quick_key(p->protocol(), p->play(s.script)), quick_key(p->protocol(), r));
  EXPECT_GT(plays, 0u);
}

// `--seconds` bounds the run, shrinking included: past the deadline no
// candidate is tried, and the finding keeps what showed it, said cut.
TEST_F(ShrinkViolation, StopsAtItsDeadlineWithWhatShowedIt) {
  ShrinkOptions o;
  o.same_violation = true;
  o.deadline = std::chrono::steady_clock::now();
  const Shrunk cut = ViolationShrinker(
                         p->protocol(),
                         [this](const harness::Script& s) {
                           ++plays;
                           return p->play(s);
                         },
                         o)
                         .shrink(script, r);
  EXPECT_TRUE(cut.reproduced);
  EXPECT_EQ(cut.script, script);
  EXPECT_EQ(cut.note, kShrinkCut);
  EXPECT_EQ(quick_key(p->protocol(), cut.run), quick_key(p->protocol(), r));
  EXPECT_LE(plays, 3u);  // (the replays that confirm it, no candidate)
  // Without a deadline the same shrink goes on, and says nothing.
  const Shrunk full = shrinker(true).shrink(script, r);
  EXPECT_LT(count_requests(full.script), count_requests(script));
  EXPECT_EQ(full.note, "");
}

// A candidate accepted on a lucky play (a race's timing, a literal that
// matched only then) is not what is reported: the result is played again,
// and when it does not show, the shrink goes back to what does.
TEST_F(ShrinkViolation, ALuckyPlayIsNotReported) {
  ShrinkOptions o;
  o.same_violation = true;
  bool lied = false;
  const Shrunk s = ViolationShrinker(
                       p->protocol(),
                       [&](const harness::Script& x) {
                         harness::RunResult real = p->play(x);
                         // (The first candidate that passes: the original's
                         // replay came first.)
                         if (++plays >= 2 && !lied && !real.violation()) {
                           lied = true;
                           return r;
                         }
                         return real;
                       },
                       o)
                       .shrink(script, r);
  ASSERT_TRUE(lied) << "some candidate should not show the violation";
  ASSERT_TRUE(s.reproduced);
  EXPECT_EQ(quick_key(p->protocol(), s.run), quick_key(p->protocol(), r));
  // The script reported shows it when played (without confirmation: the
  // lucky candidate, which passes).
  EXPECT_EQ(quick_key(p->protocol(), p->play(s.script)), quick_key(p->protocol(), r))
      << harness::print_script(s.script);
  // ... and the shrink went on from where it went back to.
  EXPECT_LT(count_requests(s.script), count_requests(script));
}

TEST_F(ShrinkViolation, AnyViolationOfTheSameKind) {
  const Shrunk s = shrinker(false).shrink(script, r);
  ASSERT_TRUE(s.reproduced);
  EXPECT_EQ(s.run.outcome, r.outcome);
  EXPECT_LE(s.run.trace.size(), r.trace.size());
  EXPECT_LT(count_requests(s.script), count_requests(script));
}

TEST_F(ShrinkViolation, RespectsTheReplayBudget) {
  // One replay of the original, two candidates, one confirmation.
  const Shrunk s = shrinker(false, 2).shrink(script, r);
  EXPECT_LE(plays, 1u + 2u + 3u);
  EXPECT_TRUE(s.run.violation());
  EXPECT_EQ(s.run.outcome, r.outcome);
}

TEST_F(ShrinkViolation, CandidatesNeverRepeatTheState) {
  const ShrinkState st{script, r, quick_key(p->protocol(), r)};
  const auto list = shrinker(true).candidates(st, /*flaky=*/false);
  EXPECT_FALSE(list.empty());
  for (const ShrinkCandidate& c : list) EXPECT_NE(c.script, script);
}

// `text` played on the reference server with `bug` planted (a violation),
// then shrunk to the same violation, as --keep-going shrinks.
struct ShrunkOnBug {
  std::unique_ptr<Player> player;
  harness::Script script;
  harness::RunResult run;  // the original's
  Shrunk shrunk;
  const harness::Protocol& protocol() const { return player->protocol(); }
};
// (`plugin`: the reference server's, or one wrapped, wrapped_server.h.)
void shrink_on_bug(const std::string& bug, const char* text, ShrunkOnBug& out,
                   const Plugin& plugin = http::plugin()) {
  auto p = Player::make(plugin, "inprocess:" + bug);
  ASSERT_TRUE(p) << p.error();
  out.player = std::move(*p);
  auto s = out.player->parse(text);
  ASSERT_TRUE(s) << s.error();
  out.script = std::move(*s);
  out.run = out.player->play(out.script);
  ASSERT_TRUE(out.run.violation()) << out.run.report();
  out.shrunk = ViolationShrinker(
                   out.protocol(),
                   [&out](const harness::Script& x) { return out.player->play(x); },
                   {.same_violation = true})
                   .shrink(out.script, out.run);
  ASSERT_TRUE(out.shrunk.reproduced);
}

// A violation found on a request sent with a syntax defect it does not
// need (etag-reuse shown by a PUT with many fields): the shrinker drops the
// defect, so the finding is named as the defect-free one is (issue 47:
// one bug, one identity, whatever the fuzzer's framing).
TEST(ShrinkDefect, DropsADefectTheViolationDoesNotNeed) {
  ShrunkOnBug b;
  ASSERT_NO_FATAL_FAILURE(shrink_on_bug(
      "etag-reuse",
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"a\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"bb\","
      "\"malformed\":\"many-fields\"}\n"
      "wait 3\n",
      b));
  ASSERT_NE(quick_key(b.protocol(), b.run).find("malformed(many-fields)"), std::string::npos)
      << quick_key(b.protocol(), b.run);
  EXPECT_EQ(signature_of(b.protocol(), b.shrunk.run), "model: PUT -> 204 after PUT")
      << harness::print_script(b.shrunk.script);
}

// A violation met under a collection is shrunk to one at the top
// (Protocol::flatter): the MKCOL that made the collection goes, so the
// defect keeps one name whatever depth it was met at.
TEST(ShrinkDefect, AResourceBelowACollectionIsMovedToTheTop) {
  ShrunkOnBug b;
  ASSERT_NO_FATAL_FAILURE(shrink_on_bug(
      "lost-update",
      "req 1 on c0: {\"method\":\"MKCOL\",\"path\":\"/col\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/col/doc\",\"body\":\"a\"}\n"
      "wait 3\n"
      "req 5 on c0: {\"method\":\"PUT\",\"path\":\"/col/doc\",\"body\":\"b\"}\n"
      "wait 5\n"
      "req 7 on c0: {\"method\":\"PUT\",\"path\":\"/col/doc\",\"body\":\"c\"}\n"
      "wait 7\n"
      "req 9 on c0: {\"method\":\"GET\",\"path\":\"/col/doc\"}\n"
      "wait 9\n",
      b));
  const std::string shrunk = harness::print_script(b.shrunk.script);
  EXPECT_EQ(shrunk.find("MKCOL"), std::string::npos) << shrunk;
  EXPECT_EQ(shrunk.find("/col"), std::string::npos) << shrunk;
  EXPECT_NE(shrunk.find("\"/doc\""), std::string::npos) << shrunk;
}

// A "havoc" member that sends no field is no blind field: the request is
// judged, so create-204's 204 behind one is seen where it is (it was named
// "GET -> 200 (concurrent)" at a later answer, one bug as a second finding).
TEST(ShrinkDefect, AnEmptyBlindFieldHidesNothing) {
  ShrunkOnBug b;
  ASSERT_NO_FATAL_FAILURE(shrink_on_bug(
      "create-204",
      "req 5 on c2: {\"method\":\"GET\",\"path\":\"/A\"}\n"
      "req 1 on c2: {\"havoc\":{},\"method\":\"GET\",\"path\":\"/A\"}\n"
      "req 7 on c1: {\"method\":\"PUT\",\"path\":\"/A\"}\n",
      b));
  EXPECT_EQ(signature_of(b.protocol(), b.shrunk.run), "model: PUT -> 204")
      << harness::print_script(b.shrunk.script);
}

// A sequential bug met as a race: wrong-304's 304 to a GET sent before a
// PUT that created its path, answered after it. In the script's order the
// GET asks for nothing (404, no violation); in the order the answers came
// it is the GET after the PUT, and the bug is named by its sequence.
TEST(ShrinkDefect, ARaceIsSerializedInTheOrderItWasAnswered) {
  ShrunkOnBug b;
  ASSERT_NO_FATAL_FAILURE(shrink_on_bug(
      "wrong-304",
      "req 3 on c3: {\"headers\":{\"if-none-match\":\"\\\"x\\\"\"},"
      "\"method\":\"GET\",\"path\":\"/x\"}\n"
      "req 11 on c1: {\"method\":\"PUT\",\"path\":\"/x\"}\n",
      b));
  ASSERT_TRUE(concurrent(b.protocol(), b.run)) << signature_of(b.protocol(), b.run);
  auto in_order = serialized(b.script, b.protocol().functions);
  ASSERT_TRUE(in_order);
  EXPECT_FALSE(b.player->play(*in_order).violation()) << "the GET first finds nothing";
  EXPECT_EQ(signature_of(b.protocol(), b.shrunk.run),
            "model: GET if-none-match -> 304 after PUT")
      << harness::print_script(b.shrunk.script);
}

// ... and keeps one it needs: absolute-form-path mistakes the target sent
// in absolute form, so without the form there is no violation.
TEST(ShrinkDefect, KeepsADefectTheViolationNeeds) {
  ShrunkOnBug b;
  ASSERT_NO_FATAL_FAILURE(shrink_on_bug(
      "absolute-form-path",
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"a\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/doc\","
      "\"malformed\":\"absolute-form\"}\n"
      "wait 3\n",
      b));
  EXPECT_NE(signature_of(b.protocol(), b.shrunk.run).find("malformed(absolute-form)"),
            std::string::npos)
      << signature_of(b.protocol(), b.shrunk.run);
}

// A violation that shows only when a copied date falls on the wrong side of
// its second (ius-ignored, with If-Unmodified-Since the PUT's Date: failed
// only when that Date lagged, here on every third PUT) is shrunk with the
// date a second earlier
// (Protocol::nudges), where it shows on every replay, and shrinks down to
// what it needs. Before, the result kept the Date as it was, and the Range
// and the other path with it, and showed in a third of its replays.
TEST(ShrinkDefect, ADateOnItsBoundaryIsMovedOffIt) {
  ShrunkOnBug b;  // (the first PUT lags)
  ASSERT_NO_FATAL_FAILURE(shrink_on_bug(
      "ius-ignored",
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\nwait 1\n"
      "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/b\",\"body\":\"y\"}\nwait 3\n"
      "req 5 on c0: {\"method\":\"GET\",\"path\":\"/a\",\"headers\":{"
      "\"if-unmodified-since\":2.(this@\"headers\"@\"date\").id,"
      "\"range\":\"bytes=0-0\"}}\nwait 5\n",
      b, wrapped<LaggingPutDate<1, 3>>(http::plugin())));
  const std::string text = harness::print_script(b.shrunk.script);
  EXPECT_NE(text.find(".earlier"), std::string::npos) << text;
  EXPECT_EQ(count_requests(b.shrunk.script), 2u) << text;
  int shown = 0;
  for (int i = 0; i < 6; ++i) shown += b.player->play(b.shrunk.script).violation();
  EXPECT_EQ(shown, 6) << text;
}

// A nudge is taken only when it shows in every play: a date a second
// later or earlier that met a bug under one timing only is not what is
// reported (here the play function lets every other play of a nudged
// script pass, the first showing, where the date as copied shows always).
TEST(ShrinkDefect, ANudgeThatShowsNowAndThenIsNotTaken) {
  auto p =
      Player::make(wrapped<LaggingPutDate<5>>(http::plugin()), "inprocess:ius-ignored");
  ASSERT_TRUE(p) << p.error();
  auto script = (*p)->parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\nwait 1\n"
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\",\"headers\":{"
      "\"if-unmodified-since\":2.(this@\"headers\"@\"date\").id}}\nwait 3\n");
  ASSERT_TRUE(script) << script.error();
  const harness::RunResult r = (*p)->play(*script);
  ASSERT_TRUE(r.violation()) << r.report();
  int nudged_plays = 0;
  const Shrunk s = ViolationShrinker((*p)->protocol(),
                                     [&](const harness::Script& x) {
                                       const std::string t = harness::print_script(x);
                                       if (t.find(".earlier") != std::string::npos ||
                                           t.find(".later") != std::string::npos)
                                         if (nudged_plays++ % 2 == 1)
                                           return harness::RunResult{};
                                       return (*p)->play(x);
                                     },
                                     {.same_violation = true})
                       .shrink(*script, r);
  ASSERT_TRUE(s.reproduced);
  EXPECT_GT(nudged_plays, 0) << "a nudge should have been tried";
  const std::string text = harness::print_script(s.script);
  EXPECT_EQ(text.find(".earlier"), std::string::npos) << text;
  EXPECT_EQ(text.find(".later"), std::string::npos) << text;
  EXPECT_NE(text.find(".id"), std::string::npos) << text;
}

// A literal tag no answer of its run gave (as nginx's: its 201 carries no
// ETag, and the fuzzer copied the tag from another run within the same
// second) names a stale state on every replay, so the finding showed on
// neither build (issue 47, nginx 01's findings at 1305943). The shrinker
// probes the path with a GET before the request and makes the tag a
// reference to the GET's ETag: the finding shows on every replay, and is
// named as one met through a reference is ("related", with GET, PUT).
TEST(ShrinkDefect, ALiteralTagNoAnswerGaveIsProbed) {
  ShrunkOnBug b;
  ASSERT_NO_FATAL_FAILURE(shrink_on_bug(
      "if-none-match-strong",
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\nwait 1\n"
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\",\"headers\":{"
      "\"if-none-match\":\"W/\\\"1-e1-tag\\\"\"}}\nwait 3\n",
      b, wrapped<FreshTagPerPut>(http::plugin())));
  const std::string text = harness::print_script(b.shrunk.script);
  EXPECT_NE(text.find("(this@\"headers\"@\"etag\").weak"), std::string::npos) << text;
  EXPECT_EQ(text.find("1-e1-tag"), std::string::npos) << text;
  const std::string id = identity_of(b.protocol(), b.shrunk.run);
  EXPECT_NE(id.find("{if-none-match:related}"), std::string::npos) << id;
  EXPECT_TRUE(id.ends_with("| with GET, PUT")) << id;
  int shown = 0;
  for (int i = 0; i < 6; ++i) shown += b.player->play(b.shrunk.script).violation();
  EXPECT_EQ(shown, 6) << text;
}

// A race (racy-if-match: two If-Match PUTs with the same tag, in flight at
// once, both succeed) still shrinks: the other path goes, the race stays
// and the signature says it is needed.
TEST(ShrinkRace, KeepsTheRaceAndDropsTheOtherPath) {
  auto p = Player::make(http::plugin(), "inprocess:racy-if-match");
  ASSERT_TRUE(p) << p.error();
  auto script = (*p)->parse(test_scripts::kRace);
  ASSERT_TRUE(script) << script.error();
  const harness::RunResult r = (*p)->play(*script);
  ASSERT_TRUE(r.violation()) << r.report();
  ShrinkOptions o;
  o.same_violation = true;
  const ViolationShrinker shrinker(
      (*p)->protocol(), [&](const harness::Script& s) { return (*p)->play(s); }, o);
  const Shrunk s = shrinker.shrink(*script, r);
  ASSERT_TRUE(s.reproduced);
  EXPECT_EQ(quick_key((*p)->protocol(), s.run), quick_key((*p)->protocol(), r));
  EXPECT_NE(signature_of((*p)->protocol(), s.run).find("(concurrent)"), std::string::npos)
      << signature_of((*p)->protocol(), s.run);
  EXPECT_EQ(harness::print_script(s.script).find("/other"), std::string::npos)
      << harness::print_script(s.script);
  EXPECT_LT(s.run.trace.size(), r.trace.size());
}

TEST(FailingRun, NamesTheRequestsOfOtherPathsUnrelated) {
  auto p = Player::make(http::plugin(), "inprocess:lost-update");
  ASSERT_TRUE(p) << p.error();
  auto script = (*p)->parse(kLostUpdate);
  ASSERT_TRUE(script);
  const harness::RunResult r = (*p)->play(*script);
  ASSERT_TRUE(r.violation());
  const mutator::FailingRun f = failing_run((*p)->protocol(), r);
  EXPECT_EQ(f.unrelated, (std::set<harness::Label>{1, 5}));
  EXPECT_EQ(f.trace.size(), r.trace.size());
  EXPECT_FALSE(reasons((*p)->protocol(), r).empty());
}

TEST(Serialized, PutsEveryRequestOnC0AndAwaitsIt) {
  auto p = Player::make(http::plugin(), "inprocess");
  ASSERT_TRUE(p) << p.error();
  auto s = (*p)->parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 3 on c1: {\"method\":\"GET\",\"path\":\"/a\"}\n");
  ASSERT_TRUE(s) << s.error();
  auto seq = serialized(*s, (*p)->protocol().functions);
  ASSERT_TRUE(seq);
  EXPECT_EQ(harness::print_script(*seq),
            "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
            "wait 1\n"
            "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n"
            "wait 3\n");
  EXPECT_FALSE(serialized(*seq, (*p)->protocol().functions));
}

}  // namespace
}  // namespace dualfuzz::campaign
