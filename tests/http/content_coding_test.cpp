// Content codings (RFC 9110 §8.4, §12.5.3): decoding what a server coded,
// reading Accept-Encoding, and the model's verdicts on coded answers, both
// ways.
#include "dualfuzz/http/content_coding.h"

#include <gtest/gtest.h>

#include "dualfuzz/http/model.h"
#include "dualfuzz/oracle/oracle.h"
#include "gzip.h"
#include "messages.h"

namespace dualfuzz::http {
namespace {

using oracle::Json;
using test::gzip;
using test::req;
using test::resp;

TEST(ContentCoding, DecodesGzipAndDeflateAndNothingElse) {
  EXPECT_EQ(decode_content("gzip", gzip("hello")), "hello");
  EXPECT_EQ(decode_content("x-gzip", gzip("hello")), "hello");
  EXPECT_EQ(decode_content("deflate", gzip("hello", true)), "hello");
  EXPECT_EQ(decode_content("GZIP, identity", gzip("hi")), "hi");
  // Two codings: the last applied is undone first.
  EXPECT_EQ(decode_content("deflate, gzip", gzip(gzip("x", true))), "x");
  EXPECT_EQ(decode_content("br", "anything"), std::nullopt);
  EXPECT_EQ(decode_content("gzip", "not gzip"), std::nullopt);
  const std::string z = gzip("hello");
  EXPECT_EQ(decode_content("gzip", z.substr(0, z.size() - 3)), std::nullopt);  // cut
  EXPECT_EQ(decode_content("gzip", z + "tail"), std::nullopt);
  EXPECT_EQ(decode_content("gzip", gzip(std::string(1000, 'a')), 999), std::nullopt);
  EXPECT_TRUE(is_coded("gzip"));
  EXPECT_FALSE(is_coded("identity"));
  EXPECT_FALSE(is_coded(""));
}

TEST(ContentCoding, AcceptEncodingAdmitsACodingWithAQAboveZero) {
  EXPECT_TRUE(admits_coding("gzip"));
  EXPECT_TRUE(admits_coding("gzip;q=1.0, br, *;q=0"));
  EXPECT_TRUE(admits_coding("*"));
  EXPECT_TRUE(admits_coding("identity, gzip;q=0.5"));
  EXPECT_FALSE(admits_coding("identity"));
  EXPECT_FALSE(admits_coding(""));  // §12.5.3: no coding wanted
  EXPECT_FALSE(admits_coding("gzip;q=0, *;q=0"));
  EXPECT_FALSE(admits_coding("identity;q=1, *;q=0.000"));
  EXPECT_TRUE(admits_coding("gzip;level=9"));  // (does not parse: may be read so)
}

// A 200 whose content is coded: its decoded bytes must be the content.
Json coded(int status, const std::string& content, const char* coding = "gzip",
           Json headers = Json::object()) {
  headers["content-encoding"] = coding;
  headers["etag"] = "\"other\"";
  return normalize_response(
      {{"status", status}, {"headers", headers}, {"body", content}});
}

bool accepted(const std::vector<std::pair<Json, Json>>& x) {
  return test::judged(server_model(Consistency::Atomic, {.writable = true}),
                      test::one_connection(x))
      .accepted();
}

const Json kGz = {{"accept-encoding", "gzip"}};

TEST(ContentCoding, ACodedAnswerShowsTheContentOnceDecoded) {
  const Json put = req("PUT", "/a", {}, "hello");
  const Json tagged = {{"etag", "\"1\""}};
  EXPECT_TRUE(accepted(
      {{put, resp(201, tagged)}, {req("GET", "/a", kGz), coded(200, gzip("hello"))}}));
  EXPECT_FALSE(accepted(
      {{put, resp(201, tagged)}, {req("GET", "/a", kGz), coded(200, gzip("hellx"))}}));
  // Unasked (§12.5.3: no Accept-Encoding, no preferences) the same.
  EXPECT_TRUE(accepted(
      {{put, resp(201, tagged)}, {req("GET", "/a"), coded(200, gzip("hello"))}}));
  EXPECT_FALSE(accepted(
      {{put, resp(201, tagged)}, {req("GET", "/a"), coded(200, gzip("hellx"))}}));
  // A coding the model cannot decode, a HEAD, a 206 of coded bytes: not compared.
  EXPECT_TRUE(accepted(
      {{put, resp(201, tagged)}, {req("GET", "/a", kGz), coded(200, "??", "br")}}));
  EXPECT_TRUE(
      accepted({{put, resp(201, tagged)}, {req("HEAD", "/a", kGz), coded(200, "")}}));
  EXPECT_TRUE(
      accepted({{put, resp(201, tagged)},
                {req("GET", "/a", {{"accept-encoding", "gzip"}, {"range", "bytes=0-1"}}),
                 coded(206, "\x1f\x8b")}}));
  // Coded or not, a missing resource is missing, a deleted one gone.
  EXPECT_FALSE(accepted({{req("GET", "/b", kGz), coded(200, gzip(""))}}));
  EXPECT_FALSE(accepted({{put, resp(201, tagged)},
                         {req("DELETE", "/a"), resp(204)},
                         {req("GET", "/a", kGz), coded(200, gzip("hello"))}}));
}

// A coded representation's validators are its own: a precondition sent
// with an Accept-Encoding that admits a coding may hold or fail; without
// one, the identity representation's validators decide.
TEST(ContentCoding, PreconditionsOnACodedRepresentation) {
  const Json put = req("PUT", "/a", {}, "hello");
  const Json tagged = {{"etag", "\"1\""}};
  Json inm = {{"accept-encoding", "gzip"}, {"if-none-match", "\"1-gzip\""}};
  EXPECT_TRUE(accepted({{put, resp(201, tagged)}, {req("GET", "/a", inm), resp(304)}}));
  EXPECT_TRUE(accepted(
      {{put, resp(201, tagged)}, {req("GET", "/a", inm), coded(200, gzip("hello"))}}));
  // Without Accept-Encoding: the tag names no representation the model knows.
  EXPECT_FALSE(
      accepted({{put, resp(201, tagged)},
                {req("GET", "/a", {{"if-none-match", "\"1-gzip\""}}), resp(304)}}));
  // With "identity" alone nothing coded is selected.
  EXPECT_FALSE(
      accepted({{put, resp(201, tagged)},
                {req("GET", "/a",
                     {{"accept-encoding", "identity"}, {"if-none-match", "\"1-gzip\""}}),
                 resp(304)}}));
}

}  // namespace
}  // namespace dualfuzz::http
