// The reference proxy played by the executor through its in-process
// transport: the correct proxy passes scripts that exercise every
// obligation, and each planted bug is caught by a script aimed at it.
#include "dualfuzz/proxy/reference_proxy.h"

#include <gtest/gtest.h>

#include <optional>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/proxy/in_process_transport.h"
#include "dualfuzz/proxy/protocol.h"

namespace dualfuzz::proxy {
namespace {

// Each bug with a script that shows it (and that the correct proxy passes).
// Answers whose bytes matter carry no-transform: without it a proxy MAY
// change them (RFC 9110 §7.7).
const std::map<std::string, std::string>& aimed() {
  static const std::map<std::string, std::string> m = {
      {"connection-listed",
       R"(req 1 on c0: {"path":"/a","headers":{"connection":"x-hop","x-hop":"1"}})"},
      {"hop-by-hop",
       R"(req 1 on c0: {"path":"/a","headers":{"connection":"keep-alive","keep-alive":"timeout=5"}})"},
      {"response-hop-by-hop",
       "req 1 on c0: {\"path\":\"/a\"}\n"
       R"(answer 3: {"status":200,"headers":{"connection":"x-o","x-o":"1"},"body":"b"})"},
      {"max-forwards-ignored",
       R"(req 1 on c0: {"method":"OPTIONS","path":"/a","headers":{"max-forwards":"1"}})"},
      {"no-via", R"(req 1 on c0: {"path":"/a"})"},
      {"no-via-response", R"(req 1 on c0: {"path":"/a"})"},
      {"method-rewrite", R"(req 1 on c0: {"method":"HEAD","path":"/a"})"},
      {"cross-talk",
       "req 1 on c0: {\"path\":\"/a\"}\nreq 3 on c1: {\"path\":\"/bb\"}\n"
       R"(answer 5: {"status":200,"headers":{"cache-control":"no-transform"},"body":5.(this@"path").id})"},
      {"drop-pipelined",
       "req 1 on c0: {\"path\":\"/a\"}\nreq 3 on c0: {\"path\":\"/b\"}"},
      {"chunked-body-lost",
       "req 1 on c0: {\"path\":\"/a\"}\n"
       R"(answer 3: {"status":200,"headers":{"cache-control":"no-transform"},"body":"two chunks","chunked":true})"},
      {"out-of-order",
       "req 1 on c0: {\"path\":\"/a\"}\nreq 3 on c0: {\"path\":\"/b\"}\n"
       R"(answer 7: {"status":200,"headers":{"cache-control":"no-transform"},"body":"second"})"
       "\n"
       R"(answer 5: {"status":200,"headers":{"cache-control":"no-transform"},"body":"first"})"},
      {"host-kept", R"(req 1 on c0: {"path":"/a","headers":{"host":"elsewhere"}})"},
      {"conditional-dropped",
       R"(req 1 on c0: {"path":"/a","headers":{"if-none-match":"\"x\""}})"},
  };
  return m;
}

harness::RunResult run(const std::string& bug, const std::string& text,
                       std::optional<std::size_t> depth_first_after = std::nullopt) {
  const harness::Protocol p = protocol();
  auto script = harness::parse_script(text, p.functions);
  EXPECT_TRUE(script) << script.error();
  ReferenceProxy proxy({.bug = bug});
  InProcessTransport t(proxy);
  harness::RunOptions o;
  o.check_liveness = true;
  if (depth_first_after) o.oracle_options.limits.depth_first_after = *depth_first_after;
  harness::Executor ex(p, t, o);
  return ex.run(*script);
}

TEST(ReferenceProxy, EveryPlantedBugHasAnAimedScript) {
  EXPECT_GE(planted_bugs().size(), 10u);
  for (const auto& b : planted_bugs()) EXPECT_TRUE(aimed().count(b.name)) << b.name;
  EXPECT_THROW(ReferenceProxy({.bug = "nope"}), std::invalid_argument);
}

TEST(ReferenceProxy, CorrectProxyPassesEveryAimedScript) {
  for (const auto& [bug, text] : aimed()) {
    auto r = run("", text);
    EXPECT_EQ(r.outcome, harness::RunResult::Outcome::Pass) << bug << "\n" << r.report();
  }
}

TEST(ReferenceProxy, EachPlantedBugIsCaught) {
  for (const auto& [bug, text] : aimed()) {
    auto r = run(bug, text);
    EXPECT_TRUE(r.violation()) << bug << "\n" << r.report();
  }
}

