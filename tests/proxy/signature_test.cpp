// A proxy's findings named by the obligation they break: a forward that
// lacks Via is one finding whatever client request it forwarded; a relayed
// response that lacks it is another.
#include "dualfuzz/campaign/signature.h"

#include <gtest/gtest.h>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/proxy/in_process_transport.h"
#include "dualfuzz/proxy/protocol.h"

namespace dualfuzz::proxy {
namespace {

harness::RunResult run(const std::string& bug, const std::string& text) {
  ReferenceProxy proxy(ReferenceOptions{bug, Mode::Forward});
  InProcessTransport t(proxy);
  const harness::Protocol p = protocol();
  auto script = harness::parse_script(text, p.functions);
  EXPECT_TRUE(script) << script.error();
  harness::Executor ex(p, t);
  return ex.run(*script);
}

TEST(ProxySignature, AForwardIsNamedByTheObligationItBreaks) {
  const harness::Protocol p = protocol();
  auto get = run("no-via", "req 1 on c0: {\"path\":\"/a\"}\n");
  auto put = run("no-via",
                 "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/b\",\"body\":\"x\","
                 "\"headers\":{\"if-match\":\"\\\"1\\\"\"}}\n");
  ASSERT_EQ(get.outcome, harness::RunResult::Outcome::ModelViolation) << get.report();
  ASSERT_EQ(put.outcome, harness::RunResult::Outcome::ModelViolation) << put.report();
  EXPECT_TRUE(campaign::signature_of(p, get).starts_with("model: a forwarded request | "))
      << campaign::signature_of(p, get);
  EXPECT_NE(campaign::signature_of(p, get).find("via"), std::string::npos);
  EXPECT_EQ(campaign::signature_of(p, get), campaign::signature_of(p, put));
  EXPECT_EQ(campaign::identity_of(p, get), campaign::identity_of(p, put));
  // What the client gets is another obligation, another name.
  auto relayed = run("no-via-response", "req 1 on c0: {\"path\":\"/a\"}\n");
  ASSERT_EQ(relayed.outcome, harness::RunResult::Outcome::ModelViolation)
      << relayed.report();
  EXPECT_FALSE(campaign::blamed_on_a_forward(relayed));
  EXPECT_NE(campaign::signature_of(p, relayed), campaign::signature_of(p, get));
}

// A relayed answer wrong in a field is named by the obligation too, whatever
// the request and the origin's status; two obligations stay two names; a
// body relayed wrong stays named by its request.
TEST(ProxySignature, ARelayWrongInAFieldIsNamedByTheObligationItBreaks) {
  const harness::Protocol p = protocol();
  const std::string get_a = "req 1 on c0: {\"path\":\"/a\"}\n";
  const std::string put_b =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/b\",\"body\":\"x\"}\n";
  auto get = run("no-via-response", get_a);
  auto put = run("no-via-response", put_b);
  ASSERT_EQ(get.outcome, harness::RunResult::Outcome::ModelViolation) << get.report();
  ASSERT_EQ(put.outcome, harness::RunResult::Outcome::ModelViolation) << put.report();
  const std::string id = campaign::identity_of(p, get);
  EXPECT_TRUE(id.starts_with("model: an answer to a client | ")) << id;
  EXPECT_NE(id.find("via"), std::string::npos) << id;
  EXPECT_EQ(id, campaign::identity_of(p, put));
  EXPECT_EQ(campaign::signature_of(p, get), campaign::signature_of(p, put));
  // Another field, another obligation: the origin's Connection-listed field
  // relayed.
  auto hop = run("response-hop-by-hop",
                 get_a + R"(answer 3: {"status":200,"headers":{"connection":"x-o","x-o":"1"},"body":"b"})");
  ASSERT_EQ(hop.outcome, harness::RunResult::Outcome::ModelViolation) << hop.report();
  EXPECT_TRUE(campaign::identity_of(p, hop).starts_with("model: an answer to a client | "))
      << campaign::identity_of(p, hop);
  EXPECT_NE(campaign::identity_of(p, hop).find("x-o"), std::string::npos)
      << campaign::identity_of(p, hop);
  EXPECT_NE(campaign::identity_of(p, hop), id);
  // The content relayed to the wrong client: named by its requests.
  auto crossed = run(
      "cross-talk",
      "req 1 on c0: {\"path\":\"/a\"}\nreq 3 on c1: {\"path\":\"/bb\"}\n"
      R"(answer 5: {"status":200,"headers":{"cache-control":"no-transform"},"body":5.(this@"path").id})");
  ASSERT_EQ(crossed.outcome, harness::RunResult::Outcome::ModelViolation)
      << crossed.report();
  EXPECT_FALSE(
      campaign::identity_of(p, crossed).starts_with("model: an answer to a client"))
      << campaign::identity_of(p, crossed);
}

// A forward that breaks an obligation while another client request of
// another method is in flight: the explanations that paired it with that
// request died at its method, which is no part of the finding. Its name is
// the one the forward gets alone; a forward of the wrong method keeps its
// own name.
TEST(ProxySignature, AForwardIsNotNamedByTheRequestsBesideIt) {
  const harness::Protocol p = protocol();
  const std::string post =
      "req 1 on c0: {\"method\":\"POST\",\"path\":\"/b\",\"body\":\"x\","
      "\"headers\":{\"connection\":\"x-hop\",\"x-hop\":\"1\"}}\n";
  auto alone = run("connection-listed", post);
  auto beside = run("connection-listed", post + "req 3 on c1: {\"path\":\"/a\"}\n");
  ASSERT_EQ(alone.outcome, harness::RunResult::Outcome::ModelViolation) << alone.report();
  ASSERT_EQ(beside.outcome, harness::RunResult::Outcome::ModelViolation)
      << beside.report();
  ASSERT_TRUE(campaign::blamed_on_a_forward(beside)) << beside.report();
  bool method_reason = false;  // (the case this test is about)
  for (const auto& x : beside.reasons())
    method_reason = method_reason || x.location == "response.method";
  ASSERT_TRUE(method_reason) << beside.report();
  EXPECT_EQ(campaign::identity_of(p, beside), campaign::identity_of(p, alone));
  EXPECT_NE(campaign::identity_of(p, alone).find("x-hop"), std::string::npos)
      << campaign::identity_of(p, alone);
  auto rewritten = run("method-rewrite",
                       "req 1 on c0: {\"method\":\"HEAD\",\"path\":\"/b\"}\n"
                       "req 3 on c1: {\"path\":\"/a\"}\n");
  ASSERT_EQ(rewritten.outcome, harness::RunResult::Outcome::ModelViolation)
      << rewritten.report();
  EXPECT_NE(campaign::identity_of(p, rewritten).find("response.method"),
            std::string::npos)
      << campaign::identity_of(p, rewritten);
}

}  // namespace
}  // namespace dualfuzz::proxy
