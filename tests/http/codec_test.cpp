#include "dualfuzz/http/codec.h"

#include <gtest/gtest.h>

namespace dualfuzz::http {
namespace {

struct Parsed {
  std::vector<Json> messages;
  std::string error;
  friend bool operator==(const Parsed&, const Parsed&) = default;
};

// Feeds `bytes` cut at `cuts` (ascending offsets), then EOF if asked.
template <typename Parser>
Parsed feed_cut(Parser p, const std::string& bytes, const std::vector<std::size_t>& cuts,
                bool eof) {
  Parsed out;
  std::size_t at = 0;
  auto drain = [&] {
    while (auto m = p.next()) out.messages.push_back(*m);
  };
  for (std::size_t c : cuts) {
    p.feed(std::string_view(bytes).substr(at, c - at));
    drain();
    at = c;
  }
  p.feed(std::string_view(bytes).substr(at));
  if (eof) p.on_eof();
  drain();
  out.error = p.error();
  return out;
}

ResponseParser expecting(const std::vector<std::string>& methods) {
  ResponseParser p;
  for (const auto& m : methods) p.expect(m);
  return p;
}

Parsed responses(const std::vector<std::string>& methods, const std::string& bytes,
                 bool eof = true) {
  return feed_cut(expecting(methods), bytes, {}, eof);
}
Parsed requests(const std::string& bytes, bool eof = true) {
  return feed_cut(RequestParser(), bytes, {}, eof);
}

// Every way of cutting the input in two, and byte by byte, agrees with whole.
template <typename Parser>
void expect_split_invariant(const Parser& fresh, const std::string& bytes, bool eof) {
  Parsed whole = feed_cut(fresh, bytes, {}, eof);
  for (std::size_t i = 0; i <= bytes.size(); ++i)
    ASSERT_EQ(feed_cut(fresh, bytes, {i}, eof), whole) << "cut at " << i;
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
  ASSERT_EQ(feed_cut(fresh, bytes, every, eof), whole) << "byte by byte";
}

const std::string kPipelined =
    "HTTP/1.1 201 Created\r\nETag: \"1\"\r\nContent-Length: 0\r\n\r\n"
    "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello"
    "HTTP/1.1 100 Continue\r\n\r\n"
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n"
    "3;ext=1;q=\"a\"\r\nabc\r\n2 \r\nde\r\n0\r\nT: x\r\n\r\n"
    "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n"  // HEAD: no body despite the length
    "HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\r\n"
    "HTTP/1.1 204 No Content\r\n\r\n"
    "\r\n"  // a stray CRLF between messages is tolerated
    "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\nbye";
const std::vector<std::string> kMethods = {"PUT", "GET",    "GET", "HEAD",
                                           "GET", "DELETE", "GET"};

TEST(ResponseParser, PipelinedResponsesInOrder) {
  Parsed r = responses(kMethods, kPipelined);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.messages.size(), 7u);
  EXPECT_EQ(r.messages[0]["status"], 201);
  EXPECT_EQ(r.messages[0]["reason"], "Created");
  EXPECT_EQ(r.messages[0]["version"], "HTTP/1.1");
  EXPECT_EQ(r.messages[0]["headers"]["etag"], "\"1\"");
  EXPECT_EQ(r.messages[1]["body"], "hello");
  EXPECT_EQ(r.messages[1]["headers"]["x-a"], "1, 2");
  EXPECT_EQ(r.messages[2]["body"], "abcde");  // the 100 Continue was skipped
  EXPECT_EQ(r.messages[3]["body"], "");
  EXPECT_EQ(r.messages[4]["status"], 304);
  EXPECT_EQ(r.messages[5]["status"], 204);
  EXPECT_EQ(r.messages[6]["body"], "bye");
}

TEST(ResponseParser, SplitAtEveryByteAgrees) {
  expect_split_invariant(expecting(kMethods), kPipelined, true);
  expect_split_invariant(expecting(kMethods), kPipelined, false);
  expect_split_invariant(expecting({"GET"}),
                         "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", true);
  expect_split_invariant(expecting({"GET"}), "HTTP/1.1 2x0 OK\r\n\r\n", false);
}

TEST(ResponseParser, HeaderNamesAreCaseInsensitive) {
  Parsed r = responses({"GET"},
                       "HTTP/1.1 200 OK\r\nCONTENT-LENGTH: 2\r\nEtag:  \"7\" \r\n\r\nok");
  ASSERT_EQ(r.messages.size(), 1u) << r.error;
  EXPECT_EQ(r.messages[0]["headers"]["etag"], "\"7\"");
  EXPECT_EQ(r.messages[0]["headers"]["content-length"], "2");
  EXPECT_EQ(r.messages[0]["body"], "ok");
}

TEST(ResponseParser, HeadAnd304And204HaveNoBody) {
  Parsed r = responses({"HEAD", "GET", "GET"},
                       "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                       "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"
                       "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
                       false);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.messages.size(), 3u);
  for (const Json& m : r.messages) EXPECT_EQ(m["body"], "");
}

