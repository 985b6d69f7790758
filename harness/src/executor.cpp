#include "dualfuzz/harness/executor.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <set>

namespace dualfuzz::harness {
namespace {

std::string brief(const Json& v, std::size_t max = 300) {
  return oracle::brief_json(v, max);
}

// One run's mutable state; the Executor itself stays reusable.
class Run {
 public:
  Run(const Protocol& p, Transport& t, const RunOptions& o,
      std::shared_ptr<oracle::Solver> s, const oracle::ServerModel& m,
      const oracle::ServerModel* recommended)
      : p_(p),
        t_(t),
        o_(o),
        model_(m),
        recommended_(recommended),
        solver_(s),
        oracle_(m, o.oracle_options, s),
        rules_(p.new_message_rules ? p.new_message_rules() : nullptr) {}

  RunResult go(const Script& script) {
    try {
      play(script);
    } catch (const std::exception& e) {
      internal_error(e.what());
    } catch (...) {
      internal_error("an exception that is not a std::exception");
    }
    return std::move(res_);
  }

  // A throw from the model, the codec or a script function: the run stops,
  // its connections are closed, the trace so far is kept.
  void internal_error(const std::string& what) {
    RunResult e = RunResult::internal_error(what);
    res_.outcome = e.outcome;
    res_.detail = std::move(e.detail);
    res_.explanations.clear();
    for (ConnId c : std::set<ConnId>(open_)) {
      try {
        t_.close(c);
      } catch (...) {  // the run is already lost; keep its trace
      }
    }
  }

  void play(const Script& script) {
    // Forwarded requests take the labels of the answer steps in label
    // order (so a script can answer the second before the first); those
    // beyond get labels of their own and the default answer.
    for (const Step& st : script.steps)
      if (const auto* a = std::get_if<AnswerStep>(&st))
        answer_labels_.push_back(a->label);
    std::sort(answer_labels_.begin(), answer_labels_.end());
    spare_label_ = next_label(script);
    for (const Step& st : script.steps) {
      if (done()) break;
      if (const auto* r = std::get_if<RequestStep>(&st)) {
        request(*r);
      } else if (const auto* a = std::get_if<AnswerStep>(&st)) {
        answer(*a);
      } else if (const auto* w = std::get_if<WaitStep>(&st)) {
        await(w->label);
      } else if (const auto* c = std::get_if<CloseStep>(&st)) {
        pump(std::chrono::milliseconds(0));
        if (open_.count(c->conn)) {
          t_.close(c->conn);
          closed(c->conn, /*by_server=*/false);
        }
      }
    }
    // Collect every outstanding response.
    while (!done() && outstanding() > 0)
      if (!pump(silence_wait())) {
        timeout("the run ended");
        break;
      }
    // (RunOptions::linger: what comes past the answers, until it is quiet.
    // Not with an origin side: a forward read there would be judged too.)
    for (const auto until = std::chrono::steady_clock::now() + o_.linger;
         !done() && o_.linger.count() > 0 && !p_.origin && !open_.empty();) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !pump(left)) break;
    }
    if (res_.late_forwards)
      res_.detail += "note: " + std::to_string(res_.late_forwards) +
                     " forwarded request(s) of earlier executions answered, not judged\n";
    for (ConnId c : std::set<ConnId>(open_)) t_.close(c);
    for (const auto& [o, side] : origins_)
      if (side.open) t_.close(o);
    if (o_.oracle && o_.check_at_end) judge_at_end();
    if (o_.oracle && res_.outcome == RunResult::Outcome::Pass && res_.inconclusive())
      judge_whole_trace();
    if (o_.oracle && res_.outcome == RunResult::Outcome::ModelViolation) {
      name_by_whole_trace();
      name_unexplained_forward();
      find_culprit();
    }
    if (o_.oracle) res_.explored = oracle_.stats().explored;
    if (o_.oracle && o_.check_advisories) judge_advisory();
    if (o_.oracle && o_.oracle_options.limits.record_decisions)
      res_.explanations = oracle_.explanations();
  }

 private:
  bool done() const { return res_.outcome != RunResult::Outcome::Pass; }

