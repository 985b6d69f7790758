// The message rules of RFC 9110/9112, each both ways: responses as a server
// sends them (bytes, through the codec), judged with the request they answer.
#include "dualfuzz/http/message_rules.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/connection_options.h"
#include "dualfuzz/http/field_grammar.h"
#include "dualfuzz/http/model.h"
#include "dualfuzz/http/protocol.h"

namespace dualfuzz::http {
namespace {

using harness::Json;

const char* kDate = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n";

Json parse(const std::string& bytes, const std::string& method = "GET") {
  ResponseParser p;
  p.expect(method);
  p.feed(bytes);
  p.on_eof();
  auto r = p.next();
  EXPECT_TRUE(r) << p.error();
  return r ? normalize_response(*r) : Json();
}

Json get(const char* path = "/a", Json headers = Json::object()) {
  if (headers.is_null()) headers = Json::object();
  return {{"method", "GET"}, {"path", path}, {"headers", headers}};
}

// The breaks of one exchange, as "MUST: text" / "SHOULD: text".
std::vector<std::string> judge(harness::Protocol::MessageRules& rules, const Json& q,
                               const std::string& bytes) {
  rules.sent(q);
  std::vector<std::string> out;
  for (const auto& b : rules.received(&q, parse(bytes, q["method"].get<std::string>())))
    out.push_back((b.must ? "MUST: " : "SHOULD: ") + b.text);
  return out;
}
std::vector<std::string> judge(const Json& q, const std::string& bytes) {
  auto rules = new_message_rules();
  return judge(*rules, q, bytes);
}
std::string ok200(const std::string& extra = "", const std::string& body = "hi") {
  return "HTTP/1.1 200 OK\r\n" + std::string(kDate) +
         "Content-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n" + extra + "\r\n" + body;
}
using V = std::vector<std::string>;

TEST(MessageRules, AWellFormedAnswerBreaksNothing) {
  EXPECT_EQ(judge(get(), ok200("ETag: \"1\"\r\nServer: x/1.0 (y)\r\n")), V{});
}

// "A server MUST NOT send any Transfer-Encoding or Content-Length header
// fields in a 2xx (Successful) response to CONNECT" (RFC 9110 §8.6, RFC 9112
// §6.1); its connection is a tunnel after the header section (§9.3.6).
TEST(MessageRules, ATwoHundredToConnect) {
  const Json connect = {{"method", "CONNECT"},
                        {"path", "dualfuzz.invalid:80"},
                        {"headers", {{"host", "dualfuzz.invalid:80"}}}};
  EXPECT_EQ(judge(connect, "HTTP/1.1 200 OK\r\n" + std::string(kDate) + "\r\n"), V{});
  EXPECT_EQ(judge(connect, "HTTP/1.1 200 OK\r\n" + std::string(kDate) +
                               "Content-Length: 0\r\n\r\n"),
            V{"MUST: Content-Length in a 2xx response to CONNECT"});
  EXPECT_EQ(judge(connect, "HTTP/1.1 200 OK\r\n" + std::string(kDate) +
                               "Transfer-Encoding: chunked\r\n\r\n"),
            V{"MUST: Transfer-Encoding in a 2xx response to CONNECT"});
  // A refusal is an ordinary response, with content.
  EXPECT_EQ(judge(connect, "HTTP/1.1 405 No\r\n" + std::string(kDate) +
                               "Allow: GET\r\nContent-Type: text/plain\r\n"
                               "Content-Length: 2\r\n\r\nno"),
            V{});
}

// The codec reads a 2xx to CONNECT as the last HTTP on its connection: the
// tunnel's bytes are not a response, and the connection is done.
TEST(MessageRules, AConnectionTunnelledByConnectSpeaksHttpNoMore) {
  ResponseParser p;
  p.expect("CONNECT");
  p.expect("GET");
  p.feed("HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01garbage");
  p.on_eof();
  auto r = p.next();
  ASSERT_TRUE(r) << p.error();
  EXPECT_EQ((*r)["status"], 200);
  EXPECT_EQ((*r)["body"], "");
  EXPECT_FALSE(p.next());
  EXPECT_FALSE(p.failed()) << p.error();
  const Json connect = {{"method", "CONNECT"}, {"path", "dualfuzz.invalid:80"}};
  EXPECT_TRUE(closes_connection(connect, *r));
  EXPECT_FALSE(
      closes_connection(connect, {{"status", 407}, {"headers", Json::object()}}));
  EXPECT_FALSE(closes_connection(get(), *r));
}

TEST(MessageRules, RepeatedSingletonFieldLines) {
  EXPECT_EQ(judge(get(), ok200("ETag: \"1\"\r\nETag: \"1\"\r\n")),
            V{"MUST: more than one etag field line"});
  // Lists may repeat (§5.3).
  EXPECT_EQ(judge(get(), ok200("Vary: a\r\nVary: b\r\n")), V{});
}

TEST(MessageRules, FramingOf1xxAnd204) {
  EXPECT_EQ(judge(get(), std::string("HTTP/1.1 204 No Content\r\n") + kDate +
                             "Content-Length: 0\r\n\r\n"),
            V{"MUST: Content-Length in a 204 response"});
  EXPECT_EQ(judge(get(), std::string("HTTP/1.1 204 No Content\r\n") + kDate + "\r\n"),
            V{});
  EXPECT_EQ(judge(get(), "HTTP/1.1 100 Continue\r\nTransfer-Encoding: chunked\r\n\r\n" +
                             ok200()),
            V{"MUST: Transfer-Encoding in a 1xx response"});
  EXPECT_EQ(judge(get(), "HTTP/1.1 100 Continue\r\n\r\n" + ok200()), V{});
}

TEST(MessageRules, FieldsAStatusRequires) {
  const std::string d = kDate;
  EXPECT_EQ(judge(get(), "HTTP/1.1 401 No\r\n" + d + "Content-Length: 0\r\n\r\n"),
            V{"MUST: a 401 response without www-authenticate"});
  EXPECT_EQ(judge(get(),
                  "HTTP/1.1 401 No\r\n" + d +
                      "WWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n"),
            V{});
  EXPECT_EQ(judge(get(), "HTTP/1.1 405 No\r\n" + d + "Content-Length: 0\r\n\r\n"),
            V{"MUST: a 405 response without allow"});
  EXPECT_EQ(judge(get(), "HTTP/1.1 426 No\r\n" + d + "Content-Length: 0\r\n\r\n"),
            V{"MUST: a 426 response without upgrade"});
  // A redirect's Location is a SHOULD: an advisory.
  EXPECT_EQ(judge(get(), "HTTP/1.1 301 Moved\r\n" + d + "Content-Length: 0\r\n\r\n"),
            V{"SHOULD: a 301 response without location"});
  EXPECT_EQ(judge(get(), "HTTP/1.1 301 Moved\r\n" + d +
                             "Location: /b\r\nContent-Length: 0\r\n\r\n"),
            V{});
  EXPECT_EQ(
      judge(get(), "HTTP/1.1 205 Reset\r\n" + d + "Content-Length: 2\r\n\r\nhi"),
      (V{"MUST: content in a 205 response", "SHOULD: content without Content-Type"}));
}

TEST(MessageRules, GrammarOfEachLine) {
  EXPECT_EQ(judge(get(), ok200("ETag: 1\r\n")),
            V{"MUST: a etag field that does not match its grammar ([ W/ ] DQUOTE *etagc "
              "DQUOTE)"});
  EXPECT_EQ(
      judge(get(), ok200("Last-Modified: Sunday, 06-Nov-94 08:49:37 GMT\r\n")).size(),
      1u);
  EXPECT_EQ(judge(get(), ok200("X-Anything: 1 2 3\r\n")), V{});
}

TEST(MessageRules, DateOnceTheServerShowsAClock) {
  auto rules = new_message_rules();
  const std::string undated =
      "HTTP/1.1 200 OK\r\nContent-Type: a/b\r\nContent-Length: 0\r\n\r\n";
  // No Date yet: the server may have no clock (§6.6.1): an advisory.
  EXPECT_EQ(judge(*rules, get(), undated),
            V{"SHOULD: a 2xx-4xx response without Date (no clock shown)"});
  EXPECT_EQ(judge(*rules, get(), ok200()), V{});
  EXPECT_EQ(judge(*rules, get(), undated),
            V{"MUST: a 2xx-4xx response without Date from a server with a clock"});
  // 5xx may omit it.
  EXPECT_EQ(judge(*rules, get(), "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n"), V{});
}

TEST(MessageRules, A304RepeatsThe200sFields) {
  auto rules = new_message_rules();
  EXPECT_EQ(judge(*rules, get(), ok200("ETag: \"1\"\r\nVary: accept\r\n")), V{});
  const Json cond = get("/a", {{"if-none-match", "\"1\""}});
  EXPECT_EQ(judge(*rules, cond,
                  std::string("HTTP/1.1 304 NM\r\n") + kDate + "ETag: \"1\"\r\n\r\n"),
            V{"MUST: a 304 without a field its 200 had"});
  EXPECT_EQ(judge(*rules, cond,
                  std::string("HTTP/1.1 304 NM\r\n") + kDate +
                      "ETag: \"1\"\r\nVary: accept\r\n\r\n"),
            V{});
  EXPECT_EQ(judge(*rules, cond,
                  std::string("HTTP/1.1 304 NM\r\n") + kDate +
                      "ETag: \"1\"\r\nVary: accept\r\nContent-Length: 7\r\n\r\n"),
            V{"MUST: a 304's Content-Length other than its 200's content length"});
  EXPECT_EQ(judge(*rules, cond,
                  std::string("HTTP/1.1 304 NM\r\n") + kDate +
                      "ETag: \"1\"\r\nVary: accept\r\nContent-Length: 2\r\n\r\n"),
            V{});
  // A 206 likewise (§15.3.7).
  EXPECT_EQ(judge(*rules, get("/a", {{"range", "bytes=0-0"}}),
                  std::string("HTTP/1.1 206 P\r\n") + kDate +
                      "Content-Type: text/plain\r\nContent-Range: bytes "
                      "0-0/2\r\nContent-Length: 1\r\n\r\nh"),
            V{"MUST: a 206 without a field its 200 had"});
}

TEST(MessageRules, AWriteBetweenForgetsThe200) {
  auto rules = new_message_rules();
  EXPECT_EQ(judge(*rules, get(), ok200("ETag: \"1\"\r\n")), V{});
  const Json put = {{"method", "PUT"}, {"path", "/b"}, {"headers", Json::object()}};
  EXPECT_EQ(judge(*rules, put, std::string("HTTP/1.1 204 NC\r\n") + kDate + "\r\n"), V{});
  EXPECT_EQ(judge(*rules, get("/a", {{"if-none-match", "\"1\""}}),
                  std::string("HTTP/1.1 304 NM\r\n") + kDate + "\r\n"),
            V{});
}

TEST(MessageRules, HeadAndGetFieldsAreASHOULD) {
  auto rules = new_message_rules();
  EXPECT_EQ(judge(*rules, get(), ok200("ETag: \"1\"\r\n")), V{});
  const Json head = {{"method", "HEAD"}, {"path", "/a"}, {"headers", Json::object()}};
  EXPECT_EQ(judge(*rules, head,
                  std::string("HTTP/1.1 200 OK\r\n") + kDate +
                      "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n"),
            V{"SHOULD: HEAD and GET answered with different fields"});
}

TEST(MessageRules, SwitchingProtocols) {
  const std::string d = kDate;
  const Json plain = get();
  EXPECT_EQ(
      judge(plain,
            "HTTP/1.1 101 Switching\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n"),
      V{"MUST: a 101 switching to a protocol the request did not offer"});
  const Json asks = get("/a", {{"upgrade", "h2c"}, {"connection", "upgrade"}});
  EXPECT_EQ(judge(asks,
                  "HTTP/1.1 101 Switching\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n"
                  "\x00\x00\x12 binary"),
            V{});
  EXPECT_EQ(judge(asks, "HTTP/1.1 101 Switching\r\nConnection: upgrade\r\n\r\n"),
            V{"MUST: a 101 response without upgrade"});
  Json expects = get("/a", {{"upgrade", "h2c"}, {"expect", "100-continue"}});
  expects["method"] = "PUT";
  expects["body"] = "x";
  EXPECT_EQ(judge(expects, "HTTP/1.1 101 Switching\r\nUpgrade: h2c\r\n\r\n"),
            V{"MUST: a 101 to Expect: 100-continue without a 100"});
  EXPECT_EQ(judge(expects,
                  "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 S\r\nUpgrade: h2c\r\n\r\n"),
            V{});
  // Without content the expectation is the client's error (§10.1.1: a
  // client MUST NOT send it so): nothing to wait for, no 100 owed.
  const Json empty = get("/a", {{"upgrade", "h2c"}, {"expect", "100-continue"}});
  EXPECT_EQ(judge(empty, "HTTP/1.1 101 Switching\r\nUpgrade: h2c\r\n\r\n"), V{});
}

TEST(MessageRules, CloseAnsweredWithClose) {
  const Json closing = get("/a", {{"connection", "close"}});
  EXPECT_EQ(judge(closing, ok200()),
            V{"SHOULD: no close option in the answer to a request that closes"});
  EXPECT_EQ(judge(closing, ok200("Connection: close\r\n")), V{});
}

TEST(MessageRules, TheTableNamesEachRule) {
  EXPECT_GT(message_rules().size(), 40u);
  for (const MessageRule& r : message_rules()) {
    EXPECT_FALSE(r.clause.empty()) << r.id;
    EXPECT_FALSE(r.text.empty()) << r.id;
  }
}

// Every rule of the table, both ways: a response that breaks it (and only
// it) and one that does not, after the exchanges the rule compares with.
// The table must name each rule, so a new rule cannot be added untested.
TEST(MessageRules, EveryRuleBothWays) {
  const std::string d = kDate;
  const Json asks = get("/a", {{"upgrade", "h2c"}, {"connection", "upgrade"}});
  Json expects = get("/a", {{"upgrade", "h2c"}, {"expect", "100-continue"}});
  expects["method"] = "PUT";
  expects["body"] = "x";
  Json http10 = get();
  http10["version"] = "HTTP/1.0";
  const Json connect = {
      {"method", "CONNECT"}, {"path", "dualfuzz.invalid:80"}, {"headers", Json::object()}};
  const Json head = {{"method", "HEAD"}, {"path", "/a"}, {"headers", Json::object()}};
  const Json inm = get("/a", {{"if-none-match", "\"1\""}});
  const Json range = get("/a", {{"range", "bytes=0-0"}});
  const std::string with_etag = ok200("ETag: \"1\"\r\n");
  struct Case {
    std::string_view id;
    std::vector<std::pair<Json, std::string>> before;  // exchanges judged first
    Json request;
    std::string breaks;
    std::string expected;  // the one break, "MUST: ..." / "SHOULD: ..."
    std::string clean;
  };
  const std::vector<Case> cases = {
      {"field-value-chars", {}, get(), ok200("X-A: a\x7f" "b\r\n"),
       "MUST: a control character in a field value", ok200("X-A: ab\r\n")},
      {"content-length-1xx-204", {}, get(),
       "HTTP/1.1 204 NC\r\n" + d + "Content-Length: 0\r\n\r\n",
       "MUST: Content-Length in a 204 response", "HTTP/1.1 204 NC\r\n" + d + "\r\n"},
      {"transfer-encoding-1xx-204", {}, get(),
       "HTTP/1.1 100 Continue\r\nTransfer-Encoding: chunked\r\n\r\n" + ok200(),
       "MUST: Transfer-Encoding in a 1xx response",
       "HTTP/1.1 100 Continue\r\n\r\n" + ok200()},
      {"content-205", {}, get(),
       "HTTP/1.1 205 R\r\n" + d + "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi",
       "MUST: content in a 205 response",
       "HTTP/1.1 205 R\r\n" + d + "Content-Length: 0\r\n\r\n"},
      {"upgrade-101", {}, asks, "HTTP/1.1 101 S\r\nConnection: upgrade\r\n\r\n",
       "MUST: a 101 response without upgrade",
       "HTTP/1.1 101 S\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n"},
      {"switch-unoffered", {}, get(),
       "HTTP/1.1 101 S\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n",
       "MUST: a 101 switching to a protocol the request did not offer", ok200()},
      {"continue-before-101", {}, expects, "HTTP/1.1 101 S\r\nUpgrade: h2c\r\n\r\n",
       "MUST: a 101 to Expect: 100-continue without a 100",
       "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 S\r\nUpgrade: h2c\r\n\r\n"},
      {"www-authenticate-401", {}, get(),
       "HTTP/1.1 401 N\r\n" + d + "Content-Length: 0\r\n\r\n",
       "MUST: a 401 response without www-authenticate",
       "HTTP/1.1 401 N\r\n" + d + "WWW-Authenticate: Basic realm=\"x\"\r\n"
       "Content-Length: 0\r\n\r\n"},
      {"allow-405", {}, get(), "HTTP/1.1 405 N\r\n" + d + "Content-Length: 0\r\n\r\n",
       "MUST: a 405 response without allow",
       "HTTP/1.1 405 N\r\n" + d + "Allow: GET, HEAD\r\nContent-Length: 0\r\n\r\n"},
      {"proxy-authenticate-407", {}, get(),
       "HTTP/1.1 407 N\r\n" + d + "Content-Length: 0\r\n\r\n",
       "MUST: a 407 response without proxy-authenticate",
       "HTTP/1.1 407 N\r\n" + d + "Proxy-Authenticate: Basic realm=\"p\"\r\n"
       "Content-Length: 0\r\n\r\n"},
      {"upgrade-426", {}, get(), "HTTP/1.1 426 N\r\n" + d + "Content-Length: 0\r\n\r\n",
       "MUST: a 426 response without upgrade",
       "HTTP/1.1 426 N\r\n" + d + "Upgrade: h2c\r\nContent-Length: 0\r\n\r\n"},
      {"location-3xx", {}, get(), "HTTP/1.1 302 F\r\n" + d + "Content-Length: 0\r\n\r\n",
       "SHOULD: a 302 response without location",
       "HTTP/1.1 302 F\r\n" + d + "Location: /b\r\nContent-Length: 0\r\n\r\n"},
      {"content-type", {}, get(), "HTTP/1.1 200 OK\r\n" + d + "Content-Length: 2\r\n\r\nhi",
       "SHOULD: content without Content-Type", ok200()},
      {"date", {{get(), ok200()}}, get(),
       "HTTP/1.1 200 OK\r\nContent-Type: a/b\r\nContent-Length: 0\r\n\r\n",
       "MUST: a 2xx-4xx response without Date from a server with a clock", ok200()},
      {"last-modified-after-date", {}, get(),
       ok200("Last-Modified: Sun, 06 Nov 1994 08:49:39 GMT\r\n"),
       "MUST: a Last-Modified later than the response's Date",
       ok200("Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n")},
      {"last-modified-tick", {}, get(),
       ok200("Last-Modified: Sun, 06 Nov 1994 08:49:38 GMT\r\n"),
       "SHOULD: a Last-Modified one second after the response's Date (two clocks)",
       ok200("Last-Modified: Sun, 06 Nov 1994 08:49:36 GMT\r\n")},
      {"transfer-encoding-http10", {}, http10,
       "HTTP/1.1 200 OK\r\n" + d +
           "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
           "2\r\nhi\r\n0\r\n\r\n",
       "MUST: Transfer-Encoding in the answer to an HTTP/1.0 request", ok200()},
      {"connect-2xx-framing", {}, connect,
       "HTTP/1.1 200 OK\r\n" + d + "Content-Length: 0\r\n\r\n",
       "MUST: Content-Length in a 2xx response to CONNECT",
       "HTTP/1.1 200 OK\r\n" + d + "\r\n"},
      {"content-range-416", {}, get("/a", {{"range", "bytes=5-6"}}),
       "HTTP/1.1 416 R\r\n" + d + "Content-Length: 0\r\n\r\n",
       "SHOULD: a 416 to a byte-range request without Content-Range",
       "HTTP/1.1 416 R\r\n" + d + "Content-Range: bytes */2\r\nContent-Length: 0\r\n\r\n"},
      {"close-option", {}, get("/a", {{"connection", "close"}}), ok200(),
       "SHOULD: no close option in the answer to a request that closes",
       ok200("Connection: close\r\n")},
      {"head-get-fields", {{get(), with_etag}}, head,
       "HTTP/1.1 200 OK\r\n" + d + "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n",
       "SHOULD: HEAD and GET answered with different fields",
       "HTTP/1.1 200 OK\r\n" + d +
           "Content-Type: text/plain\r\nContent-Length: 2\r\nETag: \"1\"\r\n\r\n"},
      {"fields-304", {{get(), with_etag}}, inm, "HTTP/1.1 304 NM\r\n" + d + "\r\n",
       "MUST: a 304 without a field its 200 had",
       "HTTP/1.1 304 NM\r\n" + d + "ETag: \"1\"\r\n\r\n"},
      {"content-length-304", {{get(), with_etag}}, inm,
       "HTTP/1.1 304 NM\r\n" + d + "ETag: \"1\"\r\nContent-Length: 3\r\n\r\n",
       "MUST: a 304's Content-Length other than its 200's content length",
       "HTTP/1.1 304 NM\r\n" + d + "ETag: \"1\"\r\nContent-Length: 2\r\n\r\n"},
      {"fields-206", {{get(), with_etag}}, range,
       "HTTP/1.1 206 P\r\n" + d +
           "Content-Type: text/plain\r\nContent-Range: bytes 0-0/2\r\n"
           "Content-Length: 1\r\n\r\nh",
       "MUST: a 206 without a field its 200 had",
       "HTTP/1.1 206 P\r\n" + d +
           "Content-Type: text/plain\r\nContent-Range: bytes 0-0/2\r\nETag: \"1\"\r\n"
           "Content-Length: 1\r\n\r\nh"},
  };
  // A repeated line of each singleton field; ok200 has one Date, one
  // Content-Type and one Content-Length already.
  const std::map<std::string_view, std::string> singleton_value = {
      {"age", "1"},
      {"content-length", "2"},
      {"content-location", "/a"},
      {"content-range", "bytes 0-1/2"},
      {"content-type", "text/plain"},
      {"date", "Sun, 06 Nov 1994 08:49:37 GMT"},
      {"etag", "\"1\""},
      {"expires", "Sun, 06 Nov 1994 08:49:37 GMT"},
      {"last-modified", "Sun, 06 Nov 1994 08:49:37 GMT"},
      {"location", "/b"},
      {"retry-after", "1"},
      {"server", "x/1"}};
  std::set<std::string_view> named;
  auto check = [&](const Case& c) {
    named.insert(c.id);
    for (const bool broken : {true, false}) {
      auto rules = new_message_rules();
      for (const auto& [q, r] : c.before) EXPECT_EQ(judge(*rules, q, r), V{}) << c.id;
      EXPECT_EQ(judge(*rules, c.request, broken ? c.breaks : c.clean),
                broken ? V{c.expected} : V{})
          << c.id << (broken ? " (broken)" : " (clean)");
    }
  };
  for (const Case& c : cases) check(c);
  for (const auto& [name, value] : singleton_value) {
    const bool in_ok200 =
        name == "date" || name == "content-type" || name == "content-length";
    const std::string line = std::string(name) + ": " + value + "\r\n";
    check({name, {}, get(), ok200(in_ok200 ? line : line + line),
           "MUST: more than one " + std::string(name) + " field line",
           ok200(in_ok200 ? "" : line)});
  }
  for (const MessageRule& r : message_rules()) {
    // The grammars are tested value by value in field_grammar_test.cpp
    // (FieldGrammar.EveryGrammarBothWays), and through a line here above.
    if (field_grammar(r.id) && !singleton_value.count(r.id)) continue;
    EXPECT_TRUE(named.count(r.id)) << r.id << " has no case";
  }
}

}  // namespace
}  // namespace dualfuzz::http
