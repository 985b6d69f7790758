#include "jobs.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "commands.h"
#include "file_io.h"
#include "stop_signal.h"

extern char** environ;

namespace dualfuzz::cli {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long workers asked to stop may take to end with their summary (a
// worker in the middle of shrinking a finding finishes it: at most a
// minute), and how far past its budget a worker may run before it is asked.
constexpr double kStopGrace = 90;
constexpr double kOverrun = 180;

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A worker's file, "" when it left none.
std::string slurp(const std::string& path) { return read_file(path).value_or(""); }

// The counters of a summary line that add up over workers.
constexpr const char* kSummed[] = {"executions",
                                   "messages",
                                   "requests_sent",
                                   "inconclusive",
                                   "pooled",
                                   "internal_errors",
                                   "unreachable",
                                   "outages",
                                   "crashes",
                                   "hangs",
                                   "mutator_replays",
                                   "targeted_rewrites",
                                   "unblamed_deaths",
                                   "known_violations",
                                   "baseline_known",
                                   "reference_known",
                                   "reference_plays",
                                   "race_plays",
                                   "past_race_violations",
                                   "advisory_plays"};

std::string finding_key(const Json& f) {
  const std::string kind = f.value("kind", "");
  const std::string id = f.contains("identity") && f["identity"].is_string()
                             ? f["identity"].get<std::string>()
                             : "";
  return kind + "\n" + (id.empty() ? f.value("signature", "") : id);
}

// Lists of findings merged: one entry per key, its first occurrence (least
// first_seconds) kept whole, counts summed, and the workers that met it.
Json merge_findings(const std::vector<std::pair<unsigned, const Json*>>& lists) {
  std::map<std::string, std::size_t> at;
  Json out = Json::array();
  for (const auto& [worker, list] : lists) {
    if (!list || !list->is_array()) continue;
    for (const Json& f : *list) {
      if (!f.is_object()) continue;
      const std::string key = finding_key(f);
      const auto it = at.find(key);
      if (it == at.end()) {
        Json g = f;
        g["workers"] = Json::array({worker});
        at[key] = out.size();
        out.push_back(std::move(g));
        continue;
      }
      Json& g = out[it->second];
      const std::uint64_t count =
          g.value("count", std::uint64_t{1}) + f.value("count", std::uint64_t{1});
      Json workers = g["workers"];
      if (std::find(workers.begin(), workers.end(), Json(worker)) == workers.end())
        workers.push_back(worker);
      if (f.value("first_seconds", 1e300) < g.value("first_seconds", 1e300)) g = f;
      g["count"] = count;
      g["workers"] = std::move(workers);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Json& a, const Json& b) {
    return a.value("first_seconds", 1e300) < b.value("first_seconds", 1e300);
  });
  return out;
}

// {key: count} lists ("known": pattern, "baseline": identity, advisories:
// key) merged by their key field.
Json merge_counts(const std::vector<const Json*>& lists, const std::string& key) {
  std::map<std::string, std::size_t> at;
  Json out = Json::array();
  for (const Json* list : lists) {
    if (!list || !list->is_array()) continue;
    for (const Json& e : *list) {
      if (!e.is_object() || !e.contains(key)) continue;
      const std::string k = dump(e[key]);
      const auto it = at.find(k);
      if (it == at.end()) {
        at[k] = out.size();
        out.push_back(e);
      } else {
        out[it->second]["count"] = out[it->second].value("count", std::uint64_t{0}) +
                                   e.value("count", std::uint64_t{0});
      }
    }
  }
  return out;
}

pid_t spawn(const std::string& exe, const std::vector<std::string>& args,
            const std::string& out, const std::string& err, unsigned worker) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (std::string_view(*e).rfind("DUALFUZZ_WORKER=", 0) != 0) env.emplace_back(*e);
  env.push_back("DUALFUZZ_WORKER=" + std::to_string(worker));
  std::vector<std::string> all{exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

// The executions a worker's last progress line counts (its stderr).
std::uint64_t progress_executions(const std::string& err) {
  static const std::regex progress(R"(dualfuzz fuzz: \d+ s, (\d+) executions)");
  std::uint64_t n = 0;
  const std::string text = slurp(err);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), progress);
       it != std::sregex_iterator(); ++it)
    n = std::stoull((*it)[1].str());
  return n;
}

bool is_progress_line(const std::string& line) {
  static const std::regex progress(R"(^dualfuzz fuzz: \d+ s, \d+ executions)");
  return std::regex_search(line, progress);
}

std::string fresh_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/dualfuzz-jobs-XXXXXX";
  if (!::mkdtemp(templ.data())) return "";
  return templ;
}

