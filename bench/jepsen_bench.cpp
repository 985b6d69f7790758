// Times the derived oracle on the real Jepsen histories and prints per-history
// and total figures (issue #3's targets: <= 0.35 s for the 102 etcd histories,
// <= 0.25 s for kv c50-ok).
//   jepsen_bench [--data DIR] [--only NAME] [--max-hyp N] [--quiet] [--online]
//                [--threads N]
// Default: the whole-trace check (depth-first, the partitions on one thread
// per core; --threads sets how many); --online: event by event.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "bench_args.h"
#include "dualfuzz/oracle/history_check.h"
#include "dualfuzz/specs/jepsen_history.h"
#include "dualfuzz/specs/kv_store.h"
#include "dualfuzz/specs/register.h"

namespace fs = std::filesystem;
using namespace dualfuzz;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Row {
  double seconds = 0;
  bool agree = false;
};

Row run(const fs::path& file, bool kv, bool partitioned, int expected,
        const oracle::OracleOptions& opt, bool quiet, bool online, unsigned threads) {
  std::string text = slurp(file);
  auto t0 = std::chrono::steady_clock::now();
  auto trace = kv ? specs::parse_jepsen_kv(text) : specs::parse_jepsen_etcd(text);
  if (!trace) {
    std::printf("%s: parse error: %s\n", file.filename().c_str(), trace.error().c_str());
    return {};
  }
  oracle::ServerModel m =
      kv ? (partitioned ? specs::kv_store_model() : specs::kv_store_model_unpartitioned())
         : specs::register_model();
  oracle::Verdict v;
  oracle::OracleStats st;
  if (online) {
    oracle::Oracle o(m, opt);
    for (const auto& e : *trace)
      if (!o.observe(e).accepted()) break;
    v = o.verdict();
    st = o.stats();
  } else {
    v = oracle::check_history(m, *trace, opt, {threads}).verdict;
    st.events = trace->size();
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const char* verdict = v.accepted()                                  ? "accept"
                        : v.status == oracle::Verdict::Status::Reject ? "reject"
                                                                      : "inconclusive";
  bool agree = expected < 0 || (v.accepted() == (expected == 1) &&
                                v.status != oracle::Verdict::Status::Inconclusive);
  if (!quiet || !agree)
    std::printf(
        "%-16s %-12s %-8s %9.4f s  events %5zu  max-live %6zu  explored %8zu  z3 "
        "%llu%s\n",
        file.filename().c_str(), partitioned ? "partitioned" : "", verdict, s, st.events,
        st.max_live_hypotheses, st.explored,
        static_cast<unsigned long long>(st.solver.queries),
        agree ? "" : "  DISAGREES WITH VERDICTS");
  return {s, agree};
}

std::map<std::string, int> verdicts(const fs::path& dir) {
  std::map<std::string, int> out;
  std::istringstream in(slurp(dir / "VERDICTS"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    std::string name, v;
    l >> name >> v;
    out[name] = v == "true";
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  fs::path data = fs::path(DUALFUZZ_SHARED_DIR) / "benchdata" / "jepsen";
  if (!fs::exists(data)) data = "/work/shared/benchdata/jepsen";
  std::string only;
  bool quiet = false, online = false;
  unsigned threads = 0;
  oracle::OracleOptions opt;
  std::string data_dir;
  CLI::App app{"jepsen_bench: the oracle on the Jepsen histories"};
  app.add_option("--data", data_dir, "directory with etcd/ and the kv histories");
  app.add_option("--only", only, "one kv history");
  app.add_option("--max-hyp", opt.limits.max_hypotheses, "hypotheses per observation");
  app.add_flag("--quiet", quiet, "one line per kv history");
  app.add_flag("--online", online, "event by event instead of the whole-trace check");
  app.add_option("--threads", threads,
                 "partitions searched at the same time (0, the default: one per core)");
  if (auto rc = dualfuzz::bench::parse(app, argc, argv)) return *rc;
  if (!data_dir.empty()) data = data_dir;
  if (!fs::exists(data / "etcd" / "VERDICTS")) {
    std::fprintf(stderr, "jepsen_bench: no data at %s\n", data.c_str());
    return 2;
  }
  auto ev = verdicts(data / "etcd");
  double total = 0, worst = 0;
  int agree = 0, n = 0;
  for (const auto& [name, expected] : ev) {
    if (!only.empty() && name.find(only) == std::string::npos) continue;
    Row r =
        run(data / "etcd" / name, false, false, expected, opt, quiet, online, threads);
    total += r.seconds;
    worst = std::max(worst, r.seconds);
    agree += r.agree;
    ++n;
  }
  if (n)
    std::printf(
        "etcd: %d histories, %d verdicts reproduced, total %.3f s, worst %.3f s"
        " (target <= 0.35 s total)\n",
        n, agree, total, worst);
  auto kv = verdicts(data / "kv");
  for (const auto& [name, expected] : kv) {
    if (!only.empty() && name.find(only) == std::string::npos) continue;
    Row r = run(data / "kv" / name, true, true, expected, opt, false, online, threads);
    if (name == "c50-ok.txt")
      std::printf("kv c50-ok: %.3f s (target <= 0.25 s)\n", r.seconds);
  }
  return 0;
}
