#include "dualfuzz/harness/jexp.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace dualfuzz::harness {
namespace {

// The string as it will read back after printing: the printer replaces
// invalid UTF-8, so values built in code are normalized up front.
std::string printable(std::string s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c < 0x80;
  if (ascii) return s;
  Json back = Json::parse(dump_json(Json(s)), nullptr, false);
  return back.is_string() ? back.get<std::string>() : std::string();
}

}  // namespace

Jexp Jexp::scalar(Json v) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Scalar;
  if (v.is_structured() || (v.is_number_float() && !std::isfinite(v.get<double>())))
    v = nullptr;  // printed as null anyway
  else if (v.is_string())
    v = printable(v.get<std::string>());
  n->value = std::move(v);
  return Jexp(std::move(n));
}

Jexp Jexp::array(std::vector<Jexp> items) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Array;
  n->items = std::move(items);
  return Jexp(std::move(n));
}

Jexp Jexp::object(std::vector<std::pair<std::string, Jexp>> fields) {
  for (auto& f : fields) f.first = printable(std::move(f.first));
  std::stable_sort(fields.begin(), fields.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  auto n = std::make_shared<Node>();
  n->kind = Kind::Object;
  for (auto& [k, v] : fields) {
    if (!n->keys.empty() && n->keys.back() == k) {
      n->items.back() = std::move(v);  // last wins, as in nlohmann::json
      continue;
    }
    n->keys.push_back(k);
    n->items.push_back(std::move(v));
  }
  return Jexp(std::move(n));
}

Jexp Jexp::ref(Ref r) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Reference;
  n->ref = std::move(r);
  return Jexp(std::move(n));
}

Jexp Jexp::from_json(const Json& v) {
  if (v.is_array()) {
    std::vector<Jexp> items;
    for (const Json& x : v) items.push_back(from_json(x));
    return array(std::move(items));
  }
  if (v.is_object()) {
    std::vector<std::pair<std::string, Jexp>> f;
    for (const auto& [k, x] : v.items()) f.emplace_back(k, from_json(x));
    return object(std::move(f));
  }
  return scalar(v);
}

const Jexp* Jexp::find(std::string_view key) const {
  if (kind() != Kind::Object) return nullptr;
  // (keys are sorted: object())
  auto it = std::lower_bound(keys().begin(), keys().end(), key);
  if (it == keys().end() || *it != key) return nullptr;
  return &items()[static_cast<std::size_t>(it - keys().begin())];
}

std::string string_field(const Jexp& e, std::string_view key) {
  const Jexp* v = e.find(key);
  if (!v || v->kind() != Jexp::Kind::Scalar || !v->value().is_string()) return {};
  return v->value().get<std::string>();
}

Jexp with_member(const Jexp& e, std::string_view key, Jexp value) {
  std::vector<std::pair<std::string, Jexp>> fields;
  bool replaced = false;
  if (e.kind() == Jexp::Kind::Object)
    for (std::size_t i = 0; i < e.keys().size(); ++i) {
      const bool here = e.keys()[i] == key;
      replaced = replaced || here;
      fields.emplace_back(e.keys()[i], here ? value : e.items()[i]);
    }
  if (!replaced)
    fields.emplace_back(std::string(key), std::move(value));  // (sorted by object())
  return Jexp::object(std::move(fields));
}

bool operator==(const Jexp& a, const Jexp& b) {
  if (a.node_ == b.node_) return true;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Jexp::Kind::Scalar:
      return a.value() == b.value();
    case Jexp::Kind::Reference:
      return a.reference() == b.reference();
    case Jexp::Kind::Object:
      if (a.keys() != b.keys()) return false;
      [[fallthrough]];
    case Jexp::Kind::Array:
      return a.items() == b.items();
  }
  return false;
}

namespace {

class Parser {
 public:
  Parser(std::string_view t, const FunctionRegistry& fns) : t_(t), fns_(fns) {}

