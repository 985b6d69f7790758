// `dualfuzz minimize [--target ...] [-o OUT] [--chart FILE] CRASHFILE`:
// shrinks the script structurally (mutator::minimize) while it keeps showing
// *the same* violation — same harness::violation_key: outcome, killing
// message kind/method/status, shape of the reasons — not just any
// violation; writes the minimized script and prints its report (the fuzz
// target's format), and with --json a last line for scripts
// (bench/eval_realservers.py): signature_of's signature, the trace, the
// minimized script, "reproduced" (the minimized script showed the same
// violation once more). Exit codes: 0 no violation in the input, 1
// violation (minimized), 2 trouble.
#include <iostream>

#include "commands.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/mutator/minimize.h"
#include "io.h"

namespace dualfuzz::cli {

void add_minimize_command(CLI::App& app, std::function<int()>& run) {
  struct Opts {
    std::string target = Player::spec_from_env();
    std::string file;
    std::string chart;
    std::string out;
    std::size_t max_runs = 2000;
    bool json = false;
  };
  auto m = std::make_shared<Opts>();
  CLI::App* minimize = app.add_subcommand(
      "minimize", "Shrink a failing script while it shows the same violation");
  minimize->add_option("--target", m->target, kTargetHelp);
  minimize->add_option("-o,--output", m->out,
                       "where to write the minimized script (default: CRASHFILE.min)");
  minimize->add_option("--chart", m->chart, "write a chart of the minimized run");
  minimize->add_option("--max-runs", m->max_runs, "at most this many re-runs")
      ->check(CLI::Range(1, 1000000));
  minimize->add_flag("--json", m->json,
                     "each message of the trace as its JSON IR, and end with one JSON "
                     "line: signature, minimized script and trace");
  minimize->add_option("CRASHFILE", m->file, "script file")->required();
  minimize->callback([m, &run] {
    run = [m]() -> int {
      auto l = load("minimize", m->target, m->file);
      if (!l) return kTrouble;
      Player& p = *l->player;
      const auto format =
          m->json ? harness::TraceFormat::Json : harness::TraceFormat::Readable;
      harness::RunResult first = p.play(l->script);
      const std::string key = harness::violation_key(l->player->protocol(), first);
      if (key.empty()) {
        std::cout << p.report(l->script, first, format);
        std::cerr << "dualfuzz minimize: " << m->file
                  << " shows no violation: nothing to minimize\n";
        return exit_code(first);
      }
      std::size_t runs = 0;
      // The trace lets the shrinker re-point or inline references.
      harness::Script small = mutator::minimize(
          l->script, mutator::FailingRun{first.trace, {}}, p.protocol().functions,
          [&](const harness::Script& s) -> std::optional<mutator::FailingRun> {
            ++runs;
            harness::RunResult r = p.play(s);
            if (harness::violation_key(l->player->protocol(), r) != key)
              return std::nullopt;
            return mutator::FailingRun{r.trace, {}};
          },
          m->max_runs, p.protocol().required_fields, p.protocol().nudges,
          p.protocol().probe);
      harness::RunResult again = p.play(small);
      const std::string out = m->out.empty() ? m->file + ".min" : m->out;
      if (!write_file(out, harness::print_script(small))) {
        std::cerr << "dualfuzz minimize: cannot write " << out << "\n";
        return kTrouble;
      }
      std::cerr << "dualfuzz minimize: " << l->script.steps.size() << " -> "
                << small.steps.size() << " steps in " << runs << " runs; wrote " << out
                << "\n";
      std::cout << p.report(small, again, format);
      if (!m->chart.empty() &&
          !write_chart(m->chart, p.protocol(), small, again,
                       "dualfuzz minimize " + m->file + " (" + p.description() + ")")) {
        std::cerr << "dualfuzz minimize: cannot write " << m->chart << "\n";
        return kTrouble;
      }
      if (m->json) {
        harness::Json j = finding_json(l->player->protocol(), small, again);
        j["reproduced"] = harness::violation_key(l->player->protocol(), again) == key;
        j["steps"] = l->script.steps.size();
        j["runs"] = runs;
        std::cout << j.dump(-1, ' ', false, harness::Json::error_handler_t::replace)
                  << "\n";
      }
      if (harness::violation_key(l->player->protocol(), again) != key) {
        std::cerr << "dualfuzz minimize: the minimized script no longer shows the same "
                     "violation (a nondeterministic server?)\n";
        return again.violation() ? kViolation : kTrouble;
      }
      return kViolation;
    };
  });
}

}  // namespace dualfuzz::cli
