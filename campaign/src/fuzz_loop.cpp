#include "dualfuzz/campaign/fuzz_loop.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
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

// Quick::signatures' entry for a baseline's identity.
constexpr std::string_view kBaselinePrefix = "baseline: ";

constexpr std::size_t kOutagesKept = 8;
// Counts `o` and keeps it in place of the one before the last when the list
// is full (the last one is always kept: server_lost() reads it).
void add_outage(FuzzSummary& sum, ServerOutage o) {
  ++sum.counters.outages;
  if (sum.outages.size() >= kOutagesKept) sum.outages.pop_back();
  sum.outages.push_back(std::move(o));
}
}  // namespace

Result<std::unique_ptr<FuzzCampaign>> FuzzCampaign::make(const Plugin& plugin,
                                                         FuzzOptions o) {
  auto target = Target::make(plugin, o.target);
  if (!target) return make_error(target.error());
  std::unique_ptr<detail::SharedServer> shared;
  if (!o.shared_server.empty()) {
    auto opened = detail::SharedServer::open(o.shared_server);
    if (!opened) return make_error(opened.error());
    shared = std::move(*opened);
  }
  std::unique_ptr<Target> reference;
  if (!o.baseline_target.empty()) {
    if (plugin.protocol.origin)
      return make_error("--baseline-target: protocol '" + plugin.protocol.name +
                        "' has the tester play the origin too; one origin serves one "
                        "target");
    auto r = Target::make(plugin, o.baseline_target);
    if (!r) return make_error("--baseline-target: " + r.error());
    if (o.baseline_replays < 1) return make_error("--baseline-replays: at least 1 play");
    reference = std::move(*r);
  }
  auto c = std::unique_ptr<FuzzCampaign>(
      new FuzzCampaign(plugin.protocol, std::move(*target), std::move(o)));
  c->shared_ = std::move(shared);
  c->reference_ = std::move(reference);
  return c;
}

// Targeted mutation replays a parent (one mutation in kTargetedOneIn) with
// the oracle's branches recorded; those replays are counted apart.
FuzzCampaign::FuzzCampaign(harness::Protocol p, std::unique_ptr<Target> t, FuzzOptions o)
    : protocol_(std::move(p)),
      target_(std::move(t)),
      o_(std::move(o)),
      solver_(std::make_shared<oracle::Solver>(oracle::OracleOptions{}.solver_timeout_ms,
                                               protocol_.model().strings)),
      past_(o_.stop_on_races ? std::nullopt : past_races(protocol_)),
      past_solver_(
          past_ ? std::make_shared<oracle::Solver>(
                      oracle::OracleOptions{}.solver_timeout_ms, past_->model().strings)
                : nullptr),
      mutator_(make_mutator(
          protocol_, o_.targeted, [this](const Script& s) { return targeted_replay(s); },
          solver_)),
      start_(std::chrono::steady_clock::now()),
      restarter_(o_.restart.empty() ? nullptr : std::make_unique<Restarter>(o_.restart)) {
}

double FuzzCampaign::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

RunResult FuzzCampaign::run_on_target(const Script& s, harness::RunOptions opts,
                                      const harness::Protocol& p,
                                      const std::shared_ptr<oracle::Solver>& solver) {
  opts.run_namespace = target_->reset();
  std::optional<detail::SharedServer::Play> beside;  // the other processes' plays
  if (shared_) {
    beside.emplace(*shared_);
    play_deaths_ = shared_->deaths();
  }
  opts.held_wait = held_wait_.wait();
  if (!opts.check_liveness && !p.origin)
    opts.message_timeout = answer_wait_.wait(opts.message_timeout);
  harness::Executor ex(p, target_->transport(), opts, solver);
  RunResult r = ex.run(s);
  held_wait_.learn(r.held_waits);
  answer_wait_.learn(r.answer_latency);
  return r;
}

harness::RunOptions FuzzCampaign::play_options(bool record_decisions) const {
  harness::RunOptions opts;
  opts.check_liveness = o_.liveness;
  opts.message_timeout = o_.message_timeout;
  opts.oracle_options.limits.record_decisions = record_decisions;
  opts.oracle_options.limits.max_explored = o_.oracle_budget;
  return opts;
}

void FuzzCampaign::reached(const Script& s, const RunResult& r) {
  if (r.trace.size() == 0) return;
  before_last_ = std::move(last_reached_);
  last_reached_ = Reached{s, r};
  ever_reached_ = true;
}

RunResult FuzzCampaign::play(const Script& s, bool record_decisions) {
  RunResult r = run_on_target(s, play_options(record_decisions), protocol_, solver_);
  reached(s, r);
  return r;
}