  // RunOptions::check_at_end: the events in order, as observe() would have
  // fed them, and the result an online check would have had.
  void judge_at_end() {
    const std::size_t stop = harness_stop_ == kNone ? res_.events.size() : harness_stop_;
    for (std::size_t i = 0; i < res_.events.size(); ++i) {
      oracle::Verdict v = oracle_.observe(res_.events[i]);
      res_.verdict = v;
      if (v.status != oracle::Verdict::Status::Reject) continue;
      res_.outcome = RunResult::Outcome::ModelViolation;
      res_.detail = v.explanation;
      if (i < stop) cut_after(i);  // an online check had stopped the run here
      return;                      // (later events leave a rejection as it is)
    }
  }
  // The events and the trace's messages up to event `i`, as a run the
  // oracle stopped there holds them.
  void cut_after(std::size_t i) {
    if (i + 1 >= res_.events.size()) return;
    std::size_t messages = 0;
    for (std::size_t k = 0; k <= i; ++k)
      messages += res_.events[k].kind == oracle::Event::Kind::Request ||
                  res_.events[k].kind == oracle::Event::Kind::Response;
    res_.events.resize(i + 1);
    res_.trace.truncate(messages);
  }
  // The incremental search gave up (too many hypotheses for one
  // observation, or its budget): the whole-trace check (oracle::check: the
  // same model, partitions and network semantics, depth-first with
  // memoization) decides it within a budget of its own, for it need not
  // keep every explanation. Four writes in flight on one path under the
  // interval consistency left 20,000 hypotheses at their first answer; the
  // whole-trace check decides that script within the fuzz budget (5,000).
  // If it gives up too, the incremental verdict (where it stopped) stays.
  void judge_whole_trace() {
    // (Its budget per partition is four times max_hypotheses: the run's
    // max_explored, when the run has one, bounds it as it bounded the
    // incremental search.)
    oracle::OracleOptions opts = o_.oracle_options;
    if (const std::size_t b = opts.limits.max_explored)
      opts.limits.max_hypotheses =
          std::min(opts.limits.max_hypotheses, std::max<std::size_t>(1, b / 4));
    oracle::Verdict v = oracle::check(model_, res_.events, opts);
    if (v.status == oracle::Verdict::Status::Inconclusive) return;
    if (v.status == oracle::Verdict::Status::Reject) {
      res_.outcome = RunResult::Outcome::ModelViolation;
      res_.detail = v.explanation;
      // (As an incremental check that had decided would have stopped there.)
      cut_after(v.event_index);
    }
    res_.verdict = std::move(v);
  }

  // Every model violation is named by the whole-trace check (oracle::check).
  // It looks ahead, so an explanation that only an answer still to come
  // kills (a concurrent PUT "accepted", 202, its effect unknown, answered
  // 204 later) dies where it is made, and the rejection falls on the
  // answer nothing else explains (lighttpd's 412 to a GET beside that PUT
  // was reported as the PUT's "202 expected, 204 observed"); and it names
  // its reasons breadth-first, where an incremental search gone
  // depth-first has thin ones. The verdict is the same; only where and why
  // it is named can move. (A check that gives up keeps the online verdict.)
  void name_by_whole_trace() {
    oracle::Verdict v = oracle::check(model_, res_.events, o_.oracle_options);
    if (v.status != oracle::Verdict::Status::Reject) return;
    if (v.event_index < res_.verdict.event_index)
      res_.rejected_event = res_.verdict.event_index;
    res_.detail = v.explanation;
    res_.verdict = std::move(v);
  }

  // A forward no received request explains dies as "nothing outstanding"
  // on its origin connection, a reason of the network, which names no
  // clause: it is named by the forwarding obligation it breaks
  // (Protocol::Origin::unexplained_clause).
  void name_unexplained_forward() {
    if (!p_.origin || p_.origin->unexplained_clause.empty()) return;
    const std::size_t k = res_.verdict.event_index;
    if (k >= res_.events.size() || !is_accepted_conn(res_.events[k].conn)) return;
    for (oracle::Reason& x : res_.verdict.reasons)
      if (x.kind == oracle::Reason::Kind::NothingOutstanding && x.clause.empty())
        x.clause = p_.origin->unexplained_clause;
  }

