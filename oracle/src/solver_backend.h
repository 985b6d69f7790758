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
#include <cstdint>
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

// What the program and the module must agree on, so that a module of
// another build (one named by $DUALFUZZ_Z3_MODULE, or copied next to a newer
// program) is refused instead of misreading formulas: the interface's version
// (bump it when SolverBackend changes), the layouts that cross the boundary,
// and the build tree's token (DUALFUZZ_BUILD_TOKEN, made once per CMake build
// directory: a module of another build directory is refused even when the
// layouts happen to match).
#ifndef DUALFUZZ_BUILD_TOKEN
#define DUALFUZZ_BUILD_TOKEN ""
#endif
inline constexpr std::uint64_t kSolverBackendVersion = 1;
constexpr std::uint64_t backend_abi() {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a
  const auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
  };
  for (std::uint64_t v :
       {kSolverBackendVersion, std::uint64_t{sizeof(Sym)}, std::uint64_t{alignof(Sym)},
        std::uint64_t{sizeof(Json)}, std::uint64_t{sizeof(StringTheory)},
        std::uint64_t{sizeof(std::vector<Sym>)},
        std::uint64_t{sizeof(std::pair<VarId, Json>)}})
    mix(v);
  for (const char* c = DUALFUZZ_BUILD_TOKEN; *c != '\0'; ++c)
    mix(static_cast<unsigned char>(*c));
  return h;
}
inline constexpr std::uint64_t kSolverBackendAbi = backend_abi();

}  // namespace dualfuzz::oracle::detail

extern "C" {
// A new back end (the caller owns it), or null with a message in
// error[0..error_size) when `abi` differs from the module's or Z3 cannot start.
// Never throws.
__attribute__((visibility("default"))) dualfuzz::oracle::detail::SolverBackend*
dualfuzz_z3_backend_new(std::uint64_t abi, unsigned timeout_ms, char* error,
                        std::size_t error_size) noexcept;
}
