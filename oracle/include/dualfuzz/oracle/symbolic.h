// Symbolic values: the expression language server models compute with.
//
//   Sym v = Sym::var(3, Sort::Str);                  // a version the server invented
//   Sym ok = eq(Sym::lit("v7"), v);                  // a request's precondition
//   Sym resp = Sym::object({{"status", Sym::lit(200)}, {"version", v}});
//
// Sym is an immutable, cheaply copyable value (a shared node). Constructors fold
// constants eagerly, so a model that never invents anything computes with
// constants only and the oracle never needs a solver for it.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "dualfuzz/oracle/json_text.h"
#include "dualfuzz/oracle/theory.h"

namespace dualfuzz::oracle {

using Json = nlohmann::json;
using VarId = std::uint32_t;

// Sorts of symbolic variables; Json-sorted variables are opaque to Z3.
enum class Sort : std::uint8_t { Json, Str, Int, Bool };

enum class Op : std::uint8_t {
  Const,   // a JSON constant
  Var,     // a symbolic variable (from `fresh`)
  Object,  // response pattern: these fields (others allowed), each matching
  Array,   // response pattern: exactly these elements
  Absent,  // response pattern: the field must not be present
  Alt,     // response pattern: any one of the alternatives
  Eq,      // a == b
  Not,     // !a
  And,     // a && b
  Or,      // a || b
  Match,   // strings: the node's theory's match (theory.h)
  Lt,      // integers: a < b
  Le,      // integers: a <= b
  Ite,     // if a then b else c
  Test,    // response pattern: a pattern, and a protocol's test of the value (ValueTest)
};

// A test a protocol applies to an observed value, where no pattern of
// constants and variables says it: "the content is the slice of these bytes
// that its Content-Range names" (a 206 of a range the server chose). Only in
// response patterns, matched against ground values; never in a constraint.
// A test is a static object of the protocol; nodes name it by address.
//   struct SliceTest final : ValueTest { ... };
//   static const SliceTest kSlice;
//   Sym p = Sym::test(kSlice, Sym::lit("the representation"), Sym::object({...}));
class ValueTest {
 public:
  virtual ~ValueTest() = default;
  // Whether `observed` passes, given the node's constant argument.
  virtual bool accepts(const Json& argument, const Json& observed) const = 0;
  // What the test asks, for explanations ("a slice of" ...).
  virtual const char* name() const = 0;
};

class Sym {
 public:
  Sym();  // the constant null
  static Sym lit(Json value);
  static Sym var(VarId id, Sort sort);
  static Sym object(std::vector<std::pair<std::string, Sym>> fields);
  // An object's field names, made once and shared by every object of that
  // shape (a model builds the same response shapes for every request):
  //   static const Sym::Fields kShape = Sym::fields({"status", "body"});
  //   Sym::object(kShape, {Sym::lit(200), body});
  using Fields = std::shared_ptr<const std::vector<std::string>>;
  static Fields fields(std::vector<std::string> names);
  static Sym object(const Fields& names, std::vector<Sym> values);
  static Sym array(std::vector<Sym> elements);
  static Sym absent();
  // A pattern matching any of `alternatives` (e.g. 200 or 204). Cheaper than
  // `choose` in the model: one hypothesis instead of one per alternative.
  static Sym alt(std::vector<Sym> alternatives);
  static Sym make(Op op, std::vector<Sym> args);  // no folding; prefer the helpers below
  static Sym make_match(const Sym& a, const Sym& b, const StringTheory& theory,
                        Marked marked);  // no folding; prefer match()
  // A pattern matching the values that match `pattern` and that `t` accepts
  // with `argument`, a constant (a static test, see ValueTest). (A Sym, so
  // that a large constant a model holds anyway is shared, not copied.)
  static Sym test(const ValueTest& t, Sym argument, Sym pattern);

  Op op() const { return node_->op; }
  bool is_const() const { return node_->op == Op::Const; }
  bool is_var() const { return node_->op == Op::Var; }
  const Json& value() const { return node_->value; }  // Const only
  VarId var_id() const { return node_->var; }
  Sort sort() const { return node_->sort; }
  const std::vector<Sym>& args() const { return node_->args; }
  const std::vector<std::string>& field_names() const {
    return node_->names ? *node_->names : no_names();
  }
  const Fields& shape() const { return node_->names; }  // Object: its shared names
  // Match: the theory its strings are read in, and whether marked ones match.
  const StringTheory& theory() const { return node_->theory; }
  Marked marked() const { return node_->marked; }
  // Test only: its test, and the constant it is given (args: pattern, argument).
  const ValueTest* value_test() const { return node_->test; }
  const Json& test_argument() const { return node_->args[1].value(); }
  bool is_true() const {
    return is_const() && value().is_boolean() && value().get<bool>();
  }
  bool is_false() const {
    return is_const() && value().is_boolean() && !value().get<bool>();
  }
  // True when no variable occurs inside.
  bool ground() const { return node_->ground; }

  std::size_t hash() const { return node_->hash; }
  // The hash lit(value) has, without making it: equal values of one JSON
  // type hash alike, so two strings whose hashes differ differ.
  static std::size_t lit_hash(const Json& value);
  friend bool operator==(const Sym& a, const Sym& b);  // structural
  std::string to_string() const;

 private:
  struct Node {
    Op op = Op::Const;
    Sort sort = Sort::Json;
    VarId var = 0;
    bool ground = true;
    Marked marked = Marked::Allowed;  // Match only
    Json value;
    std::vector<Sym> args;
    Fields names;  // Object field names, parallel to args (null otherwise)
    // Match only: in the node, so that folding and substitution need no
    // context and cost no lookup.
    StringTheory theory;
    const ValueTest* test = nullptr;  // Test only
    std::size_t hash = 0;
  };
  explicit Sym(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  // (By reference: a node is moved once, into its allocation.)
  static Sym build(Node&& n);
  static const std::vector<std::string>& no_names();
  std::shared_ptr<const Node> node_;
};

// Folding constructors.
Sym eq(const Sym& a, const Sym& b);
Sym neq(const Sym& a, const Sym& b);
Sym not_(const Sym& a);
Sym and_(const Sym& a, const Sym& b);
Sym or_(const Sym& a, const Sym& b);
// The theory's match of two strings (theory.h); a constant that is not a
// string matches nothing.
Sym match(const Sym& a, const Sym& b, const StringTheory& theory, Marked marked);
Sym lt(const Sym& a, const Sym& b);
Sym le(const Sym& a, const Sym& b);
Sym ite(const Sym& c, const Sym& a, const Sym& b);

// Rebuilds `s` bottom-up with `leaf` applied to every variable (folding again).
template <typename F>
Sym substitute(const Sym& s, F&& leaf);

}  // namespace dualfuzz::oracle

#include "dualfuzz/oracle/detail/symbolic_inl.h"