  // Protocol::MessageRules on a response just observed (the last event): a
  // broken MUST (any rule when strict) is a protocol violation; the first
  // broken SHOULD is the run's advisory.
  void judge_rules(ConnId c, Label l, const Json* request, const Json& response) {
    for (const Protocol::RuleBreak& b : rules_->received(request, response)) {
      const std::string level = b.must ? "MUST" : "SHOULD";
      const std::string about =
          (l ? "the answer to request " + std::to_string(l) : std::string("a response")) +
          (b.detail.empty() ? "" : ": " + b.detail);
      if (b.must || p_.strict_rules) {
        res_.outcome = RunResult::Outcome::ProtocolViolation;
        res_.verdict.event_index = res_.events.size() - 1;
        res_.detail = "PROTOCOL VIOLATION on c" + std::to_string(c) + ": " + b.clause +
                      " (" + level + "): " + b.text + "\n" + about + "\n";
        return;
      }
      advise(b.clause, b.text, "response", b.text + " (" + about + ")", b.detail);
    }
  }
  // The run's advisory (the first only): a SHOULD of `clause` the server did
  // not follow, `rule` its identity, `what` the sentence for a person.
  void advise(const std::string& clause, const std::string& rule, const char* location,
              const std::string& what, const std::string& observed) {
    if (res_.advisory) return;
    oracle::Verdict v;
    v.status = oracle::Verdict::Status::Reject;
    v.event_index = res_.events.empty() ? 0 : res_.events.size() - 1;
    v.explanation = clause + " (SHOULD): " + what;
    oracle::Reason why =
        oracle::Reason::generic(oracle::Reason::Kind::Other, location, rule);
    why.clause = clause;
    why.observed = observed;
    v.reasons.push_back(std::move(why));
    res_.advisory = std::move(v);
    res_.advisory_rule = clause + ": " + rule;
  }

