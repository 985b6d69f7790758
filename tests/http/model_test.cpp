// The HTTP/1.1 model's verdicts on hand-written traces, both directions.
#include "dualfuzz/http/model.h"

#include <gtest/gtest.h>

#include <ctime>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "dualfuzz/http/byte_range.h"
#include "dualfuzz/http/heuristics.h"
#include "dualfuzz/oracle/oracle.h"
#include "messages.h"

namespace dualfuzz::http {
namespace {
using oracle::Event;
using oracle::Json;
using oracle::Verdict;

const long long kT0 = 1'700'000'000;
// These tests judge a store that takes writes (Assumptions::writable, as
// the evaluation's WebDAV servers): what any server may refuse instead is
// tested in assumptions_test.cpp.
oracle::ServerModel store_model(Consistency c = Consistency::Atomic) {
  return server_model(c, {.writable = true});
}

using test::req;
using test::resp;
Json tagged(const char* etag, long long t = kT0) {
  return {{"etag", etag}, {"last-modified", format_http_date(t)}, {"server", "test"}};
}

// A trace on one connection: request, response, request, response, ...
Verdict run(const std::vector<std::pair<Json, Json>>& exchanges) {
  const std::vector<Event> t = test::one_connection(exchanges);
  const Verdict v = test::judged(store_model(), t);
  // One connection, so no two requests overlap: the weaker consistencies
  // (a write over an interval) judge it alike, both ways.
  for (Consistency c : {Consistency::Interval, Consistency::Torn}) {
    const Verdict weaker = test::online(store_model(c), t);
    EXPECT_EQ(weaker.status, v.status)
        << "consistency " << static_cast<int>(c) << ": " << weaker.explanation;
  }
  return v;
}
bool accepted(const std::vector<std::pair<Json, Json>>& x) { return run(x).accepted(); }

TEST(HttpModel, CreateThenGet) {
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201, tagged("\"1\""))},
                        {req("GET", "/a"), resp(200, tagged("\"1\""), "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201, tagged("\"1\""))},
                         {req("GET", "/a"), resp(200, tagged("\"1\""), "y")}}));
  // Creation must be 201 (RFC 9110 §9.3.4).
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(204)}}));
}

TEST(HttpModel, ReplaceMay200Or204) {
  for (int s : {200, 204})
    EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                          {req("PUT", "/a", {}, "y"), resp(s)},
                          {req("GET", "/a"), resp(200, tagged("\"2\""), "y")}}));
  EXPECT_FALSE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("PUT", "/a", {}, "y"), resp(201)}}));
}

TEST(HttpModel, MissingIs404AndDeleteRemoves) {
  EXPECT_TRUE(accepted({{req("GET", "/nope"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("GET", "/nope"), resp(200, {}, "")}}));
  EXPECT_FALSE(accepted({{req("GET", "/nope"), resp(403)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("DELETE", "/a"), resp(204)},
                        {req("GET", "/a"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("DELETE", "/a"), resp(204)},
                         {req("GET", "/a"), resp(200, tagged("\"1\""), "x")}}));
}

TEST(HttpModel, IfMatchStrongComparison) {
  auto base = std::vector<std::pair<Json, Json>>{
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a"), resp(200, tagged("\"t1\""), "x")}};
  auto ok = base;
  ok.push_back({req("PUT", "/a", {{"if-match", "\"t1\""}}, "y"), resp(204)});
  EXPECT_TRUE(accepted(ok));
  auto bad = base;
  bad.push_back({req("PUT", "/a", {{"if-match", "\"t1\""}}, "y"), resp(412)});
  EXPECT_FALSE(accepted(bad));
  auto list = base;
  list.push_back({req("PUT", "/a", {{"if-match", "\"zz\", \"t1\""}}, "y"), resp(200)});
  EXPECT_TRUE(accepted(list));
  // A weak tag never matches strongly: If-Match W/"w" must fail.
  auto weak = std::vector<std::pair<Json, Json>>{
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a"), resp(200, tagged("W/\"w\""), "x")},
      {req("PUT", "/a", {{"if-match", "W/\"w\""}}, "y"), resp(204)}};
  EXPECT_FALSE(accepted(weak));
  weak.back().second = resp(412);
  EXPECT_TRUE(accepted(weak));
}

TEST(HttpModel, UnknownTagThen412Then200IsContradictory) {
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("PUT", "/a", {{"if-match", "\"g\""}}, "y"), resp(412)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("PUT", "/a", {{"if-match", "\"g\""}}, "y"), resp(412)},
                         {req("PUT", "/a", {{"if-match", "\"g\""}}, "y"), resp(204)}}));
}

// RFC 9110 §13.1.1 (and §13.1.4 in the same words): with a false If-Match
// the server "MUST NOT perform the requested method", but "if the request is
// a state-changing operation that appears to have already been applied to
// the selected representation, the origin server MAY respond with a 2xx".
// nginx 1.22 answered such a PUT (the same empty content again) 204.
TEST(HttpModel, FalsePreconditionOnAChangeAlreadyInPlaceMayBe2xx) {
  const auto base = std::vector<std::pair<Json, Json>>{
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a"), resp(200, tagged("\"1\""), "x")}};
  auto same = base;
  same.push_back({req("PUT", "/a", {{"if-match", "\"2\""}}, "x"), resp(204)});
  EXPECT_TRUE(accepted(same));
  auto ius = base;
  ius.push_back(
      {req("PUT", "/a", {{"if-unmodified-since", format_http_date(kT0 - 10)}}, "x"),
       resp(200)});
  EXPECT_TRUE(accepted(ius));
  // Not performed: the representation and its tag stay.
  auto after = same;
  after.push_back({req("GET", "/a"), resp(200, tagged("\"1\""), "x")});
  EXPECT_TRUE(accepted(after));
  // Performed anyway: a new tag for it afterwards gives it away.
  after.back().second = resp(200, tagged("\"3\""), "x");
  EXPECT_FALSE(accepted(after));
  // Other content is not a change already in place.
  auto other = base;
  other.push_back({req("PUT", "/a", {{"if-match", "\"2\""}}, "y"), resp(204)});
  EXPECT_FALSE(accepted(other));
  // Nothing is in place on a missing resource.
  EXPECT_FALSE(accepted({{req("PUT", "/b", {{"if-match", "\"1\""}}, ""), resp(204)}}));
  // If-None-Match has no such clause (§13.1.2: 412 for other methods).
  auto inm = base;
  inm.push_back({req("PUT", "/a", {{"if-none-match", "*"}}, "x"), resp(204)});
  EXPECT_FALSE(accepted(inm));
}

TEST(HttpModel, IfNoneMatchWeakComparison) {
  auto base = std::vector<std::pair<Json, Json>>{
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a"), resp(200, tagged("\"t1\""), "x")}};
  auto hit = base;
  hit.push_back({req("GET", "/a", {{"if-none-match", "W/\"t1\""}}), resp(304)});
  EXPECT_TRUE(accepted(hit));
  hit.back().second = resp(200, tagged("\"t1\""), "x");
  EXPECT_FALSE(accepted(hit));
  auto put = base;  // not GET/HEAD: 412
  put.push_back({req("PUT", "/a", {{"if-none-match", "*"}}, "y"), resp(412)});
  EXPECT_TRUE(accepted(put));
  put.back().second = resp(204);
  EXPECT_FALSE(accepted(put));
  // If-None-Match: * on a missing resource: create.
  EXPECT_TRUE(accepted({{req("PUT", "/b", {{"if-none-match", "*"}}, "x"), resp(201)}}));
}

TEST(HttpModel, StrongTagNeverReusedForNewContent) {
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("GET", "/a"), resp(200, tagged("\"1\""), "x")},
                         {req("PUT", "/a", {}, "y"), resp(204)},
                         {req("GET", "/a"), resp(200, tagged("\"1\""), "y")}}));
  // Weak tags may be shared by equivalent representations.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("GET", "/a"), resp(200, tagged("W/\"1\""), "x")},
                        {req("PUT", "/a", {}, "y"), resp(204)},
                        {req("GET", "/a"), resp(200, tagged("W/\"1\""), "y")}}));
}

