// Z3-targeted mutation: the solver rewrites a precondition header so that a
// branch the model took goes the other way, and the correct reference server,
// playing the rewritten script, really takes the other branch.
#include "dualfuzz/mutator/targeted_mutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/http/in_process_transport.h"
#include "dualfuzz/http/protocol.h"

namespace dualfuzz::mutator {
namespace {
using harness::RunResult;
using harness::Script;

// Plays scripts against a fresh correct reference server with the oracle's
// decisions recorded, as the fuzz adapters' runners do.
struct Bench {
  harness::Protocol http = http::protocol();
  http::HttpServerCore server{http::ServerOptions{}};
  http::InProcessTransport transport{server};
  std::shared_ptr<oracle::Solver> solver = std::make_shared<oracle::Solver>(500, http.model().strings);

  RunResult play(const Script& s) {
    server.reset();
    harness::RunOptions o;
    o.oracle_options.limits.record_decisions = true;
    harness::Executor ex(http, transport, o, solver);
    return ex.run(s);
  }
  Script parse(const std::string& text) const {
    auto s = harness::parse_script(text, http.functions);
    EXPECT_TRUE(s) << text;
    return s ? *s : Script{};
  }
  std::optional<Script> target(const Script& s, const RunResult& r, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    return targeted_mutation(s, r, http, *solver, rng);
  }
};

// What the explanations recorded, for failure messages.
std::string decisions(const RunResult& r) {
  std::string out;
  for (const auto& e : r.explanations) {
    out += "explanation:";
    for (const auto& d : e.decisions)
      out += " [" + std::to_string(d.label) + (d.taken ? " took " : " refused ") +
             d.condition.to_string() + "]";
    out += " facts:";
    for (const auto& f : e.facts) out += " " + f.to_string();
    out += "\n";
  }
  return out;
}

int status(const RunResult& r, harness::Label label) {
  const harness::Json* m = r.trace.find(label);
  return m && m->contains("status") && (*m)["status"].is_number_integer()
             ? (*m)["status"].get<int>()
             : -1;
}
std::string header(const harness::Json& ir, const char* name) {
  return ir.contains("headers") && ir["headers"].contains(name) &&
                 ir["headers"][name].is_string()
             ? ir["headers"][name].get<std::string>()
             : std::string();
}
// The request `label` as the server received it in run `r`.
std::string sent_header(const RunResult& r, harness::Label label, const char* name) {
  const harness::Json* q = r.trace.find(label);
  return q ? header(*q, name) : std::string();
}

const std::string kPut = R"(req 1 on c0: {"method":"PUT","path":"/doc","body":"v1"}
wait 1
)";

TEST(TargetedMutation, IfMatchThatFailedIsRewrittenToTheCurrentTag) {
  Bench b;
  Script s = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"wrong\""}}
wait 3
)");
  RunResult before = b.play(s);
  ASSERT_EQ(before.outcome, RunResult::Outcome::Pass) << before.report();
  ASSERT_EQ(status(before, 4), 412);
  ASSERT_FALSE(before.explanations.empty());

  auto next = b.target(s, before, 1);
  ASSERT_TRUE(next);
  RunResult after = b.play(*next);
  ASSERT_EQ(after.outcome, RunResult::Outcome::Pass) << after.report();
  // The tag the 201 announced, which the reference server now accepts.
  const std::string tag = header(*before.trace.find(2), "etag");
  ASSERT_FALSE(tag.empty());
  EXPECT_EQ(sent_header(after, 3, "if-match"), tag) << harness::print_script(*next);
  EXPECT_GE(status(after, 4), 200);
  EXPECT_LT(status(after, 4), 300);
  // Only the header changed: same steps, same labels.
  EXPECT_EQ(next->steps.size(), s.steps.size());
}

