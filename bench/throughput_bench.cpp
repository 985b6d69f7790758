// Throughput of the in-process HTTP pipeline — the fuzz target's code path
// (parse the script text, play it with the executor against the in-process
// reference server, judge it with the oracle; campaign::Player is what
// tests/fuzz/http_inprocess_fuzzer.cpp runs) — on ~10-request scripts the
// mutator generates from a fixed seed, with the oracle on and off
// (RunOptions::oracle). The oracle's share is measured twice: from the two
// rates, and directly, by replaying each run's recorded events into a fresh
// oracle and timing only that. Rates are per CPU second of the benchmark's
// thread; wall-clock rates follow. The three measures alternate in short
// rounds and the shares are the median round's (the host's speed drifts).
//
//   throughput_bench [--seconds S] [--rounds K] [--scripts N] [--requests R]
//                    [--seed X] [--bug NAME]
//                    [--profile on|off|oracle]   (one mode only, to run under perf)
//   exec/s oracle on: 2712 ...
//   oracle share (1 - on/off), median of 15 rounds: 18.0% (rounds 12.1-25.3%)
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench_args.h"
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/mutator/script_mutator.h"

namespace {

using Clock = std::chrono::steady_clock;
using dualfuzz::campaign::Player;
const dualfuzz::campaign::Plugin kHttp = dualfuzz::http::plugin();
namespace harness = dualfuzz::harness;
namespace oracle = dualfuzz::oracle;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
// CPU time of this thread: the figures stay meaningful on a shared, loaded
// machine (wall-clock rates are printed too).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Rate {
  std::size_t execs = 0, messages = 0, violations = 0, inconclusive = 0;
  double seconds = 0, cpu = 0;
  double per_second() const {
    return seconds > 0 ? static_cast<double>(execs) / seconds : 0;
  }
  double per_cpu_second() const { return cpu > 0 ? static_cast<double>(execs) / cpu : 0; }
};

// Plays the corpus round-robin for `budget` seconds, parsing each time as
// the fuzz target does.
Rate measure(Player& p, const std::vector<std::string>& corpus, double budget,
             bool oracle_on, std::size_t execs = 0) {
  Rate r;
  const auto start = Clock::now();
  const double cpu0 = cpu_seconds();
  for (std::size_t i = 0;; ++i) {
    if (execs ? i == execs : (i & 15) == 0 && seconds_since(start) >= budget) break;
    const std::string& text = corpus[i % corpus.size()];
    auto script = p.parse(text);
    if (!script) continue;
    harness::RunResult res = p.play(*script, oracle_on);
    ++r.execs;
    r.messages += res.trace.size();
    r.violations += res.violation();
    r.inconclusive += res.inconclusive();
  }
  r.seconds = seconds_since(start);
  r.cpu = cpu_seconds() - cpu0;
  return r;
}

// The files of a fuzz target's corpus that parse as scripts (the others
// cost the fuzz target a parse only), in name order.
std::vector<std::string> read_corpus(const std::string& dir, const Player& p) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (p.parse(text)) out.push_back(std::move(text));
  }
  return out;
}

