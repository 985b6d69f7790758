// Any bytes as coded content under any Content-Encoding, and any
// Accept-Encoding value: decoding never crashes nor yields more than its
// limit, and content coded with gzip decodes to itself. Traps otherwise.
//   ./http_content_coding_fuzzer corpora/fuzz/http_content_coding_fuzzer
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../http/gzip.h"  // (the tests' encoder)
#include "dualfuzz/http/content_coding.h"

namespace http = dualfuzz::http;

using dualfuzz::http::test::gzip;

// Input: a Content-Encoding (or Accept-Encoding) value, a NUL, the content.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = in.find('\0');
  const std::string_view coding = in.substr(0, nul);
  const std::string_view content =
      nul == std::string_view::npos ? "" : in.substr(nul + 1);
  (void)http::admits_coding(coding);
  (void)http::is_coded(coding);
  if (auto d = http::decode_content(coding, content, 1 << 16); d && d->size() > (1 << 16))
    __builtin_trap();
  if (http::decode_content("gzip", gzip(content)) != std::string(content))
    __builtin_trap();
  return 0;
}
