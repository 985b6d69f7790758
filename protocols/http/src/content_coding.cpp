#include "dualfuzz/http/content_coding.h"

#include <zlib.h>

#include <cstdlib>
#include <limits>
#include <vector>

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {
namespace {

using detail::list_members;
using detail::trim_ows;

// zlib's inflate: window_bits 15 + 32 reads a gzip or zlib header, -15 raw
// deflate (what some servers send as "deflate").
std::optional<std::string> inflate_all(std::string_view in, int window_bits,
                                       std::size_t limit) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return std::nullopt;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > limit) rc = Z_MEM_ERROR;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // truncated
  }
  const bool whole = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!whole) return std::nullopt;
  return out;
}

}  // namespace

bool is_coded(std::string_view content_encoding) {
  for (const std::string& m : list_members(content_encoding))
    if (m != "identity") return true;
  return false;
}

std::optional<std::string> decode_content(std::string_view content_encoding,
                                          std::string_view body, std::size_t limit) {
  if (body.size() > std::numeric_limits<uInt>::max()) return std::nullopt;
  std::vector<std::string> codings = list_members(content_encoding);
  std::string data(body);
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    std::optional<std::string> next;
    if (*it == "identity") continue;
    if (*it == "gzip" || *it == "x-gzip")
      next = inflate_all(data, 15 + 32, limit);
    else if (*it == "deflate") {
      next = inflate_all(data, 15, limit);
      if (!next) next = inflate_all(data, -15, limit);
    }
    if (!next) return std::nullopt;
    data = std::move(*next);
  }
  return data;
}

bool admits_coding(std::string_view accept_encoding) {
  for (const std::string& m : list_members(accept_encoding)) {
    const std::size_t semi = m.find(';');
    const std::string_view coding = trim_ows(std::string_view(m).substr(0, semi));
    if (coding.empty()) return true;  // (does not parse)
    double q = 1;
    if (semi != std::string::npos) {
      std::string_view p = trim_ows(std::string_view(m).substr(semi + 1));
      if (!p.starts_with("q=")) return true;
      const std::string value(p.substr(2));
      char* end = nullptr;
      q = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end) return true;
    }
    if (q > 0 && coding != "identity") return true;
  }
  return false;
}

}  // namespace dualfuzz::http
