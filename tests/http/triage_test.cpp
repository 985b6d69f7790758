// The HTTP plug-in's presentation hooks: a request and a response as one
// readable line (what reports and chart tooltips show), and the fallback to
// JSON for an IR that is not an HTTP message.
#include "dualfuzz/http/triage.h"

#include <gtest/gtest.h>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/http/protocol.h"

namespace dualfuzz::http {
namespace {

TEST(Describe, RequestOnOneLine) {
  const Json q = {{"method", "PUT"},
                  {"path", "/doc"},
                  {"headers", {{"if-match", "\"1\""}}},
                  {"body", "v2"}};
  EXPECT_EQ(describe_request(q), "PUT /doc  if-match: \"1\"  (2 bytes)");
  EXPECT_EQ(describe_request(Json{{"method", "GET"}, {"path", "/a"}, {"body", ""}}),
            "GET /a");
}

// A field sent blind shows as sent (controls escaped), and names a kind of
// request of its own for behaviour coverage.
TEST(Describe, AFieldSentBlind) {
  const Json q = {{"method", "GET"},
                  {"path", "/a"},
                  {"havoc", {{"name", "range"}, {"value", "bytes=\x01-"}}}};
  EXPECT_EQ(describe_request(q), "GET /a (sent blind: range: bytes=\\x01-)");
  EXPECT_EQ(request_shape(q), "GET blind(range)");
  EXPECT_EQ(request_shape({{"method", "GET"}, {"path", "/a"}}), "GET");
}

TEST(Describe, ResponseOnOneLine) {
  const Json r = {{"status", 204},
                  {"reason", "No Content"},
                  {"headers", {{"etag", "\"2\""}}},
                  {"body", ""}};
  EXPECT_EQ(describe_response(r), "204  etag: \"2\"");
}

TEST(Describe, NotAnHttpMessageFallsBackToJson) {
  const Json odd = {{"x", 1}};
  EXPECT_EQ(describe_request(odd), "{\"x\":1}");
  EXPECT_EQ(describe_response(odd), "{\"x\":1}");
}

// The plug-in wires them into the harness: the run report reads them.
TEST(Describe, ThePluginsReportUsesThem) {
  const harness::Protocol p = protocol();
  harness::RunResult r;
  r.trace.add(1, 0, {{"method", "PUT"}, {"path", "/doc"}, {"body", "v1"}});
  r.trace.add(2, 0, {{"status", 201}, {"headers", {{"etag", "\"1\""}}}});
  EXPECT_EQ(r.report(p),
            "trace (c = connection, > sent, < received):\n"
            "  c0 > 1 PUT /doc  (2 bytes)\n"
            "  c0 < 2 201  etag: \"1\"\n"
            "verdict: no violation\n");
  EXPECT_NE(r.report(p, harness::TraceFormat::Json).find("  c0 < 2 {\"headers\""),
            std::string::npos);
}

// A run's namespace covers WebDAV's Destination as well (RFC 4918 §10.3),
// whether an absolute URI or an absolute path.
TEST(Namespace, DestinationFollowsThePath) {
  const Json q = {{"method", "COPY"},
                  {"path", "/a/b"},
                  {"headers", {{"destination", "http://localhost/c/d"}}}};
  const Json n = namespace_request(q, "r7-");
  EXPECT_EQ(n["path"], "/r7-a/b");
  EXPECT_EQ(n["headers"]["destination"], "http://localhost/r7-c/d");
  const Json p = namespace_request(
      {{"method", "MOVE"}, {"path", "/a"}, {"headers", {{"destination", "/e"}}}}, "r7-");
  EXPECT_EQ(p["headers"]["destination"], "/r7-e");
}

// A target that names no resource keeps its form: CONNECT's authority (RFC
// 9112 §3.2.3), OPTIONS's asterisk (§3.2.4).
TEST(Namespace, AuthorityAndAsteriskStayAsTheyAre) {
  const Json c = {{"method", "CONNECT"}, {"path", "dualfuzz.invalid:80"}};
  EXPECT_EQ(namespace_request(c, "r7-"), c);
  const Json o = {{"method", "OPTIONS"}, {"path", "*"}};
  EXPECT_EQ(namespace_request(o, "r7-"), o);
  EXPECT_EQ(namespace_request({{"method", "OPTIONS"}, {"path", "/a"}}, "r7-")["path"],
            "/r7-a");
}

}  // namespace
}  // namespace dualfuzz::http

