// Subcommands of the `dualfuzz` program; each registers itself on the CLI11
// app and returns the process exit code (0 no violation, 1 violation, 2 trouble, 3
// internal error: dualfuzz or a plug-in threw, which says nothing about the server).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace dualfuzz::cli {

inline constexpr int kNoViolation = 0;
inline constexpr int kViolation = 1;
inline constexpr int kTrouble = 2;
inline constexpr int kInternalError = 3;

// Registers `history`; `run` is set to the command's body.
void add_history_command(CLI::App& app, std::function<int()>& run);
// Registers `run` and `bugs`.
void add_run_command(CLI::App& app, std::function<int()>& run);
// Registers `fuzz`; `args` are dualfuzz's arguments as given (argv[1..]), which
// `--jobs` hands on to its workers.
void add_fuzz_command(CLI::App& app, std::function<int()>& run,
                      std::vector<std::string> args);
// Registers `replay` (one input, the fuzz target's report).
void add_replay_command(CLI::App& app, std::function<int()>& run);
// Registers `minimize` (shrink keeping the same violation).
void add_minimize_command(CLI::App& app, std::function<int()>& run);

}  // namespace dualfuzz::cli
