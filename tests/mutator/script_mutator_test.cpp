#include "dualfuzz/mutator/script_mutator.h"

#include <gtest/gtest.h>

#include <set>

#include "dualfuzz/http/protocol.h"

namespace dualfuzz::mutator {
namespace {

const ScriptMutator& mutator() {
  static const ScriptMutator m(http::protocol());
  return m;
}

TEST(ScriptMutator, OutputsAlwaysParseFitAndKeepTheRules) {
  std::mt19937_64 rng(5);
  std::string cur = "garbage that is not a script";
  int refs = 0, waits = 0;
  for (int i = 0; i < 3000; ++i) {
    std::size_t max = 64 + rng() % 2048;
    std::string next = mutator().mutate(cur, max, rng);
    ASSERT_LE(next.size(), max);
    auto s = harness::parse_script(next, mutator().protocol().functions);
    ASSERT_TRUE(s) << next << "\n" << s.error();
    ASSERT_EQ(harness::validate(*s), std::nullopt) << next;
    refs += next.find(".(this@") != std::string::npos;
    waits += next.find("wait ") != std::string::npos;
    cur = i % 50 == 0 ? std::string() : next;
  }
  EXPECT_GT(refs, 100) << "trace-based heuristics should appear";
  EXPECT_GT(waits, 100) << "ordering directives should appear";
}

TEST(ScriptMutator, DeterministicForASeed) {
  std::mt19937_64 a(99), b(99);
  std::string x, y;
  for (int i = 0; i < 100; ++i) {
    x = mutator().mutate(x, 4096, a);
    y = mutator().mutate(y, 4096, b);
  }
  EXPECT_EQ(x, y);
}

TEST(ScriptMutator, ShrinksBelowTheInputWhenAsked) {
  std::mt19937_64 rng(1);
  std::string big = harness::print_script(mutator().generate(rng, 20));
  ASSERT_GT(big.size(), 300u);
  std::string small = mutator().mutate(big, big.size() / 3, rng);
  EXPECT_LE(small.size(), big.size() / 3);
  EXPECT_TRUE(harness::parse_script(small, mutator().protocol().functions));
}

TEST(ScriptMutator, CrossoverRenumbersLabelsAndReferences) {
  const auto& fns = mutator().protocol().functions;
  std::string a =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\nwait 1\n";
  std::string b =
      "req 1 on c1: {\"method\":\"GET\",\"path\":\"/a\"}\nwait 1\n"
      "req 3 on c1: "
      "{\"headers\":{\"if-match\":2.(this@\"headers\"@\"etag\").id},\"method\":\"PUT\","
      "\"path\":\"/a\"}\n";
  std::mt19937_64 rng(3);
  int mixed = 0;
  for (int i = 0; i < 200; ++i) {
    std::string c = mutator().crossover(a, b, 4096, rng);
    auto s = harness::parse_script(c, fns);
    ASSERT_TRUE(s) << c << s.error();
    ASSERT_EQ(harness::validate(*s), std::nullopt) << c;
    if (c.find("req 1 on c0") != std::string::npos &&
        c.find("req 5 on c1: {\"headers\":{\"if-match\":4.(") != std::string::npos)
      ++mixed;
  }
  EXPECT_GT(mixed, 0) << "a reference into b must follow b's renumbered labels";
}

TEST(ScriptMutator, RequestsUsuallyWaitForTheResponsesTheyReference) {
  std::mt19937_64 rng(8);
  int referencing = 0, waited = 0;
  std::string cur;
  for (int i = 0; i < 2000; ++i) {
    cur = i % 40 == 0 ? std::string() : mutator().mutate(cur, 4096, rng);
    auto s = harness::parse_script(cur, mutator().protocol().functions);
    ASSERT_TRUE(s);
    std::set<harness::Label> sent, awaited;
    for (const auto& st : s->steps) {
      if (const auto* w = std::get_if<harness::WaitStep>(&st)) awaited.insert(w->label);
      const auto* r = std::get_if<harness::RequestStep>(&st);
      if (!r) continue;
      for (const auto& ref : harness::references(r->body))
        if (ref.label % 2 == 0 && sent.count(ref.label - 1)) {
          ++referencing;
          waited += awaited.count(ref.label - 1) > 0;
        }
      sent.insert(r->label);
    }
  }
  ASSERT_GT(referencing, 200);
  EXPECT_GT(waited * 2, referencing)
      << "a reference to a response that has not arrived only falls back";
}

// A stale validator needs a write between the answer that carried it and
// the request that sends it back; the mutator puts one there.
TEST(ScriptMutator, SupersedingPutsAWriteBetweenAnAnswerAndItsReference) {
  const auto& fns = mutator().protocol().functions;
  const std::string text =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n"
      "wait 3\n"
      "req 5 on c1: {\"method\":\"GET\",\"path\":\"/a\",\"headers\":"
      "{\"if-none-match\":4.(this@\"headers\"@\"etag\").id}}\n";
  int puts = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto s = harness::parse_script(text, fns);
    ASSERT_TRUE(s);
    std::mt19937_64 rng(seed);
    ASSERT_TRUE(mutator().supersede_reference(*s, rng));
    ASSERT_EQ(harness::validate(*s), std::nullopt) << harness::print_script(*s);
    // Steps: the source (label 3), then the write, waited for, then label 5.
    std::size_t src = 0, use = 0, write = 0;
    harness::Label wl = 0;
    for (std::size_t i = 0; i < s->steps.size(); ++i)
      if (const auto* r = std::get_if<harness::RequestStep>(&s->steps[i])) {
        if (r->label == 3) src = i;
        if (r->label == 5) use = i;
        if (r->label > 5) write = i, wl = r->label;
      }
    ASSERT_TRUE(wl) << harness::print_script(*s);
    EXPECT_LT(src, write);
    ASSERT_LT(write, use);
    const auto& w = std::get<harness::RequestStep>(s->steps[write]);
    EXPECT_EQ(w.conn, 1u) << "on the referring request's connection";
    EXPECT_EQ(harness::string_field(w.body, "path"), "/a");
    const std::string method = harness::string_field(w.body, "method");
    ASSERT_TRUE(method == "PUT" || method == "DELETE") << method;
    if (method == "PUT") {
      ++puts;
      EXPECT_NE(harness::string_field(w.body, "body"), "x") << "other content";
    }
    bool write_awaited = false;
    for (std::size_t i = write + 1; i < use; ++i)
      if (const auto* wt = std::get_if<harness::WaitStep>(&s->steps[i]))
        write_awaited = write_awaited || wt->label == wl;
    EXPECT_TRUE(write_awaited) << harness::print_script(*s);
  }
  EXPECT_GT(puts, 20);
}

TEST(ScriptMutator, SupersedingLeavesAScriptWithoutReferencesAlone) {
  const std::string text =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\",\"headers\":"
      "{\"if-none-match\":\"\\\"1\\\"\"}}\n";
  auto s = harness::parse_script(text, mutator().protocol().functions);
  ASSERT_TRUE(s);
  std::mt19937_64 rng(1);
  EXPECT_FALSE(mutator().supersede_reference(*s, rng));
  EXPECT_EQ(harness::print_script(*s), harness::print_script(*harness::parse_script(
                                           text, mutator().protocol().functions)));
}

}  // namespace
}  // namespace dualfuzz::mutator
