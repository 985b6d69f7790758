// Named functions IR -> IR that J-expression references apply (thesis
// Fig. 5.8). Only names are serialized in scripts; a protocol registers its
// own (e.g. "weaken" an ETag).
//
//   FunctionRegistry fns = FunctionRegistry::with_builtins();   // has "id"
//   fns.add("mode_add_write", [](const Json& j) -> Result<Json> { ... });
//   if (auto f = fns.find("id")) Result<Json> r = (*f)(Json(3));
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dualfuzz/harness/ir.h"
#include "dualfuzz/result.h"

namespace dualfuzz::harness {

class FunctionRegistry {
 public:
  using Fn = std::function<Result<Json>(const Json&)>;

  static FunctionRegistry with_builtins();
  // Names are identifiers: [A-Za-z_][A-Za-z0-9_]*; adding an existing or
  // malformed name throws std::invalid_argument (a programming error).
  FunctionRegistry& add(const std::string& name, Fn fn);
  const Fn* find(const std::string& name) const;
  std::vector<std::string> names() const;

  static bool valid_name(const std::string& name);

 private:
  std::shared_ptr<std::map<std::string, Fn>> fns_ =
      std::make_shared<std::map<std::string, Fn>>();
};

}  // namespace dualfuzz::harness
