// Plays a script against a server and checks the trace with the oracle,
// incrementally: it stops at the first message no correct server explains.
//
//   Executor ex(protocol, transport);
//   RunResult r = ex.run(script);
//   if (r.verdict.status == oracle::Verdict::Status::Reject) std::cerr << r.report();
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/labelled_trace.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/harness/transport.h"
#include "dualfuzz/oracle/oracle.h"

namespace dualfuzz::harness {

struct RunOptions {
  std::chrono::milliseconds message_timeout{2000};  // per awaited response
  // Protocol::origin: the wait for a forward while the tester holds another
  // one unanswered (a proxy may forward a connection's pipeline one request
  // at a time, RFC 9112 §9.3.2, and wait for the held answer first): at
  // most message_timeout. A campaign learns it from the proxy
  // (HeldWaitBound).
  std::chrono::milliseconds held_wait{100};
  // After the last answer, how long bytes the server sends past its answers
  // are still read (and judged) before the connections close. A HEAD
  // answered with content shows only if that content came before the
  // close: nginx's came in a later segment, and a replay of such a finding
  // on a loaded machine showed it in 3 of 10 plays. Replays a person reads
  // (`dualfuzz run`) linger; fuzz executions do not (each would pay it).
  // (Not with Protocol::origin: a late forward would be judged too.)
  std::chrono::milliseconds linger{0};
  static constexpr std::chrono::milliseconds kReplayLinger{50};  // (replays)
  bool check_liveness = false;  // a request unanswered past the timeout is a violation
  bool oracle = true;           // off: crash-only baseline (protocol errors still count)
  // Judge the run when it ends instead of event by event. The outcome, the
  // verdict, the events and the trace are the same (a run is cut back to
  // the event that broke the model), but the oracle runs with its code and
  // data hot in the caches instead of interleaved with the harness and the
  // server: the fuzz target's oracle share drops by about a tenth. The
  // price: a violating run plays its script to the end first.
  bool check_at_end = false;
  // Non-empty: a fresh namespace per run on a long-lived external server;
  // every request goes through Protocol::namespace_request with it.
  std::string run_namespace;
  // A fuzz execution must stay cheap: past this many hypotheses for one
  // observation, or this many configurations explored over the whole run,
  // the verdict is Inconclusive (never a violation). A typical 10-request
  // script explores about 12; the budget only cuts the rare script whose
  // interleavings explode (seconds each, which stalled coverage-guided runs).
  oracle::OracleOptions oracle_options = [] {
    oracle::OracleOptions o;
    o.limits.max_hypotheses = 20'000;
    o.limits.max_explored = kMaxExploredPerRun;
    // (A script's requests on other connections are unanswered while the
    // oracle explains one response: the reads among them wait aside.)
    o.limits.set_aside_quiet_steps = true;
    // The whole-trace check (when the incremental search gives up) and a
    // campaign's classing of a finding stop after this long, Inconclusive:
    // their configurations may each cost a solver call, and one such check
    // on nginx's site files once took 25 s of a 15-s run.
    o.time_budget = kCheckTime;
    return o;
  }();
  static constexpr std::chrono::milliseconds kCheckTime{2'000};
  static constexpr std::size_t kMaxExploredPerRun = 5'000;
  // A run the oracle accepts is judged again by Protocol::recommended (every
  // SHOULD a MUST); a rejection there is RunResult::advisory.
  bool check_advisories = true;
};

// How a report shows each message of a trace (the CLI's `--json` picks Json).
enum class TraceFormat { Readable, Json };

struct RunResult {
  enum class Outcome {
    Pass,
    ModelViolation,
    ProtocolViolation,
    LivenessViolation,
    Trouble,
    // dualfuzz or a plug-in threw (a model, codec or function bug): not a
    // finding about the server. The trace up to the throw is kept.
    InternalError
  };
  Outcome outcome = Outcome::Pass;
  oracle::Verdict verdict;
  std::string detail;  // why, for a server author
  LabelledTrace trace;
  std::vector<oracle::Event> events;  // what the oracle saw
  // The oracle's live explanations at the end, when
  // oracle_options.limits.record_decisions is set (targeted mutation).
  std::vector<oracle::Explanation> explanations;
  // A violation shown late: the answer the oracle rejected
  // (verdict.event_index) is to a request on another resource, and only
  // says what that request did not do; without the request, no explanation
  // of an earlier answer survives. That earlier answer's index in `events`
  // (what signatures name, see blamed_event) and why it has no explanation;
  // kNoCulprit when the rejected answer is the violation's own.
  static constexpr std::size_t kNoCulprit = static_cast<std::size_t>(-1);
  std::size_t culprit_event = kNoCulprit;
  std::vector<oracle::Reason> culprit_reasons;
  // The run passed, but only because the specification recommends rather
  // than requires: Protocol::recommended rejects the trace (its verdict:
  // which answer, which SHOULD). Never a violation: reports and the fuzz
  // loop keep it apart, a fuzz target never aborts on it.
  std::optional<oracle::Verdict> advisory;
  // An advisory from a message rule (Protocol::MessageRules): its text, the
  // advisory's identity; empty for one of Protocol::recommended.
  std::string advisory_rule;
  // The event the incremental check rejected, when the verdict names an
  // earlier one (the whole-trace check looks ahead, Executor): the trace as
  // far as it was judged, which a reclassification must see whole (its
  // prefix up to the named answer alone may be explained by what a later
  // answer rules out).
  std::size_t rejected_event = kNoCulprit;
  std::size_t judged_end() const {
    const std::size_t last = rejected_event < events.size()
                                 ? std::max(rejected_event, verdict.event_index)
                                 : verdict.event_index;
    return std::min(last + 1, events.size());
  }
  std::size_t blamed_event() const {
    return culprit_event < events.size() ? culprit_event : verdict.event_index;
  }
  // The server stayed silent for a whole message timeout while requests
  // were outstanding (with or without check_liveness): a slow answer, a
  // request it will never answer, or a server that hangs; the fuzz loop
  // tells them apart with Protocol::liveness_probe.
  bool went_silent = false;
  // Forwarded requests of earlier executions that arrived during this one
  // (Protocol::Origin::of_another_run): answered, not judged.
  std::size_t late_forwards = 0;
  // `answer` steps that waited for their forward while the tester held
  // another (RunOptions::held_wait), how many of them it came to, and the
  // longest such wait that it came in: what HeldWaitBound learns from.
  struct HeldWaits {
    std::size_t waits = 0, met = 0;
    std::chrono::microseconds longest_met{0};
  } held_waits;
  // The answers read and the slowest of them, from its request's send:
  // what AnswerWaitBound learns from.
  struct AnswerLatency {
    std::size_t answers = 0;
    std::chrono::microseconds slowest{0};
  } answer_latency;
  // Configurations the oracle explored (its cost, deterministic: what a
  // fuzz target weighs before keeping an input for coverage).
  std::size_t explored = 0;
  // Why the oracle rejected the trace (or gave up), as data: what
  // violation_key and the JSON findings read (`detail` is for people). For
  // a violation shown late, why the answer it is about (blamed_event) has
  // no explanation: the rejected refusal's own reasons only say that its
  // request's write was not what explained that answer.
  const std::vector<oracle::Reason>& reasons() const {
    return culprit_event < events.size() && !culprit_reasons.empty() ? culprit_reasons
                                                                     : verdict.reasons;
  }
  bool inconclusive() const {
    return verdict.status == oracle::Verdict::Status::Inconclusive;
  }
  bool violation() const {
    return outcome == Outcome::ModelViolation || outcome == Outcome::ProtocolViolation ||
           outcome == Outcome::LivenessViolation;
  }
  // The trace as a message sequence, then the verdict. Readable: each
  // message as the protocol describes it (Protocol::describe_request/
  // _response: `c0 > 1 PUT /doc  if-match: "1"  (2 bytes)`); Json: each
  // message's IR as compact JSON (what scripts parse). Without a protocol,
  // the JSON form (the generic fallback: nothing else knows the messages).
  std::string report(const Protocol& p, TraceFormat f = TraceFormat::Readable) const;
  std::string report() const;
  // An InternalError result saying what threw (no trace: a caller that has
  // one keeps it).
  static RunResult internal_error(std::string_view what);
};

// RunOptions::held_wait learned over a campaign's runs: 100 ms until 20
// held waits were seen, then four times the longest one a forward came in,
// at least 10 ms (none ever came: nginx and Squid forward a connection's
// pipeline one request at a time, and their runs spent most of their wall
// time in held waits that ran out). A forward that comes later is still
// read and judged, so the bound costs only speed, never a verdict.
//
//   HeldWaitBound b;
//   opts.held_wait = b.wait();  ...  b.learn(result.held_waits);
class HeldWaitBound {
 public:
  void learn(const RunResult::HeldWaits& h) {
    waits_ += h.waits;
    longest_ = std::max(longest_, h.longest_met);
  }
  std::chrono::milliseconds wait() const {
    if (waits_ < kLearnAfter) return kFirst;
    const auto four = std::chrono::ceil<std::chrono::milliseconds>(4 * longest_);
    return std::clamp(four, kFloor, kFirst);
  }
  static constexpr std::size_t kLearnAfter = 20;
  static constexpr std::chrono::milliseconds kFirst{100}, kFloor{10};

