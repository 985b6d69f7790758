// The thesis's examples in both directions: reorderings a TCP network
// explains are accepted, causality violations rejected (Fig. 1.2-1.4), ETag
// knowledge (Fig. 1.1 / 4.5), CMP-SET / CMP-RST, swap, many connections.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "dualfuzz/http/etag_put.h"
#include "dualfuzz/oracle/itree.h"
#include "dualfuzz/oracle/oracle.h"
#include "dualfuzz/specs/cmp_set.h"
#include "dualfuzz/specs/getput_store.h"
#include "dualfuzz/specs/swap.h"

namespace dualfuzz::oracle {
namespace {

Json put(const char* v) { return {{"method", "PUT"}, {"key", "k"}, {"value", v}}; }
Json get() { return {{"method", "GET"}, {"key", "k"}}; }

// Both the incremental oracle and the whole-trace check must agree.
Verdict both(const ServerModel& m, const std::vector<Event>& t) {
  Oracle o(m);
  for (const Event& e : t)
    if (!o.observe(e).accepted()) break;
  Verdict offline = check(m, t);
  EXPECT_EQ(o.verdict().status, offline.status) << o.verdict().explanation << "\n--\n"
                                                << offline.explanation;
  return o.verdict();
}

std::vector<Event> base_store() {
  return {Event::request(1, 1, put("old")), Event::response(1, 2, "Done")};
}

TEST(Fig1_2, SequentialObservationAccepted) {
  auto t = base_store();
  t.push_back(Event::request(1, 3, put("new")));
  t.push_back(Event::response(1, 4, "Done"));
  t.push_back(Event::request(2, 5, get()));
  t.push_back(Event::response(2, 6, "new"));
  EXPECT_TRUE(both(specs::getput_model(), t).accepted());
}

TEST(Fig1_3, ReorderingExplainedByTheNetworkAccepted) {
  auto t = base_store();
  t.push_back(Event::request(1, 3, put("new")));
  t.push_back(Event::request(2, 5, get()));
  t.push_back(Event::response(1, 4, "Done"));
  t.push_back(Event::response(2, 6, "old"));
  EXPECT_TRUE(both(specs::getput_model(), t).accepted());
}

TEST(Fig1_4, CausalityViolationRejected) {
  auto t = base_store();
  t.push_back(Event::request(1, 3, put("new")));
  t.push_back(Event::response(1, 4, "Done"));
  t.push_back(Event::request(2, 5, get()));
  t.push_back(Event::response(2, 6, "old"));
  Verdict v = both(specs::getput_model(), t);
  ASSERT_EQ(v.status, Verdict::Status::Reject);
  EXPECT_EQ(v.event_index, 5u);
  EXPECT_NE(v.explanation.find("response 6 received on connection 2"), std::string::npos)
      << v.explanation;
  EXPECT_NE(v.explanation.find("expected \"new\", observed \"old\""), std::string::npos)
      << v.explanation;
  // The same as data; a model that names no clauses gives none.
  ASSERT_FALSE(v.reasons.empty());
  for (const Reason& r : v.reasons) {
    EXPECT_EQ(r.kind, Reason::Kind::Mismatch);
    EXPECT_EQ(r.location, "response");
    EXPECT_EQ(r.expected, "\"new\"");
    EXPECT_EQ(r.observed, "\"old\"");
    EXPECT_EQ(r.clause, "");
    EXPECT_FALSE(r.state.empty());
    EXPECT_NE(v.explanation.find("  - " + r.text + "\n"), std::string::npos);
  }
  EXPECT_EQ(v.explanation.find("broke"), std::string::npos);
  EXPECT_EQ(check(specs::getput_model(), t).reasons, v.reasons);
}

// A server that answers "pong" to everything, citing its specification.
Tree pong() {
  return recv(ModelState(0), [](const Request& q) {
    return send(q.conn, Sym::lit("pong"), pong(), "PING §2.1");
  });
}

TEST(Reasons, NameTheClauseOfTheExpectedAnswer) {
  ServerModel m{"ping", [] { return pong(); }, nullptr};
  std::vector<Event> t = {Event::request(1, 1, "ping"), Event::response(1, 2, "pong"),
                          Event::request(1, 3, "ping"), Event::response(1, 4, "pang")};
  Verdict v = both(m, t);
  ASSERT_EQ(v.status, Verdict::Status::Reject);
  ASSERT_EQ(v.reasons.size(), 1u);
  const Reason& r = v.reasons[0];
  EXPECT_EQ(r.kind, Reason::Kind::Mismatch);
  EXPECT_EQ(r.location, "response");
  EXPECT_EQ(r.expected, "\"pong\"");
  EXPECT_EQ(r.observed, "\"pang\"");
  EXPECT_EQ(r.clause, "PING §2.1");
  EXPECT_NE(v.explanation.find("  - broke PING §2.1: response: expected \"pong\", "
                               "observed \"pang\""),
            std::string::npos)
      << v.explanation;
  EXPECT_EQ(check(m, t).reasons, v.reasons);
  Json j = v.reasons;
  EXPECT_EQ(j[0]["clause"], "PING §2.1");
  EXPECT_EQ(j[0]["location"], "response");
  EXPECT_EQ(j[0]["kind"], "mismatch");
  // Accepted traces carry no reasons.
  t.pop_back();
  Verdict ok = both(m, t);
  EXPECT_TRUE(ok.accepted());
  EXPECT_TRUE(ok.reasons.empty());
  EXPECT_TRUE(ok.explanation.empty());
}

// The state a reason shows is the one the server received the request in,
// not the one it would have reached by answering as expected (issue 40: a
// refused PUT was shown the state the PUT would have made).
std::set<std::string> states_of(const Verdict& v) {
  std::set<std::string> out;
  for (const Reason& r : v.reasons) {
    out.insert(r.state);
    EXPECT_NE(r.text.find(" (server state before the request: " + r.state + ")"),
              std::string::npos)
        << r.text;
  }
  return out;
}

TEST(Reasons, ShowTheStateTheServerReceivedTheRequestIn) {
  const std::string empty = "{}", old_value = R"({"\"k\"":"old"})",
                    a = R"({"\"k\"":"a"})", b = R"({"\"k\"":"b"})";
  // A PUT refused: the state before it, "old" (a PUT done would make "new").
  auto t = base_store();
  t.push_back(Event::request(1, 3, put("new")));
  t.push_back(Event::response(1, 4, "Refused"));
  Verdict v = both(specs::getput_model(), t);
  ASSERT_EQ(v.status, Verdict::Status::Reject);
  EXPECT_EQ(states_of(v), std::set<std::string>{old_value}) << v.explanation;
  EXPECT_NE(v.explanation.find("  - response: expected \"Done\", observed \"Refused\" "
                               "(server state before the request: " +
                               old_value + ")\n"),
            std::string::npos)
      << v.explanation;
  EXPECT_EQ(check(specs::getput_model(), t).reasons, v.reasons);
  // Pipelined on one connection: the second PUT was received after the first.
  Verdict piped = both(specs::getput_model(),
                       {Event::request(1, 1, put("a")), Event::request(1, 3, put("b")),
                        Event::response(1, 2, "Done"), Event::response(1, 4, "Refused")});
  ASSERT_EQ(piped.status, Verdict::Status::Reject);
  EXPECT_EQ(states_of(piped), std::set<std::string>{a}) << piped.explanation;
  // A response already in flight when an earlier response was explained:
  // the explanation that took conn 1's PUT first received it in the empty
  // store; the one that takes it now, after conn 2's, in "b". (Their
  // states now: "b" and "a".)
  std::vector<Event> crossed = {Event::request(1, 1, put("a")),
                                Event::request(2, 3, put("b")),
                                Event::response(2, 4, "Done"),
                                Event::response(1, 2, "Refused")};
  Verdict x = both(specs::getput_model(), crossed);
  ASSERT_EQ(x.status, Verdict::Status::Reject);
  EXPECT_EQ(states_of(x), (std::set<std::string>{empty, b})) << x.explanation;
  // The whole-trace check looks ahead: the explanation that took conn 1's
  // PUT first died when it made its answer ("Done", where the trace shows
  // "Refused"), so its reason is the other's alone.
  EXPECT_EQ(states_of(check(specs::getput_model(), crossed)), std::set<std::string>{b});
}

