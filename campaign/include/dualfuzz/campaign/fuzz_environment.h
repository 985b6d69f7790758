// The DUALFUZZ_* environment variables, read in one place. A fuzz target
// has no command line: libFuzzer, AFL++ and OSS-Fuzz run it with their own
// options alone, so what a user would say with `dualfuzz fuzz --flag` is
// said to a fuzz target (and to the AFL++ mutator library, and to `dualfuzz
// replay` / `minimize`, which replay its crash files) in its environment.
// Each variable is one typed field here, parsed once; the code that acts on
// one reads the field, never the environment. What each means, who reads
// it, its values and default: docs/environment.md (a test checks that every
// name of variables() is there).
//
//   const campaign::FuzzEnvironment env = campaign::FuzzEnvironment::read();
//   if (env.keep_going) ...;
//   auto player = campaign::Player::make(plugin, campaign::Player::spec_from_env(env),
//   env);
//
//   // A test passes an environment of its own instead of setenv():
//   auto env = FuzzEnvironment::read([](const char* name) -> const char* {
//     return std::string_view(name) == "DUALFUZZ_KEEP_GOING" ? "1" : nullptr;
//   });
//
// Not here: DUALFUZZ_Z3_MODULE (the oracle's, read where Z3 is loaded) and
// DUALFUZZ_COVERAGE_SHM (read by an instrumented server, not by dualfuzz);
// docs/environment.md lists them too.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dualfuzz::campaign {

struct FuzzEnvironment {
  // Reads a variable: its value, or nullptr when it is unset.
  using Getter = std::function<const char*(const char* name)>;

  // The environment `get` describes (the process's by default). Nothing is
  // refused here: a number is what strtoull makes of it ("abc" is 0) and a
  // switch is on for its one value only, as these variables were always
  // read; the code that uses a value says what is wrong with it (an
  // unreadable DUALFUZZ_BASELINE stops the fuzz target, with why).
  static FuzzEnvironment read(const Getter& get = process_getter());
  static Getter process_getter();

  // A variable read() reads and what it means in one line (the doc test
  // checks each is in docs/environment.md).
  struct Variable {
    const char* name;
    const char* meaning;
  };
  static std::span<const Variable> variables();

  // --- where and what is fuzzed ---
  // DUALFUZZ_TARGET=HOST:PORT: an external server, over the target's own
  // choice ("" when unset or empty).
  std::string target;
  // DUALFUZZ_BUG: the planted bug of the in-process reference server.
  std::string bug;
  // DUALFUZZ_PROTOCOL: the plug-in's name ("" = protocols::kDefault).
  std::string protocol;
  // DUALFUZZ_ORIGIN=HOST:PORT: the proxy plug-ins' origin listener.
  std::string origin;
  // DUALFUZZ_CONSISTENCY: the consistency judged against ("" = the
  // protocol's own).
  std::string consistency;
  // DUALFUZZ_ASSUME: `--assume`'s names, comma-separated; empty items are
  // skipped ("a,,b" is {a, b}).
  std::vector<std::string> assume;

  // --- the fuzz target's policy ---
  // DUALFUZZ_KEEP_GOING=1 (exactly "1"): count violations, do not abort.
  bool keep_going = false;
  // DUALFUZZ_FINDINGS=DIR: where keep-going writes each distinct finding.
  std::string findings;
  // DUALFUZZ_KNOWN_VIOLATIONS: unset (nullopt) means "<executable>.known_violations
  // when there is one", set but empty means none: the two differ.
  std::optional<std::string> known_violations;
  // DUALFUZZ_BASELINE=FILE: `dualfuzz fuzz --json` output of an earlier run.
  std::string baseline;
  // DUALFUZZ_STOP_ON_RACES=1 (exactly "1"): races abort as any violation.
  bool stop_on_races = false;
  // DUALFUZZ_KEEP_EXPLORED=N: the most configurations an input's check may
  // explore for it to be kept (nullopt when unset or empty: the target's
  // default; 0: no limit).
  std::optional<std::size_t> keep_explored;
  // DUALFUZZ_ORACLE_BUDGET=N: configurations the oracle may explore per
  // execution (nullopt when unset or empty: the default; 0: no limit).
  std::optional<std::size_t> oracle_budget;
  // DUALFUZZ_TARGETED=0 (exactly "0") turns targeted mutation off.
  bool targeted = true;
  // DUALFUZZ_BEHAVIOUR=0 (exactly "0") turns behaviour coverage off.
  bool behaviour = true;
  // DUALFUZZ_SERVER_COVERAGE=NAME: an external server's coverage map.
  std::string server_coverage;
  // DUALFUZZ_SERVER_HITCOUNTS=1: the server's hit counts, not only its edges.
  bool server_hitcounts = false;
  // DUALFUZZ_TIMING=1 (exactly "1"): where the time went, at exit.
  bool timing = false;

  // --- dualfuzz fuzz and the plug-ins ---
  // DUALFUZZ_LOG_INCONCLUSIVE=FILE: each script the oracle gave up on.
  std::string log_inconclusive;
  // DUALFUZZ_PROXY_REFUSALS=1: the proxy may answer any error of its own
  // (without it, a proxy process may refuse by policy: proxy/model.h).
  bool proxy_refusals = false;
  // DUALFUZZ_UNISON=BINARY: the unison program ("" = `unison` on PATH).
  std::string unison;
};

}  // namespace dualfuzz::campaign
