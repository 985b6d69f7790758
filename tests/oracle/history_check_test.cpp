// check_history: partitions searched on several threads give the verdicts,
// explanations and per-partition outcomes of one thread; a partition out of
// budget is Unknown, never a violation.
#include "dualfuzz/oracle/history_check.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "../specs/jepsen_data.h"
#include "dualfuzz/specs/jepsen_history.h"
#include "dualfuzz/specs/kv_store.h"
#include "dualfuzz/specs/register.h"

namespace dualfuzz::oracle {
namespace {
namespace fs = std::filesystem;
using Status = PartitionOutcome::Status;

const fs::path kData = jepsen_data::jepsen_data_dir("kv");
#define REQUIRE_DATA() REQUIRE_JEPSEN_DATA(kData)
using jepsen_data::slurp;

// One kv operation, invoked and completed, on its own process.
std::string op(int process, const char* f, const char* key, const char* value) {
  std::string v = value ? std::string("\"") + value + "\"" : "nil";
  std::string common = std::string(", :f :") + f + ", :key \"" + key + "\", :value ";
  return "{:process " + std::to_string(process) + ", :type :invoke" + common +
         (std::string(f) == "get" ? "nil" : v) + "}\n{:process " +
         std::to_string(process) + ", :type :ok" + common + v + "}\n";
}

// Keys a to e, each written then read; key c's read shows a value never written.
std::string five_keys(bool bad) {
  std::string h;
  int p = 0;
  for (const char* k : {"a", "b", "c", "d", "e"}) {
    h += op(p++, "put", k, "1");
    h += op(p++, "get", k, bad && std::string(k) == "c" ? "2" : "1");
  }
  return h;
}

void expect_same(const HistoryCheck& a, const HistoryCheck& b, const std::string& what) {
  EXPECT_EQ(a.verdict.status, b.verdict.status) << what;
  EXPECT_EQ(a.verdict.event_index, b.verdict.event_index) << what;
  EXPECT_EQ(a.verdict.explanation, b.verdict.explanation) << what;
  ASSERT_EQ(a.partitions.size(), b.partitions.size()) << what;
  for (std::size_t k = 0; k < a.partitions.size(); ++k) {
    EXPECT_EQ(a.partitions[k].key, b.partitions[k].key) << what;
    EXPECT_EQ(a.partitions[k].status, b.partitions[k].status) << what << " " << k;
    EXPECT_EQ(a.partitions[k].explained, b.partitions[k].explained) << what << " " << k;
  }
}

TEST(HistoryCheck, ALinearizableHistoryIsAcceptedOnAnyNumberOfThreads) {
  auto t = specs::parse_jepsen_kv(five_keys(false));
  ASSERT_TRUE(t) << t.error();
  for (unsigned threads : {1u, 2u, 4u}) {
    HistoryCheck c = check_history(specs::kv_store_model(), *t, {}, {threads, true});
    EXPECT_TRUE(c.verdict.accepted()) << threads << c.verdict.explanation;
    ASSERT_EQ(c.partitions.size(), 5u);
    for (const PartitionOutcome& p : c.partitions) {
      EXPECT_EQ(p.status, Status::Explained) << p.key;
      EXPECT_EQ(p.explained, p.events.size()) << p.key;
    }
  }
}

TEST(HistoryCheck, TheFailingPartitionIsNamedWhateverTheThreads) {
  auto t = specs::parse_jepsen_kv(five_keys(true));
  ASSERT_TRUE(t) << t.error();
  const HistoryCheck one = check_history(specs::kv_store_model(), *t, {}, {1, true});
  ASSERT_EQ(one.verdict.status, Verdict::Status::Reject) << one.verdict.explanation;
  // The bad read is key c's response: the 12th event (open/close aside).
  EXPECT_EQ((*t)[one.verdict.event_index].kind, Event::Kind::Response);
  EXPECT_EQ(
      (*t)[one.verdict.event_index].payload().dump().find("\"2\"") != std::string::npos,
      true)
      << (*t)[one.verdict.event_index].payload().dump();
  ASSERT_EQ(one.partitions.size(), 5u);
  for (const PartitionOutcome& p : one.partitions) {
    if (p.key == "c") {
      EXPECT_EQ(p.status, Status::Violated);
      // The write is explained; the read (request, response) is where it stops.
      EXPECT_LT(p.explained, p.events.size());
      EXPECT_EQ(p.events[p.explained], one.verdict.event_index);
    } else {
      EXPECT_EQ(p.status, Status::Explained) << p.key;
    }
  }
  for (unsigned threads : {2u, 3u, 8u}) {
    expect_same(one, check_history(specs::kv_store_model(), *t, {}, {threads, true}),
                "every partition, threads " + std::to_string(threads));
    const HistoryCheck first = check_history(specs::kv_store_model(), *t, {}, {threads});
    EXPECT_EQ(first.verdict.explanation, one.verdict.explanation);
    EXPECT_EQ(first.verdict.event_index, one.verdict.event_index);
  }
  // oracle::check is check_history's verdict.
  EXPECT_EQ(check(specs::kv_store_model(), *t).explanation, one.verdict.explanation);
}

TEST(HistoryCheck, OutOfBudgetIsUnknownNeverAViolation) {
  REQUIRE_DATA();
  auto t = specs::parse_jepsen_kv(slurp(kData / "kv" / "c50-ok.txt"));
  ASSERT_TRUE(t) << t.error();
  OracleOptions tight;
  tight.limits.max_hypotheses = 2;  // a budget of 8 configurations per partition
  for (unsigned threads : {1u, 2u}) {
    HistoryCheck c = check_history(specs::kv_store_model(), *t, tight, {threads, true});
    EXPECT_EQ(c.verdict.status, Verdict::Status::Inconclusive) << c.verdict.explanation;
    bool unknown = false;
    for (const PartitionOutcome& p : c.partitions) {
      EXPECT_NE(p.status, Status::Violated) << p.key;
      unknown = unknown || p.status == Status::Unknown;
    }
    EXPECT_TRUE(unknown);
  }
}

// A deadline (SearchLimits::deadline, set by OracleOptions::time_budget)
// bounds the check in time: past it every search gives up, so even a history
// it would reject is Inconclusive, never a guess.
TEST(HistoryCheck, PastItsDeadlineACheckIsInconclusiveNeverAVerdict) {
  auto t = specs::parse_jepsen_kv(five_keys(true));
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(check(specs::kv_store_model(), *t).status, Verdict::Status::Reject);
  OracleOptions late;
  late.limits.deadline = std::chrono::steady_clock::now();
  for (unsigned threads : {1u, 2u}) {
    HistoryCheck c = check_history(specs::kv_store_model(), *t, late, {threads, true});
    EXPECT_EQ(c.verdict.status, Verdict::Status::Inconclusive) << threads;
    EXPECT_NE(c.verdict.explanation.find("out of time"), std::string::npos)
        << c.verdict.explanation;
  }
}

TEST(HistoryCheck, ATimeBudgetStopsALongCheck) {
  REQUIRE_DATA();
  auto t = specs::parse_jepsen_kv(slurp(kData / "kv" / "c50-ok.txt"));
  ASSERT_TRUE(t) << t.error();
  OracleOptions brief;
  brief.time_budget = std::chrono::milliseconds(1);  // c50-ok takes ~0.4 s
  const Verdict v = check(specs::kv_store_model(), *t, brief);
  EXPECT_EQ(v.status, Verdict::Status::Inconclusive) << v.explanation;
}

// The orders of the depth-first search (SearchLimits::Order), a portfolio:
// oldest first alone needs 62,862 configurations for c50-ok's key 4 and
// 53,752 for key 9, first answered first 186,680 for key 4; with all three,
// some order explains every partition within 20,000.
TEST(HistoryCheck, SomeOrderExplainsEachPartitionOfC50OkWithin20000Configurations) {
  REQUIRE_DATA();
  auto t = specs::parse_jepsen_kv(slurp(kData / "kv" / "c50-ok.txt"));
  ASSERT_TRUE(t) << t.error();
  OracleOptions tight;
  tight.limits.max_hypotheses = 5'000;  // 20,000 configurations per partition and order
  for (unsigned threads : {1u, 2u}) {
    HistoryCheck c = check_history(specs::kv_store_model(), *t, tight, {threads, true});
    EXPECT_TRUE(c.verdict.accepted()) << threads << c.verdict.explanation;
    for (const PartitionOutcome& p : c.partitions)
      EXPECT_EQ(p.status, Status::Explained) << p.key;
  }
}

TEST(HistoryCheck, ARejectedHistoryShowsItsFailingPartitionAndItsLongestPrefix) {
  REQUIRE_DATA();
  auto t = specs::parse_jepsen_kv(slurp(kData / "kv" / "c50-bad.txt"));
  ASSERT_TRUE(t) << t.error();
  const Verdict v = check(specs::kv_store_model(), *t);
  ASSERT_EQ(v.status, Verdict::Status::Reject);
  for (unsigned threads : {1u, 2u}) {
    // Every partition decided (for a chart), in a bounded time: the verdict
    // is the same, and its event ends the longest prefix of its partition.
    const HistoryCheck c =
        check_history(specs::kv_store_model(), *t, {}, {threads, true});
    EXPECT_EQ(c.verdict.explanation, v.explanation);
    int failing = 0;
    for (const PartitionOutcome& p : c.partitions) {
      EXPECT_NE(p.status, Status::Unchecked) << p.key;
      if (p.status == Status::Explained) {
        EXPECT_EQ(p.explained, p.events.size());
      }
      if (p.status != Status::Violated) continue;
      ASSERT_LT(p.explained, p.events.size()) << p.key;
      EXPECT_GT(p.explained, 0u) << p.key;
      failing += p.events[p.explained] == v.event_index;
    }
    EXPECT_EQ(failing, 1) << threads;
  }
}

TEST(HistoryCheck, EveryJepsenVerdictIsTheSameOnOneThreadAndOnSeveral) {
  REQUIRE_DATA();
  int agree = 0, n = 0;
  for (const auto& [name, expected] : jepsen_data::jepsen_verdicts(kData / "etcd")) {
    auto t = specs::parse_jepsen_etcd(slurp(kData / "etcd" / name));
    ASSERT_TRUE(t) << name;
    const HistoryCheck one = check_history(specs::register_model(), *t, {}, {1});
    expect_same(one, check_history(specs::register_model(), *t, {}, {2}), name);
    agree += one.verdict.accepted() == expected &&
             one.verdict.status != Verdict::Status::Inconclusive;
    ++n;
  }
  for (const auto& [name, expected] : jepsen_data::jepsen_verdicts(kData / "kv")) {
    auto t = specs::parse_jepsen_kv(slurp(kData / "kv" / name));
    ASSERT_TRUE(t) << name;
    const HistoryCheck one = check_history(specs::kv_store_model(), *t, {}, {1});
    for (unsigned threads : {2u, 4u})
      expect_same(one, check_history(specs::kv_store_model(), *t, {}, {threads}),
                  name + " threads " + std::to_string(threads));
    agree += one.verdict.accepted() == expected &&
             one.verdict.status != Verdict::Status::Inconclusive;
    ++n;
  }
  EXPECT_EQ(n, 108);
  EXPECT_EQ(agree, 108);
}

TEST(HistoryCheck, TheOnlineOracleReachesTheSameJepsenVerdicts) {
  REQUIRE_DATA();
  int agree = 0, n = 0;
  auto online = [](const ServerModel& m, const std::vector<Event>& t) {
    Oracle o(m);
    for (const Event& e : t)
      if (!o.observe(e).accepted()) break;
    return o.verdict();
  };
  for (const auto& [name, expected] : jepsen_data::jepsen_verdicts(kData / "etcd")) {
    auto t = specs::parse_jepsen_etcd(slurp(kData / "etcd" / name));
    ASSERT_TRUE(t) << name;
    const Verdict v = online(specs::register_model(), *t);
    EXPECT_EQ(v.accepted(), expected) << name << v.explanation;
    agree += v.accepted() == expected && v.status != Verdict::Status::Inconclusive;
    ++n;
  }
  for (const auto& [name, expected] : jepsen_data::jepsen_verdicts(kData / "kv")) {
    auto t = specs::parse_jepsen_kv(slurp(kData / "kv" / name));
    ASSERT_TRUE(t) << name;
    const Verdict v = online(specs::kv_store_model(), *t);
    EXPECT_EQ(v.accepted(), expected) << name << v.explanation;
    agree += v.accepted() == expected && v.status != Verdict::Status::Inconclusive;
    ++n;
  }
  EXPECT_EQ(n, 108);
  EXPECT_EQ(agree, 108);
}

}  // namespace
}  // namespace dualfuzz::oracle
