// `dualfuzz fuzz --jobs N`: N worker processes, each a `dualfuzz fuzz` of
// its own with seed SEED+i, against the same target, and one merged report.
// Runs against one external server do not see each other: every execution
// has its own path namespace, which names the worker's process. An
// in-process target gives each worker its own server. `{worker}` in any
// argument becomes the worker's number (0..N-1), so each worker may have a
// server of its own (`--target 127.0.0.1:808{worker} --restart '...'`);
// workers also find it in $DUALFUZZ_WORKER.
//
// Without --keep-going the first worker that stops on a finding ends the
// others (SIGTERM: each ends with its summary) and its report is printed
// as a single run prints it; with --keep-going every worker runs its time
// and the findings are merged by identity. Each worker's own output stays
// in the jobs directory (worker-I.out, .err, .json).
//
//   JobsRun r{.jobs = 2, .seed = 1, .args = {"fuzz", "--target", "inprocess:x",
//             "--jobs", "2"}, .seconds = 30};
//   return run_jobs(r);  // the exit code a single run would have
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dualfuzz::cli {

struct JobsRun {
  unsigned jobs = 1;
  std::uint64_t seed = 1;
  std::vector<std::string> args;  // dualfuzz's arguments as given, from "fuzz" on
  double seconds = 60;
  bool keep_going = false;
  bool json = false;
  bool quiet = false;
  std::string chart;  // --chart FILE: the first finding's, whichever worker found it
  std::string dir;    // --jobs-dir; "" = a fresh directory under $TMPDIR
  // One external server for all (no `{worker}` in --target): the workers
  // share a lock file (campaign/detail/shared_server.h), so that a death
  // is blamed on the worker whose script kills the server again alone.
  bool shared_server = false;
};

// Runs the workers and prints the merged report; returns the exit code of
// the whole (1 if any worker found something, else 2, else 3, else 0).
int run_jobs(const JobsRun& r);

// Worker `worker`'s arguments: `args` without --jobs, --jobs-dir, --seed,
// --chart and the workers' own options, `{worker}` replaced, with its own seed, --chart
// (if `chart_file`) and the file its summary goes to.
std::vector<std::string> worker_args(const std::vector<std::string>& args,
                                     unsigned worker, std::uint64_t seed,
                                     const std::string& summary_file,
                                     const std::string& chart_file);

// What one worker left behind.
struct WorkerOutcome {
  unsigned worker = 0;
  std::uint64_t seed = 0;
  int exit = -1;                          // -1: it exited on a signal
  std::optional<nlohmann::json> summary;  // its --json line, if it wrote one
  double ended = 0;                       // seconds after the start
  std::string note;                       // why it has no summary
};

// The --json line of the whole: `winner`'s line (the worker whose finding
// ended the run) or the first worker's, with the counters summed over all,
// the findings, races, advisories, known and baseline counts merged (by
// identity, else signature), and "jobs" and "workers" added.
nlohmann::json merge_summaries(const std::vector<WorkerOutcome>& workers,
                               std::optional<unsigned> winner);

// The exit code of the whole.
int merged_exit(const std::vector<WorkerOutcome>& workers);

}  // namespace dualfuzz::cli
