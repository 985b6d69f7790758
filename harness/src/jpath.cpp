#include "dualfuzz/harness/jpath.h"

namespace dualfuzz::harness {
namespace {

std::optional<Json> loose(const std::vector<Jpath::Step>& steps, std::size_t i,
                          const Json& v) {
  if (i == steps.size()) return v;
  if (const auto* f = std::get_if<Jpath::Field>(&steps[i])) {
    if (!v.is_object()) return std::nullopt;
    auto it = v.find(f->name);
    if (it == v.end()) return std::nullopt;
    return loose(steps, i + 1, *it);
  }
  std::size_t n = std::get<Jpath::Index>(steps[i]).n;
  if (!v.is_array()) return std::nullopt;
  if (n >= 1 && n <= v.size())
    if (auto r = loose(steps, i + 1, v[n - 1])) return r;
  for (std::size_t k = 0; k < v.size(); ++k)  // deterministic fallback: first that fits
    if (k + 1 != n)
      if (auto r = loose(steps, i + 1, v[k])) return r;
  return std::nullopt;
}

}  // namespace

Result<Json> Jpath::apply(const Json& v) const {
  const Json* cur = &v;
  std::string at = "this";
  for (const Step& s : steps_) {
    if (const auto* f = std::get_if<Field>(&s)) {
      if (!cur->is_object()) return make_error(at + " is not an object");
      auto it = cur->find(f->name);
      if (it == cur->end()) return make_error(at + " has no field " + dump_json(f->name));
      at += "@" + dump_json(f->name);
      cur = &*it;
    } else {
      std::size_t n = std::get<Index>(s).n;
      if (!cur->is_array()) return make_error(at + " is not an array");
      if (n < 1 || n > cur->size())
        return make_error(at + " has " + std::to_string(cur->size()) + " elements, not " +
                          std::to_string(n));
      at += "#" + std::to_string(n);
      cur = &(*cur)[n - 1];
    }
  }
  return *cur;
}

std::optional<Json> Jpath::apply_loose(const Json& v) const {
  return loose(steps_, 0, v);
}

std::string Jpath::print() const {
  std::string s = "this";
  for (const Step& st : steps_) {
    if (const auto* f = std::get_if<Field>(&st))
      s += "@" + dump_json(f->name);
    else
      s += "#" + std::to_string(std::get<Index>(st).n);
  }
  return s;
}

Result<Jpath> parse_jpath(std::string_view t, std::size_t* consumed) {
  auto err = [](std::size_t at, const std::string& m) {
    return make_error("column " + std::to_string(at + 1) + ": " + m);
  };
  if (t.substr(0, 4) != "this") return err(0, "a Jpath starts with `this`");
  std::size_t i = 4;
  std::vector<Jpath::Step> steps;
  while (i < t.size() && (t[i] == '@' || t[i] == '#')) {
    if (steps.size() >= 64) return err(i, "Jpath longer than 64 steps");
    if (t[i] == '#') {
      std::size_t j = ++i;
      while (j < t.size() && j - i < 9 && t[j] >= '0' && t[j] <= '9') ++j;
      if (j == i) return err(i, "expected an index after `#`");
      if (t[i] == '0')
        return err(i, "indices are 1-based decimals without leading zeros");
      steps.push_back(Jpath::Index{std::stoul(std::string(t.substr(i, j - i)))});
      i = j;
    } else {
      std::size_t j = ++i;
      if (j >= t.size() || t[j] != '"') return err(i, "expected a JSON string after `@`");
      for (++j; j < t.size() && t[j] != '"'; ++j)
        if (t[j] == '\\') ++j;
      if (j >= t.size()) return err(i, "unterminated field name");
      Json name = Json::parse(t.substr(i, j + 1 - i), nullptr, false);
      if (name.is_discarded() || !name.is_string()) return err(i, "invalid field name");
      steps.push_back(Jpath::Field{name.get<std::string>()});
      i = j + 1;
    }
  }
  if (consumed)
    *consumed = i;
  else if (i != t.size())
    return err(i, "unexpected text after the Jpath");
  return Jpath(std::move(steps));
}

}  // namespace dualfuzz::harness
