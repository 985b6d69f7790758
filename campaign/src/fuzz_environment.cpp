#include "dualfuzz/campaign/fuzz_environment.h"

#include <array>
#include <cstdlib>
#include <string_view>

namespace dualfuzz::campaign {
namespace {

// (Kept in the order of docs/environment.md's table.)
constexpr std::array<FuzzEnvironment::Variable, 21> kVariables{{
    {"DUALFUZZ_TARGET", "HOST:PORT of an external server, over the target's own choice"},
    {"DUALFUZZ_BUG", "the bug planted in the in-process reference server"},
    {"DUALFUZZ_PROTOCOL", "the protocol plug-in (default http)"},
    {"DUALFUZZ_CONSISTENCY", "the consistency the server is judged against"},
    {"DUALFUZZ_ASSUME", "--assume's names, comma-separated"},
    {"DUALFUZZ_ORIGIN", "HOST:PORT of the proxy plug-ins' origin listener"},
    {"DUALFUZZ_KEEP_GOING", "1: violations are counted, not aborted on"},
    {"DUALFUZZ_FINDINGS", "DIR where keep-going writes each distinct finding"},
    {"DUALFUZZ_KNOWN_VIOLATIONS",
     "FILE of violations that are no findings (empty: none)"},
    {"DUALFUZZ_BASELINE", "FILE of an earlier run's findings, counted not aborted on"},
    {"DUALFUZZ_STOP_ON_RACES", "1: a race aborts as any violation"},
    {"DUALFUZZ_KEEP_EXPLORED", "N: inputs whose check explored more are not kept"},
    {"DUALFUZZ_ORACLE_BUDGET", "N: configurations the oracle may explore per execution"},
    {"DUALFUZZ_TARGETED", "0: no Z3-targeted mutation"},
    {"DUALFUZZ_BEHAVIOUR", "0: no behaviour coverage, the server's code coverage alone"},
    {"DUALFUZZ_SERVER_COVERAGE", "NAME of an external server's coverage map"},
    {"DUALFUZZ_SERVER_HITCOUNTS", "1: the server's hit counts, not only its edges"},
    {"DUALFUZZ_TIMING", "1: at exit, where the fuzz target's time went"},
    {"DUALFUZZ_LOG_INCONCLUSIVE",
     "FILE each script the oracle gave up on is appended to"},
    {"DUALFUZZ_PROXY_REFUSALS", "1: the proxy may answer any error of its own"},
    {"DUALFUZZ_UNISON", "the unison program the unison plug-in runs"},
}};

}  // namespace

FuzzEnvironment::Getter FuzzEnvironment::process_getter() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::span<const FuzzEnvironment::Variable> FuzzEnvironment::variables() {
  return kVariables;
}

FuzzEnvironment FuzzEnvironment::read(const Getter& get) {
  // The value, "" when unset: for the variables whose empty value means
  // the same as none.
  auto text = [&](const char* name) {
    const char* v = get(name);
    return v ? std::string(v) : std::string();
  };
  auto is = [&](const char* name, std::string_view value) {
    const char* v = get(name);
    return v && value == v;
  };
  // (These two were always read by their first character.)
  auto starts_with_1 = [&](const char* name) {
    const char* v = get(name);
    return v && *v == '1';
  };
  auto number = [&](const char* name) -> std::optional<std::size_t> {
    const char* v = get(name);
    if (!v || !*v) return std::nullopt;
    return static_cast<std::size_t>(std::strtoull(v, nullptr, 10));
  };

  FuzzEnvironment e;
  e.target = text("DUALFUZZ_TARGET");
  e.bug = text("DUALFUZZ_BUG");
  e.protocol = text("DUALFUZZ_PROTOCOL");
  e.origin = text("DUALFUZZ_ORIGIN");
  e.consistency = text("DUALFUZZ_CONSISTENCY");
  const std::string assume = text("DUALFUZZ_ASSUME");
  std::string_view rest = assume;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    if (!name.empty()) e.assume.emplace_back(name);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }

  e.keep_going = is("DUALFUZZ_KEEP_GOING", "1");
  e.findings = text("DUALFUZZ_FINDINGS");
  if (const char* k = get("DUALFUZZ_KNOWN_VIOLATIONS")) e.known_violations = k;
  e.baseline = text("DUALFUZZ_BASELINE");
  e.stop_on_races = is("DUALFUZZ_STOP_ON_RACES", "1");
  e.keep_explored = number("DUALFUZZ_KEEP_EXPLORED");
  e.oracle_budget = number("DUALFUZZ_ORACLE_BUDGET");
  e.targeted = !is("DUALFUZZ_TARGETED", "0");
  e.behaviour = !is("DUALFUZZ_BEHAVIOUR", "0");
  e.server_coverage = text("DUALFUZZ_SERVER_COVERAGE");
  e.server_hitcounts = starts_with_1("DUALFUZZ_SERVER_HITCOUNTS");
  e.timing = is("DUALFUZZ_TIMING", "1");

  e.log_inconclusive = text("DUALFUZZ_LOG_INCONCLUSIVE");
  e.proxy_refusals = starts_with_1("DUALFUZZ_PROXY_REFUSALS");
  e.unison = text("DUALFUZZ_UNISON");
  return e;
}

}  // namespace dualfuzz::campaign
