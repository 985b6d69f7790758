#include "dualfuzz/http/status_fields.h"

#include <array>

namespace dualfuzz::http {

using oracle::Sym;

std::span<const StatusField> status_fields() {
  static constexpr std::array<StatusField, 4> kFields = {{
      {401, "www-authenticate", "RFC 9110 §15.5.2, §11.6.1"},
      {405, "allow", "RFC 9110 §15.5.6"},
      {407, "proxy-authenticate", "RFC 9110 §15.5.8, §11.7.1"},
      {426, "upgrade", "RFC 9110 §15.5.22"},
  }};
  return kFields;
}

nlohmann::json mark_status_fields(nlohmann::json message) {
  const auto h = message.find("headers");
  if (h == message.end() || !h->is_object()) return message;
  std::vector<const char*> present;
  for (const StatusField& f : status_fields())
    if (h->contains(f.field)) present.push_back(f.field);
  for (const char* field : present) message[field] = {{"present", true}};
  return message;
}

Sym statuses_with_fields(std::vector<int> codes) {
  std::vector<Sym> alts;
  for (const StatusField& f : status_fields())
    if (std::erase(codes, f.status) > 0)
      alts.push_back(
          Sym::object({{"status", Sym::lit(f.status)},
                       {f.field, Sym::object({{"present", Sym::lit(true)}})}}));
  if (!codes.empty()) {
    std::vector<Sym> plain;
    for (int c : codes) plain.push_back(Sym::lit(c));
    alts.insert(alts.begin(), Sym::object({{"status", Sym::alt(std::move(plain))}}));
  }
  return alts.size() == 1 ? alts.front() : Sym::alt(std::move(alts));
}

}  // namespace dualfuzz::http
