// Plays single scripts exactly the way the coverage-guided fuzz target does
// (same run options, same server set-up, same report), so a crash file
// replays to the same report. Shared by the fuzz targets and `dualfuzz
// replay` / `minimize`, for any protocol plug-in.
//
//   auto p = Player::make(plugin, "inprocess:lost-update");  // or spec_from_env()
//   harness::RunResult r = (*p)->play(script);
//   std::cerr << (*p)->report(script, r);  // messages as the protocol describes them
//
// What the fuzz targets' environment says (fuzz_environment.h: the spec, the
// oracle budget, targeted mutation) comes in a FuzzEnvironment; each
// function that uses one reads the process's by default.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "dualfuzz/campaign/consistency.h"
#include "dualfuzz/campaign/fuzz_environment.h"
#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/sequence_chart.h"
#include "dualfuzz/mutator/script_mutator.h"

namespace dualfuzz::campaign {

class Player {
 public:
  // `inprocess[:ARG]` or `HOST:PORT`; every play with fuzz_options(env).
  static Result<std::unique_ptr<Player>> make(
      const Plugin& plugin, const std::string& spec,
      const FuzzEnvironment& env = FuzzEnvironment::read()) {
    auto t = Target::make(plugin, spec);
    if (!t) return make_error(t.error());
    auto p = std::unique_ptr<Player>(new Player(plugin.protocol, fuzz_options(env)));
    p->target_ = std::move(*t);
    p->description_ = p->target_->external()
                          ? "server " + spec
                          : plugin.describe(spec.size() > 10 ? spec.substr(10) : "");
    return p;
  }
  // The fuzz target's environment: DUALFUZZ_TARGET=HOST:PORT (an external
  // server), else the in-process server with DUALFUZZ_BUG planted.
  static std::string spec_from_env(const FuzzEnvironment& env = FuzzEnvironment::read()) {
    if (!env.target.empty()) return env.target;
    return env.bug.empty() ? std::string("inprocess") : "inprocess:" + env.bug;
  }

  // The options of every fuzz execution: in-process, silence means a
  // dropped request, so liveness is checked. DUALFUZZ_ORACLE_BUDGET sets the
  // configurations the oracle may explore per execution (0: no limit) —
  // replay a crash with the budget it was found with or a larger one: a
  // violation found within a budget is found within every larger one.
  static harness::RunOptions fuzz_options(
      const FuzzEnvironment& env = FuzzEnvironment::read()) {
    harness::RunOptions o;
    o.check_liveness = true;
    o.check_at_end = true;  // (the same results; the oracle runs cache-hot)
    // An advisory never decides anything in a fuzz target, and its re-check
    // costs about a fifth of an in-process execution (bench/throughput_bench:
    // 65 of 310 us): off here (Player::set_advisories turns it on).
    o.check_advisories = false;
    if (env.oracle_budget) o.oracle_options.limits.max_explored = *env.oracle_budget;
    return o;
  }

