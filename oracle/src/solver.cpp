#include "dualfuzz/oracle/solver.h"

#include <z3++.h>

#include <optional>
#include <string>
#include <unordered_map>

namespace dualfuzz::oracle {

struct Solver::Impl {
  z3::context ctx;
  z3::solver solver;
  std::unordered_map<VarId, z3::expr> vars;
  explicit Impl(unsigned timeout_ms) : solver(ctx) {
    z3::params p(ctx);
    p.set("timeout", timeout_ms);
    solver.set(p);
  }

  // Untranslatable input (e.g. a Json-sorted variable) yields nullopt.
  std::optional<z3::expr> tr(const Sym& s, Sort hint) {
    switch (s.op()) {
      case Op::Const: {
        const Json& v = s.value();
        if (v.is_boolean()) return ctx.bool_val(v.get<bool>());
        if (v.is_number_integer()) return ctx.int_val(v.get<std::int64_t>());
        if (v.is_string()) return ctx.string_val(v.get<std::string>());
        (void)hint;
        return std::nullopt;
      }
      case Op::Var: {
        auto it = vars.find(s.var_id());
        if (it != vars.end()) return it->second;
        std::string name = "v" + std::to_string(s.var_id());
        std::optional<z3::expr> e;
        switch (s.sort()) {
          case Sort::Str:
            e = ctx.string_const(name.c_str());
            break;
          case Sort::Int:
            e = ctx.int_const(name.c_str());
            break;
          case Sort::Bool:
            e = ctx.bool_const(name.c_str());
            break;
          case Sort::Json:
            return std::nullopt;
        }
        vars.emplace(s.var_id(), *e);
        return e;
      }
      case Op::Eq: {
        auto a = tr(s.args()[0], Sort::Json), b = tr(s.args()[1], Sort::Json);
        if (!a || !b || !z3::eq(a->get_sort(), b->get_sort())) return std::nullopt;
        return *a == *b;
      }
      case Op::Not: {
        auto a = tr(s.args()[0], Sort::Bool);
        if (!a || !a->is_bool()) return std::nullopt;
        return !*a;
      }
      case Op::And:
      case Op::Or: {
        auto a = tr(s.args()[0], Sort::Bool), b = tr(s.args()[1], Sort::Bool);
        if (!a || !b || !a->is_bool() || !b->is_bool()) return std::nullopt;
        return s.op() == Op::And ? (*a && *b) : (*a || *b);
      }
      case Op::Lt:
      case Op::Le: {
        auto a = tr(s.args()[0], Sort::Int), b = tr(s.args()[1], Sort::Int);
        if (!a || !b || !a->is_int() || !b->is_int()) return std::nullopt;
        return s.op() == Op::Lt ? (*a < *b) : (*a <= *b);
      }
      case Op::StrongMatch:
      case Op::WeakMatch: {
        auto a = tr(s.args()[0], Sort::Str), b = tr(s.args()[1], Sort::Str);
        if (!a || !b || !a->is_seq() || !b->is_seq()) return std::nullopt;
        z3::expr w = ctx.string_val("W/");
        if (s.op() == Op::StrongMatch)
          return !z3::prefixof(w, *a) && !z3::prefixof(w, *b) && *a == *b &&
                 a->length() > 0;
        auto opaque = [&](const z3::expr& x) {
          return z3::ite(z3::prefixof(w, x), x.extract(ctx.int_val(2), x.length() - 2),
                         x);
        };
        return opaque(*a) == opaque(*b) && opaque(*a).length() > 0;
      }
      case Op::Ite: {
        auto c = tr(s.args()[0], Sort::Bool), a = tr(s.args()[1], hint),
             b = tr(s.args()[2], hint);
        if (!c || !a || !b || !c->is_bool() || !z3::eq(a->get_sort(), b->get_sort()))
          return std::nullopt;
        return z3::ite(*c, *a, *b);
      }
      default:
        return std::nullopt;
    }
  }
};

Solver::Solver(unsigned timeout_ms) : impl_(std::make_unique<Impl>(timeout_ms)) {}
Solver::~Solver() = default;

Sat Solver::check(const std::vector<Sym>& formulas) {
  ++stats_.queries;
  Impl& m = *impl_;
  bool partial = false;
  m.solver.push();
  for (const Sym& f : formulas) {
    auto e = m.tr(f, Sort::Bool);
    // An untranslatable conjunct is dropped: the rest can still prove unsat,
    // but sat then only means "maybe".
    if (!e || !e->is_bool()) {
      partial = true;
      continue;
    }
    m.solver.add(*e);
  }
  z3::check_result r = z3::unknown;
  try {
    r = m.solver.check();
  } catch (const z3::exception&) {
    r = z3::unknown;
  }
  m.solver.pop();
  if (r == z3::unsat) {
    ++stats_.unsat;
    return Sat::No;
  }
  if (r == z3::sat && !partial) {
    ++stats_.sat;
    return Sat::Yes;
  }
  ++stats_.unknown;
  return Sat::Unknown;
}

std::vector<std::pair<VarId, Json>> Solver::model(const std::vector<Sym>& formulas) {
  Impl& m = *impl_;
  std::vector<std::pair<VarId, Json>> out;
  m.solver.push();
  for (const Sym& f : formulas)
    if (auto e = m.tr(f, Sort::Bool); e && e->is_bool()) m.solver.add(*e);
  try {
    if (m.solver.check() == z3::sat) {
      z3::model mod = m.solver.get_model();
      for (auto& [id, e] : m.vars) {
        z3::expr v = mod.eval(e, true);
        if (v.is_bool())
          out.emplace_back(id, v.is_true());
        else if (v.is_int())
          out.emplace_back(id, v.get_numeral_int64());
        else if (v.is_string_value())
          out.emplace_back(id, v.get_string());
      }
    }
  } catch (const z3::exception&) {
  }
  m.solver.pop();
  return out;
}

}  // namespace dualfuzz::oracle
