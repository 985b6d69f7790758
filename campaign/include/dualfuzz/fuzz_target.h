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
//
// Run it as any libFuzzer target (`./my_fuzzer corpus/`); a crash file
// replays with `./my_fuzzer crash-FILE`. AFL++: build the same file with
// afl-clang-fast++ (it turns -fsanitize=fuzzer into its persistent-mode
// driver) and run afl-fuzz with
// AFL_CUSTOM_MUTATOR_LIBRARY=libdualfuzz_afl_mutator.so (docs/fuzzing.md).
//
// The target has no command line: what it is told at run time (an external
// server, keep-going, known violations, a baseline, races, server
// coverage...) is in its environment, read once when it is made
// (campaign/fuzz_environment.h). Environment variables: docs/environment.md.
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>

// (Player: what a test of your own plays plugin_of's plug-in with.)
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/tcp_transport.h"
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
  ~FuzzTarget();
  FuzzTarget(const FuzzTarget&) = delete;
  FuzzTarget& operator=(const FuzzTarget&) = delete;

  // Checks the plug-in and the target address and reads the known
  // violations (exit 2 with why when bad).
  // The server starts with the first input (after AFL++'s fork server has
  // forked); one that cannot start exits 2 then, never as a crash.
  void initialize();
  // Plays one input. A violation: the report on stderr, then abort(). An
  // internal error (a plug-in threw) is printed, never aborted on: it is
  // no finding about the server. Returns -1 (libFuzzer: do not keep it in
  // the corpus) for an input that is no script, or whose verdict was
  // inconclusive, or whose check cost the oracle more than kKeepExplored
  // configurations ($DUALFUZZ_KEEP_EXPLORED; 0: keep every conclusive
  // input, the engine's own choice): such an input may show new coverage,
  // but a corpus of them makes every later execution slow.
  int test_one_input(const std::uint8_t* data, std::size_t size);
  static constexpr std::size_t kKeepExplored = 200;
  std::size_t mutate(std::uint8_t* data, std::size_t size, std::size_t max_size,
                     unsigned int seed);
  std::size_t cross_over(const std::uint8_t* d1, std::size_t s1, const std::uint8_t* d2,
                         std::size_t s2, std::uint8_t* out, std::size_t max_out,
                         unsigned int seed);

 private:
  // Everything else (player, mutator, counters, the environment read at
  // construction) lives in fuzz_target.cpp.
  class State;
  std::unique_ptr<State> state_;
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