  Result<Jexp> value(int depth) {
    if (depth > kMaxJexpDepth) return err("nesting deeper than 64");
    ws();
    if (i_ >= t_.size()) return err("expected a value");
    char c = t_[i_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return string_scalar();
    if (c == 't' || c == 'f' || c == 'n') return word();
    if (c == '-' || (c >= '0' && c <= '9')) return number_or_ref();
    return err(
        std::string("unexpected character ") +
        Json(std::string(1, c)).dump(-1, ' ', true, Json::error_handler_t::replace));
  }
  void ws() {
    while (i_ < t_.size() &&
           (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r'))
      ++i_;
  }
  std::size_t pos() const { return i_; }
  Error err(const std::string& m) const {
    return make_error("column " + std::to_string(i_ + 1) + ": " + m);
  }

 private:
  Result<Jexp> object(int depth) {
    ++i_;  // {
    std::vector<std::pair<std::string, Jexp>> fields;
    ws();
    if (i_ < t_.size() && t_[i_] == '}') {
      ++i_;
      return Jexp::object({});
    }
    for (;;) {
      ws();
      if (i_ >= t_.size() || t_[i_] != '"') return err("expected a field name");
      auto key = string_scalar();
      if (!key) return key;
      std::string k = key->value().get<std::string>();
      for (const auto& f : fields)
        if (f.first == k) return err("duplicate field " + dump_json(k));
      ws();
      if (i_ >= t_.size() || t_[i_] != ':') return err("expected `:`");
      ++i_;
      auto v = value(depth + 1);
      if (!v) return v;
      fields.emplace_back(std::move(k), std::move(*v));
      ws();
      if (i_ < t_.size() && t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < t_.size() && t_[i_] == '}') {
        ++i_;
        return Jexp::object(std::move(fields));
      }
      return err("expected `,` or `}`");
    }
  }

  Result<Jexp> array(int depth) {
    ++i_;  // [
    std::vector<Jexp> items;
    ws();
    if (i_ < t_.size() && t_[i_] == ']') {
      ++i_;
      return Jexp::array({});
    }
    for (;;) {
      auto v = value(depth + 1);
      if (!v) return v;
      items.push_back(std::move(*v));
      ws();
      if (i_ < t_.size() && t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < t_.size() && t_[i_] == ']') {
        ++i_;
        return Jexp::array(std::move(items));
      }
      return err("expected `,` or `]`");
    }
  }

  Result<Jexp> string_scalar() {
    std::size_t j = i_ + 1;
    for (; j < t_.size() && t_[j] != '"'; ++j)
      if (t_[j] == '\\') ++j;
    if (j >= t_.size()) return err("unterminated string");
    Json s = Json::parse(t_.substr(i_, j + 1 - i_), nullptr, false);
    if (s.is_discarded()) return err("invalid string (bad escape or UTF-8)");
    i_ = j + 1;
    return Jexp::scalar(std::move(s));
  }

  Result<Jexp> word() {
    for (const char* w : {"true", "false", "null"}) {
      std::string_view sw(w);
      if (t_.substr(i_, sw.size()) == sw) {
        i_ += sw.size();
        return Jexp::scalar(Json::parse(sw));
      }
    }
    return err("expected true, false or null");
  }

  Result<Jexp> number_or_ref() {
    std::size_t j = i_;
    if (t_[j] == '-') ++j;
    while (j < t_.size() &&
           std::string_view("0123456789+-.eE").find(t_[j]) != std::string_view::npos) {
      if (t_[j] == '.' && j + 1 < t_.size() && t_[j + 1] == '(') break;  // a reference
      ++j;
    }
    if (j + 1 < t_.size() && t_[j] == '.' && t_[j + 1] == '(') return reference(j);
    Json n = Json::parse(t_.substr(i_, j - i_), nullptr, false);
    if (n.is_discarded() || !n.is_number()) return err("invalid number");
    i_ = j;
    return Jexp::scalar(std::move(n));
  }

  // label.(jpath).function, the label ending at `dot`.
  Result<Jexp> reference(std::size_t dot) {
    std::string_view digits = t_.substr(i_, dot - i_);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos ||
        digits[0] == '0')
      return err("a reference starts with a label (a positive integer)");
    Jexp::Ref r;
    r.label = static_cast<Label>(std::stoul(std::string(digits)));
    i_ = dot + 2;  // past ".("
    std::size_t used = 0;
    auto p = parse_jpath(t_.substr(i_), &used);
    if (!p) return err("in the reference's Jpath: " + p.error());
    r.path = std::move(*p);
    i_ += used;
    if (t_.substr(i_, 2) != ").") return err("expected `).` and a function name");
    i_ += 2;
    std::size_t j = i_;
    while (j < t_.size() &&
           (std::isalnum(static_cast<unsigned char>(t_[j])) || t_[j] == '_'))
      ++j;
    r.function = std::string(t_.substr(i_, j - i_));
    if (!FunctionRegistry::valid_name(r.function)) return err("expected a function name");
    if (!fns_.find(r.function)) return err("unknown function `" + r.function + "`");
    i_ = j;
    return Jexp::ref(std::move(r));
  }

  std::string_view t_;
  const FunctionRegistry& fns_;
  std::size_t i_ = 0;
};

void print(const Jexp& e, std::string& out) {
  switch (e.kind()) {
    case Jexp::Kind::Scalar:
      out += dump_json(e.value());
      return;
    case Jexp::Kind::Reference: {
      const auto& r = e.reference();
      out += std::to_string(r.label) + ".(" + r.path.print() + ")." + r.function;
      return;
    }
    case Jexp::Kind::Array:
      out += '[';
      for (std::size_t i = 0; i < e.items().size(); ++i) {
        if (i) out += ',';
        print(e.items()[i], out);
      }
      out += ']';
      return;
    case Jexp::Kind::Object:
      out += '{';
      for (std::size_t i = 0; i < e.items().size(); ++i) {
        if (i) out += ',';
        out += dump_json(e.keys()[i]) + ':';
        print(e.items()[i], out);
      }
      out += '}';
      return;
  }
}

// Candidate messages for a reference, loose order: the label itself, then
// by distance, ties to the smaller label.
std::vector<const LabelledTrace::Message*> by_nearness(const LabelledTrace& t, Label l) {
  std::vector<const LabelledTrace::Message*> ms;
  for (const auto& m : t.messages()) ms.push_back(&m);
  auto dist = [l](Label x) { return x > l ? x - l : l - x; };
  std::stable_sort(ms.begin(), ms.end(), [&](const auto* a, const auto* b) {
    if (dist(a->label) != dist(b->label)) return dist(a->label) < dist(b->label);
    return a->label < b->label;
  });
  return ms;
}

// Registered functions are protocol code: their failures, thrown or
// returned, become errors rather than escaping the API.
Result<Json> call(const FunctionRegistry::Fn& fn, const std::string& name,
                  const Json& arg) {
  try {
    auto r = fn(arg);
    if (!r) return make_error("function `" + name + "` failed: " + r.error());
    return r;
  } catch (const std::exception& ex) {
    return make_error("function `" + name + "` threw: " + ex.what());
  }
}

template <bool Strict>
Result<Json> eval(const Jexp& e, const LabelledTrace& t, const FunctionRegistry& fns) {
  switch (e.kind()) {
    case Jexp::Kind::Scalar:
      return e.value();
    case Jexp::Kind::Array: {
      Json out = Json::array();
      for (const Jexp& x : e.items()) {
        auto v = eval<Strict>(x, t, fns);
        if (!v) return v;
        out.push_back(std::move(*v));
      }
      return out;
    }
    case Jexp::Kind::Object: {
      Json out = Json::object();
      for (std::size_t i = 0; i < e.items().size(); ++i) {
        auto v = eval<Strict>(e.items()[i], t, fns);
        if (!v) return v;
        out[e.keys()[i]] = std::move(*v);
      }
      return out;
    }
    case Jexp::Kind::Reference: {
      const Jexp::Ref& r = e.reference();
      const FunctionRegistry::Fn* fn = fns.find(r.function);
      if constexpr (Strict) {
        if (!fn) return make_error("unknown function `" + r.function + "`");
        const Json* m = t.find(r.label);
        if (!m) return make_error("no message labelled " + std::to_string(r.label));
        auto sub = r.path.apply(*m);
        if (!sub)
          return make_error("message " + std::to_string(r.label) + ": " + sub.error());
        return call(*fn, r.function, *sub);
      } else {
        if (!fn) return Json(nullptr);
        for (const auto* m : by_nearness(t, r.label))
          if (auto sub = r.path.apply_loose(m->ir)) {
            auto v = call(*fn, r.function, *sub);
            return v ? *v : Json(nullptr);
          }
        return Json(nullptr);
      }
    }
  }
  return Json(nullptr);
}

void collect(const Jexp& e, std::vector<Jexp::Ref>& out) {
  if (e.kind() == Jexp::Kind::Reference) out.push_back(e.reference());
  for (const Jexp& x : e.items()) collect(x, out);
}

}  // namespace

Result<Jexp> parse_jexp(std::string_view text, const FunctionRegistry& fns,
                        std::size_t* consumed) {
  Parser p(text, fns);
  auto v = p.value(0);
  if (!v) return v;
  p.ws();
  if (consumed)
    *consumed = p.pos();
  else if (p.pos() != text.size())
    return p.err("unexpected text after the value");
  return v;
}

std::string print_jexp(const Jexp& e) {
  std::string out;
  print(e, out);
  return out;
}

Result<Json> evaluate(const Jexp& e, const LabelledTrace& t,
                      const FunctionRegistry& fns) {
  return eval<true>(e, t, fns);
}

Json evaluate_loose(const Jexp& e, const LabelledTrace& t, const FunctionRegistry& fns) {
  auto v = eval<false>(e, t, fns);
  return v ? *v : Json(nullptr);
}

std::vector<Jexp::Ref> references(const Jexp& e) {
  std::vector<Jexp::Ref> out;
  collect(e, out);
  return out;
}

int jexp_depth(const Jexp& e) {
  int d = 0;
  for (const Jexp& x : e.items()) d = std::max(d, 1 + jexp_depth(x));
  return d;
}

namespace {

void leaves(const Jexp& e, JexpPos& at, std::vector<JexpPos>& out) {
  if (e.kind() == Jexp::Kind::Scalar || e.kind() == Jexp::Kind::Reference) {
    out.push_back(at);
    return;
  }
  for (std::size_t i = 0; i < e.items().size(); ++i) {
    at.push_back(i);
    leaves(e.items()[i], at, out);
    at.pop_back();
  }
}

// Container `e` (same kind and keys) with new children.
Jexp rebuild(const Jexp& e, std::vector<Jexp> items) {
  if (e.kind() == Jexp::Kind::Array) return Jexp::array(std::move(items));
  std::vector<std::pair<std::string, Jexp>> f;
  for (std::size_t k = 0; k < items.size(); ++k)
    f.emplace_back(e.keys()[k], std::move(items[k]));
  return Jexp::object(std::move(f));
}

Jexp with_child(const Jexp& e, std::size_t i, Jexp child) {
  std::vector<Jexp> items = e.items();
  items[i] = std::move(child);
  return rebuild(e, std::move(items));
}

std::optional<Jexp> replace(const Jexp& e, const JexpPos& pos, std::size_t depth,
                            Jexp& by) {
  if (depth == pos.size()) return std::move(by);
  if (pos[depth] >= e.items().size()) return std::nullopt;
  auto child = replace(e.items()[pos[depth]], pos, depth + 1, by);
  if (!child) return std::nullopt;
  return with_child(e, pos[depth], std::move(*child));
}

}  // namespace

std::vector<JexpPos> leaf_positions(const Jexp& e) {
  std::vector<JexpPos> out;
  JexpPos at;
  leaves(e, at, out);
  return out;
}

std::optional<Jexp> jexp_at(const Jexp& e, const JexpPos& pos) {
  const Jexp* cur = &e;
  for (std::size_t i : pos) {
    if (i >= cur->items().size()) return std::nullopt;
    cur = &cur->items()[i];
  }
  return *cur;
}

std::optional<Jexp> replace_at(const Jexp& e, const JexpPos& pos, Jexp by) {
  return replace(e, pos, 0, by);
}

Jexp map_references(const Jexp& e, const std::function<Jexp(const Jexp::Ref&)>& f) {
  switch (e.kind()) {
    case Jexp::Kind::Scalar:
      return e;
    case Jexp::Kind::Reference:
      return f(e.reference());
    case Jexp::Kind::Array:
    case Jexp::Kind::Object: {
      std::vector<Jexp> items;
      for (const Jexp& x : e.items()) items.push_back(map_references(x, f));
      return rebuild(e, std::move(items));
    }
  }
  return e;
}

}  // namespace dualfuzz::harness
