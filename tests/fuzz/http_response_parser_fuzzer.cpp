// Any bytes, cut at positions taken from the input itself: the response
// parser never crashes, and what it yields (responses, failure and where)
// does not depend on how the bytes arrive. Traps on any difference.
//   ./http_response_parser_fuzzer corpora/fuzz/http_response_parser_fuzzer
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/http/codec.h"

namespace http = dualfuzz::http;
using dualfuzz::harness::Json;

namespace {

struct Outcome {
  std::vector<Json> responses;
  std::string error;  // what and where; the bytes shown may depend on the cut
  bool operator==(const Outcome&) const = default;
};

Outcome parse(std::string_view bytes, const std::vector<std::size_t>& cuts,
              std::uint8_t head_mask) {
  http::ResponseParser p;
  for (int i = 0; i < 8; ++i) p.expect(head_mask >> i & 1 ? "HEAD" : "GET");
  Outcome o;
  std::size_t at = 0;
  for (std::size_t c : cuts) {
    p.feed(bytes.substr(at, c - at));
    at = c;
    while (auto r = p.next()) o.responses.push_back(*r);
  }
  p.feed(bytes.substr(at));
  p.on_eof();
  while (auto r = p.next()) o.responses.push_back(*r);
  o.error = p.error().substr(0, p.error().find(": \""));
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 3, size - 3);
  const std::size_t n = in.size();
  Outcome whole = parse(in, {}, data[0]);
  // Cuts derived from the input, so the fuzzer can steer them.
  std::size_t a = (data[1] * 7u) % (n + 1), b = (data[2] * 13u + a) % (n + 1);
  if (a > b) std::swap(a, b);
  if (parse(in, {a, b}, data[0]) != whole) __builtin_trap();
  if (n <= 512) {
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < n; ++i) every.push_back(i);
    if (parse(in, every, data[0]) != whole) __builtin_trap();
  }
  return 0;
}
