#include "dualfuzz/fuzz_target.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "dualfuzz/campaign/baseline.h"
#include "dualfuzz/campaign/detail/engine_feedback.h"
#include "dualfuzz/campaign/fuzz_environment.h"
#include "dualfuzz/campaign/known_violations.h"
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/server_coverage.h"
#include "dualfuzz/campaign/shrink.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/mutator/script_mutator.h"

namespace dualfuzz {
namespace {

// The known-violations file: $DUALFUZZ_KNOWN_VIOLATIONS when set (empty:
// none), else <executable>.known_violations when it exists (how OSS-Fuzz,
// which runs a target with its options alone, gets it), else none.
std::string known_violations_path(const campaign::FuzzEnvironment& env) {
  if (env.known_violations) return *env.known_violations;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::string beside = exe.string() + ".known_violations";
  return std::filesystem::exists(beside, ec) ? beside : "";
}

// Adds the wall clock of its scope to `into`.
class Stopwatch {
 public:
  explicit Stopwatch(double& into) : into_(into) {}
  ~Stopwatch() {
    into_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;

 private:
  double& into_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

std::size_t emit(const std::string& s, std::uint8_t* out, std::size_t max) {
  const std::size_t n = std::min(s.size(), max);
  std::memcpy(out, s.data(), n);
  return n;
}

}  // namespace

// libFuzzer: "do not add this input to the corpus" (AFL++'s driver ignores
// it; AFL++ favours fast inputs by itself).
constexpr int kReject = -1;

constexpr const char* kOwnServer = "the fuzz target's own server";

campaign::Plugin plugin_of(harness::Protocol protocol, ServerFactory server) {
  campaign::Plugin p;
  p.protocol = std::move(protocol);
  if (server)
    p.in_process = [server = std::move(server)](const std::string&) { return server(); };
  p.in_process_help = kOwnServer;
  return p;
}

// What FuzzTarget hides from its users: the engine adapter's whole state.
// The environment is read once, when the target is made, so an input is
// never judged by settings that changed under a running campaign.
class FuzzTarget::State {
 public:
  State(Result<campaign::Plugin> plugin, std::string spec, campaign::FuzzEnvironment env)
      : env_(std::move(env)), plugin_(std::move(plugin)), spec_(std::move(spec)) {}
  ~State();  // the summaries of what was counted, not aborted on
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  void initialize();
  int test_one_input(const std::uint8_t* data, std::size_t size);
  std::size_t mutate(std::uint8_t* data, std::size_t size, std::size_t max_size,
                     unsigned int seed);
  std::size_t cross_over(const std::uint8_t* d1, std::size_t s1, const std::uint8_t* d2,
                         std::size_t s2, std::uint8_t* out, std::size_t max_out,
                         unsigned int seed);

 private:
  campaign::Player& player();
  int play_one(const std::uint8_t* data, std::size_t size);
  void internal_error(const std::string& what);
  // A violation the known list matches (then counted and said).
  bool known(const std::string& key);
  const mutator::ScriptMutator& the_mutator();
  // With server coverage: false (and said once) when no server is up to play on.
  bool server_up();
  [[noreturn]] void server_crashed(const harness::Script& script,
                                   const harness::RunResult& r,
                                   campaign::ServerCoverage::Health health);
  void note_race(const harness::Script& script, const harness::RunResult& r,
                 const std::string& key);
  void record_finding(const harness::Script& script, const harness::RunResult& r);
  // $DUALFUZZ_BASELINE: a violation the baseline holds (by identity, after
  // shrinking; then counted and said), or one that did not show again when
  // replayed (unconfirmed: its identity is a timing's; counted and said,
  // as `dualfuzz fuzz --baseline` does). `identity` gets the identity when
  // the violation was shrunk.
  bool in_baseline(const harness::Script& script, const harness::RunResult& r,
                   const std::string& key, std::string& identity);