TEST(TargetedMutation, IfMatchThatPassedIsRewrittenToFail) {
  Bench b;
  Script s = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":2.(this@"headers"@"etag").id}}
wait 3
)");
  RunResult before = b.play(s);
  ASSERT_EQ(status(before, 4), 204) << before.report();
  auto next = b.target(s, before, 3);
  ASSERT_TRUE(next);
  RunResult after = b.play(*next);
  ASSERT_EQ(after.outcome, RunResult::Outcome::Pass) << after.report();
  EXPECT_EQ(status(after, 4), 412) << harness::print_script(*next);
  EXPECT_NE(sent_header(after, 3, "if-match"), sent_header(before, 3, "if-match"));
}

// A closed connection makes the oracle compare explanations without the
// requests left on it; the branches they took must survive that.
TEST(TargetedMutation, BranchesSurviveAClosedConnection) {
  Bench b;
  Script s = b.parse(kPut +
                     R"(close c0
req 3 on c1: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"wrong\""}}
wait 3
)");
  RunResult before = b.play(s);
  ASSERT_EQ(status(before, 4), 412) << before.report();
  auto next = b.target(s, before, 1);
  ASSERT_TRUE(next) << decisions(before);
  RunResult after = b.play(*next);
  EXPECT_EQ(status(after, 4), 204) << after.report();
}

TEST(TargetedMutation, OnlyTheTagInAListIsReplaced) {
  Bench b;
  Script s = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"x\", \"y\""}}
wait 3
)");
  RunResult before = b.play(s);
  ASSERT_EQ(status(before, 4), 412) << before.report();
  auto next = b.target(s, before, 7);
  ASSERT_TRUE(next);
  RunResult after = b.play(*next);
  const std::string tag = header(*before.trace.find(2), "etag");
  const std::string sent = sent_header(after, 3, "if-match");
  EXPECT_TRUE(sent == tag + ", \"y\"" || sent == "\"x\", " + tag) << sent;
  EXPECT_EQ(status(after, 4), 204) << after.report();
}

TEST(TargetedMutation, IfUnmodifiedSinceBeforeTheChangeIsMovedAfterIt) {
  Bench b;
  Script s = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-unmodified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}}
wait 3
)");
  RunResult before = b.play(s);
  ASSERT_EQ(status(before, 4), 412) << before.report();
  auto next = b.target(s, before, 1);
  ASSERT_TRUE(next);
  RunResult after = b.play(*next);
  ASSERT_EQ(after.outcome, RunResult::Outcome::Pass) << after.report();
  EXPECT_EQ(status(after, 4), 204) << harness::print_script(*next);
  EXPECT_NE(sent_header(after, 3, "if-unmodified-since"),
            "Mon, 01 Jan 2001 00:00:00 GMT");
}

TEST(TargetedMutation, IfModifiedSinceFlipsBothWays) {
  Bench b;
  // Before the resource's Last-Modified: 200; the flip asks for 304.
  Script old = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"GET","path":"/doc","headers":{"if-modified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}}
wait 3
)");
  RunResult before = b.play(old);
  ASSERT_EQ(status(before, 4), 200) << before.report();
  auto next = b.target(old, before, 1);
  ASSERT_TRUE(next) << decisions(before);
  RunResult after = b.play(*next);
  ASSERT_EQ(after.outcome, RunResult::Outcome::Pass) << after.report();
  EXPECT_EQ(status(after, 4), 304) << harness::print_script(*next);

  // After it: 304; the flip asks for 200.
  Script late = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"GET","path":"/doc","headers":{"if-modified-since":"Fri, 01 Jan 2100 00:00:00 GMT"}}
wait 3
)");
  before = b.play(late);
  ASSERT_EQ(status(before, 4), 304) << before.report();
  next = b.target(late, before, 1);
  ASSERT_TRUE(next);
  after = b.play(*next);
  ASSERT_EQ(after.outcome, RunResult::Outcome::Pass) << after.report();
  EXPECT_EQ(status(after, 4), 200) << harness::print_script(*next);
}

