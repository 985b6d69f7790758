// Any bytes: the script parser never crashes, and whatever it accepts
// prints canonically and parses back to the same script.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dualfuzz/harness/script.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto fns = dualfuzz::harness::FunctionRegistry::with_builtins();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = dualfuzz::harness::parse_script(text, fns);
  if (!s) return 0;
  std::string printed = dualfuzz::harness::print_script(*s);
  auto back = dualfuzz::harness::parse_script(printed, fns);
  if (!back || !(*back == *s) || dualfuzz::harness::print_script(*back) != printed)
    __builtin_trap();
  return 0;
}
