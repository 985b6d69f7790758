// Checks recorded HTTP traces again with the oracle under chosen limits:
// the traces a fuzz run gave up on (`DUALFUZZ_LOG_INCONCLUSIVE=FILE dualfuzz
// fuzz ...` appends each with its events), so that a change to the search
// is measured on the same traces instead of on a new run's luck. Prints,
// per trace, the verdict and the configurations explored, then the totals.
//
//   build/bench/oracle_recheck bench/data/inconclusive/*.log
//   build/bench/oracle_recheck --budget 0 FILE   # no limit: the true verdict
//   build/bench/oracle_recheck --depth-first-after 500 FILE
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/oracle/oracle.h"

namespace {
using dualfuzz::oracle::Event;
using dualfuzz::oracle::Json;

struct Trace {
  std::string where;  // file:line of its events block
  std::vector<Event> events;
};

// Every "### events" block of the log: one JSON event per line up to the
// next "### " line.
std::vector<Trace> read_log(const std::string& file) {
  std::vector<Trace> out;
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "oracle_recheck: cannot read %s\n", file.c_str());
    return out;
  }
  std::string line;
  bool inside = false;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.rfind("### ", 0) == 0) {
      inside = line.rfind("### events", 0) == 0;
      if (inside) out.push_back({file + ":" + std::to_string(n), {}});
      continue;
    }
    if (!inside || line.empty()) continue;
    const Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (auto e = Event::from_json(j)) {
      out.back().events.push_back(*e);
    } else {
      std::fprintf(stderr, "oracle_recheck: %s:%zu: not an event\n", file.c_str(), n);
      inside = false;
      out.pop_back();
    }
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  namespace oracle = dualfuzz::oracle;
  // The fuzz executions' options, as the defaults.
  oracle::OracleOptions opts = dualfuzz::harness::RunOptions{}.oracle_options;
  std::vector<std::string> files;
  bool quiet = false;
  CLI::App app{"oracle_recheck: recorded traces checked again under chosen oracle limits"};
  app.add_option("--budget", opts.limits.max_explored,
                 "configurations per trace (0: no limit; fuzz runs: 5000)");
  app.add_option("--depth-first-after", opts.limits.depth_first_after,
                 "configurations one response may take before the search goes "
                 "depth-first (0: never)");
  app.add_option("--max-hypotheses", opts.limits.max_hypotheses,
                 "hypotheses per observation");
  app.add_option("--set-aside", opts.limits.set_aside_quiet_steps,
                 "set aside quiet steps (1/0)");
  app.add_flag("-q,--quiet", quiet, "totals only");
  app.add_option("LOG", files, "DUALFUZZ_LOG_INCONCLUSIVE files")->required();
  if (auto rc = dualfuzz::bench::parse(app, argc, argv)) return *rc;

  const auto plugin = dualfuzz::http::plugin();
  const oracle::ServerModel model = plugin.protocol.model();
  auto solver = std::make_shared<oracle::Solver>(opts.solver_timeout_ms, model.strings);
  std::size_t traces = 0, accepted = 0, rejected = 0, undecided = 0, explored = 0;
  double seconds = 0;
  for (const std::string& f : files)
    for (const Trace& t : read_log(f)) {
      ++traces;
      const auto t0 = std::chrono::steady_clock::now();
      oracle::Oracle o(model, opts, solver);
      oracle::Verdict v;
      for (const Event& e : t.events) {
        v = o.observe(e);
        if (v.status == oracle::Verdict::Status::Reject) break;
      }
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      seconds += s;
      explored += o.stats().explored;
      const char* verdict = v.status == oracle::Verdict::Status::Reject ? "reject"
                            : v.status == oracle::Verdict::Status::Inconclusive
                                ? "inconclusive"
                                : "accept";
      (v.status == oracle::Verdict::Status::Reject         ? rejected
       : v.status == oracle::Verdict::Status::Inconclusive ? undecided
                                                           : accepted)++;
      if (!quiet)
        std::printf("%-12s %8zu configurations %8.3f s  %zu events  %s\n", verdict,
                    o.stats().explored, s, t.events.size(), t.where.c_str());
    }
  std::printf(
      "%zu traces: %zu accepted, %zu rejected, %zu inconclusive; %zu configurations, "
      "%.2f s\n",
      traces, accepted, rejected, undecided, explored, seconds);
  return 0;
}