namespace dualfuzz::http {
namespace {

// The shrinker's lighter variants of a request (Protocol::lighter): each
// precondition dropped, and an entity-tag precondition naming no
// representation, with the request as it would then be sent; none for a
// tag already unrelated.
TEST(Lighter, DropsEachPreconditionAndUnrelatesEachTag) {
  const harness::FunctionRegistry fns;
  const harness::Jexp body = *harness::parse_jexp(
      R"({"method":"PUT","path":"/a","headers":{"If-Match":"W/\"2\"","if-unmodified-since":"x"}})",
      fns);
  const Json sent = {
      {"method", "PUT"},
      {"path", "/a"},
      {"headers", {{"if-match", "W/\"2\""}, {"if-unmodified-since", "x"}}}};
  const auto all = lighter(body, sent);
  std::vector<Json> shown;
  for (const auto& l : all) shown.push_back(l.sent["headers"]);
  EXPECT_EQ(shown, (std::vector<Json>{{{"if-unmodified-since", "x"}},
                                      {{"if-match", "\"dualfuzz-unrelated\""},
                                       {"if-unmodified-since", "x"}},
                                      {{"if-match", "W/\"2\""}}}));
  EXPECT_EQ(harness::print_jexp(*all[1].body.find("headers")->find("If-Match")),
            "\"\\\"dualfuzz-unrelated\\\"\"");
  EXPECT_FALSE(all[0].restates);
  EXPECT_TRUE(all[1].restates);
  // Already unrelated: only the drop.
  const auto again = lighter(all[1].body, all[1].sent);
  EXPECT_EQ(again.size(), 3u - 1u);
}

// ... and the request without its syntax defect, or without its field
// sent blind, first: a signature names either (request_shape).
TEST(Lighter, DropsTheDefectAndTheBlindField) {
  const harness::FunctionRegistry fns;
  const harness::Jexp body = *harness::parse_jexp(
      R"({"method":"PUT","path":"/a","malformed":"many-fields","havoc":{"name":"x-a","value":"1"}})",
      fns);
  const Json sent = {{"method", "PUT"},
                     {"path", "/a"},
                     {"malformed", "many-fields"},
                     {"havoc", {{"name", "x-a"}, {"value", "1"}}}};
  const auto all = lighter(body, sent);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].body.find("malformed"), nullptr);
  EXPECT_NE(all[0].body.find("havoc"), nullptr);
  EXPECT_FALSE(all[0].sent.contains("malformed"));
  EXPECT_TRUE(all[0].sent.contains("havoc"));
  EXPECT_EQ(all[1].body.find("havoc"), nullptr);
  EXPECT_NE(all[1].body.find("malformed"), nullptr);
  EXPECT_FALSE(all[1].sent.contains("havoc"));
  EXPECT_FALSE(all[0].restates || all[1].restates);
  // With the one left, one variant; with neither, none.
  EXPECT_EQ(lighter(all[1].body, all[1].sent).size(), 1u);
  EXPECT_TRUE(lighter(lighter(all[1].body, all[1].sent)[0].body, Json::object()).empty());
}

// Protocol::plainer: any method as GET, the fields and content kept; a GET,
// or a request without a method string, has none.
TEST(Plainer, AnyMethodAsGetTheRestKept) {
  const harness::Jexp put = harness::Jexp::from_json(
      {{"method", "PUT"}, {"path", "/a"}, {"headers", {{"if", "(<x>)"}}}, {"body", "v"}});
  const auto get = plainer(put);
  ASSERT_TRUE(get);
  EXPECT_EQ(harness::string_field(*get, "method"), "GET");
  EXPECT_EQ(harness::string_field(*get, "path"), "/a");
  EXPECT_EQ(harness::string_field(*get, "body"), "v");
  ASSERT_NE(get->find("headers"), nullptr);
  EXPECT_EQ(harness::string_field(*get->find("headers"), "if"), "(<x>)");
  EXPECT_FALSE(plainer(*get));
  EXPECT_FALSE(plainer(harness::Jexp::from_json({{"path", "/a"}})));
}

