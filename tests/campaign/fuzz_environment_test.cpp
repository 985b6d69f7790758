// The DUALFUZZ_* variables, parsed in one place (FuzzEnvironment): the
// defaults of an empty environment, each variable's accepted and refused
// values, and the two checks that keep it the one place: every variable is
// documented in docs/environment.md, and no other source file reads one.
#include "dualfuzz/campaign/fuzz_environment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "dualfuzz/campaign/player.h"

namespace dualfuzz::campaign {
namespace {

namespace fs = std::filesystem;

// A fake environment: only `vars` are set.
FuzzEnvironment with(const std::map<std::string, std::string>& vars) {
  return FuzzEnvironment::read([&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(FuzzEnvironment, DefaultsWhenNothingIsSet) {
  const FuzzEnvironment e = with({});
  EXPECT_EQ(e.target, "");
  EXPECT_EQ(e.bug, "");
  EXPECT_EQ(e.protocol, "");
  EXPECT_EQ(e.origin, "");
  EXPECT_EQ(e.consistency, "");
  EXPECT_TRUE(e.assume.empty());
  EXPECT_FALSE(e.keep_going);
  EXPECT_EQ(e.findings, "");
  EXPECT_EQ(e.known_violations, std::nullopt);
  EXPECT_EQ(e.baseline, "");
  EXPECT_FALSE(e.stop_on_races);
  EXPECT_EQ(e.keep_explored, std::nullopt);
  EXPECT_EQ(e.oracle_budget, std::nullopt);
  EXPECT_TRUE(e.targeted);
  EXPECT_TRUE(e.behaviour);
  EXPECT_EQ(e.server_coverage, "");
  EXPECT_FALSE(e.server_hitcounts);
  EXPECT_FALSE(e.timing);
  EXPECT_EQ(e.log_inconclusive, "");
  EXPECT_FALSE(e.proxy_refusals);
  EXPECT_EQ(e.unison, "");
}

TEST(FuzzEnvironment, TextsAreTakenAsTheyAre) {
  const FuzzEnvironment e = with({{"DUALFUZZ_TARGET", "127.0.0.1:8080"},
                                  {"DUALFUZZ_BUG", "lost-update"},
                                  {"DUALFUZZ_PROTOCOL", "unison"},
                                  {"DUALFUZZ_ORIGIN", "127.0.0.1:18090"},
                                  {"DUALFUZZ_CONSISTENCY", "interval"},
                                  {"DUALFUZZ_FINDINGS", "/tmp/f"},
                                  {"DUALFUZZ_BASELINE", "base.json"},
                                  {"DUALFUZZ_SERVER_COVERAGE", "/dualfuzz-cov"},
                                  {"DUALFUZZ_LOG_INCONCLUSIVE", "inc.log"},
                                  {"DUALFUZZ_UNISON", "/opt/unison"}});
  EXPECT_EQ(e.target, "127.0.0.1:8080");
  EXPECT_EQ(e.bug, "lost-update");
  EXPECT_EQ(e.protocol, "unison");
  EXPECT_EQ(e.origin, "127.0.0.1:18090");
  EXPECT_EQ(e.consistency, "interval");
  EXPECT_EQ(e.findings, "/tmp/f");
  EXPECT_EQ(e.baseline, "base.json");
  EXPECT_EQ(e.server_coverage, "/dualfuzz-cov");
  EXPECT_EQ(e.log_inconclusive, "inc.log");
  EXPECT_EQ(e.unison, "/opt/unison");
}

// The switches that are on for exactly "1": nothing else turns them on.
TEST(FuzzEnvironment, OnOnlyForOne) {
  const std::map<std::string, bool FuzzEnvironment::*> switches = {
      {"DUALFUZZ_KEEP_GOING", &FuzzEnvironment::keep_going},
      {"DUALFUZZ_STOP_ON_RACES", &FuzzEnvironment::stop_on_races},
      {"DUALFUZZ_TIMING", &FuzzEnvironment::timing},
      {"DUALFUZZ_SERVER_HITCOUNTS", &FuzzEnvironment::server_hitcounts},
      {"DUALFUZZ_PROXY_REFUSALS", &FuzzEnvironment::proxy_refusals}};
  for (const auto& [name, field] : switches) {
    EXPECT_TRUE(with({{name, "1"}}).*field) << name;
    for (const char* off : {"", "0", "true", "yes", "on"})
      EXPECT_FALSE(with({{name, off}}).*field) << name << "=" << off;
  }
}

// The switches that are off for exactly "0": anything else leaves them on.
TEST(FuzzEnvironment, OffOnlyForZero) {
  const std::map<std::string, bool FuzzEnvironment::*> switches = {
      {"DUALFUZZ_TARGETED", &FuzzEnvironment::targeted},
      {"DUALFUZZ_BEHAVIOUR", &FuzzEnvironment::behaviour}};
  for (const auto& [name, field] : switches) {
    EXPECT_FALSE(with({{name, "0"}}).*field) << name;
    for (const char* on : {"", "1", "false", "no", "off", "00"})
      EXPECT_TRUE(with({{name, on}}).*field) << name << "=" << on;
  }
}

TEST(FuzzEnvironment, NumbersUnsetOrEmptyAreNone) {
  const std::map<std::string, std::optional<std::size_t> FuzzEnvironment::*> numbers = {
      {"DUALFUZZ_KEEP_EXPLORED", &FuzzEnvironment::keep_explored},
      {"DUALFUZZ_ORACLE_BUDGET", &FuzzEnvironment::oracle_budget}};
  for (const auto& [name, field] : numbers) {
    EXPECT_EQ(with({{name, ""}}).*field, std::nullopt) << name;
    EXPECT_EQ(with({{name, "0"}}).*field, 0u) << name;  // 0: no limit
    EXPECT_EQ(with({{name, "5000"}}).*field, 5000u) << name;
    // As strtoull reads them, as they always were read.
    EXPECT_EQ(with({{name, "12abc"}}).*field, 12u) << name;
    EXPECT_EQ(with({{name, "abc"}}).*field, 0u) << name;
  }
}

TEST(FuzzEnvironment, AssumeSplitsOnCommasAndSkipsEmptyItems) {
  using V = std::vector<std::string>;
  EXPECT_EQ(with({{"DUALFUZZ_ASSUME", "writable"}}).assume, V{"writable"});
  EXPECT_EQ(with({{"DUALFUZZ_ASSUME", "a,b"}}).assume, (V{"a", "b"}));
  EXPECT_EQ(with({{"DUALFUZZ_ASSUME", ",a,,b,"}}).assume, (V{"a", "b"}));
  EXPECT_EQ(with({{"DUALFUZZ_ASSUME", ",,"}}).assume, V{});
  EXPECT_EQ(with({{"DUALFUZZ_ASSUME", ""}}).assume, V{});
  // (Names are taken as written, not trimmed.)
  EXPECT_EQ(with({{"DUALFUZZ_ASSUME", "a, b"}}).assume, (V{"a", " b"}));
}

// Unset: <executable>.known_violations when there is one; set but empty:
// none. The two must stay apart.
TEST(FuzzEnvironment, KnownViolationsUnsetIsNotEmpty) {
  EXPECT_EQ(with({}).known_violations, std::nullopt);
  EXPECT_EQ(with({{"DUALFUZZ_KNOWN_VIOLATIONS", ""}}).known_violations, "");
  EXPECT_EQ(with({{"DUALFUZZ_KNOWN_VIOLATIONS", "k.txt"}}).known_violations, "k.txt");
}

TEST(FuzzEnvironment, ThePlayerTakesItsSpecAndBudgetFromIt) {
  EXPECT_EQ(Player::spec_from_env(with({})), "inprocess");
  EXPECT_EQ(Player::spec_from_env(with({{"DUALFUZZ_BUG", "lost-update"}})),
            "inprocess:lost-update");
  EXPECT_EQ(Player::spec_from_env(with(
                {{"DUALFUZZ_BUG", "lost-update"}, {"DUALFUZZ_TARGET", "127.0.0.1:1"}})),
            "127.0.0.1:1");  // an external server wins
  EXPECT_EQ(Player::spec_from_env(with({{"DUALFUZZ_TARGET", ""}})), "inprocess");
  EXPECT_EQ(Player::fuzz_options(with({})).oracle_options.limits.max_explored,
            harness::RunOptions{}.oracle_options.limits.max_explored);
  EXPECT_EQ(Player::fuzz_options(with({{"DUALFUZZ_ORACLE_BUDGET", "77"}}))
                .oracle_options.limits.max_explored,
            77u);
}

// variables() is the list read() reads: no variable read without a line
// of its own, none listed and never read.
TEST(FuzzEnvironment, VariablesListsWhatReadReads) {
  std::set<std::string> asked;
  FuzzEnvironment::read([&asked](const char* name) -> const char* {
    asked.insert(name);
    return nullptr;
  });
  std::set<std::string> listed;
  for (const FuzzEnvironment::Variable& v : FuzzEnvironment::variables()) {
    EXPECT_TRUE(listed.insert(v.name).second) << v.name << " listed twice";
    EXPECT_NE(std::string(v.meaning), "") << v.name;
  }
  EXPECT_EQ(asked, listed);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_source(const fs::path& p) {
  static const std::set<std::string> kExt = {".cpp", ".h", ".cc", ".hpp", ".c"};
  return kExt.contains(p.extension().string());
}

// The DUALFUZZ_ variables `dir`'s sources read with getenv("..."), by file.
std::map<std::string, std::set<std::string>> getenv_reads(const fs::path& dir) {
  static const std::regex kRead(R"re(getenv\s*\(\s*"(DUALFUZZ_[A-Z0-9_]*)")re");
  std::map<std::string, std::set<std::string>> reads;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file() || !is_source(f.path())) continue;
    const std::string text = slurp(f.path());
    for (auto m = std::sregex_iterator(text.begin(), text.end(), kRead);
         m != std::sregex_iterator(); ++m)
      reads[fs::relative(f.path(), DUALFUZZ_SOURCE_DIR).string()].insert((*m)[1]);
  }
  return reads;
}

TEST(FuzzEnvironment, EveryVariableIsDocumented) {
  const std::string doc = slurp(fs::path(DUALFUZZ_SOURCE_DIR) / "docs/environment.md");
  ASSERT_FALSE(doc.empty()) << "docs/environment.md";
  for (const FuzzEnvironment::Variable& v : FuzzEnvironment::variables())
    EXPECT_NE(doc.find(std::string("`") + v.name + "`"), std::string::npos)
        << v.name << " is not in docs/environment.md";
  // And those read elsewhere (the oracle's DUALFUZZ_Z3_MODULE).
  for (const auto& [file, names] : getenv_reads(fs::path(DUALFUZZ_SOURCE_DIR) / "oracle"))
    for (const std::string& name : names)
      EXPECT_NE(doc.find("`" + name + "`"), std::string::npos)
          << name << " (" << file << ") is not in docs/environment.md";
}

// One place reads the environment: FuzzEnvironment::read. (The oracle's
// DUALFUZZ_Z3_MODULE is read where Z3 is loaded, outside these folders.)
TEST(FuzzEnvironment, NoOtherSourceReadsADualfuzzVariable) {
  for (const char* dir : {"campaign", "protocols", "cli", "mutator", "harness"}) {
    const fs::path root = fs::path(DUALFUZZ_SOURCE_DIR) / dir;
    ASSERT_TRUE(fs::is_directory(root)) << root;
    for (const auto& [file, names] : getenv_reads(root)) {
      if (file == "campaign/src/fuzz_environment.cpp") continue;
      for (const std::string& name : names)
        ADD_FAILURE() << file << " reads " << name
                      << " itself: read it through campaign::FuzzEnvironment";
    }
  }
}

// The scan itself: it must find a read where there is one, or the test
// above passes for nothing.
TEST(FuzzEnvironment, TheScanFindsAGetenvRead) {
  const fs::path dir =
      fs::temp_directory_path() / ("dualfuzz-env-scan-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "x.cpp") << "auto* v = std::getenv( \"DUALFUZZ_SOMETHING\");\n";
  const auto reads = getenv_reads(dir);
  fs::remove_all(dir);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads.begin()->second, std::set<std::string>{"DUALFUZZ_SOMETHING"});
}

}  // namespace
}  // namespace dualfuzz::campaign
