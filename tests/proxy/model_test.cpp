// The proxy model, by oracle events (docs/proxy.md): a correct proxy's
// traces are accepted, whatever the client <-> origin mapping; each broken
// obligation is rejected.
#include "dualfuzz/proxy/model.h"

#include <gtest/gtest.h>

#include "dualfuzz/harness/transport.h"
#include "dualfuzz/proxy/forwarding.h"
#include "dualfuzz/oracle/oracle.h"

namespace dualfuzz::proxy {
namespace {
using oracle::Event;
using oracle::Oracle;
using oracle::Verdict;

constexpr oracle::ConnId kO1 = harness::kFirstAcceptedConn;
constexpr oracle::ConnId kO2 = harness::kFirstAcceptedConn + 1;

Json get(const std::string& path, Json headers = Json::object()) {
  headers["host"] = "o.test";
  return {{"method", "GET"},
          {"path", "http://o.test" + path},
          {"headers", headers},
          {"body", ""}};
}
Json forwarded(const std::string& path, Json headers = Json::object()) {
  headers["host"] = "o.test";
  headers["via"] = "1.1 p";
  return mark_forwarded(
      {{"method", "GET"}, {"path", path}, {"headers", headers}, {"body", ""}});
}
// Answers carry no-transform, as the tester's origin's mostly do: their
// bytes are then the proxy's to pass on unchanged (RFC 9110 §7.7).
Json answer(const std::string& body, Json headers = Json::object()) {
  if (!headers.contains("cache-control")) headers["cache-control"] = "no-transform";
  return {{"status", 200}, {"headers", headers}, {"body", body}};
}
Json relayed(const std::string& body, Json headers = Json::object()) {
  if (!headers.contains("cache-control")) headers["cache-control"] = "no-transform";
  headers["via"] = "1.1 p";
  return mark_forwarded({{"status", 200}, {"headers", headers}, {"body", body}});
}
const Json kAccepted = {{"origin", "accepted"}};

// Feeds events; the verdict of the last.
Verdict play(const std::vector<Event>& events, ModelOptions o = {}) {
  Oracle oracle(model(o));
  Verdict v;
  for (const Event& e : events) v = oracle.observe(e);
  return v;
}

// Two clients, two origin connections, the forwards seen in the order that
// crosses them: the mapping is the oracle's to find.
std::vector<Event> crossed(Json relay_to_c0, Json relay_to_c1) {
  return {Event::request(0, 1, get("/a")),
          Event::request(1, 3, get("/b")),
          Event::request(kO1, 0, kAccepted),
          Event::request(kO2, 0, kAccepted),
          Event::response(kO1, 5, forwarded("/b")),
          Event::response(kO2, 7, forwarded("/a")),
          Event::request(kO1, 6, answer("for b")),
          Event::request(kO2, 8, answer("for a")),
          Event::response(1, 4, std::move(relay_to_c1)),
          Event::response(0, 2, std::move(relay_to_c0))};
}

TEST(ProxyModel, FindsTheHiddenMapping) {
  EXPECT_TRUE(play(crossed(relayed("for a"), relayed("for b"))).accepted());
}

TEST(ProxyModel, RejectsAnAnswerRelayedToTheWrongClient) {
  Verdict v = play(crossed(relayed("for b"), relayed("for a")));
  ASSERT_EQ(v.status, Verdict::Status::Reject);
  EXPECT_NE(v.explanation.find("relayed response"), std::string::npos) << v.explanation;
}

TEST(ProxyModel, ConnectionListedAndHopByHopFieldsMustGo) {
  Json h = {{"connection", "x-hop"}, {"x-hop", "1"}, {"x-e2e", "v"}};
  auto trace = [&](Json fwd_headers) {
    return std::vector<Event>{Event::request(0, 1, get("/a", h)),
                              Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 3, forwarded("/a", fwd_headers))};
  };
  EXPECT_TRUE(play(trace({{"x-e2e", "v"}})).accepted());
  EXPECT_EQ(play(trace({{"x-e2e", "v"}, {"x-hop", "1"}})).status,
            Verdict::Status::Reject);
  // An end-to-end field may not be dropped.
  EXPECT_EQ(play(trace(Json::object())).status, Verdict::Status::Reject);
  // Keep-Alive is hop-by-hop even when Connection does not name it, but
  // then removing it is only a SHOULD (§7.6.1): removed or passed on as is,
  // never changed; named in Connection, it MUST go.
  Json ka = {{"keep-alive", "timeout=5"}};
  auto with_ka = [&](const Json& sent, Json fwd_headers) {
    return std::vector<Event>{Event::request(0, 1, get("/a", sent)),
                              Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 3, forwarded("/a", fwd_headers))};
  };
  EXPECT_TRUE(play(with_ka(ka, Json::object())).accepted());
  EXPECT_TRUE(play(with_ka(ka, ka)).accepted());
  EXPECT_EQ(play(with_ka(ka, {{"keep-alive", "timeout=9"}})).status,
            Verdict::Status::Reject);
  Json listed_ka = {{"connection", "keep-alive"}, {"keep-alive", "timeout=5"}};
  EXPECT_TRUE(play(with_ka(listed_ka, Json::object())).accepted());
  EXPECT_EQ(play(with_ka(listed_ka, ka)).status, Verdict::Status::Reject);
}

