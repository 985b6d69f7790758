// Executions isolated against a proxy process: each run's requests carry
// its namespace (proxy::namespace_request), so a request the proxy
// forwards after its run ended (a closed client's pipelined request, sent
// on later, as a proxy may) is told apart in the next run: answered, counted,
// never judged. Both ways: the same forward inside its own run is judged.
#include <gtest/gtest.h>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/proxy/forwarding.h"
#include "dualfuzz/proxy/in_process_transport.h"
#include "dualfuzz/proxy/protocol.h"

namespace dualfuzz::proxy {
namespace {

using harness::Json;
using Outcome = harness::RunResult::Outcome;

TEST(ProxyNamespace, ThePathsFirstSegmentGetsTheRunsPrefix) {
  auto path = [](const std::string& p) {
    return namespace_request({{"method", "GET"}, {"path", p}}, "dualfuzz-7-3-")["path"];
  };
  EXPECT_EQ(path("/a/b"), "/dualfuzz-7-3-a/b");
  EXPECT_EQ(path("http://o.test/a?q"), "http://o.test/dualfuzz-7-3-a?q");
  EXPECT_EQ(path("http://o.test?q"), "http://o.test/dualfuzz-7-3-?q");
  // No resource named: the origin's "*" (RFC 9112 §3.2.4) and "*" stay.
  EXPECT_EQ(path("http://o.test"), "http://o.test");
  EXPECT_EQ(path("*"), "*");
  EXPECT_EQ(namespace_request({{"path", "/a"}}, "")["path"], "/a");
}

TEST(ProxyNamespace, AForwardOfAnotherRunIsToldApart) {
  auto fwd = [](const std::string& p) { return Json{{"method", "GET"}, {"path", p}}; };
  EXPECT_TRUE(of_another_run(fwd("/dualfuzz-7-2-a"), "dualfuzz-7-3-"));
  EXPECT_TRUE(of_another_run(fwd("/dualfuzz-8-1-a"), "dualfuzz-7-3-"));  // another job
  EXPECT_FALSE(of_another_run(fwd("/dualfuzz-7-3-a"), "dualfuzz-7-3-"));
  EXPECT_FALSE(of_another_run(fwd("/a"), "dualfuzz-7-3-"));
  EXPECT_FALSE(of_another_run(fwd("http://o.test/dualfuzz-7-3-a"), "dualfuzz-7-3-"));
  EXPECT_FALSE(of_another_run(fwd("/dualfuzz-7-2-a"), ""));
}

// The reference proxy in process, and before its first output a request
// forwarded on an origin connection of its own that no client of this run
// sent: a proxy forwarding what an earlier run's client had pipelined.
class WithLateForward final : public harness::Transport {
 public:
  WithLateForward(ReferenceProxy& p, std::string late) : in_(p), late_(std::move(late)) {}
  Result<bool> open(harness::ConnId c) override { return in_.open(c); }
  void send(harness::ConnId c, std::string_view b) override {
    if (c == kLateConn) {
      answered_ += std::string(b);
      return;
    }
    in_.send(c, b);
  }
  void close(harness::ConnId c) override {
    if (c != kLateConn) in_.close(c);
  }
  std::vector<Incoming> receive(std::chrono::milliseconds t) override {
    std::vector<Incoming> in;
    if (!late_.empty()) in.push_back({kLateConn, std::exchange(late_, ""), false, {}});
    for (auto& x : in_.receive(t)) in.push_back(std::move(x));
    return in;
  }
  const std::string& answered() const { return answered_; }