RunResult FuzzCampaign::play_on_reference(const Script& s, bool judged, FuzzSummary& sum) {
  harness::RunOptions opts = play_options(false);
  opts.oracle = judged;
  opts.run_namespace = reference_->reset();
  // (Shown there is asked generously: content past an answer, a HEAD's,
  // may come in a later read.)
  opts.linger = harness::RunOptions::kReplayLinger;
  harness::Executor ex(protocol_, reference_->transport(), opts, solver_);
  ++sum.counters.reference_plays;
  return ex.run(s);
}

bool FuzzCampaign::shown_on_reference(const Shrunk& sh, const std::string& id,
                                      FuzzSummary& sum) {
  if (!reference_) return false;
  if (auto it = reference_verdicts_.find(id); it != reference_verdicts_.end())
    return it->second;
  // A finding met in sequence is played in sequence first, in the order
  // its answers came (serialized_as_answered): a shrunk script without a
  // wait between two connections' requests ran in sequence on the target
  // and, as often as not, concurrently on the reference, where the same
  // defect then had the race's identity (nginx's DELETE with If-None-Match
  // *, known to the reference, was reported). Then the script itself.
  std::vector<Script> forms;
  const bool race = id.ends_with(kConcurrent);
  if (!race)
    if (auto seq = serialized_as_answered(sh.script, sh.run, protocol_.functions))
      forms.push_back(std::move(*seq));
  forms.push_back(sh.script);
  // (A sequential violation shows at the first play; a race may need more,
  // so one that needs requests in flight at once gets five times the
  // plays: lighttpd's and Apache's known races showed in 1 and 2 of 5
  // plays there, and a known race reported ends a CI run. At 3N, nginx's
  // known race that shows in 1 of 5 was missed in 9 plays, once in 16
  // mutant runs: 15 plays miss such a one in 4 % of runs, 9 in 13 %, for a
  // second or so once per identity. A play that did not reach the
  // reference server decides nothing: the finding is reported, as without
  // one.)
  const int plays = o_.baseline_replays * (race ? 5 : 1);
  bool shown = false;
  for (const Script& s : forms)
    for (int i = 0; i < plays && !shown; ++i) {
      const RunResult r = play_on_reference(s, true, sum);
      // (Under the finding's identity only: a violation of another name
      // there is a known defect the script also meets, not this finding;
      // taken as known, runs on two of lighttpd's mutants ended with no
      // finding where the record alone let their own through.)
      shown = r.violation() && identity_of(protocol_, r) == id;
    }
  reference_verdicts_[id] = shown;
  return shown;
}

bool FuzzCampaign::death_on_reference(const Script& s, const std::string& sig,
                                      DeathKind kind, FuzzSummary& sum) {
  if (!reference_) return false;
  if (auto it = reference_verdicts_.find(sig); it != reference_verdicts_.end())
    return it->second;
  const RunResult r = play_on_reference(s, false, sum);
  // (Of the same kind: a script that hangs the change's build and crashes
  // main's is not the same defect.)
  bool died = false;
  if (lost_answers(r))
    died = confirm_death(protocol_, *reference_, probe_wait()).kind == kind;
  reference_verdicts_[sig] = died;
  // Its supervisor (the user's) brings it back; the plays after wait as
  // long as the target's would.
  if (died) answers_by(*reference_, down_deadline());
  return died;
}

RunResult FuzzCampaign::play_unjudged(const Script& s) {
  harness::RunOptions opts = play_options(false);
  opts.oracle = false;
  RunResult r = run_on_target(s, opts, protocol_, solver_);
  reached(s, r);
  return r;
}

RunResult FuzzCampaign::play_past_races(const Script& s) {
  if (!past_) return play(s);
  harness::RunOptions opts = play_options(false);
  opts.check_advisories = false;  // (only its violations are read)
  RunResult r = run_on_target(s, opts, *past_, past_solver_);
  reached(s, r);
  // Judged past races the search may give up where the atomic one decides
  // (four writes in flight on one path under "interval"): a violation of
  // the atomic play that no weaker consistency explains (classify, the
  // whole-trace check up to the violation) is the protocol's all the same.
  // Without this, a protocol finding shrunk past races never re-occurred.
  if (r.outcome == RunResult::Outcome::Pass && r.inconclusive())
    if (RunResult a = play(s);
        a.violation() &&
        classify(protocol_, a, classify_options()).kind == Classification::Kind::Protocol)
      return a;
  return r;
}

// The fuzz executions' budget: classifying a play costs no more than
// judging it (an Undecided class makes no claim).
oracle::OracleOptions FuzzCampaign::classify_options() const {
  return play_options(false).oracle_options;
}

// Longer than a play's wait: a loaded server is slow, not hung.
std::chrono::milliseconds FuzzCampaign::probe_wait() const {
  return std::max(3 * o_.message_timeout, std::chrono::milliseconds(1000));
}

Shrunk FuzzCampaign::shrink(const Script& s, const RunResult& r) {
  return shrink_as(s, r, o_.keep_going || !o_.baseline.none() || reference_ != nullptr,
                   false);
}

