#include "dualfuzz/oracle/symbolic.h"

#include <functional>
#include <stdexcept>

namespace dualfuzz::oracle {
namespace {

std::size_t mix(std::size_t h, std::size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

const char* op_name(Op op) {
  switch (op) {
    case Op::Eq:
      return "==";
    case Op::Not:
      return "!";
    case Op::And:
      return "&&";
    case Op::Or:
      return "||";
    case Op::Lt:
      return "<";
    case Op::Le:
      return "<=";
    case Op::Ite:
      return "ite";
    default:
      return "?";
  }
}

}  // namespace

std::size_t Sym::lit_hash(const Json& value) {
  return mix(
      mix(static_cast<std::size_t>(Op::Const), static_cast<std::size_t>(Sort::Json)),
      std::hash<Json>{}(value));
}

Sym Sym::build(Node&& n) {
  std::size_t h = mix(static_cast<std::size_t>(n.op), static_cast<std::size_t>(n.sort));
  switch (n.op) {
    case Op::Const:
      h = mix(h, std::hash<Json>{}(n.value));
      break;
    case Op::Var:
      n.ground = false;
      h = mix(h, n.var);
      break;
    default:
      for (const Sym& a : n.args) {
        h = mix(h, a.hash());
        n.ground = n.ground && a.ground();
      }
      if (n.names) {
        // An object's names are shared by every object of its shape (a
        // model makes a few shapes, once): their hashes are remembered for
        // the last shape met, per thread, instead of hashing each name again
        // for every object (a kv write makes one). The shape is kept alive,
        // so its address is not reused.
        struct NameHashes {
          Fields names;
          std::vector<std::size_t> hashes;
        };
        static thread_local NameHashes last;
        if (last.names != n.names) {
          last.hashes.clear();
          for (const std::string& s : *n.names)
            last.hashes.push_back(std::hash<std::string>{}(s));
          last.names = n.names;
        }
        for (std::size_t x : last.hashes) h = mix(h, x);
      }
      if (n.op == Op::Match)
        h = mix(mix(h, static_cast<std::size_t>(n.marked)), n.theory.hash());
      if (n.op == Op::Test) h = mix(h, std::hash<const void*>{}(n.test));
  }
  n.hash = h;
  return Sym(std::make_shared<const Node>(std::move(n)));
}

// The shared constants below are per thread: a copy of a Sym counts a
// reference in its node, and partitions searched on several threads
// (check_history) counting references in the same nodes made each copy a
// cache line passed between cores.
Sym::Sym() {
  static thread_local const Sym null_sym = lit(nullptr);
  node_ = null_sym.node_;
}

Sym Sym::lit(Json value) {
  // null, true and false are everywhere (defaults, guards, folded
  // conditions): one shared node each instead of an allocation per use.
  auto make = [](Json v) {
    Node n;
    n.op = Op::Const;
    n.value = std::move(v);
    return build(std::move(n));
  };
  if (value.is_null()) {
    static thread_local const Sym null_sym = make(nullptr);
    return null_sym;
  }
  // (Values are read through pointers: get<>() is a call through
  // nlohmann's conversion machinery, and every folded condition comes here.)
  if (const auto* b = value.get_ptr<const Json::boolean_t*>()) {
    static thread_local const Sym true_sym = make(true), false_sym = make(false);
    return *b ? true_sym : false_sym;
  }
  // So are three-digit response codes.
  if (const auto* i = value.get_ptr<const Json::number_integer_t*>();
      i && !value.is_number_unsigned() && *i >= 100 && *i < 600) {
    static thread_local const std::vector<Sym> codes = [&] {
      std::vector<Sym> v;
      for (int c = 100; c < 600; ++c) v.push_back(make(c));
      return v;
    }();
    return codes[static_cast<std::size_t>(*i - 100)];
  }
  return make(std::move(value));
}

Sym Sym::var(VarId id, Sort sort) {
  auto make = [](VarId i, Sort so) {
    Node n;
    n.op = Op::Var;
    n.var = i;
    n.sort = so;
    return build(std::move(n));
  };
  // Hypotheses number their variables from 0, so the first ones of each
  // sort are made once (immutable, shared) instead of per use.
  constexpr VarId kShared = 64;
  if (id < kShared) {
    static thread_local const std::vector<Sym> shared = [&] {
      std::vector<Sym> v;
      for (Sort so : {Sort::Json, Sort::Str, Sort::Int, Sort::Bool})
        for (VarId i = 0; i < kShared; ++i) v.push_back(make(i, so));
      return v;
    }();
    return shared[static_cast<std::size_t>(sort) * kShared + id];
  }
  return make(id, sort);
}

Sym Sym::object(std::vector<std::pair<std::string, Sym>> fields) {
  std::vector<std::string> names;
  std::vector<Sym> values;
  names.reserve(fields.size());
  values.reserve(fields.size());
  for (auto& [k, v] : fields) {
    names.push_back(std::move(k));
    values.push_back(std::move(v));
  }
  return object(Sym::fields(std::move(names)), std::move(values));
}

Sym::Fields Sym::fields(std::vector<std::string> names) {
  return std::make_shared<const std::vector<std::string>>(std::move(names));
}

Sym Sym::object(const Fields& names, std::vector<Sym> values) {
  if (!names || names->size() != values.size())
    throw std::invalid_argument("Sym::object: " + std::to_string(values.size()) +
                                " values for " +
                                std::to_string(names ? names->size() : 0) + " fields");
  Node n;
  n.op = Op::Object;
  n.names = names;
  n.args = std::move(values);
  return build(std::move(n));
}

const std::vector<std::string>& Sym::no_names() {
  static const std::vector<std::string> none;
  return none;
}

Sym Sym::array(std::vector<Sym> elements) {
  Node n;
  n.op = Op::Array;
  n.args = std::move(elements);
  return build(std::move(n));
}

Sym Sym::absent() {
  static thread_local const Sym absent_sym = [] {
    Node n;
    n.op = Op::Absent;
    return build(std::move(n));
  }();
  return absent_sym;
}

Sym Sym::alt(std::vector<Sym> alternatives) {
  if (alternatives.size() == 1) return alternatives.front();
  Node n;
  n.op = Op::Alt;
  n.args = std::move(alternatives);
  return build(std::move(n));
}

Sym Sym::make(Op op, std::vector<Sym> args) {
  Node n;
  n.op = op;
  n.sort = (op == Op::Ite && args.size() == 3) ? args[1].sort() : Sort::Bool;
  n.args = std::move(args);
  return build(std::move(n));
}

Sym Sym::make_match(const Sym& a, const Sym& b, const StringTheory& theory,
                    Marked marked) {
  Node n;
  n.op = Op::Match;
  n.sort = Sort::Bool;
  n.marked = marked;
  n.theory = theory;
  n.args = {a, b};
  return build(std::move(n));
}

Sym Sym::test(const ValueTest& t, Sym argument, Sym pattern) {
  if (!argument.is_const())
    throw std::invalid_argument("Sym::test: the argument must be a constant");
  Node n;
  n.op = Op::Test;
  n.test = &t;
  n.args = {std::move(pattern), std::move(argument)};
  return build(std::move(n));
}

bool operator==(const Sym& a, const Sym& b) {
  if (a.node_ == b.node_) return true;
  if (a.hash() != b.hash() || a.op() != b.op()) return false;
  const auto& x = *a.node_;
  const auto& y = *b.node_;
  switch (x.op) {
    case Op::Const:
      return x.value == y.value;
    case Op::Var:
      return x.var == y.var && x.sort == y.sort;
    case Op::Test:
      return x.test == y.test && x.args == y.args;
    default:
      return x.args == y.args &&
             (x.names == y.names || (x.names && y.names && *x.names == *y.names)) &&
             x.marked == y.marked && x.theory == y.theory;
  }
}

std::string Sym::to_string() const {
  switch (op()) {
    case Op::Const:
      return dump_json(value());
    case Op::Var:
      return "$" + std::to_string(var_id());
    case Op::Absent:
      return "<absent>";
    case Op::Test:
      return "(" + args()[0].to_string() + " and " + value_test()->name() + " " +
             brief_json(test_argument(), 60) + ")";
    case Op::Object: {
      std::string s = "{";
      for (std::size_t i = 0; i < args().size(); ++i) {
        if (i) s += ",";
        s += dump_json(Json(field_names()[i])) + ":" + args()[i].to_string();
      }
      return s + ",...}";
    }
    case Op::Alt: {
      std::string s = "one of (";
      for (std::size_t i = 0; i < args().size(); ++i) {
        if (i) s += " | ";
        s += args()[i].to_string();
      }
      return s + ")";
    }
    case Op::Array: {
      std::string s = "[";
      for (std::size_t i = 0; i < args().size(); ++i) {
        if (i) s += ",";
        s += args()[i].to_string();
      }
      return s + "]";
    }
    case Op::Not:
      return "!(" + args()[0].to_string() + ")";
    case Op::Match:
      return "(" + args()[0].to_string() +
             (marked() == Marked::Excluded ? " unmarked-match " : " match ") +
             args()[1].to_string() + ")";
    case Op::Ite:
      return "(" + args()[0].to_string() + " ? " + args()[1].to_string() + " : " +
             args()[2].to_string() + ")";
    default:
      return "(" + args()[0].to_string() + " " + op_name(op()) + " " +
             args()[1].to_string() + ")";
  }
}

Sym eq(const Sym& a, const Sym& b) {
  if (a.is_const() && b.is_const()) return Sym::lit(a.value() == b.value());
  if (a == b) return Sym::lit(true);
  return Sym::make(Op::Eq, {a, b});
}
Sym neq(const Sym& a, const Sym& b) { return not_(eq(a, b)); }

Sym not_(const Sym& a) {
  if (a.is_const() && a.value().is_boolean()) return Sym::lit(!a.value().get<bool>());
  if (a.op() == Op::Not) return a.args()[0];
  return Sym::make(Op::Not, {a});
}

Sym and_(const Sym& a, const Sym& b) {
  if (a.is_false() || b.is_false()) return Sym::lit(false);
  if (a.is_true()) return b;
  if (b.is_true()) return a;
  return Sym::make(Op::And, {a, b});
}

Sym or_(const Sym& a, const Sym& b) {
  if (a.is_true() || b.is_true()) return Sym::lit(true);
  if (a.is_false()) return b;
  if (b.is_false()) return a;
  return Sym::make(Op::Or, {a, b});
}

namespace {
Sym fold_cmp(const Sym& a, const Sym& b, Op op) {
  if (a.is_const() && b.is_const()) {
    if (!a.value().is_number() || !b.value().is_number()) return Sym::lit(false);
    auto x = a.value().get<double>(), y = b.value().get<double>();
    return Sym::lit(op == Op::Lt ? x < y : x <= y);
  }
  return Sym::make(op, {a, b});
}
}  // namespace

// A constant that is not a string (e.g. null: no value) never matches. The
// match is symmetric: a constant goes first (then the lower variable), so a
// fact and its negation meet as equal terms.
Sym match(const Sym& a, const Sym& b, const StringTheory& theory, Marked marked) {
  const bool ac = a.is_const(), bc = b.is_const();
  if ((ac && !a.value().is_string()) || (bc && !b.value().is_string()))
    return Sym::lit(false);
  if (!ac && (bc || (a.is_var() && b.is_var() && b.var_id() < a.var_id())))
    return match(b, a, theory, marked);
  if (ac) {
    const std::string& x = a.value().get_ref<const std::string&>();
    if (bc)
      return Sym::lit(theory.match(x, b.value().get_ref<const std::string&>(), marked));
    // A constant alone can decide: an empty core matches nothing, and a
    // marked string never matches when marks are excluded.
    if (theory.core(x).empty() || (marked == Marked::Excluded && theory.marked(x)))
      return Sym::lit(false);
  }
  return Sym::make_match(a, b, theory, marked);
}

Sym lt(const Sym& a, const Sym& b) { return fold_cmp(a, b, Op::Lt); }
Sym le(const Sym& a, const Sym& b) { return fold_cmp(a, b, Op::Le); }

Sym ite(const Sym& c, const Sym& a, const Sym& b) {
  if (c.is_true()) return a;
  if (c.is_false()) return b;
  if (a == b) return a;
  return Sym::make(Op::Ite, {c, a, b});
}

namespace detail {
Sym rebuild(const Sym& s, std::vector<Sym> args) {
  switch (s.op()) {
    case Op::Eq:
      return eq(args[0], args[1]);
    case Op::Not:
      return not_(args[0]);
    case Op::And:
      return and_(args[0], args[1]);
    case Op::Or:
      return or_(args[0], args[1]);
    case Op::Match:
      return match(args[0], args[1], s.theory(), s.marked());
    case Op::Lt:
      return lt(args[0], args[1]);
    case Op::Le:
      return le(args[0], args[1]);
    case Op::Ite:
      return ite(args[0], args[1], args[2]);
    case Op::Object:
      return Sym::object(s.shape(), std::move(args));
    case Op::Array:
      return Sym::array(std::move(args));
    case Op::Alt:
      return Sym::alt(std::move(args));
    case Op::Test:
      return Sym::test(*s.value_test(), std::move(args[1]), std::move(args[0]));
    default:
      return s;
  }
}
}  // namespace detail

}  // namespace dualfuzz::oracle
