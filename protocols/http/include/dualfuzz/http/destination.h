// WebDAV's Destination header (RFC 4918 §10.3): "Destination = Simple-ref",
// an absolute URI or an absolute path naming where COPY and MOVE write.
#pragma once

#include <string>
#include <string_view>

namespace dualfuzz::http {

// The path a Destination value names, as the model's partitions key paths
// (no trailing slash); "" when the model cannot tell which path a server
// would take it for (no absolute path, escapes, dot segments...), so the
// request may write any path.
std::string destination_path(std::string_view value);

// The value with its path replaced by `f(path)`, the scheme and authority
// kept (per-run namespacing rewrites the Destination as it rewrites the
// request's own path); unchanged when it has no absolute path.
template <class F>
std::string rebase_destination(const std::string& value, F f) {
  std::size_t start = 0;
  if (auto scheme = value.find("://"); scheme != std::string::npos) {
    start = value.find('/', scheme + 3);
    if (start == std::string::npos) return value;
  }
  if (start >= value.size() || value[start] != '/') return value;
  return value.substr(0, start) + f(value.substr(start));
}

}  // namespace dualfuzz::http