// The same on the way back: an unlisted Keep-Alive in the origin's answer
// may be relayed or not; one its Connection names may not.
TEST(ProxyModel, AnUnlistedHopByHopFieldOfTheAnswerMayBeRelayed) {
  auto trace = [](Json answer_headers, Json relayed_headers) {
    return std::vector<Event>{Event::request(0, 1, get("/a")),
                              Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 3, forwarded("/a")),
                              Event::request(kO1, 4, answer("b", answer_headers)),
                              Event::response(0, 2, relayed("b", relayed_headers))};
  };
  const Json ka = {{"keep-alive", "timeout=5"}};
  EXPECT_TRUE(play(trace(ka, Json::object())).accepted());
  EXPECT_TRUE(play(trace(ka, ka)).accepted());
  const Json listed = {{"connection", "keep-alive"}, {"keep-alive", "timeout=5"}};
  EXPECT_TRUE(play(trace(listed, Json::object())).accepted());
  EXPECT_EQ(play(trace(listed, ka)).status, Verdict::Status::Reject);
}

// Range on a method other than GET means nothing (RFC 9110 §14.2: a
// server MUST ignore it): a proxy may drop it (Squid does on PUT), but not
// on GET, and it may not change it.
TEST(ProxyModel, RangeMayBeDroppedOnlyWhereItMeansNothing) {
  const Json range = {{"range", "bytes=0-0"}};
  auto trace = [&](const std::string& method, Json fwd_headers) {
    Json q = get("/a", range);
    q["method"] = method;
    Json f = forwarded("/a", std::move(fwd_headers));
    f["method"] = method;
    return std::vector<Event>{Event::request(0, 1, q), Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 3, f)};
  };
  EXPECT_TRUE(play(trace("PUT", Json::object())).accepted());
  EXPECT_TRUE(play(trace("PUT", range)).accepted());
  EXPECT_EQ(play(trace("PUT", {{"range", "bytes=1-1"}})).status, Verdict::Status::Reject);
  EXPECT_TRUE(play(trace("GET", range)).accepted());
  EXPECT_EQ(play(trace("GET", Json::object())).status, Verdict::Status::Reject);
}

// The proxy is a server to its client: it MAY satisfy a GET's Range from
// the origin's full 200 (RFC 9110 §14.2; Apache does), with the selected
// bytes; not on PUT (a server MUST ignore Range there), and not with other
// bytes.
TEST(ProxyModel, ARangedGetMayBeServedPartiallyByTheProxy) {
  auto trace = [](const std::string& method, Json relay) {
    Json q = get("/a", {{"range", "bytes=1-2"}});
    q["method"] = method;
    Json f = forwarded("/a", {{"range", "bytes=1-2"}});
    f["method"] = method;
    return std::vector<Event>{Event::request(0, 1, q), Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 3, f),
                              Event::request(kO1, 4, answer("abcdef")),
                              Event::response(0, 2, std::move(relay))};
  };
  auto partial = [](const std::string& body) {
    Json r = relayed(body, {{"content-range", "bytes 1-2/6"}});
    r["status"] = 206;
    return r;
  };
  EXPECT_TRUE(play(trace("GET", relayed("abcdef"))).accepted());
  EXPECT_TRUE(play(trace("GET", partial("bc"))).accepted());
  EXPECT_EQ(play(trace("GET", partial("cd"))).status, Verdict::Status::Reject);
  EXPECT_EQ(play(trace("PUT", partial("bc"))).status, Verdict::Status::Reject);
  EXPECT_TRUE(play(trace("PUT", relayed("abcdef"))).accepted());

  // Several ranges: a multipart/byteranges 206 (RFC 9110 §14.6), whose
  // Content-Type is its own; the origin's other fields stay as they were.
  auto two = [](Json relay) {
    Json q = get("/a", {{"range", "bytes=4-5,0-1"}});
    Json f = forwarded("/a", {{"range", "bytes=4-5,0-1"}});
    return std::vector<Event>{
        Event::request(0, 1, q), Event::request(kO1, 0, kAccepted),
        Event::response(kO1, 3, f),
        Event::request(kO1, 4,
                       answer("abcdef", {{"content-type", "text/plain"}, {"x-e2e", "1"}})),
        Event::response(0, 2, std::move(relay))};
  };
  auto multipart = [](Json headers) {
    Json r = relayed("\r\n--b\r\nContent-Range: bytes 4-5/6\r\n\r\nef\r\n--b--\r\n",
                     std::move(headers));
    r["status"] = 206;
    return r;
  };
  EXPECT_TRUE(play(two(multipart({{"content-type", "multipart/byteranges; boundary=b"},
                                  {"x-e2e", "1"}})))
                  .accepted());
  EXPECT_EQ(play(two(multipart({{"content-type", "multipart/byteranges; boundary=b"}})))
                .status,
            Verdict::Status::Reject);

  // A range past the end: the proxy that honours it answers 416 of its own
  // (RFC 9110 §15.5.17; Apache does); not on PUT, and not for a range it
  // could satisfy.
  auto ranged = [](const std::string& method, const std::string& range, Json relay) {
    Json q = get("/a", {{"range", range}});
    q["method"] = method;
    Json f = forwarded("/a", {{"range", range}});
    f["method"] = method;
    return std::vector<Event>{Event::request(0, 1, q), Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 3, f),
                              Event::request(kO1, 4, answer("abcdef")),
                              Event::response(0, 2, std::move(relay))};
  };
  const Json refused = {{"status", 416}, {"headers", Json::object()}, {"body", "no"}};
  EXPECT_TRUE(play(ranged("GET", "bytes=320-", refused)).accepted());
  EXPECT_TRUE(play(ranged("GET", "bytes=320-", relayed("abcdef"))).accepted());
  EXPECT_EQ(play(ranged("GET", "bytes=2-", refused)).status, Verdict::Status::Reject);
  EXPECT_EQ(play(ranged("PUT", "bytes=320-", refused)).status, Verdict::Status::Reject);
  EXPECT_EQ(play(ranged("GET", "items=320-", refused)).status, Verdict::Status::Reject);
  // No range-spec (RFC 9110 §14.1.1: an end that is not digits, a last
  // before the first): ignored (the 200) or rejected (416, §14.2), never
  // read as a range it is not ("1-x" as "1-", "x-5" as the last 5 bytes).
  auto part = [](const std::string& body, const std::string& range) {
    Json r = relayed(body, {{"content-range", range}});
    r["status"] = 206;
    return r;
  };
  for (const char* bad : {"bytes=1-x", "bytes=x-5", "bytes=3-1", "bytes=-"}) {
    EXPECT_TRUE(play(ranged("GET", bad, relayed("abcdef"))).accepted()) << bad;
    EXPECT_TRUE(play(ranged("GET", bad, refused)).accepted()) << bad;
  }
  EXPECT_EQ(play(ranged("GET", "bytes=1-x", part("bcdef", "bytes 1-5/6"))).status,
            Verdict::Status::Reject);
  EXPECT_EQ(play(ranged("GET", "bytes=x-5", part("bcdef", "bytes 1-5/6"))).status,
            Verdict::Status::Reject);
  EXPECT_TRUE(play(ranged("GET", "bytes=1-", part("bcdef", "bytes 1-5/6"))).accepted());
  EXPECT_TRUE(play(ranged("GET", "bytes=-5", part("bcdef", "bytes 1-5/6"))).accepted());
}

