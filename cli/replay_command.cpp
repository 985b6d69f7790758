// `dualfuzz replay [--target inprocess[:BUG]|HOST:PORT] [--chart FILE] CRASHFILE`:
// plays one input (a script, e.g. a libFuzzer crash file) exactly as the
// fuzz target does and prints the fuzz target's report: header, script,
// trace as a message sequence, explanation. `--repeat N` plays it N times
// and checks the reports are identical (a determinism check; in-process
// only — an external target gets a fresh path prefix per run).
//
// Races apart, as in the fuzz target (campaign/consistency.h; unless
// $DUALFUZZ_STOP_ON_RACES=1): a play whose violation is a race (class not
// linearizable) is reported as such, then the input is played again judged
// past races and that verdict decides (a race alone: exit 0). A race is not
// deterministic: with --repeat, its plays are counted, not compared
// ("a race: reproduced in K of N plays"); a sequential violation must give
// the same report every time.
//
// A crash file of a user's own fuzz target is replayed by that fuzz target
// (`./my_fuzzer crash-FILE`): replay cannot host the user's server in-process.
//
// Exit codes: 0 no violation, 1 violation, 2 trouble (unreadable or
// malformed script, bad target, the run could not be made).
#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "dualfuzz/campaign/fuzz_environment.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/protocols/builtin.h"
#include "io.h"

namespace dualfuzz::cli {

bool write_chart(const std::string& path, const harness::Protocol& protocol,
                 const harness::Script& script, const harness::RunResult& r,
                 const std::string& title) {
  const bool html =
      path.size() >= 5 && (path.ends_with(".html") || path.ends_with(".htm"));
  return write_file(path, html ? harness::sequence_chart_html(protocol, script, r, title)
                               : harness::sequence_chart_svg(protocol, r, title));
}

int exit_code(const harness::RunResult& r) {
  if (r.violation()) return kViolation;
  if (r.outcome == harness::RunResult::Outcome::InternalError) return kInternalError;
  return r.outcome == harness::RunResult::Outcome::Trouble ? kTrouble : kNoViolation;
}

std::optional<Loaded> load(const char* cmd, const std::string& target,
                           const std::string& file) {
  auto text = read_file(file);
  if (!text) {
    std::cerr << "dualfuzz " << cmd << ": cannot read " << file << "\n";
    return std::nullopt;
  }
  // The fuzz targets' protocol and consistency ($DUALFUZZ_PROTOCOL,
  // $DUALFUZZ_CONSISTENCY): a crash file replays as it was found.
  auto plugin = protocols::plugin_from_env();
  if (!plugin) {
    std::cerr << "dualfuzz " << cmd << ": " << plugin.error() << "\n";
    return std::nullopt;
  }
  auto p = Player::make(*plugin, target);
  if (!p) {
    std::cerr << "dualfuzz " << cmd << ": " << p.error() << "\n";
    return std::nullopt;
  }
  auto script = (*p)->parse(*text);
  if (!script) {
    std::cerr << "dualfuzz " << cmd << ": " << file
              << ": not a script: " << script.error() << "\n";
    return std::nullopt;
  }
  return Loaded{std::move(*p), std::move(*script)};
}

void add_replay_command(CLI::App& app, std::function<int()>& run) {
  struct Opts {
    std::string target = Player::spec_from_env();
    std::string file;
    std::string chart;
    unsigned repeat = 1;
    bool json = false;
  };

  auto r = std::make_shared<Opts>();
  CLI::App* replay = app.add_subcommand("replay",
                                        "Re-run one input (e.g. a libFuzzer crash file) "
                                        "and print the fuzz target's report");
  // It hosts no server of yours in-process: a DUALFUZZ_FUZZ_TARGET of your
  // own replays its crash files itself (issue 44).
  replay->footer(
      "A crash file of your own fuzz target (your server in-process, "
      "DUALFUZZ_FUZZ_TARGET): "
      "run that fuzz target on it, `./my_fuzzer crash-FILE`, which plays it once and "
      "prints "
      "this same report (libFuzzer: -runs=N plays it N times, to check a fix). replay "
      "hosts "
      "in-process only dualfuzz's reference servers; your server as a program: --target "
      "HOST:PORT.");
  replay->add_option("--target", r->target, kTargetHelp);
  replay->add_option(
      "--chart", r->chart,
      "write a message-sequence chart (.svg, or .html with script and report)");
  replay
      ->add_option("--repeat", r->repeat,
                   "play N times (fresh server each time) and check that every run gives "
                   "the same report; a difference is trouble (exit 2)")
      ->check(CLI::Range(1u, 1000000u));
  replay->add_flag("--json", r->json, "each message of the trace as its JSON IR");
  replay->add_option("CRASHFILE", r->file, "script file")->required();
  replay->callback([r, &run] {
    run = [r]() -> int {
      auto l = load("replay", r->target, r->file);
      if (!l) return kTrouble;
      Player& player = *l->player;
      harness::RunResult res = player.play(l->script);
      const auto format =
          r->json ? harness::TraceFormat::Json : harness::TraceFormat::Readable;
      const std::string report = player.report(l->script, res, format);
      std::cout << report;
      const bool races_apart = !campaign::FuzzEnvironment::read().stop_on_races;
      const bool race =
          res.violation() &&
          player.classify(res).kind == campaign::Classification::Kind::NotLinearizable;
      if (race) {
        // How often the race shows: the same violation (quick key) again.
        const std::string key = campaign::quick_key(player.protocol(), res);
        unsigned shown = 1;
        for (unsigned i = 2; i <= r->repeat; ++i) {
          const harness::RunResult again = player.play(l->script);
          shown +=
              again.violation() && campaign::quick_key(player.protocol(), again) == key;
        }
        if (r->repeat > 1)
          std::cerr << "dualfuzz replay: a race (not linearizable): reproduced in "
                    << shown << " of " << r->repeat << " plays\n";
      } else {
        for (unsigned i = 2; i <= r->repeat; ++i) {
          if (player.report(l->script, player.play(l->script), format) != report) {
            std::cerr << "dualfuzz replay: UNSTABLE: run " << i
                      << " gave a different report than run 1\n";
            return kTrouble;
          }
        }
        if (r->repeat > 1)
          std::cerr << "dualfuzz replay: stable: " << r->repeat
                    << " runs, identical reports\n";
      }
      if (race && races_apart) {
        // As the fuzz target: the verdict is the play judged past races.
        std::cout << "==dualfuzz== a race (not linearizable: no finding; "
                     "DUALFUZZ_STOP_ON_RACES=1 judges it a violation); played again and "
                     "judged past races (consistency '"
                  << player.past_races_consistency() << "'):\n";
        res = player.play_past_races(l->script);
        std::cout << player.report(l->script, res, format);
      }
      if (!r->chart.empty() &&
          !write_chart(
              r->chart, l->player->protocol(), l->script, res,
              "dualfuzz replay " + r->file + " (" + l->player->description() + ")")) {
        std::cerr << "dualfuzz replay: cannot write " << r->chart << "\n";
        return kTrouble;
      }
      return exit_code(res);
    };
  });
}

}  // namespace dualfuzz::cli
