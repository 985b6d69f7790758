// The server side of the codec. Any bytes, cut at positions taken from the
// input: the request parser never crashes and its result does not depend on
// the cuts; every request it yields survives print_request -> parse; and
// print_request of an IR built from the input always frames exactly one
// well-formed request (no smuggling) unless the IR names a defect to send,
// a field sent blind included.
// Traps on any failure.
//   ./http_request_parser_fuzzer corpora/fuzz/http_request_parser_fuzzer
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
  std::vector<Json> requests;
  std::string error;  // what and where; the bytes shown may depend on the cut
  bool operator==(const Outcome&) const = default;
};

Outcome parse(std::string_view bytes, const std::vector<std::size_t>& cuts, bool eof) {
  http::RequestParser p;
  Outcome o;
  std::size_t at = 0;
  for (std::size_t c : cuts) {
    p.feed(bytes.substr(at, c - at));
    at = c;
    while (auto r = p.next()) o.requests.push_back(*r);
  }
  p.feed(bytes.substr(at));
  if (eof) p.on_eof();
  while (auto r = p.next()) o.requests.push_back(*r);
  o.error = p.error().substr(0, p.error().find(": \""));
  return o;
}

// What survives printing: no version, no framing headers, Host defaulted.
Json comparable(Json q, bool had_host) {
  q.erase("version");
  q["headers"].erase("content-length");
  q["headers"].erase("transfer-encoding");
  if (!had_host) q["headers"].erase("host");
  return q;
}

void check_printed(Json ir) {
  // A defect named on purpose (malformation.h) is printed and recorded
  // without failing; the request it breaks is framed like any other.
  (void)http::canonical_request(ir);
  if (ir.is_object()) ir.erase("malformed");
  Outcome o = parse(http::print_request(ir), {}, true);
  if (!o.error.empty() || o.requests.size() != 1) __builtin_trap();
  (void)http::canonical_request(ir);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 3, size - 3);
  const std::size_t n = in.size();
  const bool eof = data[0] & 1;
  Outcome whole = parse(in, {}, eof);
  std::size_t a = (data[1] * 7u) % (n + 1), b = (data[2] * 13u + a) % (n + 1);
  if (a > b) std::swap(a, b);
  if (parse(in, {a, b}, eof) != whole) __builtin_trap();
  if (n <= 512) {
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < n; ++i) every.push_back(i);
    if (parse(in, every, eof) != whole) __builtin_trap();
  }
  // Round trip: print what was parsed, parse it again.
  for (const Json& q : whole.requests) {
    bool had_host = q["headers"].contains("host");
    Outcome again = parse(http::print_request(q), {}, true);
    if (!again.error.empty() || again.requests.size() != 1 ||
        comparable(again.requests[0], had_host) != comparable(q, had_host))
      __builtin_trap();
  }
  // The printer on arbitrary IR: the input as JSON, or its pieces as fields.
  Json j = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) check_printed(j);
  std::vector<std::string> f(5);
  std::size_t k = 0;
  for (char c : in) {
    if (static_cast<unsigned char>(c) == 0xff && k < 4)
      ++k;
    else
      f[k] += c;
  }
  check_printed(
      {{"method", f[0]}, {"path", f[1]}, {"headers", {{f[2], f[3]}}}, {"body", f[4]}});
  // The same field sent blind (field_havoc.h): still one request.
  check_printed({{"method", f[0]},
                 {"path", f[1]},
                 {"havoc", {{"name", f[2]}, {"value", f[3]}}},
                 {"body", f[4]}});
  return 0;
}
