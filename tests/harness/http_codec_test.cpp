#include "dualfuzz/harness/http_codec.h"

#include <gtest/gtest.h>

namespace dualfuzz::harness::http {
namespace {

std::vector<Json> parse_all(const std::vector<std::string>& methods,
                            const std::string& bytes, std::size_t split, bool eof,
                            std::string* error = nullptr) {
  ResponseParser p;
  for (const auto& m : methods) p.expect(m);
  for (std::size_t i = 0; i < bytes.size(); i += split)
    p.feed(std::string_view(bytes).substr(i, split));
  if (eof) p.on_eof();
  std::vector<Json> out;
  while (auto r = p.next()) out.push_back(*r);
  if (error) *error = p.error();
  return out;
}

const std::string kPipelined =
    "HTTP/1.1 201 Created\r\nETag: \"1\"\r\nContent-Length: 0\r\n\r\n"
    "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello"
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
    "chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nT: x\r\n\r\n"
    "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n"  // HEAD: no body despite the length
    "HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\r\n"
    "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\nbye";
const std::vector<std::string> kMethods = {"PUT", "GET", "GET", "HEAD", "GET", "GET"};

TEST(HttpCodec, PipelinedResponsesSplitAtEveryByteAgree) {
  auto whole = parse_all(kMethods, kPipelined, kPipelined.size(), true);
  ASSERT_EQ(whole.size(), 6u);
  EXPECT_EQ(whole[0]["status"], 201);
  EXPECT_EQ(whole[0]["headers"]["etag"], "\"1\"");
  EXPECT_EQ(whole[1]["body"], "hello");
  EXPECT_EQ(whole[1]["headers"]["x-a"], "1, 2");
  EXPECT_EQ(whole[2]["body"], "abcde");
  EXPECT_EQ(whole[3]["body"], "");
  EXPECT_EQ(whole[4]["status"], 304);
  EXPECT_EQ(whole[5]["body"], "bye");
  for (std::size_t split = 1; split < 40; ++split)
    EXPECT_EQ(parse_all(kMethods, kPipelined, split, true), whole) << "split " << split;
}

TEST(HttpCodec, CloseDelimitedBodyEndsAtEof) {
  std::string b = "HTTP/1.1 200 OK\r\n\r\npartial";
  EXPECT_TRUE(parse_all({"GET"}, b, 3, false).empty());
  auto r = parse_all({"GET"}, b, 3, true);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["body"], "partial");
}

TEST(HttpCodec, TruncationAndGarbageAreViolationsShowingTheBytes) {
  std::string err;
  auto r = parse_all({"GET"}, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 4, true,
                     &err);
  EXPECT_TRUE(r.empty());
  EXPECT_NE(err.find("closed in the middle"), std::string::npos) << err;
  parse_all({"GET"}, "HTTX/1.1 200 OK\r\n\r\n", 100, false, &err);
  EXPECT_NE(err.find("malformed status line"), std::string::npos) << err;
  EXPECT_NE(err.find("HTTX/1.1 200 OK"), std::string::npos) << err;
  parse_all({"GET"}, std::string("\x00\xff garbage\n", 11), 100, false, &err);
  EXPECT_NE(err.find("\\x00\\xff"), std::string::npos) << err;
  parse_all({"GET"},
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 7,
            false, &err);
  EXPECT_NE(err.find("invalid Content-Length"), std::string::npos) << err;
  parse_all({"GET"}, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 7,
            false, &err);
  EXPECT_NE(err.find("malformed chunk size"), std::string::npos) << err;
  parse_all({"GET"}, "HTTP/1.1 200 OK\r\n folded\r\n\r\n", 7, false, &err);
  EXPECT_NE(err.find("folding"), std::string::npos) << err;
}

TEST(HttpCodec, IdenticalContentLengthListIsFine) {
  auto r =
      parse_all({"GET"}, "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", 100, false);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["body"], "ok");
}

TEST(HttpCodec, LimitsHold) {
  std::string err;
  parse_all({"GET"}, "HTTP/1.1 200 OK\r\nX: " + std::string(70000, 'a'), 4096, false,
            &err);
  EXPECT_NE(err.find("64 KiB"), std::string::npos) << err;
  parse_all({"GET"}, "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n", 100,
            false, &err);
  EXPECT_NE(err.find("16 MiB"), std::string::npos) << err;
}

TEST(HttpCodec, PrintRequestIsSafeAndFramed) {
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
}

}  // namespace
}  // namespace dualfuzz::harness::http
