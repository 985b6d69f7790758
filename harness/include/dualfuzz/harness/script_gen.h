// Seeded random J-expressions and scripts, well-formed by construction: for
// property tests here and as raw material for the mutator.
//
//   std::mt19937_64 rng(seed);
//   Script s = random_script(rng, FunctionRegistry::with_builtins(), 12);
#pragma once

#include <random>

#include "dualfuzz/harness/script.h"

namespace dualfuzz::harness {

Json random_json(std::mt19937_64& rng, int depth = 3);
Jpath random_jpath(std::mt19937_64& rng);
// References point at labels in [1, max_label] (none when max_label == 0).
Jexp random_jexp(std::mt19937_64& rng, const FunctionRegistry& fns, Label max_label,
                 int depth = 3);
Script random_script(std::mt19937_64& rng, const FunctionRegistry& fns,
                     std::size_t max_steps);

}  // namespace dualfuzz::harness