  // RunResult::advisory: a passing run judged again with every SHOULD a
  // MUST. (An inconclusive or rejected run is not: only a verdict of
  // "correct" can be qualified.)
  void judge_advisory() {
    if (!recommended_ || res_.advisory || res_.outcome != RunResult::Outcome::Pass ||
        res_.verdict.status != oracle::Verdict::Status::Accept)
      return;
    oracle::Oracle strict(*recommended_, o_.oracle_options, solver_);
    for (const oracle::Event& e : res_.events) {
      const oracle::Verdict v = strict.observe(e);
      if (v.status == oracle::Verdict::Status::Reject) {
        res_.advisory = v;
        return;
      }
      if (v.status != oracle::Verdict::Status::Accept) return;  // (no guess)
    }
  }
  // A violation shown late (RunResult::culprit_event): the rejected answer
  // is to a request on another resource (Protocol::race_key) whose answer
  // says what it did not do, and some earlier answer was explained only by
  // its doing it. Judged again without that request: the first answer no
  // explanation then gets past, if it is on another resource, is the one
  // the violation is about. (Without the request the rest was accepted
  // only if the request explained nothing, so this names no culprit for a
  // violation that is the rejected answer's own.)
  void find_culprit() {
    const std::size_t k = res_.verdict.event_index;
    if (k >= res_.events.size()) return;
    const oracle::Event& shown = res_.events[k];
    if (shown.kind != oracle::Event::Kind::Response) return;
    const Label late = request_of(shown.label);
    const Json* late_request = res_.trace.find(late);
    if (!late_request) return;
    oracle::Oracle again(model_, o_.oracle_options, solver_);
    for (std::size_t i = 0; i < k; ++i) {
      const oracle::Event& e = res_.events[i];
      if ((e.kind == oracle::Event::Kind::Request ||
           e.kind == oracle::Event::Kind::Response) &&
          request_of(e.label) == late)
        continue;
      const oracle::Verdict v = again.observe(e);
      if (v.status == oracle::Verdict::Status::Accept) continue;
      if (v.status != oracle::Verdict::Status::Reject ||
          e.kind != oracle::Event::Kind::Response)
        return;
      const Json* q = res_.trace.find(request_of(e.label));
      if (!q || p_.race_key(*q) == p_.race_key(*late_request)) return;
      res_.culprit_event = i;
      res_.culprit_reasons = v.reasons;
      res_.detail += "\nShown late: without request " + std::to_string(late) +
                     " (whose answer above says what it did not do), no explanation of "
                     "the answer to request " +
                     std::to_string(request_of(e.label)) + " survives:\n" + v.explanation;
      return;
    }
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t harness_stop_ = kNone;
  std::size_t outstanding() const {
    std::size_t n = 0;
    for (const auto& [c, q] : pending_) n += q.size();
    return n;
  }

  void observe(oracle::Event e) {
    if (o_.oracle && o_.check_at_end) {
      // (Where the harness stopped on its own: a model violation found
      // later, at an earlier event, is what an online check had reported.)
      if (done() && harness_stop_ == kNone) harness_stop_ = res_.events.size();
      res_.events.push_back(std::move(e));
      return;
    }
    res_.events.push_back(e);
    if (!o_.oracle) return;
    oracle::Verdict v = oracle_.observe(e);
    res_.verdict = v;
    if (v.status == oracle::Verdict::Status::Reject) {
      res_.outcome = RunResult::Outcome::ModelViolation;
      res_.detail = v.explanation;
    }
  }

  oracle::ConnId model_conn(ConnId c) {
    // The first connection named cN is model connection N, so explanations
    // use the script's numbers; a reopened cN gets a fresh id above 63.
    auto it = model_conn_.find(c);
    if (it == model_conn_.end())
      it = model_conn_
               .emplace(c, used_model_conns_.insert(c).second ? c : next_model_conn_++)
               .first;
    return it->second;
  }

  void request(const RequestStep& r) {
    if (!open_.count(r.conn)) {
      auto ok = t_.open(r.conn);
      if (!ok) {
        res_.outcome = RunResult::Outcome::Trouble;
        res_.detail =
            "cannot open connection c" + std::to_string(r.conn) + ": " + ok.error();
        return;
      }
      open_.insert(r.conn);
      model_conn_.erase(r.conn);  // a new connection: a new model connection
      ending_.erase(r.conn);
      streams_[r.conn] = p_.new_response_stream();
      observe(oracle::Event::open(model_conn(r.conn)));
    }
    Json ir = evaluate_loose(r.body, res_.trace, p_.functions);
    // On a long-lived external server each run gets its own namespace
    // (the protocol says how a request names its state).
    if (!o_.run_namespace.empty()) {
      Json spaced = p_.namespace_request(ir, o_.run_namespace);
      unspaced_ = unspaced_ || spaced == ir;  // (its forward is told apart by nothing)
      ir = std::move(spaced);
    }
    // The trace and the oracle see the request as it goes on the wire (the
    // printer drops or repairs what cannot be sent: an empty method becomes
    // GET, header names arrive case-insensitive), not the raw IR.
    const std::string bytes = p_.print_request(ir);
    if (p_.canonical_request) ir = p_.canonical_request(ir, bytes);
    res_.trace.add(r.label, r.conn, ir);
    streams_[r.conn]->expect(ir);
    pending_[r.conn].push_back({r.label, std::chrono::steady_clock::now()});
    observe(oracle::Event::request(model_conn(r.conn), r.label, ir));
    if (p_.origin) {
      // Which requests a forward may still come for (held_up_by_tester):
      // not one the server must answer itself, nor one pipelined behind a
      // request that ends its connection (whose server SHOULD NOT process
      // it, RFC 9112 §9.6; if it does, its forward is read when it comes).
      const bool own = p_.origin->never_forwarded && p_.origin->never_forwarded(ir);
      if (!own && !ending_.count(r.conn)) forwardable_.insert(r.label);
      if (p_.origin->ends_connection && p_.origin->ends_connection(ir))
        ending_.insert(r.conn);
    }
    if (rules_) rules_->sent(ir);
    // No receive here: consecutive requests go out together (pipelined on
    // one connection, concurrent across connections); `wait` steps and the
    // end of the script decide when the tester looks at the answers.
    t_.send(r.conn, bytes);
  }

  void await(Label l) {
    while (!done() && !res_.trace.find(response_label(l))) {
      bool still_pending = false;
      for (const auto& [c, q] : pending_)
        for (const Sent& x : q) still_pending = still_pending || x.label == l;
      if (!still_pending) return;  // its connection closed: it will never come
      // (Its answer may come once a later `answer` step answers its
      // forward: the script goes on, the answer is read when it comes.)
      if (p_.origin && held_up_by_tester(/*heads=*/true)) return;
      if (!pump(silence_wait())) {
        timeout("wait " + std::to_string(l));
        return;
      }
    }
  }

  // How long a wait for the server's answers lasts: a message timeout, until
  // the server has once stayed silent that long (went_silent); then what
  // has come is read and the script goes on. Each later wait would cost a
  // whole timeout again: a script of 75 waits on a server that stopped
  // answering held a 20-s nginx run for 150 s more.
  std::chrono::milliseconds silence_wait() const {
    return res_.went_silent ? std::chrono::milliseconds(0) : o_.message_timeout;
  }

  void timeout(const std::string& where) {
    // (A forwarded request whose answer step comes later: the tester, not
    // the server, holds the run up.)
    if (outstanding() == 0 || !unanswered_.empty()) return;
    res_.went_silent = true;
    if (!o_.check_liveness) return;
    res_.outcome = RunResult::Outcome::LivenessViolation;
    res_.detail = "LIVENESS: at `" + where + "`, " + std::to_string(outstanding()) +
                  " request(s) were still unanswered after " +
                  std::to_string(o_.message_timeout.count()) + " ms of silence\n";
    if (!p_.liveness_clause.empty())
      res_.detail += "  broke " + p_.liveness_clause + "; the " +
                     std::to_string(o_.message_timeout.count()) +
                     "-ms bound is the tester's (--timeout-ms)\n";
  }

  void closed(ConnId c, bool by_server) {
    open_.erase(c);
    if (by_server && !pending_[c].empty())
      res_.detail += "note: the server closed c" + std::to_string(c) + " with " +
                     std::to_string(pending_[c].size()) + " request(s) unanswered\n";
    pending_.erase(c);
    streams_.erase(c);
    observe(oracle::Event::close(model_conn(c)));
  }

  // ---- The origin side (Protocol::origin, docs/proxy.md) ----
  struct OriginSide {
    std::unique_ptr<ResponseStream> stream;
    bool open = true;
    // A tester message (the acceptance or an answer) the next forwarded
    // request may follow: the engine's "a response follows a request".
    bool awaiting = true;
    std::deque<Json> held;  // forwarded before the previous was answered
  };
  struct Forwarded {
    ConnId conn;
    Label label;
    Json ir;
  };

  // `answer L`: the forwarded request labelled L (waiting for it if needed),
  // answered with the step's body.
  void answer(const AnswerStep& a) {
    if (!p_.origin) return;
    std::optional<std::chrono::steady_clock::time_point> held_since;
    for (;;) {
      for (auto it = unanswered_.begin(); it != unanswered_.end(); ++it)
        if (it->label == a.label) {
          if (held_since) {
            ++res_.held_waits.met;
            res_.held_waits.longest_met =
                std::max(res_.held_waits.longest_met,
                         std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::steady_clock::now() - *held_since));
          }
          Forwarded f = std::move(*it);
          unanswered_.erase(it);
          send_answer(f, evaluate_loose(a.body, res_.trace, p_.functions));
          return;
        }
      const bool expected = std::find(answer_labels_.begin(), answer_labels_.end(),
                                      a.label) != answer_labels_.end();
      // (Every request sent is answered, e.g. the server refused it or
      // answered Max-Forwards 0 itself: no forward is coming.)
      if (!expected || done() || (p_.origin && held_up_by_tester(/*heads=*/false))) break;
      // While the tester holds a forward unanswered, the proxy may be waiting
      // for that answer before it forwards the next request (Squid forwards
      // a connection's pipelined requests one at a time, as a server may
      // process them, RFC 9112 §9.3.2): a short wait, not a whole timeout
      // (which cost Squid most of its wall time). A forward that comes later
      // is read when it comes, and taken by a later step.
      const bool held = !unanswered_.empty();
      if (held && !held_since) {
        held_since = std::chrono::steady_clock::now();
        ++res_.held_waits.waits;
      }
      if (!pump(held ? held_wait() : o_.message_timeout)) break;
    }
    // Nothing was forwarded in time: later arrivals go to later steps.
    std::erase(answer_labels_, a.label);
  }

