// `dualfuzz fuzz --spec http --target inprocess[:BUG] [--seconds N] [--seed S]
// [--connections K] [--keep-going] [--json]`: black-box generate-and-check (no
// coverage, the seed paper's mode). On a violation: shrink the script, print
// it, its trace and the explanation, exit 1. Nothing found: exit 0.
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
// `--json` ends stdout with one summary line for scripts
// (bench/eval_blackbox.py, bench/eval_realservers.py):
//   {"target":"inprocess:BUG","violation":true,"kind":"model","seconds":..,
//    "executions":..,"messages":..,"requests_sent":..,"steps":..,
//    "min_steps":..,"min_requests":..,"min_messages":..,"reproduced":..,...}
// With --keep-going, "seconds" is the whole run and the line also has
//   "violations":[{"signature":..,"kind":..,"first_seconds":..,
//                  "first_execution":..,"count":..,"script":..,"report":..,
//                  "reproduced":..,"min_steps":..,"min_requests":..,
//                  "min_messages":..,"explanation":..,"trace":[{"conn":..,
//                  "label":..,"wire_conn":..,"ir":{..}},...]},...]
#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "commands.h"
#include "dualfuzz/campaign/race_skeleton.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/sequence_chart.h"
#include "dualfuzz/mutator/minimize.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/protocols/builtin.h"
#include "io.h"