  const campaign::FuzzEnvironment env_;
  Result<campaign::Plugin> plugin_;
  std::string spec_;
  std::unique_ptr<campaign::Player> player_;
  std::optional<mutator::ScriptMutator> mutator_;
  // Since the process started (the violating script included), for the
  // "played since start" line (bench/eval_libfuzzer.py reads it).
  std::uint64_t scripts_ = 0, messages_ = 0, internal_errors_ = 0, rejected_ = 0;
  const std::size_t keep_explored_ = env_.keep_explored.value_or(kKeepExplored);
  std::uint64_t violations_ = 0;  // with $DUALFUZZ_KEEP_GOING=1
  // Races apart (unless $DUALFUZZ_STOP_ON_RACES=1): how many, per quick key.
  std::uint64_t races_ = 0;
  std::map<std::string, std::uint64_t> race_keys_;
  campaign::KnownViolations known_;
  std::vector<std::uint64_t> known_counts_;  // per known_ entry
  std::uint64_t known_total_ = 0;
  std::optional<campaign::Baseline> baseline_;
  std::map<std::string, std::uint64_t> baseline_counts_;  // per identity met
  std::map<std::string, std::uint64_t> unconfirmed_;      // per quick key
  // Per quick key: occurrences, and how many shrank to a baseline identity.
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> baseline_keys_;
  std::uint64_t baseline_total_ = 0;
  std::set<std::string> finding_keys_;  // with $DUALFUZZ_FINDINGS
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  // Wall clock inside the hooks ($DUALFUZZ_TIMING=1 prints it at exit).
  double play_seconds_ = 0, mutate_seconds_ = 0;
  std::uint64_t mutations_ = 0;
  std::optional<campaign::ServerCoverage> server_coverage_;
  campaign::ServerCoverage::Counting server_counting_ =
      campaign::ServerCoverage::Counting::Edges;
  bool server_down_said_ = false;
};

namespace {
// $DUALFUZZ_TARGET (an external server) wins over the target's own choice.
std::string spec_or_env(const campaign::FuzzEnvironment& env, std::string spec) {
  return env.target.empty() ? spec : env.target;
}
}  // namespace

FuzzTarget::FuzzTarget(harness::Protocol protocol, ServerFactory server) {
  campaign::FuzzEnvironment env = campaign::FuzzEnvironment::read();
  std::string spec = spec_or_env(env, "inprocess");
  state_ = std::make_unique<State>(plugin_of(std::move(protocol), std::move(server)),
                                   std::move(spec), std::move(env));
}

FuzzTarget::FuzzTarget(harness::Protocol protocol, std::string address) {
  campaign::FuzzEnvironment env = campaign::FuzzEnvironment::read();
  std::string spec = spec_or_env(env, std::move(address));
  state_ = std::make_unique<State>(plugin_of(std::move(protocol), nullptr),
                                   std::move(spec), std::move(env));
}

FuzzTarget::FuzzTarget(Result<campaign::Plugin> plugin, std::string spec)
    : state_(std::make_unique<State>(std::move(plugin), std::move(spec),
                                     campaign::FuzzEnvironment::read())) {}

FuzzTarget::~FuzzTarget() = default;

void FuzzTarget::initialize() { state_->initialize(); }

int FuzzTarget::test_one_input(const std::uint8_t* data, std::size_t size) {
  return state_->test_one_input(data, size);
}

std::size_t FuzzTarget::mutate(std::uint8_t* data, std::size_t size, std::size_t max_size,
                               unsigned int seed) {
  return state_->mutate(data, size, max_size, seed);
}

std::size_t FuzzTarget::cross_over(const std::uint8_t* d1, std::size_t s1,
                                   const std::uint8_t* d2, std::size_t s2,
                                   std::uint8_t* out, std::size_t max_out,
                                   unsigned int seed) {
  return state_->cross_over(d1, s1, d2, s2, out, max_out, seed);
}

void FuzzTarget::State::initialize() {
  // Only checks that start no thread: AFL++'s driver calls this before its
  // fork server forks, and a loopback server's thread started here would not
  // exist in the children (every input would time out). The player and its
  // server start with the first input.
  std::string why;
  if (!plugin_)
    why = plugin_.error();
  else if (spec_ != "inprocess" && spec_.rfind("inprocess:", 0) != 0) {
    if (auto hp = harness::parse_host_port(spec_); !hp) why = hp.error();
  } else if (!env_.server_coverage.empty()) {
    why = "DUALFUZZ_SERVER_COVERAGE needs an external server (DUALFUZZ_TARGET=HOST:PORT)";
  }
  if (const std::string path = known_violations_path(env_);
      why.empty() && !path.empty()) {
    auto known = campaign::KnownViolations::load(path);
    if (known) {
      known_ = std::move(*known);
      known_counts_.assign(known_.entries().size(), 0);
      std::fprintf(stderr,
                   "==dualfuzz== known violations: %zu patterns from %s (counted, not "
                   "aborted on)\n",
                   known_.entries().size(), path.c_str());
    } else {
      why = known.error();
    }
  }
  if (const std::string& b = env_.baseline; why.empty() && !b.empty()) {
    auto baseline = campaign::Baseline::load(b);
    if (baseline) {
      std::fprintf(stderr,
                   "==dualfuzz== baseline: %zu known findings from %s (counted, not "
                   "aborted on)\n",
                   baseline->entries().size(), b.c_str());
      baseline_ = std::move(*baseline);
    } else {
      why = baseline.error();
    }
  }
  if (why.empty()) return;
  std::fprintf(stderr, "==dualfuzz== cannot start the fuzz target: %s\n", why.c_str());
  std::exit(2);
}

campaign::Player& FuzzTarget::State::player() {
  if (player_) return *player_;
  std::string why;
  if (!plugin_) {
    why = plugin_.error();
  } else {
    auto made = campaign::Player::make(*plugin_, spec_, env_);
    if (made) {
      player_ = std::move(*made);
      if (plugin_->in_process_help == kOwnServer && spec_.rfind("inprocess", 0) == 0)
        player_->set_description("server: " + std::string(kOwnServer) + " (in process)");
      const std::string& cov = env_.server_coverage;
      if (cov.empty()) return *player_;
      auto opened = campaign::ServerCoverage::open(cov);
      if (opened && !opened->wait_until_up(5'000))
        opened = make_error("no live server writes the coverage map " + cov + " (pid " +
                            std::to_string(opened->pid()) + ")");
      if (opened) {
        server_coverage_.emplace(std::move(*opened));
        if (env_.server_hitcounts)
          server_counting_ = campaign::ServerCoverage::Counting::HitCounts;
        // Zeroed once the previous execution's connections are closed, so
        // its last edges do not count for this one.
        player_->set_before_run([this] { server_coverage_->begin(); });
        return *player_;
      }
      player_.reset();
      why = opened.error();
    } else {
      why = made.error();
    }
  }
  // Nothing can be fuzzed: stop before the first input, not with a crash
  // file that is no finding.
  std::fprintf(stderr, "==dualfuzz== cannot start the fuzz target: %s\n", why.c_str());
  std::exit(2);
}

const mutator::ScriptMutator& FuzzTarget::State::the_mutator() {
  if (!mutator_) {
    // Targeted mutation replays inputs on a server of the mutator's own (a
    // second one from the same factory, not the fuzz target's state).
    mutator_.emplace(plugin_ ? campaign::Player::engine_mutator(*plugin_, spec_, env_)
                             : mutator::ScriptMutator(player().protocol()));
  }
  return *mutator_;
}

FuzzTarget::State::~State() {
  if (races_) {
    std::fprintf(stderr,
                 "==dualfuzz== races (not linearizable, no findings): %llu in %llu "
                 "scripts:\n",
                 static_cast<unsigned long long>(races_),
                 static_cast<unsigned long long>(scripts_));
    for (const auto& [key, n] : race_keys_)
      std::fprintf(stderr, "==dualfuzz==   %llu x %s\n",
                   static_cast<unsigned long long>(n), key.c_str());
  }
  for (const auto& [key, n] : unconfirmed_)
    std::fprintf(stderr, "==dualfuzz== unconfirmed (not a finding): %llu x %s\n",
                 static_cast<unsigned long long>(n), key.c_str());
  if (baseline_total_) {
    std::fprintf(stderr, "==dualfuzz== baseline findings: %llu in %llu scripts:\n",
                 static_cast<unsigned long long>(baseline_total_),
                 static_cast<unsigned long long>(scripts_));
    for (const auto& [id, n] : baseline_counts_)
      std::fprintf(stderr, "==dualfuzz==   %llu x %s\n",
                   static_cast<unsigned long long>(n), id.c_str());
  }
  if (known_total_) {
    std::fprintf(stderr, "==dualfuzz== known violations: %llu in %llu scripts:\n",
                 static_cast<unsigned long long>(known_total_),
                 static_cast<unsigned long long>(scripts_));
    for (std::size_t i = 0; i < known_counts_.size(); ++i)
      if (known_counts_[i])
        std::fprintf(stderr, "==dualfuzz==   %llu x %s\n",
                     static_cast<unsigned long long>(known_counts_[i]),
                     known_.entries()[i].pattern.c_str());
  }
  if (!env_.timing) return;
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double targeted = mutator_ ? mutator_->targeted_stats().seconds : 0;
  std::fprintf(stderr,
               "==dualfuzz== timing: %.3f s since start; playing %llu inputs %.3f s; "
               "mutating %llu times %.3f s (targeted replays %.3f s); rest %.3f s\n",
               total, static_cast<unsigned long long>(scripts_), play_seconds_,
               static_cast<unsigned long long>(mutations_), mutate_seconds_, targeted,
               total - play_seconds_ - mutate_seconds_);
}

int FuzzTarget::State::test_one_input(const std::uint8_t* data, std::size_t size) {
  Stopwatch w(play_seconds_);
  try {
    return play_one(data, size);
  } catch (const std::exception& e) {  // nothing may cross the C ABI
    internal_error(e.what());
  } catch (...) {
    internal_error("unknown exception");
  }
  return 0;
}

void FuzzTarget::State::internal_error(const std::string& what) {
  // A bug of dualfuzz or of the plug-in, not of the server: say so (the
  // first few times) and go on; an abort would be saved as a finding.
  if (++internal_errors_ <= 3)
    std::fprintf(stderr, "==dualfuzz== internal error (not a finding): %s\n",
                 what.c_str());
}

bool FuzzTarget::State::known(const std::string& key) {
  const auto i = known_.match(key);
  if (!i) return false;
  const campaign::KnownViolations::Entry& e = known_.entries()[*i];
  if (known_counts_[*i]++ == 0)
    std::fprintf(stderr,
                 "==dualfuzz== known violation (not a finding): %s, matched by %s:%zu: "
                 "%s\n",
                 key.c_str(), known_.origin().c_str(), e.line, e.pattern.c_str());
  const std::uint64_t n = ++known_total_;
  if ((n & (n - 1)) == 0)
    std::fprintf(stderr, "==dualfuzz== known violations: %llu in %llu scripts\n",
                 static_cast<unsigned long long>(known_total_),
                 static_cast<unsigned long long>(scripts_));
  return true;
}

void FuzzTarget::State::note_race(const harness::Script& script,
                                  const harness::RunResult& r, const std::string& key) {
  const std::uint64_t n = ++races_;
  if (race_keys_[key]++ == 0) {
    std::fprintf(stderr,
                 "==dualfuzz== race (not linearizable: no finding; the input is played "
                 "again judged past it; DUALFUZZ_STOP_ON_RACES=1 aborts on races): %s\n",
                 key.c_str());
    if (n == 1) std::fputs(player_->report(script, r).c_str(), stderr);
  }
  if ((n & (n - 1)) == 0)
    std::fprintf(stderr, "==dualfuzz== races: %llu in %llu scripts\n",
                 static_cast<unsigned long long>(races_),
                 static_cast<unsigned long long>(scripts_));
}

bool FuzzTarget::State::server_up() {
  if (server_coverage_->health() != campaign::ServerCoverage::Health::Down ||
      server_coverage_->wait_until_up(10'000)) {
    if (server_down_said_)
      std::fprintf(stderr, "==dualfuzz== the server is up again (pid %d)\n",
                   server_coverage_->pid());
    server_down_said_ = false;
    return true;
  }
  if (!server_down_said_)
    std::fprintf(
        stderr,
        "==dualfuzz== the server under test is down (pid %d gone): inputs are not "
        "played until it is restarted\n",
        server_coverage_->pid());
  server_down_said_ = true;
  return false;
}

void FuzzTarget::State::server_crashed(const harness::Script& script,
                                       const harness::RunResult& r,
                                       campaign::ServerCoverage::Health health) {
  // What the input did to the server is a crash, whatever the oracle made
  // of the answers it could no longer get: no violation is reported.
  std::fprintf(stderr,
               "==dualfuzz== SERVER CRASH: the server under test %s while this input "
               "played (no functional verdict)\n",
               health == campaign::ServerCoverage::Health::Down
                   ? "died"
                   : "died and was restarted");
  std::fputs(player_->report(script, r).c_str(), stderr);
  std::abort();
}

int FuzzTarget::State::play_one(const std::uint8_t* data, std::size_t size) {
  campaign::Player& p = player();
  auto script = p.parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!script) return kReject;  // not a script: nothing to play
  if (server_coverage_ && !server_up()) return 0;
  harness::RunResult r = p.play(*script);
  if (server_coverage_)
    if (auto h = server_coverage_->health(); h != campaign::ServerCoverage::Health::Up)
      server_crashed(*script, r, h);
  ++scripts_;
  messages_ += r.trace.size();
  if (r.outcome == harness::RunResult::Outcome::InternalError) {
    internal_error(r.detail);
    return kReject;
  }
  if (!r.violation()) {
    if (!r.inconclusive() && !(keep_explored_ && r.explored > keep_explored_)) {
      if (server_coverage_)
        campaign::forward_to_engine(*server_coverage_, server_counting_);
      if (env_.behaviour) campaign::detail::count_behaviour(p.protocol(), r.trace);
      return 0;
    }
    ++rejected_;
    // (The server's counters are not handed over either.)
    campaign::detail::forget_coverage();
    return kReject;
  }
  std::string key = campaign::quick_key(p.protocol(), r);
  if (known(key)) {
    // Not a finding, and kept out of the corpus as keep-going's are (below).
    campaign::detail::forget_coverage();
    return kReject;
  }
  // A race (races apart): counted and said, then the input played again
  // judged past races, and what that shows is the input's verdict. Kept out
  // of the corpus either way, as a violating input.
  std::string past_note;
  if (!env_.stop_on_races &&
      p.classify(r).kind == campaign::Classification::Kind::NotLinearizable) {
    note_race(*script, r, key);
    harness::RunResult past = p.play_past_races(*script);
    if (past.outcome == harness::RunResult::Outcome::InternalError)
      internal_error(past.detail);
    if (!past.violation()) {
      campaign::detail::forget_coverage();
      return kReject;
    }
    past_note = "==dualfuzz== its play showed a race first (" + key +
                "); played again and judged past races (consistency '" +
                p.past_races_consistency() + "'):\n";
    r = std::move(past);
    key = campaign::quick_key(p.protocol(), r);
    if (known(key)) {
      campaign::detail::forget_coverage();
      return kReject;
    }
  }
  std::string identity;
  if (baseline_ && in_baseline(*script, r, key, identity)) {
    campaign::detail::forget_coverage();
    return kReject;
  }
  if (env_.keep_going) {
    // A campaign that measures (bench/eval_servercov.py) rather than
    // stops: the first report in full, then a count at each power of two.
    if (++violations_ == 1)
      std::fputs((past_note + p.report(*script, r)).c_str(), stderr);
    record_finding(*script, r);
    if ((violations_ & (violations_ - 1)) == 0)
      std::fprintf(stderr, "==dualfuzz== keep-going: %llu violations in %llu scripts\n",
                   static_cast<unsigned long long>(violations_),
                   static_cast<unsigned long long>(scripts_));
    // Kept out of the corpus, as an aborting campaign never keeps its
    // crashing input and as `dualfuzz fuzz` keeps violating scripts out of
    // its pool: against a server with bugs of its own (lighttpd ignores
    // If-Match on GET) the corpus filled with their triggers, and the
    // engine spent its mutations finding them again. (AFL++ ignores the
    // -1 and reads its map; the server's edges are not handed to it.)
    campaign::detail::forget_coverage();
    return kReject;
  }
  std::uint64_t runs = 0, rewrites = 0;
  if (mutator_) {
    runs = mutator_->targeted_stats().runs;
    rewrites = mutator_->targeted_stats().rewrites;
  }
  std::fprintf(stderr,
               "==dualfuzz== played since start: %llu scripts, %llu messages; "
               "mutator replays: %llu (%llu rewritten); kept out of the corpus "
               "(inconclusive or too costly): %llu; known violations: %llu\n",
               static_cast<unsigned long long>(scripts_),
               static_cast<unsigned long long>(messages_),
               static_cast<unsigned long long>(runs),
               static_cast<unsigned long long>(rewrites),
               static_cast<unsigned long long>(rejected_),
               static_cast<unsigned long long>(known_total_));
  std::fputs((past_note + p.report(*script, r)).c_str(), stderr);
  std::fprintf(stderr,
               "==dualfuzz== violation key: %s (a line of DUALFUZZ_KNOWN_VIOLATIONS that "
               "matches it makes it a known one)\n",
               key.c_str());
  if (baseline_)
    std::fprintf(stderr, "==dualfuzz== identity: %s (not in the baseline %s)\n",
                 identity.c_str(), baseline_->origin().c_str());
  std::abort();
}

bool FuzzTarget::State::in_baseline(const harness::Script& script,
                                    const harness::RunResult& r, const std::string& key,
                                    std::string& identity) {
  auto& [seen, known] = baseline_keys_[key];
  const std::uint64_t n = ++seen;
  const bool sampled = n <= 8 || ((n & (n - 1)) == 0 && __builtin_ctzll(n) % 2 == 0);
  std::string matched;
  if (!sampled && known > 0) {
    matched = "(" + key + ": not shrunk again)";
  } else {
    campaign::Player& p = player();
    campaign::ViolationShrinker shrinker(
        p.protocol(), [&p](const harness::Script& s) { return p.play(s); },
        {.same_violation = true});
    const campaign::Shrunk sh = shrinker.shrink(script, r);
    identity = campaign::identity_of(p.protocol(), sh.run);
    if (!sh.reproduced) {
      if (unconfirmed_[key]++ == 0)
        std::fprintf(stderr,
                     "==dualfuzz== unconfirmed violation (it did not show again when "
                     "replayed, so the baseline cannot tell new from known; not a "
                     "finding): %s\n",
                     identity.c_str());
      return true;
    }
    if (!baseline_->contains(identity)) return false;
    ++known;
    matched = identity;
  }
  if (baseline_counts_[matched]++ == 0)
    std::fprintf(stderr,
                 "==dualfuzz== known finding of the baseline (not a finding): %s\n",
                 matched.c_str());
  const std::uint64_t total = ++baseline_total_;
  if ((total & (total - 1)) == 0)
    std::fprintf(stderr, "==dualfuzz== baseline findings: %llu in %llu scripts\n",
                 static_cast<unsigned long long>(baseline_total_),
                 static_cast<unsigned long long>(scripts_));
  return true;
}

void FuzzTarget::State::record_finding(const harness::Script& script,
                                       const harness::RunResult& r) {
  const std::string& dir = env_.findings;
  if (dir.empty()) return;
  std::string key = campaign::quick_key(player().protocol(), r);
  if (!finding_keys_.insert(key).second) return;
  const std::string file = "finding-" + std::to_string(finding_keys_.size()) + ".txt";
  std::ofstream(dir + "/" + file) << harness::print_script(script);
  harness::Json line = {{"index", finding_keys_.size()},
                        {"seconds", std::chrono::duration<double>(
                                        std::chrono::steady_clock::now() - started_)
                                        .count()},
                        {"scripts", scripts_},
                        {"key", std::move(key)},
                        {"file", file}};
  std::ofstream(dir + "/findings.jsonl", std::ios::app)
      << harness::dump_json(line) << "\n";
}

std::size_t FuzzTarget::State::mutate(std::uint8_t* data, std::size_t size,
                                      std::size_t max_size, unsigned int seed) {
  Stopwatch w(mutate_seconds_);
  ++mutations_;
  try {
    std::mt19937_64 rng(seed);
    return emit(the_mutator().mutate(
                    std::string_view(reinterpret_cast<char*>(data), size), max_size, rng),
                data, max_size);
  } catch (...) {  // nothing may cross the C ABI
    return std::min(size, max_size);
  }
}

std::size_t FuzzTarget::State::cross_over(const std::uint8_t* d1, std::size_t s1,
                                          const std::uint8_t* d2, std::size_t s2,
                                          std::uint8_t* out, std::size_t max_out,
                                          unsigned int seed) {
  Stopwatch w(mutate_seconds_);
  ++mutations_;
  try {
    std::mt19937_64 rng(seed);
    return emit(
        the_mutator().crossover(std::string_view(reinterpret_cast<const char*>(d1), s1),
                                std::string_view(reinterpret_cast<const char*>(d2), s2),
                                max_out, rng),
        out, max_out);
  } catch (...) {
    return 0;
  }
}

}  // namespace dualfuzz