  std::chrono::milliseconds held_wait() const {
    return std::min(o_.message_timeout, o_.held_wait);
  }

  bool of_another_run(const Json& forwarded) const {
    if (!p_.origin->of_another_run || o_.run_namespace.empty()) return false;
    if (p_.origin->of_another_run(forwarded, o_.run_namespace)) return true;
    return !unspaced_ && p_.origin->names_no_run &&
           p_.origin->names_no_run(forwarded, o_.run_namespace);
  }

  // Whether nothing more can come before the tester answers, so that a
  // wait would cost a whole message timeout for nothing: no forwarded
  // request waits to be recorded, and each request still unanswered may be
  // one whose forward waits for a later `answer` step (the mapping is
  // hidden). For an answer from the server, `heads`: only the first
  // unanswered request of each connection counts (the answers behind it come
  // after its own); for a forward, every one does (a proxy forwards
  // pipelined requests side by side).
  bool held_up_by_tester(bool heads) const {
    for (const auto& [o, side] : origins_)
      if (!side.held.empty()) return false;
    // For a forward: each request that may be forwarded is forwarded once
    // or answered without one, so at most R - max(F, A) forwards are still
    // to come, with R such requests sent, F forwards recorded and A answers
    // to them received. Unless a forward waits on an origin connection the
    // server closed: it may send it again elsewhere (RFC 9112 §9.3.1.1).
    if (!heads && forwardable_.size() <= std::max(forwards_, forwardable_answered_)) {
      bool retry = false;
      for (const Forwarded& f : unanswered_) {
        auto side = origins_.find(f.conn);
        retry = retry || side == origins_.end() || !side->second.open;
      }
      if (!retry) return true;
    }
    std::size_t n = 0;
    for (const auto& [c, q] : pending_) n += heads ? !q.empty() : q.size();
    return n <= unanswered_.size();
  }

