// The file server's AFL++ custom-mutator library, built by
// dualfuzz_add_afl_custom_mutator over DUALFUZZ_AFL_CUSTOM_MUTATOR, loaded as
// afl-fuzz loads it: from the example's seeds it makes scripts of the
// protocol its fuzz target plays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dualfuzz/harness/script.h"
#include "dualfuzz/http/protocol.h"
#include "support/afl_library.h"

namespace {

using dualfuzz::testing::AflLibrary;
using dualfuzz::testing::AflStateTest;

const AflLibrary& library() {
  static const AflLibrary lib(FILE_SERVER_AFL_MUTATOR_SO);
  return lib;
}
const dualfuzz::harness::FunctionRegistry& fns() {
  static const auto p = dualfuzz::http::protocol();
  return p.functions;
}
std::string read(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
// The first `n` seeds of the example's corpus, by name (a stable choice).
std::vector<std::string> seeds(std::size_t n) {
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(
           DUALFUZZ_SOURCE_DIR "/examples/beast_file_server/seeds"))
    paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  paths.resize(std::min(n, paths.size()));
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(read(p));
  return out;
}

class FileServerAflMutator : public AflStateTest {
 protected:
  FileServerAflMutator() : AflStateTest(library(), 42) {}
};

TEST_F(FileServerAflMutator, MakesParseableScriptsFromTheSeeds) {
  const std::vector<std::string> in = seeds(20);
  ASSERT_EQ(in.size(), 20u);
  int changed = 0;
  for (const std::string& seed : in) {
    ASSERT_TRUE(dualfuzz::harness::parse_script(seed, fns()));
    std::string cur = seed;
    for (int i = 0; i < 10; ++i) {
      std::string out = library().fuzz_once(st, cur, &in.front(), 4096);
      ASSERT_GT(out.size(), 0u);
      ASSERT_LE(out.size(), 4096u);
      auto s = dualfuzz::harness::parse_script(out, fns());
      ASSERT_TRUE(s) << out << s.error();
      ASSERT_EQ(dualfuzz::harness::validate(*s), std::nullopt) << out;
      if (out != cur) ++changed;
      cur = out;
    }
  }
  EXPECT_GT(changed, 150) << "nearly every call changes its input";
}

TEST_F(FileServerAflMutator, ExportsOnlyTheHooks) {
  EXPECT_EQ(dlsym(library().dl, "afl_custom_fuzz_count"), nullptr);
  EXPECT_EQ(dlsym(library().dl, "_ZN8dualfuzz7harness12print_scriptERKNS0_6ScriptE"),
            nullptr);
}

// The library is the fuzz target's protocol, not the built-in registry's
// choice: $DUALFUZZ_PROTOCOL (which picks the built-in library's plug-in)
// changes nothing, and what it generates for garbage is an HTTP request.
TEST(FileServerAflMutatorProtocol, IsTheTargetsWhateverTheEnvironmentSays) {
  ASSERT_NE(library().dl, nullptr) << library().error;
  setenv("DUALFUZZ_PROTOCOL", "unison", 1);
  void* st = library().init(nullptr, 7);
  unsetenv("DUALFUZZ_PROTOCOL");
  ASSERT_NE(st, nullptr);
  const std::string out = library().fuzz_once(st, "\x01 not a script", nullptr, 4096);
  library().deinit(st);
  ASSERT_TRUE(dualfuzz::harness::parse_script(out, fns())) << out;
  EXPECT_NE(out.find("\"method\""), std::string::npos) << out;
  EXPECT_EQ(out.find("\"replica\""), std::string::npos) << out;
}

}  // namespace
