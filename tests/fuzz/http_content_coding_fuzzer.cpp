// Any bytes as coded content under any Content-Encoding, and any
// Accept-Encoding value: decoding never crashes nor yields more than its
// limit, and content coded with gzip decodes to itself. Traps otherwise.
//   ./http_content_coding_fuzzer corpora/fuzz/http_content_coding_fuzzer
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "dualfuzz/http/content_coding.h"

namespace http = dualfuzz::http;

namespace {

std::string gzip(std::string_view plain) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = static_cast<uInt>(plain.size());
  std::string out(deflateBound(&z, static_cast<uLong>(plain.size())), '\0');
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

// Input: a Content-Encoding (or Accept-Encoding) value, a NUL, the content.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = in.find('\0');
  const std::string_view coding = in.substr(0, nul);
  const std::string_view content = nul == std::string_view::npos ? "" : in.substr(nul + 1);
  (void)http::admits_coding(coding);
  (void)http::is_coded(coding);
  if (auto d = http::decode_content(coding, content, 1 << 16); d && d->size() > (1 << 16))
    __builtin_trap();
  if (http::decode_content("gzip", gzip(content)) != std::string(content)) __builtin_trap();
  return 0;
}
