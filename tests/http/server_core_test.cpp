// The sans-IO reference server: one test per rule of the correct server, and
// one crafted exchange per planted bug on which the bug answers differently.
#include "dualfuzz/http/server_core.h"

#include <gtest/gtest.h>

#include <map>

namespace dualfuzz::http {
namespace {

// One exchange: requests sent (all, then one poll) on a connection.
struct Step {
  ConnId conn;
  Json request;  // printed with print_request; a string is sent verbatim
};
using Batch = std::vector<Step>;

struct Observed {
  ConnId conn;
  Json response;  // or {"closed": true}
  friend bool operator==(const Observed&, const Observed&) = default;
};

// Plays batches against a server: every batch is sent, then polled once.
// Responses are parsed per connection; a codec failure is recorded as an
// {"error": ...} response, a close as {"closed": true}.
std::vector<Observed> play(const std::string& bug, const std::vector<Batch>& batches) {
  HttpServerCore s({bug});
  std::map<ConnId, http::ResponseParser> parsers;
  std::vector<Observed> seen;
  for (const Batch& b : batches) {
    for (const Step& st : b) {
      std::string bytes = st.request.is_string() ? st.request.get<std::string>()
                                                 : http::print_request(st.request);
      auto& p = parsers[st.conn];
      if (st.request.is_object())
        p.expect(st.request.value("method", "GET"));
      else
        p.expect(bytes.substr(0, bytes.find(' ')));
      s.on_data(st.conn, bytes);
    }
    for (auto& o : s.poll()) {
      auto& p = parsers[o.conn];
      p.feed(o.bytes);
      if (o.close_after) p.on_eof();
      while (auto r = p.next()) {
        (*r)["headers"].erase("date");
        seen.push_back({o.conn, *r});
      }
      if (p.failed()) seen.push_back({o.conn, {{"error", p.error()}}});
      if (o.close_after) {
        seen.push_back({o.conn, {{"closed", true}}});
        s.on_close(o.conn);
      }
    }
  }
  return seen;
}

Json req(std::string method, std::string path, Json headers = Json::object(),
         std::string body = "") {
  return {{"method", method}, {"path", path}, {"headers", headers}, {"body", body}};
}
Json put(std::string path, std::string body, Json headers = Json::object()) {
  return req("PUT", std::move(path), std::move(headers), std::move(body));
}
Json get(std::string path, Json headers = Json::object()) {
  return req("GET", std::move(path), std::move(headers));
}
const char* kOld = "Mon, 01 Jan 2001 00:00:00 GMT";
const char* kFuture = "Fri, 01 Jan 2100 00:00:00 GMT";

std::vector<Observed> correct(const std::vector<Batch>& b) { return play("", b); }
int status(const Observed& o) { return o.response.value("status", 0); }
std::string etag(const Observed& o) { return o.response["headers"].value("etag", ""); }

// ---- the correct server ------------------------------------------------------

TEST(CorrectServer, GetMissingIs404) {
  auto r = correct({{{0, get("/a")}}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(status(r[0]), 404);
}

TEST(CorrectServer, PutCreatesWith201ThenGetReturnsBodyAndValidators) {
  auto r = correct({{{0, put("/a", "hello")}}, {{0, get("/a")}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(status(r[0]), 201);
  EXPECT_EQ(etag(r[0]), "\"1\"");
  EXPECT_EQ(r[0].response["headers"]["last-modified"], "Tue, 14 Nov 2023 22:13:21 GMT");
  EXPECT_EQ(status(r[1]), 200);
  EXPECT_EQ(r[1].response["body"], "hello");
  EXPECT_EQ(etag(r[1]), "\"1\"");
  EXPECT_EQ(r[1].response["headers"]["last-modified"], "Tue, 14 Nov 2023 22:13:21 GMT");
}

TEST(CorrectServer, PutReplacesWith204AndANewTagAndDate) {
  auto r = correct({{{0, put("/a", "x")}, {0, put("/a", "y")}, {0, get("/a")}}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(status(r[1]), 204);
  EXPECT_EQ(etag(r[1]), "\"2\"");
  EXPECT_EQ(r[1].response["headers"]["last-modified"], "Tue, 14 Nov 2023 22:13:22 GMT");
  EXPECT_EQ(r[2].response["body"], "y");
  EXPECT_EQ(etag(r[2]), "\"2\"");
}

TEST(CorrectServer, HeadHasTheHeadersButNoBody) {
  auto r = correct({{{0, put("/a", "hello")}, {0, req("HEAD", "/a")}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(status(r[1]), 200);
  EXPECT_EQ(r[1].response["headers"]["content-length"], "5");
  EXPECT_EQ(r[1].response["body"], "");
  EXPECT_EQ(etag(r[1]), "\"1\"");
}

TEST(CorrectServer, DeleteIs204ThenGone) {
  auto r = correct({{{0, put("/a", "x")},
                     {0, req("DELETE", "/a")},
                     {0, get("/a")},
                     {0, req("DELETE", "/a")}}});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(status(r[1]), 204);
  EXPECT_EQ(status(r[2]), 404);
  EXPECT_EQ(status(r[3]), 404);
}

TEST(CorrectServer, KnownMethodsAre405WithAllowUnknownOnes501) {
  auto r = correct({{{0, req("POST", "/a")},
                     {0, req("PATCH", "/a")},
                     {0, req("FOO", "/a")},
                     {0, req("OPTIONS", "/a")}}});
  ASSERT_EQ(r.size(), 4u);
  for (int i : {0, 1}) {
    EXPECT_EQ(status(r[i]), 405);
    EXPECT_EQ(r[i].response["headers"]["allow"], "GET, HEAD, PUT, DELETE, OPTIONS");
  }
  EXPECT_EQ(status(r[2]), 501);
  EXPECT_EQ(status(r[3]), 204);
  EXPECT_EQ(r[3].response["headers"]["allow"], "GET, HEAD, PUT, DELETE, OPTIONS");
}

Json ranged(std::string range, Json headers = Json::object()) {
  headers["range"] = std::move(range);
  return get("/a", std::move(headers));
}

TEST(CorrectServer, RangesGet206WithContentRange) {
  auto r = correct({{{0, put("/a", "0123456789")},
                     {0, ranged("bytes=2-4")},
                     {0, ranged("bytes=-3")},
                     {0, ranged("bytes=7-")},
                     {0, ranged("bytes=8-100")}}});
  ASSERT_EQ(r.size(), 5u);
  const std::pair<const char*, const char*> want[] = {{"234", "bytes 2-4/10"},
                                                      {"789", "bytes 7-9/10"},
                                                      {"789", "bytes 7-9/10"},
                                                      {"89", "bytes 8-9/10"}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(status(r[i + 1]), 206) << i;
    EXPECT_EQ(r[i + 1].response["body"], want[i].first) << i;
    EXPECT_EQ(r[i + 1].response["headers"]["content-range"], want[i].second) << i;
    EXPECT_EQ(etag(r[i + 1]), "\"1\"") << i;
  }
}

TEST(CorrectServer, UnsatisfiableIs416IgnoredRangesAre200) {
  auto r = correct({{{0, put("/a", "0123456789")},
                     {0, ranged("bytes=10-")},
                     {0, ranged("items=0-1")},
                     {0, ranged("bytes=3-1")},
                     {0, ranged("bytes=0-2,1-3")},
                     {0, req("HEAD", "/a", {{"range", "bytes=0-1"}})}}});
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(status(r[1]), 416);
  EXPECT_EQ(r[1].response["headers"]["content-range"], "bytes */10");
  for (int i : {2, 3, 4}) {
    EXPECT_EQ(status(r[i]), 200) << i;
    EXPECT_EQ(r[i].response["body"], "0123456789") << i;
  }
  EXPECT_EQ(status(r[5]), 200);  // Range is for GET only
  EXPECT_EQ(r[5].response["headers"]["content-length"], "10");
}

TEST(CorrectServer, SeveralDisjointRangesAreMultipart) {
  auto r = correct({{{0, put("/a", "0123456789")}, {0, ranged("bytes=0-1,5-6")}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(status(r[1]), 206);
  EXPECT_FALSE(r[1].response["headers"].contains("content-range"));
  EXPECT_EQ(r[1].response["headers"]["content-type"].get<std::string>().rfind(
                "multipart/byteranges; boundary=", 0),
            0u);
  const std::string body = r[1].response["body"];
  EXPECT_NE(body.find("Content-Range: bytes 0-1/10\r\n\r\n01\r\n"), std::string::npos);
  EXPECT_NE(body.find("Content-Range: bytes 5-6/10\r\n\r\n56\r\n"), std::string::npos);
}

TEST(CorrectServer, IfRangeNeedsTheStrongCurrentValidator) {
  const char* lm = "Tue, 14 Nov 2023 22:13:21 GMT";
  auto r = correct({{{0, put("/a", "0123456789")},
                     {0, ranged("bytes=0-1", {{"if-range", "\"1\""}})},
                     {0, ranged("bytes=0-1", {{"if-range", lm}})},
                     {0, ranged("bytes=0-1", {{"if-range", "\"2\""}})},
                     {0, ranged("bytes=0-1", {{"if-range", "W/\"1\""}})},
                     {0, ranged("bytes=0-1", {{"if-range", kOld}})}}});
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(status(r[1]), 206);
  EXPECT_EQ(status(r[2]), 206);
  for (int i : {3, 4, 5}) {
    EXPECT_EQ(status(r[i]), 200) << i;
    EXPECT_EQ(r[i].response["body"], "0123456789") << i;
  }
}

TEST(CorrectServer, GarbageIs400AndClose) {
  auto r = correct({{{0, Json("NONSENSE\r\n\r\n")}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(status(r[0]), 400);
  EXPECT_EQ(r[0].response["headers"]["connection"], "close");
  EXPECT_EQ(r[1].response, Json({{"closed", true}}));
  // Requests before the garbage are still answered, in order.
  r = correct({{{0, Json("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b "
                         "HTTP/1.1\r\nContent-Length: x\r\n\r\n")}}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(status(r[0]), 404);
  EXPECT_EQ(status(r[1]), 400);
}

// RFC 9112 §3.2: one valid Host, or 400; §3.2.2: absolute-form served, its
// authority in place of the Host field.
TEST(CorrectServer, HostIsCheckedAndAbsoluteFormServed) {
  auto status = [](const Json& request) {
    auto seen = play("", {{{0, put("/a", "x")}, {1, request}}});
    return seen.size() >= 2 ? seen[1].response.value("status", 0) : -1;
  };
  EXPECT_EQ(status(get("/a")), 200);
  EXPECT_EQ(status(get("/a", {{"host", "LOCALHOST:80"}})), 200);
  EXPECT_EQ(status(get("/a", {{"host", "[::1]"}})), 200);
  for (const char* bad : {"a b", "a@b", "[::1", "localhost:8o", "a/b", "%zz"})
    EXPECT_EQ(status(get("/a", {{"host", bad}})), 400) << bad;
  EXPECT_EQ(status(std::string("GET /a HTTP/1.1\r\n\r\n")), 400);
  EXPECT_EQ(status(std::string("GET /a HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n")), 400);
  EXPECT_EQ(status(std::string("GET /a HTTP/1.0\r\n\r\n")), 200);
  EXPECT_EQ(status(std::string("GET http://localhost/a HTTP/1.1\r\nHost: x y\r\n\r\n")),
            200);
}

TEST(CorrectServer, ChunkedRequestBodiesAreStored) {
  auto r = correct(
      {{{0, Json("PUT /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "2\r\nab\r\n1;x\r\nc\r\n0\r\n\r\n")},
        {0, get("/a")}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(status(r[0]), 201);
  EXPECT_EQ(r[1].response["body"], "abc");
}

TEST(CorrectServer, ConnectionCloseIsHonoured) {
  auto r =
      correct({{{0, get("/a", {{"connection", "keep-alive, Close"}})}, {0, get("/b")}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].response["headers"]["connection"], "close");
  EXPECT_EQ(r[1].response, Json({{"closed", true}}));
  r = correct({{{0, Json("GET /a HTTP/1.0\r\n\r\n")}}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].response, Json({{"closed", true}}));
}

TEST(CorrectServer, PipelinedResponsesInRequestOrder) {
  auto r = correct({{{0, put("/a", "1")},
                     {0, get("/b")},
                     {0, get("/a")},
                     {0, put("/a", "2")},
                     {0, get("/a")}}});
  ASSERT_EQ(r.size(), 5u);
  std::vector<int> codes;
  for (const auto& o : r) codes.push_back(status(o));
  EXPECT_EQ(codes, (std::vector<int>{201, 404, 200, 204, 200}));
  EXPECT_EQ(r[4].response["body"], "2");
}

TEST(CorrectServer, ConnectionsAreServedRoundRobin) {
  // c1's GET is served between c0's two requests.
  auto r = correct({{{0, put("/a", "1")}, {0, put("/a", "2")}, {1, get("/a")}}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].conn, 1u);
  EXPECT_EQ(r[1].response["body"], "1");
}

TEST(CorrectServer, IfMatchUsesStrongComparisonListsAndStar) {
  auto r = correct({{{0, put("/a", "x")}},
                    {{0, put("/a", "y", {{"if-match", "W/\"1\""}})}},
                    {{0, put("/a", "y", {{"if-match", "\"9\", \"1\""}})}},
                    {{0, put("/a", "z", {{"if-match", "*"}})}},
                    {{0, put("/b", "z", {{"if-match", "*"}})}}});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(status(r[1]), 412);
  EXPECT_EQ(status(r[2]), 204);
  EXPECT_EQ(status(r[3]), 204);
  EXPECT_EQ(status(r[4]), 412);  // * needs a current representation
}

TEST(CorrectServer, IfUnmodifiedSinceOnlyWithoutIfMatch) {
  auto r = correct(
      {{{0, put("/a", "x")}},
       {{0, put("/a", "y", {{"if-unmodified-since", kOld}})}},
       {{0, put("/a", "y", {{"if-unmodified-since", kFuture}})}},
       {{0, put("/a", "z", {{"if-match", "\"2\""}, {"if-unmodified-since", kOld}})}},
       {{0, put("/a", "w", {{"if-unmodified-since", "yesterday"}})}}});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(status(r[1]), 412);
  EXPECT_EQ(status(r[2]), 204);
  EXPECT_EQ(status(r[3]), 204);  // If-Match passed: the date is not evaluated
  EXPECT_EQ(status(r[4]), 204);  // not an HTTP-date: ignored
}

// RFC 9110 §5.6.7: a recipient MUST accept all three HTTP-date formats (the
// reference server once read IMF-fixdate only and answered 204 here).
TEST(CorrectServer, IfUnmodifiedSinceInEveryDateFormat) {
  for (const char* old : {"Mon, 01 Jan 2001 00:00:00 GMT",
                          "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"}) {
    auto r = correct({{{0, put("/a", "x")}},
                      {{0, put("/a", "y", {{"if-unmodified-since", old}})}},
                      {{0, get("/a", {{"if-modified-since", old}})}}});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(status(r[1]), 412) << old;
    EXPECT_EQ(status(r[2]), 200) << old;  // modified since: not 304
  }
  for (const char* future :
       {"Thu Dec 31 23:59:59 2099", "Fri, 01 Jan 2100 00:00:00 GMT"}) {
    auto r = correct({{{0, put("/a", "x")}},
                      {{0, get("/a", {{"if-modified-since", future}})}},
                      {{0, put("/a", "y", {{"if-unmodified-since", future}})}}});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(status(r[1]), 304) << future;
    EXPECT_EQ(status(r[2]), 204) << future;
  }
}

TEST(CorrectServer, IfNoneMatchUsesWeakComparison) {
  auto r = correct({{{0, put("/a", "x")}},
                    {{0, get("/a", {{"if-none-match", "W/\"1\""}})}},
                    {{0, req("HEAD", "/a", {{"if-none-match", "\"7\", \"1\""}})}},
                    {{0, get("/a", {{"if-none-match", "\"7\""}})}},
                    {{0, put("/a", "y", {{"if-none-match", "*"}})}},
                    {{0, put("/b", "y", {{"if-none-match", "*"}})}},
                    {{0, req("DELETE", "/a", {{"if-none-match", "\"1\""}})}}});
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(status(r[1]), 304);
  EXPECT_EQ(etag(r[1]), "\"1\"");
  EXPECT_EQ(status(r[2]), 304);
  EXPECT_EQ(status(r[3]), 200);
  EXPECT_EQ(status(r[4]), 412);
  EXPECT_EQ(status(r[5]), 201);
  EXPECT_EQ(status(r[6]), 412);
}

TEST(CorrectServer, IfModifiedSinceOnlyForGetAndHeadWithoutIfNoneMatch) {
  auto r = correct(
      {{{0, put("/a", "x")}},
       {{0, get("/a", {{"if-modified-since", kFuture}})}},
       {{0, get("/a", {{"if-modified-since", kOld}})}},
       {{0, get("/a", {{"if-modified-since", kFuture}, {"if-none-match", "\"5\""}})}},
       {{0, put("/a", "y", {{"if-modified-since", kFuture}})}}});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(status(r[1]), 304);
  EXPECT_EQ(status(r[2]), 200);
  EXPECT_EQ(status(r[3]), 200);
  EXPECT_EQ(status(r[4]), 204);
}

TEST(CorrectServer, PreconditionsDoNotMaskA404) {
  auto r = correct({{{0, get("/a", {{"if-match", "\"1\""}})}}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(status(r[0]), 404);
}

TEST(CorrectServer, ResetAndDeterminism) {
  HttpServerCore s;
  s.on_data(0, http::print_request(put("/a", "x")));
  auto first = s.poll();
  s.reset();
  s.on_data(0, http::print_request(put("/a", "x")));
  auto again = s.poll();
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(first[0].bytes, again[0].bytes);
  HttpServerCore seeded({.bug = "", .seed = 5});
  seeded.on_data(0, http::print_request(put("/a", "x")));
  EXPECT_NE(seeded.poll()[0].bytes, first[0].bytes);
}

TEST(CorrectServer, UnknownBugsAreRejected) {
  EXPECT_FALSE(HttpServerCore::make({.bug = "no-such-bug"}));
  EXPECT_TRUE(HttpServerCore::make({.bug = "none"}));
  EXPECT_THROW(HttpServerCore({.bug = "no-such-bug"}), std::invalid_argument);
  EXPECT_TRUE(is_known_bug(""));
  EXPECT_FALSE(is_known_bug("nope"));
}

// ---- planted bugs: each differs from the correct server on its input ---------

const Json kTag1 = {{"if-match", "\"1\""}};

const std::map<std::string, std::vector<Batch>>& bug_inputs() {
  static const std::map<std::string, std::vector<Batch>> m = {
      {"length-off-by-one", {{{0, put("/a", "123456")}, {0, get("/a")}, {0, get("/b")}}}},
      {"head-with-body",
       {{{0, put("/a", "abc")}, {0, req("HEAD", "/a")}, {0, get("/b")}}}},
      {"chunked-decimal", {{{0, put("/a", std::string(16, 'x'))}, {0, get("/a")}}}},
      {"if-match-weak",
       {{{0, put("/a", "x")}, {0, put("/a", "y", {{"if-match", "W/\"1\""}})}}}},
      {"if-match-skipped",
       {{{0, put("/a", "x")}, {0, put("/a", "y")}, {0, put("/a", "z", kTag1)}}}},
      {"if-match-first-only",
       {{{0, put("/a", "x")}, {0, put("/a", "y", {{"if-match", "\"9\", \"1\""}})}}}},
      {"if-none-match-star-ignored",
       {{{0, put("/a", "x")}, {0, put("/a", "y", {{"if-none-match", "*"}})}}}},
      {"if-none-match-strong",
       {{{0, put("/a", "x")}, {0, get("/a", {{"if-none-match", "W/\"1\""}})}}}},
      {"wrong-304",
       {{{0, put("/a", "x")}, {0, get("/a", {{"if-none-match", "\"9\""}})}}}},
      {"range-end-exclusive", {{{0, put("/a", "0123456789")}, {0, ranged("bytes=2-4")}}}},
      {"range-unsatisfiable-206",
       {{{0, put("/a", "0123456789")}, {0, ranged("bytes=10-")}}}},
      {"range-suffix-from-start",
       {{{0, put("/a", "0123456789")}, {0, ranged("bytes=-3")}}}},
      {"content-range-total", {{{0, put("/a", "0123456789")}, {0, ranged("bytes=2-4")}}}},
      {"if-range-stale",
       {{{0, put("/a", "0123456789")},
         {0, ranged("bytes=2-4", {{"if-range", "\"9\""}})}}}},
      {"if-range-weak",
       {{{0, put("/a", "0123456789")},
         {0, ranged("bytes=2-4", {{"if-range", "W/\"1\""}})}}}},
      {"head-content-length", {{{0, put("/a", "hello")}, {0, req("HEAD", "/a")}}}},
      {"head-etag", {{{0, put("/a", "hello")}, {0, req("HEAD", "/a")}}}},
      {"head-range",
       {{{0, put("/a", "hello")}, {0, req("HEAD", "/a", {{"range", "bytes=0-1"}})}}}},
      {"allow-missing", {{{0, req("POST", "/a")}}}},
      {"ims-wrong-304",
       {{{0, put("/a", "x")}, {0, get("/a", {{"if-modified-since", kOld}})}}}},
      {"ius-ignored",
       {{{0, put("/a", "x")}, {0, put("/a", "y", {{"if-unmodified-since", kOld}})}}}},
      {"ius-after-if-match",
       {{{0, put("/a", "x")},
         {0, put("/a", "y", {{"if-match", "\"1\""}, {"if-unmodified-since", kOld}})}}}},
      {"412-on-match",
       {{{0, put("/a", "x")},
         {0, put("/a", "y")},
         {0, put("/a", "z")},
         {0, put("/a", "w", {{"if-match", "\"3\""}})}}}},
      {"lost-update",
       {{{0, put("/a", "x")}, {0, put("/a", "y")}, {0, put("/a", "z")}, {0, get("/a")}}}},
      {"stale-read", {{{0, put("/a", "abcd")}, {0, put("/a", "efgh")}, {0, get("/a")}}}},
      {"delete-noop", {{{0, put("/a", "x")}, {0, req("DELETE", "/a")}, {0, get("/a")}}}},
      {"delete-prefix",
       {{{0, put("/a", "x")},
         {0, put("/a/b", "y")},
         {0, req("DELETE", "/a")},
         {0, get("/a/b")}}}},
      {"wrong-path", {{{0, put("/a/b", "x")}, {0, get("/a/b")}}}},
      {"path-case-folded", {{{0, put("/LongName1", "x")}, {0, get("/longname1")}}}},
      {"truncate-body", {{{0, put("/a", "123456789")}, {0, get("/a")}}}},
      {"etag-reuse", {{{0, put("/a", "x")}, {0, put("/a", "y")}}}},
      {"etag-from-length", {{{0, put("/a", "hello")}, {0, put("/a", "world")}}}},
      {"lm-backwards", {{{0, put("/a", "x")}, {0, put("/a", "y")}, {0, put("/a", "z")}}}},
      {"not-found-403", {{{0, get("/missing")}}}},
      {"host-unchecked", {{{0, get("/a", {{"host", "a@b"}})}}}},
      {"absolute-form-path",
       {{{0, put("/a", "x")},
         {0, std::string("GET http://localhost/a HTTP/1.1\r\n\r\n")}}}},
      {"create-204", {{{0, put("/a", "x")}}}},
      {"deep-404", {{{0, put("/a/b/c", "x")}, {0, get("/a/b/c")}}}},
      {"tombstone-200",
       {{{0, put("/a", "x")}, {0, req("DELETE", "/a")}, {0, get("/a")}}}},
      {"pipeline-reorder", {{{0, put("/a", "x")}, {0, get("/missing")}}}},
      {"pipeline-drop", {{{0, put("/a", "x")}, {0, get("/a")}}}},
      {"wrong-connection", {{{0, get("/x")}}, {{1, get("/x")}}, {{2, get("/x")}}}},
      {"racy-if-match",
       {{{0, put("/a", "x")}}, {{0, put("/a", "y", kTag1)}, {1, put("/a", "z", kTag1)}}}},
      {"torn-write", {{{0, put("/a", "x")}}, {{0, put("/a", "y")}, {1, get("/a")}}}},
      {"two-step-writes", {{{0, put("/a", "x")}, {1, put("/a", "y")}}}},
  };
  return m;
}

TEST(PlantedBugs, AreListedWithCategoriesAndDescriptions) {
  EXPECT_GE(planted_bugs().size(), 20u);
  std::set<std::string> names, categories;
  for (const auto& b : planted_bugs()) {
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate " << b.name;
    categories.insert(b.category);
    EXPECT_FALSE(b.description.empty());
    EXPECT_TRUE(bug_inputs().count(b.name)) << "no input for " << b.name;
  }
  EXPECT_EQ(categories, (std::set<std::string>{"framing", "conditional", "range",
                                               "method", "storage", "etag", "status",
                                               "connection", "concurrency", "syntax"}));
}

TEST(PlantedBugs, EachBehavesDifferentlyFromTheCorrectServer) {
  for (const auto& [name, input] : bug_inputs()) {
    auto good = play("", input);
    auto bad = play(name, input);
    EXPECT_NE(good, bad) << name;
    for (const auto& o : good) EXPECT_FALSE(o.response.contains("error")) << name;
  }
}

TEST(PlantedBugs, ConditionalBugsStayHiddenOutsideTheirTrigger) {
  // Below their thresholds these bugs behave like the correct server.
  const std::map<std::string, std::vector<Batch>> quiet = {
      {"length-off-by-one", {{{0, put("/a", "12345")}, {0, get("/a")}}}},
      {"if-match-skipped",
       {{{0, put("/a", "x")}, {0, put("/a", "z", {{"if-match", "\"9\""}})}}}},
      {"lost-update", {{{0, put("/a", "x")}, {0, put("/a", "y")}, {0, get("/a")}}}},
      {"truncate-body", {{{0, put("/a", "12345678")}, {0, get("/a")}}}},
      {"path-case-folded", {{{0, put("/Short", "x")}, {0, get("/short")}}}},
      {"deep-404", {{{0, put("/a/b", "x")}, {0, get("/a/b")}}}},
      {"wrong-connection", {{{0, get("/x")}}, {{1, get("/x")}}}},
      {"racy-if-match",
       {{{0, put("/a", "x")}},
        {{0, put("/a", "y", kTag1)}},
        {{1, put("/a", "z", kTag1)}}}},
      {"torn-write", {{{0, put("/a", "x")}}, {{0, put("/a", "y")}}, {{1, get("/a")}}}},
      {"two-step-writes",
       {{{0, put("/a", "x")}}, {{1, put("/a", "y")}}, {{0, req("DELETE", "/a")}}}},
      {"pipeline-drop", {{{0, put("/a", "x")}}, {{0, get("/a")}}}},
  };
  for (const auto& [name, input] : quiet)
    EXPECT_EQ(play(name, input), play("", input)) << name;
}

}  // namespace
}  // namespace dualfuzz::http
