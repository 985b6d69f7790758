#include "dualfuzz/campaign/judgements.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "dualfuzz/campaign/known_violations.h"

namespace dualfuzz::campaign {
namespace {

using nlohmann::json;

Result<std::string> text_of(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty())
    return make_error(std::string("no \"") + name + "\" text");
  return it->get<std::string>();
}

Result<std::vector<std::string>> texts_of(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_array() || it->empty())
    return make_error(std::string("no \"") + name + "\" list");
  std::vector<std::string> out;
  for (const json& x : *it) {
    if (!x.is_string() || x.get<std::string>().empty())
      return make_error(std::string("an element of \"") + name + "\" that is no text");
    out.push_back(x.get<std::string>());
  }
  return out;
}

}  // namespace

bool Judgement::covers(std::string_view identity) const {
  return std::ranges::any_of(
      identities, [&](const std::string& p) { return glob_match(p, identity); });
}

bool Judgement::of(std::string_view server) const {
  return server.empty() || server == "*" ||
         std::ranges::find(servers, server) != servers.end();
}

Result<Judgements> Judgements::parse(std::string_view text, std::string_view origin) {
  const std::string where =
      origin.empty() ? std::string("(judgements)") : std::string(origin);
  const json all = json::parse(text, nullptr, false);
  if (all.is_discarded() || !all.is_array())
    return make_error(where + ": not a JSON array of judgements");
  Judgements out;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const json& j = all[i];
    auto fail = [&](const std::string& why) {
      return make_error(where + ": judgement " + std::to_string(i + 1) + ": " + why);
    };
    if (!j.is_object()) return fail("not an object");
    Judgement x;
    for (auto [field, name] : {std::pair{&x.id, "id"},
                               {&x.verdict, "verdict"},
                               {&x.clause, "clause"},
                               {&x.why, "why"}}) {
      auto t = text_of(j, name);
      if (!t) return fail(t.error());
      *field = std::move(*t);
    }
    for (auto [list, name] :
         {std::pair{&x.servers, "servers"}, {&x.identities, "identities"}}) {
      auto t = texts_of(j, name);
      if (!t) return fail(t.error());
      *list = std::move(*t);
    }
    for (const std::string& p : x.identities)
      if (p.find_first_not_of('*') == std::string::npos)
        return fail("the pattern '" + p + "' would cover every finding");
    if (!ids.insert(x.id).second) return fail("a second judgement " + x.id);
    out.entries_.push_back(std::move(x));
  }
  return out;
}

const Judgement* Judgements::match(std::string_view identity,
                                   std::string_view server) const {
  for (const Judgement& j : entries_)
    if (j.of(server) && j.covers(identity)) return &j;
  return nullptr;
}

std::vector<std::string> Judgements::servers() const {
  std::vector<std::string> out;
  for (const Judgement& j : entries_)
    for (const std::string& s : j.servers)
      if (std::ranges::find(out, s) == out.end()) out.push_back(s);
  return out;
}

Result<Baseline> Judgements::baseline(std::string_view server,
                                      std::string_view origin) const {
  if (!server.empty() && server != "*" &&
      std::ranges::none_of(entries_, [&](const Judgement& j) { return j.of(server); })) {
    std::string names;
    for (const std::string& s : servers()) names += (names.empty() ? "" : ", ") + s;
    return make_error("no judgement of the server '" + std::string(server) +
                      "' (judged: " + (names.empty() ? "none" : names) + ")");
  }
  Baseline out = Baseline::named(origin);
  for (const Judgement& j : entries_)
    if (j.of(server))
      for (const std::string& p : j.identities)
        out.add_pattern(p, "judged: " + j.id + " (" + j.clause + ")");
  return out;
}

}  // namespace dualfuzz::campaign
