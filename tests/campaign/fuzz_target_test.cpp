// The fuzz target's keep policy: an input whose check cost the oracle more
// than DUALFUZZ_KEEP_EXPLORED configurations is played (a violation in it
// still aborts) but kept out of the corpus (-1); by default a cheap,
// conclusive input is kept (0), and so is every conclusive one with 0.
#include "dualfuzz/fuzz_target.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "dualfuzz/harness/script.h"
#include "dualfuzz/http/plugin.h"
#include "race_scripts.h"

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

// Keep-going with a findings directory: each distinct violation once, its
// script replayable (it parses back), a correct input writes nothing; a
// violating input is not kept for the corpus.
TEST(FuzzTarget, KeepGoingWritesEachDistinctFindingOnce) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("dualfuzz-findings-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("DUALFUZZ_KEEP_GOING", "1", 1);
  ::setenv("DUALFUZZ_FINDINGS", dir.c_str(), 1);
  const std::string lost = campaign::test_scripts::kLostUpdate;
  {
    FuzzTarget t(http::plugin(), "inprocess:lost-update");
    auto one = [&](const std::string& in) {
      return t.test_one_input(reinterpret_cast<const std::uint8_t*>(in.data()),
                              in.size());
    };
    EXPECT_EQ(one(kScript), 0);  // no violation: nothing written
    EXPECT_FALSE(fs::exists(dir / "findings.jsonl"));
    // A violation, not aborted on, and kept out of the corpus (-1), as
    // an aborting campaign never keeps its crashing input.
    EXPECT_EQ(one(lost), -1);
    EXPECT_EQ(one(lost), -1);  // the same one again: not written again
  }
  ::unsetenv("DUALFUZZ_KEEP_GOING");
  ::unsetenv("DUALFUZZ_FINDINGS");
  std::ifstream index(dir / "findings.jsonl");
  std::string line, rest;
  ASSERT_TRUE(std::getline(index, line));
  EXPECT_FALSE(std::getline(index, rest)) << rest;
  auto j = harness::Json::parse(line);
  EXPECT_EQ(j["index"], 1);
  EXPECT_EQ(j["file"], "finding-1.txt");
  EXPECT_NE(j["key"].get<std::string>().find("GET"), std::string::npos) << line;
  std::stringstream text;
  text << std::ifstream(dir / "finding-1.txt").rdbuf();
  const auto& fns = http::plugin().protocol.functions;
  auto parsed = harness::parse_script(text.str(), fns);
  ASSERT_TRUE(parsed) << text.str();
  EXPECT_EQ(harness::print_script(*parsed),
            harness::print_script(*harness::parse_script(lost, fns)));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dualfuzz
