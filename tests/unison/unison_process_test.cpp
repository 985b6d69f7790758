// The real Unison through the harness (skipped where `unison` is not
// installed): a correct sync passes; with fastcheck, a write that keeps
// the file's timestamp and size goes unseen and the oracle rejects the
// trace (thesis §6.2.2); a hanging or crashing synchronizer is a reported
// result, judged by the model, never a crash of the harness.
#include "dualfuzz/unison/unison_process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "play.h"

namespace dualfuzz::unison {
namespace {
using testing::passes;
using testing::play;

bool have_unison() { return std::system("unison -version >/dev/null 2>&1") == 0; }

harness::RunResult run(UnisonOptions o, const std::string& script) {
  SyncTransport t(SyncTransport::Replicas::Disk, std::make_unique<UnisonProcess>(o));
  return play(t, script);
}

constexpr const char* kUnseenWrite = R"(
req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"mkdir","replica":"A","path":"b"}
req 5 on c0: {"op":"sync"}
req 7 on c0: {"op":"write","replica":"B","path":"a","content":"y","same_time":true}
req 9 on c0: {"op":"chmod","replica":"B","path":"b","mode":"700"}
req 11 on c0: {"op":"sync"}
)";

TEST(UnisonProcess, WithoutFastcheckEveryWriteIsSeen) {
  if (!have_unison()) GTEST_SKIP() << "unison is not installed";
  const harness::RunResult r = run({}, kUnseenWrite);
  EXPECT_TRUE(passes(r)) << r.report(protocol());
}

// Thesis §6.2.2: with fastcheck Unison misses the rewrite (B's "y" stays
// in B only). Documented (manual, "fastcheck"); the model allows it because
// the answer says fastcheck — model_test rejects the same miss without.
TEST(UnisonProcess, WithFastcheckASameTimestampWriteIsMissedAsDocumented) {
  if (!have_unison()) GTEST_SKIP() << "unison is not installed";
  UnisonOptions o;
  o.fastcheck = true;
  const harness::RunResult r = run(o, kUnseenWrite);
  EXPECT_TRUE(passes(r)) << r.report(protocol());
  ASSERT_EQ(r.trace.messages().size(), 12u);
  const harness::Json& last = r.trace.messages().back().ir;
  EXPECT_EQ(last["fastcheck"], true);
  EXPECT_EQ(last["A"]["a"]["content"], "x");  // the miss, observed
  EXPECT_EQ(last["B"]["a"]["content"], "y");
}

// A stand-in for unison: a shell script.
class FakeBinary {
 public:
  explicit FakeBinary(const std::string& body) : path_(dir_.path() + "/fake-unison") {
    std::ofstream(path_) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path_.c_str(), 0755);
  }
  const std::string& path() const { return path_; }

 private:
  TempDir dir_;
  std::string path_;
};

constexpr const char* kOneSync = R"(
req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"sync"}
)";

TEST(UnisonProcess, AHangIsKilledAndReported) {
  FakeBinary hang("sleep 30");
  UnisonOptions o;
  o.binary = hang.path();
  o.timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const harness::RunResult r = run(o, kOneSync);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation);
  ASSERT_EQ(r.trace.messages().size(), 4u);
  EXPECT_EQ(r.trace.messages()[3].ir["exit"], -1);
}

TEST(UnisonProcess, ACrashAndAMissingBinaryAreReported) {
  FakeBinary crash("kill -SEGV $$");
  UnisonOptions o;
  o.binary = crash.path();
  harness::RunResult r = run(o, kOneSync);
  ASSERT_EQ(r.trace.messages().size(), 4u);
  EXPECT_EQ(r.trace.messages()[3].ir["exit"], 128 + 11);
  EXPECT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation);
  o.binary = "/nonexistent/unison";
  r = run(o, kOneSync);
  ASSERT_EQ(r.trace.messages().size(), 4u);
  EXPECT_EQ(r.trace.messages()[3].ir["exit"], 127);
}

TEST(UnisonProcess, TheCommandIsBatchWithThePreferences) {
  UnisonOptions o;
  o.fastcheck = true;
  const auto c = UnisonProcess(o).command("/x/A", "/x/B");
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(c[1], "/x/A");
  EXPECT_EQ(c[2], "/x/B");
  EXPECT_NE(std::find(c.begin(), c.end(), "-batch"), c.end());
  auto f = std::find(c.begin(), c.end(), "-fastcheck");
  ASSERT_NE(f, c.end());
  EXPECT_EQ(*(f + 1), "true");
}

}  // namespace
}  // namespace dualfuzz::unison
