// Black-box generate-and-check fuzzing (no coverage, the seed paper's
// mode) for any protocol plug-in: mutate scripts from a pool, play each on a
// fresh server, shrink a violation (shrink.h). Without keep_going the run
// stops at the first violation; with it, each distinct violation (by
// signature_of) is kept once and its repeats are counted. A violation whose
// quick_key a `known` pattern matches (known_violations.h) does neither: it
// is counted, per pattern, and its script is not mutated further. `dualfuzz
// fuzz` is this loop plus option parsing and rendering.
//
// Races apart (consistency.h, stop_on_races): a violation classed not
// linearizable is a *race*: shrunk and kept as a finding (Finding::race,
// a sample of each quick key's occurrences, as with keep_going), never the
// run's end nor a violation of FuzzSummary::violation(); the script is
// played again judged past races (past_races), and what that shows is
// taken as any violation. A protocol violation is shrunk on plays judged
// past races too, so its counterexample does not end in a race.
//
// A baseline (FuzzOptions::baseline, baseline.h): every violation is shrunk
// to the same violation (as with keep_going) and named by identity_of; one
// whose identity the baseline holds is counted (FuzzSummary::baseline_counts)
// and is neither a finding nor the run's end. Its quick key's later
// occurrences are sampled as keep_going's repeats are (so a new bug that
// shares a quick key with a known one is still shrunk, at the 1st..8th,
// 16th, 64th... occurrence). A reproduced death is known by its signature;
// with FuzzOptions::baseline_target, a finding the file lacks (a
// reproduced death too) is played on the baseline's own build and known
// when it shows there.
//
// A server that dies or hangs (server_death.h) is a finding too, of kind
// "crash" or "hang", with the script that did it, shrunk when the server
// comes back (FuzzOptions::restart, or a supervisor of the user's), named
// by the shrunk script's shape (death_signature) and counted once per
// name. One that does not come back ends the run with that finding.
//
//   auto c = campaign::FuzzCampaign::make(plugin, {.target = "inprocess:lost-update",
//                                                   .seconds = 5});
//   std::mt19937_64 rng(1);
//   campaign::FuzzSummary s = (*c)->run(rng, {});
//   if (s.violation()) std::cout << harness::print_script(s.first->shrunk.script);
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/campaign/baseline.h"
#include "dualfuzz/campaign/consistency.h"
#include "dualfuzz/campaign/detail/shared_server.h"
#include "dualfuzz/campaign/known_violations.h"
#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/campaign/server_death.h"
#include "dualfuzz/campaign/shrink.h"
#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