TEST(ProxyModel, ViaIsAddedBothWays) {
  Json no_via = forwarded("/a");
  no_via["headers"].erase("via");
  no_via.erase("via");
  EXPECT_EQ(play({Event::request(0, 1, get("/a")), Event::request(kO1, 0, kAccepted),
                  Event::response(kO1, 3, no_via)})
                .status,
            Verdict::Status::Reject);
  Json bare = mark_forwarded(
      {{"status", 200}, {"headers", {{"cache-control", "no-transform"}}}, {"body", "x"}});
  std::vector<Event> t = {
      Event::request(0, 1, get("/a")), Event::request(kO1, 0, kAccepted),
      Event::response(kO1, 3, forwarded("/a")), Event::request(kO1, 4, answer("x")),
      Event::response(0, 2, bare)};
  EXPECT_EQ(play(t).status, Verdict::Status::Reject);
  // A gateway MAY leave Via out of responses (RFC 9110 §7.6.3).
  Json plain = get("/a");
  plain["path"] = "/a";
  Json fwd = forwarded("/a");
  t[0] = Event::request(0, 1, plain);
  t[2] = Event::response(kO1, 3, fwd);
  EXPECT_TRUE(play(t, {.mode = Mode::Reverse}).accepted());
}

TEST(ProxyModel, MaxForwards) {
  Json trace0 = get("/t", {{"max-forwards", "0"}});
  trace0["method"] = "TRACE";
  // Answered by the proxy, whatever it says...
  EXPECT_TRUE(
      play({Event::request(0, 1, trace0),
            Event::response(0, 2, {{"status", 405}, {"headers", Json::object()}})})
          .accepted());
  // ... never forwarded; a forward is told the clause it broke.
  Json fwd0 = forwarded("/t", {{"max-forwards", "0"}});
  fwd0["method"] = "TRACE";
  const Verdict sent = play({Event::request(0, 1, trace0), Event::request(kO1, 0, kAccepted),
                             Event::response(kO1, 3, fwd0)});
  EXPECT_EQ(sent.status, Verdict::Status::Reject);
  bool named = false;
  for (const oracle::Reason& r : sent.reasons)
    named = named || r.clause.starts_with("RFC 9110 §7.6.2");
  EXPECT_TRUE(named);
  // Forwarded before an origin connection existed, or after the proxy's own
  // answer: the same.
  EXPECT_EQ(play({Event::request(0, 1, trace0),
                  Event::response(0, 2, {{"status", 200}, {"headers", Json::object()}}),
                  Event::request(kO1, 0, kAccepted), Event::response(kO1, 3, fwd0)})
                .status,
            Verdict::Status::Reject);
  Json opt2 = get("/t", {{"max-forwards", "2"}});
  opt2["method"] = "OPTIONS";
  auto fwd = [](std::string n) {
    Json f = forwarded("/t", {{"max-forwards", n}});
    f["method"] = "OPTIONS";
    return f;
  };
  auto t = [&](std::string n) {
    return std::vector<Event>{Event::request(0, 1, opt2),
                              Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 3, fwd(n))};
  };
  EXPECT_TRUE(play(t("1")).accepted());
  EXPECT_EQ(play(t("2")).status, Verdict::Status::Reject);
  // "the lesser of" n - 1 and the proxy's own maximum: a proxy whose maximum
  // is 0 forwards 0; never more than n - 1, never a value that is no number.
  EXPECT_TRUE(play(t("0")).accepted());
  EXPECT_EQ(play(t("3")).status, Verdict::Status::Reject);
  EXPECT_EQ(play(t("-1")).status, Verdict::Status::Reject);
}

