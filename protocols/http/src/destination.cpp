#include "dualfuzz/http/destination.h"

#include "dualfuzz/http/model.h"

namespace dualfuzz::http {

std::string destination_path(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  if (auto scheme = v.find("://"); scheme != std::string_view::npos) {
    // Any authority: a server may take its own name for another's, or
    // refuse with 502 (RFC 4918 §9.8.5); either way only the path can be
    // written here.
    auto slash = v.find('/', scheme + 3);
    if (slash == std::string_view::npos) return "";
    v.remove_prefix(slash);
  }
  if (auto end = v.find_first_of("?#"); end != std::string_view::npos)
    v = v.substr(0, end);
  if (v.size() > 1 && v.back() == '/') v.remove_suffix(1);
  return plain_path(v) ? std::string(v) : std::string();
}

}  // namespace dualfuzz::http
