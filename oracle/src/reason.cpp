#include "dualfuzz/oracle/reason.h"

#include <algorithm>

namespace dualfuzz::oracle {

std::string_view kind_name(Reason::Kind k) {
  switch (k) {
    case Reason::Kind::Mismatch:
      return "mismatch";
    case Reason::Kind::Contradiction:
      return "contradiction";
    case Reason::Kind::NothingOutstanding:
      return "nothing-outstanding";
    case Reason::Kind::ModelStopped:
      return "model-stopped";
    case Reason::Kind::Limit:
      return "limit";
    case Reason::Kind::Other:
      return "other";
  }
  return "other";
}

void to_json(Json& j, const Reason& r) {
  j = Json{{"kind", kind_name(r.kind)},
           {"location", r.location},
           {"expected", r.expected},
           {"observed", r.observed},
           {"clause", r.clause},
           {"state", r.state},
           {"text", r.text}};
  if (!r.places.empty()) {
    Json places = Json::array();
    for (const Reason::Place& p : r.places)
      places.push_back(
          {{"location", p.location}, {"expected", p.expected}, {"observed", p.observed}});
    j["places"] = std::move(places);
  }
}

// (A reason names the bytes; it does not repeat a ten-kilobyte file.)
std::string brief_constants(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '"') {
      out += text[i++];
      continue;
    }
    std::size_t j = i + 1;  // the closing quote (escapes skipped)
    while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
    const std::size_t len = std::min(j, text.size()) - i - 1;
    if (len > 60)
      out += text.substr(i, 41) + "...\" (" + std::to_string(len) + " characters)";
    else
      out += text.substr(i, j + 1 - i);
    i = j + 1;
  }
  return out;
}

}  // namespace dualfuzz::oracle