struct FuzzOptions {
  std::string target = "inprocess";  // inprocess[:ARG] or HOST:PORT
  double seconds = 60;
  // Shrinking may go on this long past `seconds`, then stops where it is
  // (ShrinkOptions::deadline): the run ends within seconds + this (and one
  // play), whatever it found late.
  double shrink_grace_seconds = 10;
  unsigned connections = 4;  // requests are put on connections 0..connections-1
  bool liveness = false;     // unanswered requests are violations
  // How long the tester waits for each awaited message (RunOptions): a real
  // proxy on loopback answers in milliseconds, and every `answer` step for
  // a request it did not forward waits this long.
  std::chrono::milliseconds message_timeout{2000};
  bool keep_going = false;
  bool targeted = true;   // Z3-targeted mutation besides the structural one
  int shrink_effort = 1;  // ShrinkOptions::effort
  // How long a server that died or hung is waited for (after `restart`,
  // or for a supervisor of the user's to restart it): one that is not
  // back ends the run with that finding (server_lost). A server that never
  // answered ends it after as long, with no finding (nothing to blame).
  double server_down_seconds = 10;
  // `sh -c` command that brings a dead or hung server back (Restarter,
  // server_death.h: its own process group, which the next restart kills
  // first); the campaign then waits until the server answers the probe.
  // Empty: wait for a supervisor. A death's script is shrunk only on a
  // server that comes back (a candidate reproduces when it kills or hangs
  // the restarted server again).
  std::string restart{};
  // Violations that are no findings (--known FILE): counted, never shrunk,
  // and an unknown one is not shrunk into one of them.
  KnownViolations known{};
  // Findings already known (--baseline FILE): matched by identity after
  // shrinking; counted, never reported or stopped on.
  Baseline baseline{};
  // The baseline's own server, running (--baseline-target HOST:PORT: the
  // main branch's build beside the change's): a finding whose identity the
  // baseline lacks is played there `baseline_replays` times (five times
  // that for a race, kConcurrent), and one that
  // shows there under the same identity is known all the same (counted as
  // the baseline's, FuzzCounters::reference_known). A record meets only
  // some of a server's forms of its own defects (lighttpd's If-Unmodified-
  // Since under another method or beside another field); the build it was
  // recorded on decides the others. Empty: no such server.
  std::string baseline_target{};
  int baseline_replays = 3;
  // A run that records a baseline (--record-baseline, with keep_going): a
  // violating script stays in the pool like a passing one, so that the
  // known defects' neighbouring forms (another method, another field beside
  // the one that matters) are met and recorded too; a comparing run meets
  // them early, whatever it finds first. (A death's script never stays.)
  bool explore_findings = false;
  // Configurations the oracle may explore per play before it gives up
  // (RunOptions::oracle_options.limits.max_explored; 0: no limit).
  std::size_t oracle_budget = harness::RunOptions::kMaxExploredPerRun;
  // Scripts the pool starts with (campaign/site.h: reads of the server's
  // own resources); mutated like any pool script.
  std::vector<std::string> seeds{};
  // A race stops the run and counts as a violation, as any other
  // (`--stop-on-races`; consistency.h: stop_on_races). Without it races
  // are findings apart, when the protocol has a weaker consistency that
  // classifies (past_races).
  bool stop_on_races = false;
  // Asked from outside to end (the CLI's SIGINT/SIGTERM, a parent of
  // `--jobs` workers): checked between plays; the run then ends as if its
  // time were up, with its summary.
  std::function<bool()> stop_requested{};
  // A lock file of the processes that fuzz this server together (`dualfuzz
  // fuzz --jobs` on one server; detail/shared_server.h): their plays run
  // side by side, a death is handled by one process alone, and is blamed
  // on a script only when that script, replayed alone, kills the server
  // again (another worker's death is an outage, no finding).
  std::string shared_server{};
  // A file each script the oracle gave up on is appended to, with why and
  // its events (to see which script shapes hit the budget; bench/oracle_recheck
  // reads them). `dualfuzz fuzz` sets it from $DUALFUZZ_LOG_INCONCLUSIVE.
  std::string log_inconclusive{};
};

struct FuzzCounters {
  std::uint64_t executions = 0;
  std::uint64_t messages = 0;
  std::uint64_t requests_sent = 0;
  std::uint64_t inconclusive = 0;  // the oracle's budget ran out
  // Throws in dualfuzz or the plug-in: counted, never a finding.
  std::uint64_t internal_errors = 0;
  // Plays that could not reach the server (not counted as executions), and
  // the times it went from reachable to unreachable.
  std::uint64_t unreachable = 0;
  std::uint64_t outages = 0;
  // Confirmed deaths (server_death.h), each an outage and an occurrence
  // of a "crash" or "hang" finding.
  std::uint64_t crashes = 0;
  std::uint64_t hangs = 0;
  // On a shared server (FuzzOptions::shared_server): deaths met whose
  // script did not kill the server again alone, most likely another
  // process's doing: outages, not findings.
  std::uint64_t unblamed_deaths = 0;
  std::uint64_t known_violations = 0;  // matched FuzzOptions::known
  // Violations whose shrunk identity (or whose quick key's, when not
  // shrunk again) FuzzOptions::baseline holds.
  std::uint64_t baseline_known = 0;
  // Of those, the ones FuzzOptions::baseline_target showed under their
  // identity (the record lacked it), and the plays made there.
  std::uint64_t reference_known = 0;
  std::uint64_t reference_plays = 0;
  // Plays whose violation was a race (races apart), each then played again
  // judged past races; `past_race_violations` of those replays showed a
  // violation of the protocol's own.
  std::uint64_t races = 0;
  std::uint64_t past_race_violations = 0;
  // Passing plays with a RunResult::advisory (a SHOULD not followed).
  std::uint64_t advisories = 0;
  // Passing plays whose scripts joined the pool. An inconclusive play's
  // script does not: its mutants would mostly be as costly and as blind.
  std::uint64_t pooled = 0;
};