TEST(HttpModel, LastModifiedNeverGoesBackButMayRepeat) {
  auto trace = [](long long t1, long long t2) {
    return std::vector<std::pair<Json, Json>>{
        {req("PUT", "/a", {}, "x"), resp(201)},
        {req("GET", "/a"), resp(200, tagged("\"1\"", t1), "x")},
        {req("PUT", "/a", {}, "y"), resp(204)},
        {req("GET", "/a"), resp(200, tagged("\"2\"", t2), "y")}};
  };
  EXPECT_TRUE(accepted(trace(kT0, kT0)));  // same second
  EXPECT_TRUE(accepted(trace(kT0, kT0 + 5)));
  EXPECT_FALSE(accepted(trace(kT0, kT0 - 1)));
}

std::string asctime_date(long long seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

TEST(HttpModel, IfUnmodifiedSinceAndIfModifiedSince) {
  auto base = std::vector<std::pair<Json, Json>>{
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a"), resp(200, tagged("\"1\"", kT0), "x")}};
  auto ius = base;
  ius.push_back(
      {req("PUT", "/a", {{"if-unmodified-since", format_http_date(kT0 - 10)}}, "y"),
       resp(204)});
  EXPECT_FALSE(accepted(ius));
  ius.back().second = resp(412);
  EXPECT_TRUE(accepted(ius));
  // An obsolete date format is a date (RFC 9110 §5.6.7: "A recipient that
  // parses a timestamp value in an HTTP field MUST accept all three
  // HTTP-date formats"), not an invalid value to ignore.
  auto obs = base;
  obs.push_back({req("PUT", "/a", {{"if-unmodified-since", asctime_date(kT0 - 10)}}, "y"),
                 resp(204)});
  EXPECT_FALSE(accepted(obs));
  obs.back().second = resp(412);
  EXPECT_TRUE(accepted(obs));
  auto ims = base;
  ims.push_back(
      {req("GET", "/a", {{"if-modified-since", format_http_date(kT0 + 10)}}), resp(304)});
  EXPECT_TRUE(accepted(ims));
  ims.back().second = resp(200, tagged("\"1\"", kT0), "x");  // ignoring IMS is allowed
  EXPECT_TRUE(accepted(ims));
  auto wrong = base;  // modified after the date: 304 is wrong
  wrong.push_back(
      {req("GET", "/a", {{"if-modified-since", format_http_date(kT0 - 10)}}), resp(304)});
  EXPECT_FALSE(accepted(wrong));
}

// Every reason of a rejection names where the response went wrong and the
// RFC clause of the answer the explanation expected instead.
TEST(HttpModel, ReasonsNameTheFieldAndTheClause) {
  const auto base = std::vector<std::pair<Json, Json>>{
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a"), resp(200, tagged("\"1\"", kT0), "x")}};
  auto all_are = [](const Verdict& v, const char* location, const char* expected,
                    const char* observed, const char* clause) {
    EXPECT_EQ(v.status, Verdict::Status::Reject) << v.explanation;
    EXPECT_FALSE(v.reasons.empty());
    for (const oracle::Reason& r : v.reasons) {
      EXPECT_EQ(r.kind, oracle::Reason::Kind::Mismatch) << r.text;
      EXPECT_EQ(r.location, location) << r.text;
      EXPECT_EQ(r.expected, expected) << r.text;
      EXPECT_EQ(r.observed, observed) << r.text;
      EXPECT_EQ(r.clause, clause) << r.text;
      EXPECT_NE(v.explanation.find(std::string("  - broke ") + clause + ": " + r.text),
                std::string::npos)
          << v.explanation;
    }
  };
  // A PUT of new content with a false If-Match, performed.
  auto if_match = base;
  if_match.push_back({req("PUT", "/a", {{"if-match", "\"2\""}}, "y"), resp(204)});
  all_are(run(if_match), "response.status", "412", "204", "RFC 9110 §13.1.1");
  // With a false If-Unmodified-Since.
  auto ius = base;
  ius.push_back(
      {req("PUT", "/a", {{"if-unmodified-since", format_http_date(kT0 - 10)}}, "y"),
       resp(204)});
  all_are(run(ius), "response.status", "412", "204", "RFC 9110 §13.1.4");
  // A PUT with If-None-Match: * on an existing resource.
  auto inm = base;
  inm.push_back({req("PUT", "/a", {{"if-none-match", "*"}}, "y"), resp(204)});
  all_are(run(inm), "response.status", "412", "204", "RFC 9110 §13.1.2");
  // A 304 for a representation modified after the date: the GET's answer
  // was due.
  auto ims = base;
  ims.push_back(
      {req("GET", "/a", {{"if-modified-since", format_http_date(kT0 - 10)}}), resp(304)});
  all_are(run(ims), "response.status", "200", "304", "RFC 9110 §9.3.1");
  // A GET of a missing resource answered 200.
  all_are(run({{req("GET", "/b"), resp(200, tagged("\"1\""), "x")}}), "response.status",
          "404", "200", "RFC 9110 §15.5.5");
  // Accepted traces: no reasons.
  auto ok = base;
  ok.push_back({req("PUT", "/a", {{"if-match", "\"1\""}}, "y"), resp(204)});
  Verdict v = run(ok);
  EXPECT_TRUE(v.accepted()) << v.explanation;
  EXPECT_TRUE(v.reasons.empty());
}

TEST(HttpModel, IfModifiedSinceStillAppliesAfterASuccessfulIfMatch) {
  // RFC 9110 §13.2.2: If-Match true -> step 3 -> step 4. Found by the fuzzer
  // as a false alarm against the correct reference server.
  auto base = std::vector<std::pair<Json, Json>>{
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a"), resp(200, tagged("\"1\"", kT0), "x")}};
  base.push_back(
      {req("GET", "/a",
           {{"if-match", "\"1\""}, {"if-modified-since", format_http_date(kT0 + 100)}}),
       resp(304)});
  EXPECT_TRUE(accepted(base));
}

TEST(HttpModel, MethodsAndOddPaths) {
  EXPECT_TRUE(accepted({{req("POST", "/a"), resp(405, {{"allow", "GET"}})}}));
  EXPECT_FALSE(accepted({{req("POST", "/a"), resp(405)}}));  // no Allow (§15.5.6)
  EXPECT_TRUE(accepted({{req("BREW", "/a"), resp(501)}}));
  // POST may create its target (RFC 9110 §9.3.3): a 2xx is no violation.
  EXPECT_TRUE(accepted({{req("POST", "/a"), resp(200)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a/../b", {}, "x"), resp(400)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/plain", {}, "x"), resp(400)}}));
  // A path that is not plain may name another resource ("/%61" is "/a" to
  // a server that decodes escapes) or none: any answer. Found against
  // lighttpd 1.4.69 by hand; the generator sends plain paths only.
  for (const char* odd : {"/%61", "/./a", "/b/../a", "/a?x=1", "/a/", "//a"}) {
    EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                          {req("GET", odd), resp(200, tagged("\"1\""), "x")}}))
        << odd;
    EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                          {req("GET", odd), resp(404)},
                          {req("GET", odd), resp(200, tagged("\"1\""), "x")}}))
        << odd;
    // ...and a read of one leaves the plain paths judged as before.
    EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                           {req("GET", odd), resp(200, tagged("\"1\""), "x")},
                           {req("GET", "/a"), resp(404)}}))
        << odd;
  }
}

