// A server that dies or hangs is a finding (issue 42). What the fuzz loop
// (fuzz_loop.h) and `dualfuzz run` share to tell it: which plays call for a
// look (lost_answers), the look itself (probe: Protocol::liveness_probe on a
// fresh connection, or a bare connect for a protocol without one), the
// confirmation (confirm_death: a refusal, or no answer to several probes),
// the name of a death by its script's shape (death_signature), and the
// command that brings a server back (Restarter, `dualfuzz fuzz --restart`).
//
//   if (campaign::lost_answers(r) && target->external())
//     if (campaign::Death d = campaign::confirm_death(protocol, *target, 1s))
//       std::cout << "the server " << (d.kind == DeathKind::Crash ? "died" : "hung")
//                 << ": " << d.detail << "\n";
//
// A crash is a server that refuses connections after it took requests (no
// process listens: a refusal is never a transient on a host that runs the
// server, a full backlog drops SYNs instead). A hang is a server that
// accepts connections and answers nothing, not even the probe, twice (each
// waited on longer than a play waits for an answer), or that closes every
// probe's connection unanswered. A server process whose listener lives on
// (a worker that died, its master alive) is neither: its other
// connections are answered.
#pragma once

// <utility> before Asio (target.h): Boost 1.74's awaitable.hpp uses
// std::exchange without including it.
#include <utility>
// clang-format off
#include <sys/types.h>
// clang-format on

#include <chrono>
#include <optional>
#include <string>

#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

enum class DeathKind { None, Crash, Hang };
// "crash", "hang" (a finding's kind), "none".
const char* death_kind_name(DeathKind k);
// "the server died", "the server hung".
const char* death_headline(DeathKind k);

struct Death {
  DeathKind kind = DeathKind::None;
  std::string detail;  // what the probes saw
  explicit operator bool() const { return kind != DeathKind::None; }
};

// The play could not open its first connection: nothing reached the server.
bool unreachable(const harness::RunResult& r);
// ... because nothing listens (refused, reset), not a connect that timed
// out (a server that stopped accepting, or the network).
bool refused(const harness::RunResult& r);
// Requests the server did not answer: it closed or reset their connection,
// went silent, or a later connection could not be opened. The play that
// calls for a probe (a server may close with requests unanswered, RFC 9112
// §9.6; a violation stops a play early too: the probe tells).
bool lost_answers(const harness::RunResult& r);
// Not one answer came in the play: the server was down or silent before it
// began, or went so at its first request.
bool answered_nothing(const harness::RunResult& r);

// One look at the server: the protocol's liveness probe alone on a fresh
// connection, waited on `wait` (a bare connect when the protocol has none,
// or when its server talks to an origin the tester plays).
struct Probe {
  enum class Seen { Answered, Refused, Closed, Silent };
  Seen seen = Seen::Answered;
  std::string detail;
};
Probe probe(const harness::Protocol& p, Target& t, std::chrono::milliseconds wait);

// What a refused connection says of a server that had taken requests
// ("it refused connections after it had taken requests (ERROR)"); from a
// play's "cannot open connection cN: ERROR".
std::string refused_detail(const std::string& error);
std::string refused_detail(const harness::RunResult& r);

// Is the server gone (refused) or silent (two probes unanswered, or three
// closed without an answer)? None when a probe is answered. An in-process
// target never dies (its server is this process).
Death confirm_death(const harness::Protocol& p, Target& t,
                    std::chrono::milliseconds wait);

// A request as a death's signature names it: its shape (request_shape:
// method, preconditions, a field sent blind, a defect) and the names of
// its other header fields, sorted ("PROPPATCH content-type",
// "GET blind(if)"). Values, paths and bodies are left out, as signature.h
// leaves them out of a violation's.
std::string request_signature(const harness::Protocol& p, const harness::Json& request);
// "crash: GET blind(if)", "hang: LOCK timeout ; GET": every request the
// (shrunk) run sent, in the order sent.
std::string death_signature(const harness::Protocol& p, DeathKind k,
                            const harness::RunResult& run);
// Before shrinking (to sample which occurrences are shrunk, as quick_key
// for violations): the first request left unanswered, or the last one sent.
std::string death_quick_key(const harness::Protocol& p, DeathKind k,
                            const harness::RunResult& run);

// The steps of `s` whose requests reached the trace of `run` (a play cut
// short by a death sent no more), with the waits and closes among them.
harness::Script taken(const harness::Script& s, const harness::RunResult& run);

// `dualfuzz fuzz --restart CMD`: runs `sh -c CMD` in a process group of its
// own (stdin /dev/null, stdout to stderr: a server's chatter never mixes
// with a --json line), without waiting for it to end (CMD may run the
// server in the foreground). Each start first kills (SIGKILL) what the
// previous one left running in its group: a hung server CMD started.
class Restarter {
 public:
  explicit Restarter(std::string command) : command_(std::move(command)) {}
  Restarter(const Restarter&) = delete;
  Restarter& operator=(const Restarter&) = delete;
  ~Restarter();
  Result<bool> start();
  // The last start's shell, when it has ended: "exit N" or "signal N".
  std::optional<std::string> ended();
  const std::string& command() const { return command_; }
  unsigned starts() const { return starts_; }

 private:
  std::string command_;
  pid_t pid_ = -1;  // the shell, leader of its process group
  std::optional<std::string> status_;
  unsigned starts_ = 0;
};

// A report of a death's run: its trace, then the headline and what the
// probes saw (RunResult::report's trace, without a verdict the oracle never
// gave).
std::string death_report(const harness::Protocol& p, DeathKind k,
                         const std::string& detail, const harness::RunResult& run,
                         harness::TraceFormat f = harness::TraceFormat::Readable);

}  // namespace dualfuzz::campaign
