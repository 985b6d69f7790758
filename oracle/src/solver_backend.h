// What Solver (solver.h) asks of its Z3 back end (oracle/z3/z3_backend.cpp).
//
// With DUALFUZZ_LAZY_Z3 (the default outside fuzzer builds) the back end is a
// module of its own, libdualfuzz_z3.so, which Solver dlopen()s at its first
// query: a program that never needs Z3 (the Jepsen checks) then never maps
// libz3 (≈ 5 ms of every process's start-up). Otherwise it is part of the
// oracle library and libz3 is linked in, as fuzz targets and static builds
// want. Either way Solver only sees this interface and the factory below.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "dualfuzz/oracle/solver.h"
#include "dualfuzz/oracle/symbolic.h"
#include "dualfuzz/oracle/theory.h"

namespace dualfuzz::oracle::detail {

// One Z3 context and its solver. A Z3 error (or a formula Z3 cannot express)
// answers Sat::Unknown, and model() keeps the values read before it; other
// exceptions (std::bad_alloc) propagate: these are C++ calls between code built
// from the same sources against the same libstdc++. Only the factory is extern
// "C", and nothing crosses it but its return value.
class SolverBackend {
 public:
  virtual ~SolverBackend() = default;
  // `strings`: the solver's own theory, for queries without a Match node.
  virtual Sat check(const std::vector<Sym>& formulas, const StringTheory& strings) = 0;
  virtual std::vector<std::pair<VarId, Json>> model(const std::vector<Sym>& formulas,
                                                    const StringTheory& strings) = 0;
};

// Bumped whenever SolverBackend, Sym, StringTheory or Json change layout, so a
// stale module (e.g. one named by $DUALFUZZ_Z3_MODULE) is refused instead of
// misreading formulas.
inline constexpr unsigned kSolverBackendAbi = 1;

}  // namespace dualfuzz::oracle::detail

extern "C" {
// A new back end (the caller owns it), or null with a message in
// error[0..error_size) when `abi` differs from the module's or Z3 cannot start.
// Never throws.
__attribute__((visibility("default"))) dualfuzz::oracle::detail::SolverBackend*
dualfuzz_z3_backend_new(unsigned abi, unsigned timeout_ms, char* error,
                        std::size_t error_size) noexcept;
}
