// Structural shrinking of a failing script (thesis §5.3): delete steps, then
// strip requests down, keeping whatever still fails. References are
// re-instantiated on every re-run (loose evaluation), so a shrunk script
// stays meaningful.
//
//   Script small = minimize(script, [&](const Script& s) { return run(s).violation(); });
#pragma once

#include <functional>

#include "dualfuzz/harness/script.h"

namespace dualfuzz::mutator {

// `still_fails` must be deterministic. At most `max_runs` calls.
harness::Script minimize(const harness::Script& failing,
                         const std::function<bool(const harness::Script&)>& still_fails,
                         std::size_t max_runs = 2000);

}  // namespace dualfuzz::mutator
