#include "dualfuzz/http/host.h"

#include <algorithm>
#include <string>
#include <vector>

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool hexdig(char c) {
  return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool unreserved(char c) {
  return alpha(c) || digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
bool sub_delim(char c) {
  return std::string_view("!$&'()*+,;=").find(c) != std::string_view::npos;
}

// reg-name = *( unreserved / pct-encoded / sub-delims )
bool reg_name(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size() || !hexdig(s[i + 1]) || !hexdig(s[i + 2])) return false;
      i += 2;
    } else if (!unreserved(s[i]) && !sub_delim(s[i])) {
      return false;
    }
  }
  return true;
}

// dec-octet: 0-255 without leading zeros (RFC 3986 §3.2.2).
bool dec_octet(std::string_view s) {
  if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), digit)) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  return std::stoi(std::string(s)) <= 255;
}
bool ipv4(std::string_view s) {
  for (int part = 0; part < 4; ++part) {
    const std::size_t dot = s.find('.');
    if ((part < 3) != (dot != std::string_view::npos)) return false;
    if (!dec_octet(s.substr(0, dot))) return false;
    s = part < 3 ? s.substr(dot + 1) : std::string_view();
  }
  return true;
}
bool h16(std::string_view s) {
  return !s.empty() && s.size() <= 4 && std::all_of(s.begin(), s.end(), hexdig);
}
// How many 16-bit groups `s` holds (groups separated by ':', the last one
// perhaps an IPv4 address, ls32, counting two); -1 when one is malformed.
int groups(std::string_view s, bool last_may_be_ipv4) {
  if (s.empty()) return 0;
  int n = 0;
  while (true) {
    const std::size_t colon = s.find(':');
    const std::string_view g = s.substr(0, colon);
    if (colon == std::string_view::npos) {
      if (h16(g)) return n + 1;
      return last_may_be_ipv4 && ipv4(g) ? n + 2 : -1;
    }
    if (!h16(g)) return -1;
    ++n;
    s.remove_prefix(colon + 1);
    if (s.empty()) return -1;  // a trailing single colon
  }
}
// IPv6address (RFC 3986 §3.2.2): eight 16-bit groups, the last two perhaps
// an IPv4 address, or fewer with one "::" standing for the rest.
bool ipv6(std::string_view s) {
  const std::size_t gap = s.find("::");
  if (gap == std::string_view::npos) return groups(s, true) == 8;
  if (s.find("::", gap + 1) != std::string_view::npos) return false;
  const int left = groups(s.substr(0, gap), false);
  const int right = groups(s.substr(gap + 2), true);
  return left >= 0 && right >= 0 && left + right <= 7;
}
// IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
bool ipvfuture(std::string_view s) {
  if (s.size() < 4 || (s[0] != 'v' && s[0] != 'V')) return false;
  const std::size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot < 2) return false;
  if (!std::all_of(s.begin() + 1, s.begin() + static_cast<long>(dot), hexdig))
    return false;
  const std::string_view rest = s.substr(dot + 1);
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
    return unreserved(c) || sub_delim(c) || c == ':';
  });
}

}  // namespace

bool valid_host(std::string_view value) {
  value = detail::trim_ows(value);
  std::string_view port;
  if (!value.empty() && value[0] == '[') {
    const std::size_t close = value.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view literal = value.substr(1, close - 1);
    if (!ipv6(literal) && !ipvfuture(literal)) return false;
    const std::string_view rest = value.substr(close + 1);
    if (!rest.empty() && rest[0] != ':') return false;
    port = rest.empty() ? rest : rest.substr(1);
  } else {
    const std::size_t colon = value.find(':');
    if (!reg_name(value.substr(0, colon))) return false;
    port = colon == std::string_view::npos ? std::string_view() : value.substr(colon + 1);
  }
  return std::all_of(port.begin(), port.end(), digit);
}

bool default_host(std::string_view value) {
  return detail::lower(detail::trim_ows(value)) == "localhost";
}

HostField classify_host(std::string_view value) {
  return !valid_host(value)    ? HostField::kInvalid
         : default_host(value) ? HostField::kDefault
                               : HostField::kOther;
}

}  // namespace dualfuzz::http