// "A proxy, whether or not it implements a cache, MUST pass cache directives
// through in forwarded messages" (RFC 9111 §5.2): each directive with its
// argument, both ways. A cache may add its own (Squid adds max-age=259200 to
// the requests it forwards): no clause forbids it.
TEST(ProxyModel, CacheDirectivesPassThroughAndMayBeAddedTo) {
  auto ahead = [](Json client, Json origin) {
    return play({Event::request(0, 1, get("/a", std::move(client))),
                 Event::request(kO1, 0, kAccepted),
                 Event::response(kO1, 3, forwarded("/a", std::move(origin)))});
  };
  const Json nt = {{"cache-control", "no-transform"}};
  EXPECT_TRUE(ahead(nt, nt).accepted());
  EXPECT_TRUE(ahead(nt, {{"cache-control", "no-transform, max-age=259200"}}).accepted());
  EXPECT_TRUE(ahead(Json::object(), {{"cache-control", "max-age=259200"}}).accepted());
  // Directives compare case-insensitively; an argument quoted or not.
  EXPECT_TRUE(
      ahead({{"cache-control", "Max-Age=60"}}, {{"cache-control", "max-age=\"60\""}})
          .accepted());
  EXPECT_EQ(ahead(nt, {{"cache-control", "max-age=259200"}}).status,
            Verdict::Status::Reject);
  EXPECT_EQ(ahead(nt, Json::object()).status, Verdict::Status::Reject);
  EXPECT_EQ(ahead({{"cache-control", "max-age=60"}}, {{"cache-control", "max-age=0"}})
                .status,
            Verdict::Status::Reject);
  // An unknown directive too ("regardless of their significance").
  EXPECT_EQ(ahead({{"cache-control", "v1"}}, {{"cache-control", "max-age=259200"}}).status,
            Verdict::Status::Reject);

  auto back = [](Json origin, Json client) {
    return play({Event::request(0, 1, get("/a")), Event::request(kO1, 0, kAccepted),
                 Event::response(kO1, 3, forwarded("/a")),
                 Event::request(kO1, 4, answer("x", std::move(origin))),
                 Event::response(0, 2, relayed("x", std::move(client)))});
  };
  const Json fixed = {{"cache-control", "no-transform, max-age=60"}};
  EXPECT_TRUE(back(fixed, fixed).accepted());
  EXPECT_TRUE(back(fixed, {{"cache-control", "no-transform, max-age=60, private"}})
                  .accepted());
  EXPECT_EQ(back(fixed, {{"cache-control", "no-transform"}}).status,
            Verdict::Status::Reject);
  EXPECT_EQ(back(fixed, {{"cache-control", "no-transform, max-age=0"}}).status,
            Verdict::Status::Reject);
}

// Max-Forwards on a method other than TRACE and OPTIONS: "A recipient MAY
// ignore" it (RFC 9110 §7.6.2): passed on as is, decremented, or dropped
// (Squid drops it); never another value.
TEST(ProxyModel, MaxForwardsOnOtherMethodsMayBeIgnored) {
  auto trace = [](Json fwd_headers) {
    Json q = get("/a", {{"max-forwards", "2"}});
    q["method"] = "PATCH";
    Json f = forwarded("/a", std::move(fwd_headers));
    f["method"] = "PATCH";
    return play({Event::request(0, 1, q), Event::request(kO1, 0, kAccepted),
                 Event::response(kO1, 3, f)});
  };
  EXPECT_TRUE(trace({{"max-forwards", "2"}}).accepted());
  EXPECT_TRUE(trace({{"max-forwards", "1"}}).accepted());
  EXPECT_TRUE(trace(Json::object()).accepted());
  EXPECT_EQ(trace({{"max-forwards", "3"}}).status, Verdict::Status::Reject);
  EXPECT_EQ(trace({{"max-forwards", "x"}}).status, Verdict::Status::Reject);
}

// RFC 9112 §3.2.4: OPTIONS http://o.test (no path, no query) reaches the
// origin as OPTIONS * from the last proxy; with a path or a query it keeps
// them.
TEST(ProxyModel, AnOptionsWithAnEmptyPathIsForwardedAsAsterisk) {
  auto options = [](const std::string& target) {
    return Json{{"method", "OPTIONS"},
                {"path", target},
                {"headers", {{"host", "o.test"}}},
                {"body", ""}};
  };
  auto forwarded_as = [](const std::string& path) {
    Json f = forwarded(path);
    f["method"] = "OPTIONS";
    return f;
  };
  auto t = [&](const std::string& target, const std::string& path) {
    return play({Event::request(0, 1, options(target)), Event::request(kO1, 0, kAccepted),
                 Event::response(kO1, 3, forwarded_as(path))});
  };
  EXPECT_TRUE(t("http://o.test", "*").accepted());
  EXPECT_EQ(t("http://o.test", "/").status, Verdict::Status::Reject);
  EXPECT_TRUE(t("http://o.test/", "/").accepted());
  EXPECT_EQ(t("http://o.test/", "*").status, Verdict::Status::Reject);
  EXPECT_TRUE(t("http://o.test?q", "/?q").accepted());
}