// Found against real servers (scripts/subjects/campaign.sh), both directions.
TEST(HttpModel, RealServerLatitude) {
  // POST /missing: 404 is as correct as 405 (Apache, nginx, lighttpd) ...
  EXPECT_TRUE(accepted({{req("POST", "/a"), resp(404)}}));
  // ... but not once the resource exists.
  EXPECT_FALSE(
      accepted({{req("PUT", "/a", {}, "x"), resp(201)}, {req("POST", "/a"), resp(404)}}));
  // POST to an existing static resource may answer like a GET (Apache) ...
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("POST", "/a"), resp(200, Json::object(), "x")},
                        {req("GET", "/a"), resp(200, Json::object(), "x")}}));
  // ... or change it as its own semantics say (§9.3.3): the model no
  // longer knows the state, until a PUT pins it again.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("POST", "/a"), resp(200, Json::object(), "x")},
                        {req("GET", "/a"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("POST", "/a"), resp(200, Json::object(), "x")},
                         {req("PUT", "/a", {}, "y"), resp(200)},
                         {req("GET", "/a"), resp(200, Json::object(), "x")}}));
  // Preconditions apply to POST's 2xx too (Apache: 412) ...
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("POST", "/a", {{"if-none-match", "*"}}), resp(412)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201, tagged("\"1\""))},
                         {req("POST", "/a", {{"if-none-match", "\"zz\""}}), resp(412)}}));
  // ... and If-Unmodified-Since without a representation may fail (Apache).
  EXPECT_TRUE(
      accepted({{req("PUT", "/a", {{"if-unmodified-since", format_http_date(kT0)}}, "x"),
                 resp(412)}}));
  EXPECT_FALSE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)},
       {req("PUT", "/a", {{"if-unmodified-since", "not a date"}}, "y"), resp(412)}}));
  // Content in a GET may be refused with 400 (RFC 9110 §9.3.1; lighttpd) ...
  EXPECT_TRUE(accepted({{req("GET", "/a", {}, "hello"), resp(400)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("DELETE", "/a", {}, "x"), resp(400)},
                        {req("GET", "/a"), resp(200, Json::object(), "x")}}));
  // ... but a GET without content may not, and the refusal changes nothing.
  EXPECT_FALSE(accepted({{req("GET", "/a"), resp(400)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("DELETE", "/a", {}, "x"), resp(400)},
                         {req("GET", "/a"), resp(404)}}));
  // An ETag shown on the 201 may be left out of a GET (SHOULD, §8.8.3) ...
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201, tagged("\"1\""))},
                        {req("GET", "/a"), resp(200, Json::object(), "x")},
                        {req("GET", "/a"), resp(200, tagged("\"1\""), "x")}}));
  // ... but a different strong tag for the same representation is wrong.
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201, tagged("\"1\""))},
                         {req("GET", "/a"), resp(200, Json::object(), "x")},
                         {req("GET", "/a"), resp(200, tagged("\"2\""), "x")}}));
  // A malformed If-Match may be ignored (nginx: `If-Match: null`) or refused;
  // a well-formed one that does not match may not be ignored.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {{"if-match", "null"}}, "x"), resp(201)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {{"if-match", "null"}}, "x"), resp(400)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {{"if-match", "null"}}, "x"), resp(412)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {{"if-match", "\"1\""}}, "x"), resp(201)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {{"if-match", "\"1\""}}, "x"), resp(400)}}));
  // A PUT below a missing parent collection may fail with 409 (RFC 4918
  // §9.7.1: Apache), changing nothing; a top-level one may not.
  EXPECT_TRUE(accepted(
      {{req("PUT", "/a/b", {}, "x"), resp(409)}, {req("GET", "/a/b"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a/b", {}, "x"), resp(409)},
                         {req("GET", "/a/b"), resp(200, Json::object(), "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(409)}}));
  // nginx refuses content in a DELETE with 415.
  EXPECT_TRUE(accepted({{req("DELETE", "/a", {}, "x"), resp(415)}}));
  // Content in a GET, HEAD or DELETE "might lead some implementations to
  // reject the request" (RFC 9110 §9.3.1): no status is named, so any client
  // error (Squid: 411), changing nothing; a 411 without content is wrong, a
  // rejection that deleted is too.
  EXPECT_TRUE(accepted({{req("GET", "/a", {}, "x"), resp(411)}}));
  EXPECT_TRUE(accepted({{req("HEAD", "/a", {}, "x"), resp(422)}}));
  // Any client error, each with the field its status MUST carry
  // (status_fields.h): a 407 without Proxy-Authenticate, a 426 without
  // Upgrade are wrong.
  EXPECT_TRUE(
      accepted({{req("GET", "/a", {}, "x"), resp(407, {{"proxy-authenticate", "B"}})}}));
  EXPECT_FALSE(accepted({{req("GET", "/a", {}, "x"), resp(407)}}));
  EXPECT_TRUE(accepted({{req("GET", "/a", {}, "x"), resp(426, {{"upgrade", "h2c"}})}}));
  EXPECT_FALSE(accepted({{req("GET", "/a", {}, "x"), resp(426)}}));
  EXPECT_FALSE(accepted({{req("GET", "/a"), resp(411)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("DELETE", "/a", {}, "x"), resp(411)},
                         {req("GET", "/a"), resp(404)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("DELETE", "/a", {}, "x"), resp(411)},
                        {req("GET", "/a"), resp(200, Json::object(), "x")}}));
}

TEST(HttpModel, ConcurrentIfMatchPutsAtMostOneWins) {
  Json tag = "\"t1\"";
  std::vector<Event> t = {
      Event::request(1, 1, req("PUT", "/a", {}, "x")),
      Event::response(1, 2, resp(201)),
      Event::request(1, 3, req("GET", "/a")),
      Event::response(1, 4, resp(200, tagged("\"t1\""), "x")),
      Event::request(1, 5, req("PUT", "/a", {{"if-match", tag}}, "p")),
      Event::request(2, 7, req("PUT", "/a", {{"if-match", tag}}, "q")),
      Event::response(2, 8, resp(204)),
      Event::response(1, 6, resp(412))};
  EXPECT_TRUE(oracle::check(store_model(), t).accepted());
  t.back() = Event::response(1, 6, resp(204));
  EXPECT_EQ(oracle::check(store_model(), t).status, Verdict::Status::Reject);
}

TEST(HttpModel, ClosedConnectionQueueIsProcessedInOrderLater) {
  // A client sends DELETE then PUT on c0 and closes it unanswered; the
  // server may process both later, after a HEAD on c1 saw 404. Found as a
  // false alarm by fuzzing a TCP server (subsumption compared queue suffixes).
  std::vector<Event> t = {Event::open(0),
                          Event::request(0, 1, req("DELETE", "/a/b")),
                          Event::request(0, 3, req("PUT", "/a/b")),
                          Event::close(0),
                          Event::open(1),
                          Event::request(1, 7, req("HEAD", "/a/b")),
                          Event::open(64),
                          Event::request(64, 5, req("PUT", "/a/b")),
                          Event::response(1, 8, resp(404)),
                          Event::response(64, 6, resp(204))};
  oracle::Oracle o(store_model());
  for (const Event& e : t) o.observe(e);
  EXPECT_TRUE(o.verdict().accepted()) << o.verdict().explanation;
  EXPECT_TRUE(oracle::check(store_model(), t).accepted());
}

TEST(HttpModel, UnansweredRequestsOfAConnectionTheServerClosed) {
  // lighttpd 1.4.69, one connection: PUT "", POST, PUT "bb", POST pipelined;
  // the server answers the first two and closes the connection. A PUT never
  // answered may or may not have been applied. On a new connection, HEAD
  // with If-None-Match naming the first tag (weakly) gets 200, then GET gets
  // the first content: no correct server does both (the tag still matched,
  // so the HEAD had to be 304, RFC 9110 §13.1.2), but each alone is fine.
  auto trace = [](Json head_headers, const char* get_body) {
    return std::vector<Event>{
        Event::open(0), Event::request(0, 5, req("PUT", "/doc", {}, "")),
        Event::request(0, 17, req("POST", "/doc", {}, "YbbbY")),
        Event::request(0, 9, req("PUT", "/doc", {}, "bb")),
        // (A POST there, as sent to lighttpd, may have changed the resource
        // unanswered, RFC 9110 §9.3.3: a GET keeps the test on the PUT.)
        Event::request(0, 19, req("GET", "/doc")),
        Event::response(0, 6, resp(201, {{"etag", "\"3809000258\""}})),
        // (lighttpd answered 200; a POST may change the resource, RFC 9110
        // §9.3.3, which is not what this test is about: refused here.)
        Event::response(0, 18, resp(405, {{"allow", "GET"}})), Event::close(0),
        Event::open(64), Event::request(64, 15, req("HEAD", "/doc", head_headers)),
        Event::request(64, 41, req("GET", "/doc")), Event::response(64, 16, resp(200)),
        Event::response(64, 42, resp(200, Json::object(), get_body))};
  };
  auto verdict = [](const std::vector<Event>& t) {
    oracle::Oracle o(store_model());
    for (const Event& e : t) o.observe(e);
    EXPECT_EQ(o.verdict().status, oracle::check(store_model(), t).status);
    return o.verdict();
  };
  const Json inm = {{"if-none-match", "W/\"3809000258\""}};
  // An answer never sent may have been a 202 (RFC 9110 §15.3.3: the PUT
  // accepted, enacted at a time of the server's choosing): what the path
  // holds after it is then unknown, and both answers can be.
  EXPECT_TRUE(verdict(trace(inm, "")).accepted());
  // Answered, the PUT is known done: then no correct server does both (the
  // tag still matched, so the HEAD had to be 304, RFC 9110 §13.1.2).
  auto answered = trace(inm, "");
  answered.insert(answered.begin() + 7, Event::response(0, 10, resp(204)));
  EXPECT_EQ(verdict(answered).status, Verdict::Status::Reject);
  // The unanswered PUT was never applied: the first content, HEAD 200.
  EXPECT_TRUE(verdict(trace(Json::object(), "")).accepted());
  // It was applied: a new tag (If-None-Match no longer matches) and "bb".
  EXPECT_TRUE(verdict(trace(inm, "bb")).accepted());
}

// IMF-fixdates are decoded by position, not by strptime; they must mean
// what strptime + timegm make of them, including the edge cases (Feb 29,
// a day past the month's end, out-of-range fields, names in any case).
TEST(HttpModel, FixdateAgreesWithStrptime) {
  auto reference = [](const std::string& s) -> std::optional<long long> {
    std::tm tm{};
    const char* end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (!end || *end != '\0') return std::nullopt;
    return static_cast<long long>(timegm(&tm));
  };
  const char* const days[] = {"Mon", "Tue", "Wed", "Thu", "Fri",
                              "Sat", "Sun", "sun", "XYZ"};
  const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
                                "Aug", "Sep", "Oct", "Nov", "Dec", "feb", "Foo"};
  std::mt19937_64 rng(7);
  std::size_t valid = 0;
  for (int i = 0; i < 20000; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[rng() % 9],
                  static_cast<int>(rng() % 33), months[rng() % 14],
                  static_cast<int>(1890 + rng() % 250), static_cast<int>(rng() % 26),
                  static_cast<int>(rng() % 62), static_cast<int>(rng() % 63));
    const auto want = reference(buf);
    valid += want.has_value();
    ASSERT_EQ(parse_http_date(buf), want) << buf;
  }
  EXPECT_GT(valid, 5000u);  // both outcomes are exercised
  EXPECT_EQ(parse_http_date("Thu, 29 Feb 1996 23:59:60 GMT"),
            reference("Thu, 29 Feb 1996 23:59:60 GMT"));
  EXPECT_EQ(parse_http_date("Mon, 31 Feb 2023 00:00:00 GMT"),
            reference("Mon, 31 Feb 2023 00:00:00 GMT"));
}

TEST(HttpModel, Dates) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
  EXPECT_EQ(format_http_date(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
  // RFC 9110 §5.6.7: the obsolete formats must be accepted too.
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), 784111777);
  EXPECT_EQ(parse_http_date("Sun Nov 06 08:49:37 1994"), 784111777);
  EXPECT_FALSE(parse_http_date("garbage"));
  EXPECT_FALSE(parse_http_date("not a date"));
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC"));
  EXPECT_FALSE(parse_http_date("Sun, 6 Nov 1994 08:49:37 GMT"));
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT "));
  EXPECT_FALSE(
      parse_http_date("Sun, 06-Nov-94 08:49:37 GMT"));  // rfc850 needs the full name
  EXPECT_FALSE(parse_http_date("Sunday, 06-Nov-1994 08:49:37 GMT"));
  EXPECT_FALSE(parse_http_date("Sun Nov  6 08:49:37 1994 GMT"));
}

// Generation heuristics (http_heuristics.cpp): enough variety to reach
// framing and storage corners, and validators taken from the trace.
using harness::string_field;
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(HttpHeuristics, BodiesOfManyLengthsAndPathsRelatedToKnownOnes) {
  harness::Protocol::Context ctx;
  ctx.earlier.push_back(
      harness::Jexp::object({{"method", harness::Jexp::scalar("PUT")},
                             {"path", harness::Jexp::scalar("/Docs/Item")}}));
  ctx.earlier_labels.push_back(1);
  std::mt19937_64 rng(3);
  std::map<std::size_t, std::set<std::string>> by_length;
  int long_bodies = 0, same_path = 0, other_case = 0, child = 0;
  for (int i = 0; i < 3000; ++i) {
    harness::Jexp q = generate_request(rng, ctx);
    std::string body = string_field(q, "body"), path = string_field(q, "path");
    by_length[body.size()].insert(body);
    long_bodies += body.size() >= 16;
    same_path += path == "/Docs/Item";
    other_case += path != "/Docs/Item" && lower(path) == "/docs/item";
    child += path.rfind("/Docs/Item/", 0) == 0;
  }
  EXPECT_GT(long_bodies, 20);
  EXPECT_GT(by_length[6].size(), 2u) << "different bodies of one length";
  EXPECT_GT(same_path, 1000) << "most requests revisit a known resource";
  EXPECT_GT(other_case, 20);
  EXPECT_GT(child, 20);
}

TEST(HttpHeuristics, ValidatorReferencesPreferTheLatestResponseOnThePath) {
  harness::Protocol::Context ctx;
  for (auto [label, path] :
       {std::pair<harness::Label, const char*>{1, "/a"}, {3, "/b"}, {5, "/a"}}) {
    ctx.earlier.push_back(harness::Jexp::object({{"method", harness::Jexp::scalar("PUT")},
                                                 {"path", harness::Jexp::scalar(path)}}));
    ctx.earlier_labels.push_back(label);
  }
  std::mt19937_64 rng(4);
  std::map<harness::Label, int> refs;  // for requests on /a
  for (int i = 0; i < 3000; ++i) {
    harness::Jexp q = generate_request(rng, ctx);
    if (string_field(q, "path") != "/a") continue;
    for (const auto& r : harness::references(q)) ++refs[r.label];
  }
  EXPECT_GT(refs[6], 2 * refs[2]) << "the latest response on /a carries its current tag";
  EXPECT_GT(refs[6], 2 * refs[4]);
  EXPECT_GT(refs[2] + refs[4], 0) << "older and other responses still appear";
}

// ---- WebDAV (RFC 4918) ----------------------------------------------------
Json dest(const char* path) {
  return {{"destination", std::string("http://localhost") + path}};
}

TEST(HttpModelDav, PropfindIsSafe) {
  // §9.1: safe, so the content stays; a 207 on an existing resource.
  EXPECT_TRUE(
      accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                {req("PROPFIND", "/a", {{"depth", "0"}}), resp(207, {}, "<xml/>")},
                {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("PROPFIND", "/a"), resp(207)},
                         {req("GET", "/a"), resp(200, {}, "y")}}));
  // No properties of a missing resource, and an existing one is no 404.
  EXPECT_TRUE(accepted({{req("PROPFIND", "/nope"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("PROPFIND", "/nope"), resp(207)}}));
  EXPECT_FALSE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("PROPFIND", "/a"), resp(404)}}));
  // A server without WebDAV refuses it.
  EXPECT_TRUE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("PROPFIND", "/a"), resp(405)}}));
}

