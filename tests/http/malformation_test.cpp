// Requests sent with one defect of their syntax (malformation.h): what goes
// on the wire, what the trace records, and how the model judges the
// answers a server may give, both directions.
#include "dualfuzz/http/malformation.h"

#include <gtest/gtest.h>

#include <initializer_list>

#include "dualfuzz/http/codec.h"
#include "dualfuzz/oracle/oracle.h"
#include "messages.h"

namespace dualfuzz::http {
namespace {
using oracle::Event;
using test::req;
using test::resp;

Json with(Json q, std::string_view defect) {
  q["malformed"] = std::string(defect);
  return q;
}
Json chunked_put() {
  Json q = req("PUT", "/a", Json::object(), "hello");
  q["chunks"] = {2};
  return q;
}

TEST(Malformation, EachDefectChangesTheBytesAndTheTraceNamesIt) {
  for (const Malformation& m : malformations()) {
    const Json q = m.name == "chunked-with-content-length"
                       ? chunked_put()
                       : req("PUT", "/a", {}, "hello");
    const std::string well = print_request(q), broken = print_request(with(q, m.name));
    EXPECT_NE(well, broken) << m.name;
    const Json c = canonical_request(with(q, m.name), broken);
    EXPECT_EQ(c.value("malformed", ""), m.name);
    Json rest = c;
    rest.erase("malformed");
    EXPECT_EQ(rest, canonical_request(q)) << m.name;
    // The content is untouched: the defect is in the head.
    EXPECT_TRUE(broken.ends_with(well.substr(well.find("\r\n\r\n") + 4))) << m.name;
  }
}

TEST(Malformation, ADefectThatDoesNotApplyIsNotSentNorRecorded) {
  const Json get = req("GET", "/a");
  EXPECT_EQ(print_request(with(get, "chunked-with-content-length")), print_request(get));
  EXPECT_FALSE(
      canonical_request(with(get, "chunked-with-content-length")).contains("malformed"));
  EXPECT_EQ(print_request(with(chunked_put(), "content-length-sign")),
            print_request(chunked_put()));
  EXPECT_EQ(print_request(with(get, "no-such-defect")), print_request(get));
  EXPECT_FALSE(canonical_request(with(get, "no-such-defect")).contains("malformed"));
}

TEST(Malformation, BytesAsSent) {
  const Json put = req("PUT", "/a", {}, "hello");
  EXPECT_EQ(print_request(with(put, "content-length-sign")),
            "PUT /a HTTP/1.1\r\nHost: localhost\r\nContent-Length: +5\r\n\r\nhello");
  EXPECT_EQ(print_request(with(put, "content-length-list")),
            "PUT /a HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5, 5\r\n\r\nhello");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "content-length-sign")),
            "GET /a HTTP/1.1\r\nHost: localhost\r\nContent-Length: +0\r\n\r\n");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "absolute-form")),
            "GET http://localhost/a HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "two-hosts")),
            "GET /a HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "no-host")), "GET /a HTTP/1.1\r\n\r\n");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "lf-line-ends")),
            "GET /a HTTP/1.1\nHost: localhost\n\n");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "minor-version")),
            "GET /a HTTP/1.2\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "lowercase-version")),
            "GET /a http/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(print_request(with(req("GET", "/a"), "obs-fold")),
            "GET /a HTTP/1.1\r\nX-Dualfuzz: a\r\n b\r\nHost: localhost\r\n\r\n");
  // Past the 8 KB line and 100-field limits of common servers.
  EXPECT_EQ(print_request(with(req("GET", "/a"), "long-field")),
            "GET /a HTTP/1.1\r\nX-Dualfuzz: " + std::string(10000, 'a') +
                "\r\nHost: localhost\r\n\r\n");
  std::string many = "GET /a HTTP/1.1\r\n";
  for (int i = 1; i <= 120; ++i) many += "X-Dualfuzz-" + std::to_string(i) + ": 1\r\n";
  EXPECT_EQ(print_request(with(req("GET", "/a"), "many-fields")),
            many + "Host: localhost\r\n\r\n");
}

// The strict parser (the reference server's) refuses what the RFC says a
// server MUST refuse.
TEST(Malformation, TheStrictParserRefusesEveryMustReject) {
  for (const Malformation& m : malformations()) {
    if (m.latitude != Latitude::kMustReject || m.name.find("host") != std::string::npos)
      continue;
    RequestParser p;
    p.feed(print_request(with(req("PUT", "/a", {}, "hello"), m.name)));
    EXPECT_TRUE(p.failed()) << m.name;
  }
}

