// JSON as text for reports and keys: a server's bytes may be any bytes, so
// invalid UTF-8 is replaced (U+FFFD) rather than thrown on, and printing a
// trace, a reason or a key never fails.
//
//   std::string s = dump_json(Json(std::string("\xff")));   // "\"\xEF\xBF\xBD\""
//   std::string b = brief_json(big_response, 120);           // cut to 120 bytes
//   std::string c = clip_text(error_page, 80);                // never mid-character
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace dualfuzz::oracle {

inline std::string dump_json(const nlohmann::json& v, int indent = -1) {
  return v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// `s` cut to at most `max` bytes, "..." marking the cut, which falls between
// UTF-8 characters: a cut inside one (a U+FFFD dump_json wrote for a
// server's byte) made a report and its --json invalid UTF-8.
inline std::string clip_text(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t cut = max > 3 ? max - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

// dump_json cut to at most `max` bytes (clip_text).
inline std::string brief_json(const nlohmann::json& v, std::size_t max) {
  return clip_text(dump_json(v), max);
}

}  // namespace dualfuzz::oracle
