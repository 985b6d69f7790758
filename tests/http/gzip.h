// gzip's encoder for tests: the coded content a server would send.
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace dualfuzz::http::test {

// `plain` gzip-coded (RFC 1952), or deflate-coded (RFC 1950, zlib) when
// `zlib_format`.
inline std::string gzip(std::string_view plain, bool zlib_format = false) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, zlib_format ? 15 : 15 + 16, 8,
               Z_DEFAULT_STRATEGY);
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

}  // namespace dualfuzz::http::test
