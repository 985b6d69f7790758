#include "dualfuzz/oracle/constraint_store.h"

#include <functional>
#include <unordered_map>

#include "dualfuzz/oracle/detail/cheap_decision.h"
#include "dualfuzz/oracle/detail/small_vector.h"

namespace dualfuzz::oracle {
namespace {
bool atom(const Sym& s) { return s.is_var() || s.is_const(); }
std::size_t mix(std::size_t h, std::size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
}  // namespace

const ConstraintStore::Data& ConstraintStore::empty_data() {
  static const Data empty;
  return empty;
}

ConstraintStore::Data& ConstraintStore::edit() {
  if (!d_)
    d_ = std::make_shared<Data>();
  else if (d_.use_count() > 1)
    d_ = std::make_shared<Data>(*d_);
  d_->hash.reset();
  return *d_;
}

VarId ConstraintStore::find(VarId v) const {
  const std::vector<Slot>& vars = data().vars;
  if (v >= vars.size()) return v;
  while (vars[v].parent != v) v = vars[v].parent;
  return v;
}

void ConstraintStore::ensure(VarId v, Sort s) {
  // (A variable met after a higher-numbered one already has a slot, with
  // no sort yet: it gets its sort now, so that formulas() states it.)
  if (v < data().vars.size() && (data().vars[v].sort == s || s == Sort::Json)) return;
  Data& d = edit();
  if (d.vars.capacity() == 0) d.vars.reserve(8);  // (hypotheses invent a few)
  for (std::size_t i = d.vars.size(); i <= v; ++i)
    d.vars.push_back(Slot{static_cast<VarId>(i), Sort::Json, std::nullopt});
  d.vars[v].sort = s;
}

std::optional<Json> ConstraintStore::value_of(VarId v) const {
  VarId r = find(v);
  if (r < data().vars.size() && data().vars[r].value)
    return data().vars[r].value->value();
  return std::nullopt;
}

Sym ConstraintStore::resolve(const Sym& s) const {
  if (data().vars.empty() || s.ground()) return s;
  const Data& d = data();
  return substitute(s, [this, &d](const Sym& v) {
    VarId r = find(v.var_id());
    if (r < d.vars.size() && d.vars[r].value) return *d.vars[r].value;
    if (r == v.var_id()) return v;
    return Sym::var(r, v.sort());
  });
}

bool ConstraintStore::unify(const Sym& a0, const Sym& b0) {
  Sym a = resolve(a0), b = resolve(b0);
  if (a.is_const() && b.is_const()) return a.value() == b.value();
  if (a.is_const()) std::swap(a, b);
  // a is a variable (a class root)
  ensure(a.var_id(), a.sort());
  VarId ra = find(a.var_id());
  if (b.is_const()) {
    edit().vars[ra].value = b;
    return true;
  }
  ensure(b.var_id(), b.sort());
  VarId rb = find(b.var_id());
  if (ra == rb) return true;
  // Keep the smaller id as root so equal stores are equal values.
  if (rb < ra) std::swap(ra, rb);
  edit().vars[rb].parent = ra;
  return true;
}

Sat ConstraintStore::absorb(const Sym& formula, bool& needs_solver) {
  boost::container::small_vector<Sym, 4> todo{formula};
  while (!todo.empty()) {
    Sym f = resolve(todo.back());
    todo.pop_back();
    if (f.is_true()) continue;
    if (f.is_false()) return Sat::No;
    if (f.op() == Op::And) {
      todo.push_back(f.args()[0]);
      todo.push_back(f.args()[1]);
    } else if (f.op() == Op::Eq && atom(f.args()[0]) && atom(f.args()[1])) {
      if (!unify(f.args()[0], f.args()[1])) return Sat::No;
    } else if (f.op() == Op::Not && f.args()[0].op() == Op::Eq &&
               atom(f.args()[0].args()[0]) && atom(f.args()[0].args()[1])) {
      edit().diseqs.push_back(f);
    } else {
      edit().residual.push_back(f);
      needs_solver = true;
    }
  }
  return Sat::Yes;
}

Sat ConstraintStore::recheck(bool& needs_solver) {
  if (data().diseqs.empty() && data().residual.empty()) {
    needs_solver = false;
    return Sat::Yes;
  }
  Data& d = edit();
  auto sweep = [&](std::vector<Sym>& list) {
    std::size_t out = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      Sym r = resolve(list[i]);
      if (r.is_false()) return false;
      if (r.is_true()) continue;
      list[out++] = r;
    }
    list.resize(out);
    return true;
  };
  if (!sweep(d.diseqs) || !sweep(d.residual)) return Sat::No;
  if (d.residual.empty()) needs_solver = false;
  return Sat::Yes;
}

namespace {
// Variable lists are short (a fact names one or two): inline storage.
using VarList = boost::container::small_vector<VarId, 8>;
void vars_of(const Sym& s, VarList& out) {
  if (s.ground()) return;
  if (s.is_var()) {
    out.push_back(s.var_id());
    return;
  }
  for (const Sym& a : s.args()) vars_of(a, out);
}
}  // namespace

// Whether f's variables are connected, through the disequalities and
// residuals already in the store, to any residual. If not, the residuals
// live in other components, which f cannot make unsatisfiable: the fast
// path's verdict on f's component (equalities and disequalities of atoms
// over infinite sorts) is exact.
bool ConstraintStore::touches_residuals(const Sym& f) const {
  const Data& d = data();
  if (d.residual.empty()) return false;
  VarList fv;
  vars_of(f, fv);
  if (fv.empty()) return false;
  // A tiny union-find over class roots, as (root, parent) pairs: stores
  // hold a handful of facts, so a linear scan beats hashing.
  boost::container::small_vector<std::pair<VarId, VarId>, 16> comp;
  auto parent = [&](VarId v) -> VarId* {
    for (auto& [x, p] : comp)
      if (x == v) return &p;
    return nullptr;
  };
  auto root = [&](VarId v) {
    v = find(v);
    for (VarId* p = parent(v); p && *p != v; p = parent(v)) v = *p;
    return v;
  };
  VarList vs;
  auto link = [&](const Sym& s) {
    vs.clear();
    vars_of(s, vs);
    for (std::size_t i = 0; i < vs.size(); ++i) {
      VarId r = root(vs[i]);
      if (!parent(r)) comp.emplace_back(r, r);
      if (i) {
        VarId r0 = root(vs[0]);
        if (r0 != r) *parent(r) = r0;
      }
    }
  };
  for (const Sym& x : d.diseqs) link(x);
  for (const Sym& r : d.residual) link(r);
  VarList marks;
  for (const Sym& r : d.residual) {
    vs.clear();
    vars_of(r, vs);
    if (!vs.empty()) marks.push_back(root(vs[0]));
  }
  for (VarId v : fv) {
    VarId r = root(v);
    for (VarId m : marks)
      if (m == r) return true;
  }
  return false;
}

namespace {
// An integer bound on its own: `x <= c`, `c < x`, `x <= y` (x, y distinct
// integer variables, c a constant), or the negation of one. Over the
// integers such a fact is satisfiable whatever finitely many disequalities
// say about its variables, so unless it shares a variable with another
// residual the fast path's answer is exact. (A model that invents a new
// time states one: it is not before the last one.)
bool lone_bound(const Sym& f) {
  const Sym& g = f.op() == Op::Not ? f.args()[0] : f;
  if ((g.op() != Op::Le && g.op() != Op::Lt) || g.args().size() != 2) return false;
  const Sym &a = g.args()[0], &b = g.args()[1];
  auto int_var = [](const Sym& x) { return x.is_var() && x.sort() == Sort::Int; };
  auto int_const = [](const Sym& x) {
    return x.is_const() && x.value().is_number_integer();
  };
  if (int_var(a) && int_var(b)) return a.var_id() != b.var_id();
  return (int_var(a) && int_const(b)) || (int_const(a) && int_var(b));
}

// A match, or its negation, between a string variable and a constant or
// another string variable. On its own it is satisfiable: an unfolded match
// has a constant that can match (a non-empty core, and unmarked if marks
// are excluded: see match()) and the variable can be that constant, and a
// mismatch has infinitely many strings to pick from. (A model that invents
// a new version string states one: it does not match the old one.)
bool match_fact(const Sym& f, VarList& vars) {
  const Sym& g = f.op() == Op::Not ? f.args()[0] : f;
  if (g.op() != Op::Match || g.args().size() != 2) return false;
  for (const Sym& a : g.args()) {
    if (a.is_var() && a.sort() == Sort::Str)
      vars.push_back(a.var_id());
    else if (!a.is_const() || !a.value().is_string())
      return false;
  }
  return !vars.empty() && (vars.size() == 1 || vars[0] != vars[1]);
}
}  // namespace

// `f` (just absorbed as a residual) is a match_fact whose variables occur
// in no other residual or disequality: its component is `f` alone, which
// is satisfiable, and the rest of the store is as satisfiable as before.
bool ConstraintStore::lone_match_fact(const Sym& f) const {
  VarList fv;
  if (!match_fact(f, fv)) return false;
  for (VarId& v : fv) v = find(v);
  VarList other;
  bool self = false;  // f itself is among the residuals once
  auto shares = [&](const Sym& x) {
    other.clear();
    vars_of(x, other);
    for (VarId o : other)
      for (VarId v : fv)
        if (find(o) == v) return true;
    return false;
  };
  for (const Sym& x : data().diseqs)
    if (shares(x)) return false;
  for (const Sym& x : data().residual) {
    if (!self && x == f) {
      self = true;
      continue;
    }
    if (shares(x)) return false;
  }
  return self;
}

Sat ConstraintStore::add_fast(const Sym& formula) {
  Sym f = resolve(formula);
  if (f.is_true()) return Sat::Yes;
  if (f.is_false()) return Sat::No;
  const bool touches = touches_residuals(f);
  bool needs_solver = false;
  if (absorb(f, needs_solver) == Sat::No) return Sat::No;
  if (recheck(needs_solver) == Sat::No) return Sat::No;
  // f is now a residual of its own component (see lone_bound).
  if (!touches && lone_bound(f)) return Sat::Yes;
  if (lone_match_fact(f)) return Sat::Yes;
  // A new fact may contradict a residual the fast path cannot evaluate
  // (e.g. a disequality against a pending match).
  return (needs_solver || touches) && !data().residual.empty() ? Sat::Unknown : Sat::Yes;
}

Sat ConstraintStore::add(const Sym& formula, Solver& solver) {
  Sat fast = add_fast(formula);
  if (fast != Sat::Unknown) return fast;
  return decide(solver);
}

Sat ConstraintStore::bind(const Bindings& bindings, Solver& solver) {
  // As add_fast on the conjunction: whether it touches a residual is asked
  // before absorbing it, then the equations are unified, the residuals
  // re-evaluated, and Z3 asked only if a residual needs it.
  bool touches = false;
  for (const auto& [var, value] : bindings) touches = touches || touches_residuals(var);
  for (const auto& [var, value] : bindings)
    if (!unify(var, Sym::lit(*value))) return Sat::No;
  bool needs_solver = false;
  if (recheck(needs_solver) == Sat::No) return Sat::No;
  if (!((needs_solver || touches) && !data().residual.empty())) return Sat::Yes;
  return decide(solver);
}

Sat ConstraintStore::decide(Solver& solver) {
  // The residuals and disequalities, under the bindings, are the whole
  // problem (bound variables are substituted, classes renamed to roots).
  std::vector<Sym> open;
  open.reserve(data().diseqs.size() + data().residual.size());
  for (const Sym& f : data().diseqs) open.push_back(resolve(f));
  for (const Sym& f : data().residual) open.push_back(resolve(f));
  if (Sat cheap = detail::decide_cheaply(open); cheap != Sat::Unknown) return cheap;
  Sat s = solver.check(formulas());
  if (s == Sat::Unknown) edit().undecided = true;
  return s;
}

std::vector<Sym> ConstraintStore::formulas() const {
  const Data& d = data();
  std::vector<Sym> out;
  for (VarId v = 0; v < d.vars.size(); ++v) {
    VarId r = find(v);
    const Sort sv = d.vars[v].sort;
    if (r != v) out.push_back(eq(Sym::var(v, sv), Sym::var(r, d.vars[r].sort)));
    if (r == v && d.vars[v].value) out.push_back(eq(Sym::var(v, sv), *d.vars[v].value));
  }
  out.insert(out.end(), d.diseqs.begin(), d.diseqs.end());
  out.insert(out.end(), d.residual.begin(), d.residual.end());
  return out;
}

std::size_t ConstraintStore::hash() const {
  const Data& d = data();
  if (d.hash) return *d.hash;
  std::size_t h = d.vars.size();
  for (VarId v = 0; v < d.vars.size(); ++v) {
    h = mix(h, find(v));
    if (d.vars[v].value) h = mix(h, d.vars[v].value->hash());
  }
  for (const Sym& s : d.diseqs) h = mix(h, s.hash());
  for (const Sym& s : d.residual) h = mix(h, s.hash());
  if (d_) d.hash = h;  // (the shared empty Data is never written)
  return h;
}

bool operator==(const ConstraintStore& a, const ConstraintStore& b) {
  if (a.d_ == b.d_) return true;
  const auto &x = a.data(), &y = b.data();
  if (x.vars.size() != y.vars.size()) return false;
  for (VarId v = 0; v < x.vars.size(); ++v)
    if (a.find(v) != b.find(v) || x.vars[v].value != y.vars[v].value) return false;
  return x.diseqs == y.diseqs && x.residual == y.residual;
}

}  // namespace dualfuzz::oracle
