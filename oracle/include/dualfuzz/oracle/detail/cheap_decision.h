// The constraint store's second fast path, between the unifier and Z3: the
// guards a model produces are mostly order facts over integers (a hidden
// time <= a date the request names) and string matches with constants,
// which a few microseconds of reasoning decide where a Z3 query costs
// ~100 us.
//
//   Sat s = detail::decide_cheaply({le(Sym::lit(5), t), le(t, Sym::lit(3))});
//   // s == Sat::No: 5 <= t <= 3 has no solution
//
// No only from a sound refutation: a negative cycle among the difference
// constraints (x - y <= c over Int variables and constants, read off the
// top-level Le/Lt/Eq facts and their negations), or a fact next to its own
// negation. Yes only with a witness that every formula evaluates to true
// under (integers: the difference constraints' shortest-path solution;
// strings: fresh ones, or the cores of the constants the variable is
// compared with, unmarked and marked). Strings are read in the theory of the
// facts' Match nodes (no marker if there is none). Anything else: Unknown,
// and the caller asks Z3.
#pragma once

#include <vector>

#include "dualfuzz/oracle/solver.h"
#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::oracle::detail {

Sat decide_cheaply(const std::vector<Sym>& formulas);

}  // namespace dualfuzz::oracle::detail