double count_of(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

// A finding of the merged list as a single run prints it.
void print_merged_finding(const Json& f, std::size_t n) {
  const std::string kind = f.value("kind", "");
  std::string workers;
  for (const Json& w : f["workers"])
    workers += (workers.empty() ? "" : ", ") + std::to_string(w.get<unsigned>());
  std::cout << "=== " << (kind == "crash" || kind == "hang" ? kind : "violation") << " "
            << n << ": " << f.value("signature", "") << "\n"
            << "dualfuzz fuzz: first after " << f.value("first_seconds", 0.0)
            << " s, by worker " << f["workers"][0].get<unsigned>() << "; "
            << f.value("count", 0) << " occurrence(s) in worker(s) " << workers << "\n"
            << "--- "
            << (f.value("reproduced", false) ? "minimized" : "original (NOT minimized)")
            << " script (" << f.value("min_steps", 0) << " steps)\n"
            << f.value("script", "") << "--- " << f.value("report", "") << "\n";
  if (f.contains("identity") && f["identity"].is_string())
    std::cout << "identity: " << f["identity"].get<std::string>() << "\n";
  std::cout << "\n";
}

}  // namespace

std::vector<std::string> worker_args(const std::vector<std::string>& args,
                                     unsigned worker, std::uint64_t seed,
                                     const std::string& summary_file,
                                     const std::string& chart_file) {
  static constexpr std::string_view kTaken[] = {
      "--jobs",  "--jobs-dir",       "--seed",
      "--chart", "--worker-summary", "--shared-server-lock"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool taken = false;
    for (std::string_view t : kTaken) {
      if (a == t) {
        taken = true;
        ++i;  // (and its value)
        break;
      }
      if (a.size() > t.size() && a.compare(0, t.size(), t) == 0 && a[t.size()] == '=') {
        taken = true;
        break;
      }
    }
    if (!taken) out.push_back(replace_all(a, "{worker}", std::to_string(worker)));
  }
  out.insert(out.end(),
             {"--seed", std::to_string(seed), "--worker-summary", summary_file});
  if (!chart_file.empty()) out.insert(out.end(), {"--chart", chart_file});
  return out;
}

Json merge_summaries(const std::vector<WorkerOutcome>& workers,
                     std::optional<unsigned> winner) {
  const WorkerOutcome* base = nullptr;
  for (const WorkerOutcome& w : workers)
    if (w.summary && (!base || (winner && w.worker == *winner))) base = &w;
  Json j = base ? *base->summary : Json::object();
  std::vector<std::pair<unsigned, const Json*>> findings, violations, races, unconfirmed;
  std::vector<const Json*> known, baseline, advisories;
  Json site = Json::object();
  Json per_worker = Json::array();
  double seconds = 0;
  bool violation = false, lost = false;
  for (const char* k : kSummed) j[k] = 0;
  for (const WorkerOutcome& w : workers) {
    Json one = {{"worker", w.worker}, {"seed", w.seed}, {"exit", w.exit}};
    if (!w.note.empty()) one["note"] = w.note;
    if (w.summary) {
      const Json& s = *w.summary;
      for (const char* k : kSummed)
        j[k] = j[k].get<std::uint64_t>() + static_cast<std::uint64_t>(count_of(s, k));
      one["executions"] = static_cast<std::uint64_t>(count_of(s, "executions"));
      one["seconds"] = count_of(s, "seconds");
      if (s.contains("findings")) findings.emplace_back(w.worker, &s["findings"]);
      if (s.contains("violations")) violations.emplace_back(w.worker, &s["violations"]);
      if (s.contains("races")) races.emplace_back(w.worker, &s["races"]);
      if (s.contains("unconfirmed"))
        unconfirmed.emplace_back(w.worker, &s["unconfirmed"]);
      if (s.contains("known")) known.push_back(&s["known"]);
      if (s.contains("baseline")) baseline.push_back(&s["baseline"]);
      if (s.contains("advisories")) advisories.push_back(&s["advisories"]);
      if (s.contains("site_answers") && s["site_answers"].is_object())
        for (const auto& [path, n] : s["site_answers"].items())
          site[path] = site.value(path, std::uint64_t{0}) + n.get<std::uint64_t>();
      seconds = std::max(seconds, count_of(s, "seconds"));
      violation = violation || s.value("violation", false);
      lost = lost || s.value("server_lost", false);
    }
    per_worker.push_back(std::move(one));
  }
  // A run stopped by a finding lasted until it: the winner's "seconds".
  if (!winner) j["seconds"] = seconds;
  j["violation"] = violation;
  j["server_lost"] = lost;
  j["findings"] = merge_findings(findings);
  j["races"] = merge_findings(races);
  j["unconfirmed"] = merge_findings(unconfirmed);
  if (!violations.empty()) j["violations"] = merge_findings(violations);
  if (!known.empty()) j["known"] = merge_counts(known, "pattern");
  if (!baseline.empty()) j["baseline"] = merge_counts(baseline, "identity");
  if (!advisories.empty()) j["advisories"] = merge_counts(advisories, "key");
  j["site_answers"] = std::move(site);
  j["jobs"] = workers.size();
  j["workers"] = std::move(per_worker);
  if (j.contains("seed")) j.erase("seed");  // (each worker has its own)
  if (winner) j["winner"] = *winner;
  return j;
}