TEST(HttpModelDav, ProppatchKeepsContentNotValidators) {
  // §8.8: the ETag SHOULD NOT change, so it may; the content may not.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201, tagged("\"1\""))},
                        {req("PROPPATCH", "/a", {}, "<p/>"), resp(207)},
                        {req("GET", "/a"), resp(200, tagged("\"2\"", kT0 + 5), "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("PROPPATCH", "/a", {}, "<p/>"), resp(207)},
                         {req("GET", "/a"), resp(200, {}, "")}}));
  // Nothing to patch on a missing resource: a refusal, or a 207 whose
  // property statuses say so (webdav-server 2.6.3), after which the model
  // no longer knows the path; never a success status of its own.
  EXPECT_TRUE(accepted({{req("PROPPATCH", "/nope", {}, "<p/>"), resp(207)}}));
  EXPECT_FALSE(accepted({{req("PROPPATCH", "/nope", {}, "<p/>"), resp(200)}}));
}

TEST(HttpModelDav, MkcolOnlyOnUnmappedThenPinnedByDelete) {
  // §9.3.1: MKCOL on an existing resource is 405.
  EXPECT_FALSE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("MKCOL", "/a"), resp(201)}}));
  EXPECT_TRUE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("MKCOL", "/a"), resp(405)}}));
  // A collection: whatever GET shows of it; a DELETE of it pins the state.
  EXPECT_TRUE(accepted({{req("MKCOL", "/c"), resp(201)},
                        {req("GET", "/c"), resp(301, {{"location", "/c/"}})},
                        {req("PUT", "/c", {}, "x"), resp(409)},
                        {req("DELETE", "/c"), resp(204)},
                        {req("GET", "/c"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("MKCOL", "/c"), resp(201)},
                         {req("DELETE", "/c"), resp(204)},
                         {req("GET", "/c"), resp(200, {}, "")}}));
}

