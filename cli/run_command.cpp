// `dualfuzz run [--spec NAME] --target inprocess[:BUG] [--chart FILE] SCRIPT`:
// plays one script, prints the trace and the verdict. `--repeat N` plays it
// N times (a fresh server state each time) and ends with one JSON line
// counting the plays, the inconclusive ones and each violation signature
// seen: a race or the clock can make a script's outcome vary, and one play
// says little about its rate (bench/eval_mutants.py's kill check reads that
// line). The line also has "reproduced", the plays that showed the first
// violation's signature, and "races", the violating plays classed not
// linearizable (campaign/consistency.h), and a line before it says how often
// the violation reproduced, and whether it is a race (whose timing varies)
// or sequential (every play should show it). (`dualfuzz replay`
// plays it as the fuzz target does, with the fuzz target's report). `dualfuzz bugs` lists
// the reference server's planted bugs (`--spec unison`: the reference
// synchronizer's).
//
// Against a server at HOST:PORT, a play whose connections were closed or
// reset with requests unanswered (or that went silent, or could not open a
// later connection) is followed by a look at the server
// (campaign/server_death.h): if it no longer accepts connections, or
// answers nothing, not even a probe on a fresh connection, the script
// killed it: "the server died" ("the server hung"), exit 1, and no more
// --repeat plays.
#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "dualfuzz/campaign/consistency.h"
#include "dualfuzz/campaign/server_death.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/campaign/site.h"
#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/protocols/builtin.h"
#include "io.h"
#include "plugin_help.h"

