// Text of HTTP fields, as the codec, the model and the servers read it:
// ASCII case folding (field names, tokens: RFC 9110 §5.1, §5.6.2) and
// optional whitespace around a value or list member (OWS, §5.6.3).
//
//   lower("Keep-Alive") == "keep-alive";  trim_ows(" \tclose ") == "close"
//   list_members("a, ,B") == {"a", "b"}
//   etag_list("\"1\", W/\"a,b\"") == {"\"1\"", "W/\"a,b\""}
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dualfuzz::http::detail {

// A token character (RFC 9110 §5.6.2): what field names and methods are made of.
inline bool tchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

inline std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The members of a comma-separated list field (#token, RFC 9110 §5.6.1),
// lower-cased, without OWS; empty members (allowed there) are left out.
inline std::vector<std::string> list_members(std::string_view v) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = v.find(',');
    const std::string_view m = trim_ows(v.substr(0, comma));
    if (!m.empty()) out.push_back(lower(m));
    if (comma == std::string_view::npos) return out;
    v.remove_prefix(comma + 1);
  }
}

// The members of an entity-tag list (RFC 9110 §13.1.1: `"*" / #entity-tag`),
// as written (a comma inside a tag's quotes is the tag's), without OWS;
// whether each is an entity tag is the caller's to check.
inline std::vector<std::string> etag_list(const std::string& v) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) ++i;
    if (i >= v.size()) break;
    std::size_t start = i;
    if (v.compare(i, 2, "W/") == 0) i += 2;
    if (i < v.size() && v[i] == '"') {
      auto close = v.find('"', i + 1);
      i = close == std::string::npos ? v.size() : close + 1;
    } else {
      while (i < v.size() && v[i] != ',') ++i;
    }
    out.push_back(v.substr(start, i - start));
    while (!out.back().empty() && (out.back().back() == ' ' || out.back().back() == '\t'))
      out.back().pop_back();
  }
  return out;
}

}  // namespace dualfuzz::http::detail
