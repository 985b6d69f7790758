#include "dualfuzz/campaign/baseline.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "dualfuzz/campaign/detail/text_file.h"
#include "dualfuzz/campaign/known_violations.h"

namespace dualfuzz::campaign {
namespace {

using nlohmann::json;

std::string_view trim(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\r";
  const std::size_t first = s.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kBlanks) - first + 1);
}

std::string string_field(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The findings in a JSON value (see baseline.h); false when it holds none
// of the shapes a baseline is made of.
template <class Add>
bool collect(const json& j, const Add& add) {
  bool any = false;
  if (j.is_array()) {
    for (const json& x : j) any |= collect(x, add);
    return any;
  }
  if (!j.is_object()) return false;
  if (auto id = string_field(j, "identity"); !id.empty()) {
    add(Baseline::Entry{id, string_field(j, "signature"), string_field(j, "script")});
    any = true;
  } else if (const std::string kind = string_field(j, "kind");
             (kind == "crash" || kind == "hang") && j.value("reproduced", false)) {
    // A death its shrunk script alone brought about again: named by its
    // signature ("crash: LOCK"). (One not replayed is a guess at the
    // culprit: no name to match.)
    if (auto sig = string_field(j, "signature"); !sig.empty()) {
      add(Baseline::Entry{sig, sig, string_field(j, "script")});
      any = true;
    }
  }
  for (const char* list : {"findings", "violations", "races"})
    if (auto it = j.find(list); it != j.end() && it->is_array()) {
      any = true;  // (a summary, maybe with no findings)
      for (const json& x : *it) collect(x, add);
    }
  return any;
}

}  // namespace

void Baseline::add(Entry e) {
  if (identities_.insert(e.identity).second) entries_.push_back(std::move(e));
}

bool Baseline::contains(std::string_view identity) const {
  return identities_.count(std::string(identity)) > 0 ||
         std::ranges::any_of(
             patterns_, [&](const std::string& p) { return glob_match(p, identity); });
}

Baseline Baseline::named(std::string_view origin) {
  Baseline out;
  out.origin_ = origin.empty() ? std::string("(baseline)") : std::string(origin);
  return out;
}

void Baseline::add_pattern(std::string pattern, std::string signature) {
  if (std::ranges::find(patterns_, pattern) != patterns_.end()) return;
  patterns_.push_back(pattern);
  entries_.push_back(Entry{std::move(pattern), std::move(signature), ""});
}

void Baseline::merge(const Baseline& other) {
  for (const Entry& e : other.entries_)
    if (std::ranges::find(other.patterns_, e.identity) != other.patterns_.end())
      add_pattern(e.identity, e.signature);
    else
      add(e);
  if (origin_.empty()) origin_ = other.origin_;
}

Result<Baseline> Baseline::parse(std::string_view text, std::string_view origin) {
  Baseline out;
  out.origin_ = origin.empty() ? std::string("(baseline)") : std::string(origin);
  auto add = [&out](Entry e) { out.add(std::move(e)); };
  // The whole text as one JSON value (a file written by a script), else
  // each line that is one (dualfuzz fuzz --json's stdout).
  bool found = false;
  if (json whole = json::parse(text, nullptr, false); !whole.is_discarded()) {
    if (!collect(whole, add))
      return make_error(std::string(origin) +
                        ": JSON without findings (want `dualfuzz fuzz --json` output)");
    return out;
  }
  std::vector<std::string> plain;
  std::size_t line = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view raw = trim(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line;
    if (raw.empty() || raw.starts_with('#')) continue;
    if (raw.starts_with('{') || raw.starts_with('[')) {
      json j = json::parse(raw, nullptr, false);
      if (!j.is_discarded() && collect(j, add)) {
        found = true;
        continue;
      }
    }
    for (char c : raw)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
        return make_error(std::string(origin) + ":" + std::to_string(line) +
                          ": a control character");
    plain.emplace_back(raw);
  }
  // No JSON: one identity a line.
  if (!found)
    for (std::string& id : plain) out.add(Entry{std::move(id), "", ""});
  return out;
}

Result<Baseline> Baseline::load(const std::string& path) {
  auto text = detail::read_text_file(path, "baseline file");
  if (!text) return make_error(text.error());
  return parse(*text, path);
}

}  // namespace dualfuzz::campaign