// Each script once: how its cost (CPU time of the whole execution) follows
// the oracle's configurations explored, the fuzz target's keep criterion.
int print_costs(Player& p, const std::vector<std::string>& corpus) {
  struct Cost {
    std::size_t explored;
    double us;
    bool inconclusive;
  };
  std::vector<Cost> cs;
  for (const auto& text : corpus) {
    auto script = p.parse(text);
    if (!script) continue;
    const double t = cpu_seconds();
    harness::RunResult r = p.play(*script);
    cs.push_back({r.explored, 1e6 * (cpu_seconds() - t), r.inconclusive()});
  }
  std::sort(cs.begin(), cs.end(),
            [](auto& a, auto& b) { return a.explored < b.explored; });
  double total = 0;
  std::size_t inconclusive = 0;
  for (const auto& c : cs) total += c.us, inconclusive += c.inconclusive;
  std::printf("%zu scripts, %.1f ms in all, %zu inconclusive\n", cs.size(), total / 1e3,
              inconclusive);
  for (double q : {0.5, 0.9, 0.99, 1.0}) {
    const auto& c = cs[std::min(cs.size() - 1, static_cast<std::size_t>(q * cs.size()))];
    std::printf("  explored p%-3.0f %6zu\n", 100 * q, c.explored);
  }
  for (std::size_t limit : {50, 100, 200, 500, 1000, 2000}) {
    double above = 0;
    std::size_t n = 0;
    for (const auto& c : cs)
      if (c.explored > limit || c.inconclusive) above += c.us, ++n;
    std::printf(
        "  explored > %4zu or inconclusive: %4zu scripts (%4.1f%%), %4.1f%% of the time; "
        "the rest %.0f exec/s\n",
        limit, n, 100.0 * n / cs.size(), 100 * above / total,
        1e6 * static_cast<double>(cs.size() - n) / (total - above));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  std::size_t scripts = 200, requests = 10, rounds = 15, execs = 0;
  std::uint64_t seed = 1;
  std::string bug, profile, corpus_dir;
  bool costs = false;
  CLI::App app{
      "throughput_bench: exec/s of the fuzz target's pipeline, oracle on and off"};
  app.add_option("--seconds", seconds, "measuring time");
  app.add_option("--scripts", scripts, "generated scripts in the corpus");
  app.add_option("--requests", requests, "requests per script");
  app.add_option("--seed", seed, "random seed");
  app.add_option("--rounds", rounds,
                 "rounds of (on, off, oracle alone); medians reported")
      ->check(CLI::PositiveNumber);
  app.add_option("--corpus", corpus_dir,
                 "play the files of this directory (a fuzz target's corpus) "
                 "instead of generated scripts")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--costs", costs,
               "play each script once and print where the time goes (by oracle "
               "configurations explored)");
  app.add_option("--bug", bug, "planted bug of the in-process server");
  app.add_option("--profile", profile, "one mode only, to run under perf")
      ->check(CLI::IsMember({"on", "off", "oracle"}));
  app.add_option("--execs", execs,
                 "with --profile: exactly this many executions (for callgrind)");
  if (auto rc = dualfuzz::bench::parse(app, argc, argv)) return *rc;
  if (scripts == 0 || seconds <= 0) return 2;
  auto made = Player::make(kHttp, bug.empty() ? "inprocess" : "inprocess:" + bug);
  if (!made) {
    std::fprintf(stderr, "throughput_bench: %s\n", made.error().c_str());
    return 2;
  }
  Player& p = **made;

  const dualfuzz::mutator::ScriptMutator mut(p.protocol());
  std::mt19937_64 rng(seed);
  std::vector<std::string> corpus;
  if (corpus_dir.empty()) {
    for (std::size_t i = 0; i < scripts; ++i)
      corpus.push_back(harness::print_script(mut.generate(rng, requests)));
  } else {
    corpus = read_corpus(corpus_dir, p);
    if (corpus.empty()) {
      std::fprintf(stderr, "throughput_bench: no script in %s\n", corpus_dir.c_str());
      return 2;
    }
  }

  if (costs) return print_costs(p, corpus);
  if (profile == "oracle") {  // the oracle alone, on recorded events
    const oracle::ServerModel model = p.protocol().model();
    auto solver = std::make_shared<oracle::Solver>(
        Player::fuzz_options().oracle_options.solver_timeout_ms, model.strings);
    std::vector<std::vector<oracle::Event>> recorded;
    for (const auto& text : corpus)
      recorded.push_back(p.play(*p.parse(text), false).events);
    std::size_t runs = 0;
    const double cpu0 = cpu_seconds();
    for (const auto start = Clock::now();
         execs ? runs < execs : seconds_since(start) < seconds;)
      for (const auto& evs : recorded) {
        if (execs && runs == execs) break;
        oracle::Oracle o(model, Player::fuzz_options().oracle_options, solver);
        for (const auto& e : evs)
          if (o.observe(e).status != oracle::Verdict::Status::Accept) break;
        ++runs;
      }
    std::printf("oracle alone: %.1f us per execution\n",
                1e6 * (cpu_seconds() - cpu0) / static_cast<double>(runs));
    return 0;
  }
  if (!profile.empty()) {
    Rate r = measure(p, corpus, seconds, profile == "on", execs);
    std::printf(
        "exec/s oracle %s: %.0f per CPU second (%zu executions, %zu inconclusive)\n",
        profile.c_str(), r.per_cpu_second(), r.execs, r.inconclusive);
    return 0;
  }
  // Direct: the oracle alone on each script's recorded events (oracle off
  // to record, then timed replay into a fresh oracle with the executor's
  // options and a shared solver).
  const oracle::ServerModel model = p.protocol().model();
  const harness::RunOptions opts = Player::fuzz_options();
  auto solver = std::make_shared<oracle::Solver>(opts.oracle_options.solver_timeout_ms,
                                                 model.strings);
  std::vector<std::vector<oracle::Event>> recorded;
  for (const auto& text : corpus)
    recorded.push_back(p.play(*p.parse(text), false).events);
  double oracle_seconds = 0;
  std::size_t oracle_runs = 0, events = 0, explored = 0, queries = 0, peak = 0;
  auto direct = [&](double budget) {
    double spent = 0;
    std::size_t n = 0;
    const auto start = Clock::now();
    while (seconds_since(start) < budget) {
      for (const auto& evs : recorded) {
        const double t = cpu_seconds();
        const std::uint64_t q0 = solver->stats().queries;
        oracle::Oracle o(model, opts.oracle_options, solver);
        for (const auto& e : evs)
          if (o.observe(e).status != oracle::Verdict::Status::Accept) break;
        spent += cpu_seconds() - t;
        const oracle::OracleStats st = o.stats();
        explored += st.explored;
        peak += st.max_live_hypotheses;
        queries += st.solver.queries - q0;
        events += evs.size();
        ++n;
      }
    }
    oracle_seconds += spent;
    oracle_runs += n;
    return 1e6 * spent / static_cast<double>(n);  // us per execution
  };

  // Warm-up (allocator, Z3 context, caches), then short rounds of the three
  // measures in turn: this machine's speed drifts by tens of percent within
  // seconds (a shared VM host), so each round's shares compare measures
  // taken under the same conditions, and the median round is reported.
  measure(p, corpus, 0.5, true);
  direct(0.2);
  oracle_seconds = 0;
  oracle_runs = events = explored = queries = peak = 0;
  Rate on, off;
  std::vector<double> rate_shares, direct_shares;
  const double slice = seconds / (3.0 * rounds);
  for (std::size_t round = 0; round < rounds; ++round) {
    Rate a = measure(p, corpus, slice, true);
    Rate b = measure(p, corpus, slice, false);
    const double d_us = direct(slice);
    const double a_us = 1e6 / a.per_cpu_second(), b_us = 1e6 / b.per_cpu_second();
    rate_shares.push_back((a_us - b_us) / a_us);
    direct_shares.push_back(d_us / a_us);
    for (auto [dst, src] : {std::pair{&on, &a}, std::pair{&off, &b}}) {
      dst->execs += src->execs;
      dst->messages += src->messages;
      dst->violations += src->violations;
      dst->inconclusive += src->inconclusive;
      dst->seconds += src->seconds;
      dst->cpu += src->cpu;
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  auto range = [](const std::vector<double>& v) {
    return std::pair{100 * *std::min_element(v.begin(), v.end()),
                     100 * *std::max_element(v.begin(), v.end())};
  };
  const double oracle_us = 1e6 * oracle_seconds / static_cast<double>(oracle_runs);
  const double on_us = 1e6 / on.per_cpu_second();
  const double off_us = 1e6 / off.per_cpu_second();

  std::printf(
      "throughput_bench: %zu scripts x %zu requests (seed %llu), server bug: %s\n",
      corpus.size(), requests, static_cast<unsigned long long>(seed),
      bug.empty() ? "none" : bug.c_str());
  std::printf(
      "  messages/exec: %.1f   events/exec: %.1f   violations: %zu/%zu   inconclusive: "
      "%zu\n",
      static_cast<double>(on.messages) / static_cast<double>(on.execs),
      static_cast<double>(events) / static_cast<double>(oracle_runs), on.violations,
      on.execs, on.inconclusive);
  std::printf(
      "exec/s oracle on:  %8.0f per CPU second (%.1f us/exec); wall clock %.0f/s\n",
      on.per_cpu_second(), on_us, on.per_second());
  std::printf(
      "exec/s oracle off: %8.0f per CPU second (%.1f us/exec); wall clock %.0f/s\n",
      off.per_cpu_second(), off_us, off.per_second());
  std::printf("oracle alone: %.1f us/exec\n", oracle_us);
  const auto [r0, r1] = range(rate_shares);
  const auto [d0, d1] = range(direct_shares);
  std::printf(
      "oracle share (1 - on/off), median of %zu rounds: %5.1f%% (rounds %.1f-%.1f%%)\n",
      rounds, 100 * median(rate_shares), r0, r1);
  std::printf(
      "oracle share (direct), median of %zu rounds:     %5.1f%% (rounds %.1f-%.1f%%)\n",
      rounds, 100 * median(direct_shares), d0, d1);
  std::printf("oracle share over all rounds: %.1f%% (1 - on/off), %.1f%% (direct)\n",
              100.0 * (on_us - off_us) / on_us, 100.0 * oracle_us / on_us);
  // The advisory check (RunResult::advisory): a passing run judged again by
  // the recommended model (every SHOULD a MUST), timed as the direct measure.
  if (p.protocol().recommended) {
    const oracle::ServerModel strict = p.protocol().recommended();
    double spent = 0, wall = 0;
    std::size_t n = 0;
    for (const auto start = Clock::now(); seconds_since(start) < slice * rounds;)
      for (const auto& evs : recorded) {
        const double t = cpu_seconds();
        const auto w = Clock::now();
        oracle::Oracle o(strict, opts.oracle_options, solver);
        for (const auto& e : evs)
          if (o.observe(e).status != oracle::Verdict::Status::Accept) break;
        spent += cpu_seconds() - t;
        wall += seconds_since(w);
        ++n;
      }
    const double us = 1e6 * spent / static_cast<double>(n);
    std::printf(
        "advisory check (recommended model): %.1f us/exec CPU, %.1f us wall: %.1f%% of "
        "an "
        "execution with the oracle on (%.1f us)\n",
        us, 1e6 * wall / static_cast<double>(n), 100 * us / on_us, on_us);
  }
  // The message rules (Protocol::MessageRules), on by default in every
  // execution: each recorded request and response through one checker per
  // execution, timed as the direct measure.
  if (p.protocol().new_message_rules) {
    double spent = 0;
    std::size_t n = 0, breaks = 0;
    std::map<std::string, std::size_t> kinds;  // (advisories: the server follows every MUST)
    for (const auto start = Clock::now(); seconds_since(start) < slice * rounds;)
      for (const auto& evs : recorded) {
        const double t = cpu_seconds();
        auto rules = p.protocol().new_message_rules();
        std::map<oracle::Label, const oracle::Json*> asked;
        for (const auto& e : evs) {
          if (e.kind == oracle::Event::Kind::Request) {
            asked[e.label] = &e.payload();
            rules->sent(e.payload());
          } else if (e.kind == oracle::Event::Kind::Response) {
            const auto q = asked.find(e.label - 1);
            for (const auto& b :
                 rules->received(q == asked.end() ? nullptr : q->second, e.payload())) {
              ++breaks;
              ++kinds[b.text];
            }
          }
        }
        spent += cpu_seconds() - t;
        ++n;
      }
    const double us = 1e6 * spent / static_cast<double>(n);
    std::printf(
        "message rules: %.1f us/exec CPU: %.1f%% of an execution with the oracle on "
        "(%.1f us); %zu breaks in %zu executions\n",
        us, 100 * us / on_us, on_us, breaks, n);
    for (const auto& [text, count] : kinds) std::printf("  %zu x %s\n", count, text.c_str());
  }
  const double runs = static_cast<double>(oracle_runs);
  std::printf(
      "oracle per exec: %.1f configurations explored, %.1f peak live hypotheses, "
      "%.2f solver calls\n",
      static_cast<double>(explored) / runs, static_cast<double>(peak) / runs,
      static_cast<double>(queries) / runs);
  return 0;
}
