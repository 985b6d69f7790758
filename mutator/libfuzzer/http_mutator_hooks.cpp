// libFuzzer custom-mutator hooks for HTTP scripts: thin extern "C" shims over
// ScriptMutator. They catch everything (nothing may cross the C ABI) and
// write only into libFuzzer's buffer, within MaxSize.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>

#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/specs/http_protocol.h"

namespace {
const dualfuzz::mutator::ScriptMutator& the_mutator() {
  static const dualfuzz::mutator::ScriptMutator m(dualfuzz::specs::http_protocol());
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
    return emit(the_mutator().mutate(std::string_view(reinterpret_cast<char*>(data), size),
                                     max_size, rng),
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
    return emit(the_mutator().crossover(std::string_view(reinterpret_cast<const char*>(d1), s1),
                                        std::string_view(reinterpret_cast<const char*>(d2), s2),
                                        max_out, rng),
                out, max_out);
  } catch (...) {
    return 0;
  }
}