// Issue 40 end to end: a response that may have any of 500 statuses but
// one, answered with that one, is one short reason; the verdicts are those
// of the alternatives.
Tree any_status_but_405() {
  return recv(ModelState(0), [](const Request& q) {
    static const Sym statuses = [] {
      std::vector<Sym> alts;
      for (int c = 100; c <= 599; ++c)
        if (c != 405) alts.push_back(Sym::lit(c));
      return Sym::object({{"status", Sym::alt(std::move(alts))}});
    }();
    return send(q.conn, statuses, any_status_but_405(), "X §1");
  });
}

TEST(Reasons, FiveHundredAlternativesAreOneShortReason) {
  ServerModel m{"statuses", [] { return any_status_but_405(); }, nullptr};
  Verdict v = both(m, {Event::request(1, 1, "q"), Event::response(1, 2, {{"status", 405}})});
  ASSERT_EQ(v.status, Verdict::Status::Reject);
  ASSERT_EQ(v.reasons.size(), 1u);
  const Reason& r = v.reasons[0];
  EXPECT_EQ(r.text,
            "response.status: expected any of 100-599 except 405, observed 405 (server state "
            "before the request: 0)");
  EXPECT_EQ(r.location, "response.status");
  EXPECT_EQ(r.expected, "100-404 or 406-599");
  EXPECT_EQ(r.observed, "405");
  EXPECT_NE(v.explanation.find("  - broke X §1: " + r.text + "\n"), std::string::npos)
      << v.explanation;
  for (int ok : {100, 404, 406, 599})
    EXPECT_TRUE(both(m, {Event::request(1, 1, "q"), Event::response(1, 2, {{"status", ok}})})
                    .accepted())
        << ok;
  EXPECT_FALSE(
      both(m, {Event::request(1, 1, "q"), Event::response(1, 2, {{"status", 600}})}).accepted());
}

