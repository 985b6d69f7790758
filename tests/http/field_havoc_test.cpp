// Blind byte edits of one field: what they may produce, and how the codec
// sends them (the framing is never theirs).
#include "dualfuzz/http/field_havoc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "dualfuzz/http/codec.h"

namespace dualfuzz::http {
namespace {

using harness::Json;

TEST(FieldHavoc, EditsStayOneLineOfAscii) {
  std::mt19937_64 rng(3);
  for (const HavocField& f : havoc_fields()) {
    std::set<std::string> seen;
    bool grew = false, shrank = false;
    std::string v(f.seed);
    for (int i = 0; i < 400; ++i) {
      std::string next = havoc_bytes(v, f.name, rng);
      ASSERT_LE(next.size(), kMaxHavocValue);
      for (char c : next) {
        const auto u = static_cast<unsigned char>(c);
        ASSERT_TRUE(u != 0 && c != '\r' && c != '\n' && u < 0x80)
            << f.name << ": " << next;
      }
      grew = grew || next.size() > v.size();
      shrank = shrank || next.size() < v.size();
      seen.insert(next);
      v = i % 8 == 7 ? std::string(f.seed) : next;  // stacks of edits, then afresh
    }
    EXPECT_GT(seen.size(), 200u) << f.name;
    EXPECT_TRUE(grew && shrank) << f.name;
  }
}

TEST(FieldHavoc, TargetsStayTargets) {
  std::mt19937_64 rng(5);
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) {
    const std::string t = havoc_bytes("/a/b", "", rng);
    ASSERT_FALSE(t.empty());
    ASSERT_EQ(t.front(), '/') << t;
    for (char c : t)
      ASSERT_TRUE(static_cast<unsigned char>(c) > 0x20 &&
                  static_cast<unsigned char>(c) < 0x7f)
          << t;
    seen.insert(t);
  }
  EXPECT_GT(seen.size(), 300u);
  // Dot segments and escapes: what a server's normalisation reads.
  EXPECT_TRUE(std::any_of(seen.begin(), seen.end(),
                          [](const std::string& t) { return t.find("/..") != t.npos; }));
  EXPECT_TRUE(std::any_of(seen.begin(), seen.end(),
                          [](const std::string& t) { return t.find("%2f") != t.npos; }));
}

TEST(FieldHavoc, SameSeedSameEdits) {
  std::mt19937_64 a(11), b(11);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(havoc_bytes("bytes=0-1", "range", a), havoc_bytes("bytes=0-1", "range", b));
}

TEST(FieldHavoc, ProtectedFieldsAreNeverSentBlind) {
  for (const char* n : {"Content-Length", "transfer-encoding", "Connection", "expect",
                        "upgrade", "te", "keep-alive"}) {
    EXPECT_FALSE(havoc_line({{"havoc", {{"name", n}, {"value", "1"}}}})) << n;
    const std::string b = print_request({{"method", "PUT"},
                                         {"path", "/a"},
                                         {"body", "xy"},
                                         {"havoc", {{"name", n}, {"value", "999"}}}});
    EXPECT_EQ(b.find("999"), std::string::npos) << b;
    EXPECT_NE(b.find("Content-Length: 2\r\n\r\nxy"), std::string::npos) << b;
  }
  for (const HavocField& f : havoc_fields()) EXPECT_FALSE(havoc_protected(f.name));
}

TEST(FieldHavoc, SentInPlaceOfTheFieldOfItsName) {
  const Json ir = {{"method", "GET"},
                   {"path", "/a"},
                   {"headers", {{"Range", "bytes=0-1"}, {"if-match", "\"x\""}}},
                   {"havoc", {{"name", "range"}, {"value", "bytes=\x01-\r\n9"}}}};
  const std::string b = print_request(ir);
  EXPECT_EQ(b,
            "GET /a HTTP/1.1\r\nrange: bytes=\x01-9\r\nif-match: \"x\"\r\n"
            "Host: localhost\r\n\r\n");
  // The request as the model reads it: the well-formed rest, and the field
  // as sent (whatever its bytes mean, the model judges nothing of it).
  const Json c = canonical_request(ir);
  EXPECT_EQ(c["havoc"], Json({{"name", "range"}, {"value", "bytes=\x01-9"}}));
  EXPECT_EQ(c["headers"]["if-match"], "\"x\"");
  // A blind Host is the only one sent.
  const std::string h =
      print_request({{"method", "GET"},
                     {"path", "/"},
                     {"havoc", {{"name", "Host"}, {"value", "a:b:c"}}}});
  EXPECT_EQ(h, "GET / HTTP/1.1\r\nHost: a:b:c\r\n\r\n");
  // Without a usable member nothing is sent blind: the request is the
  // well-formed one, judged as such (not marked blind).
  for (const Json& none : {Json(7), Json::object(), Json({{"name", "content-length"}})}) {
    const Json q = {{"method", "GET"}, {"path", "/"}, {"havoc", none}};
    EXPECT_EQ(print_request(q), print_request({{"method", "GET"}, {"path", "/"}}));
    EXPECT_EQ(canonical_request(q), canonical_request({{"method", "GET"}, {"path", "/"}}))
        << none;
  }
}

TEST(FieldHavoc, FramingStaysTheCodecs) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 500; ++i) {
    const HavocField& f = havoc_fields()[i % havoc_fields().size()];
    const std::string v = havoc_bytes(std::string(f.seed), f.name, rng);
    const std::string b = print_request({{"method", "PUT"},
                                         {"path", "/a"},
                                         {"body", "hello"},
                                         {"havoc", {{"name", f.name}, {"value", v}}}});
    // One head, ended once, then exactly the content.
    const auto end = b.find("\r\n\r\n");
    ASSERT_NE(end, std::string::npos);
    EXPECT_EQ(b.substr(end), "\r\n\r\nhello") << b;
    EXPECT_NE(b.find("Content-Length: 5\r\n"), std::string::npos) << b;
  }
}

}  // namespace
}  // namespace dualfuzz::http
