// A libFuzzer (and AFL++) fuzz target for your server in one macro, the way
// libprotobuf-mutator's DEFINE_PROTO_FUZZER makes one for a protobuf: each
// input is a script of the protocol, played against the server and judged by
// the oracle derived from the protocol's model; the structure-aware mutator
// and crossover come with it. A violation prints the report and aborts, so
// every engine saves it as a crash (`dualfuzz replay` prints the same report).
//
//   // my_fuzzer.cpp — link dualfuzz::fuzz_target and the protocol
//   // (dualfuzz::http), build with -fsanitize=fuzzer.
//   #include "dualfuzz/fuzz_target.h"
//   #include "dualfuzz/http/protocol.h"
//   #include "my_server.h"   // class MyServer { std::uint16_t port(); void reset(); };
//
//   DUALFUZZ_FUZZ_TARGET(dualfuzz::http::protocol(), dualfuzz::loopback<MyServer>())
//
// The second argument says where the server is:
//   - dualfuzz::loopback<S>(args...): an S(args...) in this process that
//     listens on 127.0.0.1:S::port(); S::reset() before each execution
//     returns it to its initial state. Its code is instrumented with the
//     target, so the engine sees the server's own coverage.
//   - any dualfuzz::ServerFactory: a campaign::InProcessServer of yours
//     (e.g. a Transport without sockets over your request handler);
//   - "HOST:PORT": a server elsewhere (each execution gets its own namespace).
// $DUALFUZZ_TARGET=HOST:PORT overrides it at run time; $DUALFUZZ_TARGETED=0
// turns off targeted mutation; $DUALFUZZ_ORACLE_BUDGET as for `replay`.
// $DUALFUZZ_SERVER_COVERAGE=NAME (with an external server built with
// harness/coverage/sancov_shm.c, started with DUALFUZZ_COVERAGE_SHM=NAME):
// each execution's server edges go to the engine too
// (campaign/server_coverage.h), and a server that dies or restarts during
// an input is reported as a SERVER CRASH (abort: a finding, but no
// functional violation); before the next input the target waits up to
// 10 s for a restarted server, else skips inputs until one is up. The
// engine gets which server edges an input hit; $DUALFUZZ_SERVER_HITCOUNTS=1
// gives it their hit counts instead (timing-dependent in a server's loop).
// $DUALFUZZ_KEEP_GOING=1: a violation is reported once and counted, not
// aborted on (for campaigns that measure coverage, as `fuzz --keep-going`);
// with $DUALFUZZ_FINDINGS=DIR too, the first script of each distinct
// violation (by its unshrunk signature) goes to DIR/finding-N.txt and a line
// {"index", "seconds", "scripts", "key", "file"} to DIR/findings.jsonl, so a
// campaign can replay what it found (bench/eval_mutants.py).
// Known violations (campaign/known_violations.h: one quick-key pattern a
// line, `*` any text, e.g. `model: GET if-unmodified-since* -> 200`): a
// violation one of them matches is counted, not aborted on, and kept out of
// the corpus, as with keep-going; an unknown one still aborts. The list is
// $DUALFUZZ_KNOWN_VIOLATIONS=FILE, else the file <executable>.known_violations
// next to the target's executable when there is one (how OSS-Fuzz, which
// runs a target with its options alone, gets it: scripts/oss-fuzz/build.sh);
// DUALFUZZ_KNOWN_VIOLATIONS= (empty) reads none. A malformed list stops
// the target before the first input (exit 2, with the line and why). The
// abort report names the violation's key, to list it; each pattern's first
// match is said, a running count at each power of two, and the counts per
// pattern at exit.
// A baseline (campaign/baseline.h: `dualfuzz fuzz --json` output of an
// earlier run), $DUALFUZZ_BASELINE=FILE: a violation is shrunk (to the same
// violation, on the target's server) and named by its identity
// (signature.h identity_of); one the baseline holds is counted and said
// (its first time, and at exit), not aborted on, and kept out of the
// corpus. Its quick key's later occurrences are shrunk at the 1st..8th, 16th,
// 64th... time and otherwise counted as known. The abort report of a new
// one names its identity. A file that cannot be read stops the target
// before the first input (exit 2).
// Races apart (campaign/consistency.h: stop_on_races): a violation classed
// not linearizable (a weaker consistency explains it: HTTP's "interval") is
// no finding. It is said once per key with its report, counted (at each
// power of two, and per key at exit), and the input is played again judged
// past races: a violation there aborts as any other (its report says it
// came past a race), else the input is kept out of the corpus.
// $DUALFUZZ_STOP_ON_RACES=1 aborts on races as on any violation.
// $DUALFUZZ_TIMING=1: at exit, where the process's time went (playing
// inputs, mutating, targeted replays), for bench/engine_throughput.py.
//
// AFL++: build the same file with afl-clang-fast++ (it turns
// -fsanitize=fuzzer into its persistent-mode driver) and run afl-fuzz with
// AFL_CUSTOM_MUTATOR_LIBRARY=libdualfuzz_afl_mutator.so and
// DUALFUZZ_PROTOCOL=<name>: the mutator runs inside afl-fuzz, so it cannot
// reach an in-process server (set DUALFUZZ_TARGETED=0, or DUALFUZZ_TARGET).
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dualfuzz/campaign/baseline.h"
#include "dualfuzz/campaign/known_violations.h"
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/campaign/server_coverage.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/tcp_transport.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/result.h"