TEST(ResponseParser, CloseDelimitedBodyEndsAtEof) {
  std::string b = "HTTP/1.1 200 OK\r\n\r\npartial";
  EXPECT_TRUE(responses({"GET"}, b, false).messages.empty());
  Parsed r = responses({"GET"}, b, true);
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0]["body"], "partial");
  // A Transfer-Encoding that does not end in chunked is close-delimited too.
  r = responses({"GET"}, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz", true);
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0]["body"], "zz");
}

TEST(ResponseParser, TruncationIsAViolation) {
  for (const std::string b :
       {"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "HTTP/1.1 200 OK\r\nContent-",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"}) {
    Parsed r = responses({"GET"}, b, true);
    EXPECT_TRUE(r.messages.empty());
    EXPECT_NE(r.error.find("closed in the middle of a response"), std::string::npos)
        << r.error;
  }
  EXPECT_EQ(responses({"GET"}, "", true).error, "");  // a clean close is fine
}

TEST(ResponseParser, ViolationsShowTheOffendingBytes) {
  Parsed r = responses({"GET", "GET"},
                       "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 2x0 OK\r\n\r\n", false);
  EXPECT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.error, "malformed status line at byte 27: \"HTTP/1.1 2x0 OK\\r\\n\"");
  r = responses({"GET"}, std::string("\x00\xff garbage", 10), false);  // no newline
  EXPECT_EQ(r.error, "malformed status line at byte 0: \"\\x00\\xff garbage\"");
  r = responses({"GET"}, "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", false);
  EXPECT_EQ(r.error, "malformed header field at byte 17: \"Bad Name: x\\r\\n\"");
  r = responses({"GET"}, "HTTP/1.1 200 OK\r\n folded\r\n\r\n", false);
  EXPECT_NE(r.error.find("folding"), std::string::npos) << r.error;
  r = responses({"GET"}, "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", false);
  EXPECT_NE(r.error.find("bare CR"), std::string::npos) << r.error;
  r = responses({"GET"}, "HTTP/1.1 099 Odd\r\n\r\n", false);
  EXPECT_NE(r.error.find("status code out of range"), std::string::npos) << r.error;
  r = responses({"GET"}, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                false);
  EXPECT_NE(r.error.find("malformed chunk size at byte 47: \"zz\\r\\n\""),
            std::string::npos)
      << r.error;
  r = responses(
      {"GET"},
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n", false);
  EXPECT_NE(r.error.find("chunk data longer than its size"), std::string::npos)
      << r.error;
  // After a failure nothing more is parsed.
  ResponseParser p = expecting({"GET", "GET"});
  p.feed("garbage\r\n");
  p.feed("HTTP/1.1 204 No Content\r\n\r\n");
  EXPECT_TRUE(p.failed());
  EXPECT_FALSE(p.next());
}