// The server stopped accepting connections (it crashed, or was stopped), or
// accepted them and answered nothing, not even Protocol::liveness_probe on a
// fresh connection (it hangs: a loop, a deadlock). Neither is a functional
// verdict (a server may close a connection with requests unanswered, RFC
// 9112 §9.6, and no RFC bounds its time), but a user wants to know: once
// the server had answered, each is a death, a finding of kind "crash" or
// "hang" (Finding::death) whose script is the one the server took last (for
// a hang, the one during which it went silent). The outages are the log:
// each death, and a server that never answered.
struct ServerOutage {
  double seconds = 0;  // when a connection was first refused, or the probe unanswered
  std::uint64_t after_executions = 0;
  std::string detail;                     // the connection error, or the silence
  std::optional<harness::Script> before;  // the last script the server took
  bool recovered = false;                 // it answered again within the wait
  bool hung = false;                      // it accepted, and answered nothing
};

// One distinct violation (keep_going), or a distinct death of the server
// (kind "crash" or "hang", any run: named by death_signature).
struct Finding {
  std::string signature;
  std::string kind;  // "model", "protocol", "liveness"; "crash", "hang"
  double first_seconds = 0;
  // first_seconds less the time spent shrinking earlier findings: the
  // fuzzing time to meet it, comparable with an engine that shrinks after
  // its run (bench/eval_mutants.py).
  double first_fuzzing_seconds = 0;
  std::uint64_t first_execution = 0;
  std::uint64_t count = 0;  // occurrences, incl. repeats attributed via quick_key
  bool reproduced = true;
  harness::Script script;  // minimized (or the original when not reproduced)
  harness::RunResult run;  // of `script`
  std::size_t original_steps = 0;
  Classification classification;  // of `run` (consistency.h)
  // Classed not linearizable while races are apart: reported and counted,
  // no violation (FuzzSummary::violation), no exit 1.
  bool race = false;
  // With a baseline (--baseline, --baseline-target): a violation that did
  // not show again when replayed (Shrunk::reproduced false), so it cannot
  // be told new or known: reported and counted like a race, no violation
  // (FuzzSummary::violation), never the run's end, no exit 1.
  bool unconfirmed = false;
  // A death: what the probes saw, and (reproduced false) why the script
  // is not shrunk ("the server did not come back ...").
  std::string detail;
  // Why its script may not be minimal (Shrunk::note: the shrink met a
  // death, or the run's end), or empty.
  std::string note;
  // A death not replayed (reproduced false) whose play came right after
  // another that left requests unanswered too: that one, which may be
  // the culprit (not replayed: the server did not come back).
  std::optional<harness::Script> earlier_script;
  bool death() const { return kind == "crash" || kind == "hang"; }
};

// A departure from a recommendation (RunResult::advisory): the model
// accepts the trace, its strict reading (every SHOULD a MUST) does not.
// Never a violation, never stops the run; one per quick_key of the
// advisory's verdict, with the first script that showed it (not shrunk).
struct Advisory {
  std::string key;  // quick_key of the run judged strictly ("model: FOO -> 400")
  double first_seconds = 0;
  std::uint64_t count = 0;
  harness::Script script;
  harness::RunResult run;  // its `advisory` says which answer and which SHOULD
};

// The violation that ended a run without keep_going.
struct FirstViolation {
  std::string kind;
  double seconds = 0;  // when found
  double minimize_seconds = 0;
  harness::Script original;
  Shrunk shrunk;
  Classification classification;  // of shrunk.run
};