TEST(Reasons, GenericReasonsHaveAKindAndPlace) {
  Verdict v = both(specs::getput_model(), {Event::response(1, 2, "Done")});
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0].kind, Reason::Kind::NothingOutstanding);
  EXPECT_EQ(v.reasons[0].location, "connection");
  EXPECT_EQ(v.reasons[0].clause, "");
  // An answer on a connection whose request the server already answered.
  ServerModel m{"ping", [] { return pong(); }, nullptr};
  Verdict twice = both(m, {Event::request(1, 1, "ping"), Event::request(2, 3, "ping"),
                           Event::response(1, 2, "pong"), Event::response(1, 4, "pong")});
  ASSERT_EQ(twice.status, Verdict::Status::Reject);
  bool nothing = false;
  for (const Reason& r : twice.reasons)
    nothing = nothing || r.kind == Reason::Kind::NothingOutstanding;
  EXPECT_TRUE(nothing) << twice.explanation;
  // A limit: Inconclusive, and its reason says so.
  OracleOptions tiny;
  tiny.limits.max_hypotheses = 0;
  Oracle o(m, tiny);
  o.observe(Event::request(1, 1, "ping"));
  Verdict gave_up = o.observe(Event::response(1, 2, "pong"));
  ASSERT_EQ(gave_up.status, Verdict::Status::Inconclusive) << gave_up.explanation;
  ASSERT_EQ(gave_up.reasons.size(), 1u);
  EXPECT_EQ(gave_up.reasons[0].kind, Reason::Kind::Limit);
}

TEST(Oracle, ValueFromNowhereRejected) {
  auto t = base_store();
  t.push_back(Event::request(2, 3, get()));
  t.push_back(Event::response(2, 4, "never-written"));
  EXPECT_EQ(both(specs::getput_model(), t).status, Verdict::Status::Reject);
}

TEST(Oracle, UnsolicitedResponseRejected) {
  std::vector<Event> t = {Event::response(1, 2, "Done")};
  EXPECT_EQ(both(specs::getput_model(), t).status, Verdict::Status::Reject);
}

TEST(Oracle, PipelinedResponsesMustComeInOrder) {
  // Two requests pipelined on one connection: the answers' order is fixed.
  std::vector<Event> ok = {Event::request(1, 1, put("a")), Event::request(1, 3, get()),
                           Event::response(1, 2, "Done"), Event::response(1, 4, "a")};
  EXPECT_TRUE(both(specs::getput_model(), ok).accepted());
  std::vector<Event> swapped = {Event::request(1, 1, put("a")),
                                Event::request(1, 3, get()), Event::response(1, 2, "a"),
                                Event::response(1, 4, "Done")};
  EXPECT_EQ(both(specs::getput_model(), swapped).status, Verdict::Status::Reject);
}

