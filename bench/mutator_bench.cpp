// Cost of the custom mutator per call, with and without Z3-targeted mutation
// (targeted_mutation.h; the engines' mutator is Player::engine_mutator): the
// targeted path replays its input on an in-process server with the oracle's
// decisions recorded and asks the solver, one call in kTargetedOneIn. Each
// mode walks the same chain the engines do (mutate the last output, back to
// a fresh ~10-request script every 16 calls) from the same seed; times are
// CPU seconds of this thread. The targeted path is also timed alone on the
// inputs the chain replayed: the replay (with and without recording
// decisions) and the solving. `--script FILE` does that split for one file.
//
//   mutator_bench [--calls N] [--requests R] [--seed X] [--bug NAME] [--script FILE]
//   plain:        75.0 us/call
//   targeted:    352.0 us/call (replays on 1/8.1 calls, 44% of them rewritten): ...
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/mutator/targeted_mutation.h"

namespace {

using dualfuzz::campaign::Player;
const dualfuzz::campaign::Plugin kHttp = dualfuzz::http::plugin();
using dualfuzz::mutator::ScriptMutator;
namespace harness = dualfuzz::harness;

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Split {
  double per_call = 0;    // CPU seconds per mutate() call, all calls
  double replaying = 0;   // per call that replayed its input
  double structural = 0;  // per call that did not
  std::size_t replays = 0;
};

// Mutates along a chain; keeps the inputs it replayed (for the split timing).
Split chain(const ScriptMutator& m, const std::vector<std::string>& corpus,
            std::size_t calls, std::uint64_t seed, std::vector<std::string>* seen) {
  std::mt19937_64 rng(seed);
  std::string cur;
  Split s;
  double total = 0, replaying = 0;
  for (std::size_t i = 0; i < calls; ++i) {
    if (i % 16 == 0) cur = corpus[(i / 16) % corpus.size()];
    const std::uint64_t runs = m.targeted_stats().runs;
    const std::string input = cur;
    const double t = cpu_seconds();
    cur = m.mutate(input, 4096, rng);
    const double dt = cpu_seconds() - t;
    total += dt;
    if (m.targeted_stats().runs != runs) {
      if (seen) seen->push_back(input);
      replaying += dt;
      ++s.replays;
    }
  }
  s.per_call = total / static_cast<double>(calls);
  s.replaying = s.replays ? replaying / static_cast<double>(s.replays) : 0;
  s.structural = (total - replaying) / static_cast<double>(calls - s.replays);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t calls = 20000, requests = 10;
  std::uint64_t seed = 1;
  std::string bug, script_file;
  CLI::App app{"mutator_bench: the custom mutator's cost per call"};
  app.add_option("--calls", calls, "mutator calls");
  app.add_option("--requests", requests, "requests per generated script");
  app.add_option("--seed", seed, "random seed");
  app.add_option("--bug", bug, "planted bug of the in-process server");
  app.add_option("--script", script_file, "mutate this script instead of generated ones");
  if (auto rc = dualfuzz::bench::parse(app, argc, argv)) return *rc;
  if (calls == 0) return 2;
  const std::string spec = bug.empty() ? "inprocess" : "inprocess:" + bug;
  auto made = Player::make(kHttp, spec);
  if (!made) {
    std::fprintf(stderr, "mutator_bench: %s\n", made.error().c_str());
    return 2;
  }
  Player& p = **made;
  if (!script_file.empty()) {  // one script: where its targeted call's time goes
    std::ifstream in(script_file);
    std::stringstream text;
    text << in.rdbuf();
    auto s = p.parse(text.str());
    if (!s) return 2;
    double t = cpu_seconds();
    p.play(*s);
    const double plain_run = cpu_seconds() - t;
    t = cpu_seconds();
    harness::RunResult r = p.play(*s, true, true);
    const double recorded_run = cpu_seconds() - t;
    std::size_t decisions = 0;
    for (const auto& e : r.explanations) decisions += e.decisions.size();
    auto solver = std::make_shared<dualfuzz::oracle::Solver>(
        500, p.protocol().model().strings);
    std::mt19937_64 rng(seed);
    t = cpu_seconds();
    auto out = dualfuzz::mutator::targeted_mutation(*s, r, p.protocol(), *solver, rng);
    const double solving = cpu_seconds() - t;
    std::printf(
        "run %.1f ms, run recording decisions %.1f ms (%zu explanations, %zu decisions), "
        "targeted_mutation %.1f ms (%s, %llu solver queries)\n",
        1e3 * plain_run, 1e3 * recorded_run, r.explanations.size(), decisions,
        1e3 * solving, out ? "rewritten" : "nothing",
        static_cast<unsigned long long>(solver->stats().queries));
    return 0;
  }
  const ScriptMutator plain(p.protocol());
  const ScriptMutator targeted = Player::engine_mutator(kHttp, spec);
  if (!targeted.targeted()) {
    std::fprintf(stderr,
                 "mutator_bench: targeted mutation is off (DUALFUZZ_TARGETED=0?)\n");
    return 2;
  }
  std::mt19937_64 gen(seed);
  std::vector<std::string> corpus;
  for (int i = 0; i < 64; ++i)
    corpus.push_back(harness::print_script(plain.generate(gen, requests)));

  chain(targeted, corpus, calls / 10, seed + 1, nullptr);  // warm-up (Z3 context)
  const auto warm = targeted.targeted_stats();
  std::vector<std::string> seen;
  const Split plain_s = chain(plain, corpus, calls, seed, nullptr);
  const Split targeted_s = chain(targeted, corpus, calls, seed, &seen);
  const auto st = targeted.targeted_stats();
  const double runs = static_cast<double>(st.runs - warm.runs);
  const double rewrites = static_cast<double>(st.rewrites - warm.rewrites);

  // The targeted path alone, on the inputs the chain replayed: replay, solve.
  auto solver = std::make_shared<dualfuzz::oracle::Solver>(
        500, p.protocol().model().strings);
  std::mt19937_64 rng(seed);
  double replay_s = 0, solve_s = 0, exec_s = 0;
  std::size_t n = 0, hits = 0;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    auto s = p.parse(seen[i]);
    if (!s) continue;
    double t = cpu_seconds();
    p.play(*s);
    exec_s += cpu_seconds() - t;
    t = cpu_seconds();
    harness::RunResult r = p.play(*s, true, true);
    replay_s += cpu_seconds() - t;
    t = cpu_seconds();
    hits += dualfuzz::mutator::targeted_mutation(*s, r, p.protocol(), *solver, rng)
                .has_value();
    solve_s += cpu_seconds() - t;
    ++n;
  }
  const double dn = static_cast<double>(n);

  std::printf(
      "mutator_bench: %zu calls per mode, scripts of %zu requests (seed %llu), %s\n",
      calls, requests, static_cast<unsigned long long>(seed), spec.c_str());
  std::printf("plain:    %8.1f us/call\n", 1e6 * plain_s.per_call);
  std::printf(
      "targeted: %8.1f us/call (replays on 1/%.1f calls, %.0f%% of them rewritten): "
      "%.1f us per replaying call, %.1f us per other call\n",
      1e6 * targeted_s.per_call, static_cast<double>(calls) / runs,
      100.0 * rewrites / runs, 1e6 * targeted_s.replaying, 1e6 * targeted_s.structural);
  std::printf(
      "targeted path alone (%zu inputs): replay with decisions %.1f us, solving %.1f us "
      "(%.0f%% rewritten); the same execution without recording %.1f us\n",
      n, 1e6 * replay_s / dn, 1e6 * solve_s / dn, 100.0 * static_cast<double>(hits) / dn,
      1e6 * exec_s / dn);
  return 0;
}