bool accepted(const std::vector<std::pair<Json, Json>>& exchanges) {
  oracle::Oracle o(server_model());
  oracle::Label l = 1;
  for (const auto& [q, a] : exchanges) {
    if (!o.observe(Event::request(1, l, q)).accepted()) return false;
    if (!o.observe(Event::response(1, l + 1, a)).accepted()) return false;
    l += 2;
  }
  return o.verdict().accepted();
}

// A may-reject defect `d`: the request served as if well-formed, or refused
// with each of `refusals`, and a refusal changed nothing.
void ExpectServedOrRefused(const char* d, std::initializer_list<int> refusals) {
  const Json put = req("PUT", "/a", {}, "x");
  EXPECT_TRUE(
      accepted({{put, resp(201)}, {with(req("GET", "/a"), d), resp(200, {}, "x")}}))
      << d;
  for (int refusal : refusals)
    EXPECT_TRUE(accepted({{put, resp(201)}, {with(req("GET", "/a"), d), resp(refusal)}}))
        << d << " " << refusal;
  // Served, it is judged as the request: not another body.
  EXPECT_FALSE(
      accepted({{put, resp(201)}, {with(req("GET", "/a"), d), resp(200, {}, "y")}}))
      << d;
  // Refused, nothing changed: a DELETE refused so leaves /a in place, a PUT
  // refused stored nothing; a PUT served did.
  EXPECT_FALSE(accepted({{put, resp(201)},
                         {with(req("DELETE", "/a"), d), resp(*refusals.begin())},
                         {req("GET", "/a"), resp(404)}}))
      << d;
  EXPECT_FALSE(accepted({{with(req("PUT", "/b", {}, "y"), d), resp(*refusals.begin())},
                         {req("GET", "/b"), resp(200, {}, "y")}}))
      << d;
  EXPECT_TRUE(accepted({{with(req("PUT", "/b", {}, "y"), d), resp(201)},
                        {req("GET", "/b"), resp(200, {}, "y")}}))
      << d;
}

// HTTP/1.2 SHOULD be served as HTTP/1.1 (RFC 9112 §2.6), and an invalid
// request line SHOULD be refused (§3): the model takes either.
TEST(Malformation, OtherVersionsMayBeServedOrRefused) {
  for (const char* d : {"minor-version", "lowercase-version"})
    ExpectServedOrRefused(d, {400, 505});
}

// A request larger than a server wishes to process gets a 4xx (RFC 9110
// §5.4; 431 is RFC 6585's, 413 also names a size): the model takes that or
// the request served.
TEST(Malformation, LargeRequestsMayBeServedOrRefused) {
  for (const char* d : {"long-field", "many-fields"})
    ExpectServedOrRefused(d, {431, 400, 413});
}

TEST(Malformation, ModelMustRejectIsARefusalOfTheMessage) {
  for (const char* d :
       {"space-before-colon", "two-hosts", "no-host", "content-length-sign"}) {
    const Json get = with(req("GET", "/a"), d);
    EXPECT_TRUE(accepted({{get, resp(400)}, {req("GET", "/a"), resp(404)}})) << d;
    // (A server may look at an unknown method first.)
    EXPECT_TRUE(accepted({{with(req("FOO", "/a"), d), resp(501)}})) << d;
    EXPECT_FALSE(accepted({{get, resp(405)}})) << d;
    EXPECT_FALSE(accepted({{get, resp(404)}})) << d;
    EXPECT_FALSE(accepted({{get, resp(200)}})) << d;
    // Refused, so it changed nothing.
    EXPECT_FALSE(accepted({{with(req("PUT", "/a", {}, "x"), d), resp(400)},
                           {req("GET", "/a"), resp(200, {}, "x")}}))
        << d;
  }
}

TEST(Malformation, ModelMayRejectIsAnErrorOrServedAsWellFormed) {
  const Json put = with(req("PUT", "/a", {}, "x"), "obs-fold");
  EXPECT_TRUE(accepted({{put, resp(400)}, {req("GET", "/a"), resp(404)}}));
  EXPECT_TRUE(accepted({{put, resp(501)}, {req("GET", "/a"), resp(404)}}));
  EXPECT_TRUE(accepted({{put, resp(201)}, {req("GET", "/a"), resp(200, {}, "x")}}));
  // Served, it is the PUT: it stored x.
  EXPECT_FALSE(accepted({{put, resp(201)}, {req("GET", "/a"), resp(404)}}));
  EXPECT_FALSE(accepted({{put, resp(400)}, {req("GET", "/a"), resp(200, {}, "x")}}));
}

