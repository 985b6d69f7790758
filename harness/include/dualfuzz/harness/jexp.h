// J-expressions (thesis §5.3): JSON whose values may be references
// `label.(jpath).function` into the run's own labelled trace.
//
//   auto fns = FunctionRegistry::with_builtins();
//   auto e = parse_jexp(R"({"if-match": 4.(this@"headers"@"etag").id})", fns);
//   Json q = evaluate_loose(*e, trace, fns);      // never fails
//   Result<Json> s = evaluate(*e, trace, fns);    // fails with a reason
//   std::string text = print_jexp(*e);            // canonical: keys sorted, compact
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dualfuzz/harness/function_registry.h"
#include "dualfuzz/harness/jpath.h"
#include "dualfuzz/harness/labelled_trace.h"

namespace dualfuzz::harness {

class Jexp {
 public:
  struct Ref {
    Label label = 0;
    Jpath path;
    std::string function = "id";
    friend bool operator==(const Ref&, const Ref&) = default;
  };
  enum class Kind { Scalar, Array, Object, Reference };

  Jexp() : Jexp(scalar(nullptr)) {}
  static Jexp scalar(Json v);  // null, bool, number or string
  static Jexp array(std::vector<Jexp> items);
  // Keys are kept sorted; a duplicate key keeps the last value.
  static Jexp object(std::vector<std::pair<std::string, Jexp>> fields);
  static Jexp ref(Ref r);
  // A Jexp without references.
  static Jexp from_json(const Json& v);

  Kind kind() const { return node_->kind; }
  const Json& value() const { return node_->value; }  // Scalar
  const std::vector<Jexp>& items() const {
    return node_->items;
  }  // Array / Object values
  const std::vector<std::string>& keys() const { return node_->keys; }  // Object
  const Ref& reference() const { return node_->ref; }                   // Reference

  friend bool operator==(const Jexp& a, const Jexp& b);

 private:
  struct Node {
    Kind kind = Kind::Scalar;
    Json value;
    std::vector<Jexp> items;
    std::vector<std::string> keys;
    Ref ref;
  };
  explicit Jexp(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  std::shared_ptr<const Node> node_;
};

inline constexpr int kMaxJexpDepth = 64;

// Parses one J-expression. Unknown function names are errors (naming the
// function), as are nesting deeper than kMaxJexpDepth and trailing text
// unless `consumed` is given.
Result<Jexp> parse_jexp(std::string_view text, const FunctionRegistry& fns,
                        std::size_t* consumed = nullptr);
std::string print_jexp(const Jexp& e);

// Strict evaluation: every reference must find its message and path.
Result<Json> evaluate(const Jexp& e, const LabelledTrace& t, const FunctionRegistry& fns);
// Loose evaluation (thesis §5.3.2): a reference whose label is absent or
// whose path does not fit tries the other messages, nearest label first
// (ties: the smaller label), with loose Jpaths; when nothing fits, or the
// function fails, the reference becomes null.
Json evaluate_loose(const Jexp& e, const LabelledTrace& t, const FunctionRegistry& fns);

// Every reference in `e`, depth-first.
std::vector<Jexp::Ref> references(const Jexp& e);

}  // namespace dualfuzz::harness