int merged_exit(const std::vector<WorkerOutcome>& workers) {
  bool trouble = false, internal = false;
  for (const WorkerOutcome& w : workers) {
    if (w.exit == kViolation) return kViolation;
    trouble = trouble || w.exit == kTrouble;
    internal =
        internal || w.exit == kInternalError || w.exit < 0 || w.exit > kInternalError;
  }
  return trouble ? kTrouble : internal ? kInternalError : kNoViolation;
}

int run_jobs(const JobsRun& r) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string dir = r.dir.empty() ? fresh_dir() : r.dir;
  if (dir.empty() || (fs::create_directories(dir, ec), ec)) {
    std::cerr << "dualfuzz fuzz: --jobs: cannot make the jobs directory "
              << (dir.empty() ? "under $TMPDIR" : dir) << "\n";
    return kTrouble;
  }
  std::string exe = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::cerr
        << "dualfuzz fuzz: --jobs: cannot find the dualfuzz program (/proc/self/exe)\n";
    return kTrouble;
  }
  const std::string chart_ext =
      r.chart.empty() ? "" : fs::path(r.chart).extension().string();
  install_stop_handlers();
  auto file = [&](unsigned i, const char* ext) {
    return dir + "/worker-" + std::to_string(i) + ext;
  };
  struct Running {
    pid_t pid = -1;
    bool done = false;
  };
  std::vector<Running> running(r.jobs);
  std::vector<WorkerOutcome> outcomes(r.jobs);
  const auto start = Clock::now();
  auto now = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  for (unsigned i = 0; i < r.jobs; ++i) {
    outcomes[i].worker = i;
    outcomes[i].seed = r.seed + i;
    fs::remove(file(i, ".json"), ec);
    auto args = worker_args(r.args, i, r.seed + i, file(i, ".json"),
                            r.chart.empty() ? "" : file(i, chart_ext.c_str()));
    if (r.shared_server)
      args.insert(args.end(), {"--shared-server-lock", dir + "/server.lock"});
    running[i].pid = spawn(exe, args, file(i, ".out"), file(i, ".err"), i);
    if (running[i].pid < 0) {
      running[i].done = true;
      outcomes[i].note = "could not be started";
    }
  }
  std::cerr << "dualfuzz fuzz: --jobs " << r.jobs << ": worker processes with seeds "
            << r.seed << ".." << r.seed + r.jobs - 1 << "; each one's output in " << dir
            << "/worker-I.{out,err,json}\n";
  std::optional<unsigned> winner;
  std::optional<double> stop_at;  // when the workers were asked to stop
  bool killed = false;
  double next_progress = 10;
  auto ask_all = [&](int sig) {
    for (const Running& w : running)
      if (!w.done && w.pid > 0) ::kill(w.pid, sig);
  };
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (unsigned i = 0; i < r.jobs; ++i) {
        if (running[i].pid != pid || running[i].done) continue;
        running[i].done = true;
        outcomes[i].ended = now();
        if (WIFEXITED(status)) {
          outcomes[i].exit = WEXITSTATUS(status);
        } else {
          outcomes[i].note = "ended by signal " + std::to_string(WTERMSIG(status)) +
                             (killed ? " (it did not stop in time)" : "");
        }
        // The first finding ends the run, as in a single run.
        if (outcomes[i].exit == kViolation && !r.keep_going && !winner) {
          winner = i;
          if (!stop_at) stop_at = now();
          ask_all(SIGTERM);
        }
      }
      continue;
    }
    if (std::all_of(running.begin(), running.end(),
                    [](const Running& w) { return w.done; }))
      break;
    if (stop_requested() && !stop_at) {
      stop_at = now();
      ask_all(SIGTERM);  // (from a terminal they have their SIGINT already)
    }
    if (!stop_at && now() > r.seconds + kOverrun) {
      stop_at = now();
      ask_all(SIGTERM);
    }
    if (stop_at && !killed && now() > *stop_at + kStopGrace) {
      killed = true;
      ask_all(SIGKILL);
    }
    if (!r.quiet && now() >= next_progress) {
      std::uint64_t total = 0;
      for (unsigned i = 0; i < r.jobs; ++i) total += progress_executions(file(i, ".err"));
      std::cerr << "dualfuzz fuzz: --jobs " << r.jobs << ": " << static_cast<int>(now())
                << " s, " << total << " executions (" << static_cast<int>(total / now())
                << "/s)\n";
      next_progress += 10;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (unsigned i = 0; i < r.jobs; ++i) {
    const std::string text = slurp(file(i, ".json"));
    if (!text.empty()) {
      Json s = Json::parse(text, nullptr, false);
      if (!s.is_discarded()) outcomes[i].summary = std::move(s);
    }
    if (!outcomes[i].summary && outcomes[i].note.empty())
      outcomes[i].note =
          "it left no summary (exit " + std::to_string(outcomes[i].exit) + ")";
  }
  // What the workers said on stderr besides progress, once each.
  std::set<std::string> said;
  for (unsigned i = 0; i < r.jobs; ++i) {
    std::istringstream in(slurp(file(i, ".err")));
    for (std::string line; std::getline(in, line);)
      if (!is_progress_line(line) && said.insert(line).second) std::cerr << line << "\n";
  }
  const Json merged = merge_summaries(outcomes, winner);
  // The report.
  if (winner) {
    // The winner's own report, as a single run prints it (less its --json
    // line: the merged one ends the output).
    std::istringstream in(slurp(file(*winner, ".out")));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (r.json)
      while (!lines.empty() && (lines.back().empty() || lines.back().front() == '{'))
        lines.pop_back();
    for (const std::string& line : lines) std::cout << line << "\n";
    std::cout << "dualfuzz fuzz: --jobs " << r.jobs << ": worker " << *winner << " (seed "
              << r.seed + *winner << ") found it after " << outcomes[*winner].ended
              << " s; the others were stopped\n";
  } else {
    std::size_t n = 0;
    for (const Json& f : merged["findings"]) print_merged_finding(f, ++n);
    for (const Json& f : merged["races"]) {
      std::cout << "=== race: " << f.value("signature", "") << " (" << f.value("count", 0)
                << " x, worker " << f["workers"][0].get<unsigned>() << ")\n";
    }
    // (With a baseline: not shown again, so not told new or known; no violation.)
    for (const Json& f : merged["unconfirmed"]) {
      std::cout << "=== unconfirmed: " << f.value("signature", "") << " ("
                << f.value("count", 0) << " x, worker " << f["workers"][0].get<unsigned>()
                << ")\n";
    }
    if (merged.contains("advisories") && !merged["advisories"].empty()) {
      std::cout << "dualfuzz fuzz: " << merged["advisories"].size()
                << " advisory(ies): the server departed from a SHOULD, which is no "
                   "violation (reports in the workers' outputs):\n";
      for (const Json& a : merged["advisories"])
        std::cout << "  " << a.value("count", 0) << " x " << a.value("key", "") << "\n";
    }
    if (count_of(merged, "known_violations") > 0)
      std::cout << "dualfuzz fuzz: " << count_of(merged, "known_violations")
                << " known violation(s) not reported (--known)\n";
    if (merged.contains("baseline"))
      std::cout << "dualfuzz fuzz: " << count_of(merged, "baseline_known")
                << " known finding(s) of the baseline seen, not reported\n";
    std::cout << "dualfuzz fuzz: "
              << (n ? std::to_string(n) + " distinct finding(s)"
                    : std::string("no violation"))
              << (merged["races"].empty()
                      ? ""
                      : ", " + std::to_string(merged["races"].size()) + " race(s)")
              << "\n";
  }
  const double seconds = count_of(merged, "seconds");
  std::cout << "dualfuzz fuzz: --jobs " << r.jobs << ": "
            << static_cast<std::uint64_t>(count_of(merged, "executions"))
            << " executions in " << seconds << " s (";
  for (const Json& w : merged["workers"])
    std::cout << (w["worker"] == 0 ? "" : ", ") << "worker " << w["worker"] << ": "
              << static_cast<std::uint64_t>(w.value("executions", 0.0))
              << (w.contains("note") ? " [" + w["note"].get<std::string>() + "]" : "");
  std::cout << "), " << static_cast<std::uint64_t>(count_of(merged, "messages"))
            << " messages, "
            << static_cast<std::uint64_t>(count_of(merged, "inconclusive"))
            << " inconclusive (oracle budget); outputs in " << dir << "\n";
  // --chart: the first finding's, from the worker that found it.
  if (!r.chart.empty()) {
    std::optional<unsigned> from = winner;
    if (!from && !merged["findings"].empty())
      from = merged["findings"][0]["workers"][0].get<unsigned>();
    if (from && fs::exists(file(*from, chart_ext.c_str()))) {
      fs::copy_file(file(*from, chart_ext.c_str()), r.chart,
                    fs::copy_options::overwrite_existing, ec);
      std::cerr << "dualfuzz fuzz: chart of the counterexample (worker " << *from << ") "
                << (ec ? "could not be written to " : "written to ") << r.chart << "\n";
    }
  }
  if (r.json) std::cout << dump(merged) << "\n";
  return merged_exit(outcomes);
}

}  // namespace dualfuzz::cli
