// The message rules (http/message_rules.h) and field grammars
// (http/field_grammar.h) on any response bytes: whatever the server sends,
// the parser's responses are judged without a crash, every break names its
// clause and text, and judging is deterministic. Traps on failure.
//   ./http_message_rules_fuzzer corpora/fuzz/http_message_rules_fuzzer
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/field_grammar.h"
#include "dualfuzz/http/message_rules.h"

namespace http = dualfuzz::http;
using dualfuzz::harness::Json;

namespace {

std::vector<std::string> judge(const std::vector<Json>& responses, const Json& q) {
  auto rules = http::new_message_rules();
  std::vector<std::string> out;
  for (const Json& r : responses) {
    rules->sent(q);
    for (const auto& b : rules->received(&q, r)) {
      if (b.clause.empty() || b.text.empty()) __builtin_trap();
      out.push_back(b.clause + (b.must ? " MUST " : " SHOULD ") + b.text + " " + b.detail);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  // Each grammar on the bytes as one field value.
  for (const char* name : {"date", "etag", "content-type", "server", "www-authenticate",
                           "accept-encoding", "content-range", "cache-control",
                           "content-language", "location", "transfer-encoding"})
    if (const http::FieldGrammar* g = http::field_grammar(name)) g->check(in);
  // The bytes as responses to GETs (or HEADs, first byte), judged twice.
  const bool head = data[0] & 1;
  http::ResponseParser p;
  for (int i = 0; i < 8; ++i) p.expect(head ? "HEAD" : "GET");
  p.feed(in);
  p.on_eof();
  std::vector<Json> responses;
  while (auto r = p.next()) responses.push_back(*r);
  Json q = {{"method", head ? "HEAD" : "GET"}, {"path", "/a"}, {"headers", Json::object()}};
  if (data[0] & 2) q["headers"]["if-none-match"] = "\"1\"";
  if (data[0] & 4) q["headers"]["upgrade"] = "h2c";
  if (judge(responses, q) != judge(responses, q)) __builtin_trap();
  return 0;
}
