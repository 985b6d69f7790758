#include "dualfuzz/http/status_fields.h"

#include <algorithm>
#include <array>

namespace dualfuzz::http {

using oracle::Sym;

std::span<const std::pair<int, const char*>> status_fields() {
  static constexpr std::array<std::pair<int, const char*>, 4> kFields = {{
      {401, "www-authenticate"},
      {405, "allow"},
      {407, "proxy-authenticate"},
      {426, "upgrade"},
  }};
  return kFields;
}

nlohmann::json mark_status_fields(nlohmann::json message) {
  const auto h = message.find("headers");
  if (h == message.end() || !h->is_object()) return message;
  std::vector<const char*> present;
  for (const auto& [code, field] : status_fields())
    if (h->contains(field)) present.push_back(field);
  for (const char* field : present) message[field] = {{"present", true}};
  return message;
}

Sym statuses_with_fields(std::vector<int> codes) {
  std::vector<Sym> alts;
  for (const auto& [code, field] : status_fields())
    if (std::erase(codes, code) > 0)
      alts.push_back(Sym::object({{"status", Sym::lit(code)},
                                  {field, Sym::object({{"present", Sym::lit(true)}})}}));
  if (!codes.empty()) {
    std::vector<Sym> plain;
    for (int c : codes) plain.push_back(Sym::lit(c));
    alts.insert(alts.begin(), Sym::object({{"status", Sym::alt(std::move(plain))}}));
  }
  return alts.size() == 1 ? alts.front() : Sym::alt(std::move(alts));
}

}  // namespace dualfuzz::http