Shrunk FuzzCampaign::shrink_as(const Script& s, const RunResult& r, bool same_violation,
                               bool past) {
  ShrinkOptions so;
  so.same_violation = same_violation;
  so.effort = o_.shrink_effort;
  if (!o_.known.empty())
    so.known = [this](const RunResult& x) {
      return o_.known.match(quick_key(protocol_, x)).has_value();
    };
  // `--seconds` bounds the run, shrinking included: past the fuzzing time
  // and its grace, a finding keeps the smallest script shown so far.
  // (A run of no end, or of years, has none: the cast would overflow.)
  if (const double end = o_.seconds + o_.shrink_grace_seconds; end < 1e9)
    so.deadline =
        start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(end));
  ViolationShrinker shrinker(
      protocol_, [this, past](const Script& x) { return guarded_play(x, past); }, so);
  down_note_.clear();
  Shrunk out = shrinker.shrink(s, r);
  if (!down_note_.empty()) out.note = std::move(down_note_);
  down_note_.clear();
  return out;
}

// ---- Deaths (server_death.h) ----

std::chrono::steady_clock::time_point FuzzCampaign::down_deadline() const {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(o_.server_down_seconds));
}

bool FuzzCampaign::answers_by(Target& t, std::chrono::steady_clock::time_point deadline) {
  while (std::chrono::steady_clock::now() < deadline) {
    const Probe pr = probe(protocol_, t, probe_wait());
    if (pr.seen == Probe::Seen::Answered) return true;
    if (pr.seen != Probe::Seen::Silent)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool FuzzCampaign::bring_back(std::string& note) {
  const auto deadline = down_deadline();
  if (restarter_)
    if (auto started = restarter_->start(); !started) {
      note = started.error();
      return false;
    }
  if (answers_by(*target_, deadline)) return true;
  std::ostringstream why;
  why << "the server did not come back within " << o_.server_down_seconds << " s";
  if (restarter_) {
    why << " of `" << restarter_->command() << "`";
    if (auto st = restarter_->ended(); st && *st != "exit 0")
      why << " (which ended with " << *st << ")";
  } else {
    why << " (no --restart CMD, and no supervisor restarted it)";
  }
  note = why.str();
  return false;
}

bool FuzzCampaign::notice_death(const Script& s, const RunResult& r) {
  if (!target_->external() || !server_back_) return false;
  const bool none = unreachable(r);
  // (A server that never answered is not dead: nothing to blame.)
  if (none ? !ever_reached_ : !lost_answers(r)) return false;
  if (shared_) return notice_shared_death(s, r);
  Death d;
  if (refused(r))
    d = {DeathKind::Crash, refused_detail(r)};
  else
    d = confirm_death(protocol_, *target_, probe_wait());
  if (!d) return false;
  return met_death(s, r, std::move(d));
}

// On a server other processes play too: the death is looked at alone (held
// until record_deaths is done with it). What the play saw may be over by
// then (another process brought the server back): a play whose answers
// were lost while another process confirmed a death is replayed alone,
// and is a death of its own only if the server dies again.
bool FuzzCampaign::notice_shared_death(const Script& s, const RunResult& r) {
  const bool held = shared_->alone();
  const std::uint64_t seen = play_deaths_;
  shared_->hold_alone();
  Death d = confirm_death(protocol_, *target_, probe_wait());
  RunResult run = r;
  if (!d && shared_->deaths() != seen && !unreachable(r)) {
    run = play(s);
    if (lost_answers(run)) d = confirm_death(protocol_, *target_, probe_wait());
  }
  if (!d) {
    if (!held) shared_->release_alone();
    return false;
  }
  shared_->count_death();
  return met_death(s, run, std::move(d));
}

bool FuzzCampaign::met_death(const Script& s, const RunResult& r, Death d) {
  const bool none = unreachable(r);
  Met m;
  m.death = std::move(d);
  if (!none) {
    m.culprit = s;
    m.run = r;
    m.earlier = std::move(before_last_);  // (play() made s the last reached)
  } else if (last_reached_) {
    m.culprit = last_reached_->script;
    m.run = last_reached_->run;
    m.earlier = std::move(before_last_);
  }
  m.at = elapsed();
  m.executions = sum_ ? sum_->counters.executions : 0;
  last_reached_.reset();
  before_last_.reset();
  m.back = server_back_ = bring_back(m.note);
  met_.push_back(std::move(m));
  return true;
}

RunResult FuzzCampaign::targeted_replay(const Script& s) {
  RunResult none;
  none.outcome = RunResult::Outcome::Trouble;
  if (!server_back_) {
    none.detail = "cannot open connection c0: the server is down";
    return none;
  }
  RunResult r = play(s, true);
  // (Unchecked, a death here was blamed on the next script played, which
  // met the server already dead: cli_fuzz_hang's DELETE.)
  if (!notice_death(s, r)) return r;
  none.detail = "the server died or hung during this replay";
  none.trace = std::move(r.trace);
  return none;
}

RunResult FuzzCampaign::guarded_play(const Script& s, bool past) {
  if (!server_back_) {
    RunResult none;
    none.outcome = RunResult::Outcome::Trouble;
    none.detail = "cannot open connection c0: the server is down";
    return none;
  }
  RunResult r = past ? play_past_races(s) : play(s);
  if (!notice_death(s, r)) return r;
  const Met& m = met_.back();
  down_note_ = "the server was down during the shrink: " +
               std::string(death_headline(m.death.kind)) + ", " + m.death.detail +
               (m.back ? (restarter_ ? "; restarted" : "; it came back") : "; " + m.note);
  // (What a play that killed the server showed says nothing of the
  // violation being shrunk.)
  RunResult none;
  none.outcome = RunResult::Outcome::Trouble;
  none.detail = "the server died or hung during this play";
  none.trace = std::move(r.trace);
  return none;
}

namespace {
// The script's request that the run left unanswered first, alone on c0
// (nullopt when there is none, or it needs an earlier answer).
std::optional<Script> first_unanswered_alone(const Script& s, const RunResult& run,
                                             const harness::FunctionRegistry& fns) {
  for (const auto& m : run.trace.messages()) {
    if (!harness::is_request_label(m.label) || harness::is_accepted_conn(m.conn) ||
        run.trace.contains(harness::response_label(m.label)))
      continue;
    for (const auto& st : s.steps)
      if (const auto* q = std::get_if<harness::RequestStep>(&st);
          q && q->label == m.label) {
        if (!harness::references(q->body).empty()) return std::nullopt;
        Script out;
        out.steps.push_back(harness::RequestStep{q->label, 0, q->body});
        if (harness::validate(out, fns)) return std::nullopt;
        return out;
      }
    return std::nullopt;
  }
  return std::nullopt;
}
}  // namespace

Shrunk FuzzCampaign::shrink_death(const Met& m, const Script*& from) {
  const DeathKind kind = m.death.kind;
  struct State {
    Script script;
    RunResult run;
  };
  std::string lost;  // the server did not come back after a candidate
  // A candidate reproduces when it kills (hangs) the restarted server the
  // same way, alone, played to its end: a play stopped at a violation (a
  // 405 without Allow on another connection, known or not) closed its
  // connections before the server took the request that kills it, and the
  // death went unshrunk, a second finding (cli_fuzz_restart, now and then).
  auto kills = [&](const Script& c, RunResult& out) {
    if (!server_back_) return false;
    out = play_unjudged(c);
    const Death d = unreachable(out) || refused(out)
                        ? Death{DeathKind::Crash, out.detail}
                        : confirm_death(protocol_, *target_, probe_wait());
    if (!d) return false;
    server_back_ = bring_back(lost);
    return d.kind == kind;
  };
  from = &m.culprit;
  State start{taken(m.culprit, m.run), m.run};
  RunResult again;
  bool shown = false;
  // The request the server left unanswered first, alone, before the whole
  // script: most deaths need no more, and every replay that kills costs a
  // restart.
  std::optional<Script> failed_alone;  // (not tried again in the loop below)
  if (auto alone = first_unanswered_alone(start.script, m.run, protocol_.functions);
      alone && server_back_) {
    if (kills(*alone, again)) {
      start.script = std::move(*alone);
      shown = true;
    } else {
      failed_alone = std::move(alone);
    }
  }
  for (int i = 0; i < 2 && !shown && server_back_; ++i)
    shown = kills(start.script, again);
  if (!shown && m.earlier && server_back_) {
    State before{taken(m.earlier->script, m.earlier->run), m.earlier->run};
    for (int i = 0; i < 2 && !shown && server_back_; ++i)
      shown = kills(before.script, again);
    if (shown) {
      start = std::move(before);
      from = &m.earlier->script;
    }
  }
  if (!shown) {
    Shrunk out{start.script, m.run, false, {}};
    out.note = !lost.empty()   ? lost
               : !server_back_ ? "the server is down"
                               : "neither it nor the script before it killed the "
                                 "restarted server again in 2 replays (the server "
                                 "may die of what many scripts did)";
    return out;
  }
  start.run = again;
  mutator::Shrinker<State, Script> sh;
  // First the request the server left unanswered first, alone (most
  // deaths need no more: one reproduction instead of one per step).
  sh.candidates = [&](const State& st) {
    std::vector<Script> out;
    if (auto alone = first_unanswered_alone(st.script, st.run, protocol_.functions);
        alone && !(*alone == st.script) && !(failed_alone && *alone == *failed_alone))
      out.push_back(std::move(*alone));
    for (Script& c :
         mutator::structural_candidates(st.script, mutator::FailingRun{st.run.trace, {}},
                                        protocol_.functions, protocol_.required_fields))
      out.push_back(std::move(c));
    // Each request as its plainest kind: one death, one name, whatever
    // method it was met under.
    for (Script& c : plainer_candidates(protocol_, st.script))
      out.push_back(std::move(c));
    return out;
  };
  sh.test = [&](const Script& c) -> mutator::Tested<State> {
    RunResult x;
    if (!kills(c, x)) return {std::nullopt, 1};
    return {State{c, std::move(x)}, 1};
  };
  sh.memo_key = [](const Script& c) { return harness::print_script(c); };
  // (Each reproduction costs a restart, a hang's its probes too: at most
  // a minute, and no more than the campaign has left unless that is less
  // than 10 s.)
  const int effort = std::max(1, o_.shrink_effort);
  const double seconds = std::min(60.0 * effort, std::max(10.0, o_.seconds - elapsed()));
  auto best = mutator::shrink_greedy(
      std::move(start), sh,
      {.max_replays = static_cast<std::size_t>(200 * effort),
       .max_time = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
           std::chrono::duration<double>(seconds))});
  Shrunk out{best.best.script, best.best.run, true, {}};
  if (!server_back_) out.note = lost;
  return out;
}

void FuzzCampaign::count_known(const std::string& id, FuzzSummary& sum) const {
  ++sum.counters.baseline_known;
  ++sum.baseline_counts[id];
}

void FuzzCampaign::record_death(const Met& m, const std::string& quick, const Shrunk& sh,
                                double shrunk_before, FuzzSummary& sum,
                                const FuzzObserver& observer) {
  const std::string sig = death_signature(protocol_, m.death.kind, sh.run);
  // A death the baseline recorded (reproduced, by the same name), or whose
  // shrunk script kills the baseline's own build too (--baseline-target),
  // is known: counted, no finding. (Only a reproduced one: its script
  // alone kills the server; an unreplayed blame is a guess.)
  const bool on_file = sh.reproduced && o_.baseline.contains(sig);
  if (sh.reproduced && !by_signature_.count(sig) &&
      (on_file || death_on_reference(sh.script, sig, m.death.kind, sum))) {
    if (!on_file) ++sum.counters.reference_known;
    count_known(sig, sum);
    ++quick_[quick].signatures[std::string(kBaselinePrefix) + sig];
    return;
  }
  ++quick_[quick].signatures[sig];
  auto [it, fresh] = by_signature_.try_emplace(sig, sum.findings.size());
  if (fresh) {
    Finding f;
    f.signature = sig;
    f.kind = death_kind_name(m.death.kind);
    f.first_seconds = m.at;
    f.first_fuzzing_seconds = m.at - shrunk_before;
    f.first_execution = m.executions;
    f.reproduced = sh.reproduced;
    f.script = sh.script;
    f.run = sh.run;
    f.original_steps = m.culprit.steps.size();
    f.detail = m.death.detail;
    f.note = sh.note;
    // Not replayed, the blame is a guess when this play had no answer at
    // all and the one before left requests unanswered too: the probe after
    // that one may have been answered just before the server stopped (a
    // server that hung on a request on one connection still answered the
    // probe on another).
    if (!sh.reproduced && m.earlier && lost_answers(m.earlier->run) && answered_nothing(m.run))
      f.earlier_script = m.earlier->script;
    sum.findings.push_back(std::move(f));
  }
  Finding& f = sum.findings[it->second];
  ++f.count;
  if (!m.back) sum.lost_on = it->second;
  if (fresh) {
    if (observer.on_death)
      observer.on_death({sum.findings.size(), f, sum.counters, m.culprit});
  } else if (sh.reproduced &&
             (!f.reproduced || sh.run.trace.size() < f.run.trace.size())) {
    f.reproduced = true;
    f.script = sh.script;
    f.run = sh.run;
    f.original_steps = m.culprit.steps.size();
    f.note.clear();
    f.earlier_script.reset();
  }
}

void FuzzCampaign::unpool(const Script& s) {
  for (auto it = recent_pooled_.begin(); it != recent_pooled_.end(); ++it)
    if (it->first == s) {
      std::erase(pool_, it->second);
      recent_pooled_.erase(it);
      return;
    }
}

namespace {
std::vector<std::string> request_signatures(const harness::Protocol& p,
                                            const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& m : r.trace.messages())
    if (harness::is_request_label(m.label) && !harness::is_accepted_conn(m.conn))
      out.push_back(request_signature(p, m.ir));
  return out;
}
}  // namespace

