// AFL++ custom-mutator hooks for scripts of any registered protocol
// ($DUALFUZZ_PROTOCOL): thin extern "C" shims over
// AflAdapter. The only state is the AflAdapter that afl_custom_init returns
// (afl-fuzz may load several instances). Nothing may unwind into afl-fuzz's C
// code, so every hook catches everything and still returns something valid:
// afl-fuzz 4.04c aborts on a NULL buffer from fuzz or trim, and on a negative
// count from init_trim or post_trim.
#include "dualfuzz/mutator/afl_custom_mutator.h"

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string_view>

#include "dualfuzz/mutator/afl_adapter.h"
#include "dualfuzz/protocols/builtin.h"

using dualfuzz::mutator::AflAdapter;

namespace {
// Null when afl_custom_init failed (afl-fuzz stops then, but a hook must not
// rely on it): every hook answers its no-op instead of dereferencing.
AflAdapter* state(void* data) { return static_cast<AflAdapter*>(data); }
std::string_view view(const uint8_t* p, size_t n) {
  return p ? std::string_view(reinterpret_cast<const char*>(p), n) : std::string_view();
}
uint8_t* bytes(std::string_view s) {
  // AFL never writes through the returned buffer; the ABI just lacks const.
  return reinterpret_cast<uint8_t*>(const_cast<char*>(s.data()));
}
// A valid non-NULL buffer for the hooks' last-resort returns
// (a blank line: the empty script). Read-only, like every buffer returned.
uint8_t* empty_buffer() {
  static const char blank[] = "\n";
  return reinterpret_cast<uint8_t*>(const_cast<char*>(blank));
}
}  // namespace

extern "C" DUALFUZZ_AFL_API void* afl_custom_init(afl_state_t* /*afl*/,
                                                  unsigned int seed) {
  try {
    // Targeted mutation replays inputs on a server of its own, from the
    // environment afl-fuzz passes to the target too ($DUALFUZZ_BUG,
    // $DUALFUZZ_TARGET; $DUALFUZZ_TARGETED=0 turns it off).
    return new AflAdapter(dualfuzz::protocols::engine_mutator_from_env(), seed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dualfuzz AFL++ mutator: cannot start: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "dualfuzz AFL++ mutator: cannot start\n");
  }
  return nullptr;  // afl-fuzz reports a failed custom-mutator init
}

extern "C" DUALFUZZ_AFL_API void afl_custom_deinit(void* data) {
  delete static_cast<AflAdapter*>(data);
}

extern "C" DUALFUZZ_AFL_API size_t afl_custom_fuzz(void* data, uint8_t* buf,
                                                   size_t buf_size, uint8_t** out_buf,
                                                   uint8_t* add_buf, size_t add_buf_size,
                                                   size_t max_size) {
  AflAdapter* a = state(data);
  std::string_view out;
  try {
    if (!a) throw std::logic_error("no mutator state");
    out = a->fuzz(view(buf, buf_size), view(add_buf, add_buf_size), max_size);
  } catch (...) {
    try {
      if (!a) throw std::logic_error("no mutator state");
      out = a->fallback(view(buf, buf_size), max_size);
    } catch (...) {
      out = std::string_view(reinterpret_cast<char*>(empty_buffer()), max_size ? 1 : 0);
    }
  }
  *out_buf = out.data() ? bytes(out) : empty_buffer();
  return out.size();
}

extern "C" DUALFUZZ_AFL_API const char* afl_custom_describe(void* data,
                                                            size_t max_description_len) {
  try {
    AflAdapter* a = state(data);
    return a ? a->describe(max_description_len) : "";
  } catch (...) {
    return "";  // afl-fuzz then uses its default description
  }
}

extern "C" DUALFUZZ_AFL_API int32_t afl_custom_init_trim(void* data, uint8_t* buf,
                                                         size_t buf_size) {
  try {
    AflAdapter* a = state(data);
    if (!a) return 0;
    return static_cast<int32_t>(a->trimmer().start(view(buf, buf_size), a->functions()));
  } catch (...) {
    return 0;  // no trimming steps: afl-fuzz moves on
  }
}

extern "C" DUALFUZZ_AFL_API size_t afl_custom_trim(void* data, uint8_t** out_buf) {
  AflAdapter* a = state(data);
  if (!a) {  // (init_trim said 0 steps: afl-fuzz should not ask)
    *out_buf = empty_buffer();
    return 0;
  }
  auto& t = a->trimmer();
  try {
    const std::string& s = t.next();
    *out_buf = bytes(s);
    return s.size();
  } catch (...) {
    // The accepted text is always a safe (no-op) proposal.
    *out_buf = bytes(t.current());
    return t.current().size();
  }
}

extern "C" DUALFUZZ_AFL_API int32_t afl_custom_post_trim(void* data, uint8_t success) {
  try {
    AflAdapter* a = state(data);
    if (!a) return 0x7fffffff;
    return static_cast<int32_t>(a->trimmer().report(success != 0));
  } catch (...) {
    return 0x7fffffff;  // past any step count: ends this trimming round
  }
}
