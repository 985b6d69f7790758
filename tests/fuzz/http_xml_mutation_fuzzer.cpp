// The WebDAV XML body mutator on any bytes: it never crashes, every output
// is printable ASCII within kMaxXmlBody, and the same engine state gives the
// same output (runs are reproducible from the fuzz input). Traps on failure.
//   ./http_xml_mutation_fuzzer corpora/fuzz/http_xml_mutation_fuzzer
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "dualfuzz/http/xml_mutation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint64_t seed = 0;
  const std::size_t n = size < sizeof seed ? size : sizeof seed;
  std::memcpy(&seed, data, n);
  std::string body(reinterpret_cast<const char*>(data) + n, size - n);
  std::mt19937_64 a(seed), b(seed);
  for (int step = 0; step < 4; ++step) {
    std::string next = dualfuzz::http::mutate_xml(body, a);
    if (next != dualfuzz::http::mutate_xml(body, b)) __builtin_trap();
    if (next.size() > dualfuzz::http::kMaxXmlBody) __builtin_trap();
    for (char c : next) {
      auto u = static_cast<unsigned char>(c);
      if (!((u >= 0x20 && u < 0x7f) || c == '\t' || c == '\n' || c == '\r'))
        __builtin_trap();
    }
    body = std::move(next);
  }
  return 0;
}