// The date the solver picks is the resource's Last-Modified or one second
// beside it: a value an earlier answer carried, written as a reference to
// that answer (relink.h), so that the script asks the same on any replay.
TEST(TargetedMutation, AValueAnAnswerCarriedIsWrittenAsAReference) {
  Bench b;
  Script old = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"GET","path":"/doc","headers":{"if-modified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}}
wait 3
)");
  RunResult before = b.play(old);
  for (std::uint64_t seed : {1, 2, 3}) {
    auto next = b.target(old, before, seed);
    ASSERT_TRUE(next);
    const auto& q = std::get<harness::RequestStep>(next->steps[2]);
    const harness::Jexp* h = q.body.find("headers");
    ASSERT_TRUE(h && h->find("if-modified-since"));
    EXPECT_EQ(h->find("if-modified-since")->kind(), harness::Jexp::Kind::Reference)
        << harness::print_script(*next);
    EXPECT_EQ(status(b.play(*next), 4), 304) << harness::print_script(*next);
  }
}

TEST(TargetedMutation, IfNoneMatchOfTheCurrentTagIsRewrittenToMiss) {
  Bench b;
  Script s = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"GET","path":"/doc","headers":{"if-none-match":2.(this@"headers"@"etag").id}}
wait 3
)");
  RunResult before = b.play(s);
  ASSERT_EQ(status(before, 4), 304) << before.report();
  auto next = b.target(s, before, 2);
  ASSERT_TRUE(next);
  RunResult after = b.play(*next);
  ASSERT_EQ(after.outcome, RunResult::Outcome::Pass) << after.report();
  EXPECT_EQ(status(after, 4), 200) << harness::print_script(*next);
}

TEST(TargetedMutation, NothingToFlipGivesNullopt) {
  Bench b;
  for (
      const std::string& text : {
          // No precondition: no symbolic branch at all.
          kPut + R"(req 3 on c0: {"method":"GET","path":"/doc"}
wait 3
)",
          // If-Match on a missing resource is false whatever the tag.
          std::string(
              R"(req 1 on c0: {"method":"PUT","path":"/new","body":"x","headers":{"if-match":"\"a\""}}
wait 1
)"),
          // `*` matches any current representation: the branch is decided.
          kPut +
              R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"*"}}
wait 3
)",
      }) {
    Script s = b.parse(text);
    RunResult r = b.play(s);
    ASSERT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
    for (std::uint64_t seed = 0; seed < 4; ++seed)
      EXPECT_FALSE(b.target(s, r, seed)) << text;
  }
}

TEST(TargetedMutation, NeedsRecordedDecisions) {
  Bench b;
  Script s = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"wrong\""}}
wait 3
)");
  b.server.reset();
  harness::Executor ex(b.http, b.transport, harness::RunOptions{}, b.solver);
  RunResult r = ex.run(s);
  ASSERT_EQ(status(r, 4), 412);
  EXPECT_TRUE(r.explanations.empty());
  EXPECT_FALSE(b.target(s, r, 1));
}

// Several flippable branches (two requests with preconditions): the choice
// depends on the seed only, and different seeds reach different branches.
TEST(TargetedMutation, DeterministicForASeed) {
  Bench b;
  Script s = b.parse(
      kPut +
      R"(req 3 on c0: {"method":"GET","path":"/doc","headers":{"if-none-match":"\"a\""}}
wait 3
req 5 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"b\""}}
wait 5
req 7 on c0: {"method":"GET","path":"/doc","headers":{"if-modified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}}
wait 7
)");
  RunResult r = b.play(s);
  ASSERT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
  Bench other;  // another server, run and Z3 context: the same answers
  std::set<std::string> outputs;
  for (std::uint64_t seed = 0; seed < 16; ++seed) {
    auto x = b.target(s, r, seed);
    auto y = other.target(s, other.play(s), seed);
    ASSERT_TRUE(x && y);
    EXPECT_EQ(harness::print_script(*x), harness::print_script(*y)) << seed;
    outputs.insert(harness::print_script(*x));
  }
  EXPECT_GE(outputs.size(), 2u) << "the seed should pick among the branches\n"
                                << decisions(r) << *outputs.begin();
}