namespace dualfuzz::cli {

namespace {

struct Opts {
  std::string spec = protocols::kDefault;
  std::string consistency;  // "" = the protocol's own
  std::vector<std::string> assume;
  bool as_stated = false;  // --as-stated
  bool strict = false;
  std::string origin;  // "" = $DUALFUZZ_ORIGIN
  std::string target = "inprocess";
  std::string file;
  bool liveness = false;
  int timeout_ms = 2000;
  int linger_ms = static_cast<int>(harness::RunOptions::kReplayLinger.count());
  std::string chart;
  std::size_t budget = 0;
  bool json = false;
  unsigned repeat = 1;
};

// Plays the script once and prints the report (and the chart).
int run_script(const Opts& o) {
  const auto text = read_file(o.file);
  if (!text) {
    std::cerr << "dualfuzz run: cannot read " << o.file << "\n";
    return kTrouble;
  }
  const campaign::Registry registry =
      o.origin.empty() ? protocols::builtin() : protocols::builtin(o.origin);
  auto plugin = protocols::find(registry, o.spec);
  if (!plugin) {
    std::cerr << "dualfuzz run: " << plugin.error() << "\n";
    return kTrouble;
  }
  auto tested = campaign::judged_as(**plugin, o.assume, o.consistency, o.strict);
  if (!tested) {
    std::cerr << "dualfuzz run: " << tested.error() << "\n";
    return kTrouble;
  }
  // What the server's first answer says of it (fuzz_command.cpp does the same).
  if (!o.as_stated)
    if (auto more = campaign::implied_beyond(*tested, o.target, o.assume);
        !more.empty()) {
      std::vector<std::string> assume = o.assume;
      for (const std::string& a : more) {
        std::cerr << "dualfuzz run: the server's answer implies --assume " << a << "\n";
        assume.push_back(a);
      }
      tested = campaign::judged_as(**plugin, assume, o.consistency, o.strict);
      if (!tested) {
        std::cerr << "dualfuzz run: " << tested.error() << "\n";
        return kTrouble;
      }
    }
  const harness::Protocol& protocol = tested->protocol;
  auto script = harness::parse_script(*text, protocol.functions);
  if (!script) {
    std::cerr << "dualfuzz run: " << o.file << ": " << script.error() << "\n";
    return kTrouble;
  }
  auto target = Target::make(*tested, o.target);
  if (!target) {
    std::cerr << "dualfuzz run: " << target.error() << "\n";
    return kTrouble;
  }
  harness::RunOptions opts;
  opts.check_liveness = o.liveness;
  // One script, read by a person: a definite verdict matters more than
  // the time a fuzz execution may take.
  opts.oracle_options.limits.max_explored = o.budget;
  opts.oracle_options.time_budget = {};
  opts.message_timeout = std::chrono::milliseconds(o.timeout_ms);
  opts.linger = std::chrono::milliseconds(o.linger_ms);
  // Plays until the first violation, whose report is printed (the last
  // play's if none), then the rest of the --repeat plays for the counts.
  harness::RunResult r;
  std::map<std::string, unsigned> signatures;
  unsigned inconclusive = 0, races = 0;
  bool shown = false;
  campaign::Death death;  // the script killed the server
  unsigned plays = 0;
  for (; plays < o.repeat && !death; ++plays) {
    opts.run_namespace = (*target)->reset();
    harness::Executor ex(protocol, (*target)->transport(), opts);
    harness::RunResult now = ex.run(*script);
    // (Waited on longer than a message: a loaded server is slow, not hung.)
    if ((*target)->external() && !campaign::unreachable(now) &&
        campaign::lost_answers(now))
      death =
          campaign::refused(now)
              ? campaign::Death{campaign::DeathKind::Crash, campaign::refused_detail(now)}
              : campaign::confirm_death(
                    protocol, **target,
                    std::max(3 * opts.message_timeout, std::chrono::milliseconds(1000)));
    if (death) {
      r = std::move(now);
      break;
    }
    if (now.violation()) {
      ++signatures[campaign::signature_of(protocol, now)];
      races += campaign::classify(protocol, now).kind ==
               campaign::Classification::Kind::NotLinearizable;
    }
    inconclusive += now.inconclusive();
    if (!shown) {
      shown = now.violation();
      r = std::move(now);
    }
  }
  const auto format =
      o.json ? harness::TraceFormat::Json : harness::TraceFormat::Readable;
  if (death) {
    std::cout << campaign::death_report(protocol, death.kind, death.detail, r, format);
    if (o.repeat > 1)
      std::cout << "(play " << plays + 1 << " of " << o.repeat << "; no more plays)\n";
    if (!o.chart.empty() &&
        !write_chart(o.chart, protocol, *script, r,
                     "dualfuzz run " + o.file + " (" + o.target +
                         "): " + campaign::death_headline(death.kind)))
      std::cerr << "dualfuzz run: cannot write " << o.chart << "\n";
    return kViolation;
  }
  std::cout << r.report(protocol, format);
  if (r.outcome == harness::RunResult::Outcome::ModelViolation)
    std::cout << "class: " << campaign::classify(protocol, r).text << "\n";
  if (!o.chart.empty() &&
      !write_chart(o.chart, protocol, *script, r,
                   "dualfuzz run " + o.file + " (" + o.target + ")")) {
    std::cerr << "dualfuzz run: cannot write " << o.chart << "\n";
    return kTrouble;
  }
  if (o.repeat > 1) {
    unsigned violations = 0;
    for (const auto& [sig, n] : signatures) violations += n;
    const unsigned reproduced =
        r.violation() ? signatures[campaign::signature_of(protocol, r)] : 0;
    if (r.violation()) {
      const bool race = campaign::classify(protocol, r).kind ==
                        campaign::Classification::Kind::NotLinearizable;
      std::cout << "\ndualfuzz run: " << (race ? "a race (not linearizable): " : "")
                << "the violation reproduced in " << reproduced << " of " << o.repeat
                << " plays"
                << (race                     ? " (a race: its timing varies)"
                    : reproduced == o.repeat ? " (every play)"
                                             : " (not every play: timing, or state "
                                               "outside the script)")
                << "\n";
    }
    std::cout << "\n"
              << harness::dump_json(harness::Json{{"plays", o.repeat},
                                                  {"violations", violations},
                                                  {"reproduced", reproduced},
                                                  {"races", races},
                                                  {"inconclusive", inconclusive},
                                                  {"signatures", signatures}})
              << "\n";
  }
  return exit_code(r);
}

// Each planted bug on a line, as `bugs` and `serve --bug list` print them:
// the plug-in's own (campaign::Plugin::planted_bugs).
int list_bugs(const std::string& spec) {
  const campaign::Registry r = protocols::builtin();
  auto plugin = protocols::find(r, spec);
  if (!plugin) {
    std::cerr << "dualfuzz bugs: " << plugin.error() << "\n";
    return kTrouble;
  }
  if (!(*plugin)->planted_bugs) return kNoViolation;
  for (const auto& b : (*plugin)->planted_bugs())
    std::cout << b.name << "\t" << (b.category.empty() ? "" : "[" + b.category + "] ")
              << b.description << "\n";
  return kNoViolation;
}

// `serve` and `bugs`: the reference server (or proxy) standalone, its
// planted bugs.
void add_serve_and_bugs(CLI::App& app, std::function<int()>& run) {
  struct Serve {
    int port = 8080;
    std::string bug;
    bool proxy = false;
    bool gateway = false;
    std::string origin;
  };
  auto so = std::make_shared<Serve>();
  CLI::App* serve = app.add_subcommand(
      "serve",
      "Run the reference server (or, with --proxy, the reference proxy) on 127.0.0.1");
  serve->add_option("--port", so->port, "TCP port (0: any free port)")
      ->check(CLI::Range(0, 65535));
  serve->add_option("--bug", so->bug, "planted bug to enable, or `list`");
  serve->add_flag("--proxy", so->proxy,
                  "the reference proxy (forward; `fuzz --spec proxy`) instead");
  serve->add_flag("--gateway", so->gateway,
                  "the reference proxy as a gateway (reverse; `fuzz --spec gateway`)");
  serve->add_option(
      "--origin", so->origin,
      "with --proxy/--gateway: HOST:PORT every request is forwarded to (the "
      "tester's origin listener, `fuzz --origin`)");
  serve->callback([so, &run] {
    run = [so]() -> int {
      const std::string spec = so->gateway ? "gateway"
                               : so->proxy ? "proxy"
                                           : protocols::kDefault;
      if (so->bug == "list") return list_bugs(spec);
      const campaign::Registry r = protocols::builtin();
      const campaign::Plugin* plugin = r.find(spec);
      if (!plugin || !plugin->serve) {
        std::cerr << "dualfuzz serve: the plug-in " << spec
                  << " has no server to serve\n";
        return kTrouble;
      }
      return plugin->serve(static_cast<std::uint16_t>(so->port), so->bug, so->origin);
    };
  });

  CLI::App* bugs = app.add_subcommand("bugs", "List the reference server's planted bugs");
  auto bugs_spec = std::make_shared<std::string>(protocols::kDefault);
  const campaign::Registry registry = protocols::builtin();
  bugs->add_option("--spec", *bugs_spec, spec_help(registry, protocols::kDefault))
      ->check(CLI::IsMember(registry.names()));
  bugs->callback(
      [bugs_spec, &run] { run = [bugs_spec] { return list_bugs(*bugs_spec); }; });
}

}  // namespace

void add_run_command(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<Opts>();
  CLI::App* sub =
      app.add_subcommand("run", "Play one script against a server and check it");
  const campaign::Registry registry = protocols::builtin();
  sub->add_option("--spec", o->spec, spec_help(registry, protocols::kDefault))
      ->check(CLI::IsMember(registry.names()));
  sub->add_option("--consistency", o->consistency,
                  consistency_help(registry,
                                   "judge against a weaker consistency than atomic "
                                   "requests"));
  sub->add_option("--assume", o->assume, assume_help(registry));
  sub->add_flag("--as-stated", o->as_stated, kAsStatedHelp);
  sub->add_flag("--strict", o->strict, kStrictHelp);
  sub->add_option(
      "--target", o->target,
      "inprocess[:BUG] — the reference server in this process, optionally with a "
      "planted bug (see `dualfuzz bugs`) — or HOST:PORT of a running server");
  sub->add_option("--origin", o->origin, kOriginHelp);
  sub->add_option("SCRIPT", o->file, "script file")->required();
  sub->add_flag("--json", o->json, "each message of the trace as its JSON IR");
  sub->add_option("--repeat", o->repeat,
                  "play the script N times (a fresh server state each time): the "
                  "first violation's report, then a JSON line counting the plays and "
                  "the violations by signature")
      ->check(CLI::Range(1u, 100000u));
  sub->add_flag("--liveness", o->liveness,
                "report requests left unanswered as a violation");
  sub->add_option("--timeout-ms", o->timeout_ms, "per-response timeout");
  sub->add_option("--linger-ms", o->linger_ms,
                  "after the last answer, how long bytes the server sends past its "
                  "answers (a HEAD answered with content) are still read and judged")
      ->check(CLI::Range(0, 60000));
  sub->add_option("--oracle-budget", o->budget,
                  "configurations the oracle may explore before it stops with an "
                  "inconclusive verdict (0, the default: no limit; fuzzing uses " +
                      std::to_string(harness::RunOptions::kMaxExploredPerRun) + ")");
  sub->add_option(
      "--chart", o->chart,
      "write a message-sequence chart (.svg, or .html with script and report)");
  sub->callback([o, &run] { run = [o] { return run_script(*o); }; });
  add_serve_and_bugs(app, run);
}

}  // namespace dualfuzz::cli