namespace dualfuzz {

// Makes a fresh server under test (called once for the fuzz target and once
// more for the mutator's targeted replays).
using ServerFactory = std::function<Result<std::unique_ptr<campaign::InProcessServer>>()>;

namespace detail {
// A server of the user's listening on loopback in this process, reached over
// TCP on an io_context of the transport's own.
template <class Server>
class LoopbackServer final : public campaign::InProcessServer {
 public:
  explicit LoopbackServer(std::unique_ptr<Server> s)
      : server_(std::move(s)), transport_(io_, "127.0.0.1", server_->port()) {
    transport_.set_drain_on_close(true);
  }
  harness::Transport& transport() override { return transport_; }
  void reset() override {
    // Requests sent just before a connection closed are served before the
    // server closes it: wait for that, or they land after the reset.
    transport_.drain(std::chrono::seconds(2));
    server_->reset();
  }
  std::string path_namespace() const override {
    if constexpr (requires(const Server& s) {
                    { s.path_namespace() } -> std::convertible_to<std::string>;
                  })
      return server_->path_namespace();
    else
      return "";
  }

 private:
  std::unique_ptr<Server> server_;  // (destroyed last: the transport goes first)
  boost::asio::io_context io_;
  harness::TcpTransport transport_;
};
}  // namespace detail

// `Server(args...)` listening on 127.0.0.1, with `std::uint16_t port()` and
// `void reset()`: back to the initial state, before each execution.
// Optionally `std::string path_namespace() const`: a prefix each
// execution's paths are sent under (InProcessServer::path_namespace), for a
// server whose state outlives reset() in part (a real web server's late
// requests). By then
// the server has closed every connection of the previous execution (the
// harness half-closes each and waits for the server's close, at most 2 s):
// a server that keeps a half-closed connection open makes each reset wait.
template <class Server, class... Args>
ServerFactory loopback(Args... args) {
  return [=]() -> Result<std::unique_ptr<campaign::InProcessServer>> {
    try {
      return std::unique_ptr<campaign::InProcessServer>(
          new detail::LoopbackServer<Server>(std::make_unique<Server>(args...)));
    } catch (const std::exception& e) {
      return make_error(std::string("cannot start the server under test: ") + e.what());
    }
  };
}

// `protocol` with `server` as its in-process server: what a FuzzTarget plays,
// as a plug-in (for a test of your own: campaign::Player::make(p, "inprocess")).
campaign::Plugin plugin_of(harness::Protocol protocol, ServerFactory server);

// The engine adapter behind DUALFUZZ_FUZZ_TARGET: the extern "C" hooks are
// thin shims over it. Nothing throws out of it.
class FuzzTarget {
 public:
  FuzzTarget(harness::Protocol protocol, ServerFactory server);
  FuzzTarget(harness::Protocol protocol, std::string address);  // "HOST:PORT"
  // A plug-in and a --target spec (`inprocess[:ARG]` or HOST:PORT); an error
  // (e.g. an unknown $DUALFUZZ_PROTOCOL) is reported by initialize().
  FuzzTarget(Result<campaign::Plugin> plugin, std::string spec);