struct FuzzSummary {
  double seconds = 0;  // the whole run
  FuzzCounters counters;
  std::uint64_t mutator_replays = 0;  // targeted mutation's, not in executions
  std::uint64_t targeted_rewrites = 0;
  double shrink_seconds = 0;  // keep_going: time spent shrinking, not fuzzing
  std::optional<FirstViolation> first;
  // In the order found: keep_going's violations, and in any run the
  // server's deaths (Finding::death()).
  std::vector<Finding> findings;
  std::vector<ServerOutage> outages;  // the first few (counters.outages counts all)
  // Distinct advisories, in the order met (at most kMaxAdvisories; the
  // counter counts all).
  std::vector<Advisory> advisories;
  static constexpr std::size_t kMaxAdvisories = 64;
  // Per FuzzOptions::known entry (same index): the violations it matched.
  std::vector<std::uint64_t> known_counts;
  // Per identity of FuzzOptions::baseline met: how often.
  std::map<std::string, std::uint64_t> baseline_counts;
  // Answers the oracle judged per resource of the site (Protocol::Site::of),
  // in passing and violating plays.
  std::map<std::string, std::uint64_t> site_answers;
  // The run ended because the server stayed unreachable (outages.back()).
  bool server_lost() const { return !outages.empty() && !outages.back().recovered; }
  // The death that ended the run (the server did not come back), if any.
  std::optional<std::size_t> lost_on;
  // A violation was found (a race while races are apart is none).
  bool violation() const {
    return first.has_value() ||
           std::any_of(findings.begin(), findings.end(),
                       [](const Finding& f) { return !f.race && !f.unconfirmed; });
  }
  std::size_t unconfirmed() const {
    return static_cast<std::size_t>(
        std::count_if(findings.begin(), findings.end(),
                      [](const Finding& f) { return f.unconfirmed; }));
  }
  std::size_t races() const {
    return static_cast<std::size_t>(std::count_if(
        findings.begin(), findings.end(), [](const Finding& f) { return f.race; }));
  }
};

// What a caller sees while the loop runs (each may be empty).
struct FuzzObserver {
  // A shrunk violation: `index` 0 without keep_going, else the 1-based
  // number of a new signature (repeats are not reported).
  struct Violation {
    std::size_t index = 0;
    std::string signature;  // keep_going only
    double found = 0;
    FuzzCounters counters;
    const harness::Script& original;
    const Shrunk& shrunk;
    const Classification& classification;
    bool race = false;  // a race while races are apart (Finding::race)
    bool unconfirmed = false;  // Finding::unconfirmed
  };
  // Also called for each new race (races apart), `race` set, `index` its
  // number among the findings.
  std::function<void(const Violation&)> on_violation;
  std::function<void(const harness::Script&, const harness::RunResult&)>
      on_internal_error;
  // A new death (its signature not seen before): `index` is its 1-based
  // number among the findings, `original` the script it was met with.
  struct Death {
    std::size_t index = 0;
    const Finding& finding;
    FuzzCounters counters;
    const harness::Script& original;
  };
  std::function<void(const Death&)> on_death;
  // Every 5 s: elapsed seconds, counters, distinct violations so far.
  std::function<void(double, const FuzzCounters&, std::size_t, double)> on_progress;
};

class FuzzCampaign {
 public:
  static Result<std::unique_ptr<FuzzCampaign>> make(const Plugin& plugin, FuzzOptions o);
  FuzzCampaign(const FuzzCampaign&) = delete;
  FuzzCampaign& operator=(const FuzzCampaign&) = delete;

  // Fuzzes until a violation (or, with keep_going, until o.seconds).
  FuzzSummary run(std::mt19937_64& rng, const FuzzObserver& observer);
  // One execution on a fresh server (or namespace).
  harness::RunResult play(const harness::Script& s, bool record_decisions = false);
  // The same, judged past races (consistency.h: past_races) while races
  // are apart; else play(s).
  harness::RunResult play_past_races(const harness::Script& s);
  // Shrinks a violating run of `s` as the loop does. A death of the server
  // met meanwhile is noticed (the server brought back, or the shrink's
  // other plays not tried) and said in Shrunk::note.
  Shrunk shrink(const harness::Script& s, const harness::RunResult& r);
  const harness::Protocol& protocol() const { return protocol_; }