TEST(ResponseParser, ContentLengthRules) {
  Parsed r =
      responses({"GET"}, "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", false);
  ASSERT_EQ(r.messages.size(), 1u) << r.error;
  EXPECT_EQ(r.messages[0]["body"], "ok");
  for (const std::string v : {"3\r\nContent-Length: 4", "3, 4", "-1", "+3", "0x3", "3a",
                              "", "99999999999999999999999999"}) {
    r = responses({"GET"}, "HTTP/1.1 200 OK\r\nContent-Length: " + v + "\r\n\r\nabcd",
                  false);
    EXPECT_TRUE(r.messages.empty()) << v;
    EXPECT_NE(r.error.find("invalid Content-Length"), std::string::npos) << v << r.error;
  }
  // Transfer-Encoding wins over Content-Length (RFC 9112 §6.3).
  r = responses(
      {"GET"},
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "2\r\nab\r\n0\r\n\r\n",
      false);
  ASSERT_EQ(r.messages.size(), 1u) << r.error;
  EXPECT_EQ(r.messages[0]["body"], "ab");
}

TEST(ResponseParser, LimitsHold) {
  Parsed r =
      responses({"GET"}, "HTTP/1.1 200 OK\r\nX: " + std::string(70000, 'a'), false);
  EXPECT_NE(r.error.find("line longer than 64 KiB"), std::string::npos) << r.error;
  std::string many;
  for (int i = 0; i < 3000; ++i)
    many += "X-" + std::to_string(i) + ": 0123456789abcdef\r\n";
  r = responses({"GET"}, "HTTP/1.1 200 OK\r\n" + many + "\r\n", false);
  EXPECT_NE(r.error.find("header section larger than 64 KiB"), std::string::npos)
      << r.error;
  r = responses({"GET"}, "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n",
                false);
  EXPECT_NE(r.error.find("16 MiB"), std::string::npos) << r.error;
  r = responses({"GET"},
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffff\r\n",
                false);
  EXPECT_NE(r.error.find("chunked body above 16 MiB"), std::string::npos) << r.error;
  r = responses({"GET"},
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                "fffffffffffffffffffffffffff\r\n",
                false);
  EXPECT_NE(r.error.find("malformed chunk size"), std::string::npos) << r.error;
  // Many small chunks are fine: chunk lines do not count as headers.
  std::string chunks;
  for (int i = 0; i < 20000; ++i) chunks += "1\r\nx\r\n";
  r = responses(
      {"GET"},
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + "0\r\n\r\n",
      false);
  ASSERT_EQ(r.messages.size(), 1u) << r.error;
  EXPECT_EQ(r.messages[0]["body"].get<std::string>().size(), 20000u);
}

TEST(RequestParser, ParsesRequestsWithBodies) {
  const std::string in =
      "PUT /a?x=1 HTTP/1.1\r\nHost: h\r\nIf-Match: \"1\"\r\nif-match: \"2\"\r\n"
      "Content-Length: 3\r\n\r\nabc"
      "\r\n"
      "POST /b HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n2;x\r\nhi\r\n0\r\nT: "
      "1\r\n\r\n"
      "GET / HTTP/1.1\r\n\r\n";
  Parsed r = requests(in);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(
      r.messages[0],
      Json({{"method", "PUT"},
            {"path", "/a?x=1"},
            {"version", "HTTP/1.1"},
            {"headers",
             {{"host", "h"}, {"if-match", "\"1\", \"2\""}, {"content-length", "3"}}},
            {"body", "abc"}}));
  EXPECT_EQ(r.messages[1]["body"], "hi");
  EXPECT_EQ(r.messages[1]["version"], "HTTP/1.0");
  EXPECT_EQ(r.messages[2]["body"], "");
  expect_split_invariant(RequestParser(), in, true);
  expect_split_invariant(RequestParser(), in.substr(0, 50), true);
}

