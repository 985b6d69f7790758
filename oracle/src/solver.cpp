#include "dualfuzz/oracle/solver.h"

#include <z3++.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace dualfuzz::oracle {

struct Solver::Impl {
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

  // Strings only ever meet equality and the RFC 9110 entity-tag
  // comparisons, so a string is encoded as (weak: Bool, opaque: Int), the
  // opaque part interned: W/"x" = (true, id("\"x\"")), and "" has id 0.
  // Every query then stays in EUF + linear integer arithmetic instead of
  // Z3's sequence theory with prefix tests.
  struct Term {
    bool str;
    z3::expr e;  // Bool/Int value, or the opaque id of a string
    z3::expr w;  // strings: the weak flag (otherwise a copy of e)
  };
  std::unordered_map<std::string, int> ids{{"", 0}};
  std::unordered_map<int, std::string> names{{0, ""}};
  // By id and sort: explanations number their hidden choices separately,
  // so one id may be a date in one query and a tag in the next (a PUT that
  // omits its ETag invents one variable fewer); sharing one Z3 constant
  // would make such a query untranslatable.
  static std::uint64_t key(VarId id, Sort sort) {
    return (static_cast<std::uint64_t>(id) << 8) | static_cast<std::uint64_t>(sort);
  }
  std::unordered_map<std::uint64_t, Term> vars;
  std::vector<z3::expr> side;  // encoding invariants (opaque ids >= 0)

  Term plain(z3::expr e) { return Term{false, e, e}; }
  Term str_const(const std::string& v) {
    bool weak = v.rfind("W/", 0) == 0;
    std::string opaque = etag_opaque(v);
    auto [it, fresh] = ids.emplace(opaque, static_cast<int>(ids.size()));
    if (fresh) names.emplace(it->second, opaque);
    return {true, ctx.int_val(it->second), ctx.bool_val(weak)};
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
        if (it != vars.end()) return it->second;
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
        return t;
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
      case Op::StrongMatch:
      case Op::WeakMatch: {
        auto a = tr(s.args()[0]), b = tr(s.args()[1]);
        if (!a || !b || !a->str || !b->str) return std::nullopt;
        z3::expr same = a->e == b->e && a->e != 0;  // an empty tag matches nothing
        if (s.op() == Op::WeakMatch) return plain(same);
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
  }
};

namespace {
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
}  // namespace

// The Z3 context is created on the first query: it costs ~10 ms, and most
// checks (models over constants) never reach Z3.
Solver::Solver(unsigned timeout_ms) : timeout_ms_(timeout_ms) {}
Solver::~Solver() = default;

Solver::Impl& Solver::impl() {
  if (!impl_) impl_ = std::make_unique<Impl>(timeout_ms_);
  return *impl_;
}

Sat Solver::check(const std::vector<Sym>& formulas) {
  ++stats_.queries;
  Impl& m = impl();
  bool partial = false;
  z3::check_result r = z3::unknown;
  try {
    Scope scope(m.solver);
    // An untranslatable conjunct is dropped: the rest can still prove
    // unsat, but sat then only means "maybe".
    for (const Sym& f : formulas) partial = !m.add(f) || partial;
    m.add_side_conditions();
    r = m.solver.check();
  } catch (const z3::exception&) {
    r = z3::unknown;
  }
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
  Impl& m = impl();
  std::vector<std::pair<VarId, Json>> out;
  try {
    Scope scope(m.solver);
    for (const Sym& f : formulas) m.add(f);
    m.add_side_conditions();
    if (m.solver.check() == z3::sat) {
      z3::model mod = m.solver.get_model();
      // The variables of these formulas only (not every one seen before),
      // in the order they first occur, and the strings they mention: the
      // answer depends on the query, not on what this context saw before.
      std::vector<std::pair<VarId, Sort>> mentioned;
      std::set<std::int64_t> constants{0};  // opaque ids; "" always counts
      auto collect = [&](auto& self, const Sym& x) -> void {
        if (x.is_const()) {
          if (x.value().is_string()) {
            const std::string v = etag_opaque(x.value().get<std::string>());
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
      std::map<std::int64_t, std::string> unseen;  // opaque id -> name
      for (const auto& [id, sort] : mentioned) {
        auto found = m.vars.find(Impl::key(id, sort));
        if (found == m.vars.end()) continue;
        const Impl::Term& t = found->second;
        z3::expr v = mod.eval(t.e, true);
        if (t.str) {
          // An opaque id no formula of the query mentions is a tag nobody has
          // seen yet: any such tag will do, so it gets a name from its rank
          // among them ("z1", "z2", ...; Z3's choice of id and names
          // interned by earlier queries would make the answer depend on
          // this context's history).
          std::int64_t o = v.get_numeral_int64();
          std::string body;
          if (constants.count(o)) {
            body = m.names.at(static_cast<int>(o));
          } else {
            auto [it, fresh] = unseen.emplace(o, std::string());
            if (fresh) {
              std::string name;
              for (std::size_t k = unseen.size();; ++k) {
                name = "\"z" + std::to_string(k) + "\"";
                auto id = m.ids.find(name);
                if (id == m.ids.end() || !constants.count(id->second)) break;
              }
              it->second = name;
            }
            body = it->second;
          }
          bool weak = mod.eval(t.w, true).is_true();
          out.emplace_back(id, (weak ? "W/" : "") + body);
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

}  // namespace dualfuzz::oracle