 private:
  static constexpr harness::ConnId kLateConn = harness::kFirstAcceptedConn + 9;
  InProcessTransport in_;
  std::string late_;
  std::string answered_;
};

harness::RunResult run_with_late(
    const std::string& run_namespace, std::string* answered,
    std::string late =
        "GET /dualfuzz-7-2-old HTTP/1.1\r\nHost: origin.test\r\n"
        "Via: 1.1 p\r\n\r\n",
    const std::string& text = "req 1 on c0: {\"path\":\"/a\"}\n") {
  ReferenceProxy proxy(ReferenceOptions{});
  WithLateForward t(proxy, std::move(late));
  const harness::Protocol p = protocol();
  auto script = harness::parse_script(text, p.functions);
  EXPECT_TRUE(script) << script.error();
  harness::RunOptions o;
  o.run_namespace = run_namespace;
  harness::Executor ex(p, t, o);
  auto r = ex.run(*script);
  *answered = t.answered();
  return r;
}

TEST(LateForward, AnEarlierRunsForwardIsAnsweredNotJudged) {
  std::string answered;
  auto r = run_with_late("dualfuzz-7-3-", &answered);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
  EXPECT_EQ(r.late_forwards, 1u);
  EXPECT_NE(answered.find("HTTP/1.1 200"), std::string::npos) << answered;
  EXPECT_NE(r.detail.find("earlier executions"), std::string::npos) << r.detail;
}

// Its own run's: a forward no client of the run sent, judged as one.
TEST(LateForward, TheSameForwardInItsOwnRunIsJudged) {
  std::string answered;
  auto r = run_with_late("dualfuzz-7-2-", &answered);
  EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report();
  EXPECT_EQ(r.late_forwards, 0u);
  // Named by the forwarding obligation, not only as nothing outstanding.
  bool named = false;
  for (const oracle::Reason& x : r.verdict.reasons)
    if (x.kind == oracle::Reason::Kind::NothingOutstanding) {
      EXPECT_EQ(x.clause, kUnexplainedForwardClause);
      named = true;
    }
  EXPECT_TRUE(named) << r.report();
}

// A forward that names no run at all ("*": an absolute-form OPTIONS with an
// empty path, which no namespace can go in, without its x-dualfuzz-run) is
// an earlier run's when this run sent nothing outside its namespace.
TEST(LateForward, AForwardNamingNoRunIsAnEarlierRunsUnlessThisRunSentOne) {
  const std::string star =
      "OPTIONS * HTTP/1.1\r\nHost: origin.test\r\nVia: 1.1 p\r\n\r\n";
  std::string answered;
  auto r = run_with_late("dualfuzz-7-3-", &answered, star);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
  EXPECT_EQ(r.late_forwards, 1u);
  // Also in a run that sent its own OPTIONS with an empty path: that one
  // named its run in the field.
  const std::string empty_options =
      "req 1 on c0: {\"method\":\"OPTIONS\",\"path\":\"\"}\n";
  r = run_with_late("dualfuzz-7-3-", &answered, star, empty_options);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
  EXPECT_EQ(r.late_forwards, 1u);
  // One that names this run is judged: a second forward of one request.
  r = run_with_late("dualfuzz-7-3-", &answered,
                    "OPTIONS * HTTP/1.1\r\nHost: origin.test\r\nVia: 1.1 p\r\n"
                    "X-Dualfuzz-Run: dualfuzz-7-3-\r\n\r\n",
                    empty_options);
  EXPECT_EQ(r.late_forwards, 0u);
  EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report();
  // An empty path names its run in a field: an earlier run's forward is
  // told apart by it, even in a run that sent an empty path of its own.
  const std::string slash =
      "GET / HTTP/1.1\r\nHost: origin.test\r\nVia: 1.1 p\r\n"
      "X-Dualfuzz-Run: dualfuzz-7-2-\r\n\r\n";
  const std::string empty_get = "req 1 on c0: {\"path\":\"\"}\n";
  r = run_with_late("dualfuzz-7-3-", &answered, slash, empty_get);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
  EXPECT_EQ(r.late_forwards, 1u);
  r = run_with_late("dualfuzz-7-2-", &answered, slash, empty_get);
  EXPECT_EQ(r.late_forwards, 0u);
  EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report();
}

}  // namespace
}  // namespace dualfuzz::proxy
