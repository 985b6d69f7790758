// The HTTP model under what the user assumes of the server (model.h,
// Assumptions): any server by default, whose refusals are its right and
// whose POST may create; `writable`, a store that must take PUT and DELETE;
// `strict`, every SHOULD a MUST. Each allowance is tested both ways: the
// refusal a correct server may send is accepted, and a refusal that breaks
// a MUST (or changes something) is still a violation.
#include <gtest/gtest.h>

#include "dualfuzz/http/model.h"
#include "dualfuzz/oracle/oracle.h"
#include "messages.h"

namespace dualfuzz::http {
namespace {
using oracle::Json;
using test::req;
using test::resp;

// A trace on one connection, judged online and offline (which must agree).
bool accepted(const std::vector<std::pair<Json, Json>>& exchanges, Assumptions a = {}) {
  return test::judged(server_model(Consistency::Atomic, a),
                      test::one_connection(exchanges))
      .accepted();
}
constexpr Assumptions kWritable{.writable = true};
constexpr Assumptions kStrict{.strict = true};

const Json kAllow = {{"allow", "GET, HEAD"}};

// Methods whose request content has a defined meaning (content in a DELETE
// or an OPTIONS may be refused with 400 whatever the server implements).
bool defines_content(std::string_view m) {
  return m == "PUT" || m == "PATCH" || m == "POST";
}
const Json kChallenge = {{"www-authenticate", "Basic realm=\"x\""}};

// RFC 9110 §14.2: a 206's parts SHOULD correspond to the ranges asked for;
// §15.3.7.1 MUST: its Content-Range names the part enclosed, and the content
// is that range. busybox httpd answers `bytes=0-0` with the whole
// representation as `bytes 0-83/84`: an advisory, a violation under strict.
TEST(HttpAssumptions, APartOtherThanAskedForBreaksAShould) {
  const auto put = std::pair{req("PUT", "/a", {}, "0123456789"), resp(201)};
  auto ranged = [](const char* range) { return req("GET", "/a", {{"range", range}}); };
  auto part = [](const char* content_range, const char* body) {
    return resp(206, {{"content-range", content_range}}, body);
  };
  for (const auto& [range, answer] : std::vector<std::pair<const char*, Json>>{
           {"bytes=0-0", part("bytes 0-9/10", "0123456789")},  // busybox's
           {"bytes=2-4", part("bytes 1-5/10", "12345")},
           {"bytes=2-4", part("bytes 7-8/*", "78")},
           {"bytes=0-1,5-6", part("bytes 5-6/10", "56")}}) {
    EXPECT_TRUE(accepted({put, {ranged(range), answer}})) << range << answer;
    EXPECT_FALSE(accepted({put, {ranged(range), answer}}, kStrict)) << range << answer;
  }
  // The MUST stays: bytes other than the part named, a wrong complete
  // length, a part past the end, no Content-Range at all.
  for (const Json& answer :
       {part("bytes 1-5/10", "12346"), part("bytes 1-5/10", "1234"),
        part("bytes 0-9/11", "0123456789"), part("bytes 8-10/*", "89"),
        resp(206, Json::object(), "234")})
    EXPECT_FALSE(accepted({put, {ranged("bytes=2-4"), answer}})) << answer;
  // No part is the answer to a set with no satisfiable range, nor more of
  // an invalid set than its well-formed specs (§14.2: ignore or reject it).
  EXPECT_FALSE(
      accepted({put, {ranged("bytes=10-"), part("bytes 0-9/10", "0123456789")}}));
  EXPECT_FALSE(accepted({put, {ranged("bytes=5-4,1-1"), part("bytes 0-1/10", "01")}}));
  EXPECT_TRUE(accepted({put, {ranged("bytes=5-4,1-1"), part("bytes 1-1/10", "1")}}));
}

// A 404 says the server "did not find a current representation ... or is
// not willing to disclose that one exists" (RFC 9110 §15.5.5): for a method
// other than GET and HEAD it may answer a resource that exists (Express's
// static files answer every other method so), and it changes nothing. For
// GET and HEAD a 404 is still "nothing there".
TEST(HttpAssumptions, A404ToAnotherMethodMayHideAResource) {
  const auto put = std::pair{req("PUT", "/a", {}, "x"), resp(201)};
  const auto get = std::pair{req("GET", "/a"), resp(200, {}, "x")};
  for (const char* m : {"OPTIONS", "DELETE", "POST", "PATCH", "PUT"}) {
    const Json q = req(m, "/a", {}, defines_content(m) ? "y" : nullptr);
    EXPECT_TRUE(accepted({put, {q, resp(404)}, get})) << m;
    // It changed nothing: the GET after it still shows the content.
    EXPECT_FALSE(accepted({put, {q, resp(404)}, {req("GET", "/a"), resp(200, {}, "y")}}))
        << m;
    EXPECT_FALSE(accepted({put, {q, resp(404)}, get}, kWritable)) << m;
  }
  EXPECT_FALSE(accepted({put, {req("GET", "/a"), resp(404)}}));
  EXPECT_FALSE(accepted({put, {req("HEAD", "/a"), resp(404)}}));
}

// "A server MUST ignore the conditional request header fields ... when
// received with a request method that does not involve the selection or
// modification of a selected representation, such as CONNECT, OPTIONS, or
// TRACE" (RFC 9110 §13.2.1): an OPTIONS gets no 412 and no 304.
TEST(HttpAssumptions, OptionsIgnoresPreconditions) {
  const auto put = std::pair{req("PUT", "/a", {}, "x"), resp(201, {{"etag", "\"1\""}})};
  const Json false_if_match = req("OPTIONS", "/a", {{"if-match", "\"9\""}});
  const Json true_inm = req("OPTIONS", "/a", {{"if-none-match", "\"1\""}});
  EXPECT_TRUE(accepted({put, {false_if_match, resp(200, kAllow)}}));
  EXPECT_TRUE(accepted({put, {true_inm, resp(204)}}));
  EXPECT_FALSE(accepted({put, {false_if_match, resp(412)}}));
  EXPECT_FALSE(accepted({put, {true_inm, resp(304)}}));
  // Nor on a missing resource, where If-Match is false.
  EXPECT_FALSE(accepted({{req("OPTIONS", "/b", {{"if-match", "\"9\""}}), resp(412)}}));
  EXPECT_TRUE(accepted({{req("OPTIONS", "/b", {{"if-match", "\"9\""}}), resp(404)}}));
}

// RFC 9112 §3.2 asks a 400 for "any HTTP/1.1 request message that lacks a
// Host header field": an HTTP/1.0 request without one is served.
TEST(HttpAssumptions, AnHttp10RequestNeedsNoHost) {
  Json q10 = req("GET", "/a");
  q10["malformed"] = "no-host";
  Json q11 = q10;
  q10["version"] = "HTTP/1.0";
  EXPECT_TRUE(accepted({{q10, resp(404)}}));
  EXPECT_TRUE(accepted({{q10, resp(400)}}));
  EXPECT_FALSE(accepted({{q11, resp(404)}}));
  EXPECT_TRUE(accepted({{q11, resp(400)}}));
}

TEST(HttpAssumptions, ARefusedWriteIsNoViolationAndChangesNothing) {
  // python's http.server (501), nginx's static site (405 with Allow), a
  // location behind `limit_except` (403), `auth_basic` (401 with a challenge).
  for (const Json& refusal :
       {resp(501), resp(405, kAllow), resp(403), resp(401, kChallenge), resp(503),
        resp(429), resp(301, {{"location", "/x"}})}) {
    EXPECT_TRUE(
        accepted({{req("PUT", "/a", {}, "x"), refusal}, {req("GET", "/a"), resp(404)}}))
        << refusal;
    // The refused PUT stored nothing: a later GET showing it is a violation.
    EXPECT_FALSE(accepted(
        {{req("PUT", "/a", {}, "x"), refusal}, {req("GET", "/a"), resp(200, {}, "x")}}))
        << refusal;
    // Under --assume writable, the refusal itself is the violation.
    EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), refusal}}, kWritable)) << refusal;
  }
  // A refused DELETE leaves the resource as it was.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("DELETE", "/a"), resp(403)},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                         {req("DELETE", "/a"), resp(403)},
                         {req("GET", "/a"), resp(404)}}));
}

