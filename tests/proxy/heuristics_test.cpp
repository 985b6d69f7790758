// The proxy heuristics through the protocol-free mutator: scripts with
// answer steps stay valid under every mutation, and generated answers refer
// to the request they answer.
#include "dualfuzz/proxy/heuristics.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dualfuzz::proxy