  void send_answer(const Forwarded& f, Json ir) {
    auto side = origins_.find(f.conn);
    if (side == origins_.end() || !side->second.open) return;  // the server hung up
    if (is_abort(ir)) {
      // The tester hangs up instead of answering: the server lost what it
      // forwarded on the connection (what came after it is dropped).
      res_.trace.add(response_label(f.label), f.conn, ir);
      observe(oracle::Event::request(f.conn, response_label(f.label), ir));
      close_origin(f.conn, side->second);
      return;
    }
    const std::string bytes = p_.origin->print_answer(ir, f.ir);
    if (p_.origin->canonical_answer) ir = p_.origin->canonical_answer(ir, f.ir, bytes);
    res_.trace.add(response_label(f.label), f.conn, ir);
    observe(oracle::Event::request(f.conn, response_label(f.label), ir));
    t_.send(f.conn, bytes);
    if (p_.origin->closes_after && p_.origin->closes_after(f.ir, ir)) {
      // The origin is done with the connection (for HTTP a MUST, RFC 9112
      // §9.6): what the server forwarded on it after this request is not
      // processed, so it is not in the trace either (for the model it is
      // still to be forwarded, as a server that retries it elsewhere would).
      OriginSide& o = side->second;
      if (!o.held.empty())
        res_.detail += "note: origin " + oracle::origin_name(f.conn) +
                       " closed after a `close` with " + std::to_string(o.held.size()) +
                       " forwarded request(s) unprocessed\n";
      close_origin(f.conn, o);
      return;
    }
    side->second.awaiting = true;
    record_held(f.conn);
  }

  // The origin is done with o after an answer: what the server forwarded
  // on it since is dropped unprocessed.
  void close_origin(ConnId o, OriginSide& side) {
    side.held.clear();
    side.open = false;
    t_.close(o);
    observe(oracle::Event::close(o));
  }

  // The next held forwarded request of o, now that o has an answer.
  void record_held(ConnId o) {
    OriginSide& side = origins_[o];
    while (side.awaiting && !side.held.empty() && !done() &&
           of_another_run(side.held.front())) {
      // Late: answered so that the server is not held up, never judged.
      Json late = std::move(side.held.front());
      side.held.pop_front();
      ++res_.late_forwards;
      const Json a = p_.origin->default_answer(late);
      t_.send(o, p_.origin->print_answer(a, late));
      if (p_.origin->closes_after && p_.origin->closes_after(late, a)) {
        close_origin(o, side);
        return;
      }
    }
    if (!side.awaiting || side.held.empty() || done()) return;
    Json ir = std::move(side.held.front());
    side.held.pop_front();
    side.awaiting = false;
    Label l;
    const bool scripted = !answer_labels_.empty();
    if (scripted) {
      l = answer_labels_.front();
      answer_labels_.pop_front();
    } else {
      l = spare_label_;
      spare_label_ += 2;
    }
    res_.trace.add(l, o, ir);
    ++forwards_;
    observe(oracle::Event::response(o, l, ir));
    Forwarded f{o, l, std::move(ir)};
    if (scripted)
      unanswered_.push_back(std::move(f));
    else if (!done())
      send_answer(f, p_.origin->default_answer(f.ir));
  }

  void origin_input(Transport::Incoming& msg) {
    auto [it, fresh] = origins_.try_emplace(msg.conn);
    OriginSide& side = it->second;
    if (fresh) {
      // The server connected to the tester: for the model, an input that
      // lets it forward on this connection.
      side.stream = p_.origin->new_forward_stream();
      observe(oracle::Event::request(msg.conn, 0, Json{{"origin", "accepted"}}));
    }
    if (!side.open) return;
    if (!msg.bytes.empty()) side.stream->feed(msg.bytes);
    if (msg.eof) side.stream->on_eof();
    while (auto q = side.stream->next()) side.held.push_back(std::move(*q));
    record_held(msg.conn);
    if (!done() && side.stream->failed()) {
      res_.outcome = RunResult::Outcome::ProtocolViolation;
      res_.detail = "PROTOCOL VIOLATION on origin " + oracle::origin_name(msg.conn) +
                    " (what the server forwarded): " + side.stream->error() + "\n";
    }
    if (!done() && (msg.eof || !msg.error.empty())) {
      side.open = false;
      observe(oracle::Event::close(msg.conn));
    }
  }

