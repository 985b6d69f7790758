// Input: a trace of JSON messages, one per line (labels 1, 2, 3, ... in
// order; connection = label % 3), then a line "---", then a J-expression.
// Strict and loose evaluation never crash; loose evaluation succeeds
// whenever strict does, with the same value; the Jexp prints canonically.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dualfuzz/harness/jexp.h"

using dualfuzz::Result;
using dualfuzz::harness::Json;

namespace {
dualfuzz::harness::FunctionRegistry registry() {
  auto fns = dualfuzz::harness::FunctionRegistry::with_builtins();
  // Protocol functions may fail or throw; neither may escape evaluation.
  fns.add("fails",
          [](const Json&) -> Result<Json> { return dualfuzz::make_error("no"); });
  fns.add("throws", [](const Json& j) -> Result<Json> { return j.at("x"); });
  return fns;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto fns = registry();
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
    if (!v.is_discarded()) trace.add(label, label % 3, std::move(v));
    ++label;
    if (nl == std::string_view::npos) break;
    msgs.remove_prefix(nl + 1);
  }
  auto e = dualfuzz::harness::parse_jexp(in.substr(sep + 5), fns);
  if (!e) return 0;
  auto strict = dualfuzz::harness::evaluate(*e, trace, fns);
  Json loose = dualfuzz::harness::evaluate_loose(*e, trace, fns);
  if (strict && *strict != loose) __builtin_trap();
  std::string printed = dualfuzz::harness::print_jexp(*e);
  auto back = dualfuzz::harness::parse_jexp(printed, fns);
  if (!back || !(*back == *e) || dualfuzz::harness::print_jexp(*back) != printed)
    __builtin_trap();
  return 0;
}