  // One execution on a fresh server (or a fresh path namespace).
  // `record_decisions` keeps the oracle's symbolic branches in
  // RunResult::explanations, for targeted mutation (engine_mutator below).
  harness::RunResult play(const harness::Script& s, bool oracle = true,
                          bool record_decisions = false) {
    harness::RunOptions o = options_;
    o.oracle = oracle;
    o.check_advisories = advisories_;
    o.oracle_options.limits.record_decisions = record_decisions;
    return run(protocol_, solver_, s, o);
  }
  // The same play judged past races (consistency.h: past_races): what a
  // script whose play showed a race shows beyond it. play(s) when no
  // weaker consistency of the protocol classifies.
  harness::RunResult play_past_races(const harness::Script& s) {
    if (!past_) return play(s);
    if (!past_solver_)
      past_solver_ = std::make_shared<oracle::Solver>(
          oracle::OracleOptions{}.solver_timeout_ms, past_->model().strings);
    harness::RunOptions o = options_;
    o.check_advisories = false;  // (only its violations are read)
    return run(*past_, past_solver_, s, o);
  }
  // The consistency races are judged past ("interval"), or "" when none.
  std::string past_races_consistency() const {
    return past_ ? past_->consistency : std::string();
  }
  // `r`'s class (consistency.h), within the fuzz executions' oracle budget.
  Classification classify(const harness::RunResult& r) const {
    return campaign::classify(protocol_, r, options_.oracle_options);
  }
  Result<harness::Script> parse(std::string_view text) const {
    return harness::parse_script(text, protocol_.functions);
  }
  // The fuzz target's report; TraceFormat::Json for `--json` (each message's IR).
  std::string report(const harness::Script& s, const harness::RunResult& r,
                     harness::TraceFormat f = harness::TraceFormat::Readable) const {
    std::string out = harness::run_report(protocol_, s, r, description_, f);
    // Which promise a model violation broke (consistency.h).
    if (r.outcome == harness::RunResult::Outcome::ModelViolation &&
        !protocol_.weaker.empty())
      out += "class: " + campaign::classify(protocol_, r).text + "\n";
    return out;
  }
  // "server bug: lost-update", "server bug: none planted", "server HOST:PORT".
  const std::string& description() const { return description_; }
  // For a server the plug-in does not describe (a fuzz target's own).
  void set_description(std::string d) { description_ = std::move(d); }
  const harness::Protocol& protocol() const { return protocol_; }
  // Whether plays judge advisories too (RunResult::advisory): for reports
  // (replay), not for fuzzing (fuzz_options).
  void set_advisories(bool on) { advisories_ = on; }
  // Runs before each execution, once the server has answered and closed
  // every connection of the previous one (an external server's transport
  // then waits for that, at most 2 s): where a fuzz target zeroes the
  // server's coverage counters (ServerCoverage::begin).
  void set_before_run(std::function<void()> hook) {
    before_run_ = std::move(hook);
    target_->set_drain(true);
  }

  // The custom mutator of the coverage-guided engines (libFuzzer hooks,
  // AFL++ library): one call in kTargetedOneIn replays its input on a
  // Player of its own for `spec` (the fuzz target's server, not its state)
  // and lets the solver rewrite a precondition header (targeted_mutation.h).
  // $DUALFUZZ_TARGETED=0 (env.targeted false), or a spec that does not make
  // a Player, gives the plain structural mutator.
  //   auto m = Player::engine_mutator(plugin, Player::spec_from_env());
  static mutator::ScriptMutator engine_mutator(
      const Plugin& plugin, const std::string& spec,
      const FuzzEnvironment& env = FuzzEnvironment::read()) {
    if (!env.targeted) return mutator::ScriptMutator(plugin.protocol);
    auto made = make(plugin, spec, env);
    if (!made) return mutator::ScriptMutator(plugin.protocol);
    std::shared_ptr<Player> p = std::move(*made);
    return mutator::ScriptMutator(
        p->protocol_, [p](const harness::Script& s) { return p->play(s, true, true); },
        p->solver_);
  }

 private:
  Player(harness::Protocol p, harness::RunOptions options)
      : protocol_(std::move(p)),
        past_(past_races(protocol_)),
        options_(std::move(options)) {}
  harness::RunResult run(const harness::Protocol& p,
                         const std::shared_ptr<oracle::Solver>& solver,
                         const harness::Script& s, harness::RunOptions o) {
    try {  // (a plug-in's reset() or model() may throw: never a finding)
      o.run_namespace = target_->reset();
      if (before_run_) before_run_();
      harness::Executor ex(p, target_->transport(), o, solver);
      return ex.run(s);
    } catch (const std::exception& e) {
      return harness::RunResult::internal_error(e.what());
    }
  }
  harness::Protocol protocol_;
  std::optional<harness::Protocol> past_;        // past_races(protocol_)
  harness::RunOptions options_;                  // fuzz_options(env) of make()
  std::shared_ptr<oracle::Solver> past_solver_;  // made at its first use
  // One Z3 context for all executions (creating one costs ~10 ms).
  std::shared_ptr<oracle::Solver> solver_ = std::make_shared<oracle::Solver>(
      oracle::OracleOptions{}.solver_timeout_ms, protocol_.model().strings);
  std::unique_ptr<Target> target_;
  std::string description_;
  std::function<void()> before_run_;
  bool advisories_ = false;
};

}  // namespace dualfuzz::campaign