TEST(HttpAssumptions, RefusalsKeepTheirMusts) {
  // A 405 MUST carry Allow (RFC 9110 §15.5.6), a 401 WWW-Authenticate (§11.6.1).
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(405)}}));
  EXPECT_FALSE(accepted({{req("GET", "/a"), resp(401)}}));
  EXPECT_TRUE(accepted({{req("GET", "/a"), resp(401, kChallenge)}}));
  // GET and HEAD MUST be supported (§9.1): neither 405 nor 501.
  EXPECT_FALSE(accepted({{req("GET", "/a"), resp(405, kAllow)}}));
  EXPECT_FALSE(accepted({{req("HEAD", "/a"), resp(501)}}));
  // 404 means nothing is there: not for a resource just stored.
  EXPECT_FALSE(
      accepted({{req("PUT", "/a", {}, "x"), resp(201)}, {req("GET", "/a"), resp(404)}}));
  // Not every status is a refusal: a 500 is not.
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(500)}}));
}

// Every method but GET and HEAD is OPTIONAL, and one a server does not
// implement SHOULD get 501 (RFC 9110 §9.1): any other client error is an
// advisory (webfs answers OPTIONS, DELETE and PATCH with 400 "*PLONK*"),
// a violation under strict; it changes nothing; GET and HEAD get no such
// latitude, and a 405 or 401 still carries its field.
TEST(HttpAssumptions, AMethodNotImplementedMayGetAnyClientError) {
  // (Content only where the method defines it: content in a DELETE or an
  // OPTIONS may be refused with 400 whatever the server implements.)
  for (const char* m : {"PUT", "DELETE", "OPTIONS", "PATCH", "POST"}) {
    const Json q = req(m, "/a", {}, defines_content(m) ? "x" : nullptr);
    EXPECT_TRUE(accepted({{q, resp(400)}})) << m;
    EXPECT_TRUE(accepted({{q, resp(422)}})) << m;
    EXPECT_FALSE(accepted({{q, resp(400)}}, kStrict)) << m;
    EXPECT_FALSE(accepted({{q, resp(400)}}, kWritable)) << m;
    EXPECT_FALSE(accepted({{q, resp(405)}})) << m;
    EXPECT_FALSE(accepted({{q, resp(500)}})) << m;
    // (Not a status that states a verdict: a precondition false, no range.)
    EXPECT_FALSE(accepted({{q, resp(412)}})) << m;
    EXPECT_FALSE(accepted({{q, resp(416)}})) << m;
  }
  // Nothing changed: the stored content is still there after a refused DELETE.
  const auto put = std::pair{req("PUT", "/a", {}, "x"), resp(201)};
  EXPECT_TRUE(accepted(
      {put, {req("DELETE", "/a"), resp(400)}, {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_FALSE(
      accepted({put, {req("DELETE", "/a"), resp(400)}, {req("GET", "/a"), resp(404)}}));
  for (const char* m : {"GET", "HEAD"}) {
    EXPECT_FALSE(accepted({{req(m, "/a"), resp(400)}})) << m;
    EXPECT_FALSE(accepted({{req(m, "/a"), resp(422)}})) << m;
  }
}

TEST(HttpAssumptions, ReadsAreJudgedAroundRefusals) {
  // A server whose writes are all refused is still judged on its reads: a
  // GET of what was stored, a 304 that must match, a range that must slice.
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "xyz"), resp(201, {{"etag", "\"1\""}})},
                        {req("PUT", "/a", {}, "q"), resp(403)},
                        {req("GET", "/a", {{"range", "bytes=1-1"}}),
                         resp(206, {{"content-range", "bytes 1-1/3"}}, "y")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "xyz"), resp(201, {{"etag", "\"1\""}})},
                         {req("PUT", "/a", {}, "q"), resp(403)},
                         {req("GET", "/a", {{"range", "bytes=1-1"}}),
                          resp(206, {{"content-range", "bytes 1-1/3"}}, "q")}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "xyz"), resp(201, {{"etag", "\"1\""}})},
                         {req("GET", "/a", {{"if-none-match", "\"2\""}}), resp(304)}}));
}