// A tag nobody has seen (to make a matching If-Match fail) is named by the
// query alone, not by what the solver's context met before: a libFuzzer
// mutation stays a function of (input, seed).
TEST(TargetedMutation, UnseenTagsDoNotDependOnTheSolversHistory) {
  const std::string text =
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":2.(this@"headers"@"etag").id}}
wait 3
)";
  Bench fresh, used;
  // The used context has interned other tags and answered other queries.
  for (const char* tag : {"\"z1\"", "\"q\"", "\"z2\"", "W/\"r\""}) {
    Script other = used.parse(
        kPut +
        R"(req 3 on c0: {"method":"GET","path":"/doc","headers":{"if-none-match":")" +
        harness::Json(tag).dump().substr(
            1, std::string(harness::Json(tag).dump()).size() - 2) +
        R"("}}
wait 3
)");
    used.target(other, used.play(other), 5);
  }
  Script s = fresh.parse(text);
  auto a = fresh.target(s, fresh.play(s), 1);
  auto b = used.target(s, used.play(s), 1);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(harness::print_script(*a), harness::print_script(*b));
  EXPECT_EQ(status(fresh.play(*a), 4), 412) << harness::print_script(*a);
}

// ScriptMutator with a runner: one call in kTargetedOneIn replays the input
// and returns the targeted rewrite, and the whole sequence is still a
// function of the seed.
TEST(TargetedMutation, ScriptMutatorWithARunnerEmitsTargetedRewrites) {
  Bench b;
  int replays = 0;
  ScriptMutator m(
      b.http,
      [&](const Script& s) {
        ++replays;
        return b.play(s);
      },
      b.solver);
  ASSERT_TRUE(m.targeted());
  const std::string input =
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"wrong\""}}
wait 3
)";
  const Script s = b.parse(input);
  // The only branch to flip: the rewrite is the same whatever the seed.
  const auto rewrite = b.target(s, b.play(s), 0);
  ASSERT_TRUE(rewrite);
  const std::string expected = harness::print_script(*rewrite);

  auto run_sequence = [&](std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> out;
    for (int i = 0; i < 64; ++i) out.push_back(m.mutate(input, 4096, rng));
    return out;
  };
  const auto first = run_sequence(11);
  const auto stats = m.targeted_stats();
  const int targeted = static_cast<int>(std::count(first.begin(), first.end(), expected));
  EXPECT_EQ(static_cast<std::uint64_t>(replays), stats.runs);
  EXPECT_EQ(stats.rewrites, stats.runs) << "every replay of this input can flip If-Match";
  EXPECT_EQ(static_cast<std::uint64_t>(targeted), stats.rewrites);
  EXPECT_GE(targeted, 2) << "about 64 / kTargetedOneIn calls should be targeted";
  EXPECT_LT(targeted, 24);
  EXPECT_EQ(first, run_sequence(11));

  // Without a runner (or with DUALFUZZ_TARGETED=0 in the engines) nothing is replayed.
  ScriptMutator plain(b.http);
  EXPECT_FALSE(plain.targeted());
  std::mt19937_64 rng(11);
  for (int i = 0; i < 64; ++i) plain.mutate(input, 4096, rng);
  EXPECT_EQ(plain.targeted_stats().runs, 0u);
}

// A targeted rewrite still fits the size limit the engine asks for.
TEST(TargetedMutation, ScriptMutatorFitsTargetedOutputs) {
  Bench b;
  ScriptMutator m(
      b.http, [&](const Script& s) { return b.play(s); }, b.solver);
  const std::string input =
      kPut +
      R"(req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"wrong\""}}
wait 3
)";
  std::mt19937_64 rng(3);
  for (int i = 0; i < 64; ++i) {
    const std::size_t max = 40 + rng() % 80;
    const std::string out = m.mutate(input, max, rng);
    EXPECT_LE(out.size(), max);
    EXPECT_TRUE(harness::parse_script(out, b.http.functions)) << out;
  }
  EXPECT_GT(m.targeted_stats().runs, 0u);
}

}  // namespace
}  // namespace dualfuzz::mutator
