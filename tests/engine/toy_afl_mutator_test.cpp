// A library made by DUALFUZZ_AFL_CUSTOM_MUTATOR for the toy protocol,
// loaded as afl-fuzz loads it: it mutates and trims scripts of the toy,
// and knows no other protocol.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dualfuzz/harness/script.h"
#include "support/afl_library.h"
#include "support/toy_protocol.h"

namespace dualfuzz {
namespace {

using testing::AflLibrary;
using testing::AflStateTest;

const AflLibrary& library() {
  static const AflLibrary lib(TOY_AFL_MUTATOR_SO);
  return lib;
}
const harness::FunctionRegistry& fns() {
  static const harness::Protocol p = toy::protocol();
  return p.functions;
}

const std::string kSeed = R"(req 1 on c0: {"key":"a","op":"put","value":"1"}
wait 1
req 3 on c0: {"key":"b","op":"get"}
wait 3
)";

class ToyAflMutator : public AflStateTest {
 protected:
  ToyAflMutator() : AflStateTest(library(), 5) {}
};

TEST_F(ToyAflMutator, FuzzMakesToyScripts) {
  std::string cur = kSeed;
  int changed = 0;
  for (int i = 0; i < 500; ++i) {
    const std::string out = library().fuzz_once(st, cur, &kSeed, 1024);
    ASSERT_GT(out.size(), 0u);
    ASSERT_LE(out.size(), 1024u);
    auto s = harness::parse_script(out, fns());
    ASSERT_TRUE(s) << out << s.error();
    ASSERT_EQ(harness::validate(*s), std::nullopt) << out;
    // Requests of the toy: an "op" in each.
    for (const auto& step : s->steps) {
      if (const auto* r = std::get_if<harness::RequestStep>(&step)) {
        ASSERT_NE(r->body.find("op"), nullptr) << out;
      }
    }
    changed += out != cur;
    cur = i % 50 == 49 ? kSeed : out;
  }
  EXPECT_GT(changed, 400);
  // Garbage in: a generated toy request out.
  const std::string out = library().fuzz_once(st, "\x01\x02", nullptr, 1024);
  EXPECT_NE(out.find("\"op\""), std::string::npos) << out;
}

TEST_F(ToyAflMutator, TrimsStepByStep) {
  std::vector<std::uint8_t> buf(kSeed.begin(), kSeed.end());
  const std::int32_t steps = library().init_trim(st, buf.data(), buf.size());
  EXPECT_EQ(steps, 4) << "two requests, two waits";
  // Keep nothing: every step tried once, the input stays.
  for (std::int32_t at = 0; at < steps;) {
    std::uint8_t* out = nullptr;
    const std::size_t n = library().trim(st, &out);
    ASSERT_NE(out, nullptr);
    ASSERT_LE(n, kSeed.size());
    const std::int32_t next = library().post_trim(st, 0);
    ASSERT_GT(next, at);
    at = next;
  }
}

}  // namespace
}  // namespace dualfuzz
