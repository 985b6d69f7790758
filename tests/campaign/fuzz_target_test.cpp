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

#include "dualfuzz/campaign/player.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/http/plugin.h"
#include "race_scripts.h"
#include "wrapped_server.h"

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

// The reference server with every Content-Type line taken out of its
// answers: RFC 9110 §8.3's SHOULD broken, every MUST kept.
class NoContentType final : public campaign::ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  std::vector<Incoming> receive(std::chrono::milliseconds timeout) override {
    std::vector<Incoming> in = t_.receive(timeout);
    for (Incoming& i : in)
      for (std::size_t at; (at = i.bytes.find("Content-Type: ")) != std::string::npos;)
        i.bytes.erase(at, i.bytes.find("\r\n", at) + 2 - at);
    return in;
  }
};
campaign::Plugin no_content_type() {
  return campaign::wrapped<NoContentType>(http::plugin());
}

// An advisory (a broken SHOULD) is neither a crash nor a finding: the input
// is kept like any correct one. (An abort here would end the test binary.)
TEST(FuzzTarget, AnAdvisoryIsNoCrash) {
  const std::string s =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"hello\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n";
  auto player = campaign::Player::make(no_content_type(), "inprocess");
  ASSERT_TRUE(player) << player.error();
  const harness::RunResult r = (*player)->play(*(*player)->parse(s));
  EXPECT_FALSE(r.violation()) << r.detail;
  ASSERT_TRUE(r.advisory) << "the SHOULD was kept: nothing tested";
  EXPECT_NE(r.advisory_rule.find("RFC 9110 §8.3"), std::string::npos) << r.advisory_rule;
  ::setenv("DUALFUZZ_KEEP_EXPLORED", "", 1);
  FuzzTarget t(no_content_type(), "inprocess");
  ::unsetenv("DUALFUZZ_KEEP_EXPLORED");
  EXPECT_EQ(t.test_one_input(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()),
            0);
}

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
