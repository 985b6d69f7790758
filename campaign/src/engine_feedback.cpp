#include "dualfuzz/campaign/detail/engine_feedback.h"

#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>

// Weak: defined only in a binary with instrumented code (the linker makes
// __start_/__stop_ for the counters' section). AFL++'s map is not touched
// here: declaring __afl_area_ptr makes afl-cc rename its own (see
// engine_coverage.cpp), and AFL++ weighs inputs by their speed itself.
extern "C" {
__attribute__((weak)) extern std::uint8_t __start___sancov_cntrs[];
__attribute__((weak)) extern std::uint8_t __stop___sancov_cntrs[];
}

namespace dualfuzz::campaign::detail {
namespace {

// libFuzzer's extra counters (scanned after, cleared before each execution).
// A mutable global because the engine's ABI finds it by section.
alignas(64) __attribute__((section("__libfuzzer_extra_counters"),
                           used)) std::uint8_t extra_counters[kBehaviourCounters];

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Counts (`count`: the engine buckets hit counts into features) or marks
// the counter of hash h.
void bump(std::uint64_t h, bool count) {
  h ^= h >> 29;  // (FNV's low bits mix poorly)
  std::uint8_t& c = extra_counters[h % kBehaviourCounters];
  if (!count)
    c = 1;
  else if (c != 0xff)
    ++c;
}

}  // namespace

std::uint8_t* behaviour_counters() { return extra_counters; }

std::size_t count_behaviour(const harness::Protocol& p, const harness::LabelledTrace& t) {
  // The previous exchange's kind on each resource.
  std::unordered_map<std::string, std::uint64_t> last;
  std::size_t n = 0;
  for (const auto& m : t.messages()) {
    if (m.label == 0 || m.label % 2 != 0) continue;  // requests, stray answers
    const harness::Json* q = t.find(m.label - 1);
    if (!q) continue;
    const std::string answer = p.response_shape(m.ir);
    bump(fnv1a(answer, fnv1a("\x1f", fnv1a(p.request_shape(*q)))), true);
    // An edge joins coarse kinds (request_kind: HTTP's method) and only
    // marks: with full shapes or hit counts every longer script was "new"
    // (9,000 features in a minute, a corpus that bloated).
    const std::uint64_t coarse = fnv1a(answer, fnv1a("\x1f", fnv1a(p.request_kind(*q))));
    auto it = last.try_emplace(p.race_key(*q), 0).first;
    bump(fnv1a("edge", it->second * 31 + coarse), false);
    it->second = coarse;
    ++n;
  }
  return n;
}

std::size_t forget_coverage() {
  std::uint8_t* begin = __start___sancov_cntrs;
  std::uint8_t* end = __stop___sancov_cntrs;
  if (begin == nullptr || end == nullptr || end <= begin) return 0;
  const auto n = static_cast<std::size_t>(end - begin);
  std::memset(begin, 0, n);
  return n;
}

}  // namespace dualfuzz::campaign::detail
