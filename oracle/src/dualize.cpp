#include "dualfuzz/oracle/dualize.h"

namespace dualfuzz::oracle {
namespace {

std::string brief(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

// `explain` off: the same verdict without building messages (hot path).
// `store`: the hypothesis's knowledge; the pattern is read as if resolved
// by it, but only the leaves that need a constraint are resolved (a whole
// resolved copy of every response pattern cost more than the match).
bool match(const Sym& p, const Json& v, const std::string& at, Sym& acc, std::string& why,
           bool explain, const ConstraintStore* store,
           ConstraintStore::Bindings* bindings) {
  auto shown = [&](const Sym& s) { return (store ? store->resolve(s) : s).to_string(); };
  switch (p.op()) {
    case Op::Const:
      if (p.value() == v) return true;
      if (explain) why = at + ": expected " + brief(p.value()) + ", observed " + brief(v);
      return false;
    case Op::Absent:
      if (explain) why = at + ": expected no value, observed " + brief(v);
      return false;
    case Op::Object: {
      if (!v.is_object()) {
        if (explain) why = at + ": expected an object, observed " + brief(v);
        return false;
      }
      for (std::size_t i = 0; i < p.args().size(); ++i) {
        const std::string& k = p.field_names()[i];
        const Sym& sub = p.args()[i];
        auto it = v.find(k);
        std::string here = explain ? at + "." + k : std::string();
        if (it == v.end()) {
          if (sub.op() == Op::Absent) continue;
          if (sub.op() == Op::Alt) {  // an optional field: one alternative is Absent
            bool optional = false;
            for (const Sym& a : sub.args()) optional = optional || a.op() == Op::Absent;
            if (optional) continue;
          }
          if (explain) why = here + ": expected " + shown(sub) + ", but it is missing";
          return false;
        }
        if (!match(sub, *it, here, acc, why, explain, store, bindings)) return false;
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
          std::string w;
          if (!match(alt, v, at, c, w, false, store, &b)) continue;
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
      std::string whys;
      for (const Sym& alt : p.args()) {
        Sym c = Sym::lit(true);
        std::string w;
        // (An alternative's equations stay in its disjunct.)
        if (match(alt, v, at, c, w, explain, store, nullptr)) {
          any = or_(any, c);
          if (any.is_true()) break;
        } else if (explain) {
          whys += (whys.empty() ? "" : "; or ") + w;
        }
      }
      if (any.is_false()) {
        if (explain) why = whys;
        return false;
      }
      acc = and_(acc, any);
      return true;
    }
    case Op::Array: {
      if (!v.is_array() || v.size() != p.args().size()) {
        if (explain)
          why = at + ": expected an array of " + std::to_string(p.args().size()) +
                " elements, observed " + brief(v);
        return false;
      }
      for (std::size_t i = 0; i < p.args().size(); ++i)
        if (!match(p.args()[i], v[i], explain ? at + "[" + std::to_string(i) + "]" : at,
                   acc, why, explain, store, bindings))
          return false;
      return true;
    }
    default: {
      const Sym q = store && !p.ground() ? store->resolve(p) : p;
      if (q.is_const()) {  // (a bound variable: no constraint to build)
        if (q.value() == v) return true;
        if (explain)
          why = at + ": expected " + brief(q.value()) + ", observed " + brief(v);
        return false;
      }
      if (bindings && q.is_var()) {  // (eq(var, const) never folds)
        bindings->emplace_back(q, &v);
        return true;
      }
      Sym c = eq(q, Sym::lit(v));
      if (c.is_false()) {
        if (explain) why = at + ": expected " + q.to_string() + ", observed " + brief(v);
        return false;
      }
      acc = and_(acc, c);
      return true;
    }
  }
}

}  // namespace

Guard guard(const Sym& pattern, const Json& observed, bool explain) {
  return guard(pattern, observed, nullptr, explain);
}

Guard guard(const Sym& pattern, const Json& observed, const ConstraintStore* store,
            bool explain) {
  Guard g{Sym::lit(true), false, {}, {}};
  if (!match(pattern, observed, "response", g.constraint, g.mismatch, explain, store,
             store && !explain ? &g.bindings : nullptr)) {
    g.failed = true;
    g.bindings.clear();
    if (explain && g.mismatch.empty()) g.mismatch = "response does not match";
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