TEST(Oracle, ClosedConnectionRequestMayTakeEffectLater) {
  // The PUT's answer is never seen (connection closed): the server may have
  // processed it, before or after the GETs, or never.
  std::vector<Event> t = {Event::request(1, 1, put("x")), Event::close(1),
                          Event::request(2, 3, get()),    Event::response(2, 4, nullptr),
                          Event::request(2, 5, get()),    Event::response(2, 6, "x"),
                          Event::request(2, 7, get()),    Event::response(2, 8, "x")};
  EXPECT_TRUE(both(specs::getput_model(), t).accepted());
  // ...but once seen, it cannot be unseen.
  t.push_back(Event::request(2, 9, get()));
  t.push_back(Event::response(2, 10, nullptr));
  EXPECT_EQ(both(specs::getput_model(), t).status, Verdict::Status::Reject);
}

TEST(Swap, ManyConnectionsAnyInterleaving) {
  // Four clients swap in values concurrently; the answers must form one
  // chain 0 -> a -> b -> c -> d in some order.
  std::vector<Event> t;
  for (ConnId c = 1; c <= 4; ++c) t.push_back(Event::request(c, 2 * c - 1, int(c * 10)));
  // A possible order: 30, 10, 40, 20: answers 0, 30, 10, 40.
  t.push_back(Event::response(4, 8, 10));
  t.push_back(Event::response(1, 2, 30));
  t.push_back(Event::response(3, 6, 0));
  t.push_back(Event::response(2, 4, 40));
  EXPECT_TRUE(both(specs::swap_model(), t).accepted());
  // Two clients cannot both have swapped with the initial value.
  std::vector<Event> bad;
  for (ConnId c = 1; c <= 3; ++c) bad.push_back(Event::request(c, 2 * c - 1, int(c)));
  bad.push_back(Event::response(1, 2, 0));
  bad.push_back(Event::response(2, 4, 0));
  EXPECT_EQ(both(specs::swap_model(), bad).status, Verdict::Status::Reject);
}

TEST(CmpSet, Deterministic) {
  std::vector<Event> t = {Event::request(1, 1, 5), Event::response(1, 2, 1),
                          Event::request(1, 3, 3), Event::response(1, 4, 0)};
  EXPECT_TRUE(both(specs::cmp_set_model(), t).accepted());
  t[3] = Event::response(1, 4, 1);
  EXPECT_EQ(both(specs::cmp_set_model(), t).status, Verdict::Status::Reject);
}

TEST(CmpRst, HiddenResetDecidedByIntegerReasoning) {
  // After 5 -> 1 the server holds an unknown n. 7 -> 0 reveals n >= 7, so
  // a later 3 -> 1 (3 > n) is impossible.
  std::vector<Event> t = {Event::request(1, 1, 5), Event::response(1, 2, 1),
                          Event::request(1, 3, 7), Event::response(1, 4, 0),
                          Event::request(1, 5, 3)};
  auto ok = t;
  ok.push_back(Event::response(1, 6, 0));
  EXPECT_TRUE(both(specs::cmp_rst_model(), ok).accepted());
  auto bad = t;
  bad.push_back(Event::response(1, 6, 1));
  Oracle o(specs::cmp_rst_model());
  Verdict v;
  for (const Event& e : bad) v = o.observe(e);
  EXPECT_EQ(v.status, Verdict::Status::Reject) << v.explanation;
  EXPECT_EQ(check(specs::cmp_rst_model(), bad).status, Verdict::Status::Reject);
}

TEST(CmpRst, AnyHiddenValueConsistentWithAnswersAccepted) {
  // 5 -> 1 (reset to n), 6 -> 1 means n < 6: fine, n reset again.
  std::vector<Event> t = {Event::request(1, 1, 5),    Event::response(1, 2, 1),
                          Event::request(1, 3, 6),    Event::response(1, 4, 1),
                          Event::request(1, 5, -100), Event::response(1, 6, 0)};
  EXPECT_TRUE(both(specs::cmp_rst_model(), t).accepted());
}

// ETag cases of Fig. 1.1, with the symbolic-ETag model of Fig. 4.5.
Json eput(const char* body, const char* if_match = nullptr) {
  Json q = {{"method", "PUT"}, {"path", "/k"}, {"body", body}};
  if (if_match) q["if-match"] = if_match;
  return q;
}
Json eget(const char* if_none_match = nullptr) {
  Json q = {{"method", "GET"}, {"path", "/k"}};
  if (if_none_match) q["if-none-match"] = if_none_match;
  return q;
}
Json status(int s) { return {{"status", s}}; }
Json ok(const char* tag, const char* body) {
  return {{"status", 200}, {"etag", tag}, {"body", body}};
}

