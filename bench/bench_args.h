// The benches' command lines, parsed like the dualfuzz program's: --help
// prints the options and exits 0, a usage error exits 2.
//
//   CLI::App app{"my_bench: what it measures"};
//   app.add_option("--seconds", seconds, "measuring time");
//   if (auto rc = dualfuzz::bench::parse(app, argc, argv)) return *rc;
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

namespace dualfuzz::bench {

// Nullopt: go on; else the exit code.
inline std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

}  // namespace dualfuzz::bench