// "A recipient that receives whitespace between the start-line and the
// first header field MUST either reject the message as invalid or consume
// each whitespace-preceded line without further processing of it" (RFC 9112
// §2.2). The line is a Range: a server that read it answers 206.
TEST(Malformation, AWhitespacePrecededLineIsRefusedOrIgnored) {
  const Json get = with(req("GET", "/a"), "whitespace-line");
  EXPECT_NE(print_request(get).find("HTTP/1.1\r\n Range: bytes=0-0\r\n"),
            std::string::npos);
  const Json put = req("PUT", "/a", {}, "hello");
  EXPECT_TRUE(accepted({{put, resp(201)}, {get, resp(200, {}, "hello")}}));
  EXPECT_TRUE(accepted({{put, resp(201)}, {get, resp(400)}}));
  EXPECT_FALSE(accepted(
      {{put, resp(201)}, {get, resp(206, {{"content-range", "bytes 0-0/5"}}, "h")}}));
  // With a Range of its own, the answer is judged by that one.
  Json ranged = with(req("GET", "/a", {{"range", "bytes=1-1"}}), "whitespace-line");
  EXPECT_TRUE(accepted(
      {{put, resp(201)}, {ranged, resp(206, {{"content-range", "bytes 1-1/5"}}, "e")}}));
  // Another part than its own is a SHOULD only (RFC 9110 §14.2), whichever
  // line the server read: the case above is the one that shows it.
  EXPECT_TRUE(accepted(
      {{put, resp(201)}, {ranged, resp(206, {{"content-range", "bytes 0-0/5"}}, "h")}}));
  EXPECT_FALSE(accepted(
      {{put, resp(201)}, {ranged, resp(206, {{"content-range", "bytes 0-0/5"}}, "e")}}));
}

// "a server that is expecting to receive and parse a request-line SHOULD
// ignore at least one empty line (CRLF) received prior to the request-line"
// (RFC 9112 §2.2): served, or refused (an advisory: a violation only under
// the strict reading, which turns every SHOULD into a MUST).
TEST(Malformation, AnEmptyLineBeforeTheRequestLineShouldBeIgnored) {
  const Json get = with(req("GET", "/a"), "leading-empty-line");
  EXPECT_TRUE(print_request(get).starts_with("\r\nGET /a HTTP/1.1\r\n"));
  const Json put = req("PUT", "/a", {}, "x");
  auto judged = [&](const Json& answer, bool strict) {
    return test::judged(server_model(Consistency::Atomic, {.strict = strict}),
                        test::one_connection({{put, resp(201)}, {get, answer}}))
        .accepted();
  };
  EXPECT_TRUE(judged(resp(200, {}, "x"), false));
  EXPECT_TRUE(judged(resp(200, {}, "x"), true));
  EXPECT_TRUE(judged(resp(400), false));
  EXPECT_FALSE(judged(resp(400), true));
  EXPECT_FALSE(judged(resp(200, {}, "y"), false));
}

TEST(Malformation, ModelAbsoluteFormMustBeServed) {
  const Json put = req("PUT", "/a", {}, "x");
  EXPECT_TRUE(accepted(
      {{put, resp(201)}, {with(req("GET", "/a"), "absolute-form"), resp(200, {}, "x")}}));
  EXPECT_FALSE(
      accepted({{put, resp(201)}, {with(req("GET", "/a"), "absolute-form"), resp(404)}}));
  EXPECT_FALSE(
      accepted({{put, resp(201)}, {with(req("GET", "/a"), "absolute-form"), resp(400)}}));
}

TEST(Malformation, ModelHostField) {
  const Json put = req("PUT", "/a", {}, "x");
  auto get = [](const char* host) { return req("GET", "/a", {{"host", host}}); };
  // Invalid: only 400.
  EXPECT_TRUE(accepted({{put, resp(201)}, {get("a b"), resp(400)}}));
  EXPECT_FALSE(accepted({{put, resp(201)}, {get("a b"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{put, resp(201)}, {get("[::1"), resp(404)}}));
  // The default in another case: the same site.
  EXPECT_TRUE(accepted({{put, resp(201)}, {get("LocalHost"), resp(200, {}, "x")}}));
  EXPECT_FALSE(accepted({{put, resp(201)}, {get("LocalHost"), resp(404)}}));
  // Another valid one: perhaps another site, any answer.
  EXPECT_TRUE(accepted({{put, resp(201)}, {get("example.com"), resp(404)}}));
  EXPECT_TRUE(accepted({{put, resp(201)}, {get("example.com"), resp(421)}}));
  // An absolute-form target's authority replaces an invalid Host: either.
  EXPECT_TRUE(
      accepted({{put, resp(201)}, {with(get("a b"), "absolute-form"), resp(400)}}));
  EXPECT_TRUE(accepted(
      {{put, resp(201)}, {with(get("a b"), "absolute-form"), resp(200, {}, "x")}}));
}

}  // namespace
}  // namespace dualfuzz::http