TEST(Etag, IfMatchAfterARevealedTagSucceeds) {
  std::vector<Event> t = {Event::request(1, 1, eput("v1")),
                          Event::response(1, 2, status(200)),
                          Event::request(1, 3, eget()),
                          Event::response(1, 4, ok("\"t1\"", "v1")),
                          Event::request(1, 5, eput("v2", "\"t1\"")),
                          Event::response(1, 6, status(200))};
  EXPECT_TRUE(both(http::etag_put_model(), t).accepted());
  t.back() = Event::response(1, 6, status(412));  // the tag matches: 412 is wrong
  EXPECT_EQ(both(http::etag_put_model(), t).status, Verdict::Status::Reject);
}

TEST(Etag, UnknownTagEitherAnswerIsFineButNotBoth) {
  // The tester has never seen the tag: 412 and 200 are both possible, but
  // 412 then 200 for the same tag without modification is not.
  std::vector<Event> t = {
      Event::request(1, 1, eput("v1")), Event::response(1, 2, status(200)),
      Event::request(1, 3, eput("v2", "\"guess\"")), Event::response(1, 4, status(412))};
  EXPECT_TRUE(both(http::etag_put_model(), t).accepted());
  auto t200 = t;
  t200.back() = Event::response(1, 4, status(200));
  EXPECT_TRUE(both(http::etag_put_model(), t200).accepted());
  t.push_back(Event::request(1, 5, eput("v3", "\"guess\"")));
  t.push_back(Event::response(1, 6, status(200)));
  Verdict v = both(http::etag_put_model(), t);
  EXPECT_EQ(v.status, Verdict::Status::Reject) << v.explanation;
}

TEST(Etag, NotModifiedRequiresTheCurrentTag) {
  std::vector<Event> t = {
      Event::request(1, 1, eput("v1")),     Event::response(1, 2, status(200)),
      Event::request(1, 3, eget()),         Event::response(1, 4, ok("\"t1\"", "v1")),
      Event::request(1, 5, eget("\"t1\"")), Event::response(1, 6, status(304))};
  EXPECT_TRUE(both(http::etag_put_model(), t).accepted());
  t.back() = Event::response(1, 6, ok("\"t1\"", "v1"));  // matched: must be 304
  EXPECT_EQ(both(http::etag_put_model(), t).status, Verdict::Status::Reject);
}

TEST(Etag, StrongTagNeverNamesTwoContents) {
  std::vector<Event> t = {
      Event::request(1, 1, eput("v1")), Event::response(1, 2, status(200)),
      Event::request(1, 3, eget()),     Event::response(1, 4, ok("\"t1\"", "v1")),
      Event::request(1, 5, eput("v2")), Event::response(1, 6, status(200)),
      Event::request(1, 7, eget()),     Event::response(1, 8, ok("\"t1\"", "v2"))};
  EXPECT_EQ(both(http::etag_put_model(), t).status, Verdict::Status::Reject);
  t.back() = Event::response(1, 8, ok("\"t2\"", "v2"));
  EXPECT_TRUE(both(http::etag_put_model(), t).accepted());
}

TEST(Etag, ConcurrentConditionalPutsAtMostOneWins) {
  // Two clients PUT with If-Match of the same revealed tag concurrently: a
  // correct server lets at most one succeed (the first changes the tag).
  std::vector<Event> t = {Event::request(1, 1, eput("v1")),
                          Event::response(1, 2, status(200)),
                          Event::request(1, 3, eget()),
                          Event::response(1, 4, ok("\"t1\"", "v1")),
                          Event::request(1, 5, eput("a", "\"t1\"")),
                          Event::request(2, 7, eput("b", "\"t1\"")),
                          Event::response(2, 8, status(200)),
                          Event::response(1, 6, status(412))};
  EXPECT_TRUE(both(http::etag_put_model(), t).accepted());
  t.back() = Event::response(1, 6, status(200));
  EXPECT_EQ(both(http::etag_put_model(), t).status, Verdict::Status::Reject);
}

}  // namespace
}  // namespace dualfuzz::oracle
