// libFuzzer custom-mutator hooks for scripts of any registered protocol: thin extern "C"
// shims over ScriptMutator. They catch everything (nothing may cross the C ABI) and write
// only into libFuzzer's buffer, within MaxSize.
//
// Targeted mutation (one call in ScriptMutator::kTargetedOneIn) replays the
// input on a server of the mutator's own, built from the same environment
// as the fuzz target ($DUALFUZZ_BUG / $DUALFUZZ_TARGET); $DUALFUZZ_TARGETED=0
// turns it off. In-process, the replay is deterministic, so the output is
// still a function of (input, seed). The replay's coverage is not the
// input's: libFuzzer resets its counters before each execution.
//   DUALFUZZ_BUG=if-match-weak DUALFUZZ_TARGETED=0 ./http_inprocess_fuzzer corpus/
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>

#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/protocols/builtin.h"

namespace {
const dualfuzz::mutator::ScriptMutator& the_mutator() {
  static const dualfuzz::mutator::ScriptMutator m =
      dualfuzz::protocols::engine_mutator_from_env();
  return m;
}
std::size_t emit(const std::string& s, std::uint8_t* out, std::size_t max) {
  std::size_t n = std::min(s.size(), max);
  std::memcpy(out, s.data(), n);
  return n;
}
}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  try {
    std::mt19937_64 rng(seed);
    return emit(the_mutator().mutate(
                    std::string_view(reinterpret_cast<char*>(data), size), max_size, rng),
                data, max_size);
  } catch (...) {
    return std::min(size, max_size);
  }
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* d1, std::size_t s1,
                                                 const std::uint8_t* d2, std::size_t s2,
                                                 std::uint8_t* out, std::size_t max_out,
                                                 unsigned int seed) {
  try {
    std::mt19937_64 rng(seed);
    return emit(
        the_mutator().crossover(std::string_view(reinterpret_cast<const char*>(d1), s1),
                                std::string_view(reinterpret_cast<const char*>(d2), s2),
                                max_out, rng),
        out, max_out);
  } catch (...) {
    return 0;
  }
}

// For the fuzz target's "played since start" line: scripts the mutator
// replayed for targeted mutation, and how many of those it rewrote.
extern "C" void dualfuzz_targeted_stats(std::uint64_t* runs, std::uint64_t* rewrites) {
  try {
    const auto& st = the_mutator().targeted_stats();
    *runs = st.runs;
    *rewrites = st.rewrites;
  } catch (...) {
    *runs = *rewrites = 0;
  }
}