  // Receives and decodes; false when nothing arrived in time.
  bool pump(std::chrono::milliseconds timeout) {
    auto in = t_.receive(timeout);
    for (auto& msg : in) {
      if (done()) break;
      if (is_accepted_conn(msg.conn)) {
        if (p_.origin) origin_input(msg);
        continue;
      }
      auto s = streams_.find(msg.conn);
      if (s == streams_.end()) continue;  // already closed on our side
      if (!msg.bytes.empty()) s->second->feed(msg.bytes);
      // A reset (not a close) may have lost bytes the server sent (RFC 9112
      // §9.6: a server that closes at once risks the client "not being able
      // to read the last HTTP response"; servers typically close in stages): what
      // arrived stays judged, a response cut short is not a malformed one.
      // A failed write before the close says the server reset: the end the
      // read side saw is no clean one (Linux reports the reset once, to
      // whichever call comes first; the read then sees an end of stream,
      // and what the reset discarded is lost all the same), so an answer
      // cut there is no malformed one either.
      const std::string& reset = msg.error.empty() ? msg.write_error : msg.error;
      if (msg.eof && reset.empty()) s->second->on_eof();
      // (A note, not an advisory: §9.6 says servers "typically" close in
      // stages, which is no SHOULD; Python's http.server, an HTTP/1.0
      // server, resets every connection a pipelined request reached.)
      if (msg.eof && !reset.empty() && !pending_[msg.conn].empty())
        res_.detail += "note: the server reset c" + std::to_string(msg.conn) + " (" +
                       reset + ") with " + std::to_string(pending_[msg.conn].size()) +
                       " request(s) unanswered; servers typically close in stages "
                       "(RFC 9112 §9.6), which would have let them be read\n";
      bool closing = false;
      while (!done()) {
        auto resp = s->second->next();
        if (!resp) break;
        auto& q = pending_[msg.conn];
        Label l = 0;
        if (!q.empty()) {
          // (From the send: a pipelined answer's wait behind the others
          // counts too, as the tester waits for it so.)
          l = q.front().label;
          ++res_.answer_latency.answers;
          res_.answer_latency.slowest =
              std::max(res_.answer_latency.slowest,
                       std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - q.front().at));
          q.pop_front();
        }
        forwardable_answered_ += forwardable_.count(l);
        res_.trace.add(l ? response_label(l) : 0, msg.conn, *resp);
        observe(oracle::Event::response(model_conn(msg.conn), l ? response_label(l) : 0,
                                        *resp));
        const Json* req = l ? res_.trace.find(l) : nullptr;
        if (rules_ && o_.oracle && !done()) judge_rules(msg.conn, l, req, *resp);
        if (done()) break;
        if (p_.closes_after && req && p_.closes_after(*req, *resp)) {
          closing = true;
          break;
        }
      }
      if (closing && !done()) {
        // (Anything after that response on this connection is never read.)
        t_.close(msg.conn);
        closed(msg.conn, /*by_server=*/false);
        continue;
      }
      if (!done() && s->second->failed()) {
        res_.outcome = RunResult::Outcome::ProtocolViolation;
        res_.detail = "PROTOCOL VIOLATION on c" + std::to_string(msg.conn) + ": " +
                      s->second->error() + "\n";
      }
      if (!done() && (msg.eof || !msg.error.empty())) {
        for (const std::string* why : {&msg.error, &msg.write_error})
          if (!why->empty())
            res_.detail += "note: c" + std::to_string(msg.conn) + ": " + *why + "\n";
        closed(msg.conn, true);
      }
    }
    return !in.empty();
  }

  const Protocol& p_;
  Transport& t_;
  const RunOptions& o_;
  const oracle::ServerModel& model_;
  const oracle::ServerModel* recommended_;
  std::shared_ptr<oracle::Solver> solver_;
  oracle::Oracle oracle_;
  std::unique_ptr<Protocol::MessageRules> rules_;
  RunResult res_;
  std::set<ConnId> open_;
  struct Sent {
    Label label;
    std::chrono::steady_clock::time_point at;  // (for answer_latency)
  };
  std::map<ConnId, std::deque<Sent>> pending_;  // unanswered, in order
  std::map<ConnId, std::unique_ptr<ResponseStream>> streams_;
  std::map<ConnId, oracle::ConnId> model_conn_;
  oracle::ConnId next_model_conn_ = kMaxConn + 1;
  std::set<oracle::ConnId> used_model_conns_;
  std::map<ConnId, OriginSide> origins_;
  std::deque<Label> answer_labels_;   // answer steps not yet given a request
  std::deque<Forwarded> unanswered_;  // recorded, waiting for their answer step
  Label spare_label_ = 1;             // for requests no answer step names
  // With an origin side: the requests sent that may be forwarded, how many
  // of them were answered, how many forwards were recorded, and the
  // connections a request sent on them ends (held_up_by_tester).
  std::set<Label> forwardable_;
  std::size_t forwardable_answered_ = 0;
  std::size_t forwards_ = 0;
  std::set<ConnId> ending_;
  // A request of this run went out without the run's namespace (a proxy's
  // "*"): a forward that names none may be this run's (of_another_run).
  bool unspaced_ = false;
};

}  // namespace

