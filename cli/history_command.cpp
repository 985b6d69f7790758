// `dualfuzz history --format jepsen-etcd|jepsen-kv FILE [--chart FILE.html]`:
// checks a recorded history with the oracle derived from the matching model
// (its partitions on several threads), and charts what each partition's
// search found.
#include <chrono>
#include <iostream>

#include "commands.h"
#include "dualfuzz/harness/history_chart.h"
#include "dualfuzz/oracle/history_check.h"
#include "dualfuzz/specs/jepsen_history.h"
#include "dualfuzz/specs/kv_store.h"
#include "dualfuzz/specs/register.h"
#include "io.h"

namespace dualfuzz::cli {
void add_history_command(CLI::App& app, std::function<int()>& run) {
  struct Opts {
    std::string format = "jepsen-etcd";
    std::string file;
    std::string chart;
    unsigned threads = 0;
    bool online = false;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "history", "Check a recorded history (each client a connection, in file order)");
  sub->add_option("--format", o->format,
                  "jepsen-etcd (register) or jepsen-kv (multi-key)")
      ->check(CLI::IsMember({"jepsen-etcd", "jepsen-kv"}));
  sub->add_option("FILE", o->file, "history file")->required();
  sub->add_flag(
      "--online", o->online,
      "feed events one at a time to the incremental oracle (as a fuzz run does)");
  sub->add_option("--chart", o->chart,
                  "write an HTML page: per partition, the longest prefix some order "
                  "explains and the operation none places (decides every partition)");
  sub->add_option("--threads", o->threads,
                  "partitions searched at the same time (default: one per core)");
  sub->add_flag("-q,--quiet", o->quiet, "print only the verdict line");
  sub->callback([o, &run] {
    run = [o]() -> int {
      if (o->online && !o->chart.empty()) {
        std::cerr << "dualfuzz history: --chart is for the whole-history check, not "
                     "--online\n";
        return kTrouble;
      }
      const auto text = read_file(o->file);
      if (!text) {
        std::cerr << "dualfuzz history: cannot read " << o->file << "\n";
        return kTrouble;
      }
      auto t0 = std::chrono::steady_clock::now();
      const bool kv = o->format == "jepsen-kv";
      auto trace =
          kv ? specs::parse_jepsen_kv(*text) : specs::parse_jepsen_etcd(*text);
      if (!trace) {
        std::cerr << "dualfuzz history: " << o->file << ": " << trace.error() << "\n";
        return kTrouble;
      }
      oracle::ServerModel model = kv ? specs::kv_store_model() : specs::register_model();
      oracle::HistoryCheck c;
      if (o->online) {
        oracle::Oracle oracle(model);
        for (const auto& e : *trace)
          if (!oracle.observe(e).accepted()) break;
        c.verdict = oracle.verdict();
      } else {
        c = oracle::check_history(model, *trace, {}, {o->threads, !o->chart.empty()});
      }
      const oracle::Verdict& v = c.verdict;
      double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const char* word = v.accepted()                                  ? "ACCEPTED"
                         : v.status == oracle::Verdict::Status::Reject ? "REJECTED"
                                                                       : "INCONCLUSIVE";
      std::cout << o->file << ": " << word << " (" << trace->size() << " events, model "
                << model.name << ", " << s << " s)\n";
      if (!v.accepted() && !o->quiet) std::cout << v.explanation;
      if (!o->chart.empty() &&
          !write_file(o->chart,
                      harness::history_chart_html(o->file, model.name, *trace, c))) {
        std::cerr << "dualfuzz history: cannot write " << o->chart << "\n";
        return kTrouble;
      }
      if (v.accepted()) return kNoViolation;
      return v.status == oracle::Verdict::Status::Reject ? kViolation : kTrouble;
    };
  });
}

}  // namespace dualfuzz::cli