TEST(HttpModelDav, DeleteOfACollectionRemovesItsMembers) {
  // §9.6.1: "the DELETE method on a collection MUST act as if a 'Depth:
  // infinity' header was used on it".
  EXPECT_TRUE(accepted({{req("MKCOL", "/c"), resp(201)},
                        {req("PUT", "/c/d", {}, "x"), resp(201)},
                        {req("DELETE", "/c"), resp(204)},
                        {req("GET", "/c/d"), resp(404)}}));
  // Without a collection, no such link: /c/d stays.
  EXPECT_FALSE(accepted({{req("PUT", "/c/d", {}, "x"), resp(201)},
                         {req("DELETE", "/c"), resp(404)},
                         {req("GET", "/c/d"), resp(404)}}));
}

// Paths keep their hierarchy on real servers, and the RFCs give a server
// latitude below a file and above a write: a file may serve the paths below
// it as path info (lighttpd answers GET /f/g with /f's content), and a PUT
// may make its missing parent collections (nginx's create_full_put_path:
// GET /m is then a 301 to the directory). A write refused with a 4xx
// changed neither.
TEST(HttpModelDav, PathsBelowAFileAndAboveAWriteAreTheServers) {
  EXPECT_TRUE(accepted({{req("PUT", "/f", {}, "x"), resp(201)},
                        {req("GET", "/f/g"), resp(200, {}, "x")},
                        {req("PUT", "/f/g", {}, "y"), resp(500)},
                        {req("DELETE", "/f/g"), resp(403)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/m/n", {}, "x"), resp(201)},
                        {req("GET", "/m"), resp(301, {{"location", "/m/"}})},
                        {req("PUT", "/m", {}, "y"), resp(409)},
                        {req("GET", "/m/n"), resp(200, {}, "x")}}));
  // ...but only there: a sibling of the write is still missing, the write's
  // own path is still exact, and a refused write leaves the paths it might
  // have reached as they were.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("PUT", "/a/b", {}, "y"), resp(400)},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_TRUE(accepted({{req("GET", "/m"), resp(404)},
                        {req("PUT", "/m/n", {}, "x"), resp(409)},
                        {req("GET", "/m"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/m/n", {}, "x"), resp(201)},
                         {req("GET", "/m/o"), resp(200, {}, "")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/m/n", {}, "x"), resp(201)},
                         {req("GET", "/m/n"), resp(200, {}, "y")}}));
  EXPECT_FALSE(accepted({{req("GET", "/m"), resp(404)},
                         {req("PUT", "/m/n", {}, "x"), resp(409)},
                         {req("GET", "/m"), resp(200, {}, "")}}));
  EXPECT_FALSE(accepted(
      {{req("PUT", "/m/n", {}, "x"), resp(409)}, {req("GET", "/m"), resp(200, {}, "")}}));
  EXPECT_FALSE(accepted({{req("GET", "/f/g"), resp(404)},
                         {req("PUT", "/f", {{"if-match", "\"1\""}}, "x"), resp(412)},
                         {req("GET", "/f/g"), resp(200, {}, "x")}}));
}

// A write below a file, refused with a 4xx, reaches the file's partition,
// where it changed nothing: the file's other writes are judged as before.
// (Against Apache 2.4: two concurrent PUTs of a new file both answered 201,
// its known concurrent-creates class, and a PUT below it answered 400.)
TEST(HttpModelDav, AWriteBelowAFileRefusedConcurrently) {
  std::vector<Event> t = {
      Event::request(2, 93, req("PUT", "/a")), Event::request(2, 95, req("PUT", "/a/b")),
      Event::request(1, 27, req("PUT", "/a")), Event::response(1, 28, resp(204)),
      Event::response(2, 94, resp(201)),       Event::response(2, 96, resp(400))};
  const Verdict v = oracle::check(store_model(), t);
  EXPECT_TRUE(v.accepted()) << v.explanation;
  oracle::Oracle o(store_model());
  for (const Event& e : t) o.observe(e);
  EXPECT_TRUE(o.verdict().accepted()) << o.verdict().explanation;
  t[3] = Event::response(1, 28, resp(201));  // both created it
  EXPECT_EQ(oracle::check(store_model(), t).status, Verdict::Status::Reject);
}

TEST(HttpModelDav, CopyAndMoveWriteTheDestination) {
  // §9.8: the destination gets the source's content, existing or not.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("COPY", "/a", dest("/b")), resp(201)},
                        {req("GET", "/b"), resp(200, {}, "x")},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("PUT", "/b", {}, "y"), resp(201)},
                        {req("COPY", "/a", dest("/b")), resp(204)},
                        {req("GET", "/b"), resp(200, {}, "x")}}));
  // COPY only reads its source.
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("COPY", "/a", dest("/b")), resp(201)},
                         {req("GET", "/a"), resp(404)}}));
  // No source, nothing to copy.
  EXPECT_FALSE(accepted({{req("COPY", "/a", dest("/b")), resp(201)}}));
  // §9.9.4: after a 201 or 204 to MOVE the source is gone.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("MOVE", "/a", dest("/b")), resp(201)},
                        {req("GET", "/a"), resp(404)},
                        {req("GET", "/b"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("MOVE", "/a", dest("/b")), resp(201)},
                         {req("GET", "/a"), resp(200, {}, "x")}}));
  // A refused MOVE moved nothing.
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("MOVE", "/a", dest("/b")), resp(412)},
                         {req("GET", "/a"), resp(404)}}));
  // Once pinned by a PUT, the destination is checked again.
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("COPY", "/a", dest("/b")), resp(201)},
                         {req("PUT", "/b", {}, "z"), resp(204)},
                         {req("GET", "/b"), resp(200, {}, "x")}}));
}

TEST(HttpModelDav, LockedWritesMayBeRefused) {
  // §7: a write lock prevents writes without its token: 423 (§11.3),
  // nothing changed.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("LOCK", "/a", {}, "<l/>"), resp(200)},
                        {req("PUT", "/a", {}, "y"), resp(423)},
                        {req("DELETE", "/a"), resp(423)},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("PUT", "/a", {}, "y"), resp(423)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("LOCK", "/a", {}, "<l/>"), resp(200)},
                         {req("PUT", "/a", {}, "y"), resp(423)},
                         {req("GET", "/a"), resp(200, {}, "y")}}));
  // §7.3: a LOCK of an unmapped URL makes an empty resource.
  EXPECT_TRUE(accepted({{req("LOCK", "/n", {}, "<l/>"), resp(201)},
                        {req("GET", "/n"), resp(200, {}, "")}}));
  // A lock on a collection with Depth: infinity covers new members.
  EXPECT_TRUE(accepted({{req("MKCOL", "/c"), resp(201)},
                        {req("LOCK", "/c", {{"depth", "infinity"}}, "<l/>"), resp(200)},
                        {req("PUT", "/c/e", {}, "x"), resp(423)}}));
  // §10.4: an If header whose state lists all fail: 412.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {{"if", "(<urn:x>)"}}, "x"), resp(412)}}));
  // A malformed If may be refused (RFC 9110 §5.5); a PUT without one may not.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {{"if", "null"}}, "x"), resp(400)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(400)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(412)}}));
  // An If also checked against what the request depends on may fail it with
  // 424 (Apache 2.4 for a DELETE whose If names the file's own ETag); the
  // refusal deletes nothing, and without an If there is no dependency.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("DELETE", "/a", {{"if", "([\"t\"])"}}), resp(424)},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("DELETE", "/a", {{"if", "([\"t\"])"}}), resp(424)},
                         {req("GET", "/a"), resp(404)}}));
  EXPECT_FALSE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("DELETE", "/a"), resp(424)}}));
}

