// Findings a CI can live with (issue 47): a finding's identity from its
// verdict and the shape of its shrunk script (signature.h identity_of),
// stable across seeds and apart between bugs; baselines of known findings
// (baseline.h), matched by identity: a known one is counted and not
// reported, a new one is, and another bug with a similar request is not
// taken for a known one.
#include "dualfuzz/campaign/baseline.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "dualfuzz/campaign/fuzz_loop.h"
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/campaign/shrink.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/fuzz_target.h"
#include "dualfuzz/http/date.h"
#include "dualfuzz/http/plugin.h"
#include "wrapped_server.h"

namespace dualfuzz::campaign {
namespace {

// The first finding of an in-process run of a planted bug, shrunk as a
// baseline run shrinks it (to the same violation: keep_going's shrink).
struct Found {
  std::string identity, signature, script;
};

Found first_finding(const std::string& bug, std::uint64_t seed,
                    const Baseline& baseline = {}, FuzzSummary* out = nullptr,
                    double seconds = 300) {
  // (A bound, not a duration: the run ends at its first finding, within a
  // few seconds here; range-end-exclusive's seed 3 needs 42-46 s alone, and
  // beside a benchmark and another ctest job 120 s was too short twice.)
  FuzzOptions o;
  o.target = "inprocess:" + bug;
  o.seconds = seconds;
  o.connections = 1;  // (sequential bugs: no race in the way)
  o.baseline = baseline;
  auto c = FuzzCampaign::make(http::plugin(), o);
  EXPECT_TRUE(c) << c.error();
  if (!c) return {};
  std::mt19937_64 rng(seed);
  FuzzSummary s = (*c)->run(rng, {});
  Found f;
  if (s.first) {
    f.identity = identity_of((*c)->protocol(), s.first->shrunk.run);
    f.signature = signature_of((*c)->protocol(), s.first->shrunk.run);
    f.script = harness::print_script(s.first->shrunk.script);
  }
  if (out) *out = std::move(s);
  return f;
}

// A baseline that knows only `bug`'s findings of `seeds`.
Baseline baseline_of(const std::string& bug, std::initializer_list<std::uint64_t> seeds) {
  std::string text;
  for (std::uint64_t seed : seeds) text += first_finding(bug, seed).identity + "\n";
  auto b = Baseline::parse(text, "test");
  EXPECT_TRUE(b) << b.error();
  return b ? *b : Baseline{};
}

// Bugs whose first finding (connections 1) is met within a second, each a
// different defect; some answer the same request alike in other ways
// (create-204 and etag-reuse: a PUT answered 204). wrong-304 is not among
// the stable ones: it shows on GET or HEAD as the seed has it.
const char* const kStable[] = {"create-204", "etag-reuse", "range-end-exclusive"};
const char* const kBugs[] = {"create-204", "etag-reuse", "range-end-exclusive",
                             "wrong-304", "if-match-weak", "if-match-skipped"};

TEST(Identity, PlantedBugsKeepOneIdentityAcrossSeedsAndNeverShareOne) {
  std::map<std::string, std::set<std::string>> ids;  // per bug
  std::map<std::string, std::set<std::string>> sigs;
  for (const char* bug : kBugs)
    for (std::uint64_t seed : {1, 2, 3}) {
      const Found f = first_finding(bug, seed);
      ASSERT_FALSE(f.identity.empty()) << bug << " seed " << seed;
      ids[bug].insert(f.identity);
      sigs[bug].insert(f.signature);
      std::cout << bug << " seed " << seed << ": " << f.identity << "\n   (signature "
                << f.signature << ")\n" << f.script;
    }
  // (The If-Match bugs show on HEAD, PUT, DELETE or GET, wrong-304 on GET or
  // HEAD, as the seed has it: each method's answer is an identity of its own.)
  for (const char* bug : kStable) EXPECT_EQ(ids[bug].size(), 1u) << bug;
  std::map<std::string, std::string> owner;
  for (const auto& [bug, set] : ids)
    for (const std::string& id : set) {
      auto [it, fresh] = owner.emplace(id, bug);
      EXPECT_TRUE(fresh) << id << " is both " << it->second << "'s and " << bug << "'s";
    }
}

// A request a server must refuse whatever else it asks (an invalid Host,
// RFC 9112 §3.2): its other fields are no part of the defect, so the same
// served Host with an If-None-Match beside it is the same identity (a
// baseline missed it so on nginx). A field the shape names stays.
TEST(Identity, ARequestRefusedWhateverItAsksIsNamedByItsDefectAlone) {
  auto player = Player::make(http::plugin(), "inprocess:host-unchecked");
  ASSERT_TRUE(player) << player.error();
  auto identity = [&](const std::string& headers) {
    auto s = (*player)->parse(R"(req 1 on c0: {"method":"GET","path":"/a","headers":)" +
                              headers + "}\n");
    EXPECT_TRUE(s) << s.error();
    const harness::RunResult r = (*player)->play(*s);
    EXPECT_TRUE(r.violation()) << r.report();
    return identity_of((*player)->protocol(), r);
  };
  const std::string alone = identity(R"({"host":"a b"})");
  EXPECT_NE(alone.find("* host"), std::string::npos) << alone;
  EXPECT_EQ(identity(R"({"host":"a b","if-none-match":"\"x\""})"), alone);
  EXPECT_EQ(identity(R"({"host":"a b","range":"bytes=0-0","accept":"*/*"})"), alone);
  EXPECT_EQ(alone.find("if-none-match"), std::string::npos) << alone;
  // Nor what came before it: a PUT of the path first.
  auto s = (*player)->parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\nwait 1\n"
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\",\"headers\":{\"host\":\"a "
      "b\"}}\n");
  ASSERT_TRUE(s) << s.error();
  const harness::RunResult after = (*player)->play(*s);
  ASSERT_TRUE(after.violation()) << after.report();
  EXPECT_EQ(identity_of((*player)->protocol(), after), alone);
}

// A request field is classed against the state's validators (HTTP: ETag,
// Last-Modified), not every field of the answer: a GET whose
// If-Unmodified-Since a server ignores is one defect whether its date was
// the PUT's lagging Date or a second before it. As "current" (the Date's
// value) it was a name lighttpd's record never had, and it showed only
// under load.
TEST(Identity, ADateTheAnswerCarriedIsNoValidator) {
  const Plugin plugin = wrapped<LaggingPutDate<5>>(http::plugin());
  auto player = Player::make(plugin, "inprocess:ius-ignored");
  ASSERT_TRUE(player) << player.error();
  auto identity = [&](const std::string& date) {
    auto s = (*player)->parse(
        "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\nwait 1\n"
        "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\","
        "\"headers\":{\"if-unmodified-since\":" +
        date + "}}\nwait 3\n");
    EXPECT_TRUE(s) << s.error();
    const harness::RunResult r = (*player)->play(*s);
    EXPECT_TRUE(r.violation()) << r.report();
    return identity_of((*player)->protocol(), r);
  };
  const std::string by_date = identity(R"(2.(this@"headers"@"date").id)");
  EXPECT_NE(by_date.find("{if-unmodified-since:other}"), std::string::npos) << by_date;
  EXPECT_EQ(identity(R"(2.(this@"headers"@"date").earlier)"), by_date);
}

TEST(Identity, AProtocolViolationIsNamedByItsRule) {
  harness::RunResult r;
  r.outcome = harness::RunResult::Outcome::ProtocolViolation;
  r.detail =
      "PROTOCOL VIOLATION on c1: RFC 9110 §8.6 (MUST): Content-Length in a 204 "
      "response\nbytes: ...";
  EXPECT_EQ(identity_of(http::plugin().protocol, r),
            "protocol: RFC 9110 §8.6 (MUST): Content-Length in a 204 response");
  r.detail = "PROTOCOL VIOLATION on c3: RFC 9110 §8.6 (MUST): Content-Length in a 204 "
             "response";
  EXPECT_EQ(identity_of(http::plugin().protocol, r),
            "protocol: RFC 9110 §8.6 (MUST): Content-Length in a 204 response");
  r.outcome = harness::RunResult::Outcome::Pass;
  EXPECT_EQ(identity_of(http::plugin().protocol, r), "");
}

TEST(Baseline, ReadsFuzzJsonOutputFindingArraysAndIdentityLines) {
  const std::string out =
      "dualfuzz fuzz: violation after 0.1 s\n"
      "--- minimized script (3 steps, from 9)\n"
      "{\"target\":\"inprocess:x\",\"identity\":\"model: A\",\"signature\":\"s\","
      "\"script\":\"req 1 on c0: {}\\n\",\"findings\":[{\"identity\":\"model: B\"},"
      "{\"signature\":\"crash: PUT\"},{\"kind\":\"hang\",\"signature\":\"hang: GET\","
      "\"reproduced\":false},{\"kind\":\"crash\",\"signature\":\"crash: LOCK\","
      "\"reproduced\":true}],\"races\":[{\"identity\":\"model: C | (concurrent)\"}]}\n";
  auto b = Baseline::parse(out, "run.out");
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(b->entries().size(), 4u);
  EXPECT_TRUE(b->contains("model: A"));
  EXPECT_TRUE(b->contains("model: B"));
  EXPECT_TRUE(b->contains("model: C | (concurrent)"));
  // A death counts by its name when its script alone brought it about
  // again; one not replayed, or without a kind, is no name to match.
  EXPECT_TRUE(b->contains("crash: LOCK"));
  EXPECT_FALSE(b->contains("hang: GET"));
  EXPECT_FALSE(b->contains("crash: PUT"));
  EXPECT_EQ(b->entries()[0].script, "req 1 on c0: {}\n");
  // Two runs' outputs concatenated: one baseline, each identity once.
  auto two = Baseline::parse(out + out + "{\"findings\":[{\"identity\":\"model: D\"}]}\n",
                             "runs.out");
  ASSERT_TRUE(two);
  EXPECT_EQ(two->entries().size(), 5u);
  // A pretty-printed array of findings.
  auto arr = Baseline::parse("[\n {\"identity\": \"model: E\"}\n]\n", "a.json");
  ASSERT_TRUE(arr);
  EXPECT_TRUE(arr->contains("model: E"));
  // No JSON: one identity a line.
  auto lines = Baseline::parse("# main, 2024-05-01\nmodel: F | x | alone\n\n", "b.txt");
  ASSERT_TRUE(lines);
  EXPECT_EQ(lines->entries().size(), 1u);
  EXPECT_TRUE(lines->contains("model: F | x | alone"));
  // A summary with no findings is an empty baseline; JSON without any is
  // an error; so is a file that cannot be read.
  auto empty = Baseline::parse("{\"violation\":false,\"findings\":[],\"races\":[]}", "e");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->entries().empty());
  EXPECT_FALSE(empty->none());
  EXPECT_FALSE(Baseline::parse("{\"a\":1}", "x.json"));
  EXPECT_FALSE(Baseline::load("/nonexistent/baseline.json"));
  EXPECT_TRUE(Baseline{}.none());
}

// Both ways: a baseline of the bug's own findings suppresses them (counted,
// no finding, the run goes on); what the run then reports, if anything, is
// a finding the baseline does not hold; another bug is reported.
TEST(Baseline, AKnownFindingIsCountedNotReportedAndANewOneIsReported) {
  const Baseline known = baseline_of("create-204", {1, 2, 3});
  ASSERT_EQ(known.entries().size(), 1u);
  FuzzSummary s;
  const Found f = first_finding("create-204", 1, known, &s, 2);
  // (create-204 shows in other shapes too, e.g. a PUT with a control
  // character in a field value the server may serve: a new identity)
  if (s.first) {
    EXPECT_FALSE(known.contains(f.identity)) << f.identity;
  }
  EXPECT_GT(s.counters.baseline_known, 0u);
  EXPECT_FALSE(s.baseline_counts.empty());
  for (const auto& [id, n] : s.baseline_counts) EXPECT_TRUE(known.contains(id)) << id;

  // Another bug on a server with a baseline of create-204's: reported.
  FuzzSummary other;
  const Found g = first_finding("range-end-exclusive", 1, known, &other);
  ASSERT_TRUE(other.first.has_value());
  EXPECT_FALSE(known.contains(g.identity)) << g.identity;
}

// A bug whose counterexample looks like a known one's (the same request, a
// PUT over an existing resource answered 204, on the same kind of script)
// is not suppressed by the other's baseline.
TEST(Baseline, AnotherBugWithASimilarRequestIsNotSuppressed) {
  const Baseline known = baseline_of("etag-reuse", {1, 2, 3});
  FuzzSummary s;
  const Found f = first_finding("if-match-skipped", 1, known, &s);
  ASSERT_TRUE(s.first.has_value()) << "if-match-skipped was taken for etag-reuse";
  EXPECT_FALSE(known.contains(f.identity));

  const Baseline weak = baseline_of("if-match-weak", {1, 2, 3});
  FuzzSummary t;
  const Found g = first_finding("if-match-skipped", 2, weak, &t);
  ASSERT_TRUE(t.first.has_value()) << "if-match-skipped was taken for if-match-weak";
  EXPECT_FALSE(weak.contains(g.identity)) << g.identity;
}

// The baseline's own build beside the change's (--baseline-target): a
// finding the (empty) record lacks is played there, and known when that
// build shows it under the same identity; a correct build shows nothing,
// so the same finding is reported. Both ways, on the same seed.
TEST(Baseline, AFindingTheBaselinesOwnServerShowsTooIsKnown) {
  auto run = [](const std::string& reference) {
    FuzzOptions o;
    o.target = "inprocess:if-match-skipped";
    o.seconds = 8;  // (the first finding comes within a second)
    o.connections = 1;
    o.baseline_target = reference;
    auto c = FuzzCampaign::make(http::plugin(), o);
    EXPECT_TRUE(c) << c.error();
    std::mt19937_64 rng(1);
    return c ? (*c)->run(rng, {}) : FuzzSummary{};
  };
  // The same bug on the reference: every finding is known there.
  const FuzzSummary same = run("inprocess:if-match-skipped");
  EXPECT_FALSE(same.first.has_value())
      << harness::print_script(same.first->shrunk.script);
  EXPECT_GT(same.counters.reference_known, 0u);
  // (The record is empty: every known finding came from the reference, or
  // was a later occurrence of one's quick key, counted without a shrink.)
  EXPECT_GE(same.counters.baseline_known, same.counters.reference_known);
  EXPECT_LE(same.baseline_counts.size(), same.counters.reference_known);
  EXPECT_GE(same.counters.reference_plays, same.baseline_counts.size());
  // A correct reference: the finding is new, and reported.
  const FuzzSummary correct = run("inprocess");
  ASSERT_TRUE(correct.first.has_value());
  EXPECT_EQ(correct.counters.reference_known, 0u);
  // Not shown in any play: 3 of the finding met in sequence, played in
  // sequence (when that is another script), and 3 of the script as found.
  const bool in_sequence =
      serialized_as_answered(correct.first->shrunk.script, correct.first->shrunk.run,
                             http::plugin().protocol.functions)
          .has_value();
  EXPECT_EQ(correct.counters.reference_plays, in_sequence ? 6u : 3u);
}

// A race may show in some plays only: a finding that needs requests in
// flight at once is played five times as often on the reference before it
// counts as not shown there.
TEST(Baseline, ARaceIsPlayedMoreOftenOnTheReference) {
  FuzzOptions o;
  o.target = "inprocess:racy-if-match";
  o.seconds = 20;
  o.connections = 2;
  o.stop_on_races = true;
  o.baseline_target = "inprocess";
  auto c = FuzzCampaign::make(http::plugin(), o);
  ASSERT_TRUE(c) << c.error();
  std::mt19937_64 rng(1);
  const FuzzSummary s = (*c)->run(rng, {});
  ASSERT_TRUE(s.first.has_value());
  const std::string id = identity_of(http::plugin().protocol, s.first->shrunk.run);
  ASSERT_TRUE(id.ends_with(kConcurrent)) << id;
  EXPECT_EQ(s.counters.reference_plays, 15u);
}

// The reference server answering the first PUT that creates a resource
// 204 instead of 201, once: a violation (RFC 9110 §9.3.4) that never shows
// again.
class CreatedOnceAs204 final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  std::vector<Incoming> receive(std::chrono::milliseconds timeout) override {
    std::vector<Incoming> in = t_.receive(timeout);
    for (Incoming& i : in)
      if (const std::size_t at = i.bytes.find("\r\nContent-Length: 0\r\n");
          !done_ && i.bytes.starts_with("HTTP/1.1 201 Created\r\n") &&
          at != std::string::npos) {
        i.bytes.erase(at, 19);  // (a 204 has no Content-Length)
        i.bytes.replace(0, 20, "HTTP/1.1 204 No Content");
        done_ = true;
      }
    return in;
  }

 private:
  bool done_ = false;
};

Plugin glitch_once() { return wrapped<CreatedOnceAs204>(http::plugin()); }

// A violation that does not show again when replayed cannot be told new
// or known: with a baseline it is unconfirmed (reported and counted, no
// violation, the run goes on); without one it ends the run as before,
// marked not reproduced.
TEST(Baseline, AViolationThatDoesNotShowAgainIsUnconfirmed) {
  auto empty = Baseline::parse("{\"violation\":false,\"findings\":[]}", "empty");
  ASSERT_TRUE(empty);
  for (bool with_baseline : {true, false}) {
    FuzzOptions o;
    o.target = "inprocess";
    o.seconds = 3;
    o.connections = 1;
    if (with_baseline) o.baseline = *empty;
    auto c = FuzzCampaign::make(glitch_once(), o);
    ASSERT_TRUE(c) << c.error();
    std::size_t unconfirmed = 0;
    FuzzObserver obs;
    obs.on_violation = [&](const FuzzObserver::Violation& v) {
      unconfirmed += v.unconfirmed;
    };
    std::mt19937_64 rng(1);
    const FuzzSummary s = (*c)->run(rng, obs);
    if (!with_baseline) {
      ASSERT_TRUE(s.first.has_value());
      EXPECT_FALSE(s.first->shrunk.reproduced);
      EXPECT_EQ(unconfirmed, 0u);
      continue;
    }
    EXPECT_FALSE(s.first.has_value());
    EXPECT_FALSE(s.violation());
    EXPECT_GE(s.seconds, 3);  // (the run went on)
    ASSERT_EQ(s.unconfirmed(), 1u);
    EXPECT_EQ(unconfirmed, 1u);
    for (const Finding& f : s.findings)
      if (f.unconfirmed) {
        EXPECT_FALSE(f.reproduced);
        EXPECT_NE(f.signature.find("PUT"), std::string::npos) << f.signature;
      }
  }
}

// The fuzz target with $DUALFUZZ_BASELINE does the same: no abort on an
// unconfirmed violation; without a baseline it aborts, as before.
TEST(Baseline, TheFuzzTargetDoesNotAbortOnAnUnconfirmedViolation) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string file = ::testing::TempDir() + "dualfuzz-empty-baseline.json";
  {
    std::ofstream out(file);
    out << "{\"violation\":false,\"findings\":[]}\n";
  }
  constexpr std::string_view kCreate =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n";
  auto play = [&](FuzzTarget& t) {
    return t.test_one_input(reinterpret_cast<const std::uint8_t*>(kCreate.data()),
                            kCreate.size());
  };
  ::setenv("DUALFUZZ_KNOWN_VIOLATIONS", "", 1);
  ::setenv("DUALFUZZ_BASELINE", file.c_str(), 1);
  {
    FuzzTarget t(glitch_once(), "inprocess");
    t.initialize();
    EXPECT_EQ(play(t), -1);  // (the violation, unconfirmed: kept out of the corpus)
    EXPECT_EQ(play(t), 0);   // (the glitch is over)
  }
  ::unsetenv("DUALFUZZ_BASELINE");
  EXPECT_DEATH(
      {
        FuzzTarget t(glitch_once(), "inprocess");
        t.initialize();
        play(t);
      },
      "PUT -> 204");
  ::unsetenv("DUALFUZZ_KNOWN_VIOLATIONS");
}

TEST(Baseline, ABaselineTargetThatCannotBeMadeIsAnError) {
  FuzzOptions o;
  o.target = "inprocess";
  o.baseline_target = "not an address";
  auto c = FuzzCampaign::make(http::plugin(), o);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().find("--baseline-target"), std::string::npos) << c.error();
  o.baseline_target = "inprocess";
  o.baseline_replays = 0;
  EXPECT_FALSE(FuzzCampaign::make(http::plugin(), o));
}

}  // namespace
}  // namespace dualfuzz::campaign