TEST(ProxyModel, ResponsesInRequestOrderPerClient) {
  std::vector<Event> t = {
      Event::request(0, 1, get("/a")),          Event::request(0, 3, get("/b")),
      Event::request(kO1, 0, kAccepted),        Event::request(kO2, 0, kAccepted),
      Event::response(kO1, 5, forwarded("/a")), Event::response(kO2, 7, forwarded("/b")),
      Event::request(kO2, 8, answer("for b")),  Event::request(kO1, 6, answer("for a"))};
  auto in_order = t;
  in_order.push_back(Event::response(0, 2, relayed("for a")));
  in_order.push_back(Event::response(0, 4, relayed("for b")));
  EXPECT_TRUE(play(in_order).accepted());
  t.push_back(Event::response(0, 2, relayed("for b")));
  EXPECT_EQ(play(t).status, Verdict::Status::Reject);
}

TEST(ProxyModel, RefusalsOnlyWhenAllowed) {
  std::vector<Event> t = {
      Event::request(0, 1, get("/a")),
      Event::response(0, 2, {{"status", 403}, {"headers", Json::object()}})};
  EXPECT_EQ(play(t).status, Verdict::Status::Reject);
  EXPECT_TRUE(play(t, {.refusals = true}).accepted());
  // A refused request is never forwarded.
  t.push_back(Event::request(kO1, 0, kAccepted));
  t.push_back(Event::response(kO1, 3, forwarded("/a")));
  EXPECT_EQ(play(t, {.refusals = true}).status, Verdict::Status::Reject);
}

Json status(int code) { return {{"status", code}, {"headers", Json::object()}}; }
Json post(const std::string& path) {
  Json q = get(path);
  q["method"] = "POST";
  q["body"] = "x";
  return q;
}

// A proxy process's origin connections can fail under it (the tester closes
// them between executions; a pooled one it has not yet seen closed takes
// the request, which it MUST NOT retry when it is not idempotent, RFC 9112
// §9.3.1): a 502 or 504 instead of a forward is its right there.
TEST(ProxyModel, ALostForwardGets502Or504InAProxyProcess) {
  for (int code : {502, 504}) {
    std::vector<Event> t = {Event::request(0, 1, post("/a")),
                            Event::response(0, 2, status(code))};
    EXPECT_EQ(play(t).status, Verdict::Status::Reject) << code;
    EXPECT_TRUE(play(t, {.lost_forwards = true}).accepted()) << code;
  }
  // Not any error: a 500 is the proxy's own failure.
  std::vector<Event> t = {Event::request(0, 1, get("/a")),
                          Event::response(0, 2, status(500))};
  EXPECT_EQ(play(t, {.lost_forwards = true}).status, Verdict::Status::Reject);
  // And a lost request is never relayed something else: its 502 is what the
  // client gets, in its turn.
  std::vector<Event> order = {Event::request(0, 1, get("/a")),
                              Event::request(0, 3, get("/b")),
                              Event::request(kO1, 0, kAccepted),
                              Event::response(kO1, 5, forwarded("/b")),
                              Event::request(kO1, 6, answer("for b")),
                              Event::response(0, 2, relayed("for b"))};
  EXPECT_EQ(play(order, {.lost_forwards = true}).status, Verdict::Status::Reject);
  order.back() = Event::response(0, 2, status(502));
  order.push_back(Event::response(0, 4, relayed("for b")));
  EXPECT_TRUE(play(order, {.lost_forwards = true}).accepted());
}

// A proxy process may refuse by policy (RFC 9110 §15.5, §15.6): access
// (403, 451), authentication (401, 407, each with the challenge it MUST
// carry), limits (413, 414, 431), load (429, 503); to a method other than
// GET and HEAD also 405 (with Allow), 411, 417 and 501. Not 400 to the
// tester's well-formed requests, nor 500, nor 405/501 to GET (§9.1).
TEST(ProxyModel, APolicyRefusalInAProxyProcessCarriesWhatItsStatusMust) {
  auto refused = [](Json q, Json answer) {
    return std::vector<Event>{Event::request(0, 1, std::move(q)),
                              Event::response(0, 2, mark_forwarded(std::move(answer)))};
  };
  auto with = [](int code, const char* field) {
    Json a = status(code);
    a["headers"][field] = "x";
    return a;
  };
  for (int code : {403, 413, 414, 429, 431, 451, 503}) {
    EXPECT_TRUE(
        play(refused(get("/a"), status(code)), {.lost_forwards = true}).accepted())
        << code;
    // In process the reference proxy forwards everything.
    EXPECT_EQ(play(refused(get("/a"), status(code))).status, Verdict::Status::Reject)
        << code;
  }
  for (auto [code, field] :
       {std::pair{401, "www-authenticate"}, std::pair{407, "proxy-authenticate"}}) {
    EXPECT_TRUE(
        play(refused(get("/a"), with(code, field)), {.lost_forwards = true}).accepted())
        << code;
    EXPECT_EQ(play(refused(get("/a"), status(code)), {.lost_forwards = true}).status,
              Verdict::Status::Reject)
        << code << " without " << field;
  }
  EXPECT_TRUE(
      play(refused(post("/a"), with(405, "allow")), {.lost_forwards = true}).accepted());
  EXPECT_EQ(play(refused(post("/a"), status(405)), {.lost_forwards = true}).status,
            Verdict::Status::Reject);
  for (int code : {411, 417, 501})
    EXPECT_TRUE(
        play(refused(post("/a"), status(code)), {.lost_forwards = true}).accepted())
        << code;
  for (int code : {405, 411, 417, 501})
    EXPECT_EQ(
        play(refused(get("/a"), with(code, "allow")), {.lost_forwards = true}).status,
        Verdict::Status::Reject)
        << code << " to GET";
  for (int code : {400, 500})
    EXPECT_EQ(play(refused(post("/a"), status(code)), {.lost_forwards = true}).status,
              Verdict::Status::Reject)
        << code;
  // A refused request is never forwarded.
  std::vector<Event> t = refused(get("/a"), status(403));
  t.push_back(Event::request(kO1, 0, kAccepted));
  t.push_back(Event::response(kO1, 3, forwarded("/a")));
  EXPECT_EQ(play(t, {.lost_forwards = true}).status, Verdict::Status::Reject);
}

