// `dualfuzz fuzz [--spec NAME] --target inprocess[:BUG] [--seconds N] [--seed S]
// [--connections K] [--keep-going] [--known FILE] [--json] [--chart FILE]`: black-box
// generate-and-check (no coverage, the seed paper's mode). On a violation:
// shrink the script, print it, its trace (one readable line per message; with
// --json each message's IR) and the explanation, write the chart, exit 1.
// Nothing found: exit 0.
//
// A violation the server does not show again when its script is replayed (a
// race) is not minimized: the original script and its run are printed, marked
// "not reproduced" (a shrunk script that passes would be a false claim).
//
// `--keep-going`: after a violation, record its signature (see
// `signature_of`), print it if it is new, and go on fuzzing until --seconds;
// each distinct violation is printed once and its repeats are counted. Exit 1
// if any violation was found.
//
// `--known FILE`: violations already judged (campaign/known_violations.h:
// one quick-key pattern a line, `*` a wildcard, e.g. `model: GET
// if-unmodified-since* -> 200`) are counted, not reported: they neither
// stop the run nor become findings; the end of the run says how often each
// pattern matched ("known_violations" and "known" in the --json line).
//
// `--baseline FILE`: the `--json` output of an earlier run (campaign/
// baseline.h): a finding whose identity (campaign::identity_of, "identity"
// in every finding of --json) it holds is counted, not reported; the end of
// the run says how many ("baseline_known" and "baseline" in the --json line).
// A violation that did not show again when replayed cannot be matched (its
// identity is of one timing, and the baseline's build may not show it
// either): with a baseline it is "unconfirmed", printed as it is found,
// listed apart at the end and under "unconfirmed" in the --json line, never
// the run's end and never exit 1 (Finding::unconfirmed).
//
// `--json` ends stdout with one summary line for scripts
// (bench/eval_blackbox.py, bench/eval_realservers.py):
//   {"target":"inprocess:BUG","violation":true,"kind":"model","seconds":..,
//    "executions":..,"messages":..,"requests_sent":..,"steps":..,
//    "min_steps":..,"min_requests":..,"min_messages":..,"reproduced":..,...}
// With --keep-going, "seconds" is the whole run and the line also has
//   "violations":[{"signature":..,"kind":..,"first_seconds":..,
//                  "first_fuzzing_seconds":.. (less earlier shrinking),
//                  "first_execution":..,"count":..,"script":..,"report":..,
//                  "reproduced":..,"min_steps":..,"min_requests":..,
//                  "min_messages":..,"explanation":..,"reasons":[{"kind":..,"location":..,"expected":..,"observed":..,"clause":..},...],"trace":[{"conn":..,
//                  "label":..,"wire_conn":..,"ir":{..}},...]},...]
//
// A server that dies (refuses connections after it took requests) or hangs
// (answers nothing, not even a probe on a fresh connection) is a finding of
// kind "crash" or "hang" (campaign/server_death.h), printed with the script
// that did it, shrunk on a server that comes back: `--restart CMD` (a shell
// command that brings it back; the campaign then waits until it answers) or
// a supervisor of the user's. One that does not come back within
// --server-down-seconds ends the run with that finding (exit 1). Every
// --json line has "findings": the deaths, and with --keep-going the
// violations too, each as "violations" shows one (kind "crash"/"hang",
// "signature", "script", "count", "first_seconds", "reproduced", "detail",
// "note", "trace"...).
//
// Races apart (campaign/consistency.h: stop_on_races): a finding classed
// not linearizable (a weaker consistency of the protocol explains it) is
// a race: printed as it is found ("=== race N: SIGNATURE"), listed apart at
// the end and under "races" in every --json line (not in "violations" or
// "findings"; "race_plays" counts the plays that showed one), never the
// run's end and never exit 1; the script is played again judged past races,
// for the protocol's own violations. `--stop-on-races` (or `--consistency
// atomic --strict`) stops on races as on any violation, as before.
//
// The loop and the shrinking are dualfuzz::campaign's (fuzz_loop.h,
// shrink.h, server_death.h); this file parses options and renders.
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "commands.h"
#include "dualfuzz/campaign/fuzz_environment.h"
#include "dualfuzz/campaign/fuzz_loop.h"
#include "dualfuzz/campaign/judgements.h"
#include "dualfuzz/campaign/server_death.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/campaign/site.h"
#include "dualfuzz/protocols/builtin.h"
#include "io.h"
#include "jobs.h"
#include "plugin_help.h"
#include "stop_signal.h"

