// The Z3 back end of Solver (solver.h, src/solver_backend.h): the only code
// that includes z3++.h. Built into libdualfuzz_z3.so (DUALFUZZ_LAZY_Z3) or into
// the oracle library itself.
#include <z3++.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "solver_backend.h"

namespace dualfuzz::oracle {
namespace {

struct Impl {
  z3::context ctx;
  z3::solver solver;

  explicit Impl(unsigned timeout_ms) : solver(ctx) {
    // A resource limit instead of a wall-clock timeout: Z3 implements
    // `timeout` with a timer thread per check (≈0.7 ms each here), and an
    // rlimit is deterministic, so a fuzz input replays to the same verdict.
    // Roughly, 1 ms of solving ≈ 10,000 rlimit units.
    z3::params p(ctx);
    p.set("rlimit", timeout_ms * 10'000u);
    solver.set(p);
  }

  // Strings only ever meet equality and a theory's match (theory.h), so a
  // string is encoded as (marked: Bool, core: Int), the core interned:
  // with the marker "~", "~x" = (true, id("x")), and "" has id 0. Every
  // query then stays in EUF + linear integer arithmetic instead of Z3's
  // sequence theory with prefix tests. The encoding is injective for any
  // marker, so one query is exact as long as it reads all its strings in
  // one theory: the theory of its Match nodes, else the solver's own.
  struct Term {
    bool str;
    z3::expr e;  // Bool/Int value, or the core id of a string
    z3::expr w;  // strings: the marked flag (otherwise a copy of e)
  };
  std::unordered_map<std::string, int> ids{{"", 0}};
  std::unordered_map<int, std::string> names{{0, ""}};
  // By id and sort: explanations number their hidden choices separately,
  // so one id may be an Int in one query and a Str in the next (a
  // hypothesis that invented one variable fewer); sharing one Z3 constant
  // would make such a query untranslatable.
  static std::uint64_t key(VarId id, Sort sort) {
    return (static_cast<std::uint64_t>(id) << 8) | static_cast<std::uint64_t>(sort);
  }
  std::unordered_map<std::uint64_t, Term> vars;
  std::vector<z3::expr> side;  // encoding invariants (core ids >= 0)

  // The current query's theory and what its encoding needs besides: the
  // ids of its constants' cores that themselves begin with the marker
  // (no unmarked string has such a core: "~~x" has the core "~x", but "~x"
  // is marked), and its string variables.
  StringTheory theory;
  std::vector<int> marked_cores;
  std::vector<std::pair<z3::expr, z3::expr>> query_strs;  // (core, marked)

  static const Sym* first_match(const Sym& s) {
    if (s.op() == Op::Match) return &s;
    for (const Sym& a : s.args())
      if (const Sym* m = first_match(a)) return m;
    return nullptr;
  }
  void begin(const std::vector<Sym>& formulas, const StringTheory& own) {
    theory = own;
    for (const Sym& f : formulas)
      if (const Sym* m = first_match(f)) {
        theory = m->theory();
        break;
      }
    marked_cores.clear();
    query_strs.clear();
  }

  Term plain(z3::expr e) { return Term{false, e, e}; }
  Term str_const(const std::string& v) {
    const std::string_view core = theory.core(v);
    auto [it, fresh] = ids.emplace(core, static_cast<int>(ids.size()));
    if (fresh) names.emplace(it->second, std::string(core));
    if (theory.marked(core) && std::find(marked_cores.begin(), marked_cores.end(),
                                         it->second) == marked_cores.end())
      marked_cores.push_back(it->second);
    return {true, ctx.int_val(it->second), ctx.bool_val(theory.marked(v))};
  }
  Term str_var(const Term& t) {
    // Without a marker no string is marked.
    Term q{true, t.e, theory.has_marker() ? t.w : ctx.bool_val(false)};
    if (theory.has_marker() &&
        std::find_if(query_strs.begin(), query_strs.end(), [&](const auto& p) {
          return z3::eq(p.first, t.e);
        }) == query_strs.end())
      query_strs.emplace_back(t.e, t.w);
    return q;
  }

  // Untranslatable input (e.g. a Json-sorted variable) yields nullopt.
  std::optional<Term> tr(const Sym& s) {
    switch (s.op()) {
      case Op::Const: {
        const Json& v = s.value();
        if (v.is_boolean()) return plain(ctx.bool_val(v.get<bool>()));
        if (v.is_number_integer()) return plain(ctx.int_val(v.get<std::int64_t>()));
        if (v.is_string()) return str_const(v.get<std::string>());
        return std::nullopt;
      }
      case Op::Var: {
        auto it = vars.find(key(s.var_id(), s.sort()));
        if (it != vars.end()) return it->second.str ? str_var(it->second) : it->second;
        std::string name = "v" + std::to_string(s.var_id()) + "_" +
                           std::to_string(static_cast<int>(s.sort()));
        std::optional<Term> t;
        switch (s.sort()) {
          case Sort::Str: {
            z3::expr o = ctx.int_const(name.c_str());
            side.push_back(o >= 0);
            t = Term{true, o, ctx.bool_const((name + "w").c_str())};
            break;
          }
          case Sort::Int:
            t = plain(ctx.int_const(name.c_str()));
            break;
          case Sort::Bool:
            t = plain(ctx.bool_const(name.c_str()));
            break;
          case Sort::Json:
            return std::nullopt;
        }
        vars.emplace(key(s.var_id(), s.sort()), *t);
        return t->str ? str_var(*t) : *t;
      }
      case Op::Eq: {
        auto a = tr(s.args()[0]), b = tr(s.args()[1]);
        if (!a || !b || a->str != b->str || !z3::eq(a->e.get_sort(), b->e.get_sort()))
          return std::nullopt;
        if (a->str) return plain(a->w == b->w && a->e == b->e);
        return plain(a->e == b->e);
      }
      case Op::Not: {
        auto a = tr(s.args()[0]);
        if (!a || a->str || !a->e.is_bool()) return std::nullopt;
        return plain(!a->e);
      }
      case Op::And:
      case Op::Or: {
        auto a = tr(s.args()[0]), b = tr(s.args()[1]);
        if (!a || !b || a->str || b->str || !a->e.is_bool() || !b->e.is_bool())
          return std::nullopt;
        return plain(s.op() == Op::And ? (a->e && b->e) : (a->e || b->e));
      }
      case Op::Lt:
      case Op::Le: {
        auto a = tr(s.args()[0]), b = tr(s.args()[1]);
        if (!a || !b || a->str || b->str || !a->e.is_int() || !b->e.is_int())
          return std::nullopt;
        return plain(s.op() == Op::Lt ? (a->e < b->e) : (a->e <= b->e));
      }
      case Op::Match: {
        // (Another theory's match would need another encoding.)
        if (s.theory() != theory) return std::nullopt;
        auto a = tr(s.args()[0]), b = tr(s.args()[1]);
        if (!a || !b || !a->str || !b->str) return std::nullopt;
        z3::expr same = a->e == b->e && a->e != 0;  // an empty core matches nothing
        if (s.marked() == Marked::Allowed) return plain(same);
        return plain(!a->w && !b->w && same);
      }
      case Op::Ite: {
        auto c = tr(s.args()[0]), a = tr(s.args()[1]), b = tr(s.args()[2]);
        if (!c || !a || !b || c->str || !c->e.is_bool() || a->str != b->str ||
            !z3::eq(a->e.get_sort(), b->e.get_sort()))
          return std::nullopt;
        if (a->str)
          return Term{true, z3::ite(c->e, a->e, b->e), z3::ite(c->e, a->w, b->w)};
        return plain(z3::ite(c->e, a->e, b->e));
      }
      default:
        return std::nullopt;
    }
  }

  // Adds `f` to the current scope; false when it cannot be translated.
  bool add(const Sym& f) {
    auto t = tr(f);
    if (!t || t->str || !t->e.is_bool()) return false;
    solver.add(t->e);
    return true;
  }
  void add_side_conditions() {
    for (const z3::expr& e : side) solver.add(e);
    for (const auto& [core, marked] : query_strs)
      for (int k : marked_cores) solver.add(marked || core != k);
  }
};

// One query's push/pop scope: popped however the query ends (a z3::exception
// or std::bad_alloc while translating or solving), so the next query never
// sees this one's assertions.
class Scope {
 public:
  explicit Scope(z3::solver& s) : s_(s) { s_.push(); }
  ~Scope() {
    try {
      s_.pop();
    } catch (const z3::exception&) {  // (a destructor must not throw)
    }
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  z3::solver& s_;
};

class Z3Backend final : public detail::SolverBackend {
 public:
  explicit Z3Backend(unsigned timeout_ms) : m_(timeout_ms) {}
  Sat check(const std::vector<Sym>& formulas, const StringTheory& strings) override;
  std::vector<std::pair<VarId, Json>> model(const std::vector<Sym>& formulas,
                                            const StringTheory& strings) override;

