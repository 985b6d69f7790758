// Signatures name one defect once: an answer that overtakes an earlier
// request's (RFC 9112 §9.3.2) is named by the answer alone, whichever
// request it was taken for; an answer to its own request keeps its name.
#include "dualfuzz/campaign/signature.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "dualfuzz/http/model.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/oracle/oracle.h"

namespace dualfuzz::campaign {
namespace {

using harness::Json;

Json req(const char* method, Json headers = Json::object()) {
  if (headers.is_null()) headers = Json::object();
  return {{"method", method}, {"path", "/a"}, {"headers", headers}};
}
Json answer(int status, bool close) {
  Json h = Json::object();
  if (close) h["connection"] = "close";
  return {{"status", status}, {"headers", h}, {"body", ""}};
}

// Requests 1, 3, ... pipelined on c0 in order, then one answer to the first,
// judged a model violation.
harness::RunResult run(std::vector<Json> requests, const Json& first_answer) {
  harness::RunResult r;
  r.outcome = harness::RunResult::Outcome::ModelViolation;
  harness::Label l = 1;
  for (Json& q : requests) {
    r.events.push_back(oracle::Event::request(0, l, q));
    r.trace.add(l, 0, std::move(q));
    l += 2;
  }
  r.events.push_back(oracle::Event::response(0, 2, first_answer));
  r.trace.add(2, 0, first_answer);
  r.verdict.status = oracle::Verdict::Status::Reject;
  r.verdict.event_index = r.events.size() - 1;
  return r;
}

TEST(Signature, AnAnswerAheadOfItsTurnIsNamedByTheAnswer) {
  const harness::Protocol p = http::plugin().protocol;
  const std::string a =
      signature_of(p, run({req("OPTIONS"), req("LOCK", {{"connection", "close"}}),
                           req("PUT")},
                          answer(400, true)));
  const std::string b =
      signature_of(p, run({req("GET", {{"connection", "close"}}), req("PATCH")},
                          answer(400, true)));
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("RFC 9112 §9.3.2"), std::string::npos) << a;
  // Not when nothing was pipelined behind it, nor when the answer does not
  // close the connection: the request's own answer.
  const std::string alone = signature_of(p, run({req("GET")}, answer(400, true)));
  EXPECT_EQ(alone.find("9.3.2"), std::string::npos) << alone;
  const std::string open = signature_of(p, run({req("GET"), req("PUT")}, answer(400, false)));
  EXPECT_EQ(open.find("9.3.2"), std::string::npos) << open;
}

// A violation no reason locates ("nothing outstanding" where the answer
// came) is named better by one that has a located reason; never the other
// way, nor between two located ones, nor across outcome kinds.
TEST(Signature, ALocatedReasonNamesBetterThanNothingOutstanding) {
  using Kind = oracle::Reason::Kind;
  auto with = [](harness::RunResult::Outcome o, std::vector<Kind> kinds) {
    harness::RunResult r;
    r.outcome = o;
    for (Kind k : kinds) r.verdict.reasons.push_back(oracle::Reason::generic(k, "", ""));
    return r;
  };
  const auto model = harness::RunResult::Outcome::ModelViolation;
  const auto nothing = with(model, {Kind::NothingOutstanding, Kind::NothingOutstanding});
  const auto field = with(model, {Kind::NothingOutstanding, Kind::Mismatch});
  const auto clash = with(model, {Kind::Contradiction});
  EXPECT_TRUE(names_better(nothing, field));
  EXPECT_TRUE(names_better(nothing, clash));
  EXPECT_FALSE(names_better(field, nothing));
  EXPECT_FALSE(names_better(field, clash));
  EXPECT_FALSE(names_better(nothing, nothing));
  EXPECT_FALSE(names_better(
      nothing, with(harness::RunResult::Outcome::ProtocolViolation, {Kind::Mismatch})));
  EXPECT_FALSE(names_better(with(model, {}), field));
}

// Requests and their answers in turn on c0, judged by the protocol's own
// model; each request as the executor records it (canonical_request of what
// was sent).
harness::RunResult judged(const harness::Protocol& p,
                          std::vector<std::pair<Json, Json>> exchanges) {
  harness::RunResult r;
  harness::Label l = 1;
  for (auto& [q, a] : exchanges) {
    q = p.canonical_request(q, p.print_request(q));
    r.events.push_back(oracle::Event::request(0, l, q));
    r.events.push_back(oracle::Event::response(0, l + 1, a));
    r.trace.add(l, 0, std::move(q));
    r.trace.add(l + 1, 0, std::move(a));
    l += 2;
  }
  oracle::Oracle o(p.model());
  for (const oracle::Event& e : r.events)
    if (!o.observe(e).accepted()) break;
  r.verdict = o.verdict();
  r.outcome = r.verdict.accepted() ? harness::RunResult::Outcome::Pass
                                   : harness::RunResult::Outcome::ModelViolation;
  return r;
}
harness::RunResult judged(const harness::Protocol& p, Json q, Json a) {
  return judged(p, {{std::move(q), std::move(a)}});
}
Json status(int s, Json headers = Json::object()) {
  return http::normalize_response({{"status", s}, {"headers", headers}, {"body", ""}});
}

// A request the server MUST refuse whatever it asks (an invalid Host): that
// it was served is the defect, whichever answer came instead (one lax Host
// check showed as five findings on caddy); a request of its own is still
// named by its answer.
TEST(Identity, ARequestToRefuseIsNamedByBeingServedNotByTheAnswer) {
  const harness::Protocol p = http::plugin().protocol;
  Json bad = req("GET", {{"host", "localhost:8o"}});
  std::set<std::string> ids, signatures;
  for (int s : {200, 304, 404, 416}) {
    const harness::RunResult r = judged(p, bad, status(s));
    ASSERT_TRUE(r.violation()) << s;
    ids.insert(identity_of(p, r));
    signatures.insert(signature_of(p, r));  // (what a run counts as distinct)
  }
  EXPECT_EQ(ids.size(), 1u) << *ids.begin() << " / " << *ids.rbegin();
  EXPECT_EQ(signatures.size(), 1u)
      << *signatures.begin() << " / " << *signatures.rbegin();
  EXPECT_NE(ids.begin()->find("RFC 9112 §3.2"), std::string::npos) << *ids.begin();
  const std::string put_201 = identity_of(p, judged(p, req("PUT"), status(200)));
  const std::string put_500 = identity_of(p, judged(p, req("PUT"), status(500)));
  EXPECT_NE(put_201, put_500);
}

// A 405 without the Allow it MUST carry (RFC 9110 §15.5.6) is named by the
// missing field, not by the statuses each method's other answers would be.
TEST(Identity, AFieldMissingWhereTheStatusMatchedDecides) {
  const harness::Protocol p = http::plugin().protocol;
  for (const char* m : {"PUT", "OPTIONS", "DELETE"}) {
    const harness::RunResult r = judged(p, req(m), status(405));
    ASSERT_TRUE(r.violation()) << m;
    const std::string id = identity_of(p, r);
    EXPECT_NE(id.find("response.allow: value expected, absent observed"),
              std::string::npos)
        << id;
    EXPECT_EQ(id.find("response.status"), std::string::npos) << id;
  }
  // With Allow it is no violation at all.
  EXPECT_FALSE(judged(p, req("PUT"), status(405, {{"allow", "GET"}})).violation());
  // Nor is it another defect for the preconditions the request carried
  // (nginx's 405s to OPTIONS took one identity per precondition).
  const std::string plain = identity_of(p, judged(p, req("OPTIONS"), status(405)));
  const std::string conditional = identity_of(
      p, judged(p,
                req("OPTIONS", {{"if-unmodified-since", "Sun, 06 Nov 1994 08:49:37 GMT"},
                                {"if-none-match", "\"x\""}}),
                status(405)));
  EXPECT_EQ(conditional, plain);
  EXPECT_NE(plain.find("model: OPTIONS -> 4xx"), std::string::npos) << plain;
  EXPECT_NE(identity_of(p, judged(p, req("PUT"), status(405))), plain);
}

// An advisory is counted under the kind of request and its answer, not
// the request's decoration: webfs's 400 to OPTIONS with and without
// preconditions is one SHOULD (RFC 9110 §9.1: 501) broken once.
TEST(Signature, AnAdvisoryIsKeyedByTheKindOfRequestAndItsAnswer) {
  const harness::Protocol p = http::plugin().protocol;
  auto advisory = [&](Json q) {
    harness::RunResult r = judged(p, q, status(400));
    EXPECT_FALSE(r.violation()) << q;  // (a SHOULD: no violation)
    harness::RunResult strict = r;
    oracle::Oracle o(p.recommended());
    for (const oracle::Event& e : r.events)
      if (!o.observe(e).accepted()) break;
    EXPECT_FALSE(o.verdict().accepted()) << q;
    r.advisory = o.verdict();
    return advisory_key(p, r);
  };
  const std::string plain = advisory(req("OPTIONS"));
  EXPECT_EQ(plain, "model: OPTIONS -> 400");
  EXPECT_EQ(
      advisory(req("OPTIONS", {{"if-modified-since", "Sun, 06 Nov 1994 08:49:37 GMT"}})),
      plain);
  EXPECT_NE(advisory(req("DELETE")), plain);
  harness::RunResult ruled;
  ruled.advisory_rule = "RFC 9110 §8.3: content without Content-Type";
  EXPECT_EQ(advisory_key(p, ruled), "rule: RFC 9110 §8.3: content without Content-Type");
}

// A precondition ignored is one defect whatever the method then answered:
// a status of another class than every one expected is named by its class
// (If-Match false where nothing is: 412, and a 200 or a 204 came); one of
// a class expected keeps its code (a created resource's 201 against 200 or
// 204: which one came is the defect), and another class stays apart.
TEST(Identity, AStatusOfAClassNotExpectedIsNamedByItsClass) {
  const harness::Protocol p = http::plugin().protocol;
  auto id = [&](Json q, int answered) {
    const harness::RunResult r = judged(p, std::move(q), status(answered));
    EXPECT_TRUE(r.violation()) << answered;
    return identity_of(p, r);
  };
  const Json guarded = req("PUT", {{"if-match", "\"x\""}});
  const std::string ok200 = id(guarded, 200), ok204 = id(guarded, 204);
  EXPECT_EQ(ok200, ok204);
  EXPECT_NE(ok200.find("412 expected, 2xx observed (RFC 9110 §13.1.1)"),
            std::string::npos)
      << ok200;
  EXPECT_NE(ok200, id(guarded, 304));
  EXPECT_NE(id(req("PUT"), 200), id(req("PUT"), 204));
}

// What a violation broke, without what came instead: two answers to the
// same precondition (If-None-Match naming the current tag, ignored) share
// it whether the GET was answered 200 or, with a Range, 206; a violation of
// another obligation shares none.
TEST(Identity, ObligationsLeaveOutWhatWasObserved) {
  const harness::Protocol p = http::plugin().protocol;
  auto two = [&](Json second, Json a) {
    return judged(p, {{req("PUT"), status(201, {{"etag", "\"1\""}})},
                      {std::move(second), std::move(a)}});
  };
  const auto plain = two(req("GET", {{"if-none-match", "\"1\""}}), status(200));
  const auto ranged =
      two(req("GET", {{"if-none-match", "\"1\""}, {"range", "bytes=0-0"}}),
          status(206, {{"content-range", "bytes 0-0/1"}}));
  ASSERT_TRUE(plain.violation());
  ASSERT_TRUE(ranged.violation());
  const std::set<std::string> a = obligations(plain), b = obligations(ranged);
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(
      std::ranges::any_of(a, [&](const std::string& o) { return b.count(o) > 0; }))
      << *a.begin() << " / " << (b.empty() ? "" : *b.begin());
  for (const std::string& o : a) EXPECT_EQ(o.find("observed"), std::string::npos) << o;
  const auto other = two(req("GET"), status(404));
  ASSERT_TRUE(other.violation());
  for (const std::string& o : obligations(other)) EXPECT_EQ(a.count(o), 0u) << o;
  EXPECT_TRUE(obligations(judged(p, req("GET"), status(404))).empty());  // (no violation)
}

}  // namespace
}  // namespace dualfuzz::campaign