// Found by http_request_parser_fuzzer: two empty If-Match lines combined to
// ", ", which printed and parsed back as ",". Empty list members are ignored.
TEST(RequestParser, RepeatedFieldsDropEmptyMembersAndRoundTrip) {
  Parsed r = requests(
      "PUT /a HTTP/1.1\r\nIf-Match:\r\nIf-Match:\r\nX: 1\r\nx:\r\nY:\r\ny: 2\r\n"
      "Content-Length: 3\r\n\r\nabc");
  ASSERT_EQ(r.messages.size(), 1u) << r.error;
  const Json& h = r.messages[0]["headers"];
  EXPECT_EQ(h["if-match"], "");
  EXPECT_EQ(h["x"], "1");
  EXPECT_EQ(h["y"], "2");
  Parsed again = requests(print_request(r.messages[0]));
  ASSERT_EQ(again.messages.size(), 1u) << again.error;
  Json back = again.messages[0]["headers"];
  back.erase("host");  // the printer adds a default Host
  EXPECT_EQ(back, h);
}

TEST(RequestParser, MalformedRequestsFail) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"GET /a\r\n\r\n", "malformed request line at byte 0: \"GET /a\\r\\n\""},
      {"GET  /a HTTP/1.1\r\n\r\n", "malformed request line"},
      {"GET /a HTTP/2.0\r\n\r\n", "unsupported HTTP version"},
      {"G(T /a HTTP/1.1\r\n\r\n", "malformed request line"},
      {"\x01GET", "malformed request line at byte 0: \"\\x01GET\""},
      {"GET /a HTTP/1.1\r\nX : y\r\n\r\n", "malformed header field at byte 17"},
      {"PUT /a HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
       "invalid Content-Length"},
      {"PUT /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n",
       "unacceptable Transfer-Encoding"},
      {"PUT /a HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
       "unacceptable Transfer-Encoding"},
      {"PUT /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nab",
       "closed in the middle of a request"},
  };
  for (const auto& [in, want] : cases) {
    Parsed r = requests(in);
    EXPECT_TRUE(r.messages.empty()) << in;
    EXPECT_NE(r.error.find(want), std::string::npos) << in << " -> " << r.error;
  }
}

TEST(PrintRequest, IsSafeAndFramed) {
  std::string b = print_request(
      {{"method", "PUT"},
       {"path", "/a b\r\n"},
       {"headers", {{"If-Match", "\"x\"\r\nEvil: 1"}, {"content-length", "9"}}},
       {"body", "xyz"}});
  EXPECT_EQ(b,
            "PUT /ab HTTP/1.1\r\nIf-Match: \"x\"Evil: 1\r\nHost: localhost\r\n"
            "Content-Length: 3\r\n\r\nxyz");
  EXPECT_EQ(print_request(Json(42)), "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(
      print_request({{"method", "GET"}, {"path", "/"}, {"headers", {{"host", "h"}}}}),
      "GET / HTTP/1.1\r\nhost: h\r\n\r\n");
  EXPECT_EQ(print_request({{"method", 7}, {"path", Json::array()}, {"body", {{"k", 1}}}}),
            "GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 7\r\n\r\n{\"k\":1}");
  EXPECT_EQ(print_request({{"method", "POST"}, {"path", "/p"}}),
            "POST /p HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n");
}

TEST(PrintRequest, AlwaysParsesAsExactlyOneRequest) {
  const std::vector<Json> irs = {
      Json::object(),
      {{"method", "DELETE"},
       {"path", "/x"},
       {"body", "\r\n\r\nGET /smuggled HTTP/1.1\r\n\r\n"}},
      {{"method", "G\r\nET"},
       {"path", "\x01/\x7f"},
       {"headers", {{"transfer-encoding", "chunked"}}}},
      {{"method", "PUT"}, {"headers", {{"a\r\nb", "v\0w"}, {"", "x"}}}},
  };
  for (const Json& ir : irs) {
    Parsed r = requests(print_request(ir));
    EXPECT_EQ(r.error, "") << ir;
    EXPECT_EQ(r.messages.size(), 1u) << ir;
  }
}

