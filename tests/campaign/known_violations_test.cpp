// The known-violations list (campaign/known_violations.h): its file format,
// its glob matching, and its use by the fuzz loop (`dualfuzz fuzz --known`)
// and the fuzz target ($DUALFUZZ_KNOWN_VIOLATIONS): a listed planted bug
// neither stops them nor becomes a finding, an unlisted one still does.
#include "dualfuzz/campaign/known_violations.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "dualfuzz/campaign/fuzz_loop.h"
#include "dualfuzz/fuzz_target.h"
#include "dualfuzz/http/plugin.h"
#include "race_scripts.h"

namespace dualfuzz::campaign {
namespace {

TEST(GlobMatch, MatchesTheWholeKey) {
  EXPECT_TRUE(glob_match("model: GET -> 200", "model: GET -> 200"));
  EXPECT_FALSE(glob_match("model: GET -> 200", "model: GET if-match -> 200"));
  EXPECT_FALSE(glob_match("model: GET -> 200", "model: GET -> 2000"));
  EXPECT_FALSE(glob_match("model: GET -> 200", "model: GET -> 20"));
  EXPECT_FALSE(glob_match("model: GET", "model: GET -> 200")) << "no prefix match";
}

TEST(GlobMatch, AStarMatchesAnyRunOfCharacters) {
  EXPECT_TRUE(glob_match("model: GET* -> 200", "model: GET -> 200"));  // none
  EXPECT_TRUE(glob_match("model: GET* -> 200", "model: GET if-match -> 200"));
  EXPECT_TRUE(
      glob_match("model: GET* -> 200", "model: GET if-unmodified-since(invalid) -> 200"));
  EXPECT_FALSE(glob_match("model: GET* -> 200", "model: HEAD if-match -> 200"));
  EXPECT_FALSE(glob_match("model: GET* -> 200", "model: GET if-match -> 206"));
  EXPECT_TRUE(glob_match("model: * if-match* -> *", "model: PUT if-match -> 204"));
  EXPECT_TRUE(
      glob_match("model: * if-match* -> *", "model: HEAD if-match if-range -> 206"));
  EXPECT_FALSE(glob_match("model: * if-match* -> *", "model: PUT if-none-match -> 204"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("a**b", "ab"));
  EXPECT_FALSE(glob_match("a*b", "a"));
  // (a star backs up: the first "-> " is not the one that has to match)
  EXPECT_TRUE(glob_match("model: *-> 412", "model: GET -> x -> 412"));
}

TEST(KnownViolations, SkipsCommentsAndBlankLines) {
  auto k = KnownViolations::parse(
      "# lighttpd 1.4.69\n"
      "\n"
      "   model: GET if-match* -> 200   \r\n"
      "\t# indented comment\n"
      "protocol: connection closed in the middle of a response*\n"
      "liveness",
      "list.txt");
  ASSERT_TRUE(k) << k.error();
  ASSERT_EQ(k->entries().size(), 3u);
  EXPECT_EQ(k->entries()[0].pattern, "model: GET if-match* -> 200");
  EXPECT_EQ(k->entries()[0].line, 3u);
  EXPECT_EQ(k->entries()[1].line, 5u);
  EXPECT_EQ(k->entries()[2].pattern, "liveness");
  EXPECT_EQ(k->entries()[2].line, 6u);
  EXPECT_EQ(k->origin(), "list.txt");
}

TEST(KnownViolations, AnEmptyListKnowsNothing) {
  auto k = KnownViolations::parse("# nothing yet\n\n", "x");
  ASSERT_TRUE(k) << k.error();
  EXPECT_TRUE(k->empty());
  EXPECT_FALSE(k->match("model: GET -> 200"));
}

TEST(KnownViolations, MatchesByTheFirstPatternThatFits) {
  auto k = KnownViolations::parse(
      "model: GET if-unmodified-since* -> 200\n"
      "model: * if-match* -> *\n"
      "model: GET* -> 200\n",
      "x");
  ASSERT_TRUE(k) << k.error();
  EXPECT_EQ(k->match("model: GET if-unmodified-since -> 200"), 0u);
  EXPECT_EQ(k->match("model: GET if-unmodified-since(invalid) -> 200"), 0u);
  EXPECT_EQ(k->match("model: GET if-match -> 200"), 1u);
  EXPECT_EQ(k->match("model: GET if-none-match -> 200"), 2u);
  EXPECT_EQ(k->match("model: PUT if-none-match -> 204"), std::nullopt);
  EXPECT_EQ(k->match("model: GET if-none-match -> 304"), std::nullopt);
  EXPECT_EQ(k->match("protocol: bad status line"), std::nullopt);
}

// Each malformed line is an error naming the file and the line.
TEST(KnownViolations, AMalformedLineIsAnErrorWithItsLine) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : {
           Case{"# ok\nGET if-match -> 200\n", "list:2: 'GET if-match -> 200' does not"},
           Case{"model: GET -> 200\n*\n", "list:2: '*' would hide every violation"},
           Case{"***", "list:1: '***' would hide"},
           Case{"model: GET if-match -> 200 after PUT",
                "list:1: 'model: GET if-match "
                "-> 200 after PUT' is a "
                "signature"},
           Case{"model: PUT -> 201 (concurrent)", "is a signature"},
           Case{"model: GET -> 200; then GET", "is a signature"},
           Case{"\n\nmodel: GET\x01 -> 200", "list:3: a control character"},
       }) {
    auto k = KnownViolations::parse(c.text, "list");
    ASSERT_FALSE(k) << c.text;
    EXPECT_NE(k.error().find(c.why), std::string::npos) << k.error();
  }
  // (a NUL inside the text, as a binary file would have)
  auto k = KnownViolations::parse(std::string_view("model: GET\0 -> 200", 18), "bin");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().find("bin:1: a control character"), std::string::npos);
}

