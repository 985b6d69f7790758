// The proxy plug-in's judged findings on real proxies
// (protocols/proxy/judgements.json, `--known judged:squid`): well formed,
// each judgement covers the identities its cause was reported under on the
// proxies it names (taken from runs of 2026-11-30), and neither another
// proxy's nor a neighbouring obligation's.
#include "dualfuzz/campaign/judgements.h"

#include <gtest/gtest.h>

#include "dualfuzz/proxy/plugin.h"

namespace dualfuzz::proxy {
namespace {

campaign::Judgements judged() {
  auto j = campaign::Judgements::parse(plugin(Mode::Forward, "").judgements, "proxy");
  EXPECT_TRUE(j) << j.error();
  return j ? *j : campaign::Judgements();
}

constexpr const char* kForward =
    " (RFC 9110 §7.6 (forwarded request: same method, origin-form target, end-to-end "
    "fields and content; §7.6.1 no Connection-listed or hop-by-hop field; §7.6.2 "
    "Max-Forwards decremented; §7.6.3 Via))";

std::string forwarded(const std::string& what) {
  return "model: a forwarded request | " + what + kForward;
}

TEST(ProxyJudgements, AreWellFormedAndNameAClause) {
  const campaign::Judgements j = judged();
  ASSERT_FALSE(j.entries().empty());
  for (const campaign::Judgement& x : j.entries())
    EXPECT_TRUE(x.clause.starts_with("RFC ")) << x.id << ": " << x.clause;
}

TEST(ProxyJudgements, CoverWhatTheirProxiesWereReportedForOnly) {
  const campaign::Judgements j = judged();
  const std::string mf =
      forwarded("response.headers.max-forwards: value expected, value observed");
  const std::string hop =
      forwarded("response.headers.x-hop: absent expected, value observed");
  const std::string e2e =
      forwarded("response.headers.x-e2e: value expected, absent observed");
  const std::string path = forwarded("response.path: value expected, value observed");
  const std::string range =
      "model: PUT {host:other,range:other} -> 2xx | response.status: 200|502|504 "
      "expected, 206 observed (RFC 9110 §7.6 (relayed response: ...)) | with PUT";
  struct Case {
    std::string identity, server, judgement;
  };
  const Case cases[] = {
      {mf, "tinyproxy", "max-forwards-ignored"},
      {mf, "haproxy-via", "max-forwards-ignored"},
      {mf, "squid", "none"},  // Squid decrements it
      {hop, "nginx-via", "connection-listed-forwarded"},
      {hop, "tinyproxy", "none"},
      // A field that must be forwarded and was not is another obligation.
      {e2e, "nginx-via", "none"},
      {forwarded("response.headers.timeout: value expected, absent observed"),
       "tinyproxy", "proxy-connection-names-dropped"},
      {e2e, "tinyproxy", "none"},
      {forwarded("response.cache-directives.vN: value expected, absent observed"),
       "squid", "cache-directive-dropped"},
      {path, "squid", "options-empty-path-slash"},
      {path, "nginx-via", "none"},  // a gateway is sent no absolute-form
      {forwarded("response.method: value expected, value observed" +
                 std::string(kForward) +
                 "; response.path: value expected, value observed"),
       "tinyproxy", "options-empty-path-slash"},
      {range, "apache2", "range-on-non-get"},
      // (A 203 is expected too where the proxy may transform the content.)
      {"model: POST if-match {host:other,if-match:other,range:other} -> 2xx | "
       "response.status: 200|203|502|504 expected, 206 observed (...) | alone",
       "apache2", "range-on-non-get"},
      {range, "squid", "none"},
      // Without a Range it is not that cause.
      {"model: PUT {host:other} -> 2xx | response.status: 200|502|504 expected, "
       "206 observed (...)",
       "apache2", "none"},
      {"model: an answer to a client | response.allow: value expected, absent "
       "observed (RFC 9110 §15.5, §15.6 (...))",
       "nginx-via", "405-without-allow"},
  };
  for (const Case& c : cases) {
    const campaign::Judgement* x = j.match(c.identity, c.server);
    EXPECT_EQ(x ? x->id : std::string("none"), c.judgement)
        << c.server << ": " << c.identity;
  }
}

}  // namespace
}  // namespace dualfuzz::proxy