// A Depth the method does not define may be refused with 400, and the
// refusal changes nothing (RFC 4918 §10.2, §9.6.1). Found against nginx
// 1.22: DELETE with "Depth: 1" -> 400 was judged a failed deletion.
TEST(HttpModelDav, UndefinedDepthMayBeRefused) {
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("DELETE", "/a", {{"depth", "1"}}), resp(400)},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_TRUE(accepted({{req("DELETE", "/n", {{"depth", "0"}}), resp(400)}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("DELETE", "/a", {{"depth", "1"}}), resp(204)},
                        {req("GET", "/a"), resp(404)}}));
  // ... but the refusal deleted nothing,
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("DELETE", "/a", {{"depth", "1"}}), resp(400)},
                         {req("GET", "/a"), resp(404)}}));
  // and the Depth DELETE defines ("infinity", in any case) is no reason.
  for (const char* d : {"infinity", "Infinity"})
    EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                           {req("DELETE", "/a", {{"depth", d}}), resp(400)}}))
        << d;
  // A method that defines no Depth ignores it.
  EXPECT_FALSE(accepted({{req("PUT", "/a", {{"depth", "2"}}, "x"), resp(400)}}));
  // Overwrite is T or F (§10.6): "X" may be refused, "t" is "T".
  EXPECT_TRUE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)},
       {req("MOVE", "/a", {{"destination", "/b"}, {"overwrite", "X"}}), resp(400)},
       {req("GET", "/a"), resp(200, {}, "x")}}));
}

// Chunked content may be refused with 411 (RFC 9110 §15.5.12), changing
// nothing; content with a length may not.
TEST(HttpModel, ChunkedContentMayNeedALength) {
  const Json chunked = {{"transfer-encoding", "chunked"}};
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("PUT", "/a", chunked, "y"), resp(411)},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", chunked, "y"), resp(201)},
                        {req("GET", "/a"), resp(200, {}, "y")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", chunked, "y"), resp(411)},
                         {req("GET", "/a"), resp(200, {}, "y")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "y"), resp(411)}}));
  // Chunked framing is content, even empty: a GET, HEAD or DELETE with it
  // may be refused as content in them may (lighttpd 1.4.69: 400, 415) ...
  for (const char* m : {"GET", "HEAD", "DELETE"})
    EXPECT_TRUE(accepted({{req(m, "/a", chunked), resp(m[0] == 'D' ? 415 : 400)}})) << m;
  // ... and without it, not.
  EXPECT_FALSE(accepted({{req("GET", "/a"), resp(400)}}));
}

// An expectation other than 100-continue may be refused with 417 (RFC 9110
// §10.1.1), changing nothing, or ignored; 100-continue itself (in any case,
// listed once or twice) may not be refused so.
TEST(HttpModel, UnknownExpectationMayBe417) {
  for (const char* v : {"foo", "100-continue, x=1", ""}) {
    const Json expect = {{"expect", v}};
    EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                          {req("PUT", "/a", expect, "y"), resp(417)},
                          {req("GET", "/a"), resp(200, {}, "x")}}))
        << v;
    EXPECT_TRUE(accepted({{req("PUT", "/a", expect, "y"), resp(201)},
                          {req("GET", "/a"), resp(200, {}, "y")}}))
        << v;
    // The refusal stored nothing.
    EXPECT_FALSE(accepted({{req("PUT", "/a", expect, "y"), resp(417)},
                           {req("GET", "/a"), resp(200, {}, "y")}}))
        << v;
  }
  for (const char* v : {"100-continue", "100-Continue", " 100-continue ,100-continue"}) {
    const Json expect = {{"expect", v}};
    EXPECT_FALSE(accepted({{req("PUT", "/a", expect, "y"), resp(417)}})) << v;
    EXPECT_TRUE(accepted({{req("PUT", "/a", expect, "y"), resp(201)},
                          {req("GET", "/a"), resp(200, {}, "y")}}))
        << v;
  }
  // Without an Expect, 417 is no answer.
  EXPECT_FALSE(accepted({{req("GET", "/a"), resp(417)}}));
}

// A field sent blind (field_havoc.h): any answer, and a write so may have
// reached any path; a safe method's did not. What came before is judged.
TEST(HttpModel, AFieldSentBlindJudgesNothingOfItsRequest) {
  auto blind = [](Json q) {
    q["havoc"] = {{"name", "range"}, {"value", "bytes=0-1,,"}};
    return q;
  };
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {blind(req("GET", "/a")), resp(200, {}, "garbage")},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("GET", "/a"), resp(200, {}, "garbage")}}));
  // A blind GET wrote nothing: /b is still known.
  EXPECT_FALSE(accepted({{req("PUT", "/b", {}, "x"), resp(201)},
                         {blind(req("GET", "/a")), resp(200)},
                         {req("GET", "/b"), resp(200, {}, "zzz")}}));
  // A blind write may have landed anywhere; until pinned again.
  EXPECT_TRUE(accepted({{req("PUT", "/b", {}, "x"), resp(201)},
                        {blind(req("PUT", "/a", {}, "y")), resp(204)},
                        {req("GET", "/b"), resp(200, {}, "zzz")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/b", {}, "x"), resp(201)},
                         {blind(req("PUT", "/a", {}, "y")), resp(204)},
                         {req("PUT", "/b", {}, "w"), resp(204)},
                         {req("GET", "/b"), resp(200, {}, "zzz")}}));
  // Its refusal does not say it changed nothing elsewhere (what it meant is
  // the server's reading of its bytes): Apache's two 201s for one new file
  // were reported at a blind MKCOL's 415, under the MKCOL's name.
  EXPECT_TRUE(accepted({{req("PUT", "/b", {}, "x"), resp(201)},
                        {blind(req("MKCOL", "/a")), resp(415)},
                        {req("GET", "/b"), resp(200, {}, "zzz")}}));
  // Before the blind request, everything is judged.
  EXPECT_FALSE(accepted({{req("GET", "/a"), resp(200, {}, "x")},
                         {blind(req("PUT", "/a", {}, "y")), resp(204)}}));
  // Even a syntax the RFC says MUST be refused: the blind field may have
  // been what the server refused, or read first.
  Json must_reject = blind(req("GET", "/a"));
  must_reject["malformed"] = "space-before-colon";
  EXPECT_TRUE(accepted({{must_reject, resp(416)}}));
}

// A COPY or MOVE naming a collection with its trailing slash (RFC 4918
// §5.2): any answer (the model does not follow "/a/" to "/a"), but it writes
// only its Destination, and MOVE "/a" too; other paths stay judged.
TEST(HttpModelDav, ACopyNamedWithItsSlashWritesItsDestinationOnly) {
  const Json to_b = {{"destination", "http://localhost/b"}};
  for (const char* m : {"COPY", "MOVE"}) {
    EXPECT_TRUE(accepted({{req("PUT", "/b", {}, "x"), resp(201)},
                          {req(m, "/a/", to_b), resp(201)},
                          {req("GET", "/b"), resp(200, {}, "anything")}}))
        << m;
    EXPECT_FALSE(accepted({{req("PUT", "/c", {}, "x"), resp(201)},
                           {req(m, "/a/", to_b), resp(201)},
                           {req("GET", "/c"), resp(200, {}, "zzz")}}))
        << m;
  }
  // MOVE takes "/a" away; COPY leaves it.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("MOVE", "/a/", to_b), resp(201)},
                        {req("GET", "/a"), resp(404)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("COPY", "/a/", to_b), resp(201)},
                         {req("GET", "/a"), resp(404)}}));
}

TEST(HttpModelDav, UnknownStateIsPinnedByPut) {
  EXPECT_TRUE(accepted({{req("MKCOL", "/c"), resp(201)},
                        {req("PUT", "/c", {}, "x"), resp(204)},
                        {req("GET", "/c"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{req("MKCOL", "/c"), resp(201)},
                         {req("PUT", "/c", {}, "x"), resp(204)},
                         {req("GET", "/c"), resp(200, {}, "y")}}));
}

}  // namespace
}  // namespace dualfuzz::http

// ---- ranges, HEAD, OPTIONS and unknown methods (RFC 9110 §14, §9.3.2, §15.5.6)

