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
  // What the client gets is judged and named as before: by its request.
  auto relayed = run("no-via-response", "req 1 on c0: {\"path\":\"/a\"}\n");
  ASSERT_EQ(relayed.outcome, harness::RunResult::Outcome::ModelViolation)
      << relayed.report();
  EXPECT_FALSE(campaign::blamed_on_a_forward(relayed));
  EXPECT_NE(campaign::signature_of(p, relayed), campaign::signature_of(p, get));
}

}  // namespace
}  // namespace dualfuzz::proxy