TEST(HttpAssumptions, PostMayCreateChangeOrNothing) {
  // RFC 9110 §9.3.3: a POST may create its target (201), change it, or not.
  EXPECT_TRUE(accepted({{req("POST", "/a", {}, "x"), resp(201, {{"location", "/a"}})},
                        {req("GET", "/a"), resp(200, {}, "x")}}));
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(201)},
                        {req("POST", "/a", {}, "y"), resp(200)},
                        {req("GET", "/a"), resp(200, {}, "xy")}}));
  EXPECT_TRUE(
      accepted({{req("POST", "/a", {}, "y"), resp(204)}, {req("GET", "/a"), resp(404)}}));
  // Below a missing collection: 409, a refusal.
  EXPECT_TRUE(accepted({{req("POST", "/a/b", {}, "y"), resp(409)}}));
  // A PUT pins the state again: what it stored is what a GET shows.
  EXPECT_FALSE(accepted({{req("POST", "/a", {}, "y"), resp(201)},
                         {req("PUT", "/a", {}, "z"), resp(200)},
                         {req("GET", "/a"), resp(200, {}, "y")}}));
  // A refused POST changed nothing.
  EXPECT_FALSE(accepted({{req("POST", "/a", {}, "y"), resp(405, kAllow)},
                         {req("GET", "/a"), resp(200, {}, "y")}}));
  // If-Match on nothing is false: the POST MUST NOT be performed (§13.1.1).
  EXPECT_FALSE(accepted({{req("POST", "/a", {{"if-match", "*"}}, "y"), resp(201)}}));
  EXPECT_TRUE(accepted({{req("POST", "/a", {{"if-match", "*"}}, "y"), resp(412)}}));
}