TEST(PrintRequest, RoundTripsThroughTheRequestParser) {
  Json ir = {{"method", "PUT"},
             {"path", "/a/b"},
             {"headers", {{"if-match", "\"1\", W/\"2\""}, {"host", "example"}}},
             {"body", "hello"}};
  Parsed r = requests(print_request(ir));
  ASSERT_EQ(r.messages.size(), 1u) << r.error;
  Json back = r.messages[0];
  EXPECT_EQ(back["version"], "HTTP/1.1");
  EXPECT_EQ(back["headers"]["content-length"], "5");
  back.erase("version");
  back["headers"].erase("content-length");
  EXPECT_EQ(back, ir);
  EXPECT_EQ(canonical_request(ir), ir);
}

// The same content chunked: cut at the sizes given, the rest in one more
// chunk, extensions on every size line; the parser reads the same body, and
// the canonical request keeps Transfer-Encoding (the model reads it).
TEST(PrintRequest, ChunkedContentRoundTrips) {
  const Json ir = {{"method", "PUT"},
                   {"path", "/a"},
                   {"body", "hello world"},
                   {"chunks", {2, 0, 3, "x"}},
                   {"chunk-ext", "n=1\r\nX: y"}};
  const std::string bytes = print_request(ir);
  EXPECT_NE(bytes.find("Transfer-Encoding: chunked\r\n\r\n2;n=1Xy"), std::string::npos)
      << bytes;
  EXPECT_EQ(bytes.find("Content-Length"), std::string::npos);
  EXPECT_NE(bytes.find("\r\n6;n=1Xy\r\n world\r\n0;n=1Xy\r\n\r\n"), std::string::npos)
      << bytes;
  Parsed r = requests(bytes);
  ASSERT_EQ(r.messages.size(), 1u) << r.error;
  EXPECT_EQ(r.messages[0]["body"], "hello world");
  const Json c = canonical_request(ir);
  EXPECT_EQ(c["body"], "hello world");
  EXPECT_EQ(c["headers"], Json({{"transfer-encoding", "chunked"}}));
  EXPECT_FALSE(c.contains("chunks"));
  // Chunks larger than the body, and no body: still one well-framed request.
  for (const Json& odd : {Json{{"method", "PUT"}, {"body", "ab"}, {"chunks", {9, 9}}},
                          Json{{"method", "GET"}, {"chunks", Json::array()}}}) {
    Parsed p = requests(print_request(odd));
    ASSERT_EQ(p.messages.size(), 1u) << p.error << odd;
    EXPECT_EQ(p.messages[0]["body"], odd.value("body", "")) << odd;
  }
}

TEST(PrintRequest, CanonicalRequestShowsWhatWentOnTheWire) {
  EXPECT_EQ(canonical_request({{"method", "G ET"}, {"path", "/a\r\n"}}),
            Json({{"method", "GET"},
                  {"path", "/a"},
                  {"headers", Json::object()},
                  {"body", ""}}));
  EXPECT_EQ(canonical_request(
                {{"method", "PUT"},
                 {"path", "/a"},
                 {"headers", {{"If-Match", "  \"1\"\r\n "}, {"Content-Length", "9"}}},
                 {"body", 12}}),
            Json({{"method", "PUT"},
                  {"path", "/a"},
                  {"headers", {{"if-match", "\"1\""}}},
                  {"body", "12"}}));
}

TEST(EscapeBytes, ShowsControlBytesAndCaps) {
  EXPECT_EQ(escape_bytes("a\r\n\"\\\x7f"), "a\\r\\n\\\"\\\\\\x7f");
  EXPECT_EQ(escape_bytes(std::string(10, 'x'), 4), "xxxx...");
}

}  // namespace
}  // namespace dualfuzz::http
