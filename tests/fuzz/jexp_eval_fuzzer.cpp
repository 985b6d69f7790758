// Input: a trace of JSON messages, one per line, then a line "---", then a
// J-expression. Strict and loose evaluation never crash; loose evaluation
// succeeds whenever strict does, with the same value.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dualfuzz/harness/jexp.h"

using dualfuzz::harness::Json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto fns = dualfuzz::harness::FunctionRegistry::with_builtins();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto sep = in.find("\n---\n");
  if (sep == std::string_view::npos) return 0;
  dualfuzz::harness::LabelledTrace trace;
  std::string_view msgs = in.substr(0, sep);
  dualfuzz::harness::Label label = 1;
  while (!msgs.empty()) {
    auto nl = msgs.find('\n');
    std::string_view line = msgs.substr(0, nl);
    Json v = Json::parse(line, nullptr, false);
    if (!v.is_discarded()) trace.add(label++, 0, std::move(v));
    if (nl == std::string_view::npos) break;
    msgs.remove_prefix(nl + 1);
  }
  auto e = dualfuzz::harness::parse_jexp(in.substr(sep + 5), fns);
  if (!e) return 0;
  auto strict = dualfuzz::harness::evaluate(*e, trace, fns);
  Json loose = dualfuzz::harness::evaluate_loose(*e, trace, fns);
  if (strict && *strict != loose) __builtin_trap();
  (void)dualfuzz::harness::print_jexp(*e);
  return 0;
}