TEST(HttpAssumptions, AbsoluteFormWithAnotherHostMayBeRefused) {
  // The tester's Host differs from the target's authority (a client MUST
  // send them identical, RFC 9112 §3.2): lighttpd answers 400.
  Json q = req("GET", "/a", {{"host", "example.com"}});
  q["malformed"] = "absolute-form";
  EXPECT_TRUE(accepted({{q, resp(400)}}));
  EXPECT_TRUE(accepted({{q, resp(404)}}));
  // With the tester's own Host, the request is well-formed: no 400.
  q["headers"] = Json::object();
  EXPECT_FALSE(accepted({{q, resp(400)}}));
}

TEST(HttpAssumptions, ShouldsAreAdvisoriesOnly) {
  // §9.1: an unknown method SHOULD get 501; a 400 breaks no MUST.
  EXPECT_TRUE(accepted({{req("FOO", "/a"), resp(400)}}));
  EXPECT_FALSE(accepted({{req("FOO", "/a"), resp(400)}}, kStrict));
  EXPECT_TRUE(accepted({{req("FOO", "/a"), resp(501)}}, kStrict));
  // A redirect SHOULD carry Location (§15.4.2-15.4.9).
  EXPECT_TRUE(accepted({{req("PUT", "/a", {}, "x"), resp(302)}}));
  EXPECT_FALSE(accepted({{req("PUT", "/a", {}, "x"), resp(302)}}, kStrict));
  EXPECT_TRUE(
      accepted({{req("PUT", "/a", {}, "x"), resp(302, {{"location", "/b"}})}}, kStrict));
  // A POST that creates SHOULD say where (§9.3.3).
  EXPECT_TRUE(accepted({{req("POST", "/a", {}, "x"), resp(201)}}));
  EXPECT_FALSE(accepted({{req("POST", "/a", {}, "x"), resp(201)}}, kStrict));
  // A 416 SHOULD carry Content-Range (§15.5.17).
  const std::vector<std::pair<Json, Json>> unsatisfiable = {
      {req("PUT", "/a", {}, "x"), resp(201)},
      {req("GET", "/a", {{"range", "bytes=5-9"}}), resp(416)}};
  EXPECT_TRUE(accepted(unsatisfiable));
  EXPECT_FALSE(accepted(unsatisfiable, kStrict));
  // What strictness does not touch stays accepted.
  EXPECT_TRUE(accepted(
      {{req("PUT", "/a", {}, "x"), resp(201)}, {req("GET", "/a"), resp(200, {}, "x")}},
      kStrict));
}