std::optional<std::size_t> FuzzCampaign::known_killer(const Met& m,
                                                      const FuzzSummary& sum) const {
  const std::vector<std::string> sent = request_signatures(protocol_, m.run);
  for (std::size_t i = 0; i < sum.findings.size(); ++i) {
    const Finding& f = sum.findings[i];
    if (f.kind != death_kind_name(m.death.kind) || !f.reproduced) continue;
    const std::vector<std::string> killer = request_signatures(protocol_, f.run);
    if (killer.empty()) continue;
    std::size_t k = 0;
    for (const std::string& x : sent)
      if (k < killer.size() && x == killer[k]) ++k;
    if (k == killer.size()) return i;
  }
  return std::nullopt;
}

void FuzzCampaign::record_deaths(FuzzSummary& sum, const FuzzObserver& observer) {
  while (!met_.empty()) {
    Met m = std::move(met_.front());
    met_.erase(met_.begin());
    const bool hang = m.death.kind == DeathKind::Hang;
    ++(hang ? sum.counters.hangs : sum.counters.crashes);
    add_outage(sum,
               ServerOutage{m.at, m.executions, m.death.detail, m.culprit, m.back, hang});
    // Never mutated again: its mutants would mostly kill the server again.
    unpool(m.culprit);
    const std::string qk = death_quick_key(protocol_, m.death.kind, m.run);
    Quick& q = quick_[qk];
    const std::uint64_t n = ++q.seen;
    // A script that holds the requests of a death already shrunk (in that
    // order) died of it, most likely: a repeat, not shrunk again (each
    // reproduction costs a restart).
    if (auto i = known_killer(m, sum)) {
      ++sum.findings[*i].count;
      ++q.signatures[sum.findings[*i].signature];
      if (!m.back) sum.lost_on = *i;
      continue;
    }
    bool settled = false;  // a finding of this key showed again when replayed
    for (const auto& [sig, count] : q.signatures)
      if (auto it = by_signature_.find(sig); it != by_signature_.end())
        settled = settled || sum.findings[it->second].reproduced;
    const double found = elapsed();
    const double shrunk_before = sum.shrink_seconds;
    if (m.back && server_back_ && (power_of_four(n) || (n <= 3 && !settled))) {
      const Script* from = nullptr;
      const Shrunk sh = shrink_death(m, from);
      sum.shrink_seconds += elapsed() - found;
      if (shared_ && !sh.reproduced) {
        // (Another process's, most likely: blamed on nobody.)
        ++sum.counters.unblamed_deaths;
      } else if (from != &m.culprit) {  // the script before it kills it
        unpool(m.earlier->script);
        Met earlier = m;
        earlier.culprit = m.earlier->script;
        earlier.run = m.earlier->run;
        record_death(earlier, qk, sh, shrunk_before, sum, observer);
      } else {
        record_death(m, qk, sh, shrunk_before, sum, observer);
      }
    } else if (shared_ && m.back && q.signatures.empty()) {
      // A key no replay has blamed yet, on a server others play too: not
      // blamed without one.
      ++sum.counters.unblamed_deaths;
    } else if (q.signatures.empty()) {
      // Not shrunk: the server is not back (the run ends with it), or went
      // down again meanwhile.
      Shrunk sh{taken(m.culprit, m.run), m.run, false,
                m.back ? "not shrunk: the server went down again" : m.note};
      record_death(m, qk, sh, shrunk_before, sum, observer);
    } else {  // a repeat of the key's most frequent name
      auto best = std::max_element(
          q.signatures.begin(), q.signatures.end(),
          [](const auto& a, const auto& b) { return a.second < b.second; });
      ++best->second;
      if (best->first.starts_with(kBaselinePrefix)) {  // a known death's
        count_known(best->first.substr(kBaselinePrefix.size()), sum);
        continue;
      }
      const std::size_t i = by_signature_.at(best->first);
      ++sum.findings[i].count;
      if (!m.back) sum.lost_on = i;
    }
  }
  // (A death of a shared server was looked at alone: the others go on.)
  if (shared_) shared_->release_alone();
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
  // (Only a run that started from the site's reads has any: FuzzOptions::seeds.)
  if (!o_.seeds.empty() && protocol_.site && protocol_.site->of && !r.inconclusive())
    for (const auto& m : r.trace.messages()) {
      if (harness::is_request_label(m.label)) continue;
      const harness::Json* q = r.trace.find(harness::request_of(m.label));
      if (!q) continue;
      if (auto path = protocol_.site->of(*q); path && site_paths_.count(*path))
        ++sum.site_answers[*path];
    }
  if (r.inconclusive() && !o_.log_inconclusive.empty()) {
    std::ofstream out(o_.log_inconclusive, std::ios::app);
    out << "### script\n"
        << harness::print_script(s) << "### run\n"
        << r.report(protocol_) << "\n### events (bench/oracle_recheck reads them)\n";
    for (const auto& e : r.events) out << harness::dump_json(e.to_json()) << "\n";
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
  for (const auto& [sig, count] : q.signatures) {
    if (auto it = by_signature_.find(sig); it != by_signature_.end()) {
      const Finding& f = sum.findings[it->second];
      if (f.reproduced && f.run.trace.size() <= kShortRace) return true;
    }
  }
  return false;
}

// A shrunk occurrence: a new finding, or a repeat that may give a better
// report (one that reproduces, or in fewer messages).
void FuzzCampaign::record(const std::string& quick, const Script& s, const RunResult& r,
                          const Shrunk& sh, Classification cls, bool race,
                          bool unconfirmed, double found, double shrunk_before,
                          FuzzSummary& sum, const FuzzObserver& observer) {
  const std::string sig = signature_of(protocol_, sh.run);
  const std::string id = (race ? "race: " : "") + sig;
  ++quick_[quick].signatures[id];
  auto [it, fresh] = by_signature_.try_emplace(id, sum.findings.size());
  if (fresh) {
    Finding f;
    f.signature = sig;
    f.kind = kind_name(r.outcome);
    f.first_seconds = found;
    f.first_fuzzing_seconds = found - shrunk_before;
    f.first_execution = sum.counters.executions;
    f.reproduced = sh.reproduced;
    f.script = sh.script;
    f.run = sh.run;
    f.original_steps = s.steps.size();
    f.classification = std::move(cls);
    f.race = race;
    f.unconfirmed = unconfirmed;
    f.note = sh.note;  // (a shrink cut by the run's end says so)
    sum.findings.push_back(std::move(f));
  }
  Finding& f = sum.findings[it->second];
  ++f.count;
  if (fresh) {
    if (observer.on_violation)
      observer.on_violation({sum.findings.size(), f.signature, found, sum.counters, s, sh,
                             f.classification, f.race, f.unconfirmed});
  } else if (sh.reproduced &&
             (!f.reproduced || sh.run.trace.size() < f.run.trace.size())) {
    f.reproduced = true;
    f.unconfirmed = false;
    f.script = sh.script;
    f.run = sh.run;
    f.original_steps = s.steps.size();
    f.classification = std::move(cls);
    f.note = sh.note;
  }
}

// A passing play with an advisory: counted, and kept once per key.
void FuzzCampaign::note_advisory(const Script& s, const RunResult& r, FuzzSummary& sum) {
  ++sum.counters.advisories;
  const std::string key = advisory_key(protocol_, r);
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

bool FuzzCampaign::take(const Script& s, const RunResult& r, FuzzSummary& sum,
                        const FuzzObserver& observer) {
  if (!past_) return settle(s, r, false, false, sum, observer);
  const Classification c = classify(protocol_, r, classify_options());
  // (Undecided: shrunk as before, and its shrunk run classed again.)
  if (c.kind != Classification::Kind::NotLinearizable)
    return settle(s, r, false, c.kind == Classification::Kind::Protocol, sum, observer);
  ++sum.counters.races;
  // The play stopped at the race: what came after it is judged on a replay
  // past races (first: the nearest in time to the play that showed it).
  const RunResult past = guarded_play(s, true);
  if (settle(s, r, true, false, sum, observer)) return true;  // not a race after all
  if (!past.violation() || known(past, sum)) return false;
  ++sum.counters.past_race_violations;
  return settle(s, past, false, true, sum, observer);
}

bool FuzzCampaign::settle(const Script& s, const RunResult& r, bool race, bool past,
                          FuzzSummary& sum, const FuzzObserver& observer) {
  const double found = elapsed();
  const bool first = !o_.keep_going && !race;
  const bool baselined = !o_.baseline.none() || reference_ != nullptr;
  // keep_going, races and a baseline's: a sample of the occurrences is
  // shrunk (power_of_four, and the first 8 until settled); the others count
  // as repeats of their quick_key's most frequent signature.
  const std::string qk = (race ? "race: " : "") + quick_key(protocol_, r);
  Quick& q = quick_[qk];
  const std::uint64_t n = ++q.seen;
  if ((!first || baselined) && !q.signatures.empty() && !power_of_four(n) &&
      !(n <= 8 && !settled(q, sum))) {
    auto best = std::max_element(
        q.signatures.begin(), q.signatures.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    if (best->first.starts_with(kBaselinePrefix)) {
      ++best->second;
      count_known(best->first.substr(kBaselinePrefix.size()), sum);
      return false;
    }
    if (first) return false;  // (not reached: a first violation ends the run)
    ++sum.findings[by_signature_.at(best->first)].count;
    return false;
  }
  const double shrunk_before = sum.shrink_seconds;
  // (A race's counterexample names it: shrunk to the same violation; so is
  // any violation a baseline will name.)
  Shrunk sh = shrink_as(s, r, o_.keep_going || race || baselined, past);
  // Known to the baseline: counted, nothing else.
  if (baselined)
    if (std::string id = identity_of(protocol_, sh.run);
        o_.baseline.contains(id) || (!id.empty() && shown_on_reference(sh, id, sum))) {
      if (!o_.baseline.contains(id)) ++sum.counters.reference_known;
      sum.shrink_seconds += elapsed() - found;
      count_known(id, sum);
      ++q.signatures[std::string(kBaselinePrefix) + id];
      return false;
    }
  Classification cls = classify(protocol_, sh.run);
  const bool is_race = past_ && cls.kind == Classification::Kind::NotLinearizable;
  // Not shown again: neither the baseline's identities nor its build can
  // say whether it is new (Finding::unconfirmed).
  const bool unconfirmed = baselined && !is_race && !sh.reproduced;
  if (!is_race && !unconfirmed && !o_.keep_going) {
    sum.first = FirstViolation{kind_name(r.outcome), found,         elapsed() - found, s,
                               std::move(sh),        std::move(cls)};
    if (observer.on_violation)
      observer.on_violation({0, "", found, sum.counters, sum.first->original,
                             sum.first->shrunk, sum.first->classification});
    return true;
  }
  sum.shrink_seconds += elapsed() - found;
  record(qk, s, r, sh, std::move(cls), is_race, unconfirmed, found, shrunk_before, sum,
         observer);
  return false;
}

FuzzSummary FuzzCampaign::run(std::mt19937_64& rng, const FuzzObserver& observer) {
  FuzzSummary sum;
  sum_ = &sum;
  sum.known_counts.assign(o_.known.entries().size(), 0);
  for (const std::string& seed : o_.seeds) {
    add_to_pool(seed, rng);
    if (!protocol_.site || !protocol_.site->of) continue;
    auto script = harness::parse_script(seed, protocol_.functions);
    if (!script) continue;
    for (const auto& st : script->steps)
      if (const auto* q = std::get_if<harness::RequestStep>(&st))
        if (auto path = protocol_.site->of(harness::evaluate_loose(
                q->body, harness::LabelledTrace{}, protocol_.functions)))
          site_paths_.insert(*path);
  }
  double next_report = kProgressEvery;
  double down_since = -1;  // since when the server refuses connections (< 0: it answers)
  while (elapsed() < o_.seconds && !(o_.stop_requested && o_.stop_requested())) {
    auto next = next_script(rng);
    if (!met_.empty()) {  // a death in a targeted replay (targeted_replay)
      down_since = -1;
      record_deaths(sum, observer);
      if (!server_back_) break;
      continue;
    }
    if (!next) continue;
    const auto& [text, script] = *next;
    const RunResult r = execute(script, sum);
    // The server died or hung (server_death.h): a finding, whatever the
    // play showed besides. Brought back, fuzzing goes on; not, the run
    // ends with it.
    if (notice_death(script, r)) {
      down_since = -1;
      record_deaths(sum, observer);
      if (!server_back_) break;
      continue;
    }
    if (unreachable(r)) {
      // (A server that never answered, or a connect that timed out once.)
      if (down_since < 0) {
        down_since = elapsed();
        add_outage(sum, ServerOutage{down_since, sum.counters.executions, r.detail,
                                     last_reached_ ? std::optional(last_reached_->script)
                                                   : std::nullopt,
                                     false, false});
      }
      if (elapsed() - down_since >= o_.server_down_seconds) break;  // server_lost()
      // (no spinning through scripts while it is down)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (r.trace.size() > 0 && down_since >= 0) {
      down_since = -1;
      sum.outages.back().recovered = true;
    }
    if (r.outcome == RunResult::Outcome::InternalError) {
      if (sum.counters.internal_errors == 1 && observer.on_internal_error)
        observer.on_internal_error(script, r);
      continue;
    }
    // (Kept out of the pool as any violating script, a race's too:
    // mutants of it would mostly show the known bug or race again.)
    const bool is_known = known(r, sum);
    if (!r.violation() && r.advisory) note_advisory(script, r, sum);
    if (r.violation()) {
      const bool stop = !is_known && take(script, r, sum, observer);
      record_deaths(sum, observer);  // (met while shrinking)
      if (stop || !server_back_) break;
      if (o_.explore_findings) add_to_pool(text, rng);
    } else if (!r.inconclusive()) {
      add_to_pool(text, rng);
      recent_pooled_.emplace_back(script, text);
      if (recent_pooled_.size() > 4) recent_pooled_.pop_front();
      ++sum.counters.pooled;
    }
    if (observer.on_progress && elapsed() >= next_report) {
      observer.on_progress(elapsed(), sum.counters, sum.findings.size(),
                           sum.shrink_seconds);
      next_report += kProgressEvery;
    }
  }
  // A death in the last targeted replay (the next play would have met
  // it), and those met by the last shrink.
  if (server_back_ && last_reached_ && lost_answers(last_reached_->run)) {
    const Reached last = *last_reached_;
    notice_death(last.script, last.run);
  }
  record_deaths(sum, observer);
  sum_ = nullptr;
  sum.seconds = elapsed();
  sum.mutator_replays = mutator_.targeted_stats().runs;
  sum.targeted_rewrites = mutator_.targeted_stats().rewrites;
  return sum;
}

}  // namespace dualfuzz::campaign