// What the RFC leaves a proxy free to refuse with a status of its own
// choosing: content in a GET, HEAD or DELETE (RFC 9110 §9.3.1, §9.3.2,
// §9.3.5: Squid's 411), Max-Forwards 0 on another method than TRACE and
// OPTIONS (§7.6.2 MAY ignore: Apache's 400). Without the content, or with
// Max-Forwards 1, the same status is a violation.
TEST(ProxyModel, ContentInAGetAndMaxForwardsZeroMayBeRefusedAnyWay) {
  auto refused = [](Json q, int code) {
    return std::vector<Event>{Event::request(0, 1, std::move(q)),
                              Event::response(0, 2, mark_forwarded(status(code)))};
  };
  auto with_body = [](Json q) {
    q["body"] = "hello";
    return q;
  };
  Json del = get("/a");
  del["method"] = "DELETE";
  for (const Json& q : {get("/a"), del}) {
    EXPECT_TRUE(play(refused(with_body(q), 411), {.lost_forwards = true}).accepted())
        << q.dump();
    EXPECT_TRUE(play(refused(with_body(q), 400), {.lost_forwards = true}).accepted())
        << q.dump();
    // A 5xx is no rejection of the request; without content, 411 is none.
    EXPECT_EQ(play(refused(with_body(q), 500), {.lost_forwards = true}).status,
              Verdict::Status::Reject)
        << q.dump();
    EXPECT_EQ(play(refused(q, q["method"] == "GET" ? 411 : 400), {.lost_forwards = true})
                  .status,
              Verdict::Status::Reject)
        << q.dump();
  }
  // Content a client MUST NOT send (TRACE, §9.3.8), or without the
  // Content-Type it MUST carry (OPTIONS, §9.3.7): any client error too.
  Json trace = with_body(get("/a")), options = with_body(get("/a"));
  trace["method"] = "TRACE";
  options["method"] = "OPTIONS";
  EXPECT_TRUE(play(refused(trace, 400), {.lost_forwards = true}).accepted());
  EXPECT_TRUE(play(refused(options, 400), {.lost_forwards = true}).accepted());
  options["headers"]["content-type"] = "text/plain";
  EXPECT_EQ(play(refused(options, 400), {.lost_forwards = true}).status,
            Verdict::Status::Reject);
  auto hops = [](Json q, const char* n) {
    q["headers"]["max-forwards"] = n;
    return q;
  };
  for (int code : {400, 502, 508}) {
    EXPECT_TRUE(
        play(refused(hops(post("/a"), "0"), code), {.lost_forwards = true}).accepted())
        << code;
    EXPECT_EQ(play(refused(hops(post("/a"), "1"), code), {.lost_forwards = true}).status,
              code == 502 ? Verdict::Status::Accept : Verdict::Status::Reject)
        << code;
  }
  // A 2xx of its own is no refusal; in process nothing is refused.
  EXPECT_EQ(play(refused(hops(post("/a"), "0"), 200), {.lost_forwards = true}).status,
            Verdict::Status::Reject);
  EXPECT_EQ(play(refused(with_body(get("/a")), 411)).status, Verdict::Status::Reject);
}