 private:
  std::size_t waits_ = 0;
  std::chrono::microseconds longest_{0};
};

// RunOptions::message_timeout learned over a campaign's runs on a server
// that leaves some requests unanswered (a framing it still waits on, a
// request it drops): each such play cost a whole timeout, most of the wall
// time on npm webdav-server. After 200 answers: eight times the slowest
// answer seen, at least 250 ms, never more than the timeout given. An
// answer that comes later is not waited for: its request stays unjudged,
// as a request unanswered within the timeout always did (no verdict needs
// an answer that never came), so the bound costs observations, never a
// verdict. Not for --liveness (a late answer would be a violation there),
// and never for the probes that tell a hang (they keep the timeout given).
//
//   AnswerWaitBound b;
//   opts.message_timeout = b.wait(opts.message_timeout);  ...
//   b.learn(result.answer_latency);
class AnswerWaitBound {
 public:
  void learn(const RunResult::AnswerLatency& a) {
    answers_ += a.answers;
    slowest_ = std::max(slowest_, a.slowest);
  }
  std::chrono::milliseconds wait(std::chrono::milliseconds given) const {
    if (answers_ < kLearnAfter || given <= kFloor) return given;
    const auto bound = std::chrono::ceil<std::chrono::milliseconds>(kFactor * slowest_);
    return std::clamp(bound, kFloor, given);
  }
  static constexpr std::size_t kLearnAfter = 200;
  static constexpr int kFactor = 8;
  static constexpr std::chrono::milliseconds kFloor{250};

 private:
  std::size_t answers_ = 0;
  std::chrono::microseconds slowest_{0};
};

class Executor {
 public:
  Executor(const Protocol& protocol, Transport& transport, RunOptions options = {},
           std::shared_ptr<oracle::Solver> solver = nullptr);
  RunResult run(const Script& script);

  // Configurations one response may take breadth-first before the search
  // goes depth-first, in a budgeted run against a forwarding server
  // (Protocol::origin): see the constructor.
  static constexpr std::size_t kForwardingBreadth = 100;

 private:
  const Protocol& protocol_;
  Transport& transport_;
  RunOptions options_;
  std::shared_ptr<oracle::Solver> solver_;
  oracle::ServerModel model_;
  std::optional<oracle::ServerModel> recommended_;  // Protocol::recommended
};

}  // namespace dualfuzz::harness
