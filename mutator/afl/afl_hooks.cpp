// The state of a hook is the AflAdapter afl_init returned (afl-fuzz may
// load several instances); nothing else is kept between calls.
#include "dualfuzz/mutator/detail/afl_hooks.h"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string_view>

#include "dualfuzz/mutator/afl_adapter.h"

namespace dualfuzz::mutator::detail {

namespace {
// Null when afl_init failed (afl-fuzz stops then, but a hook must not rely
// on it): every hook answers its no-op instead of dereferencing.
AflAdapter* state(void* data) { return static_cast<AflAdapter*>(data); }
std::string_view view(const std::uint8_t* p, std::size_t n) {
  return p ? std::string_view(reinterpret_cast<const char*>(p), n) : std::string_view();
}
std::uint8_t* bytes(std::string_view s) {
  // AFL never writes through the returned buffer; the ABI just lacks const.
  return reinterpret_cast<std::uint8_t*>(const_cast<char*>(s.data()));
}
// A valid non-NULL buffer for the hooks' last-resort returns
// (a blank line: the empty script). Read-only, like every buffer returned.
std::uint8_t* empty_buffer() {
  static const char blank[] = "\n";
  return reinterpret_cast<std::uint8_t*>(const_cast<char*>(blank));
}
}  // namespace

void* afl_init(unsigned int seed, const std::function<ScriptMutator()>& make) noexcept {
  try {
    return new AflAdapter(make(), seed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dualfuzz AFL++ mutator: cannot start: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "dualfuzz AFL++ mutator: cannot start\n");
  }
  return nullptr;  // afl-fuzz reports a failed custom-mutator init
}

void afl_deinit(void* data) noexcept { delete state(data); }

std::size_t afl_fuzz(void* data, std::uint8_t* buf, std::size_t buf_size,
                     std::uint8_t** out_buf, std::uint8_t* add_buf,
                     std::size_t add_buf_size, std::size_t max_size) noexcept {
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

const char* afl_describe(void* data, std::size_t max_description_len) noexcept {
  try {
    AflAdapter* a = state(data);
    return a ? a->describe(max_description_len) : "";
  } catch (...) {
    return "";  // afl-fuzz then uses its default description
  }
}

std::int32_t afl_init_trim(void* data, std::uint8_t* buf, std::size_t buf_size) noexcept {
  try {
    AflAdapter* a = state(data);
    if (!a) return 0;
    return static_cast<std::int32_t>(
        a->trimmer().start(view(buf, buf_size), a->functions()));
  } catch (...) {
    return 0;  // no trimming steps: afl-fuzz moves on
  }
}

std::size_t afl_trim(void* data, std::uint8_t** out_buf) noexcept {
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

std::int32_t afl_post_trim(void* data, std::uint8_t success) noexcept {
  try {
    AflAdapter* a = state(data);
    if (!a) return 0x7fffffff;
    return static_cast<std::int32_t>(a->trimmer().report(success != 0));
  } catch (...) {
    return 0x7fffffff;  // past any step count: ends this trimming round
  }
}

}  // namespace dualfuzz::mutator::detail