Executor::Executor(const Protocol& protocol, Transport& transport, RunOptions options,
                   std::shared_ptr<oracle::Solver> solver)
    : protocol_(protocol),
      transport_(transport),
      options_(options),
      solver_(solver ? std::move(solver)
                     : std::make_shared<oracle::Solver>(
                           options.oracle_options.solver_timeout_ms,
                           protocol.model().strings)),
      model_(protocol.model()),
      // (Only when it will judge: fuzz targets make an Executor per play.)
      recommended_(protocol.recommended && options_.check_advisories
                       ? std::optional(protocol.recommended())
                       : std::nullopt) {
  // A forwarding server (Protocol::Origin) forwards alike requests of
  // several clients alike: which forward carries whose request has as many
  // explanations as permutations, and the breadth-first search keeps them
  // all. Against the reference proxy a fifth of the executions spent their
  // whole budget so, two thirds of the oracle's work. One explanation is
  // enough: in a budgeted run, past kForwardingBreadth configurations for
  // one response the search goes depth-first (the verdicts are the same;
  // a rejection is explained breadth-first again, name_by_whole_trace).
  auto& limits = options_.oracle_options.limits;
  if (protocol_.origin && limits.max_explored && limits.depth_first_after)
    limits.depth_first_after = std::min(limits.depth_first_after, kForwardingBreadth);
}

RunResult Executor::run(const Script& script) {
  std::optional<Run> r;
  try {  // (the oracle starts the model's tree: a model may throw here too)
    r.emplace(protocol_, transport_, options_, solver_, model_,
              recommended_ ? &*recommended_ : nullptr);
  } catch (const std::exception& e) {
    return RunResult::internal_error(e.what());
  } catch (...) {
    return RunResult::internal_error("an exception that is not a std::exception");
  }
  return r->go(script);
}

RunResult RunResult::internal_error(std::string_view what) {
  RunResult r;
  r.outcome = Outcome::InternalError;
  r.detail =
      "INTERNAL ERROR (in dualfuzz or the protocol plug-in, not a finding about "
      "the server): " +
      std::string(what) + "\n";
  return r;
}

namespace {
// A protocol's description on one line: control bytes (a path or header the
// fuzzer filled with CR LF) as \xNN, so each message stays one line.
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
      continue;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    out += {'\\', 'x', kHex[u >> 4], kHex[u & 15]};
  }
  return out;
}

// The report with each message described by `p`, or as JSON when null.
std::string report_with(const RunResult& r, const Protocol* p) {
  using Outcome = RunResult::Outcome;
  std::string s = "trace (c = connection, > sent, < received):\n";
  for (const auto& m : r.trace.messages()) {
    const bool req = is_request_label(m.label);
    // On an origin connection (docs/proxy.md) the tester receives the
    // requests and sends the answers.
    const bool origin = is_accepted_conn(m.conn);
    s += (origin ? "  " + oracle::origin_name(m.conn) : "  c" + std::to_string(m.conn)) +
         (req != origin ? " > " : " < ") + std::to_string(m.label) + " " +
         (!p ? brief(m.ir)
             : one_line(req ? p->describe_request(m.ir) : p->describe_response(m.ir))) +
         "\n";
  }
  switch (r.outcome) {
    case Outcome::Pass:
      if (r.inconclusive())
        s += "verdict: inconclusive — no violation up to where the oracle stopped; the "
             "rest of the trace is unchecked\n" +
             r.verdict.explanation + (r.verdict.explanation.empty() ? "" : "\n");
      else
        s += "verdict: no violation\n";
      if (r.advisory)
        s += "advisory (a SHOULD the server did not follow, no violation): " +
             r.advisory->explanation + "\n";
      break;
    case Outcome::Trouble:
      s += "verdict: could not run: ";
      break;
    case Outcome::InternalError:
      s += "verdict: none (internal error)\n";
      break;
    default:
      break;
  }
  return s + r.detail;
}
}  // namespace

std::string RunResult::report() const { return report_with(*this, nullptr); }

std::string RunResult::report(const Protocol& p, TraceFormat f) const {
  return report_with(*this, f == TraceFormat::Readable ? &p : nullptr);
}

}  // namespace dualfuzz::harness
