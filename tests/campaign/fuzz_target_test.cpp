// The fuzz target's keep policy: an input whose check cost the oracle more
// than DUALFUZZ_KEEP_EXPLORED configurations is played (a violation in it
// still aborts) but kept out of the corpus (-1); by default a cheap,
// conclusive input is kept (0), and so is every conclusive one with 0.
#include "dualfuzz/fuzz_target.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "dualfuzz/http/plugin.h"

namespace dualfuzz {
namespace {

const std::string kScript = R"(req 1 on c0: {"method":"PUT","path":"/doc","body":"v1"}
req 3 on c1: {"method":"GET","path":"/doc"}
req 5 on c0: {"method":"PUT","path":"/doc","body":"v2"}
req 7 on c1: {"method":"GET","path":"/doc"}
)";

int play(const char* keep_explored, const std::string& input) {
  ::setenv("DUALFUZZ_KEEP_EXPLORED", keep_explored, 1);
  FuzzTarget t(http::plugin(), "inprocess");
  ::unsetenv("DUALFUZZ_KEEP_EXPLORED");
  return t.test_one_input(reinterpret_cast<const std::uint8_t*>(input.data()),
                          input.size());
}

TEST(FuzzTarget, KeepsACheapConclusiveInput) {
  EXPECT_EQ(play("", kScript), 0);   // the default, kKeepExplored
  EXPECT_EQ(play("0", kScript), 0);  // no limit
}

TEST(FuzzTarget, RejectsAnInputThatCostTooMuch) {
  // Two connections racing on one path explore more than one configuration.
  EXPECT_EQ(play("1", kScript), -1);
}

TEST(FuzzTarget, RejectsWhatIsNoScript) { EXPECT_EQ(play("", "not a script {"), -1); }

}  // namespace
}  // namespace dualfuzz