// Against a proxy the search goes depth-first early (Executor::
// kForwardingBreadth); a rejection found so is explained breadth-first
// again, as one found breadth-first is: the same event, the same reasons.
TEST(ReferenceProxy, ADepthFirstRejectionIsExplainedAsABreadthFirstOne) {
  for (const auto& [bug, text] : aimed()) {
    auto wide = run(bug, text, 0), deep = run(bug, text, 1);
    ASSERT_TRUE(wide.violation() && deep.violation()) << bug;
    if (wide.outcome != harness::RunResult::Outcome::ModelViolation) continue;
    EXPECT_EQ(deep.verdict.event_index, wide.verdict.event_index) << bug;
    // (The whole-trace check does not count the explanations alive before.)
    auto reasons = [](const std::string& d) { return d.substr(d.find("died because")); };
    ASSERT_NE(deep.detail.find("died because"), std::string::npos) << deep.detail;
    EXPECT_EQ(reasons(deep.detail), reasons(wide.detail)) << bug;
  }
}

TEST(ReferenceProxy, TraceShowsBothSides) {
  auto r = run("", aimed().at("chunked-body-lost"));
  ASSERT_EQ(r.outcome, harness::RunResult::Outcome::Pass) << r.report();
  const std::string rep = r.report(protocol());
  EXPECT_NE(rep.find("c0 > 1 GET http://origin.test/a"), std::string::npos) << rep;
  EXPECT_NE(rep.find("o1 < 3 GET /a"), std::string::npos) << rep;
  EXPECT_NE(rep.find("o1 > 4 200"), std::string::npos) << rep;
  EXPECT_NE(rep.find("c0 < 2 200"), std::string::npos) << rep;
}

// The tester as an origin that hangs up instead of answering: the proxy's
// 502 is correct; the forward is recorded, the abort too, and nothing is
// sent on the connection.
TEST(ReferenceProxy, AnOriginThatHangsUpGetsThe502ItCauses) {
  auto r = run("",
               "req 1 on c0: {\"method\":\"POST\",\"path\":\"/a\",\"body\":\"x\"}\n"
               "answer 3: {\"abort\":true}\nwait 1\n");
  ASSERT_EQ(r.outcome, harness::RunResult::Outcome::Pass) << r.report();
  const std::string rep = r.report(protocol());
  EXPECT_NE(rep.find("o1 < 3 POST /a"), std::string::npos) << rep;
  EXPECT_NE(rep.find("c0 < 2 502"), std::string::npos) << rep;
}

// A response queued for a connection the client closed never reaches the
// connection reopened under the same number (found by fuzzing: a false
// alarm of the in-process transport, not of the model).
TEST(ReferenceProxy, ClosedClientGetsNothingOnItsSuccessor) {
  auto r = run(
      "", "req 1 on c1: {\"path\":\"/x\"}\nclose c1\nreq 3 on c1: {\"path\":\"/x\"}\n");
  EXPECT_EQ(r.outcome, harness::RunResult::Outcome::Pass) << r.report();
}

// Bad input: a proxy that sends garbage to the origin is a protocol
// violation, not a crash; a proxy that hangs up is no violation.
class GarbageTransport final : public harness::Transport {
 public:
  Result<bool> open(harness::ConnId) override { return true; }
  void send(harness::ConnId c, std::string_view) override { sent_ = c; }
  void close(harness::ConnId) override {}
  std::vector<Incoming> receive(std::chrono::milliseconds) override {
    if (done_) return {};
    done_ = true;
    return {{harness::kFirstAcceptedConn, "NOT HTTP\r\n\r\n", false, {}}};
  }

 private:
  bool done_ = false;
  harness::ConnId sent_ = 0;
};

TEST(ReferenceProxy, GarbageFromTheProxyIsAProtocolViolation) {
  const harness::Protocol p = protocol();
  auto script = harness::parse_script("req 1 on c0: {\"path\":\"/a\"}\n", p.functions);
  GarbageTransport t;
  harness::Executor ex(p, t);
  auto r = ex.run(*script);
  EXPECT_EQ(r.outcome, harness::RunResult::Outcome::ProtocolViolation) << r.report();
  EXPECT_NE(r.detail.find("origin o1"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace dualfuzz::proxy
