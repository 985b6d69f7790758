// `dualfuzz run --spec http --target inprocess[:BUG] SCRIPT`: plays one
// script, prints the trace and the verdict. `dualfuzz bugs` lists the
// reference server's planted bugs.
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/servers/in_process_transport.h"
#include "dualfuzz/specs/http_protocol.h"

namespace dualfuzz::cli {

void add_run_command(CLI::App& app, std::function<int()>& run) {
  struct Opts {
    std::string spec = "http";
    std::string target = "inprocess";
    std::string file;
    bool liveness = false;
    int timeout_ms = 2000;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("run", "Play one script against a server and check it");
  sub->add_option("--spec", o->spec, "protocol model")->check(CLI::IsMember({"http"}));
  sub->add_option("--target", o->target,
                  "inprocess[:BUG] — the reference server in this process, optionally with a "
                  "planted bug (see `dualfuzz bugs`)");
  sub->add_option("SCRIPT", o->file, "script file")->required();
  sub->add_flag("--liveness", o->liveness, "report requests left unanswered as a violation");
  sub->add_option("--timeout-ms", o->timeout_ms, "per-response timeout");
  sub->callback([o, &run] {
    run = [o]() -> int {
      std::ifstream in(o->file);
      if (!in) {
        std::cerr << "dualfuzz run: cannot read " << o->file << "\n";
        return kTrouble;
      }
      std::stringstream ss;
      ss << in.rdbuf();
      harness::Protocol http = specs::http_protocol();
      auto script = harness::parse_script(ss.str(), http.functions);
      if (!script) {
        std::cerr << "dualfuzz run: " << o->file << ": " << script.error() << "\n";
        return kTrouble;
      }
      if (o->target.rfind("inprocess", 0) != 0) {
        std::cerr << "dualfuzz run: only --target inprocess[:BUG] is supported so far\n";
        return kTrouble;
      }
      std::string bug = o->target.size() > 10 ? o->target.substr(10) : "";
      servers::HttpServerCore server({bug});
      servers::InProcessTransport transport(server);
      harness::RunOptions opts;
      opts.check_liveness = o->liveness;
      opts.message_timeout = std::chrono::milliseconds(o->timeout_ms);
      harness::Executor ex(http, transport, opts);
      harness::RunResult r = ex.run(*script);
      std::cout << r.report();
      if (r.violation()) return kViolation;
      return r.outcome == harness::RunResult::Outcome::Trouble ? kTrouble : kNoViolation;
    };
  });

  CLI::App* bugs = app.add_subcommand("bugs", "List the reference server's planted bugs");
  bugs->callback([&run] {
    run = []() -> int {
      for (const auto& b : servers::planted_bugs())
        std::cout << b.name << "\t[" << b.category << "] " << b.description << "\n";
      return kNoViolation;
    };
  });
}

}  // namespace dualfuzz::cli
