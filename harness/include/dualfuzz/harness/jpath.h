// Jpath (thesis Fig. 5.6): a path into an IR value: `this`, then `@"field"`
// and `#index` steps; indices are 1-based as in the thesis
// (`this@"files"#2@"mode"` is the second file's mode).
//
//   auto p = parse_jpath("this@\"files\"#2@\"mode\"");   // Result<Jpath>
//   Result<Json> v = p->apply(ir);                       // strict
//   std::optional<Json> w = p->apply_loose(ir);          // thesis §5.3.2
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dualfuzz/harness/ir.h"
#include "dualfuzz/result.h"

namespace dualfuzz::harness {

class Jpath {
 public:
  struct Field {
    std::string name;
    friend bool operator==(const Field&, const Field&) = default;
  };
  struct Index {
    std::size_t n;  // 1-based
    friend bool operator==(const Index&, const Index&) = default;
  };
  using Step = std::variant<Field, Index>;

  Jpath() = default;  // `this`
  explicit Jpath(std::vector<Step> steps) : steps_(std::move(steps)) {}
  const std::vector<Step>& steps() const { return steps_; }

  // Strict: fails with a reason when a step does not fit.
  Result<Json> apply(const Json& v) const;
  // Loose: an index that does not fit (too few elements, or the element
  // cannot evaluate the rest of the path) falls back to the first element
  // that can; nullopt when nothing fits.
  std::optional<Json> apply_loose(const Json& v) const;

  std::string print() const;
  friend bool operator==(const Jpath&, const Jpath&) = default;

 private:
  std::vector<Step> steps_;
};

// Parses a whole Jpath; `consumed`, when given, allows trailing text and
// reports how much was read.
Result<Jpath> parse_jpath(std::string_view text, std::size_t* consumed = nullptr);

}  // namespace dualfuzz::harness
