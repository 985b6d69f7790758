// `dualfuzz fuzz --spec http --target inprocess[:BUG] [--seconds N] [--seed S]
// [--connections K] [--json]`: black-box generate-and-check (no coverage, the
// seed paper's mode). On a violation: shrink the script, print it, its trace
// and the explanation, exit 1. Nothing found: exit 0. `--json` ends stdout
// with one summary line for scripts (bench/eval_blackbox.py):
//   {"target":"inprocess:BUG","violation":true,"kind":"model","seconds":..,
//    "executions":..,"messages":..,"requests_sent":..,"steps":..,
//    "min_steps":..,"min_requests":..,"min_messages":..,...}
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/mutator/minimize.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/specs/http_protocol.h"
#include "target.h"

namespace dualfuzz::cli {

void add_fuzz_command(CLI::App& app, std::function<int()>& run) {
  struct Opts {
    std::string spec = "http";
    std::string target = "inprocess";
    double seconds = 60;
    std::uint64_t seed = 1;
    unsigned connections = 4;
    bool liveness = false;
    bool quiet = false;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub =
      app.add_subcommand("fuzz", "Generate, mutate and check scripts (no coverage)");
  sub->add_option("--spec", o->spec, "protocol model")->check(CLI::IsMember({"http"}));
  sub->add_option("--target", o->target, "inprocess[:BUG] or HOST:PORT");
  sub->add_option("--seconds", o->seconds, "time budget");
  sub->add_option("--seed", o->seed, "random seed (runs are reproducible from it)");
  sub->add_option("--connections", o->connections, "connections per script (1-64)")
      ->check(CLI::Range(1, 64));
  sub->add_flag("--liveness", o->liveness, "report unanswered requests as violations");
  sub->add_flag("-q,--quiet", o->quiet, "no progress lines");
  sub->add_flag("--json", o->json,
                "end with a one-line JSON summary (time, messages, sizes)");
  sub->callback([o, &run] {
    run = [o]() -> int {
      auto target = Target::make(o->target);
      if (!target) {
        std::cerr << "dualfuzz fuzz: " << target.error() << "\n";
        return kTrouble;
      }
      const harness::Protocol http = specs::http_protocol();
      const mutator::ScriptMutator mut(http);
      auto solver = std::make_shared<oracle::Solver>();
      harness::RunOptions opts;
      opts.check_liveness = o->liveness;
      auto play = [&](const harness::Script& s) {
        harness::RunOptions run_opts = opts;
        run_opts.path_prefix = (*target)->reset();
        harness::Executor ex(http, (*target)->transport(), run_opts, solver);
        return ex.run(s);
      };
      std::mt19937_64 rng(o->seed);
      std::vector<std::string> pool;  // recent scripts to mutate
      const auto start = std::chrono::steady_clock::now();
      auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
      };
      std::uint64_t execs = 0, messages = 0, sent = 0, inconclusive = 0;
      auto summary = [&](bool violation) {
        nlohmann::json j = {{"target", o->target},           {"seed", o->seed},
                            {"connections", o->connections}, {"violation", violation},
                            {"seconds", elapsed()},          {"executions", execs},
                            {"messages", messages},          {"requests_sent", sent},
                            {"inconclusive", inconclusive}};
        return j;
      };
      auto requests = [](const harness::Script& s) {
        std::size_t n = 0;
        for (const auto& st : s.steps)
          n += std::holds_alternative<harness::RequestStep>(st);
        return n;
      };
      double next_report = 5;
      while (elapsed() < o->seconds) {
        std::string parent = pool.empty() ? std::string() : pool[rng() % pool.size()];
        std::string text = mut.mutate(parent, 2048, rng);
        auto script = harness::parse_script(text, http.functions);
        if (!script) continue;  // cannot happen: the mutator emits scripts
        for (auto& st : script->steps) {
          if (auto* r = std::get_if<harness::RequestStep>(&st)) r->conn %= o->connections;
          if (auto* c = std::get_if<harness::CloseStep>(&st)) c->conn %= o->connections;
        }
        harness::RunResult r = play(*script);
        ++execs;
        messages += r.trace.size();
        for (const auto& m : r.trace.messages())
          sent += harness::is_request_label(m.label);
        inconclusive += r.inconclusive();
        if (r.violation()) {
          const double found = elapsed();
          const auto kind = r.outcome;
          harness::Script small = mutator::minimize(
              *script, [&](const harness::Script& s) { return play(s).outcome == kind; });
          const double shrunk = elapsed() - found;
          harness::RunResult again = play(small);
          std::cout << "dualfuzz fuzz: violation after " << found << " s, " << execs
                    << " executions, " << messages << " messages (seed " << o->seed
                    << ")\n"
                    << "--- minimized script (" << small.steps.size() << " steps, from "
                    << script->steps.size() << ")\n"
                    << harness::print_script(small) << "--- " << again.report();
          if (o->json) {
            nlohmann::json j = summary(true);
            j["seconds"] = found;
            j["kind"] = kind == harness::RunResult::Outcome::ModelViolation ? "model"
                        : kind == harness::RunResult::Outcome::ProtocolViolation
                            ? "protocol"
                            : "liveness";
            j["steps"] = script->steps.size();
            j["requests"] = requests(*script);
            j["min_steps"] = small.steps.size();
            j["min_requests"] = requests(small);
            j["min_messages"] = again.trace.size();
            j["minimize_seconds"] = shrunk;
            std::cout << "\n" << j.dump() << "\n";
          }
          return kViolation;
        }
        if (pool.size() < 256)
          pool.push_back(text);
        else
          pool[rng() % pool.size()] = text;
        if (!o->quiet && elapsed() >= next_report) {
          std::cerr << "dualfuzz fuzz: " << static_cast<int>(elapsed()) << " s, " << execs
                    << " executions (" << static_cast<int>(execs / elapsed()) << "/s), "
                    << messages << " messages, no violation (" << inconclusive
                    << " inconclusive)\n";
          next_report += 5;
        }
      }
      std::cout << "dualfuzz fuzz: no violation in " << elapsed() << " s, " << execs
                << " executions, " << messages << " messages, " << inconclusive
                << " inconclusive (oracle budget)\n";
      if (o->json) std::cout << summary(false).dump() << "\n";
      return kNoViolation;
    };
  });
}

}  // namespace dualfuzz::cli
