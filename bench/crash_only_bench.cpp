// The crash-only baseline of the evaluation (docs/evaluation-journal.md, engine (d)):
// the generate-and-mutate loop of `dualfuzz fuzz` (campaign/src/fuzz_loop.cpp:
// same ScriptMutator, same seed handling, same pool of 256 recent scripts,
// same connection folding), but every script is played with the oracle OFF
// (campaign::Player::play(script, false)), so only what a crash-oriented fuzzer
// notices counts:
//   - the process crashing (the in-process server dies: the bench dies with it,
//     and bench/eval_crashonly.py records a signal),
//   - an unanswered request (liveness: Player::fuzz_options checks it),
//   - bytes that are not HTTP/1.1 (a protocol error of the response parser).
// The oracle never sees a trace, so a wrong but well-formed answer passes.
// For a seed, the scripts are exactly those `dualfuzz fuzz --seed S
// --connections K` plays (the mutator does not look at verdicts), so a run
// that reaches N executions has played every script `dualfuzz fuzz` played in
// its first N executions.
//
//   crash_only_bench --bug NAME [--seconds S] [--seed X] [--connections K] [--dump N
//   FILE]
//   crash_only_bench --target HOST:PORT --keep-going --seconds S   (an external
//   server; each violation is counted, "violations", and the loop goes on: how
//   bench/eval_servercov.py measures the server edges this engine reaches)
// --dump N FILE writes the N-th script played (connections folded) to FILE,
// to check with `dualfuzz run --target inprocess:NAME FILE` that the oracle
// rejects the script at which `dualfuzz fuzz` reported the bug.
//   {"bug":"head-with-body","seed":1,"violation":true,"kind":"protocol",
//    "seconds":..,"executions":..,"messages":..,"requests_sent":..,
//    "replay_bug":1,"replay_correct":0,...}        (one JSON line on stdout)
// replay_bug / replay_correct: the violating script played again with the bug
// planted / on the correct server (1 = the same kind of violation, 0 = pass).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "bench_args.h"
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/mutator/script_mutator.h"

namespace {

using dualfuzz::campaign::Player;
const dualfuzz::campaign::Plugin kHttp = dualfuzz::http::plugin();
namespace harness = dualfuzz::harness;
using Outcome = harness::RunResult::Outcome;

const char* kind_name(Outcome o) {
  switch (o) {
    case Outcome::ModelViolation:
      return "model";  // cannot happen with the oracle off
    case Outcome::ProtocolViolation:
      return "protocol";
    case Outcome::LivenessViolation:
      return "liveness";
    default:
      return "none";
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string bug;
  double seconds = 60;
  std::uint64_t seed = 1;
  unsigned connections = 4;
  std::uint64_t dump_at = 0;
  std::string dump_file;
  std::pair<std::uint64_t, std::string> dump{0, ""};
  std::string target;
  bool keep_going = false;
  CLI::App app{"crash_only_bench: dualfuzz fuzz's generation loop with the oracle off"};
  app.add_option("--bug", bug, "planted bug of the in-process server");
  app.add_option("--seconds", seconds, "time budget");
  app.add_option("--seed", seed, "random seed");
  app.add_option("--connections", connections, "connections per script")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--dump", dump, "write the N-th generated script to FILE (N FILE)");
  app.add_option("--target", target, "HOST:PORT: an external server instead of --bug");
  app.add_flag("--keep-going", keep_going, "count violations and go on until --seconds");
  if (auto rc = dualfuzz::bench::parse(app, argc, argv)) return *rc;
  dump_at = dump.first;
  dump_file = dump.second;
  if (connections < 1 || connections > 64 || seconds <= 0) return 2;
  const std::string spec = !target.empty() ? target
                           : bug.empty()   ? "inprocess"
                                           : "inprocess:" + bug;
  auto made = Player::make(kHttp, spec);
  if (!made) {
    std::fprintf(stderr, "crash_only_bench: %s\n", made.error().c_str());
    return 2;
  }
  Player& p = **made;
  const dualfuzz::mutator::ScriptMutator mut(p.protocol());

  std::mt19937_64 rng(seed);
  std::vector<std::string> pool;  // recent scripts to mutate
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::uint64_t execs = 0, messages = 0, sent = 0, violations = 0;
  nlohmann::json j = {{"bug", bug.empty() ? nlohmann::json() : nlohmann::json(bug)},
                      {"seed", seed},
                      {"connections", connections},
                      {"budget", seconds},
                      {"oracle", false}};
  while (elapsed() < seconds) {
    std::string parent = pool.empty() ? std::string() : pool[rng() % pool.size()];
    std::string text = mut.mutate(parent, 2048, rng);
    auto script = p.parse(text);
    if (!script) continue;  // cannot happen: the mutator emits scripts
    for (auto& st : script->steps) {
      if (auto* r = std::get_if<harness::RequestStep>(&st)) r->conn %= connections;
      if (auto* c = std::get_if<harness::CloseStep>(&st)) c->conn %= connections;
    }
    harness::RunResult r = p.play(*script, /*oracle=*/false);
    ++execs;
    if (execs == dump_at) {
      if (std::FILE* f = std::fopen(dump_file.c_str(), "w")) {
        std::fputs(harness::print_script(*script).c_str(), f);
        std::fclose(f);
      }
    }
    messages += r.trace.size();
    for (const auto& m : r.trace.messages()) sent += harness::is_request_label(m.label);
    if (r.violation() && keep_going) {
      ++violations;
    } else if (r.violation()) {
      const double found = elapsed();
      j["violation"] = true;
      j["kind"] = kind_name(r.outcome);
      j["seconds"] = found;
      j["executions"] = execs;
      j["messages"] = messages;
      j["requests_sent"] = sent;
      j["detail"] = r.detail.substr(0, 300);
      j["script"] = harness::print_script(*script);
      // The same script again, with the bug and on the correct server.
      j["replay_bug"] = p.play(*script, false).outcome == r.outcome ? 1 : 0;
      auto correct = Player::make(kHttp, "inprocess");
      if (correct) {
        harness::RunResult c = (*correct)->play(*script, false);
        j["replay_correct"] = c.violation() ? 1 : 0;
      }
      std::cout << j.dump() << "\n";
      return 1;
    }
    if (pool.size() < 256)
      pool.push_back(text);
    else
      pool[rng() % pool.size()] = text;
  }
  j["violation"] = false;
  if (keep_going) j["violations"] = violations;
  j["seconds"] = elapsed();
  j["executions"] = execs;
  j["messages"] = messages;
  j["requests_sent"] = sent;
  std::cout << j.dump() << "\n";
  return 0;
}
