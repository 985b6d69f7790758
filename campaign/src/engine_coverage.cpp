// The two places the engines' ABIs give for coverage a fuzz target measures
// itself; the only globals of the server-coverage route, forced by those ABIs.
#include <sys/shm.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "dualfuzz/campaign/fuzz_environment.h"
#include "dualfuzz/campaign/server_coverage.h"

// AFL++'s runtime (afl-compiler-rt), present only in an afl-clang-fast
// build. Its map is reached through the SysV segment afl-fuzz names in
// $__AFL_SHM_ID, not through __afl_area_ptr: afl-cc's pass declares that
// variable in every module it instruments, and a declaration of ours makes
// it rename its own (an undefined `__afl_area_ptr.1` at link time).
extern "C" __attribute__((weak)) void afl_guard_init(
    std::uint32_t*, std::uint32_t*) __asm__("__sanitizer_cov_trace_pc_guard_init");

namespace dualfuzz::campaign {
namespace {

// libFuzzer (clang 14, Linux) adds the bytes of this section to its
// features after each input and clears them before the next
// (FuzzerExtraCounters.cpp); in any other process it is inert memory.
constexpr std::size_t kLibFuzzerSlots = 1 << 16;
__attribute__((used, section("__libfuzzer_extra_counters")))
std::uint8_t libfuzzer_counters[kLibFuzzerSlots];

// AFL++ sizes its map from the guards its runtime assigned when the
// forkserver starts: registering a block of guards of our own from a
// constructor (before the forkserver, like any instrumented module's) gets
// slots past the target's edges that AFL++ clears and reads every execution.
constexpr std::size_t kAflSlots = 1 << 15;
std::uint32_t afl_guards[kAflSlots];
std::size_t afl_slots = 0;
std::uint8_t* afl_map = nullptr;  // attached at the first forward

// Priority 2, that of the compiler's sancov module constructors: before
// afl-compiler-rt's own (3 and up), which fix the map size. (gcc warns that
// priorities up to 100 are reserved; clang 14 neither warns nor knows the
// warning's name, and would warn about that.)
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
#endif
__attribute__((constructor(2))) void register_afl_slots() {
  // (afl-fuzz sets __AFL_SHM_ID; libFuzzer's runtime has no guards to give)
  if (FuzzEnvironment::read().server_coverage.empty() || !std::getenv("__AFL_SHM_ID") ||
      !afl_guard_init)
    return;
  afl_guard_init(afl_guards, afl_guards + kAflSlots);
  // (guards AFL++ left at 0 are no slot: the block counts only if all were given)
  if (std::all_of(afl_guards, afl_guards + kAflSlots,
                  [](std::uint32_t g) { return g != 0; }))
    afl_slots = kAflSlots;
}
#pragma GCC diagnostic pop

}  // namespace

std::size_t libfuzzer_server_slots() { return kLibFuzzerSlots; }
std::size_t afl_server_slots() { return afl_slots; }

void forward_to_engine(const ServerCoverage& coverage, ServerCoverage::Counting c) {
  // libFuzzer cleared the counters before this input.
  coverage.fold_into(libfuzzer_counters, c);
  if (afl_slots == 0) return;
  if (!afl_map) {
    // The forkserver child's own map: the segment AFL++ reads after each input.
    void* m = ::shmat(std::atoi(std::getenv("__AFL_SHM_ID")), nullptr, 0);
    if (m == reinterpret_cast<void*>(-1)) {
      afl_slots = 0;
      return;
    }
    afl_map = static_cast<std::uint8_t*>(m);
  }
  const auto h = coverage.hits();
  std::uint8_t* map = afl_map;
  for (std::size_t i = 1; i < h.size(); ++i)
    if (h[i]) {
      std::uint8_t& o = map[afl_guards[i % kAflSlots]];
      o = std::max<std::uint8_t>(o, c == ServerCoverage::Counting::Edges ? 1 : h[i]);
    }
}

}  // namespace dualfuzz::campaign
