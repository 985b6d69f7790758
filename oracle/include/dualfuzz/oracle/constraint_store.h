// A hypothesis's knowledge about the server's hidden choices: the unifier of
// thesis §4.2.3, with a fast path and Z3 behind it.
//
//   ConstraintStore cs;
//   Solver z3;
//   const Sym x = Sym::var(0, Sort::Str);
//   cs.add(eq(x, Sym::lit("v1")), z3);                                // Sat::Yes
//   cs.add(match(Sym::lit("v2"), x, StringTheory(), Marked::Allowed), z3);  // Sat::No
//
// Fast path: union-find over variable = variable / variable = constant, and a
// list of disequalities, so the common guards (an observed value binds the
// variable) never reach Z3. Other formulas are kept as residuals: first
// evaluated under the bindings, then given to Z3. A store is a plain value;
// forking a hypothesis copies it.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "dualfuzz/oracle/detail/small_vector.h"
#include "dualfuzz/oracle/solver.h"
#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::oracle {

class ConstraintStore {
 public:
  // Adds `formula`; returns No if the store became unsatisfiable (the
  // hypothesis dies), Unknown if Z3 could not decide (it lives on).
  Sat add(const Sym& formula, Solver& solver);
  // Like add(), but never calls the solver: Unknown when Z3 would be needed.
  Sat add_fast(const Sym& formula);
  // The same as add() of the conjunction of var == value for each pair
  // (an observed response binding the server's hidden choices), without
  // building the formula.
  using Bindings = boost::container::small_vector<std::pair<Sym, const Json*>, 4>;
  Sat bind(const Bindings& bindings, Solver& solver);

  // `s` with every bound variable replaced by its value (or its class
  // representative), folded.
  Sym resolve(const Sym& s) const;
  std::optional<Json> value_of(VarId v) const;
  // Everything the store knows, as formulas (for Z3 and for explanations).
  std::vector<Sym> formulas() const;
  bool empty() const {
    return data().vars.empty() && data().residual.empty() && data().diseqs.empty();
  }
  // True if some residual needed Z3 and Z3 said unknown.
  bool undecided() const { return data().undecided; }

  std::size_t hash() const;
  friend bool operator==(const ConstraintStore& a, const ConstraintStore& b);

 private:
  // The facts, shared between copies until one of them learns something:
  // hypotheses are copied on every fork and search step, and most copies
  // never add a fact.
  // One variable's entry (one vector for all three: a copy of the facts is
  // one allocation, not three).
  struct Slot {
    VarId parent;
    Sort sort = Sort::Json;  // as the variable was made (Json until seen)
    // At a root: the bound value, kept as a constant Sym so that
    // resolve() substitutes it without building a node per use.
    std::optional<Sym> value;
  };
  struct Data {
    std::vector<Slot> vars;   // indexed by VarId
    std::vector<Sym> diseqs;  // each: not(eq(a, b)), a/b var or const
    std::vector<Sym> residual;
    bool undecided = false;
    mutable std::optional<std::size_t> hash;  // computed on first use
  };
  const Data& data() const { return d_ ? *d_ : empty_data(); }
  Data& edit();  // this store's own copy of the facts (copy on write)
  static const Data& empty_data();

  VarId find(VarId v) const;
  bool touches_residuals(const Sym& f) const;
  bool lone_match_fact(const Sym& f) const;
  void ensure(VarId v, Sort s);
  bool unify(const Sym& a, const Sym& b);  // false on conflict
  Sat absorb(const Sym& formula, bool& needs_solver);
  Sat recheck(bool& needs_solver);
  Sat decide(Solver& solver);  // the store as it is, beyond the fast path

  std::shared_ptr<Data> d_;  // null: no facts
};

}  // namespace dualfuzz::oracle