// RFC 9110 §2.5: "The protocol version as a whole indicates the sender's
// conformance with the set of requirements laid out in that version's
// corresponding specification(s)": a server that answers in HTTP/1.0
// (Python's http.server) claims HTTP/1.0's only. Under `http10` what
// HTTP/1.1 added is the server's choice, ignored or honoured; the rest is
// judged as before.
TEST(HttpAssumptions, AnHttp10ServerMayNotKnowWhatHttp11Added) {
  constexpr Assumptions k10{.http10 = true};
  const Json lm = {{"last-modified", "Tue, 14 Nov 2023 22:13:20 GMT"}, {"etag", "\"1\""}};
  const auto put = std::pair{req("PUT", "/a", {}, "x"), resp(201)};
  const auto get = std::pair{req("GET", "/a"), resp(200, lm, "x")};
  const Json ius =
      req("GET", "/a", {{"if-unmodified-since", "Mon, 01 Jan 2001 00:00:00 GMT"}});
  const Json inm = req("GET", "/a", {{"if-none-match", "\"1\""}});
  const Json other_host = req("GET", "/a", {{"host", "a@localhost"}});
  Json absolute = req("GET", "/a");  // (sent as http://host/a; 404: "no such path")
  absolute["malformed"] = "absolute-form";
  EXPECT_FALSE(accepted({put, get, {absolute, resp(404)}, get}));
  EXPECT_TRUE(accepted({put, get, {absolute, resp(404)}, get}, k10));
  for (const Json& q : {ius, inm, other_host}) {
    // Ignored: a violation of an HTTP/1.1 server, not of an HTTP/1.0 one.
    EXPECT_FALSE(accepted({put, get, {q, resp(200, lm, "x")}})) << q;
    EXPECT_TRUE(accepted({put, get, {q, resp(200, lm, "x")}}, k10)) << q;
  }
  // Honoured: right either way.
  for (const auto& [q, a] : {std::pair{ius, resp(412)}, std::pair{inm, resp(304, lm)},
                             std::pair{other_host, resp(400)}}) {
    EXPECT_TRUE(accepted({put, get, {q, a}})) << q;
    EXPECT_TRUE(accepted({put, get, {q, a}}, k10)) << q;
  }
  // What HTTP/1.0 has too stays judged: the content (a GET that lost the
  // PUT), a precondition's answer on the wrong state (a 304 to a tag that
  // does not match).
  EXPECT_FALSE(accepted({put, {req("GET", "/a"), resp(200, {}, "y")}}, k10));
  EXPECT_FALSE(accepted(
      {put, get, {req("GET", "/a", {{"if-none-match", "\"2\""}}), resp(304, lm)}}, k10));
  EXPECT_FALSE(accepted({{req("GET", "/b"), resp(200, {}, "z")}}, k10))
      << "nothing stored at /b";
}

// What an HTTP/1.0 server shows of itself holds on the path: one that
// honoured If-Match knows it and must keep to §13.1.1; one that ignored it
// does not know it. A server that ignores it only sometimes (a planted
// "If-Match skipped once a resource has two versions") is caught.
TEST(HttpAssumptions, AnHttp10ServerKeepsToWhatItShowedItKnows) {
  constexpr Assumptions k10{.http10 = true};
  const auto put = std::pair{req("PUT", "/a", {}, "x"), resp(201, {{"etag", "\"1\""}})};
  auto stale_put = [](const char* body) {
    return req("PUT", "/a", {{"if-match", "\"9\""}}, body);
  };
  const auto get_y = std::pair{req("GET", "/a"), resp(200, {}, "y")};
  // Ignored every time: an HTTP/1.0 server's right, an HTTP/1.1 server's break.
  EXPECT_TRUE(accepted({put, {stale_put("y"), resp(204)}, get_y}, k10));
  EXPECT_FALSE(accepted({put, {stale_put("y"), resp(204)}, get_y}));
  EXPECT_TRUE(
      accepted({put, {stale_put("y"), resp(204)}, {stale_put("y"), resp(204)}}, k10));
  // Honoured, then ignored; ignored, then honoured: neither server.
  EXPECT_TRUE(
      accepted({put, {stale_put("y"), resp(412)}, {stale_put("y"), resp(412)}}, k10));
  EXPECT_FALSE(
      accepted({put, {stale_put("y"), resp(412)}, {stale_put("y"), resp(204)}}, k10));
  EXPECT_FALSE(
      accepted({put, {stale_put("y"), resp(204)}, {stale_put("y"), resp(412)}}, k10));
  // Knowing one addition says nothing of another: If-Match honoured, an
  // If-Unmodified-Since ignored.
  const Json lm = {{"last-modified", "Tue, 14 Nov 2023 22:13:20 GMT"}};
  EXPECT_TRUE(accepted(
      {put,
       {stale_put("y"), resp(412)},
       {req("GET", "/a"), resp(200, lm, "x")},
       {req("GET", "/a", {{"if-unmodified-since", "Mon, 01 Jan 2001 00:00:00 GMT"}}),
        resp(200, lm, "x")}},
      k10));
}

}  // namespace
}  // namespace dualfuzz::http

