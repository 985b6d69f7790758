// A violation's signature: the name of the bug it shows, to count one bug
// once however often it is hit (`dualfuzz fuzz --keep-going`), and the
// finding as JSON for scripts (bench/eval_realservers.py judges findings by
// their signatures).
//
//   harness::RunResult r = player.play(script);  // a model violation
//   std::string sig = campaign::signature_of(protocol, r);
//   // sig: "model: PUT if-none-match -> 204 after PUT"
//   harness::Json j = campaign::finding_json(protocol, script, r);
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "dualfuzz/campaign/consistency.h"
#include "dualfuzz/campaign/race_skeleton.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/harness/sequence_chart.h"
#include "dualfuzz/oracle/json_text.h"

namespace dualfuzz::campaign {

inline const char* kind_name(harness::RunResult::Outcome o) {
  switch (o) {
    case harness::RunResult::Outcome::ModelViolation:
      return "model";
    case harness::RunResult::Outcome::ProtocolViolation:
      return "protocol";
    case harness::RunResult::Outcome::LivenessViolation:
      return "liveness";
    default:
      return "none";
  }
}

// A request shape the server must refuse whatever the request asks ("* host",
// "* malformed(two-hosts)": HTTP's request_shape marks it with "* "): that it
// was served is the defect, not which answer came instead.
inline bool refused_whatever(std::string_view shape) { return shape.starts_with("* "); }

// What makes two violations "the same" before shrinking, and what shrinking
// must keep: the outcome kind and, for a model violation, the shape of the
// request whose response no explanation survived and that response's
// status (harness::violation_key also keeps the reasons the explanations
// died for, but those depend on which explanations happened to be alive, so
// they would stop the shrinker from removing irrelevant requests). Protocol
// and liveness violations: violation_key (what was malformed).
inline std::string model_key(const harness::Protocol& p, const std::string& shape,
                             const harness::RunResult& r) {
  const std::string answer = p.response_shape(r.events[r.blamed_event()].payload());
  return std::string(kind_name(r.outcome)) + ": " + shape + " -> " +
         (answer.empty() ? "?" : answer);
}
inline std::string quick_key(const harness::Protocol& p, const harness::RunResult& r) {
  const harness::Json* q = killing_request(r);
  if (r.outcome != harness::RunResult::Outcome::ModelViolation || !q)
    return harness::violation_key(p, r);
  return model_key(p, p.request_shape(*q), r);
}

// The key an advisory (a run that passed but broke a SHOULD, r.advisory) is
// counted under: its message rule, or the kind of request (HTTP: the
// method) and the answer the strict model rejected, whatever the request's
// decoration (webfs's 400 to a method it does not implement showed as
// twelve advisories, one per set of preconditions sent with it).
//   "rule: RFC 9110 §8.3: content without Content-Type", "model: OPTIONS -> 400"
inline std::string advisory_key(const harness::Protocol& p, const harness::RunResult& r) {
  if (!r.advisory_rule.empty()) return "rule: " + r.advisory_rule;
  harness::RunResult strict = r;  // (the run as the strict model judged it)
  strict.outcome = harness::RunResult::Outcome::ModelViolation;
  if (r.advisory) strict.verdict = *r.advisory;
  const harness::Json* q = killing_request(strict);
  return q ? model_key(p, p.request_kind(*q), strict) : quick_key(p, strict);
}

// Were two requests with the killing request's race key (Protocol::
// race_key) in flight at once, on different connections?
inline bool concurrent(const harness::Protocol& p, const harness::RunResult& r) {
  return !overlapping_requests(p, r).empty();
}

// An answer that closes its connection, judged as the answer to a request
// that has later ones pipelined behind it on that connection which the
// (shrunk) violation still needs: most likely the answer to one of those
// later requests, sent ahead of the earlier ones' answers (RFC 9112 §9.3.2:
// responses in the order of the requests; Node's own 400 to bytes after a
// `Connection: close` request is written so). One defect whichever request
// it overtook: named by the answer alone, "model: an answer ahead of an
// earlier request's (RFC 9112 §9.3.2) -> 400".
inline bool ahead_of_its_turn(const harness::Protocol& p, const harness::RunResult& r) {
  const harness::Json* kill = killing_request(r);
  if (!kill || !p.closes_after || r.blamed_event() >= r.events.size()) return false;
  const harness::Json& answer = r.events[r.blamed_event()].payload();
  if (!p.closes_after(harness::Json::object(), answer)) return false;
  const auto wire = wire_conns(r);
  harness::Label label = 0;
  for (const auto& m : r.trace.messages()) {
    if (&m.ir == kill) {
      label = m.label;
      continue;
    }
    if (!label) continue;
    if (harness::request_of(m.label) == label) return false;  // its answer came
    if (harness::is_request_label(m.label) && wire.count(m.label) && wire.count(label) &&
        wire.at(m.label) == wire.at(label))
      return true;
  }
  return false;
}
inline std::string ahead_key(const harness::Protocol& p, const harness::RunResult& r) {
  const std::string answer = p.response_shape(r.events[r.blamed_event()].payload());
  return std::string(kind_name(r.outcome)) +
         ": an answer ahead of an earlier request's (RFC 9112 §9.3.2) -> " +
         (answer.empty() ? "?" : answer);
}

// The signature of a (minimized) violating run, to deduplicate findings:
//   "model: PUT if-none-match -> 204 after PUT"
//   "model: PUT -> 201 (concurrent)"
// A bug is a wrong answer to a kind of interaction, so the signature is:
//  - the outcome kind (model / protocol / liveness);
//  - the request whose answer no explanation survived, by its shape (method
//    + which preconditions, see request_shape), and that answer's status —
//    for a violation shown late (RunResult::culprit_event: a refusal on
//    another path that only says what it did not do), the earlier answer
//    it is about, so an old bug keeps its name;
//  - the shapes of the other requests on its path, in the order the server
//    saw them, before it ("after ...") and sent while it was in flight
//    ("then ..."): the model treats paths as independent, so these are the
//    interaction that matters, and after shrinking they are the
//    counterexample's skeleton;
//  - or, when two of them were in flight at once on different connections,
//    "(concurrent)" instead of the lists: two racing PUTs is a different bug
//    from the same two PUTs in sequence (a shrunk script is first tried
//    serialized, see `serialized`, so this is only said when the race is
//    needed), and what else a race's counterexample holds is noise.
// Left out: values (ETags, dates, bodies differ between occurrences), labels,
// requests on other paths, and the reasons the explanations died (which of
// them were alive depends on incidentals, e.g. a nested path keeps a
// "409: no parent collection" explanation alive until the status is seen).
// So two bugs that give the same status to the same request sequence and
// differ only in a header value are counted as one; the printed
// counterexample is the first one's.
// Protocol and liveness violations: violation_key (what was malformed).
// A model violation blamed on what the server sent on a connection it
// opened (a proxy's forwarded request): the obligation it broke decides, not
// which client request it was forwarding (a proxy that never adds Via does
// so to every request; naming each request's shape split that one defect
// into 128 findings in 30 s of nginx).
//   "model: a forwarded request | response.via: value expected, absent
//    observed (RFC 9110 §7.6 ...)"
std::string forward_key(const harness::RunResult& r);
inline bool blamed_on_a_forward(const harness::RunResult& r) {
  return r.outcome == harness::RunResult::Outcome::ModelViolation &&
         r.blamed_event() < r.events.size() &&
         r.events[r.blamed_event()].kind == oracle::Event::Kind::Response &&
         harness::is_accepted_conn(r.events[r.blamed_event()].conn);
}

// Does `x` name better what broke than `from`, both model violations? True
// when no reason of `from` locates anything (nothing was outstanding where
// an answer came: another request's explanation lived longer than the one
// that broke) and one of `x` does (a mismatch or a contradiction, with its
// field and clause). The shrinker then takes `x`'s name: nginx forwarding a
// Connection-listed field next to a plain request of the same method and
// path had the forward read as the plain one's, and died at the client's
// answer ("LOCK -> 200 | nothing-outstanding at connection"); without the
// plain request the forward itself breaks §7.6.1 and says so.
bool names_better(const harness::RunResult& from, const harness::RunResult& x);

// Likewise a proxy's answer to its client that is wrong in its fields only
// (a hop-by-hop field relayed, Via missing, a cache directive lost):
// relaying them is one obligation whatever the request and the origin's
// status were, so the verdict alone names it (nginx without Via on its
// relays: 15 findings in 30 s, one per method and status). A wrong status
// or content stays named by its request: the proxy's own answer depends on
// what was asked, and a body relayed to the wrong client on what was in
// flight. "" when the rule does not apply (no origin side: not a proxy).
//   "model: an answer to a client | response.headers.x-hop: absent expected,
//    value observed (RFC 9110 §7.6 (relayed response: ...))"
std::string relay_key(const harness::Protocol& p, const harness::RunResult& r);

inline std::string signature_of(const harness::Protocol& p, const harness::RunResult& r) {
  if (blamed_on_a_forward(r)) return forward_key(r);
  if (std::string k = relay_key(p, r); !k.empty()) return k;
  const harness::Json* kill = killing_request(r);
  if (r.outcome != harness::RunResult::Outcome::ModelViolation || !kill)
    return harness::violation_key(p, r);
  // A race is shrunk unreliably (each try may or may not hit it), so the
  // other requests left in its counterexample are noise: it is named by
  // its killing request alone.
  if (concurrent(p, r)) return quick_key(p, r) + " (concurrent)";
  if (ahead_of_its_turn(p, r)) return ahead_key(p, r);
  // A request the server must refuse whatever it asks: served is the defect,
  // whatever the answer and whatever came before.
  if (const std::string shape = p.request_shape(*kill); refused_whatever(shape))
    return std::string(kind_name(r.outcome)) + ": " + shape + " -> not refused";
  const std::string key = p.race_key(*kill);
  std::string before, after;  // shapes of the other requests on the path
  bool seen_kill = false;
  for (const auto& m : r.trace.messages()) {
    if (!harness::is_request_label(m.label) || p.race_key(m.ir) != key) continue;
    if (&m.ir == kill) {
      seen_kill = true;
      continue;
    }
    std::string& list = seen_kill ? after : before;
    list += (list.empty() ? "" : " ; ") + p.request_shape(m.ir);
  }
  // "model: PUT if-none-match -> 204 after PUT": the killing request and its
  // answer first, then what led to it.
  return quick_key(p, r) + (before.empty() ? "" : " after " + before) +
         (after.empty() ? "" : "; then " + after);
}

// A request's shape as findings name it: Protocol::request_shape (else
// request_kind) without "(invalid)". The shrinker empties a field's value
// whenever the violation stays, so whether it is left valid is the
// shrink's accident, not the bug's. Identities and death names use it.
std::string finding_shape(const harness::Protocol& p, const harness::Json& ir);

// A finding's identity: what a baseline (baseline.h) matches findings by,
// made from the verdict rather than from the request's decoration, so that
// one defect keeps one name across seeds and two defects do not share one.
// `r` is the run of a shrunk script (what the shrinker could not remove is
// what the violation needs). signature_of stays for display.
//  - a protocol violation: the first line of its report without the
//    connection ("protocol: RFC 9110 §8.6 (MUST): Content-Length in a 204
//    response"); one that names no rule: violation_key (values shaped away);
//  - a model violation, three parts joined by " | ":
//    * the killing request's shape (Protocol::request_shape) with each of
//      its header fields and the class of its value against the newest
//      successful (2xx) answer on its path received before its own (the
//      state the server answered it in): "current" (one of that
//      answer's Protocol::validators: HTTP's ETag and Last-Modified, not
//      its Date: an If-Unmodified-Since of a PUT's Date met lighttpd's
//      ignored If-Unmodified-Since as "current" only when the Date lagged
//      the file's time, under load, and as "other" otherwise), "related"
//      (Protocol::related_values of one:
//      W/"1" for "1"), "other" ("(invalid)" is left out of the shape: the
//      shrinker empties a value whenever it can); then "-> " and the
//      observed answer's class (Protocol::response_shape, a status as
//      "3xx"): "GET if-none-match {if-none-match:other} -> 3xx";
//    * the verdict: per reason (oracle::Reason) where the response went wrong,
//      expected and observed as classes (a status is its own class, an
//      observed one its class "2xx" when no status expected is of that
//      class; any other field "value" or "absent"), and the clause:
//      "response.status: 200 expected, 304 observed (RFC 9110 §9.3.1)",
//      "response.status: 412 expected, 2xx observed (RFC 9110 §13.1.1)"
//      (If-Match ignored, whether the method then answered 200, 204 or
//      206). Reasons that every
//      answer has (a refusal's clause "... (a refusal)", a weaker
//      consistency's "consistency ..."), an error status expected beside a
//      success or a contradiction (a 409 a nested path keeps alive, a 400
//      an invalid field: the other decides) and reasons without a location
//      (nothing outstanding) are left out when others remain;
//    * the rest of the script, as the sorted set of its other requests'
//      shapes, without the fields beside them ("with PUT"; "alone"; the
//      shrinker tries each as its plainest kind, Protocol::plainer, so a
//      GET or a HEAD that read the state is one "GET"), "any script" for a
//      request refused whatever it asks (an invalid Host), or
//      "(concurrent)" for a race (its other requests are noise, see
//      signature_of);
//  - a liveness violation: "liveness | with " and the requests' shapes.
std::string identity_of(const harness::Protocol& p, const harness::RunResult& r);
// The end of a race's identity (its rest of the script).
inline constexpr std::string_view kConcurrent = "(concurrent)";

// What a model violation broke, without what was observed instead: each
// decisive reason's place, expected class and clause ("response.status:
// 304 expected (RFC 9110 §13.1.2)"); empty for any other outcome. The
// shrinker takes a request with a precondition fewer that breaks one of
// these as the same defect shown more simply, whatever it was answered
// (Apache's If-Modified-Since evaluated beside a matching If-None-Match
// answers 206 with a Range and 200 without).
std::set<std::string> obligations(const harness::RunResult& r);

// The run's messages for the --json summary (bench/eval_realservers.py
// renders them), with long string values (error pages) cut to 80 bytes.
inline harness::Json trace_json(const harness::RunResult& r) {
  harness::Json out = harness::Json::array();
  const auto wire = wire_conns(r);
  for (const auto& m : r.trace.messages()) {
    harness::Json ir = m.ir;
    if (ir.is_object())
      for (auto& [k, v] : ir.items())
        if (v.is_string()) v = oracle::clip_text(v.get<std::string>(), 80);
    harness::Json msg = {{"conn", m.conn}, {"label", m.label}, {"ir", ir}};
    if (auto it = wire.find(m.label); it != wire.end()) msg["wire_conn"] = it->second;
    out.push_back(std::move(msg));
  }
  return out;
}

inline harness::Json shown_late_json(const harness::RunResult& r) {
  if (r.culprit_event >= r.events.size() || r.verdict.event_index >= r.events.size())
    return nullptr;
  return {{"at", harness::request_of(r.events[r.verdict.event_index].label)},
          {"about", harness::request_of(r.events[r.culprit_event].label)},
          {"reasons", harness::Json(r.culprit_reasons)}};
}

// A (minimized) violating run as bench/eval_realservers.py reads it.
// `known`: its classification if already made (else made here).
inline harness::Json finding_json(const harness::Protocol& p, const harness::Script& s,
                                  const harness::RunResult& r,
                                  const Classification* known = nullptr) {
  const Classification c = known ? *known : classify(p, r);
  return {{"signature", signature_of(p, r)},
          // What a baseline matches it by (identity_of; of a shrunk run).
          {"identity", identity_of(p, r)},
          // Which promise it broke (consistency.h): "protocol" (the clauses
          // in "reasons") or "not-linearizable" (explained under the weaker
          // "consistency"; "overlapping": the requests in flight at once).
          {"class", class_name(c.kind)},
          {"consistency", c.consistency},
          {"overlapping", c.overlapping},
          {"class_reason", c.text},
          {"kind", kind_name(r.outcome)},
          {"min_steps", s.steps.size()},
          {"min_requests", count_requests(s)},
          {"min_messages", r.trace.size()},
          {"script", harness::print_script(s)},
          {"report", r.report()},
          {"explanation", r.detail},
          // Why no explanation survived, as data (oracle::Reason): where the
          // response went wrong, what was expected there, what was seen, and
          // the clause the model named for the expected answer.
          {"reasons", harness::Json(r.reasons())},
          // A violation shown late (RunResult::culprit_event): the request
          // whose answer the oracle rejected, and why the earlier answer
          // the signature names has no explanation without it; else null.
          {"shown_late", shown_late_json(r)},
          {"trace", trace_json(r)}};
}

}  // namespace dualfuzz::campaign