namespace dualfuzz::http {
namespace {

bool cites(const Verdict& v, const char* clause) {
  for (const oracle::Reason& r : v.reasons)
    if (r.clause == clause) return true;
  return false;
}
const char* kTen = "0123456789";
std::pair<Json, Json> put_ten() { return {req("PUT", "/a", {}, kTen), resp(201)}; }
Json range_get(const char* range, Json headers = Json::object()) {
  headers["range"] = range;
  return req("GET", "/a", headers);
}
Json part(const char* content_range, const char* body, Json headers = tagged("\"1\"")) {
  headers["content-range"] = content_range;
  return resp(206, headers, body);
}
constexpr const char* kRangeClause = "RFC 9110 §14.2, §15.3.7";

TEST(HttpModelRange, ExactPartOrTheWholeRepresentation) {
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=2-4"), part("bytes 2-4/10", "234")}}));
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=2-4"), part("bytes 2-4/*", "234")}}));
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=-3"), part("bytes 7-9/10", "789")}}));
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=8-99"), part("bytes 8-9/10", "89")}}));
  // A server MAY ignore Range (§14.2).
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=2-4"), resp(200, tagged("\"1\""), kTen)}}));
  // Off by one at the end, a wrong complete length, the wrong bytes.
  Verdict v = run({put_ten(), {range_get("bytes=2-4"), part("bytes 2-4/10", "23")}});
  EXPECT_FALSE(v.accepted());
  EXPECT_TRUE(cites(v, kRangeClause)) << v.explanation;
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=2-4"), part("bytes 2-4/5", "234")}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=-3"), part("bytes 7-9/10", "012")}}));
  // No Content-Range on a single part (§15.3.7.1 MUST), or an invalid one.
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=2-4"), resp(206, tagged("\"1\""), "234")}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=2-4"), part("bytes 4-2/10", "234")}}));
  // A 200 with only the part is no full representation.
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=2-4"), resp(200, tagged("\"1\""), "234")}}));
}

TEST(HttpModelRange, UnsatisfiableIs416OrTheWhole) {
  Json unsatisfied = tagged("\"1\"");
  unsatisfied["content-range"] = "bytes */10";
  EXPECT_TRUE(accepted({put_ten(), {range_get("bytes=10-"), resp(416, unsatisfied)}}));
  EXPECT_TRUE(accepted({put_ten(), {range_get("bytes=10-"), resp(416)}}));  // a SHOULD
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=10-"), resp(200, Json::object(), kTen)}}));
  Verdict v = run({put_ten(), {range_get("bytes=10-"), part("bytes 9-9/10", "9")}});
  EXPECT_FALSE(v.accepted());
  EXPECT_TRUE(cites(v, "RFC 9110 §14.1.2, §15.5.17")) << v.explanation;
  unsatisfied["content-range"] = "bytes */11";
  EXPECT_FALSE(accepted({put_ten(), {range_get("bytes=10-"), resp(416, unsatisfied)}}));
  // A satisfiable range is no 416.
  EXPECT_FALSE(accepted({put_ten(), {range_get("bytes=0-1"), resp(416)}}));
}

TEST(HttpModelRange, FieldsToIgnoreOrReject) {
  // Another unit MUST be ignored; an invalid set MAY be ignored or rejected.
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("items=0-1"), resp(200, Json::object(), kTen)}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("items=0-1"), part("bytes 0-1/10", "01")}}));
  for (int s : {200, 400, 416}) {
    Json a = s == 200 ? resp(200, Json::object(), kTen) : resp(s);
    EXPECT_TRUE(accepted({put_ten(), {range_get("bytes=3-1"), a}})) << s;
  }
  // A set invalid only by a backward range may be served for its other
  // specs (nginx 1.22: "bytes=5-4,1-1" -> 206 "bytes 1-1/N"), and only them.
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=5-4,1-1"), part("bytes 1-1/10", "1")}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=5-4,1-1"), part("bytes 4-5/10", "45")}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=5-4,1-1"), part("bytes 1-2/10", "12")}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=5-4"), part("bytes 4-5/10", "45")}}));
  // Whitespace before the first spec: invalid (h2o 2.2: 416), or read as it
  // would be without it.
  EXPECT_TRUE(accepted({put_ten(), {range_get("bytes= 2-4"), resp(416)}}));
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes= 2-4"), part("bytes 2-4/10", "234")}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes= 2-4"), part("bytes 1-4/10", "1234")}}));
  EXPECT_FALSE(accepted({put_ten(), {range_get("bytes=2-4"), resp(416)}}));
  // Range on a method other than GET MUST be ignored (§14.2): HEAD too.
  Json head = req("HEAD", "/a", {{"range", "bytes=0-1"}});
  EXPECT_TRUE(accepted({put_ten(), {head, resp(200, tagged("\"1\""))}}));
  EXPECT_FALSE(accepted({put_ten(), {head, part("bytes 0-1/10", "")}}));
}

TEST(HttpModelRange, SeveralRangesMultipartOrCoalesced) {
  Json multipart = tagged("\"1\"");
  multipart["content-type"] = "multipart/byteranges; boundary=x";
  // Parts are not checked: the model accepts any multipart answer.
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=0-1,5-6"), resp(206, multipart, "...")}}));
  EXPECT_TRUE(accepted(
      {put_ten(), {range_get("bytes=0-1,5-6"), part("bytes 0-6/10", "0123456")}}));
  EXPECT_TRUE(accepted(
      {put_ten(), {range_get("bytes=0-1,5-6"), resp(200, Json::object(), kTen)}}));
  // Never multipart for one range; no Content-Range beside multipart.
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=0-1"), resp(206, multipart, "...")}}));
  multipart["content-range"] = "bytes 0-1/10";
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=0-1,5-6"), resp(206, multipart, "..")}}));
  // Only a part of what was asked for: a SHOULD (HttpAssumptions.
  // APartOtherThanAskedForBreaksAShould), but its bytes must be that part.
  EXPECT_TRUE(
      accepted({put_ten(), {range_get("bytes=0-1,5-6"), part("bytes 0-1/10", "01")}}));
  EXPECT_FALSE(
      accepted({put_ten(), {range_get("bytes=0-1,5-6"), part("bytes 0-1/10", "02")}}));
  // Overlapping ranges MAY be rejected, disjoint ascending ones not.
  EXPECT_TRUE(accepted({put_ten(), {range_get("bytes=0-2,1-3"), resp(416)}}));
  EXPECT_FALSE(accepted({put_ten(), {range_get("bytes=0-1,5-6"), resp(416)}}));
}

TEST(HttpModelRange, IfRange) {
  const char* lm = "Tue, 14 Nov 2023 22:13:20 GMT";
  auto base = std::vector<std::pair<Json, Json>>{
      put_ten(), {req("GET", "/a"), resp(200, tagged("\"1\"", kT0), kTen)}};
  auto with = [&](Json headers, Json answer) {
    auto t = base;
    t.push_back({range_get("bytes=2-4", std::move(headers)), std::move(answer)});
    return run(t);
  };
  const Json full = resp(200, tagged("\"1\"", kT0), kTen);
  const Json partial = part("bytes 2-4/10", "234", tagged("\"1\"", kT0));
  EXPECT_TRUE(with({{"if-range", "\"1\""}}, partial).accepted());
  EXPECT_TRUE(with({{"if-range", "\"1\""}}, full).accepted());
  EXPECT_TRUE(with({{"if-range", lm}}, partial).accepted());
  EXPECT_TRUE(with({{"if-range", lm}}, full).accepted());  // Last-Modified may be weak
  // False: another tag, a weak tag (strong comparison), another date.
  for (const char* v : {"\"2\"", "W/\"1\"", "Mon, 01 Jan 2001 00:00:00 GMT", "junk"}) {
    EXPECT_TRUE(with({{"if-range", v}}, full).accepted()) << v;
    Verdict bad = with({{"if-range", v}}, partial);
    EXPECT_FALSE(bad.accepted()) << v;
    EXPECT_TRUE(cites(bad, "RFC 9110 §13.1.5")) << v << bad.explanation;
  }
  // Without Range, If-Range is ignored.
  auto t = base;
  t.push_back({req("GET", "/a", {{"if-range", "\"2\""}}), full});
  EXPECT_TRUE(accepted(t));
}

TEST(HttpModelHead, SameStatusAndValidatorsAsGetNoContent) {
  Json h = tagged("\"1\"");
  h["content-length"] = "10";
  EXPECT_TRUE(accepted({put_ten(),
                        {req("HEAD", "/a"), resp(200, h)},
                        {req("GET", "/a"), resp(200, tagged("\"1\""), kTen)}}));
  EXPECT_TRUE(accepted({put_ten(), {req("HEAD", "/a"), resp(200, tagged("\"1\""))}}));
  // Content-Length other than GET's (§8.6 MUST NOT).
  h["content-length"] = "0";
  Verdict v = run({put_ten(), {req("HEAD", "/a"), resp(200, h)}});
  EXPECT_FALSE(v.accepted());
  EXPECT_TRUE(cites(v, "RFC 9110 §9.3.2, §8.6")) << v.explanation;
  // Another ETag than GET's for the same representation.
  EXPECT_FALSE(accepted({put_ten(),
                         {req("HEAD", "/a"), resp(200, tagged("\"h1\""))},
                         {req("GET", "/a"), resp(200, tagged("\"1\""), kTen)}}));
  // Another status than GET's.
  EXPECT_FALSE(accepted({put_ten(), {req("HEAD", "/a"), resp(404)}}));
}