namespace dualfuzz::http {
namespace {

// TRACE, CONNECT and OPTIONS * are about no resource: any answer, also when
// the user asserts the server takes every write (found as a false alarm:
// an absolute-form TRACE with an invalid Host answered 405 under
// --assume writable), and nothing changes.
TEST(HttpAssumptions, RequestsAboutNoResourceGetAnyAnswerUnderEveryAssumption) {
  Json trace = req("TRACE", "/a", {{"host", "a b"}});
  trace["malformed"] = "absolute-form";
  const Json connect =
      req("CONNECT", "dualfuzz.invalid:80", {{"host", "dualfuzz.invalid:80"}});
  const auto put = std::pair{req("PUT", "/a", {}, "x"), resp(201)};
  for (Assumptions a : {Assumptions{}, kWritable, kStrict})
    for (const auto& [q, r] :
         {std::pair{req("TRACE", "/a"), resp(405, kAllow)},
          std::pair{trace, resp(405, kAllow)}, std::pair{connect, resp(400)},
          std::pair{connect, resp(200)}, std::pair{req("OPTIONS", "*"), resp(400)}}) {
      EXPECT_TRUE(accepted({put, {q, r}, {req("GET", "/a"), resp(200, {}, "x")}}, a))
          << q << r << a.writable << a.strict;
      EXPECT_FALSE(accepted({put, {q, r}, {req("GET", "/a"), resp(404)}}, a))
          << q << r << a.writable << a.strict;
    }
}

// A 202 "might or might not eventually be acted upon" (RFC 9110 §15.3.3),
// at a time the tester cannot see: a DELETE, PUT or POST so answered may
// show done or not done, in any order, after it. Under every assumption (a
// writable store may accept for later too). What came before it is still
// judged, and a 204 is still a deletion done.
TEST(HttpAssumptions, AnAcceptedChangeMayHappenLater) {
  for (Assumptions a : {Assumptions{}, kWritable}) {
    const Json put = req("PUT", "/a", {}, "x");
    for (const char* later : {"done", "not yet"}) {
      const bool done = later[0] == 'd';
      EXPECT_TRUE(accepted({{put, resp(201)},
                            {req("DELETE", "/a"), resp(202)},
                            {req("GET", "/a"), done ? resp(404) : resp(200, {}, "x")},
                            {req("GET", "/a"), done ? resp(404) : resp(200, {}, "x")}},
                           a))
          << later;
      EXPECT_TRUE(accepted({{put, resp(201)},
                            {req("PUT", "/a", {}, "y"), resp(202)},
                            {req("GET", "/a"), resp(200, {}, done ? "y" : "x")}},
                           a))
          << later;
      EXPECT_TRUE(accepted({{req("POST", "/p", {}, "y"), resp(202)},
                            {req("GET", "/p"), done ? resp(200, {}, "y") : resp(404)}},
                           a))
          << later;
    }
    // The other way: a deletion answered 204 is done, and a 202 does not
    // excuse what was shown before it.
    EXPECT_FALSE(accepted({{put, resp(201)},
                           {req("DELETE", "/a"), resp(204)},
                           {req("GET", "/a"), resp(200, {}, "x")}},
                          a));
    EXPECT_FALSE(accepted({{put, resp(201)},
                           {req("GET", "/a"), resp(200, {}, "z")},
                           {req("DELETE", "/a"), resp(202)}},
                          a));
    // A DELETE of nothing there may be accepted for later too, or answered
    // as done (§9.3.5 asks no 404); after a 204 nothing is there still.
    EXPECT_TRUE(accepted(
        {{req("DELETE", "/none"), resp(202)}, {req("GET", "/none"), resp(404)}}, a));
    EXPECT_TRUE(accepted(
        {{req("DELETE", "/none"), resp(204)}, {req("GET", "/none"), resp(404)}}, a));
    EXPECT_FALSE(accepted({{req("DELETE", "/none"), resp(204)},
                           {req("GET", "/none"), resp(200, {}, "")}},
                          a));
    // Its preconditions are evaluated or ignored (§13.2.1), never broken:
    // an If-Match is false where nothing is (§13.1.1).
    const Json if_match = req("DELETE", "/none", {{"if-match", "\"x\""}});
    EXPECT_TRUE(accepted({{if_match, resp(404)}}, a));
    EXPECT_TRUE(accepted({{if_match, resp(412)}}, a));
    EXPECT_FALSE(accepted({{if_match, resp(204)}}, a));
  }
}

}  // namespace
}  // namespace dualfuzz::http
