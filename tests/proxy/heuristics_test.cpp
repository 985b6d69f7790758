// The proxy heuristics through the protocol-free mutator: scripts with
// answer steps stay valid under every mutation, and generated answers refer
// to the request they answer.
#include "dualfuzz/proxy/heuristics.h"

#include <gtest/gtest.h>

#include "dualfuzz/harness/jexp.h"
#include "dualfuzz/harness/labelled_trace.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/proxy/protocol.h"

namespace dualfuzz::proxy {
namespace {

TEST(ProxyHeuristics, MutatedScriptsStayValidAndGainAnswerSteps) {
  const harness::Protocol p = protocol();
  mutator::ScriptMutator m(p);
  std::mt19937_64 rng(7);
  std::string text = "req 1 on c0: {\"path\":\"/a\"}\nanswer 3: {\"status\":200}\n";
  std::size_t answers = 0;
  for (int i = 0; i < 3000; ++i) {
    text = m.mutate(text, 4096, rng);
    auto s = harness::parse_script(text, p.functions);
    ASSERT_TRUE(s) << s.error() << "\n" << text;
    ASSERT_FALSE(harness::validate(*s, p.functions)) << text;
    for (const auto& st : s->steps)
      answers += std::holds_alternative<harness::AnswerStep>(st);
  }
  EXPECT_GT(answers, 0u);
}

TEST(ProxyHeuristics, AnswersReferToTheirOwnRequest) {
  std::mt19937_64 rng(1);
  bool referred = false;
  for (int i = 0; i < 50; ++i) {
    harness::Jexp a = generate_answer(rng, 9);
    for (const auto& r : harness::references(a)) {
      EXPECT_EQ(r.label, 9u);
      referred = true;
    }
  }
  EXPECT_TRUE(referred);
}

// A forward proxy's clients also send an absolute-form target with an
// empty path (OPTIONS mostly: forwarded as "*", RFC 9112 §3.2.4), which goes
// out as "http://origin" and keeps out of the run's namespace; a gateway's
// never (an empty origin-form target is no request).
TEST(ProxyHeuristics, AForwardProxyIsSentAnEmptyPathAGatewayNever) {
  for (const Mode mode : {Mode::Forward, Mode::Reverse}) {
    const harness::Protocol p = protocol({.mode = mode, .origin = "127.0.0.1:9"});
    std::mt19937_64 rng(3);
    std::size_t empty = 0, options = 0;
    for (int i = 0; i < 2000; ++i) {
      const harness::Json q =
          harness::evaluate_loose(p.generate_request(rng, {}), {}, p.functions);
      if (q.value("path", harness::Json()) != "") continue;
      ++empty;
      options += q.value("method", harness::Json()) == "OPTIONS";
      const harness::Json spaced = p.namespace_request(q, "dualfuzz-1-2-");
      EXPECT_EQ(spaced["path"], "");
      EXPECT_NE(p.print_request(spaced).find(" http://127.0.0.1:9 HTTP/1.1"),
                std::string::npos)
          << p.print_request(spaced);
    }
    if (mode == Mode::Forward) {
      EXPECT_GT(empty, 0u);
      EXPECT_GT(options, 0u);
    } else {
      EXPECT_EQ(empty, 0u);
    }
  }
}

// Now and then an answer hangs up on what it answers if that is not
// idempotent (what a proxy MUST NOT retry, RFC 9110 §9.2.2), and answers
// anything else as usual: its "abort" is the forward's method, read by
// the protocol's `nonidempotent`.
TEST(ProxyHeuristics, SomeAnswersHangUpOnlyOnWhatMustNotBeRetried) {
  const harness::Protocol p = protocol();
  std::mt19937_64 rng(5);
  std::size_t conditional = 0;
  for (int i = 0; i < 400; ++i) {
    const harness::Jexp a = generate_answer(rng, 9);
    const harness::Jexp* abort = a.find("abort");
    if (!abort || abort->kind() == harness::Jexp::Kind::Scalar) continue;
    ++conditional;
    for (const auto& [method, hangs_up] :
         {std::pair{"POST", true}, std::pair{"PATCH", true}, std::pair{"GET", false},
          std::pair{"PUT", false}, std::pair{"DELETE", false}}) {
      harness::LabelledTrace t;
      t.add(9, harness::kFirstAcceptedConn, {{"method", method}, {"path", "/a"}});
      EXPECT_EQ(harness::is_abort(harness::evaluate_loose(a, t, p.functions)), hangs_up)
          << method;
    }
  }
  EXPECT_GT(conditional, 0u);
}

}  // namespace
}  // namespace dualfuzz::proxy