  // Checks the plug-in and the target address and reads the known
  // violations (exit 2 with why when bad).
  // The server starts with the first input (after AFL++'s fork server has
  // forked); one that cannot start exits 2 then, never as a crash.
  void initialize();
  // Plays one input. A violation: the report on stderr, then abort(). An
  // internal error (a plug-in threw) is printed, never aborted on: it is
  // no finding about the server. Returns -1 (libFuzzer: do not keep it in
  // the corpus) for an input that is no script, or whose verdict was
  // inconclusive, or whose check cost the oracle more than keep_explored()
  // configurations: such an input may show new coverage, but a corpus of
  // them makes every later execution slow (see keep_explored()).
  ~FuzzTarget();
  int test_one_input(const std::uint8_t* data, std::size_t size);
  // The most configurations an input's check may explore for the input to
  // be kept: kKeepExplored, or $DUALFUZZ_KEEP_EXPLORED (0: keep every
  // conclusive input, the engine's own choice).
  static std::size_t keep_explored();
  static constexpr std::size_t kKeepExplored = 200;
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

  Result<campaign::Plugin> plugin_;
  std::string spec_;
  std::unique_ptr<campaign::Player> player_;
  std::optional<mutator::ScriptMutator> mutator_;
  // Since the process started (the violating script included), for the
  // "played since start" line (bench/eval_libfuzzer.py reads it).
  std::uint64_t scripts_ = 0, messages_ = 0, internal_errors_ = 0, rejected_ = 0;
  std::size_t keep_explored_ = keep_explored();
  // $DUALFUZZ_BEHAVIOUR=0: no behaviour coverage (engine_feedback.h), the
  // server's code coverage alone.
  bool behaviour_ = [] {
    const char* e = std::getenv("DUALFUZZ_BEHAVIOUR");
    return !(e && std::string(e) == "0");
  }();
  std::uint64_t violations_ = 0;  // with $DUALFUZZ_KEEP_GOING=1
  // Races apart (unless $DUALFUZZ_STOP_ON_RACES=1): how many, per quick key.
  bool stop_on_races_ = [] {
    const char* e = std::getenv("DUALFUZZ_STOP_ON_RACES");
    return e && std::string(e) == "1";
  }();
  std::uint64_t races_ = 0;
  std::map<std::string, std::uint64_t> race_keys_;
  void note_race(const harness::Script& script, const harness::RunResult& r,
                 const std::string& key);
  campaign::KnownViolations known_;
  std::vector<std::uint64_t> known_counts_;  // per known_ entry
  std::uint64_t known_total_ = 0;
  void record_finding(const harness::Script& script, const harness::RunResult& r);
  // $DUALFUZZ_BASELINE: a violation the baseline holds (by identity, after
  // shrinking; then counted and said). `identity` gets the identity when
  // the violation was shrunk.
  bool in_baseline(const harness::Script& script, const harness::RunResult& r,
                   const std::string& key, std::string& identity);
  std::optional<campaign::Baseline> baseline_;
  std::map<std::string, std::uint64_t> baseline_counts_;  // per identity met
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

}  // namespace dualfuzz

// Defines LLVMFuzzerInitialize, LLVMFuzzerTestOneInput, LLVMFuzzerCustomMutator
// and LLVMFuzzerCustomCrossOver over one dualfuzz::FuzzTarget(PROTOCOL, WHERE).
#define DUALFUZZ_FUZZ_TARGET(PROTOCOL, WHERE)                                           \
  static ::dualfuzz::FuzzTarget& DualfuzzFuzzTargetInstance() {                         \
    static ::dualfuzz::FuzzTarget target((PROTOCOL), (WHERE));                          \
    return target;                                                                      \
  }                                                                                     \
  extern "C" int LLVMFuzzerInitialize(int*, char***) {                                  \
    DualfuzzFuzzTargetInstance().initialize();                                          \
    return 0;                                                                           \
  }                                                                                     \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {   \
    return DualfuzzFuzzTargetInstance().test_one_input(data, size);                     \
  }                                                                                     \
  extern "C" std::size_t LLVMFuzzerCustomMutator(                                       \
      std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned int seed) {  \
    return DualfuzzFuzzTargetInstance().mutate(data, size, max_size, seed);             \
  }                                                                                     \
  extern "C" std::size_t LLVMFuzzerCustomCrossOver(                                     \
      const std::uint8_t* d1, std::size_t s1, const std::uint8_t* d2, std::size_t s2,   \
      std::uint8_t* out, std::size_t max_out, unsigned int seed) {                      \
    return DualfuzzFuzzTargetInstance().cross_over(d1, s1, d2, s2, out, max_out, seed); \
  }