namespace dualfuzz::cli {
namespace {

using campaign::FuzzCampaign;
using campaign::FuzzSummary;
using harness::RunResult;

struct Opts {
  std::string spec = protocols::kDefault;
  std::string consistency;          // --consistency NAME: "" = the protocol's own
  std::vector<std::string> assume;  // --assume NAME...
  bool as_stated = false;  // --as-stated: no assumption the server's answer implies
  bool strict = false;              // --strict
  bool stop_on_races = false;       // --stop-on-races
  std::string paths;                // --paths FILE: the server's own resources
  bool no_site = false;             // --no-site: none of them
  bool shared_server = false;       // --shared-server: others write them
  std::string origin;               // --origin HOST:PORT: "" = $DUALFUZZ_ORIGIN
  campaign::FuzzOptions fuzz;
  std::uint64_t seed = 1;
  bool quiet = false;
  bool json = false;
  bool no_targeted = false;
  std::string chart;     // --chart FILE: the first violation's minimized run
  std::string shrink;    // --shrink FILE
  std::string known;     // --known FILE
  std::string baseline;  // --baseline FILE
  unsigned shrink_tries = 100;
  unsigned jobs = 1;              // --jobs N: worker processes (jobs.h)
  std::string jobs_dir;           // --jobs-dir DIR
  std::string worker_summary;     // --worker-summary FILE: a worker's --json line
  std::vector<std::string> args;  // dualfuzz's own, from "fuzz" on (for --jobs)
};

std::string dump(const nlohmann::json& j) { return harness::dump_json(j); }

harness::TraceFormat trace_format(const Opts& o) {
  return o.json ? harness::TraceFormat::Json : harness::TraceFormat::Readable;
}

void print_finding(const Opts& o, const harness::Protocol& p,
                   const campaign::FuzzObserver::Violation& v) {
  const campaign::Shrunk& s = v.shrunk;
  std::cout << "dualfuzz fuzz: " << (v.race ? "race" : "violation") << " after "
            << v.found << " s, " << v.counters.executions << " executions, "
            << v.counters.messages << " messages (seed " << o.seed << ")\n";
  if (s.reproduced)
    std::cout << "--- minimized script (" << s.script.steps.size() << " steps, from "
              << v.original.steps.size() << ")\n";
  else if (!s.note.empty())
    std::cout << "--- original script (" << v.original.steps.size()
              << " steps; NOT minimized: " << s.note << ")\n";
  else
    std::cout << "--- original script (" << v.original.steps.size()
              << " steps; NOT minimized: the violation did not re-occur in 3 "
                 "replays (8 for a race))\n";
  if (s.reproduced && !s.note.empty()) std::cout << "(" << s.note << ")\n";
  std::cout << harness::print_script(s.script) << "--- "
            << s.run.report(p, trace_format(o));
  if (v.classification.kind != campaign::Classification::Kind::None)
    std::cout << "class: " << v.classification.text << "\n";
  if (s.run.violation())
    std::cout << "identity: " << campaign::identity_of(p, s.run) << "\n";
  if (v.race)
    std::cout << "(a race: reported, no violation; the run goes on and looks past it; "
                 "--stop-on-races stops on races)\n";
  if (v.unconfirmed)
    std::cout << "(unconfirmed: it did not show again when replayed, so the baseline "
                 "cannot tell whether it is new; reported, not counted as a violation, "
                 "and the run goes on)\n";
  // The first violation only: later ones (--keep-going) would overwrite it.
  if (!o.chart.empty() && v.index <= 1 && !v.race) {
    if (write_chart(
            o.chart, p, s.script, s.run,
            "dualfuzz fuzz (" + o.fuzz.target + ", seed " + std::to_string(o.seed) + ")"))
      std::cerr << "dualfuzz fuzz: chart of the counterexample written to " << o.chart
                << "\n";
    else
      std::cerr << "dualfuzz fuzz: cannot write " << o.chart << "\n";
  }
}

// A death of the server (a crash or hang finding), as it is found.
void print_death(const Opts& o, const harness::Protocol& p,
                 const campaign::FuzzObserver::Death& d) {
  const campaign::Finding& f = d.finding;
  const auto kind =
      f.kind == "hang" ? campaign::DeathKind::Hang : campaign::DeathKind::Crash;
  std::cout << "=== " << f.kind << " " << d.index << ": " << f.signature << "\n"
            << "dualfuzz fuzz: " << campaign::death_headline(kind) << " after "
            << f.first_seconds << " s, " << d.counters.executions << " executions, "
            << d.counters.messages << " messages (seed " << o.seed << ")\n";
  if (f.reproduced)
    std::cout << "--- minimized script (" << f.script.steps.size() << " steps, from "
              << d.original.steps.size() << "): played alone on the restarted server, it "
              << (f.kind == "hang" ? "hangs" : "kills") << " it again\n";
  else
    std::cout << "--- the script the server took last (" << f.script.steps.size()
              << " steps, of " << d.original.steps.size() << "; NOT minimized: " << f.note
              << ")\n";
  std::cout << harness::print_script(f.script);
  if (f.earlier_script)
    std::cout << "--- the script played just before it, which left requests unanswered "
                 "too (the death may have begun there: play it, then the script above):\n"
              << harness::print_script(*f.earlier_script);
  std::cout << "--- " << campaign::death_report(p, kind, f.detail, f.run, trace_format(o))
            << "\n"
            << std::flush;
}

campaign::FuzzObserver observer(const Opts& o, const harness::Protocol& p) {
  campaign::FuzzObserver obs;
  obs.on_death = [&o, &p](const campaign::FuzzObserver::Death& d) {
    print_death(o, p, d);
  };
  obs.on_violation = [&o, &p](const campaign::FuzzObserver::Violation& v) {
    if (v.index)
      std::cout << "=== "
                << (v.race          ? "race "
                    : v.unconfirmed ? "unconfirmed violation "
                                    : "violation ")
                << v.index << ": " << v.signature << "\n";
    print_finding(o, p, v);
    if (v.index) std::cout << "\n" << std::flush;
  };
  obs.on_internal_error = [&o, &p](const harness::Script& s, const RunResult& r) {
    std::cerr << "dualfuzz fuzz: internal error (reported once; the run goes on)\n"
              << harness::run_report(p, s, r, o.fuzz.target, trace_format(o));
  };
  if (!o.quiet)
    obs.on_progress = [](double t, const campaign::FuzzCounters& c, std::size_t distinct,
                         double shrinking) {
      const std::string known =
          (c.known_violations ? ", " + std::to_string(c.known_violations) + " known"
                              : "") +
          (c.races ? ", " + std::to_string(c.races) + " plays with a race" : "");
      std::cerr << "dualfuzz fuzz: " << static_cast<int>(t) << " s, " << c.executions
                << " executions (" << static_cast<int>(c.executions / t) << "/s), "
                << c.messages << " messages, "
                << (distinct == 0 ? std::string("no violation")
                                  : std::to_string(distinct) + " distinct findings, " +
                                        std::to_string(static_cast<int>(shrinking)) +
                                        " s shrinking")
                << known << " (" << c.inconclusive << " inconclusive)\n";
    };
  return obs;
}

// How often each --known pattern matched.
nlohmann::json known_json(const Opts& o, const FuzzSummary& s) {
  nlohmann::json j = nlohmann::json::array();
  const auto& entries = o.fuzz.known.entries();
  for (std::size_t i = 0; i < entries.size() && i < s.known_counts.size(); ++i)
    j.push_back({{"pattern", entries[i].pattern}, {"count", s.known_counts[i]}});
  return j;
}

nlohmann::json summary_json(const Opts& o, const FuzzSummary& s) {
  const campaign::FuzzCounters& c = s.counters;
  nlohmann::json j = {{"target", o.fuzz.target},
                      {"seed", o.seed},
                      {"connections", o.fuzz.connections},
                      {"violation", s.violation()},
                      {"seconds", s.seconds},
                      {"executions", c.executions},
                      {"messages", c.messages},
                      {"requests_sent", c.requests_sent},
                      {"inconclusive", c.inconclusive}};
  j["pooled"] = c.pooled;  // passing, conclusive plays whose scripts are mutated
  j["internal_errors"] = c.internal_errors;
  j["unreachable"] = c.unreachable;  // plays the server refused, not in "executions"
  j["outages"] = c.outages;
  j["server_lost"] = s.server_lost();
  j["crashes"] = c.crashes;  // deaths met (each an occurrence of a finding)
  j["hangs"] = c.hangs;
  j["unblamed_deaths"] = c.unblamed_deaths;  // of those, another --jobs worker's
  j["mutator_replays"] = s.mutator_replays;  // not in "executions"
  j["targeted_rewrites"] = s.targeted_rewrites;
  j["known_violations"] = c.known_violations;  // matched --known: no findings
  if (!o.fuzz.known.empty()) j["known"] = known_json(o, s);
  // Findings the --baseline holds (by identity): counted, not reported.
  j["baseline_known"] = c.baseline_known;
  if (!o.fuzz.baseline_target.empty()) {
    j["baseline_target"] = o.fuzz.baseline_target;
    j["reference_known"] = c.reference_known;  // of baseline_known
    j["reference_plays"] = c.reference_plays;
  }
  if (!o.fuzz.baseline.none() || !o.fuzz.baseline_target.empty()) {
    j["baseline_file"] = o.baseline;
    nlohmann::json seen = nlohmann::json::array();
    for (const auto& [id, n] : s.baseline_counts)
      seen.push_back({{"identity", id}, {"count", n}});
    j["baseline"] = std::move(seen);
  }
  j["assume"] = o.assume;
  j["strict"] = o.strict;
  j["stop_on_races"] = o.fuzz.stop_on_races;
  j["race_plays"] = c.races;  // plays whose violation was a race (races apart)
  j["past_race_violations"] = c.past_race_violations;  // their replays' violations
  j["advisory_plays"] = c.advisories;  // passing plays that departed from a SHOULD
  nlohmann::json advisories = nlohmann::json::array();
  for (const campaign::Advisory& a : s.advisories)
    advisories.push_back({{"key", a.key},
                          {"count", a.count},
                          {"first_seconds", a.first_seconds},
                          {"script", harness::print_script(a.script)},
                          {"explanation", a.run.advisory->explanation},
                          {"reasons", a.run.advisory->reasons},
                          {"trace", campaign::trace_json(a.run)}});
  j["advisories"] = std::move(advisories);
  j["site_answers"] = s.site_answers;  // per resource of the site: answers judged
  return j;
}

// The summary line of a run stopped at its first violation.
nlohmann::json first_json(const Opts& o, const harness::Protocol& p,
                          const FuzzSummary& s) {
  const campaign::FirstViolation& f = *s.first;
  nlohmann::json j = summary_json(o, s);
  j["seconds"] = f.seconds;
  j["kind"] = f.kind;
  j["steps"] = f.original.steps.size();
  j["requests"] = campaign::count_requests(f.original);
  j["min_steps"] = f.shrunk.script.steps.size();
  j["min_requests"] = campaign::count_requests(f.shrunk.script);
  j["min_messages"] = f.shrunk.run.trace.size();
  j["minimize_seconds"] = f.minimize_seconds;
  j["reproduced"] = f.shrunk.reproduced;
  if (!f.shrunk.note.empty()) j["note"] = f.shrunk.note;
  j["class"] = campaign::class_name(f.classification.kind);
  j["consistency"] = f.classification.consistency;
  // (what a baseline records and matches: campaign/baseline.h)
  j["signature"] = campaign::signature_of(p, f.shrunk.run);
  j["identity"] = campaign::identity_of(p, f.shrunk.run);
  j["script"] = harness::print_script(f.shrunk.script);
  return j;
}

// One finding as --json shows it: a violation as finding_json makes it, a
// death (crash, hang) in the same shape.
nlohmann::json one_finding_json(const harness::Protocol& p, const campaign::Finding& f) {
  harness::Json one;
  if (f.death()) {
    const auto kind =
        f.kind == "hang" ? campaign::DeathKind::Hang : campaign::DeathKind::Crash;
    one = {{"signature", f.signature},
           {"min_steps", f.script.steps.size()},
           {"min_requests", campaign::count_requests(f.script)},
           {"min_messages", f.run.trace.size()},
           {"script", harness::print_script(f.script)},
           {"report",
            campaign::death_report(p, kind, f.detail, f.run, harness::TraceFormat::Json)},
           {"explanation", std::string(campaign::death_headline(kind)) + ": " + f.detail},
           {"detail", f.detail},
           {"note", f.note},
           {"trace", campaign::trace_json(f.run)}};
  } else {
    one = campaign::finding_json(p, f.script, f.run, &f.classification);
  }
  one.update({{"kind", f.kind},
              {"first_seconds", f.first_seconds},
              {"first_fuzzing_seconds", f.first_fuzzing_seconds},
              {"first_execution", f.first_execution},
              {"count", f.count},
              {"reproduced", f.reproduced},
              {"steps", f.original_steps}});
  if (!f.note.empty()) one["note"] = f.note;  // (why it may not be minimal)
  if (f.earlier_script) one["earlier_script"] = harness::print_script(*f.earlier_script);
  return one;
}

// Every summary line: "findings", each finding of the run (deaths; with
// --keep-going the violations too), and "races", the races apart.
void add_findings(const harness::Protocol& p, const FuzzSummary& s, nlohmann::json& j) {
  nlohmann::json list = nlohmann::json::array();
  nlohmann::json races = nlohmann::json::array();
  nlohmann::json unconfirmed = nlohmann::json::array();
  for (const campaign::Finding& f : s.findings)
    (f.race          ? races
     : f.unconfirmed ? unconfirmed
                     : list)
        .push_back(one_finding_json(p, f));
  j["findings"] = std::move(list);
  j["races"] = std::move(races);
  j["unconfirmed"] = std::move(unconfirmed);
}

nlohmann::json keep_going_json(const Opts& o, const harness::Protocol& p,
                               const FuzzSummary& s) {
  nlohmann::json j = summary_json(o, s);
  nlohmann::json list = nlohmann::json::array();
  for (const campaign::Finding& f : s.findings)
    if (!f.death() && !f.race && !f.unconfirmed) list.push_back(one_finding_json(p, f));
  j["violations"] = list;
  j["shrink_seconds"] = s.shrink_seconds;
  return j;
}

// How often the server went down: the deaths are findings (printed as
// they came); an outage that is none (a server that never answered, a
// connect that timed out once) is said here.
void print_outages(const FuzzSummary& s) {
  const campaign::FuzzCounters& c = s.counters;
  if (c.outages == 0) return;
  std::cout << "dualfuzz fuzz: the server went down " << c.outages
            << " time(s): " << c.crashes << " crash(es), " << c.hangs << " hang(s)";
  if (c.unblamed_deaths)
    std::cout << "; " << c.unblamed_deaths
              << " death(s) blamed on no script of this process (replayed alone, it "
                 "did not kill the server again: another --jobs worker's, most likely)";
  if (c.unreachable)
    std::cout << "; " << c.unreachable
              << " play(s) could not reach it (not counted as executions)";
  std::cout << "\n";
  for (const campaign::ServerOutage& o : s.outages)
    if (!o.before && o.after_executions == 0 && !o.recovered)
      std::cout << "  at " << o.seconds << " s: " << o.detail
                << " (it refused the first script: is it running?)\n";
}

// The --known patterns that matched, with how often.
void print_known(const Opts& o, const FuzzSummary& s) {
  if (s.counters.known_violations == 0) return;
  std::cout << "dualfuzz fuzz: " << s.counters.known_violations
            << " known violation(s) not reported (--known " << o.known << "):\n";
  const auto& entries = o.fuzz.known.entries();
  for (std::size_t i = 0; i < entries.size() && i < s.known_counts.size(); ++i)
    if (s.known_counts[i])
      std::cout << "  " << s.known_counts[i] << " x " << entries[i].pattern << "\n";
}

// The --baseline's findings met: how many plays, which identities.
void print_baseline(const Opts& o, const FuzzSummary& s) {
  const bool reference = !o.fuzz.baseline_target.empty();
  if (o.fuzz.baseline.none() && !reference) return;
  std::cout << "dualfuzz fuzz: " << s.counters.baseline_known
            << " known finding(s) of the baseline seen, not reported";
  if (!o.fuzz.baseline.none())
    std::cout << " (--baseline " << o.baseline << "): " << s.baseline_counts.size()
              << " of its " << o.fuzz.baseline.entries().size() << " identities";
  if (reference)
    std::cout << "; " << s.counters.reference_known
              << " of them shown by --baseline-target " << o.fuzz.baseline_target << " ("
              << s.counters.reference_plays << " plays there)";
  std::cout << "\n";
  for (const auto& [id, n] : s.baseline_counts)
    std::cout << "  " << n << " x " << id << "\n";
}

// Departures from a SHOULD: never violations, each once with its first
// script's report.
void print_advisories(const Opts& o, const harness::Protocol& p, const FuzzSummary& s) {
  if (s.advisories.empty()) return;
  std::cout << "dualfuzz fuzz: " << s.advisories.size()
            << " advisory(ies): the server departed from a SHOULD, which is no "
               "violation (--strict judges them as violations):\n";
  for (std::size_t i = 0; i < s.advisories.size(); ++i) {
    const campaign::Advisory& a = s.advisories[i];
    std::cout << "--- advisory " << i + 1 << ": " << a.count << " x " << a.key << "\n"
              << harness::print_script(a.script) << a.run.report(p, trace_format(o));
  }
}

// Why the run ended early: the server died or hung and did not come back
// (a finding: exit 1), or never answered (exit 2).
void print_stop(const FuzzSummary& s) {
  if (s.lost_on) {
    const campaign::Finding& f = s.findings[*s.lost_on];
    std::cout << "dualfuzz fuzz: stopped: "
              << (f.kind == "hang" ? "the server hung" : "the server died") << " ("
              << s.outages.back().detail << ") and did not come back; finding "
              << *s.lost_on + 1 << ": " << f.signature << "\n";
  } else if (s.server_lost()) {
    std::cout << "dualfuzz fuzz: stopped early: the server stayed "
              << (s.outages.back().hung ? "silent (hung)" : "unreachable") << "\n";
  }
}

// The races apart (not linearizable, no violation), numbered as they were
// printed.
void print_races(const FuzzSummary& s) {
  const std::size_t n = s.races();
  if (n == 0) return;
  std::cout << "dualfuzz fuzz: " << n << " distinct race" << (n == 1 ? "" : "s") << " in "
            << s.counters.races
            << " plays: not linearizable (a server whose writes take effect over an "
               "interval may answer so), no violation; each play was judged again "
               "past its race ("
            << s.counters.past_race_violations
            << " showed a violation); --stop-on-races stops on them:\n";
  for (std::size_t i = 0; i < s.findings.size(); ++i) {
    const campaign::Finding& f = s.findings[i];
    if (f.race)
      std::cout << "  " << i + 1 << ". " << f.count << " x " << f.signature
                << (f.reproduced ? "" : " (not reproduced)") << " [race]\n";
  }
}

// With a baseline: the violations that did not show again (unconfirmed).
void print_unconfirmed(const FuzzSummary& s) {
  const std::size_t n = s.unconfirmed();
  if (n == 0) return;
  std::cout << "dualfuzz fuzz: " << n << " unconfirmed violation" << (n == 1 ? "" : "s")
            << ": shown once, not again when replayed, so the baseline cannot tell "
               "new from known (no violation counted; `dualfuzz run --repeat` plays "
               "one again):\n";
  for (std::size_t i = 0; i < s.findings.size(); ++i)
    if (s.findings[i].unconfirmed)
      std::cout << "  " << i + 1 << ". " << s.findings[i].count << " x "
                << s.findings[i].signature << " [unconfirmed]\n";
}

void print_end(const Opts& o, const harness::Protocol& p, const FuzzSummary& s) {
  const campaign::FuzzCounters& c = s.counters;
  print_outages(s);
  print_known(o, s);
  print_baseline(o, s);
  print_advisories(o, p, s);
  if (!s.site_answers.empty()) {
    std::cout << "dualfuzz fuzz: answers judged per resource of the server's own:";
    for (const auto& [path, n] : s.site_answers) std::cout << " " << path << " " << n;
    std::cout << "\n";
  }
  print_stop(s);
  if (c.internal_errors)
    std::cout << "dualfuzz fuzz: " << c.internal_errors
              << " execution(s) ended in an internal error (a dualfuzz or plug-in "
                 "bug, not a finding; the first was reported above)\n";
  print_races(s);
  print_unconfirmed(s);
  const std::size_t n = s.findings.size() - s.races() - s.unconfirmed();
  if (n == 0 && c.executions == 0 && c.unreachable) {
    // (Not "no violation": nothing was judged.)
    std::cout << "dualfuzz fuzz: nothing judged in " << s.seconds
              << " s: the server never took a script (" << c.unreachable
              << " play(s) could not reach it)\n";
    return;
  }
  if (n == 0) {
    std::cout << "dualfuzz fuzz: no violation in " << s.seconds << " s, " << c.executions
              << " executions, " << c.messages << " messages, " << c.inconclusive
              << " inconclusive (oracle budget)\n";
    return;
  }
  std::map<std::string, std::size_t> classes;
  for (const campaign::Finding& f : s.findings)
    if (!f.race && !f.unconfirmed)
      ++classes[f.death() ? f.kind : campaign::class_name(f.classification.kind)];
  std::string by_class;
  for (const auto& [name, count] : classes)
    by_class += (by_class.empty() ? "" : ", ") + std::to_string(count) + " " + name;
  std::cout << "dualfuzz fuzz: " << n << " distinct finding" << (n == 1 ? "" : "s")
            << " (" << by_class << ") in " << s.seconds << " s, " << c.executions
            << " executions, " << c.messages << " messages, " << c.inconclusive
            << " inconclusive (oracle budget):\n";
  for (std::size_t i = 0; i < s.findings.size(); ++i) {
    const campaign::Finding& f = s.findings[i];
    if (f.race || f.unconfirmed) continue;
    std::cout << "  " << i + 1 << ". " << f.count << " x " << f.signature
              << (f.reproduced ? ""
                  : f.death()  ? " (not shrunk)"
                               : " (not reproduced)")
              << " ["
              << (f.death() ? f.kind : campaign::class_name(f.classification.kind))
              << "]\n";
  }
}

// --shrink FILE: one script's violation, shrunk as --keep-going does (for a
// finding that did not show again during the campaign, with many more
// tries than the campaign can afford).
int shrink_file(const Opts& o, FuzzCampaign& c) {
  const harness::Protocol& protocol = c.protocol();
  auto text = read_file(o.shrink);
  if (!text) {
    std::cerr << "dualfuzz fuzz: cannot read " << o.shrink << "\n";
    return kTrouble;
  }
  auto script = harness::parse_script(*text, protocol.functions);
  if (!script) {
    std::cerr << "dualfuzz fuzz: " << o.shrink << ": " << script.error() << "\n";
    return kTrouble;
  }
  const auto start = std::chrono::steady_clock::now();
  RunResult r;
  unsigned plays = 0;
  while (plays < o.shrink_tries && !r.violation()) {
    r = c.play(*script);
    ++plays;
  }
  nlohmann::json j = {{"violation", r.violation()}, {"plays", plays}};
  if (!r.violation()) {
    std::cout << "dualfuzz fuzz: no violation in " << plays << " plays of " << o.shrink
              << "\n";
  } else {
    const campaign::Shrunk sh = c.shrink(*script, r);
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const campaign::Classification cls = campaign::classify(protocol, sh.run);
    print_finding(o, protocol, {0, "", t, {}, *script, sh, cls});
    j.update(campaign::finding_json(protocol, sh.script, sh.run, &cls));
    j["reproduced"] = sh.reproduced;
    j["steps"] = script->steps.size();
  }
  if (o.json) std::cout << "\n" << dump(j) << "\n";
  return r.violation() ? kViolation : kNoViolation;
}

// --jobs N: what N workers cannot share, refused before any starts.
std::optional<std::string> jobs_refusal(const Opts& o, const campaign::Plugin& plugin) {
  const bool own_servers = o.fuzz.target.find("{worker}") != std::string::npos;
  if (!o.shrink.empty()) return "--shrink plays one script: run it without --jobs";
  if (plugin.protocol.origin && o.fuzz.target.rfind("inprocess", 0) != 0 &&
      (!own_servers || o.origin.find("{worker}") == std::string::npos))
    return "protocol '" + plugin.protocol.name +
           "' has the tester play the origin: each worker needs a proxy and an origin "
           "address of its own ({worker} in --target and --origin)";
  return std::nullopt;
}

int fuzz(Opts o) {  // (a copy: --known is read into it)
  const campaign::Registry registry =
      o.origin.empty() ? protocols::builtin() : protocols::builtin(o.origin);
  auto plugin = protocols::find(registry, o.spec);
  if (!plugin) {
    std::cerr << "dualfuzz fuzz: " << plugin.error() << "\n";
    return kTrouble;
  }
  if (o.jobs > 1) {
    if (auto why = jobs_refusal(o, **plugin)) {
      std::cerr << "dualfuzz fuzz: --jobs " << o.jobs << ": " << *why << "\n";
      return kTrouble;
    }
    return run_jobs(
        {.jobs = o.jobs,
         .seed = o.seed,
         .args = o.args,
         .seconds = o.fuzz.seconds,
         .keep_going = o.fuzz.keep_going,
         .json = o.json,
         .quiet = o.quiet,
         .chart = o.chart,
         .dir = o.jobs_dir,
         .shared_server = o.fuzz.target.rfind("inprocess", 0) != 0 &&
                          o.fuzz.target.find("{worker}") == std::string::npos});
  }
  // --known judged[:SERVER]: the plug-in's judgements (of SERVER) as a
  // baseline of patterns, matched by identity after shrinking.
  std::optional<campaign::Baseline> judged;
  if (o.known == "judged" || o.known.starts_with("judged:")) {
    const std::string server = o.known == "judged" ? "" : o.known.substr(7);
    auto all = campaign::Judgements::parse((*plugin)->judgements, o.spec + " judgements");
    auto b = all ? all->baseline(server, o.known)
                 : Result<campaign::Baseline>(make_error(all.error()));
    if (!b) {
      std::cerr << "dualfuzz fuzz: --known " << o.known << ": " << b.error() << "\n";
      return kTrouble;
    }
    judged = std::move(*b);
  } else if (!o.known.empty()) {
    auto known = campaign::KnownViolations::load(o.known);
    if (!known) {
      std::cerr << "dualfuzz fuzz: " << known.error() << "\n";
      return kTrouble;
    }
    o.fuzz.known = std::move(*known);
  }
  if (o.fuzz.explore_findings && !o.fuzz.keep_going) {
    std::cerr << "dualfuzz fuzz: --record-baseline needs --keep-going (a record "
                 "holds every finding of the run)\n";
    return kTrouble;
  }
  if (!o.baseline.empty()) {
    auto baseline = campaign::Baseline::load(o.baseline);
    if (!baseline) {
      std::cerr << "dualfuzz fuzz: " << baseline.error() << "\n";
      return kTrouble;
    }
    o.fuzz.baseline = std::move(*baseline);
  }
  if (judged) {
    if (o.baseline.empty()) {
      o.fuzz.baseline = std::move(*judged);
      o.baseline = o.known;  // (what the summary names it by)
    } else {
      o.fuzz.baseline.merge(*judged);
      o.baseline += " and --known " + o.known;
    }
  }
  campaign::FuzzOptions fo = o.fuzz;
  fo.targeted = !o.no_targeted;
  fo.log_inconclusive = campaign::FuzzEnvironment::read().log_inconclusive;
  // Ctrl-C (or a --jobs parent's SIGTERM) ends the run with its summary.
  install_stop_handlers();
  fo.stop_requested = stop_requested;
  fo.stop_on_races = campaign::stop_on_races(o.stop_on_races, o.consistency, o.strict);
  o.fuzz.stop_on_races = fo.stop_on_races;  // (for the --json line)
  // --shrink has one script to spend its time on: ten times the plays.
  if (!o.shrink.empty()) {
    fo.keep_going = true;  // same-violation shrinking
    fo.shrink_effort = 10;
  }
  auto tested = campaign::judged_as(**plugin, o.assume, o.consistency, o.strict);
  if (!tested) {
    std::cerr << "dualfuzz fuzz: " << tested.error() << "\n";
    return kTrouble;
  }
  // What the server's first answer says of it (Protocol::implied_assumption):
  // taken as if the user had said --assume, and said.
  if (o.shrink.empty() && !o.as_stated)
    if (auto more = campaign::implied_beyond(*tested, o.fuzz.target, o.assume);
        !more.empty()) {
      for (const std::string& a : more) {
        std::cerr << "dualfuzz fuzz: the server's answer implies --assume " << a << "\n";
        o.assume.push_back(a);
      }
      tested = campaign::judged_as(**plugin, o.assume, o.consistency, o.strict);
      if (!tested) {
        std::cerr << "dualfuzz fuzz: " << tested.error() << "\n";
        return kTrouble;
      }
    }
  // The server's own resources (campaign/site.h): named, or found from the
  // start paths; on a server of its own (in-process) there are none.
  if (!o.no_site && tested->protocol.site && o.shrink.empty() &&
      o.fuzz.target.rfind("inprocess", 0) != 0) {
    std::vector<std::string> named;
    if (!o.paths.empty()) {
      auto read = campaign::read_site_paths(o.paths);
      if (!read) {
        std::cerr << "dualfuzz fuzz: --paths: " << read.error() << "\n";
        return kTrouble;
      }
      named = std::move(*read);
    }
    auto t = campaign::Target::make(*tested, o.fuzz.target);
    auto found = t ? campaign::discover_site(tested->protocol, **t, named)
                   : Result<std::vector<std::string>>(make_error(t.error()));
    if (found && !found->empty()) {
      fo.seeds = campaign::site_seeds(tested->protocol, *found, 4, o.shared_server);
      std::cerr << "dualfuzz fuzz: reading " << found->size()
                << " of the server's own resources with GET, HEAD and OPTIONS only ("
                << (o.shared_server
                        ? "each answer judged alone: --shared-server"
                        : "judged on the assumption that nobody else writes them "
                          "during the run; --shared-server if someone does")
                << "):";
      for (const std::string& p : *found) std::cerr << " " << p;
      std::cerr << "\n";
    } else if (!o.paths.empty()) {
      std::cerr << "dualfuzz fuzz: --paths: "
                << (found ? "the server answered none of them" : found.error()) << "\n";
      return kTrouble;
    }
  }
  auto c = FuzzCampaign::make(*tested, fo);
  if (!c) {
    std::cerr << "dualfuzz fuzz: " << c.error() << "\n";
    return kTrouble;
  }
  if (!o.shrink.empty()) return shrink_file(o, **c);
  std::mt19937_64 rng(o.seed);
  const FuzzSummary s = (*c)->run(rng, observer(o, (*c)->protocol()));
  const harness::Protocol& p = (*c)->protocol();
  // The --json line: printed with --json, written for a parent of --jobs
  // workers (--worker-summary).
  nlohmann::json line;
  if (o.json || !o.worker_summary.empty()) {
    line = s.first             ? first_json(o, p, s)
           : o.fuzz.keep_going ? keep_going_json(o, p, s)
                               : summary_json(o, s);
    add_findings(p, s, line);
  }
  if (!o.worker_summary.empty() && !write_file(o.worker_summary, dump(line) + "\n"))
    std::cerr << "dualfuzz fuzz: cannot write " << o.worker_summary << "\n";
  if (s.first) {
    print_outages(s);
    print_known(o, s);
    print_baseline(o, s);
    print_advisories(o, p, s);
    for (std::size_t i = 0; i < s.findings.size(); ++i)
      if (!s.findings[i].race && !s.findings[i].unconfirmed)
        std::cout << "dualfuzz fuzz: also " << s.findings[i].count << " x "
                  << s.findings[i].signature << "\n";
    print_races(s);
    print_unconfirmed(s);
    if (o.json) std::cout << "\n" << dump(line) << "\n";
    return kViolation;
  }
  print_end(o, p, s);
  if (o.json) std::cout << dump(line) << "\n";
  if (s.violation()) return kViolation;
  if (s.server_lost()) return kTrouble;
  return s.counters.internal_errors ? kInternalError : kNoViolation;
}

}  // namespace

void add_fuzz_command(CLI::App& app, std::function<int()>& run,
                      std::vector<std::string> args) {
  auto o = std::make_shared<Opts>();
  o->args = std::move(args);
  CLI::App* sub =
      app.add_subcommand("fuzz", "Generate, mutate and check scripts (no coverage)");
  const campaign::Registry registry = protocols::builtin();
  sub->add_option("--spec", o->spec, spec_help(registry, protocols::kDefault))
      ->check(CLI::IsMember(registry.names()));
  sub->add_option("--target", o->fuzz.target, "inprocess[:ARG] or HOST:PORT");
  sub->add_option("--origin", o->origin, kOriginHelp);
  sub->add_option("--consistency", o->consistency,
                  consistency_help(registry,
                                   "test against a weaker consistency than atomic "
                                   "requests (docs/consistency.md)"));
  sub->add_option("--assume", o->assume, assume_help(registry));
  sub->add_flag("--as-stated", o->as_stated, kAsStatedHelp);
  sub->add_flag("--strict", o->strict, kStrictHelp);
  sub->add_flag("--stop-on-races", o->stop_on_races,
                "a race (a finding classed not linearizable: explained once writes "
                "take effect over an interval) stops the run and exits 1 as any "
                "violation; by default it is reported apart and the run goes on "
                "(also: --consistency atomic --strict)");
  sub->add_option("--paths", o->paths,
                  "a file of the server's own resources to read (one path a line), "
                  "judged as unknown but fixed; default: those linked from / and "
                  "/sitemap.xml")
      ->check(CLI::ExistingFile);
  sub->add_flag("--no-site", o->no_site,
                "read none of the server's own resources (only the run's own paths)");
  sub->add_flag("--shared-server", o->shared_server,
                "others write the server's own resources during the run: judge each "
                "answer to them on its own, never against an earlier one");
  sub->add_option("--seconds", o->fuzz.seconds,
                  "time budget of the whole run: fuzzing stops then, and shrinking what "
                  "it found at most 10 s later (a finding cut there says so)");
  sub->add_option("--seed", o->seed, "random seed (runs are reproducible from it)");
  sub->add_option("--connections", o->fuzz.connections, "connections per script (1-64)")
      ->check(CLI::Range(1, 64));
  sub->add_flag("--liveness", o->fuzz.liveness,
                "report unanswered requests as violations");
  sub->add_option_function<int>(
         "--timeout-ms",
         [o](int ms) { o->fuzz.message_timeout = std::chrono::milliseconds(ms); },
         "per-message timeout (default 2000); once 200 answers were read, a play "
         "waits at most 8 times the slowest of them (at least 250 ms), except under "
         "--liveness; the probes that tell a hang keep this timeout")
      ->check(CLI::Range(1, 600000));
  sub->add_option("--oracle-budget", o->fuzz.oracle_budget,
                  "configurations the oracle may explore per play before it gives up "
                  "(inconclusive, never a violation; 0: no limit; default 5000)");
  sub->add_flag("-q,--quiet", o->quiet, "no progress lines");
  sub->add_flag("--json", o->json,
                "each message of a trace as its JSON IR, and end with a one-line JSON "
                "summary (time, messages, sizes)");
  sub->add_option("--chart", o->chart,
                  "write a message-sequence chart of the first violation's minimized run "
                  "(.svg, or .html with script and report)");
  sub->add_flag("--no-targeted", o->no_targeted,
                "no Z3-targeted mutation (structural mutations only)");
  sub->add_flag(
      "--keep-going", o->fuzz.keep_going,
      "after a violation, go on until --seconds; report each distinct one once");
  sub->add_option("--restart", o->fuzz.restart,
                  "shell command that brings the server back after it died or hung "
                  "(run in a process group of its own, which the next restart kills "
                  "first); the campaign waits until it answers, shrinks the script "
                  "that killed it and goes on. Without it, a supervisor of yours may "
                  "restart it; a server that does not come back ends the run");
  sub->add_option("--server-down-seconds", o->fuzz.server_down_seconds,
                  "how long a server that died or hung is waited for (default 10)")
      ->check(CLI::Range(0.0, 3600.0));
  sub->add_option("--known", o->known,
                  "a file of known violations, one quick-key pattern a line (`*`: any "
                  "text; see docs/fuzzing.md): counted, never reported or stopped on; "
                  "or judged[:SERVER]: the findings the plug-in's judgements (of "
                  "SERVER) cover, judged by hand on real servers, matched by identity "
                  "as a --baseline is");
  sub->add_flag("--record-baseline", o->fuzz.explore_findings,
                "a run that records a baseline (with --keep-going --json): violating "
                "scripts stay in the pool and are mutated further, so that the known "
                "defects' neighbouring forms are met and recorded too");
  sub->add_option("--baseline", o->baseline,
                  "`dualfuzz fuzz --json` output of an earlier run (e.g. on the main "
                  "branch): findings whose identity it holds are counted, not reported "
                  "or stopped on (see docs/fuzzing.md)");
  sub->add_option("--baseline-target", o->fuzz.baseline_target,
                  "HOST:PORT of the baseline's own build, running (the main branch's "
                  "beside the change's): a finding the --baseline lacks is played there "
                  "too, and one that shows there under the same identity is known")
      ->type_name("HOST:PORT");
  sub->add_option("--baseline-replays", o->fuzz.baseline_replays,
                  "plays of a new finding on --baseline-target before it counts as not "
                  "shown there (default 3: a race may need several; one that needs "
                  "requests in flight at once gets 5N)")
      ->check(CLI::PositiveNumber);
  sub->add_option(
         "--shrink", o->shrink,
         "fuzz nothing: play this script until it shows a violation (at most "
         "--shrink-tries times; a race may take many), shrink it as --keep-going "
         "does and print the finding")
      ->check(CLI::ExistingFile);
  sub->add_option("--shrink-tries", o->shrink_tries, "plays of the --shrink script")
      ->check(CLI::Range(1, 1000000));
  sub->add_option(
         "--jobs", o->jobs,
         "worker processes (seeds SEED..SEED+N-1) against the same target, one merged "
         "report: the first finding stops them all (all run --seconds with "
         "--keep-going). Against one server each execution keeps to its own path "
         "namespace; `{worker}` in any option becomes the worker's number (0..N-1), "
         "e.g. --target 127.0.0.1:808{worker} for a server each")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--jobs-dir", o->jobs_dir,
                  "where --jobs workers leave their outputs (worker-I.out, .err, .json; "
                  "default: a fresh directory under $TMPDIR)");
  sub->add_option("--worker-summary", o->worker_summary,
                  "write the --json summary line to FILE too (what --jobs workers do)")
      ->group("");  // (hidden: --jobs's own)
  sub->add_option("--shared-server-lock", o->fuzz.shared_server,
                  "a lock file of the processes fuzzing this server together (what "
                  "--jobs workers on one server get)")
      ->group("");
  sub->callback([o, &run] { run = [o] { return fuzz(*o); }; });
}

}  // namespace dualfuzz::cli
