// Dualization (thesis §4.2.2): what each server event means to the tester.
//   recv   ↦ the tester sent a request (the network decides which one arrives)
//   send   ↦ the tester must receive a matching response: a guard
//   fresh  ↦ a new symbolic variable in the hypothesis
//   decide ↦ fork: one hypothesis with cond = true, one with cond = false
//
//   Guard g = guard(Sym::object({{"status", Sym::lit(200)}, {"version", v}}),
//                   Json{{"status", 200}, {"version", "v7"}});
//   // g.ok(), g.constraint == eq(v, "v7")
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dualfuzz/oracle/constraint_store.h"
#include "dualfuzz/oracle/reason.h"
#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::oracle {

// The unification constraint under which an observed message matches a
// symbolic response pattern, or why it cannot match whatever the hidden
// choices were.
struct Guard {
  Sym constraint;       // conjunction; constant true when nothing is unknown
  bool failed = false;  // no choice of variables makes it match
  // Why it failed (only when asked to explain): a Mismatch at a location
  // (no clause: the caller knows which response was expected). Optional:
  // an empty one costs nothing on the hot path, where nothing is explained.
  // Alternatives that went wrong at one place are one expectation there:
  //   "response.status: expected any of 100-599 except 405, observed 405"
  // (expected "100-404 or 406-599": the whole set, integers as ranges);
  // at several places, one clause each, joined by "; or " (location: the
  // alternatives' own place; expected: "status 200 or 204; or allow ...").
  std::optional<Reason> mismatch;
  // Variables the match requires to equal observed values, kept apart from
  // `constraint` by the store-aware guard when it does not explain (the
  // caller binds them with ConstraintStore::bind, without building the
  // equations). The values point into the observed message.
  ConstraintStore::Bindings bindings;
  bool ok() const { return !failed; }
};

// Patterns: constants match equal JSON; variables bind; Object patterns
// require their fields (Absent: the field must be missing) and ignore the
// rest; Array patterns match element-wise; any other expression e matches
// the value v under the constraint e == v.
// `explain` = false skips building the mismatch message (it is then generic).
Guard guard(const Sym& pattern, const Json& observed, bool explain = true);
// The same as guard(store->resolve(pattern), observed, explain), resolving
// only what the match needs (null store: nothing is known). With a store
// and without `explain`, variable = value equations go to `bindings`.
Guard guard(const Sym& pattern, const Json& observed, const ConstraintStore* store,
            bool explain);
// A match decided without building a guard, when constants decide it (the
// search tests every response a hypothesis sends against the trace): Yes
// only when guard(pattern, observed), with any store, is ok with the
// constraint true and no bindings; No only when it fails; Unknown when a
// variable or an expression takes part (then call guard()).
enum class GroundMatch : std::uint8_t { No, Yes, Unknown };
GroundMatch match_ground(const Sym& pattern, const Json& observed);
// What a matching guard requires (its bindings and its constraint), added
// to `store`: No when the store becomes unsatisfiable.
Sat admit(const Guard& g, ConstraintStore& store, Solver& solver);

}  // namespace dualfuzz::oracle