TEST(KnownViolations, AFileThatCannotBeReadIsAnError) {
  auto k = KnownViolations::load("/nonexistent/known_violations");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().find("/nonexistent/known_violations"), std::string::npos);
  EXPECT_FALSE(KnownViolations::load("/"));  // a directory
}

// --- the fuzz loop (`dualfuzz fuzz --known`) ---

KnownViolations list(const char* text) {
  auto k = KnownViolations::parse(text, "test");
  EXPECT_TRUE(k) << k.error();
  return k ? *k : KnownViolations();
}

FuzzSummary fuzz(FuzzOptions o) {
  auto c = FuzzCampaign::make(http::plugin(), std::move(o));
  EXPECT_TRUE(c) << c.error();
  if (!c) return {};
  std::mt19937_64 rng(1);
  return (*c)->run(rng, {});
}

// The planted bug `create-204` (a PUT that creates answers 204): on one
// connection its quick keys are `model: PUT... -> 204` and nothing else (on
// more, the model also finds orders of the requests that explain a 204 and
// fail later, under other keys).
constexpr const char* kBug = "inprocess:create-204";

TEST(KnownViolationsInTheFuzzLoop, AnUnlistedBugStopsTheRun) {
  const FuzzSummary s =
      fuzz({.target = kBug,
            .seconds = 30,
            .connections = 1,
            .known = list("model: PUT* -> 201\nmodel: GET* -> 204\nmodel: PUT -> 20\n")});
  ASSERT_TRUE(s.first) << s.counters.executions << " executions";
  EXPECT_EQ(s.first->kind, "model");
  EXPECT_EQ(s.counters.known_violations, 0u);
  EXPECT_EQ(s.known_counts, (std::vector<std::uint64_t>{0, 0, 0}));
}

TEST(KnownViolationsInTheFuzzLoop, AListedBugNeitherStopsTheRunNorIsAFinding) {
  const FuzzSummary s = fuzz({.target = kBug,
                              .seconds = 3,
                              .connections = 1,
                              .known = list("model: GET* -> 204\nmodel: PUT* -> 204\n")});
  EXPECT_FALSE(s.violation());
  EXPECT_GE(s.seconds, 3);
  EXPECT_GT(s.counters.known_violations, 0u);
  EXPECT_EQ(s.known_counts, (std::vector<std::uint64_t>{0, s.counters.known_violations}));
}

TEST(KnownViolationsInTheFuzzLoop, WithKeepGoingAListedBugIsNoFinding) {
  const FuzzSummary s = fuzz({.target = kBug,
                              .seconds = 3,
                              .connections = 1,
                              .keep_going = true,
                              .known = list("model: PUT* -> 204\n")});
  EXPECT_TRUE(s.findings.empty()) << s.findings[0].signature;
  EXPECT_GT(s.counters.known_violations, 0u);
}

// --- the fuzz target ($DUALFUZZ_KNOWN_VIOLATIONS) ---

namespace fs = std::filesystem;

fs::path write_list(const std::string& name, const std::string& text) {
  const fs::path p =
      fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(p) << text;
  return p;
}

const std::string kLost = test_scripts::kLostUpdate;

int play(FuzzTarget& t, const std::string& in) {
  return t.test_one_input(reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
}

class KnownViolationsInTheFuzzTarget : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
  void TearDown() override {
    ::unsetenv("DUALFUZZ_KNOWN_VIOLATIONS");
    for (const fs::path& p : files_) fs::remove(p);
  }
  void use(const std::string& text) {
    files_.push_back(write_list("dualfuzz-known", text));
    ::setenv("DUALFUZZ_KNOWN_VIOLATIONS", files_.back().c_str(), 1);
  }
  std::vector<fs::path> files_;
};

TEST_F(KnownViolationsInTheFuzzTarget, AListedViolationIsCountedNotAbortedOn) {
  use("# the planted bug\nmodel: GET* -> 200\n");
  FuzzTarget t(http::plugin(), "inprocess:lost-update");
  t.initialize();
  EXPECT_EQ(play(t, kLost), -1);  // kept out of the corpus, as keep-going's
  EXPECT_EQ(play(t, kLost), -1);
}

TEST_F(KnownViolationsInTheFuzzTarget, AnUnlistedViolationStillAbortsAndNamesItsKey) {
  use("model: GET* -> 404\nmodel: PUT* -> 200\n");
  EXPECT_DEATH(
      {
        FuzzTarget t(http::plugin(), "inprocess:lost-update");
        t.initialize();
        play(t, kLost);
      },
      "violation key: model: GET -> 200");
}

TEST_F(KnownViolationsInTheFuzzTarget, AMalformedListStopsTheTargetBeforeTheFirstInput) {
  use("model: GET -> 200\nGET -> 403\n");
  EXPECT_EXIT(
      {
        FuzzTarget t(http::plugin(), "inprocess:lost-update");
        t.initialize();
      },
      ::testing::ExitedWithCode(2), "cannot start the fuzz target: .*:2: 'GET -> 403'");
}

}  // namespace
}  // namespace dualfuzz::campaign