// Protocol::probe: a GET of the path (with the request's Host) whose ETag
// gives a literal entity tag, weak or strong as the literal is; none for a
// value that is no single tag, for the tag Lighter makes up, or for a
// request without a path.
TEST(Probe, AGetOfThePathForAnEntityTag) {
  const harness::Jexp q = harness::Jexp::from_json(
      {{"method", "PUT"},
       {"path", "/a"},
       {"headers", {{"Host", "v.example"}, {"if-match", "W/\"6b0e88ba-3\""}}},
       {"body", "v"}});
  const auto weak = probe(q, "W/\"6b0e88ba-3\"");
  ASSERT_TRUE(weak);
  EXPECT_EQ(harness::print_jexp(weak->request),
            "{\"headers\":{\"Host\":\"v.example\"},\"method\":\"GET\",\"path\":\"/a\"}");
  EXPECT_EQ(weak->field, harness::Jpath({harness::Jpath::Field{"headers"},
                                         harness::Jpath::Field{"etag"}}));
  EXPECT_EQ(weak->function, "weak");
  const auto strong = probe(q, "\"6b0e88ba-3\"");
  ASSERT_TRUE(strong);
  EXPECT_EQ(strong->function, "strong");
  // A list: its member most like a server's tag, which the reference
  // stands for; none when no member is one.
  const auto listed = probe(q, "\"1\", W/\"6b0f7d09-7\"");
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->function, "weak");
  EXPECT_EQ(probe(q, "\"ab,cdef12345678\" , W/\"6b0f7d09-7\"")->function, "strong");
  EXPECT_FALSE(probe(q, "\"1\", \"2\""));
  EXPECT_FALSE(probe(q, "\"1\", \"dualfuzz-unrelated\""));
  EXPECT_FALSE(probe(q, "\"6b0f7d09-7\", not a tag"));
  EXPECT_FALSE(probe(q, "Mon, 01 Jan 2001 00:00:00 GMT"));
  EXPECT_FALSE(probe(q, "\"dualfuzz-unrelated\""));
  EXPECT_FALSE(probe(q, 7));
  EXPECT_FALSE(probe(harness::Jexp::from_json({{"method", "GET"}}), "\"6b0e88ba-3\""));
  // The plug-in's hook is this one.
  EXPECT_TRUE(protocol().probe);
}

// Protocol::flatter: a path below a collection moved to the top in every
// request that names it or a path below it (a Destination too); none for a
// path at the top, or where the top name is another path's.
TEST(Flatter, APathBelowACollectionMovesToTheTopEverywhere) {
  using harness::Jexp;
  const std::vector<Jexp> bodies = {
      Jexp::from_json({{"method", "MKCOL"}, {"path", "/a"}}),
      Jexp::from_json({{"method", "PUT"}, {"path", "/a/b"}, {"body", "v"}}),
      Jexp::from_json({{"method", "COPY"},
                       {"path", "/a/b/c"},
                       {"headers", {{"destination", "http://localhost/a/b/d"}}}}),
      Jexp::from_json({{"method", "GET"}, {"path", "/a/bc"}})};
  const auto all = flatter(bodies);
  // /a/b, /a/b/c and /a/bc move; /a is at the top.
  ASSERT_EQ(all.size(), 3u);
  const auto& b = all[0];  // /a/b -> /b
  ASSERT_EQ(b.size(), bodies.size());
  EXPECT_EQ(harness::string_field(b[0], "path"), "/a");
  EXPECT_EQ(harness::string_field(b[1], "path"), "/b");
  EXPECT_EQ(harness::string_field(b[1], "body"), "v");
  EXPECT_EQ(harness::string_field(b[2], "path"), "/b/c");
  EXPECT_EQ(harness::string_field(*b[2].find("headers"), "destination"),
            "http://localhost/b/d");
  EXPECT_EQ(harness::string_field(b[3], "path"), "/a/bc") << "not below /a/b";
  EXPECT_EQ(harness::string_field(all[1][2], "path"), "/c");
  EXPECT_EQ(harness::string_field(all[1][1], "path"), "/a/b");
  EXPECT_EQ(harness::string_field(all[2][3], "path"), "/bc");
  // The top name taken: /a/b cannot become /b.
  std::vector<Jexp> taken = bodies;
  taken.push_back(Jexp::from_json({{"method", "GET"}, {"path", "/b/x"}}));
  for (const auto& c : flatter(taken))
    EXPECT_NE(harness::string_field(c[1], "path"), "/b");
  EXPECT_TRUE(flatter({Jexp::from_json({{"method", "GET"}, {"path", "/a"}})}).empty());
}

}  // namespace
}  // namespace dualfuzz::http
