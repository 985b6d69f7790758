// J-expressions (thesis §5.3): JSON whose values may be references
// `label.(jpath).function` into the run's own labelled trace.
//
//   auto fns = FunctionRegistry::with_builtins();
//   auto e = parse_jexp(R"({"if-match": 4.(this@"headers"@"etag").id})", fns);
//   Json q = evaluate_loose(*e, trace, fns);      // never fails
//   Result<Json> s = evaluate(*e, trace, fns);    // fails with a reason
//   std::string text = print_jexp(*e);            // canonical: keys sorted, compact
//
// Editing (for the mutator): positions are paths of child indices.
//   for (const JexpPos& p : leaf_positions(*e))
//     if (auto r = replace_at(*e, p, Jexp::ref({4, Jpath(), "id"}))) use(*r);
#pragma once

#include <functional>
#include <memory>
#include <optional>
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
  // null, bool, number or string. Made printable as the value it will parse
  // back to: a structured value or a non-finite number becomes null, invalid
  // UTF-8 is replaced by U+FFFD (so parse(print(x)) == x always holds).
  static Jexp scalar(Json v);
  static Jexp array(std::vector<Jexp> items);
  // Keys are kept sorted (byte order); a duplicate key keeps the last value.
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
  // The value at `key` of an Object; nullptr when absent or not an Object.
  const Jexp* find(std::string_view key) const;

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

// The string at `key` of an Object whose value there is a string scalar, ""
// otherwise (the protocols' heuristics read requests so: string_field(req,
// "path")).
std::string string_field(const Jexp& e, std::string_view key);

// `e` (an Object) with the member `key` set to `value`: replaced where `e`
// has it, else added; an `e` that is no Object gives the Object of that
// member alone (heuristics rewrite requests so:
// with_member(req, "method", Jexp::scalar("GET"))).
Jexp with_member(const Jexp& e, std::string_view key, Jexp value);

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
// whose path does not fit tries the other messages — the thesis says "any
// other IR in the trace", without preferring requests or responses — nearest
// label first (ties: the smaller label), with loose Jpaths. When nothing
// fits, or the function is unknown or fails, the reference becomes null.
Json evaluate_loose(const Jexp& e, const LabelledTrace& t, const FunctionRegistry& fns);

// Every reference in `e`, depth-first.
std::vector<Jexp::Ref> references(const Jexp& e);

// Nesting of the deepest value (a scalar, reference or empty container is
// 0); parse_jexp accepts at most kMaxJexpDepth.
int jexp_depth(const Jexp& e);

// A position in a Jexp: child indices from the root (for an object, the
// index of the key in sorted order). The empty position is the root.
using JexpPos = std::vector<std::size_t>;
// Every scalar and reference, depth-first, in printing order.
std::vector<JexpPos> leaf_positions(const Jexp& e);
// The sub-expression at `pos`; nullopt when `pos` does not exist.
std::optional<Jexp> jexp_at(const Jexp& e, const JexpPos& pos);
// `e` with the sub-expression at `pos` replaced by `by` (untouched subtrees
// are shared); nullopt when `pos` does not exist. Turns a literal into a
// reference and back.
std::optional<Jexp> replace_at(const Jexp& e, const JexpPos& pos, Jexp by);
// `e` with every reference r replaced by f(r), e.g. to relabel or to inline.
Jexp map_references(const Jexp& e, const std::function<Jexp(const Jexp::Ref&)>& f);

}  // namespace dualfuzz::harness
