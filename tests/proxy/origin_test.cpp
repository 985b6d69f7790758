// The tester as the proxy's origin server obeys RFC 9112 itself: an
// HTTP/1.0 forwarded request gets no chunked answer (§6.1) and its
// connection is closed after the answer (§9.3); HTTP/1.1 keeps both.
#include "dualfuzz/proxy/origin.h"

#include <gtest/gtest.h>

namespace dualfuzz::proxy {
namespace {

using harness::Json;

// What the origin side reads from `bytes` (one forwarded request).
Json forwarded(const std::string& bytes) {
  auto stream = origin_side().new_forward_stream();
  stream->feed(bytes);
  auto q = stream->next();
  EXPECT_TRUE(q) << stream->error();
  return q ? *q : Json();
}

TEST(Origin, AnHttp10RequestGetsNoChunksAndAClose) {
  const harness::Protocol::Origin o = origin_side();
  const Json answer = {{"status", 200}, {"body", "abcdef"}, {"chunked", true}};
  const Json old = forwarded("GET /a HTTP/1.0\r\nHost: o\r\n\r\n");
  EXPECT_EQ(o.print_answer(answer, old).find("chunked"), std::string::npos)
      << o.print_answer(answer, old);
  EXPECT_TRUE(o.closes_after(old, o.canonical_answer(answer, old, o.print_answer(answer, old))));
  const Json now = forwarded("GET /a HTTP/1.1\r\nHost: o\r\n\r\n");
  EXPECT_NE(o.print_answer(answer, now).find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_FALSE(o.closes_after(now, o.canonical_answer(answer, now, o.print_answer(answer, now))));
}

// A proxy that closes in the middle of a forwarded request gave up on it
// (RFC 9112 §9.5: any party may close at any time; Squid does when the
// client goes away): no request, no protocol violation. Garbage stays one.
TEST(Origin, AForwardCutShortIsAbandonedNotMalformed) {
  auto cut = origin_side().new_forward_stream();
  cut->feed("POST /a HTTP/1.1\r\nHost: o\r\nContent-Length: 10\r\n\r\nabc");
  cut->on_eof();
  EXPECT_FALSE(cut->next());
  EXPECT_FALSE(cut->failed()) << cut->error();
  auto headers_only = origin_side().new_forward_stream();
  headers_only->feed("POST /a HTTP/1.1\r\nHost: o\r\nConte");
  headers_only->on_eof();
  EXPECT_FALSE(headers_only->failed()) << headers_only->error();
  auto garbage = origin_side().new_forward_stream();
  garbage->feed("\x16\x03\x01 not http\r\n\r\n");
  garbage->on_eof();
  EXPECT_TRUE(garbage->failed());
}

}  // namespace
}  // namespace dualfuzz::proxy