// However wide the refusals (content in a GET, Max-Forwards: 0, or
// DUALFUZZ_PROXY_REFUSALS), a status that MUST carry a field carries it:
// 401 WWW-Authenticate, 405 Allow, 407 Proxy-Authenticate, 426 Upgrade.
TEST(ProxyModel, AnOpenRefusalCarriesWhatItsStatusMust) {
  auto refused = [](Json q, int code, const char* field) {
    Json r = status(code);
    if (field) r["headers"][field] = field == std::string("allow") ? "GET" : "Basic";
    return std::vector<Event>{Event::request(0, 1, std::move(q)),
                              Event::response(0, 2, mark_forwarded(std::move(r)))};
  };
  Json content = get("/a");
  content["body"] = "hello";
  Json hops = post("/a");
  hops["headers"]["max-forwards"] = "0";
  for (const auto& [code, field] :
       {std::pair{401, "www-authenticate"}, std::pair{405, "allow"},
        std::pair{407, "proxy-authenticate"}, std::pair{426, "upgrade"}}) {
    for (const Json& q : {content, hops}) {
      EXPECT_TRUE(play(refused(q, code, field), {.lost_forwards = true}).accepted())
          << code << q.dump();
      EXPECT_EQ(play(refused(q, code, nullptr), {.lost_forwards = true}).status,
                Verdict::Status::Reject)
          << code << q.dump();
    }
    EXPECT_TRUE(play(refused(get("/a"), code, field), {.refusals = true}).accepted())
        << code;
    EXPECT_EQ(play(refused(get("/a"), code, nullptr), {.refusals = true}).status,
              Verdict::Status::Reject)
        << code;
  }
}

// The origin hangs up without answering (the tester's {"abort": true}):
// the proxy answers 502 (or 504) of its own, or forwards an idempotent
// request again; a non-idempotent one it MUST NOT retry (RFC 9110 §9.2.2),
// in process as over TCP.
TEST(ProxyModel, WhatTheOriginHungUpOnIsAnswered502OrRetriedIfIdempotent) {
  const Json abort = {{"abort", true}};
  auto lost = [&](Json q, Json forward) {
    return std::vector<Event>{
        Event::request(0, 1, std::move(q)), Event::request(kO1, 0, kAccepted),
        Event::response(kO1, 3, std::move(forward)), Event::request(kO1, 4, abort)};
  };
  Json post_forward = forwarded("/a");
  post_forward["method"] = "POST";
  post_forward["body"] = "x";
  // WebDAV's UNLOCK is idempotent, its LOCK is not (the HTTP Method
  // Registry; Squid retries an UNLOCK).
  auto webdav = [](const char* m) {
    Json q = get("/a"), f = forwarded("/a");
    q["method"] = f["method"] = m;
    return std::pair{q, f};
  };
  for (const bool process : {false, true}) {
    const ModelOptions o{.lost_forwards = process};
    for (auto [q, fwd] :
         {std::pair{get("/a"), forwarded("/a")}, std::pair{post("/a"), post_forward},
          webdav("UNLOCK"), webdav("LOCK")}) {
      const bool idempotent = q["method"] == "GET" || q["method"] == "UNLOCK";
      auto t = lost(q, fwd);
      t.push_back(Event::response(0, 2, status(502)));
      EXPECT_TRUE(play(t, o).accepted()) << q["method"];
      // Not relayed as if it had been answered.
      t.back() = Event::response(0, 2, relayed("for a"));
      EXPECT_EQ(play(t, o).status, Verdict::Status::Reject) << q["method"];
      // Forwarded again on another connection: a retry.
      t.pop_back();
      t.push_back(Event::request(kO2, 0, kAccepted));
      t.push_back(Event::response(kO2, 5, fwd));
      if (idempotent) {
        t.push_back(Event::request(kO2, 6, answer("for a")));
        t.push_back(Event::response(0, 2, relayed("for a")));
        EXPECT_TRUE(play(t, o).accepted()) << q["method"] << " retried";
      } else {
        const Verdict v = play(t, o);
        EXPECT_EQ(v.status, Verdict::Status::Reject) << q["method"] << " retried";
        // Named by the clause it breaks (Pending::forbidden), not only as a
        // forward nothing outstanding explains.
        EXPECT_NE(v.explanation.find("§9.2.2"), std::string::npos) << v.explanation;
        // Retried after another request came: still wrong.
        auto later = lost(q, fwd);
        later.push_back(Event::request(0, 9, get("/b")));
        later.push_back(Event::request(kO2, 0, kAccepted));
        later.push_back(Event::response(kO2, 5, fwd));
        EXPECT_EQ(play(later, o).status, Verdict::Status::Reject)
            << q["method"] << " later";
      }
    }
  }
}

// Forwarded, and the proxy gave up waiting just before the origin's answer
// came: a 504 (or 502) where the relay was due. (A 504 seen before the
// tester answered is not accepted: the tester answers within its message
// timeout, which a proxy's origin timeout must exceed, docs/proxy.md.)
TEST(ProxyModel, AProxyThatGaveUpJustBeforeTheAnswerMaySend504) {
  std::vector<Event> t = {Event::request(0, 1, get("/a")),
                          Event::request(kO1, 0, kAccepted),
                          Event::response(kO1, 3, forwarded("/a")),
                          Event::request(kO1, 4, answer("late")),
                          Event::response(0, 2, status(504))};
  EXPECT_EQ(play(t).status, Verdict::Status::Reject);
  EXPECT_TRUE(play(t, {.lost_forwards = true}).accepted());
  // Any other answer of its own instead of the relay is still wrong.
  t.back() = Event::response(0, 2, relayed("other"));
  EXPECT_EQ(play(t, {.lost_forwards = true}).status, Verdict::Status::Reject);
  t.back() = Event::response(0, 2, status(500));
  EXPECT_EQ(play(t, {.lost_forwards = true}).status, Verdict::Status::Reject);
}