TEST(HttpModelMethods, OptionsUnknownMethodsAnd405NeedsAllow) {
  Json allow = {{"allow", "GET, HEAD"}};
  for (int s : {200, 204})
    EXPECT_TRUE(accepted({put_ten(), {req("OPTIONS", "/a"), resp(s, allow)}})) << s;
  EXPECT_TRUE(accepted({{req("FOO", "/a"), resp(501)}}));
  EXPECT_TRUE(accepted({put_ten(), {req("FOO", "/a"), resp(501)}}));
  EXPECT_TRUE(accepted({put_ten(), {req("PATCH", "/a"), resp(405, allow)}}));
  EXPECT_TRUE(accepted({{req("POST", "/a"), resp(405, allow)}}));
  // 405 without Allow (§15.5.6 MUST).
  for (const char* m : {"PATCH", "FOO", "OPTIONS", "POST"}) {
    Verdict v = run({put_ten(), {req(m, "/a"), resp(405)}});
    EXPECT_FALSE(v.accepted()) << m;
    EXPECT_NE(v.explanation.find("§15.5.6"), std::string::npos) << m << v.explanation;
  }
  // OPTIONS with content (no defined use; without a Content-Type the client
  // broke §9.3.7's MUST) may be refused; without content, not. Found
  // against Apache 2.4 (400, with or without a Content-Type).
  Verdict options_body = run({put_ten(), {req("OPTIONS", "/a", {}, "XYb"), resp(400)}});
  EXPECT_TRUE(options_body.accepted()) << options_body.explanation;
  EXPECT_TRUE(accepted(
      {put_ten(),
       {req("OPTIONS", "/a", {{"content-type", "text/plain"}}, "XYb"), resp(415)}}));
  EXPECT_FALSE(accepted({put_ten(), {req("OPTIONS", "/a"), resp(400)}}));
  EXPECT_FALSE(accepted({put_ten(), {req("OPTIONS", "/a", {}, "XYb"), resp(403)}}));
  // An unknown method answered 2xx changes nothing.
  EXPECT_FALSE(accepted(
      {put_ten(), {req("FOO", "/a"), resp(204)}, {req("GET", "/a"), resp(404)}}));
}

// TRACE (RFC 9110 §9.3.8) and OPTIONS * (§9.3.7) are safe, CONNECT
// (§9.3.6) names another host: any answer (a reflection, a tunnel, a
// refusal), and no resource of the server changes.
TEST(HttpModelMethods, TraceConnectAndOptionsAsteriskChangeNothing) {
  const Json kEcho = {{"content-type", "message/http"}};
  const Json connect =
      req("CONNECT", "dualfuzz.invalid:80", {{"host", "dualfuzz.invalid:80"}});
  for (const auto& [q, a] :
       {std::pair{req("TRACE", "/a"), resp(200, kEcho, "TRACE /a HTTP/1.1\r\n\r\n")},
        std::pair{req("TRACE", "/a"), resp(405, {{"allow", "GET"}})},
        std::pair{req("TRACE", "/b"), resp(501)}, std::pair{connect, resp(400)},
        std::pair{connect, resp(502)}, std::pair{connect, resp(200)},
        std::pair{req("OPTIONS", "*"), resp(200, {{"allow", "GET"}})},
        std::pair{req("OPTIONS", "*"), resp(501)}}) {
    EXPECT_TRUE(accepted({put_ten(), {q, a}, {req("GET", "/a"), resp(200, {}, kTen)}}))
        << q << a;
    EXPECT_FALSE(accepted({put_ten(), {q, a}, {req("GET", "/a"), resp(404)}})) << q << a;
    EXPECT_FALSE(accepted({{q, a}, {req("GET", "/a"), resp(200, {}, kTen)}})) << q << a;
  }
}

TEST(HttpModelRange, ContentRangeIsCanonicalized) {
  Json a = normalize_response({{"status", 206},
                               {"headers",
                                {{"content-range", "Bytes 002-4/010"},
                                 {"content-type", "Multipart/ByteRanges ; boundary=x"},
                                 {"allow", ""}}},
                               {"body", ""}});
  EXPECT_EQ(a["content-range"], "bytes 2-4/10");
  EXPECT_EQ(a["multipart"], true);
  EXPECT_EQ(a["allow"]["present"], true);
  a = normalize_response(
      {{"status", 206}, {"headers", {{"content-range", "bytes 4-2/10"}}}});
  EXPECT_EQ(a["content-range"], "invalid: bytes 4-2/10");
}

}  // namespace
}  // namespace dualfuzz::http

namespace dualfuzz::http {
namespace {

// 3000 requests generated after one earlier request `earlier` /a (label
// 1): how many of each method, and each header field to `visit`.
std::map<std::string, int> generate_after(
    const char* earlier, std::uint64_t seed,
    const std::function<void(const std::string&, const harness::Jexp&)>& visit) {
  harness::Protocol::Context ctx;
  ctx.earlier.push_back(harness::Jexp::object({{"method", harness::Jexp::scalar(earlier)},
                                               {"path", harness::Jexp::scalar("/a")}}));
  ctx.earlier_labels.push_back(1);
  std::mt19937_64 rng(seed);
  std::map<std::string, int> methods;
  for (int i = 0; i < 3000; ++i) {
    harness::Jexp q = generate_request(rng, ctx);
    ++methods[string_field(q, "method")];
    if (const harness::Jexp* h = q.find("headers"))
      for (std::size_t j = 0; j < h->keys().size(); ++j)
        visit(h->keys()[j], h->items()[j]);
  }
  return methods;
}

// The widened request space of issue 19: ranges (valid, unsatisfiable,
// several, invalid, another unit), If-Range, OPTIONS and unknown methods.
TEST(HttpHeuristics, RangesIfRangeAndOtherMethods) {
  int ranges = 0, several = 0, unsatisfiable = 0, invalid = 0, if_range = 0;
  auto methods =
      generate_after("PUT", 5, [&](const std::string& k, const harness::Jexp& v) {
        if_range += k == "if-range";
        if (k != "range" || !v.value().is_string()) return;
        ++ranges;
        const RangeField f = parse_range(v.value().get<std::string>());
        several += f.specs.size() > 1;
        unsatisfiable += f.kind == RangeField::Kind::Bytes && satisfiable(f, 10).empty();
        invalid += f.kind != RangeField::Kind::Bytes;
      });
  EXPECT_GT(ranges, 300);
  EXPECT_GT(several, 30);
  EXPECT_GT(unsatisfiable, 30);
  EXPECT_GT(invalid, 10);
  EXPECT_GT(if_range, 100);
  for (const char* m :
       {"GET", "HEAD", "PUT", "DELETE", "POST", "OPTIONS", "PATCH", "FOO"})
    EXPECT_GT(methods[m], 30) << m;
}

// WebDAV's methods (issue 22): each one, its headers, and Lock-Tokens taken
// from an earlier LOCK's answer by reference.
TEST(HttpHeuristics, WebDavMethodsAndLockTokens) {
  std::map<std::string, int> headers;
  int token_refs = 0, absolute_destinations = 0;
  auto methods =
      generate_after("LOCK", 7, [&](const std::string& k, const harness::Jexp& v) {
        ++headers[k];
        if ((k == "lock-token" || k == "if") &&
            v.kind() == harness::Jexp::Kind::Reference && v.reference().label == 2)
          ++token_refs;
        if (k == "destination" && v.kind() == harness::Jexp::Kind::Scalar &&
            v.value().get<std::string>().starts_with("http://localhost/"))
          ++absolute_destinations;
      });
  for (const char* m :
       {"PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"})
    EXPECT_GT(methods[m], 30) << m;
  for (const char* h :
       {"depth", "destination", "overwrite", "timeout", "lock-token", "if"})
    EXPECT_GT(headers[h], 20) << h;
  EXPECT_GT(token_refs, 30);
  EXPECT_GT(absolute_destinations, 50);
  // RFC 9110's mix keeps most of the weight (the planted bugs need it).
  EXPECT_GT(methods["GET"] + methods["PUT"] + methods["HEAD"] + methods["DELETE"], 1800);
}

}  // namespace
}  // namespace dualfuzz::http
