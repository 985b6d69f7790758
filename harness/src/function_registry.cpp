#include "dualfuzz/harness/function_registry.h"

#include <stdexcept>

namespace dualfuzz::harness {

FunctionRegistry FunctionRegistry::with_builtins() {
  FunctionRegistry r;
  r.add("id", [](const Json& j) -> Result<Json> { return j; });
  return r;
}

bool FunctionRegistry::valid_name(const std::string& n) {
  if (n.empty() || n.size() > 64 || std::isdigit(static_cast<unsigned char>(n[0])))
    return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

FunctionRegistry& FunctionRegistry::add(const std::string& name, Fn fn) {
  if (!valid_name(name)) throw std::invalid_argument("bad function name: " + name);
  // Copy on write: registries are values.
  auto next = std::make_shared<std::map<std::string, Fn>>(*fns_);
  if (!next->emplace(name, std::move(fn)).second)
    throw std::invalid_argument("function registered twice: " + name);
  fns_ = std::move(next);
  return *this;
}

const FunctionRegistry::Fn* FunctionRegistry::find(const std::string& name) const {
  auto it = fns_->find(name);
  return it == fns_->end() ? nullptr : &it->second;
}

std::vector<std::string> FunctionRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : *fns_) out.push_back(k);
  return out;
}

}  // namespace dualfuzz::harness
