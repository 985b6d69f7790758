// Any bytes, split at positions taken from the input itself: the response
// parser never crashes and its results do not depend on how bytes arrive.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dualfuzz/harness/http_codec.h"

namespace http = dualfuzz::harness::http;

namespace {
struct Outcome {
  std::vector<dualfuzz::harness::Json> responses;
  bool failed;
};
Outcome parse(std::string_view bytes, std::size_t split, bool head_first) {
  http::ResponseParser p;
  for (int i = 0; i < 8; ++i) p.expect(i == 0 && head_first ? "HEAD" : "GET");
  Outcome o;
  for (std::size_t i = 0; i < bytes.size(); i += split) {
    p.feed(bytes.substr(i, split));
    while (auto r = p.next()) o.responses.push_back(*r);
  }
  p.on_eof();
  while (auto r = p.next()) o.responses.push_back(*r);
  o.failed = p.failed();
  return o;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  bool head = data[0] & 1;
  Outcome whole = parse(in, in.size() + 1, head);
  Outcome split = parse(in, 1 + data[0] % 13, head);
  if (whole.failed != split.failed || whole.responses != split.responses)
    __builtin_trap();
  return 0;
}