TEST(ProxyModel, ReusesAnOriginConnectionAfterItsAnswer) {
  std::vector<Event> t = {
      Event::request(0, 1, get("/a")),         Event::request(1, 3, get("/b")),
      Event::request(kO1, 0, kAccepted),       Event::response(kO1, 5, forwarded("/b")),
      Event::request(kO1, 6, answer("for b")), Event::response(kO1, 7, forwarded("/a")),
      Event::request(kO1, 8, answer("for a")), Event::response(0, 2, relayed("for a")),
      Event::response(1, 4, relayed("for b"))};
  EXPECT_TRUE(play(t).accepted());
  // Not before: one request at a time per origin connection in this trace
  // means the second forward followed the first answer; a second forward
  // of the same request is not explained.
  t[5] = Event::response(kO1, 7, forwarded("/b"));
  EXPECT_EQ(play(t).status, Verdict::Status::Reject);
}

// RFC 9110 §7.7: without no-transform a proxy MAY transform the content
// (and say so with a 203 for a 200); with it, it MUST NOT. A request's
// content likewise, by its own no-transform (RFC 9111 §5.2.1.6).
TEST(ProxyModel, ContentIsTransformedOnlyWithoutNoTransform) {
  auto relay = [](Json origin_answer, Json to_client) {
    return play({Event::request(0, 1, get("/a")), Event::request(kO1, 0, kAccepted),
                 Event::response(kO1, 3, forwarded("/a")),
                 Event::request(kO1, 4, std::move(origin_answer)),
                 Event::response(0, 2, std::move(to_client))});
  };
  const Json plain = {{"cache-control", "max-age=60"}, {"content-type", "text/plain"}};
  Json squeezed = relayed("FOR A", {{"cache-control", "max-age=60"},
                                    {"content-type", "text/html"}});
  EXPECT_TRUE(relay(answer("for a", plain), squeezed).accepted());
  squeezed["status"] = 203;
  EXPECT_TRUE(relay(answer("for a", plain), squeezed).accepted());
  // Not a 203 for what was no 200, nor any other status.
  Json moved = relayed("FOR A", {{"cache-control", "max-age=60"}});
  moved["status"] = 203;
  Json not_found = answer("for a", plain);
  not_found["status"] = 404;
  EXPECT_EQ(relay(not_found, moved).status, Verdict::Status::Reject);
  moved["status"] = 500;
  EXPECT_EQ(relay(answer("for a", plain), moved).status, Verdict::Status::Reject);
  // The other end-to-end fields stay as they were.
  EXPECT_EQ(relay(answer("for a", plain), relayed("FOR A", {{"cache-control", "no-store"}}))
                .status,
            Verdict::Status::Reject);
  // With no-transform: the bytes and the status as they came.
  const Json fixed = {{"cache-control", "no-transform, max-age=60"}};
  EXPECT_TRUE(relay(answer("for a", fixed), relayed("for a", fixed)).accepted());
  EXPECT_EQ(relay(answer("for a", fixed), relayed("FOR A", fixed)).status,
            Verdict::Status::Reject);
  Json marked = relayed("for a", fixed);
  marked["status"] = 203;
  EXPECT_EQ(relay(answer("for a", fixed), marked).status, Verdict::Status::Reject);
  // A HEAD's answer has no content, but describes the GET's: a proxy that
  // would transform that may say so in the HEAD's answer too (its 203, its
  // representation's fields), never with no-transform (varied proxy's
  // `transform`).
  auto head = [](Json origin_answer, Json to_client) {
    Json q = get("/a");
    q["method"] = "HEAD";
    Json f = forwarded("/a");
    f["method"] = "HEAD";
    return play({Event::request(0, 1, q), Event::request(kO1, 0, kAccepted),
                 Event::response(kO1, 3, f), Event::request(kO1, 4, std::move(origin_answer)),
                 Event::response(0, 2, std::move(to_client))});
  };
  Json head_marked = relayed("", {{"cache-control", "max-age=60"}, {"content-type", "text/html"}});
  head_marked["status"] = 203;
  EXPECT_TRUE(head(answer("for a", plain), head_marked).accepted());
  head_marked = relayed("", fixed);
  head_marked["status"] = 203;
  EXPECT_EQ(head(answer("for a", fixed), head_marked).status, Verdict::Status::Reject);
  head_marked["status"] = 200;
  EXPECT_TRUE(head(answer("for a", fixed), head_marked).accepted());

  // A request's content.
  auto post = [](Json headers) {
    Json q = get("/p", std::move(headers));
    q["method"] = "POST";
    q["body"] = "data";
    return q;
  };
  auto sent_on = [&](Json q, const std::string& body, Json headers) {
    Json f = forwarded("/p", std::move(headers));
    f["method"] = "POST";
    f["body"] = body;
    return play({Event::request(0, 1, std::move(q)), Event::request(kO1, 0, kAccepted),
                 Event::response(kO1, 3, std::move(f))});
  };
  EXPECT_TRUE(sent_on(post({}), "DATA", {}).accepted());
  const Json keep = {{"cache-control", "no-transform"}};
  EXPECT_TRUE(sent_on(post(keep), "data", keep).accepted());
  EXPECT_EQ(sent_on(post(keep), "DATA", keep).status, Verdict::Status::Reject);
}

}  // namespace
}  // namespace dualfuzz::proxy