 private:
  Impl m_;
};

Sat Z3Backend::check(const std::vector<Sym>& formulas, const StringTheory& strings) {
  Impl& m = m_;
  bool partial = false;
  z3::check_result r = z3::unknown;
  try {
    Scope scope(m.solver);
    m.begin(formulas, strings);
    // An untranslatable conjunct is dropped: the rest can still prove
    // unsat, but sat then only means "maybe".
    for (const Sym& f : formulas) partial = !m.add(f) || partial;
    m.add_side_conditions();
    r = m.solver.check();
  } catch (const z3::exception&) {
    r = z3::unknown;
  }
  if (r == z3::unsat) return Sat::No;
  if (r == z3::sat && !partial) return Sat::Yes;
  return Sat::Unknown;
}

std::vector<std::pair<VarId, Json>> Z3Backend::model(const std::vector<Sym>& formulas,
                                                     const StringTheory& strings) {
  Impl& m = m_;
  std::vector<std::pair<VarId, Json>> out;
  try {
    Scope scope(m.solver);
    m.begin(formulas, strings);
    for (const Sym& f : formulas) m.add(f);
    m.add_side_conditions();
    if (m.solver.check() == z3::sat) {
      z3::model mod = m.solver.get_model();
      // The variables of these formulas only (not every one seen before),
      // in the order they first occur, and the strings they mention: the
      // answer depends on the query, not on what this context saw before.
      std::vector<std::pair<VarId, Sort>> mentioned;
      std::set<std::int64_t> constants{0};  // core ids; "" always counts
      auto collect = [&](auto& self, const Sym& x) -> void {
        if (x.is_const()) {
          if (x.value().is_string()) {
            const std::string v(m.theory.core(x.value().get_ref<const std::string&>()));
            if (auto it = m.ids.find(v); it != m.ids.end()) constants.insert(it->second);
          }
          return;
        }
        if (x.ground()) return;
        if (x.is_var()) {
          if (std::find(mentioned.begin(), mentioned.end(),
                        std::pair{x.var_id(), x.sort()}) == mentioned.end())
            mentioned.emplace_back(x.var_id(), x.sort());
          return;
        }
        for (const Sym& a : x.args()) self(self, a);
      };
      for (const Sym& f : formulas) collect(collect, f);
      std::map<std::int64_t, std::string> unseen;  // core id -> name
      std::size_t next_rank = 1;  // (past names skipped for a mentioned constant)
      for (const auto& [id, sort] : mentioned) {
        auto found = m.vars.find(Impl::key(id, sort));
        if (found == m.vars.end()) continue;
        const Impl::Term& t = found->second;
        z3::expr v = mod.eval(t.e, true);
        if (t.str) {
          // A core id no formula of the query mentions is a string nobody
          // has seen yet: any such string will do, so it gets a name from
          // its rank among them ("z1", "z2", ..., quoted unless the marker
          // begins with a quote; Z3's choice of id and names interned by
          // earlier queries would make the answer depend on this context's
          // history).
          std::int64_t o = v.get_numeral_int64();
          std::string body;
          if (constants.count(o)) {
            body = m.names.at(static_cast<int>(o));
          } else {
            auto [it, fresh] = unseen.emplace(o, std::string());
            if (fresh) {
              std::string name;
              for (;; ++next_rank) {
                name = "\"z" + std::to_string(next_rank) + "\"";
                if (m.theory.marked(name)) name = name.substr(1, name.size() - 2);
                auto id = m.ids.find(name);
                if (id == m.ids.end() || !constants.count(id->second)) break;
              }
              ++next_rank;
              it->second = name;
            }
            body = it->second;
          }
          const bool marked = m.theory.has_marker() && mod.eval(t.w, true).is_true();
          out.emplace_back(id, marked ? m.theory.mark(body) : body);
        } else if (v.is_bool()) {
          out.emplace_back(id, v.is_true());
        } else if (v.is_int()) {
          out.emplace_back(id, v.get_numeral_int64());
        }
      }
    }
  } catch (const z3::exception&) {  // the values read so far stand
  }
  return out;
}

}  // namespace
}  // namespace dualfuzz::oracle

extern "C" dualfuzz::oracle::detail::SolverBackend* dualfuzz_z3_backend_new(
    std::uint64_t abi, unsigned timeout_ms, char* error, std::size_t error_size) noexcept {
  using dualfuzz::oracle::detail::kSolverBackendAbi;
  const auto fail = [&](const char* what) {
    if (error_size > 0) std::snprintf(error, error_size, "%s", what);
    return nullptr;
  };
  if (abi != kSolverBackendAbi) {
    char what[160];
    std::snprintf(what, sizeof what,
                  "the module is of another build (ABI %016llx, the program's %016llx): "
                  "use the libdualfuzz_z3.so built with the program",
                  static_cast<unsigned long long>(kSolverBackendAbi),
                  static_cast<unsigned long long>(abi));
    return fail(what);
  }
  try {
    return new dualfuzz::oracle::Z3Backend(timeout_ms);
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unknown exception while creating a Z3 context");
  }
}