 private:
  FuzzCampaign(harness::Protocol p, std::unique_ptr<Target> t, FuzzOptions o);
  struct Quick {  // per quick_key: how often seen, its minimized signatures
    std::uint64_t seen = 0;
    // (a baseline's identity as "baseline: " + identity)
    std::map<std::string, std::uint64_t> signatures;
  };
  // A script that reached the server, and its run.
  struct Reached {
    harness::Script script;
    harness::RunResult run;
  };
  // A death a play met, not yet recorded as a finding.
  struct Met {
    Death death;
    harness::Script culprit;  // the script the server took last
    harness::RunResult run;   // its run
    // The one before: a server may die a little after a play's end (after
    // the probe that found it up), and the next play is blamed; when the
    // culprit does not kill it again, this one is tried.
    std::optional<Reached> earlier;
    double at = 0;
    std::uint64_t executions = 0;
    bool back = false;  // the server answered again (restarted)
    std::string note;   // when not: why
  };
  std::optional<std::pair<std::string, harness::Script>> next_script(
      std::mt19937_64& rng) const;
  // After a play of `s` (which gave `r`): did the server die or hang? If
  // so the death is queued in met_, the server brought back (server_back_
  // false when it did not come back) and true returned.
  bool notice_death(const harness::Script& s, const harness::RunResult& r);
  bool notice_shared_death(const harness::Script& s, const harness::RunResult& r);
  bool met_death(const harness::Script& s, const harness::RunResult& r, Death d);
  // --restart, or a supervisor: until the server answers the probe again
  // (at most server_down_seconds); `note` says why not.
  bool bring_back(std::string& note);
  // Probes `t` until it answers (true) or `deadline` passes; and the
  // deadline of a wait for a server that went down (server_down_seconds).
  bool answers_by(Target& t, std::chrono::steady_clock::time_point deadline);
  std::chrono::steady_clock::time_point down_deadline() const;
  // A shrink's play: a death it meets is noticed, and the play counts as
  // one that showed nothing; with the server gone, no play is made.
  harness::RunResult guarded_play(const harness::Script& s, bool past = false);
  // The targeted mutator's replay (branches recorded), checked for a death
  // as a play of the loop is: a death is met (met_) and the replay shows
  // Trouble.
  harness::RunResult targeted_replay(const harness::Script& s);
  // met_ as findings: each death shrunk (a sample of each quick key's, on
  // a server that came back), named, counted.
  void record_deaths(FuzzSummary& sum, const FuzzObserver& observer);
  void record_death(const Met& m, const std::string& quick, const Shrunk& sh,
                    double shrunk_before, FuzzSummary& sum, const FuzzObserver& observer);
  // The smallest script that still kills (hangs) the restarted server:
  // from m.culprit, or m.earlier when only that one does (`from` says
  // which).
  Shrunk shrink_death(const Met& m, const harness::Script*& from);
  std::chrono::milliseconds probe_wait() const;
  void unpool(const harness::Script& s);
  // The reproduced death finding whose shrunk requests m's run sent (by
  // request_signature, in order), if any.
  std::optional<std::size_t> known_killer(const Met& m, const FuzzSummary& sum) const;
  harness::RunResult execute(const harness::Script& s, FuzzSummary& sum);
  // `s` played with `opts` on a fresh server (or namespace), judged by `p`.
  harness::RunResult run_on_target(const harness::Script& s, harness::RunOptions opts,
                                   const harness::Protocol& p,
                                   const std::shared_ptr<oracle::Solver>& solver);
  harness::RunOptions play_options(bool record_decisions) const;
  // How long an `answer` step waits while the tester holds a forward, as
  // learned from this target's runs (a proxy's; unused otherwise).
  harness::HeldWaitBound held_wait_;
  harness::AnswerWaitBound answer_wait_;
  // One execution played to its end, judged by nobody: whether a script
  // kills (hangs) the server must not depend on where a violation of it,
  // known or not, would have stopped the play (shrink_death).
  harness::RunResult play_unjudged(const harness::Script& s);
  void reached(const harness::Script& s, const harness::RunResult& r);
  // shrink(), with `same_violation` (ShrinkOptions) and on plays judged
  // past races (`past`).
  Shrunk shrink_as(const harness::Script& s, const harness::RunResult& r,
                   bool same_violation, bool past);
  // A violating play that no known pattern matches: classed, shrunk, kept.
  // True when it ends the run (the first violation without keep_going).
  bool take(const harness::Script& s, const harness::RunResult& r, FuzzSummary& sum,
            const FuzzObserver& observer);
  // Shrinks one violating play (`race`: classed a race; `past`: judged past
  // races, as its shrink's plays are) and keeps what the shrunk run shows:
  // a finding (keep_going, or a race: a sample of each quick key's
  // occurrences is shrunk, the others count as repeats), or the first
  // violation (true).
  bool settle(const harness::Script& s, const harness::RunResult& r, bool race, bool past,
              FuzzSummary& sum, const FuzzObserver& observer);
  void record(const std::string& quick, const harness::Script& s,
              const harness::RunResult& r, const Shrunk& sh, Classification cls,
              bool race, bool unconfirmed, double found, double shrunk_before,
              FuzzSummary& sum, const FuzzObserver& observer);
  oracle::OracleOptions classify_options() const;
  bool settled(const Quick& q, const FuzzSummary& sum) const;
  bool known(const harness::RunResult& r, FuzzSummary& sum) const;
  // One play of `s` on the baseline's server (reference_), judged or not.
  harness::RunResult play_on_reference(const harness::Script& s, bool judged,
                                       FuzzSummary& sum);
  // A finding the baseline knows (by file or by reference_), met once more.
  void count_known(const std::string& id, FuzzSummary& sum) const;
  // Does `s` kill (or hang: `kind`) the baseline's server (reference_) too?
  // It is then waited for to come back, as the target is.
  bool death_on_reference(const harness::Script& s, const std::string& sig,
                          DeathKind kind, FuzzSummary& sum);
  // Does the baseline's server (reference_) show `id` on the shrunk
  // finding's script (in sequence first, when `id` is no race)?
  bool shown_on_reference(const Shrunk& sh, const std::string& id, FuzzSummary& sum);
  void note_advisory(const harness::Script& s, const harness::RunResult& r,
                     FuzzSummary& sum);
  void add_to_pool(std::string text, std::mt19937_64& rng);
  double elapsed() const;

