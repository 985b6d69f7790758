#include "dualfuzz/oracle/dualize.h"

#include <utility>

namespace dualfuzz::oracle {
namespace {

std::string brief(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

// A mismatch at `at`: the expected pattern and the observed value as text.
void mismatch(Reason* why, const std::string& at, std::string expected,
              std::string observed) {
  why->kind = Reason::Kind::Mismatch;
  why->location = at;
  why->text = at + ": expected " + expected + ", observed " + observed;
  why->expected = std::move(expected);
  why->observed = std::move(observed);
}

// `why` null: the same verdict without building reasons (hot path).
// `store`: the hypothesis's knowledge; the pattern is read as if resolved
// by it, but only the leaves that need a constraint are resolved (a whole
// resolved copy of every response pattern cost more than the match).
bool match(const Sym& p, const Json& v, const std::string& at, Sym& acc, Reason* why,
           const ConstraintStore* store, ConstraintStore::Bindings* bindings) {
  auto shown = [&](const Sym& s) { return (store ? store->resolve(s) : s).to_string(); };
  switch (p.op()) {
    case Op::Const:
      if (p.value() == v) return true;
      if (why) mismatch(why, at, brief(p.value()), brief(v));
      return false;
    case Op::Absent:
      if (why) mismatch(why, at, "no value", brief(v));
      return false;
    case Op::Object: {
      if (!v.is_object()) {
        if (why) mismatch(why, at, "an object", brief(v));
        return false;
      }
      for (std::size_t i = 0; i < p.args().size(); ++i) {
        const std::string& k = p.field_names()[i];
        const Sym& sub = p.args()[i];
        auto it = v.find(k);
        std::string here = why ? at + "." + k : std::string();
        if (it == v.end()) {
          if (sub.op() == Op::Absent) continue;
          if (sub.op() == Op::Alt) {  // an optional field: one alternative is Absent
            bool optional = false;
            for (const Sym& a : sub.args()) optional = optional || a.op() == Op::Absent;
            if (optional) continue;
          }
          if (why) {
            mismatch(why, here, shown(sub), "missing");
            why->text = here + ": expected " + why->expected + ", but it is missing";
          }
          return false;
        }
        if (!match(sub, *it, here, acc, why, store, bindings)) return false;
      }
      return true;
    }
    case Op::Alt: {
      if (bindings) {
        // One alternative matching (an optional field that is present, one
        // status code of several) binds like a plain pattern; with more
        // than one, their equations stay in the disjunction (below).
        ConstraintStore::Bindings mine;
        Sym only = Sym::lit(true);
        int matched = 0;
        for (const Sym& alt : p.args()) {
          Sym c = Sym::lit(true);
          ConstraintStore::Bindings b;
          if (!match(alt, v, at, c, nullptr, store, &b)) continue;
          if (++matched > 1) break;
          only = c;
          mine = std::move(b);
        }
        if (matched == 0) return false;
        if (matched == 1) {
          acc = and_(acc, only);
          bindings->insert(bindings->end(), mine.begin(), mine.end());
          return true;
        }
      }
      Sym any = Sym::lit(false);
      // Explaining: the alternatives' own reasons, combined into one at `at`
      // (each alternative is a pattern for the value found there).
      std::string texts, expected;
      Reason w;  // (explaining only)
      for (const Sym& alt : p.args()) {
        Sym c = Sym::lit(true);
        // (An alternative's equations stay in its disjunct.)
        if (match(alt, v, at, c, why ? &w : nullptr, store, nullptr)) {
          any = or_(any, c);
          if (any.is_true()) break;
        } else if (why) {
          texts += (texts.empty() ? "" : "; or ") + w.text;
          // A deeper mismatch names its place relative to `at`.
          std::string e = w.location.size() > at.size()
                              ? w.location.substr(at.size() + 1) + " " + w.expected
                              : w.expected;
          expected += (expected.empty() ? "" : " or ") + e;
        }
      }
      if (any.is_false()) {
        if (why) {
          mismatch(why, at, std::move(expected), brief(v));
          why->text = std::move(texts);
        }
        return false;
      }
      acc = and_(acc, any);
      return true;
    }
    case Op::Array: {
      if (!v.is_array() || v.size() != p.args().size()) {
        if (why)
          mismatch(why, at,
                   "an array of " + std::to_string(p.args().size()) + " elements",
                   brief(v));
        return false;
      }
      for (std::size_t i = 0; i < p.args().size(); ++i)
        if (!match(p.args()[i], v[i], why ? at + "[" + std::to_string(i) + "]" : at, acc,
                   why, store, bindings))
          return false;
      return true;
    }
    default: {
      const Sym q = store && !p.ground() ? store->resolve(p) : p;
      if (q.is_const()) {  // (a bound variable: no constraint to build)
        if (q.value() == v) return true;
        if (why) mismatch(why, at, brief(q.value()), brief(v));
        return false;
      }
      if (bindings && q.is_var()) {  // (eq(var, const) never folds)
        bindings->emplace_back(q, &v);
        return true;
      }
      Sym c = eq(q, Sym::lit(v));
      if (c.is_false()) {
        if (why) mismatch(why, at, q.to_string(), brief(v));
        return false;
      }
      acc = and_(acc, c);
      return true;
    }
  }
}

// An object's member named `k` (null when missing). The objects responses
// are matched against have a handful of members: a scan of them, comparing
// lengths first, costs less than the tree's search by ordering.
const Json* member(const Json& v, const std::string& k) {
  const Json::object_t& obj = v.get_ref<const Json::object_t&>();
  if (obj.size() > 8) {
    auto it = obj.find(k);
    return it == obj.end() ? nullptr : &it->second;
  }
  for (const auto& [name, value] : obj)
    if (name.size() == k.size() && name == k) return &value;
  return nullptr;
}

}  // namespace

GroundMatch match_ground(const Sym& p, const Json& v) {
  switch (p.op()) {
    case Op::Const: {
      // (Strings, the common case, compared as strings: Json's equality
      // dispatches on both types first.)
      const Json& c = p.value();
      if (c.is_string() && v.is_string())
        return c.get_ref<const std::string&>() == v.get_ref<const std::string&>()
                   ? GroundMatch::Yes
                   : GroundMatch::No;
      return c == v ? GroundMatch::Yes : GroundMatch::No;
    }
    case Op::Absent:
      return GroundMatch::No;
    case Op::Object: {
      if (!v.is_object()) return GroundMatch::No;
      bool unknown = false;
      const std::vector<std::string>& names = p.field_names();
      for (std::size_t i = 0; i < p.args().size(); ++i) {
        const Sym& sub = p.args()[i];
        const Json* field = member(v, names[i]);
        if (!field) {  // (as match(): Absent, or an Alt with an Absent, may be missing)
          if (sub.op() == Op::Absent) continue;
          if (sub.op() == Op::Alt) {
            bool optional = false;
            for (const Sym& a : sub.args()) optional = optional || a.op() == Op::Absent;
            if (optional) continue;
          }
          return GroundMatch::No;
        }
        switch (match_ground(sub, *field)) {
          case GroundMatch::No:
            return GroundMatch::No;
          case GroundMatch::Unknown:
            unknown = true;
            break;
          case GroundMatch::Yes:
            break;
        }
      }
      return unknown ? GroundMatch::Unknown : GroundMatch::Yes;
    }
    case Op::Alt: {
      bool unknown = false;
      for (const Sym& a : p.args()) {
        GroundMatch m = match_ground(a, v);
        if (m == GroundMatch::Yes) return GroundMatch::Yes;
        unknown = unknown || m == GroundMatch::Unknown;
      }
      return unknown ? GroundMatch::Unknown : GroundMatch::No;
    }
    case Op::Array: {
      if (!v.is_array() || v.size() != p.args().size()) return GroundMatch::No;
      bool unknown = false;
      for (std::size_t i = 0; i < p.args().size(); ++i) {
        GroundMatch m = match_ground(p.args()[i], v[i]);
        if (m == GroundMatch::No) return GroundMatch::No;
        unknown = unknown || m == GroundMatch::Unknown;
      }
      return unknown ? GroundMatch::Unknown : GroundMatch::Yes;
    }
    default:
      return GroundMatch::Unknown;  // (a variable, or an expression to fold)
  }
}

Guard guard(const Sym& pattern, const Json& observed, bool explain) {
  return guard(pattern, observed, nullptr, explain);
}

Guard guard(const Sym& pattern, const Json& observed, const ConstraintStore* store,
            bool explain) {
  Guard g{Sym::lit(true), false, {}, {}};
  static const std::string kWhole = "response";
  Reason why;
  if (!match(pattern, observed, kWhole, g.constraint, explain ? &why : nullptr, store,
             store && !explain ? &g.bindings : nullptr)) {
    g.failed = true;
    g.bindings.clear();
    if (explain) {
      if (why.text.empty()) {
        why.kind = Reason::Kind::Mismatch;
        why.location = kWhole;
        why.text = "response does not match";
      }
      g.mismatch = std::move(why);
    }
    g.constraint = Sym::lit(false);
  }
  return g;
}

Sat admit(const Guard& g, ConstraintStore& store, Solver& solver) {
  if (!g.bindings.empty() && store.bind(g.bindings, solver) == Sat::No) return Sat::No;
  if (!g.constraint.is_true() && store.add(g.constraint, solver) == Sat::No)
    return Sat::No;
  return Sat::Yes;
}

}  // namespace dualfuzz::oracle