namespace dualfuzz::cli {
namespace {

using harness::Json;
using harness::RunResult;

// What the shrinker learns from a failing run: its trace (to re-point or
// inline references) and the requests with another race key than the
// killing request's (HTTP: other paths; the model keeps them independent, so they are
// tried deleted all at once; the same-violation check still decides).
mutator::FailingRun failing_run(const harness::Protocol& p, const RunResult& r) {
  mutator::FailingRun out{r.trace, {}};
  const Json* kill = killing_request(r);
  if (r.outcome != RunResult::Outcome::ModelViolation || !kill) return out;
  const std::string key = p.race_key(*kill);
  for (const auto& m : r.trace.messages())
    if (harness::is_request_label(m.label) && p.race_key(m.ir) != key)
      out.unrelated.insert(m.label);
  return out;
}

// Where the explanations went wrong ("response.status",
// "response.headers.etag", ...), from violation_key.
std::set<std::string> reasons(const harness::Protocol& p, const RunResult& r) {
  std::set<std::string> out;
  const std::string key = harness::violation_key(p, r);
  for (std::size_t at = key.find('\n'); at != std::string::npos;) {
    std::size_t end = key.find('\n', at + 1);
    out.insert(key.substr(at + 1, end == std::string::npos ? end : end - at - 1));
    at = end;
  }
  return out;
}

// The script with every request on connection 0, each followed by a wait for
// its response (closes dropped): the same interaction without concurrency.
std::optional<harness::Script> serialized(const harness::Script& s,
                                          const harness::FunctionRegistry& fns) {
  harness::Script out;
  for (const auto& st : s.steps) {
    if (const auto* q = std::get_if<harness::RequestStep>(&st)) {
      harness::RequestStep r = *q;
      r.conn = 0;
      out.steps.emplace_back(std::move(r));
      out.steps.emplace_back(harness::WaitStep{q->label});
    } else if (std::holds_alternative<harness::CommentStep>(st)) {
      out.steps.push_back(st);
    }
  }
  if (out == s || harness::validate(out, fns)) return std::nullopt;
  return out;
}

// One distinct violation (--keep-going).
struct Finding {
  std::string signature;
  std::string kind;
  double first_seconds = 0;
  std::uint64_t first_execution = 0;
  std::uint64_t count = 0;  // occurrences, incl. repeats attributed via quick_key
  bool reproduced = true;
  harness::Script script;  // minimized (or the original when not reproduced)
  RunResult run;           // of `script`
  std::size_t original_steps = 0;
};

}  // namespace

void add_fuzz_command(CLI::App& app, std::function<int()>& run) {
  struct Opts {
    std::string spec = protocols::kDefault;
    std::string target = "inprocess";
    double seconds = 60;
    std::uint64_t seed = 1;
    unsigned connections = 4;
    bool liveness = false;
    bool quiet = false;
    bool json = false;
    bool keep_going = false;
    bool no_targeted = false;
    std::string shrink;  // --shrink FILE
    unsigned shrink_tries = 100;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub =
      app.add_subcommand("fuzz", "Generate, mutate and check scripts (no coverage)");
  sub->add_option("--spec", o->spec, "protocol plug-in")
      ->check(CLI::IsMember(protocols::builtin().names()));
  sub->add_option("--target", o->target, "inprocess[:ARG] or HOST:PORT");
  sub->add_option("--seconds", o->seconds, "time budget");
  sub->add_option("--seed", o->seed, "random seed (runs are reproducible from it)");
  sub->add_option("--connections", o->connections, "connections per script (1-64)")
      ->check(CLI::Range(1, 64));
  sub->add_flag("--liveness", o->liveness, "report unanswered requests as violations");
  sub->add_flag("-q,--quiet", o->quiet, "no progress lines");
  sub->add_flag("--json", o->json,
                "end with a one-line JSON summary (time, messages, sizes)");
  sub->add_flag("--no-targeted", o->no_targeted,
                "no Z3-targeted mutation (structural mutations only)");
  sub->add_flag(
      "--keep-going", o->keep_going,
      "after a violation, go on until --seconds; report each distinct one once");
  sub->add_option(
         "--shrink", o->shrink,
         "fuzz nothing: play this script until it shows a violation (at most "
         "--shrink-tries times; a race may take many), shrink it as --keep-going "
         "does and print the finding")
      ->check(CLI::ExistingFile);
  sub->add_option("--shrink-tries", o->shrink_tries, "plays of the --shrink script")
      ->check(CLI::Range(1, 1000000));
  sub->callback([o, &run] {
    if (!o->shrink.empty()) o->keep_going = true;  // same-violation shrinking
    run = [o]() -> int {
      const campaign::Registry registry = protocols::builtin();
      auto plugin = protocols::find(registry, o->spec);
      if (!plugin) {
        std::cerr << "dualfuzz fuzz: " << plugin.error() << "\n";
        return kTrouble;
      }
      auto target = Target::make(**plugin, o->target);
      if (!target) {
        std::cerr << "dualfuzz fuzz: " << target.error() << "\n";
        return kTrouble;
      }
      const harness::Protocol& protocol = (*plugin)->protocol;
      auto solver = std::make_shared<oracle::Solver>(
          oracle::OracleOptions{}.solver_timeout_ms, protocol.model().strings);
      harness::RunOptions opts;
      opts.check_liveness = o->liveness;
      auto play = [&](const harness::Script& s, bool record_decisions = false) {
        harness::RunOptions run_opts = opts;
        run_opts.run_namespace = (*target)->reset();
        run_opts.oracle_options.limits.record_decisions = record_decisions;
        harness::Executor ex(protocol, (*target)->transport(), run_opts, solver);
        return ex.run(s);
      };
      // Targeted mutation replays a parent (one mutation in kTargetedOneIn)
      // with the oracle's branches recorded; those replays are counted apart.
      const mutator::ScriptMutator mut =
          o->no_targeted
              ? mutator::ScriptMutator(protocol)
              : mutator::ScriptMutator(
                    protocol, [&](const harness::Script& s) { return play(s, true); },
                    solver);
      std::mt19937_64 rng(o->seed);
      std::vector<std::string> pool;  // recent scripts to mutate
      const auto start = std::chrono::steady_clock::now();
      auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
      };
      std::uint64_t execs = 0, messages = 0, sent = 0, inconclusive = 0;
      // Throws in dualfuzz or the plug-in: counted and reported, never a
      // finding (the first one's report is printed, the run goes on).
      std::uint64_t internal_errors = 0;
      double shrink_seconds = 0;  // --keep-going: time spent shrinking, not fuzzing
      auto summary = [&](bool violation) {
        nlohmann::json j = {{"target", o->target},           {"seed", o->seed},
                            {"connections", o->connections}, {"violation", violation},
                            {"seconds", elapsed()},          {"executions", execs},
                            {"messages", messages},          {"requests_sent", sent},
                            {"inconclusive", inconclusive}};
        j["internal_errors"] = internal_errors;
        j["mutator_replays"] = mut.targeted_stats().runs;  // not in "executions"
        j["targeted_rewrites"] = mut.targeted_stats().rewrites;
        return j;
      };

      // Shrinks a violating run's script. Without --keep-going any violation
      // of the same kind may be kept (as before, so bench/eval_blackbox.py's
      // figures stay comparable); with it, the same violation (quick_key),
      // so that the shrunk script is a counterexample for *this* finding.
      struct Shrunk {
        harness::Script script;
        RunResult run;
        bool reproduced;
      };
      // A race's skeleton, replayed until it shows the same violation: first
      // the smallest ones (`race_candidates`: the killing request with one
      // racing request, after at most two earlier ones), up to 25 runs or
      // 2 s each, then the whole skeleton (`distilled`), up to 200 runs or
      // 10 s (ten times that with --shrink). Only a run of the small script
      // itself that showed it is reported.
      auto distill = [&](const harness::Script& s, const RunResult& r,
                         const std::function<bool(const RunResult&)>& same)
          -> std::optional<Shrunk> {
        auto replay = [&](const harness::Script& d, int runs,
                          std::chrono::seconds budget) -> std::optional<Shrunk> {
          const auto t0 = std::chrono::steady_clock::now();
          for (int i = 0; i < runs && std::chrono::steady_clock::now() - t0 < budget;
               ++i) {
            RunResult x = play(d);
            if (same(x)) return Shrunk{d, std::move(x), true};
          }
          return std::nullopt;
        };
        // --shrink has one script to spend its time on: ten times the plays.
        const int more = o->shrink.empty() ? 1 : 10;
        for (const harness::Script& c : race_candidates(s, r, protocol))
          if (auto found = replay(c, 25 * more, std::chrono::seconds(2 * more)))
            return found;
        auto d = distilled(s, r, protocol);
        if (!d) return std::nullopt;
        return replay(*d, 200 * more, std::chrono::seconds(10 * more));
      };
      // Beyond this many messages a race's counterexample is distilled.
      constexpr std::size_t kShortRace = 6;
      // --keep-going shrinking: the counterexample should show the bug and
      // nothing else, so that its signature (signature_of) names the bug.
      // `key` (a quick_key) is what must stay; it changes when a
      // precondition field or the concurrency turns out to be unneeded.
      auto settle_keep_going = [&](const harness::Script& original,
                                   const RunResult& replayed, std::string key) -> Shrunk {
        auto same = [&](const RunResult& x) {
          return x.violation() && quick_key(protocol, x) == key;
        };
        // A race shows on some runs only: the shrinker gives each candidate
        // four chances, or it would keep whatever happened to be in the
        // first run that lost the race, and a shrunk race is confirmed with
        // eight replays.
        const bool flaky = concurrent(protocol, replayed);
        auto shows = [&](const harness::Script& s, RunResult& out) {
          for (int i = 0; i < (flaky ? 8 : 3); ++i) {
            out = play(s);
            if (same(out)) return true;
          }
          return false;
        };
        auto still_fails =
            [&](const harness::Script& c) -> std::optional<mutator::FailingRun> {
          RunResult x = play(c);
          for (int i = 1; i < 4 && flaky && !same(x); ++i) x = play(c);
          if (!same(x)) return std::nullopt;
          return failing_run(protocol, x);
        };
        // quick_key keeps the killing request's preconditions, so the
        // shrinker cannot drop one the violation does not need (a reused
        // ETag shows with or without If-Modified-Since): try without each.
        auto drop_one = [&](harness::Script& s, RunResult& run) {
          const Json* kill = killing_request(run);
          if (!kill) return false;
          for (std::size_t i = 0; i < s.steps.size(); ++i) {
            auto* q = std::get_if<harness::RequestStep>(&s.steps[i]);
            if (!q || run.trace.find(q->label) != kill) continue;
            for (const harness::Protocol::Lighter& l : protocol.lighter(q->body, *kill)) {
              harness::Script cand = s;
              std::get<harness::RequestStep>(cand.steps[i]).body = l.body;
              // The same violation, killed at the same request without it.
              const std::string want =
                  model_key(protocol, protocol.request_shape(l.sent), run);
              RunResult x;
              bool ok = false;
              // ... and for no new reason: without If-Match, a PUT that
              // ignored it may still fail for reusing an ETag, which is
              // another bug.
              for (int t = 0; t < 3 && !ok; ++t) {
                x = play(cand);
                ok = x.violation() && quick_key(protocol, x) == want &&
                     std::ranges::includes(reasons(protocol, run), reasons(protocol, x));
              }
              if (!ok) continue;
              key = want;
              s = std::move(cand);
              run = std::move(x);
              return true;
            }
            break;
          }
          return false;
        };
        // A race: first try the requests on the killing request's path
        // alone, a few more times than the shrinker gives a candidate (the
        // other paths are most of a race's counterexample, and one unlucky
        // timing would keep them all).
        auto only_the_path = [&](harness::Script& s, RunResult& run) {
          const mutator::FailingRun f = failing_run(protocol, run);
          if (f.unrelated.empty()) return;
          std::set<harness::Label> needed;
          for (const auto& st : s.steps)
            if (const auto* q = std::get_if<harness::RequestStep>(&st);
                q && !f.unrelated.count(q->label))
              for (const auto& ref : harness::references(q->body))
                needed.insert(ref.label % 2 ? ref.label : ref.label - 1);
          harness::Script cand = s;
          std::erase_if(cand.steps, [&](const harness::Step& st) {
            const auto* q = std::get_if<harness::RequestStep>(&st);
            return q && f.unrelated.count(q->label) && !needed.count(q->label);
          });
          mutator::ScriptMutator::repair(cand);
          for (int i = 0; i < 8; ++i) {
            RunResult x = play(cand);
            if (same(x)) {
              s = std::move(cand);
              run = std::move(x);
              return;
            }
          }
        };
        auto settle = [&](harness::Script s, RunResult run) -> Shrunk {
          if (flaky) only_the_path(s, run);
          while (drop_one(s, run)) {
          }
          for (int round = 0; round < 4; ++round) {
            harness::Script m =
                mutator::minimize(s, failing_run(protocol, run), protocol.functions,
                                  still_fails, 2000, protocol.required_fields);
            RunResult mr;
            if (m != s) {
              if (!shows(m, mr)) break;  // shrunk by luck (a race): keep s
              s = std::move(m);
              run = std::move(mr);
            }
            if (!drop_one(s, run)) break;
            while (drop_one(s, run)) {
            }
          }
          return {s, run, true};
        };
        Shrunk out = settle(original, replayed);
        // The signature says "concurrent" only when the race is needed: try
        // the interaction in sequence. If the sequence shows a violation,
        // even another one (a DELETE that ignored If-None-Match, seen
        // concurrently as a later HEAD's 404), that is the bug to report.
        if (auto seq = serialized(out.script, protocol.functions))
          for (int i = 0; i < 3; ++i) {
            RunResult x = play(*seq);
            if (same(x)) {
              // In sequence the shrinker may get further (no race to lose).
              harness::Script m =
                  mutator::minimize(*seq, failing_run(protocol, x), protocol.functions,
                                    still_fails, 2000, protocol.required_fields);
              RunResult mr;
              if (m != *seq && shows(m, mr)) return {m, mr, true};
              return {*seq, x, true};
            }
            if (x.outcome == RunResult::Outcome::ModelViolation && killing_request(x)) {
              const std::string before = key;
              key = quick_key(protocol, x);
              Shrunk s = settle(*seq, x);
              RunResult check;
              if (shows(s.script, check)) return {s.script, check, true};
              key = before;
              break;
            }
          }
        // Still a race with a long counterexample: build it from its skeleton.
        if (out.run.trace.size() > kShortRace && concurrent(protocol, out.run))
          if (auto d = distill(out.script, out.run, same)) return *d;
        // Still long without a race: the path's last requests in sequence
        // may show it (the shrinker keeps a step whose removal changed
        // what an unrelated reference resolved to).
        if (out.run.trace.size() > kShortRace && !concurrent(protocol, out.run))
          for (const harness::Script& c :
               sequential_candidates(out.script, out.run, protocol)) {
            RunResult x;
            if (count_requests(c) < count_requests(out.script) && shows(c, x) &&
                x.trace.size() < out.run.trace.size())
              return settle(c, std::move(x));
          }
        return out;
      };
      auto shrink = [&](const harness::Script& original, const RunResult& r) -> Shrunk {
        std::string key = quick_key(protocol, r);
        auto same = [&](const RunResult& x) {
          return o->keep_going ? x.violation() && quick_key(protocol, x) == key
                               : x.outcome == r.outcome;
        };
        // A real server may show a violation only under one timing (two
        // racing PUTs): replay a few times before trusting it (a race
        // more often: a replay costs little next to losing the finding's
        // shrinking).
        const int tries = concurrent(protocol, r) ? 8 : 3;
        auto shows = [&](const harness::Script& s, RunResult& out) {
          for (int i = 0; i < tries; ++i) {
            out = play(s);
            if (same(out)) return true;
          }
          return false;
        };
        RunResult replayed;
        if (!shows(original, replayed)) {
          // A race lost on every replay may still show from its skeleton.
          if (o->keep_going && concurrent(protocol, r))
            if (auto d = distill(original, r, same))
              return settle_keep_going(d->script, d->run, key);
          // A violation that needed no race, or a race that did not show
          // from its skeleton, may show with the path's requests in
          // sequence: the original may have lost it to another timing (a
          // reference to an answer from another connection resolved before
          // that answer came).
          if (o->keep_going)
            for (const harness::Script& c : sequential_candidates(original, r, protocol))
              if (shows(c, replayed)) return settle_keep_going(c, replayed, key);
          return {original, r, false};
        }
        if (o->keep_going) return settle_keep_going(original, replayed, key);
        harness::Script small = mutator::minimize(
            original, failing_run(protocol, replayed), protocol.functions,
            [&](const harness::Script& s) -> std::optional<mutator::FailingRun> {
              RunResult x = play(s);
              if (!same(x)) return std::nullopt;
              return failing_run(protocol, x);
            },
            2000, protocol.required_fields);
        RunResult again;
        if (!shows(small, again)) {
          // The shrunk script failed by luck during shrinking; the original
          // did show it again, so report that.
          return {original, replayed, true};
        }
        return {small, again, true};
      };
      auto print_finding = [&](const harness::Script& original, const Shrunk& s,
                               double found) {
        std::cout << "dualfuzz fuzz: violation after " << found << " s, " << execs
                  << " executions, " << messages << " messages (seed " << o->seed
                  << ")\n";
        if (s.reproduced)
          std::cout << "--- minimized script (" << s.script.steps.size()
                    << " steps, from " << original.steps.size() << ")\n";
        else
          std::cout << "--- original script (" << original.steps.size()
                    << " steps; NOT minimized: the violation did not re-occur in 3 "
                       "replays (8 for a race))\n";
        std::cout << harness::print_script(s.script) << "--- " << s.run.report();
      };

      // --shrink FILE: one script's violation, shrunk as --keep-going does
      // (for a finding that did not show again during the campaign, with
      // many more tries than the campaign can afford).
      if (!o->shrink.empty()) {
        auto text = read_file(o->shrink);
        if (!text) {
          std::cerr << "dualfuzz fuzz: cannot read " << o->shrink << "\n";
          return kTrouble;
        }
        auto script = harness::parse_script(*text, protocol.functions);
        if (!script) {
          std::cerr << "dualfuzz fuzz: " << o->shrink << ": " << script.error() << "\n";
          return kTrouble;
        }
        RunResult r;
        unsigned plays = 0;
        while (plays < o->shrink_tries && !r.violation()) {
          r = play(*script);
          ++plays;
        }
        nlohmann::json j = {{"violation", r.violation()}, {"plays", plays}};
        if (!r.violation()) {
          std::cout << "dualfuzz fuzz: no violation in " << plays << " plays of "
                    << o->shrink << "\n";
        } else {
          const Shrunk sh = shrink(*script, r);
          print_finding(*script, sh, elapsed());
          j.update(finding_json(protocol, sh.script, sh.run));
          j["reproduced"] = sh.reproduced;
          j["steps"] = script->steps.size();
        }
        if (o->json)
          std::cout << "\n"
                    << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                    << "\n";
        return r.violation() ? kViolation : kNoViolation;
      }

      std::map<std::string, Finding> findings;  // by signature
      std::vector<std::string> order;           // signatures, in order found
      // quick_key -> how often seen, and which signatures its minimized
      // occurrences had (repeats are attributed to the most frequent).
      struct Quick {
        std::uint64_t seen = 0;
        std::map<std::string, std::uint64_t> signatures;
      };
      std::map<std::string, Quick> quick;

      double next_report = 5;
      while (elapsed() < o->seconds) {
        std::string parent = pool.empty() ? std::string() : pool[rng() % pool.size()];
        std::string text = mut.mutate(parent, 2048, rng);
        auto script = harness::parse_script(text, protocol.functions);
        if (!script) continue;  // cannot happen: the mutator emits scripts
        for (auto& st : script->steps) {
          if (auto* r = std::get_if<harness::RequestStep>(&st)) r->conn %= o->connections;
          if (auto* c = std::get_if<harness::CloseStep>(&st)) c->conn %= o->connections;
        }
        RunResult r = play(*script);
        ++execs;
        messages += r.trace.size();
        for (const auto& m : r.trace.messages())
          sent += harness::is_request_label(m.label);
        inconclusive += r.inconclusive();
        if (r.outcome == RunResult::Outcome::InternalError) {
          if (internal_errors++ == 0)
            std::cerr
                << "dualfuzz fuzz: internal error (reported once; the run goes on)\n"
                << harness::run_report(*script, r, o->target);
          continue;
        }
        if (r.violation() && !o->keep_going) {
          const double found = elapsed();
          const Shrunk s = shrink(*script, r);
          const double shrunk = elapsed() - found;
          print_finding(*script, s, found);
          if (o->json) {
            nlohmann::json j = summary(true);
            j["seconds"] = found;
            j["kind"] = kind_name(r.outcome);
            j["steps"] = script->steps.size();
            j["requests"] = count_requests(*script);
            j["min_steps"] = s.script.steps.size();
            j["min_requests"] = count_requests(s.script);
            j["min_messages"] = s.run.trace.size();
            j["minimize_seconds"] = shrunk;
            j["reproduced"] = s.reproduced;
            std::cout << "\n" << j.dump() << "\n";
          }
          return kViolation;
        }
        if (r.violation()) {
          // Shrinking every occurrence would spend the budget on the most
          // frequent bug, so occurrences with a known quick_key are shrunk
          // only at the 1st, 4th, 16th, 64th, ... time (a sample, in case
          // one quick_key covers two bugs); the others count as repeats of
          // the quick_key's most frequent signature.
          const double found = elapsed();
          Quick& qk = quick[quick_key(protocol, r)];
          const std::uint64_t n = ++qk.seen;
          // Until one of its findings has a short counterexample that showed
          // again (a race may not, or only in a long script), the next
          // occurrences are shrunk too, up to the 8th: each is another
          // chance at the timing the race needs.
          auto settled = [&] {
            for (const auto& [sig, count] : qk.signatures)
              if (auto it = findings.find(sig); it != findings.end() &&
                                                it->second.reproduced &&
                                                it->second.run.trace.size() <= kShortRace)
                return true;
            return false;
          };
          const bool sample = (n & (n - 1)) == 0 && __builtin_ctzll(n) % 2 == 0;  // 4^k
          if (sample || (n <= 8 && !settled())) {
            const Shrunk s = shrink(*script, r);
            shrink_seconds += elapsed() - found;
            const std::string sig = signature_of(protocol, s.run);
            ++qk.signatures[sig];
            auto [it, fresh] = findings.try_emplace(sig);
            Finding& f = it->second;
            ++f.count;
            if (fresh) {
              f.signature = sig;
              f.kind = kind_name(r.outcome);
              f.first_seconds = found;
              f.first_execution = execs;
              f.reproduced = s.reproduced;
              f.script = s.script;
              f.run = s.run;
              f.original_steps = script->steps.size();
              order.push_back(sig);
              std::cout << "=== violation " << order.size() << ": " << sig << "\n";
              print_finding(*script, s, found);
              std::cout << "\n" << std::flush;
            } else if (s.reproduced &&
                       (!f.reproduced || s.run.trace.size() < f.run.trace.size())) {
              // A later occurrence that does reproduce, or in fewer messages,
              // gives a better report.
              f.reproduced = true;
              f.script = s.script;
              f.run = s.run;
              f.original_steps = script->steps.size();
            }
          } else {
            auto best = std::max_element(
                qk.signatures.begin(), qk.signatures.end(),
                [](const auto& a, const auto& b) { return a.second < b.second; });
            ++findings[best->first].count;
          }
        } else if (pool.size() < 256) {
          // Violating scripts are not mutated further: with --keep-going
          // they would mostly find the same bug again.
          pool.push_back(text);
        } else {
          pool[rng() % pool.size()] = text;
        }
        if (!o->quiet && elapsed() >= next_report) {
          std::cerr << "dualfuzz fuzz: " << static_cast<int>(elapsed()) << " s, " << execs
                    << " executions (" << static_cast<int>(execs / elapsed()) << "/s), "
                    << messages << " messages, "
                    << (order.empty()
                            ? std::string("no violation")
                            : std::to_string(order.size()) + " distinct violations, " +
                                  std::to_string(static_cast<int>(shrink_seconds)) +
                                  " s shrinking")
                    << " (" << inconclusive << " inconclusive)\n";
          next_report += 5;
        }
      }
      if (internal_errors)
        std::cout << "dualfuzz fuzz: " << internal_errors
                  << " execution(s) ended in an internal error (a dualfuzz or plug-in "
                     "bug, not a finding; the first was reported above)\n";
      if (!order.empty()) {
        std::cout << "dualfuzz fuzz: " << order.size() << " distinct violation"
                  << (order.size() == 1 ? "" : "s") << " in " << elapsed() << " s, "
                  << execs << " executions, " << messages << " messages, " << inconclusive
                  << " inconclusive (oracle budget):\n";
        for (std::size_t i = 0; i < order.size(); ++i) {
          const Finding& f = findings[order[i]];
          std::cout << "  " << i + 1 << ". " << f.count << " x " << f.signature
                    << (f.reproduced ? "" : " (not reproduced)") << "\n";
        }
      } else {
        std::cout << "dualfuzz fuzz: no violation in " << elapsed() << " s, " << execs
                  << " executions, " << messages << " messages, " << inconclusive
                  << " inconclusive (oracle budget)\n";
      }
      if (o->json) {
        nlohmann::json j = summary(!order.empty());
        if (o->keep_going) {
          nlohmann::json list = nlohmann::json::array();
          for (const std::string& sig : order) {
            const Finding& f = findings[sig];
            Json one = finding_json(protocol, f.script, f.run);
            one.update({{"kind", f.kind},
                        {"first_seconds", f.first_seconds},
                        {"first_execution", f.first_execution},
                        {"count", f.count},
                        {"reproduced", f.reproduced},
                        {"steps", f.original_steps}});
            list.push_back(std::move(one));
          }
          j["violations"] = list;
          j["shrink_seconds"] = shrink_seconds;
        }
        std::cout << nlohmann::json(j).dump(-1, ' ', false,
                                            nlohmann::json::error_handler_t::replace)
                  << "\n";
      }
      if (!order.empty()) return kViolation;
      return internal_errors ? kInternalError : kNoViolation;
    };
  });
}

}  // namespace dualfuzz::cli