  harness::Protocol protocol_;
  std::unique_ptr<Target> target_;
  std::unique_ptr<Target> reference_;  // FuzzOptions::baseline_target
  // Identities played on reference_: shown there (true) or not.
  std::map<std::string, bool> reference_verdicts_;
  FuzzOptions o_;
  std::shared_ptr<oracle::Solver> solver_;
  // past_races(protocol_) while races are apart, and its solver.
  std::optional<harness::Protocol> past_;
  std::shared_ptr<oracle::Solver> past_solver_;
  mutator::ScriptMutator mutator_;
  std::vector<std::string> pool_;  // recent scripts to mutate
  // The site's resources the seeds read (Protocol::Site::of): site_answers
  // counts answers to these, not to a mutant's path ('/%2f') of a site read.
  std::set<std::string> site_paths_;
  // Per quick_key (a race's prefixed "race: "), and per signature (a
  // race's prefixed too: a race and a protocol violation may share one).
  std::map<std::string, Quick> quick_;
  std::map<std::string, std::size_t> by_signature_;  // index into findings
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<Restarter> restarter_;  // o_.restart
  // FuzzOptions::shared_server, and the deaths it had counted when the last
  // play began.
  std::unique_ptr<detail::SharedServer> shared_;
  std::uint64_t play_deaths_ = 0;
  // The last script that reached the server (any play: the loop's, a
  // shrink's, a targeted replay's) and its run; reset by a death.
  std::optional<Reached> last_reached_, before_last_;
  bool ever_reached_ = false;
  bool server_back_ = true;  // false: it died and did not come back
  std::vector<Met> met_;
  FuzzSummary* sum_ = nullptr;  // during run()
  std::string down_note_;       // the shrink in progress met a death
  // The last scripts pooled, with their texts: a death's script (or the
  // one before it) is taken out of the pool again.
  std::deque<std::pair<harness::Script, std::string>> recent_pooled_;
};

}  // namespace dualfuzz::campaign
