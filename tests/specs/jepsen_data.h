// Porcupine's Jepsen histories with their verdicts
// (../shared/benchdata/jepsen/<set>/VERDICTS), used in place by the tests
// that check them (specs/jepsen_history_test, oracle/history_check_test).
//
//   const fs::path kData = jepsen_data_dir("kv");  // empty: not found
//   for (const auto& [name, ok] : jepsen_verdicts(kData / "kv")) ...
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace dualfuzz::jepsen_data {

// $DUALFUZZ_SHARED_DIR, else ../shared next to the source tree, else
// /work/shared (where this project's machines keep it): the first whose
// benchdata/jepsen/<set>/VERDICTS exists, as benchdata/jepsen; else empty.
inline std::filesystem::path jepsen_data_dir(const char* set) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("DUALFUZZ_SHARED_DIR")) candidates.emplace_back(env);
  candidates.emplace_back(DUALFUZZ_SHARED_DIR);
  candidates.emplace_back("/work/shared");
  for (const auto& c : candidates)
    if (fs::exists(c / "benchdata" / "jepsen" / set / "VERDICTS"))
      return c / "benchdata" / "jepsen";
  return {};
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A set's VERDICTS: "<file> true|false" a line, '#' comments.
inline std::vector<std::pair<std::string, bool>> jepsen_verdicts(
    const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, bool>> out;
  std::istringstream in(slurp(dir / "VERDICTS"));
  std::string name, v;
  while (in >> name) {
    if (name[0] == '#') {
      std::getline(in, v);
      continue;
    }
    in >> v;
    out.emplace_back(name, v == "true");
  }
  return out;
}

}  // namespace dualfuzz::jepsen_data

// Skips a test when the data is not there.
#define REQUIRE_JEPSEN_DATA(dir)                                                       \
  if ((dir).empty())                                                                   \
  GTEST_SKIP() << "Jepsen data not found (set DUALFUZZ_SHARED_DIR to the folder that " \
                  "holds benchdata/jepsen)"
