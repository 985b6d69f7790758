// The Z3 back end: decides satisfiability of what the fast path cannot.
//
//   const StringTheory versions("~");
//   Solver z3(/*timeout_ms=*/200, versions);
//   Sym x = Sym::var(0, Sort::Str);
//   Sat s = z3.check({match(Sym::lit("a"), x, versions, Marked::Excluded),
//                     not_(eq(x, Sym::lit("a")))});
//   // s == Sat::No: an unmarked string with the core "a" is "a"
//
// One solver per oracle (a Z3 context is single-threaded). Each query runs in
// its own push/pop scope. A query reads its strings in the theory of its
// Match nodes (they carry it), or else in the solver's own (which matters
// only to the strings model() invents); a Match node of a second theory in
// the same query is untranslatable. Anything Z3 cannot express (a
// Json-sorted variable, a constant of the wrong sort) and any
// `unknown`/timeout answers Sat::Unknown: callers keep the hypothesis alive —
// the oracle never rejects on a guess.
//
// Z3 itself is loaded at the first query (src/solver_backend.h): built with
// DUALFUZZ_LAZY_Z3, from libdualfuzz_z3.so, found next to the program (or
// library) the oracle is linked into, else in the build tree, or wherever
// $DUALFUZZ_Z3_MODULE says; when it cannot be loaded, that query throws
// std::runtime_error naming the paths tried.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dualfuzz/oracle/symbolic.h"
#include "dualfuzz/oracle/theory.h"

namespace dualfuzz::oracle {
namespace detail {
class SolverBackend;
}

enum class Sat : std::uint8_t { Yes, No, Unknown };

struct SolverStats {
  std::uint64_t queries = 0;
  std::uint64_t sat = 0;
  std::uint64_t unsat = 0;
  std::uint64_t unknown = 0;
};

class Solver {
 public:
  explicit Solver(unsigned timeout_ms = 500, StringTheory strings = {});
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  // Satisfiability of the conjunction of `formulas` (boolean Syms).
  Sat check(const std::vector<Sym>& formulas);
  // A model for the conjunction, variable -> constant, when satisfiable
  // (used by targeted mutation to pick request values).
  std::vector<std::pair<VarId, Json>> model(const std::vector<Sym>& formulas);
  const SolverStats& stats() const { return stats_; }

 private:
  detail::SolverBackend& backend();
  unsigned timeout_ms_;
  StringTheory strings_;
  std::unique_ptr<detail::SolverBackend> backend_;  // created on first use
  SolverStats stats_;
};

}  // namespace dualfuzz::oracle
