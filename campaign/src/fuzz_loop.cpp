#include "dualfuzz/campaign/fuzz_loop.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "dualfuzz/campaign/race_skeleton.h"
#include "dualfuzz/campaign/signature.h"

namespace dualfuzz::campaign {

using harness::RunResult;
using harness::Script;

namespace {
// Progress is reported this often (seconds).
constexpr double kProgressEvery = 5;

mutator::ScriptMutator make_mutator(const harness::Protocol& p, bool targeted,
                                    std::function<RunResult(const Script&)> replay,
                                    std::shared_ptr<oracle::Solver> solver) {
  if (!targeted) return mutator::ScriptMutator(p);
  return mutator::ScriptMutator(p, std::move(replay), std::move(solver));
}

// Shrinking every occurrence would spend the budget on the most frequent
// bug, so occurrences with a known quick_key are shrunk only at the 1st,
// 4th, 16th, 64th, ... time (a sample, in case one quick_key covers two
// bugs).
bool power_of_four(std::uint64_t n) {
  return (n & (n - 1)) == 0 && __builtin_ctzll(n) % 2 == 0;
}
}  // namespace

Result<std::unique_ptr<FuzzCampaign>> FuzzCampaign::make(const Plugin& plugin,
                                                         FuzzOptions o) {
  auto target = Target::make(plugin, o.target);
  if (!target) return make_error(target.error());
  return std::unique_ptr<FuzzCampaign>(
      new FuzzCampaign(plugin.protocol, std::move(*target), std::move(o)));
}

// Targeted mutation replays a parent (one mutation in kTargetedOneIn) with
// the oracle's branches recorded; those replays are counted apart.
FuzzCampaign::FuzzCampaign(harness::Protocol p, std::unique_ptr<Target> t, FuzzOptions o)
    : protocol_(std::move(p)),
      target_(std::move(t)),
      o_(std::move(o)),
      solver_(std::make_shared<oracle::Solver>(oracle::OracleOptions{}.solver_timeout_ms,
                                               protocol_.model().strings)),
      mutator_(make_mutator(
          protocol_, o_.targeted, [this](const Script& s) { return play(s, true); },
          solver_)),
      start_(std::chrono::steady_clock::now()) {}

double FuzzCampaign::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

RunResult FuzzCampaign::run_on_target(const Script& s, harness::RunOptions opts) {
  opts.run_namespace = target_->reset();
  harness::Executor ex(protocol_, target_->transport(), opts, solver_);
  return ex.run(s);
}

RunResult FuzzCampaign::play(const Script& s, bool record_decisions) {
  harness::RunOptions opts;
  opts.check_liveness = o_.liveness;
  opts.message_timeout = o_.message_timeout;
  opts.oracle_options.limits.record_decisions = record_decisions;
  opts.oracle_options.limits.max_explored = o_.oracle_budget;
  return run_on_target(s, opts);
}

bool FuzzCampaign::answers_probe() {
  if (!protocol_.liveness_probe || protocol_.origin) return true;
  Script probe;
  probe.steps.push_back(
      harness::RequestStep{1, 0, harness::Jexp::from_json(*protocol_.liveness_probe)});
  harness::RunOptions opts;
  opts.oracle = false;
  // Longer than a play's wait: a loaded server is slow, not hung.
  opts.message_timeout =
      std::max(3 * o_.message_timeout, std::chrono::milliseconds(1000));
  const RunResult r = run_on_target(probe, opts);
  for (const auto& m : r.trace.messages())
    if (!harness::is_request_label(m.label)) return true;
  return false;
}

Shrunk FuzzCampaign::shrink(const Script& s, const RunResult& r) {
  ShrinkOptions so;
  so.same_violation = o_.keep_going;
  so.effort = o_.shrink_effort;
  if (!o_.known.empty())
    so.known = [this](const RunResult& x) {
      return o_.known.match(quick_key(protocol_, x)).has_value();
    };
  ViolationShrinker shrinker(
      protocol_, [this](const Script& x) { return play(x); }, so);
  return shrinker.shrink(s, r);
}

// A mutant of a pool script (or a fresh one), its requests spread over the
// connections; nullopt when it does not parse (the mutator emits scripts) or
// sends nothing.
std::optional<std::pair<std::string, Script>> FuzzCampaign::next_script(
    std::mt19937_64& rng) const {
  std::string parent = pool_.empty() ? std::string() : pool_[rng() % pool_.size()];
  std::string text = mutator_.mutate(parent, 2048, rng);
  auto script = harness::parse_script(text, protocol_.functions);
  if (!script) return std::nullopt;
  // A script without a request (the mutator may delete the last one) would
  // test nothing and count as an execution.
  if (std::none_of(script->steps.begin(), script->steps.end(), [](const auto& st) {
        return std::holds_alternative<harness::RequestStep>(st);
      }))
    return std::nullopt;
  for (auto& st : script->steps) {
    if (auto* r = std::get_if<harness::RequestStep>(&st)) r->conn %= o_.connections;
    if (auto* c = std::get_if<harness::CloseStep>(&st)) c->conn %= o_.connections;
  }
  return std::make_pair(std::move(text), std::move(*script));
}

namespace {
// The server could not be reached at all (refused, reset before a byte).
bool unreachable(const RunResult& r) {
  return r.outcome == RunResult::Outcome::Trouble &&
         r.detail.rfind("cannot open connection", 0) == 0 && r.trace.size() == 0;
}
constexpr std::size_t kOutagesKept = 8;
// Counts `o` and keeps it in place of the one before the last when the list
// is full (the last one is always kept: server_lost() reads it).
void add_outage(FuzzSummary& sum, ServerOutage o) {
  ++sum.counters.outages;
  if (sum.outages.size() >= kOutagesKept) sum.outages.pop_back();
  sum.outages.push_back(std::move(o));
}
}  // namespace

RunResult FuzzCampaign::execute(const Script& s, FuzzSummary& sum) {
  RunResult r = play(s);
  FuzzCounters& c = sum.counters;
  if (unreachable(r)) {
    ++c.unreachable;
    return r;
  }
  ++c.executions;
  c.messages += r.trace.size();
  for (const auto& m : r.trace.messages())
    c.requests_sent += harness::is_request_label(m.label);
  c.inconclusive += r.inconclusive();
  // DUALFUZZ_LOG_INCONCLUSIVE=FILE: each script the oracle gave up on is
  // appended there with why (to see which script shapes hit the budget).
  if (r.inconclusive())
    if (const char* log = std::getenv("DUALFUZZ_LOG_INCONCLUSIVE"); log && *log) {
      std::ofstream out(log, std::ios::app);
      out << "### script\n"
          << harness::print_script(s) << "### run\n"
          << r.report(protocol_) << "\n### events (bench/oracle_recheck reads them)\n";
      for (const auto& e : r.events) out << e.to_json().dump() << "\n";
    }
  if (r.outcome == RunResult::Outcome::InternalError) ++c.internal_errors;
  return r;
}

// Violating scripts are not mutated further: with keep_going they would
// mostly find the same bug again.
void FuzzCampaign::add_to_pool(std::string text, std::mt19937_64& rng) {
  if (pool_.size() < 256)
    pool_.push_back(std::move(text));
  else
    pool_[rng() % pool_.size()] = std::move(text);
}

// Has one of the quick_key's findings a short counterexample that showed
// again? Until then its next occurrences are shrunk too, up to the 8th:
// each is another chance at the timing a race needs.
bool FuzzCampaign::settled(const Quick& q, const FuzzSummary& sum) const {
  for (const auto& [sig, count] : q.signatures)
    if (auto it = by_signature_.find(sig); it != by_signature_.end()) {
      const Finding& f = sum.findings[it->second];
      if (f.reproduced && f.run.trace.size() <= kShortRace) return true;
    }
  return false;
}

// A shrunk occurrence: a new finding, or a repeat that may give a better
// report (one that reproduces, or in fewer messages).
void FuzzCampaign::record(const Script& s, const RunResult& r, const Shrunk& sh,
                          double found, double shrunk_before, FuzzSummary& sum,
                          const FuzzObserver& observer) {
  const std::string sig = signature_of(protocol_, sh.run);
  ++quick_[quick_key(protocol_, r)].signatures[sig];
  auto [it, fresh] = by_signature_.try_emplace(sig, sum.findings.size());
  if (fresh) {
    Finding f{sig,
              kind_name(r.outcome),
              found,
              found - shrunk_before,
              sum.counters.executions,
              0,
              sh.reproduced,
              sh.script,
              sh.run,
              s.steps.size(),
              classify(protocol_, sh.run)};
    sum.findings.push_back(std::move(f));
  }
  Finding& f = sum.findings[it->second];
  ++f.count;
  if (fresh) {
    if (observer.on_violation)
      observer.on_violation({sum.findings.size(), f.signature, found, sum.counters, s, sh,
                             f.classification});
  } else if (sh.reproduced &&
             (!f.reproduced || sh.run.trace.size() < f.run.trace.size())) {
    f.reproduced = true;
    f.script = sh.script;
    f.run = sh.run;
    f.original_steps = s.steps.size();
    f.classification = classify(protocol_, sh.run);
  }
}

// A passing play with an advisory: counted, and kept once per key.
void FuzzCampaign::note_advisory(const Script& s, const RunResult& r, FuzzSummary& sum) {
  ++sum.counters.advisories;
  RunResult strict = r;  // (the run as the strict model judged it)
  strict.outcome = RunResult::Outcome::ModelViolation;
  strict.verdict = *r.advisory;
  const std::string key = quick_key(protocol_, strict);
  for (Advisory& a : sum.advisories)
    if (a.key == key) {
      ++a.count;
      return;
    }
  if (sum.advisories.size() < FuzzSummary::kMaxAdvisories)
    sum.advisories.push_back(Advisory{key, elapsed(), 1, s, r});
}

// A violation the known list matches: counted (per entry), nothing else.
bool FuzzCampaign::known(const RunResult& r, FuzzSummary& sum) const {
  if (!r.violation() || o_.known.empty()) return false;
  const auto i = o_.known.match(quick_key(protocol_, r));
  if (!i) return false;
  ++sum.counters.known_violations;
  ++sum.known_counts[*i];
  return true;
}

// keep_going: shrink a sample of the occurrences (power_of_four, and the
// first 8 until settled); the others count as repeats of their quick_key's
// most frequent signature.
void FuzzCampaign::keep(const Script& s, const RunResult& r, FuzzSummary& sum,
                        const FuzzObserver& observer) {
  const double found = elapsed();
  Quick& qk = quick_[quick_key(protocol_, r)];
  const std::uint64_t n = ++qk.seen;
  if (power_of_four(n) || (n <= 8 && !settled(qk, sum))) {
    const double shrunk_before = sum.shrink_seconds;
    const Shrunk sh = shrink(s, r);
    sum.shrink_seconds += elapsed() - found;
    record(s, r, sh, found, shrunk_before, sum, observer);
    return;
  }
  auto best =
      std::max_element(qk.signatures.begin(), qk.signatures.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  ++sum.findings[by_signature_.at(best->first)].count;
}

FuzzSummary FuzzCampaign::run(std::mt19937_64& rng, const FuzzObserver& observer) {
  FuzzSummary sum;
  sum.known_counts.assign(o_.known.entries().size(), 0);
  double next_report = kProgressEvery;
  std::optional<Script> last_reached;  // the last script the server took
  std::optional<double> down_since;    // the server refuses connections
  while (elapsed() < o_.seconds) {
    auto next = next_script(rng);
    if (!next) continue;
    const auto& [text, script] = *next;
    const RunResult r = execute(script, sum);
    // Silence with requests outstanding: slow, or hung? A hung server gets
    // no more scripts (each would wait out its timeouts): only the probe,
    // until it answers or the outage ends the run.
    if (r.went_silent && !unreachable(r) && !answers_probe()) {
      add_outage(sum, ServerOutage{elapsed(), sum.counters.executions,
                                   "it accepted connections and answered nothing, not "
                                   "even " +
                                       harness::dump_json(*protocol_.liveness_probe) +
                                       " on a fresh connection (a hang)",
                                   script, false, true});
      const double since = elapsed();
      while (elapsed() - since < o_.server_down_seconds && elapsed() < o_.seconds)
        if (answers_probe()) {
          sum.outages.back().recovered = true;
          break;
        }
      if (!sum.outages.back().recovered) break;  // server_lost()
      continue;
    }
    if (unreachable(r)) {
      if (!down_since) {
        down_since = elapsed();
        add_outage(sum, ServerOutage{*down_since, sum.counters.executions, r.detail,
                                     last_reached, false, false});
      }
      if (elapsed() - *down_since >= o_.server_down_seconds) break;  // server_lost()
      // (no spinning through scripts while it is down)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    // (A script that sent nothing, e.g. only a close, tells nothing.)
    if (r.trace.size() > 0) {
      if (down_since) {
        down_since.reset();
        sum.outages.back().recovered = true;
      }
      last_reached = script;
    }
    if (r.outcome == RunResult::Outcome::InternalError) {
      if (sum.counters.internal_errors == 1 && observer.on_internal_error)
        observer.on_internal_error(script, r);
      continue;
    }
    // (Kept out of the pool as any violating script: mutants of it would
    // mostly show the known bug again.)
    const bool is_known = known(r, sum);
    if (r.violation() && !is_known && !o_.keep_going) {
      const double found = elapsed();
      Shrunk sh = shrink(script, r);
      Classification cls = classify(protocol_, sh.run);
      sum.first =
          FirstViolation{kind_name(r.outcome), found,         elapsed() - found, script,
                         std::move(sh),        std::move(cls)};
      if (observer.on_violation)
        observer.on_violation({0, "", found, sum.counters, sum.first->original,
                               sum.first->shrunk, sum.first->classification});
      break;
    }
    if (!r.violation() && r.advisory) note_advisory(script, r, sum);
    if (r.violation()) {
      if (!is_known) keep(script, r, sum, observer);
    } else if (!r.inconclusive()) {
      add_to_pool(text, rng);
      ++sum.counters.pooled;
    }
    if (observer.on_progress && elapsed() >= next_report) {
      observer.on_progress(elapsed(), sum.counters, sum.findings.size(),
                           sum.shrink_seconds);
      next_report += kProgressEvery;
    }
  }
  sum.seconds = elapsed();
  sum.mutator_replays = mutator_.targeted_stats().runs;
  sum.targeted_rewrites = mutator_.targeted_stats().rewrites;
  return sum;
}

}  // namespace dualfuzz::campaign
