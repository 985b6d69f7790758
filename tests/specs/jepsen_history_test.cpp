// The outside check: real Jepsen histories with the verdicts Porcupine's test
// suite asserts (../shared/benchdata/jepsen/*/VERDICTS), using the data in place.
#include "dualfuzz/specs/jepsen_history.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "dualfuzz/specs/kv_store.h"
#include "dualfuzz/specs/register.h"
#include "jepsen_data.h"

namespace dualfuzz::specs {
namespace {
namespace fs = std::filesystem;

const fs::path kData = jepsen_data::jepsen_data_dir("etcd");
#define REQUIRE_DATA() REQUIRE_JEPSEN_DATA(kData)
using jepsen_data::slurp;

TEST(JepsenEtcd, ParsesAnInvokeReturnPair) {
  auto t = parse_jepsen_etcd(
      "INFO  jepsen.util - 0\t:invoke\t:cas\t[1 nil]\n"
      "INFO  jepsen.util - 0 :fail :cas [1 nil]\n"
      "INFO  jepsen.util - 1\t:invoke\t:write\t4\n"
      "INFO  jepsen.util - 1\t:info\t:write\t:timed-out\n");
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(t->size(), 6u);
  EXPECT_EQ((*t)[1].payload(), (oracle::Json{{"f", "cas"}, {"value", {1, nullptr}}}));
  EXPECT_EQ((*t)[2].kind, oracle::Event::Kind::Response);
  EXPECT_EQ((*t)[2].label, 2u);
  EXPECT_EQ((*t)[5].kind, oracle::Event::Kind::Close);
}

TEST(JepsenEtcd, RejectsMalformedLinesWithTheirNumber) {
  auto t = parse_jepsen_etcd("INFO  jepsen.util - 0 :invoke :read nil\ngarbage\n");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("line 2"), std::string::npos);
  auto u = parse_jepsen_etcd("INFO  jepsen.util - 0 :ok :read 3\n");
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().find("without a pending invoke"), std::string::npos);
}

TEST(JepsenEtcd, ReproducesEveryPorcupineVerdict) {
  REQUIRE_DATA();
  auto vs = jepsen_data::jepsen_verdicts(kData / "etcd");
  ASSERT_EQ(vs.size(), 102u);
  int agree = 0;
  for (const auto& [name, expected] : vs) {
    auto t = parse_jepsen_etcd(slurp(kData / "etcd" / name));
    ASSERT_TRUE(t) << name << ": " << t.error();
    oracle::Verdict v = oracle::check(register_model(), *t);
    ASSERT_NE(v.status, oracle::Verdict::Status::Inconclusive) << name << v.explanation;
    EXPECT_EQ(v.accepted(), expected) << name << "\n" << v.explanation;
    agree += v.accepted() == expected;
  }
  EXPECT_EQ(agree, 102);
}

TEST(JepsenKv, ReproducesEveryVerdictPartitionedAndNot) {
  REQUIRE_DATA();
  auto vs = jepsen_data::jepsen_verdicts(kData / "kv");
  ASSERT_EQ(vs.size(), 6u);
  for (const auto& [name, expected] : vs) {
    auto t = parse_jepsen_kv(slurp(kData / "kv" / name));
    ASSERT_TRUE(t) << name << ": " << t.error();
    oracle::Verdict v = oracle::check(kv_store_model(), *t);
    EXPECT_EQ(v.accepted(), expected) << name << "\n" << v.explanation;
    // Without partitions the state is the product of all keys: c01 only.
    if (name.rfind("c01", 0) != 0) continue;
    oracle::Verdict u = oracle::check(kv_store_model_unpartitioned(), *t);
    EXPECT_EQ(u.accepted(), expected) << name << " (unpartitioned)\n" << u.explanation;
  }
}

// The kv model decodes each request once (ServerModel::decode) and must
// behave the same when it has to read the JSON itself.
oracle::ServerModel without_decoder(oracle::ServerModel m) {
  m.decode = nullptr;
  return m;
}

TEST(JepsenKv, WithoutItsDecoderTheModelAgrees) {
  REQUIRE_DATA();
  for (const char* name : {"c01-ok.txt", "c01-bad.txt", "c10-ok.txt", "c10-bad.txt"}) {
    auto t = parse_jepsen_kv(slurp(kData / "kv" / name));
    ASSERT_TRUE(t) << name << ": " << t.error();
    const bool expected = oracle::check(kv_store_model(), *t).accepted();
    EXPECT_EQ(oracle::check(without_decoder(kv_store_model()), *t).accepted(), expected)
        << name;
    if (std::string(name).rfind("c01", 0) != 0) continue;
    EXPECT_EQ(
        oracle::check(without_decoder(kv_store_model_unpartitioned()), *t).accepted(),
        expected)
        << name << " (unpartitioned)";
  }
}

// Put, append and get on one process, over six keys (more than the store
// scans for equality before it searches by order): the store reads what was
// last written to each key, "" for a key never written.
TEST(JepsenKv, ReadsWhatWasWrittenToEachKey) {
  std::string ok;
  std::string bad;
  auto op = [](std::string& h, const char* f, const std::string& key, const std::string& in,
               const std::string& out) {
    const bool get = std::string(f) == "get";
    h += "{:process 0, :type :invoke, :f :" + std::string(f) + ", :key \"" + key +
         "\", :value " + (get ? "nil" : "\"" + in + "\"") + "}\n";
    h += "{:process 0, :type :ok, :f :" + std::string(f) + ", :key \"" + key +
         "\", :value \"" + (get ? out : in) + "\"}\n";
  };
  for (std::string* h : {&ok, &bad}) {
    for (const char* k : {"5", "1", "4", "0", "3", "2"}) op(*h, "put", k, std::string("v") + k, "");
    op(*h, "append", "4", "w", "");
    op(*h, "append", "9", "z", "");
    op(*h, "put", "1", "u", "");
  }
  op(ok, "get", "4", "", "v4w");
  op(ok, "get", "9", "", "z");
  op(ok, "get", "1", "", "u");
  op(ok, "get", "7", "", "");
  op(bad, "get", "4", "", "v4");  // (the append is lost)
  for (const std::string* h : {&ok, &bad}) {
    auto t = parse_jepsen_kv(*h);
    ASSERT_TRUE(t) << t.error();
    const bool expected = h == &ok;
    for (const oracle::ServerModel& m :
         {kv_store_model(), kv_store_model_unpartitioned(), without_decoder(kv_store_model()),
          without_decoder(kv_store_model_unpartitioned())}) {
      oracle::Verdict v = oracle::check(m, *t);
      EXPECT_EQ(v.accepted(), expected) << (expected ? "ok" : "bad") << "\n" << v.explanation;
    }
  }
}

}  // namespace
}  // namespace dualfuzz::specs
