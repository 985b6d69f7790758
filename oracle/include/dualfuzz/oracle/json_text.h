// JSON as text for reports and keys: a server's bytes may be any bytes, so
// invalid UTF-8 is replaced (U+FFFD) rather than thrown on, and printing a
// trace, a reason or a key never fails.
//
//   std::string s = dump_json(Json(std::string("\xff")));   // "\"\xEF\xBF\xBD\""
//   std::string b = brief_json(big_response, 120);           // cut to 120 chars
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace dualfuzz::oracle {

inline std::string dump_json(const nlohmann::json& v, int indent = -1) {
  return v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// dump_json cut to at most `max` characters ("..." marks the cut).
inline std::string brief_json(const nlohmann::json& v, std::size_t max) {
  std::string s = dump_json(v);
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

}  // namespace dualfuzz::oracle
