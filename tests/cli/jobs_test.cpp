// cli/jobs.h: the workers' arguments and the merge of their summaries.
#include "jobs.h"

#include <gtest/gtest.h>

#include "commands.h"

namespace dualfuzz::cli {
namespace {

using Json = nlohmann::json;

TEST(Jobs, AWorkerGetsItsSeedAndNumberAndNoneOfTheParentsOwnOptions) {
  const std::vector<std::string> args{
      "fuzz",    "--target", "127.0.0.1:808{worker}", "--jobs",     "4",      "--seed=9",
      "--chart", "c.html",   "--keep-going",          "--jobs-dir", "/tmp/j", "--seconds",
      "30",      "--jobs=4"};
  const auto w = worker_args(args, 2, 11, "/tmp/j/worker-2.json", "/tmp/j/worker-2.html");
  const std::vector<std::string> expected{"fuzz",
                                          "--target",
                                          "127.0.0.1:8082",
                                          "--keep-going",
                                          "--seconds",
                                          "30",
                                          "--seed",
                                          "11",
                                          "--worker-summary",
                                          "/tmp/j/worker-2.json",
                                          "--chart",
                                          "/tmp/j/worker-2.html"};
  EXPECT_EQ(w, expected);
  // (An option that only begins like a taken one stays.)
  const auto v = worker_args({"fuzz", "--seeds-file", "x"}, 0, 1, "s.json", "");
  EXPECT_EQ(v, (std::vector<std::string>{"fuzz", "--seeds-file", "x", "--seed", "1",
                                         "--worker-summary", "s.json"}));
}

Json finding(const std::string& identity, double first, int count) {
  return {{"kind", "model"},      {"signature", "sig of " + identity},
          {"identity", identity}, {"first_seconds", first},
          {"count", count},       {"script", "req 1 on c0: {}\n"}};
}

WorkerOutcome worker(unsigned i, int exit, Json summary) {
  WorkerOutcome w;
  w.worker = i;
  w.seed = 1 + i;
  w.exit = exit;
  w.summary = std::move(summary);
  return w;
}

TEST(Jobs, SummariesAddUpAndFindingsMergeByIdentity) {
  Json a = {{"executions", 100}, {"messages", 1000}, {"seconds", 10.0},
            {"violation", true}, {"seed", 1},        {"crashes", 1}};
  a["findings"] = Json::array({finding("A", 3.0, 2), finding("B", 5.0, 1)});
  a["violations"] = a["findings"];
  a["races"] = Json::array();
  a["known"] = Json::array({{{"pattern", "model: *"}, {"count", 4}}});
  Json b = {{"executions", 50},
            {"messages", 400},
            {"seconds", 10.5},
            {"violation", true},
            {"seed", 2}};
  b["findings"] = Json::array({finding("A", 1.5, 3), finding("C", 9.0, 1)});
  b["violations"] = b["findings"];
  b["races"] = Json::array();
  b["known"] = Json::array({{{"pattern", "model: *"}, {"count", 1}}});
  const Json m = merge_summaries({worker(0, 1, a), worker(1, 1, b)}, std::nullopt);
  EXPECT_EQ(m["executions"], 150);
  EXPECT_EQ(m["messages"], 1400);
  EXPECT_EQ(m["crashes"], 1);
  EXPECT_DOUBLE_EQ(m["seconds"].get<double>(), 10.5);  // (the longest worker)
  EXPECT_EQ(m["jobs"], 2);
  EXPECT_FALSE(m.contains("seed"));
  ASSERT_EQ(m["findings"].size(), 3u);
  // In order of first sight; A's first occurrence is worker 1's, counts add up.
  EXPECT_EQ(m["findings"][0]["identity"], "A");
  EXPECT_DOUBLE_EQ(m["findings"][0]["first_seconds"].get<double>(), 1.5);
  EXPECT_EQ(m["findings"][0]["count"], 5);
  EXPECT_EQ(m["findings"][0]["workers"], Json::array({0, 1}));
  EXPECT_EQ(m["findings"][1]["identity"], "B");
  EXPECT_EQ(m["findings"][1]["workers"], Json::array({0}));
  EXPECT_EQ(m["findings"][2]["identity"], "C");
  EXPECT_EQ(m["violations"].size(), 3u);
  ASSERT_EQ(m["known"].size(), 1u);
  EXPECT_EQ(m["known"][0]["count"], 5);
  ASSERT_EQ(m["workers"].size(), 2u);
  EXPECT_EQ(m["workers"][1]["executions"], 50);
  EXPECT_EQ(m["workers"][1]["seed"], 2);
}

TEST(Jobs, TwoFindingsOfOneSignatureButOtherIdentitiesStayApart) {
  Json a = {{"executions", 1}};
  a["findings"] = Json::array({finding("A", 1, 1)});
  Json b = {{"executions", 1}};
  Json other = finding("A2", 2, 1);
  other["signature"] = "sig of A";  // (the same quick name, another cause)
  b["findings"] = Json::array({other});
  const Json m = merge_summaries({worker(0, 1, a), worker(1, 1, b)}, std::nullopt);
  EXPECT_EQ(m["findings"].size(), 2u);
}

TEST(Jobs, ARunEndedByAFindingIsTheWinnersWithEveryonesCounters) {
  Json a = {{"executions", 10}, {"seconds", 20.0}, {"violation", false}};
  Json b = {{"executions", 7},
            {"seconds", 2.5},
            {"violation", true},
            {"kind", "model"},
            {"script", "winner's"}};
  const Json m = merge_summaries({worker(0, 0, a), worker(1, 1, b)}, 1u);
  EXPECT_EQ(m["winner"], 1);
  EXPECT_EQ(m["script"], "winner's");
  EXPECT_DOUBLE_EQ(m["seconds"].get<double>(), 2.5);
  EXPECT_EQ(m["executions"], 17);
  EXPECT_TRUE(m["violation"].get<bool>());
}

TEST(Jobs, AWorkerWithoutASummaryIsNamedAndTheExitCodeSaysTheWorst) {
  WorkerOutcome dead;
  dead.worker = 1;
  dead.exit = -1;
  dead.note = "ended by signal 9";
  const Json m = merge_summaries({worker(0, 0, {{"executions", 5}}), dead}, std::nullopt);
  EXPECT_EQ(m["executions"], 5);
  EXPECT_EQ(m["workers"][1]["note"], "ended by signal 9");
  EXPECT_EQ(merged_exit({worker(0, 0, {}), dead}), kInternalError);
  EXPECT_EQ(merged_exit({worker(0, 0, {}), worker(1, 0, {})}), kNoViolation);
  EXPECT_EQ(merged_exit({worker(0, 2, {}), worker(1, 3, {})}), kTrouble);
  EXPECT_EQ(merged_exit({worker(0, 2, {}), worker(1, 1, {})}), kViolation);
}

}  // namespace
}  // namespace dualfuzz::cli
