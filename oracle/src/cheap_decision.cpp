#include "dualfuzz/oracle/detail/cheap_decision.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace dualfuzz::oracle::detail {
namespace {

// An Int term as (node, offset): node 0 is the constant zero, node i > 0 an
// Int variable.
struct Term {
  std::size_t node;
  std::int64_t offset;
};
// u - v <= w, stored as the edge v -> u of weight w (dist[u] <= dist[v] + w).
struct Edge {
  std::size_t from, to;
  std::int64_t w;
};
// Beyond this, offsets could overflow in the sums below: such a fact is
// simply not used for refutation (the witness check still sees it).
constexpr std::int64_t kMaxMagnitude = std::int64_t{1} << 50;

class Decider {
 public:
  explicit Decider(const std::vector<Sym>& formulas) {
    for (const Sym& f : formulas) split(f);
    for (const Sym& f : facts_) collect_vars(f);
  }

  Sat run() {
    for (const Sym& f : facts_)
      if (f.is_false()) return Sat::No;
    if (contradictory_pair()) return Sat::No;
    for (const Sym& f : facts_)
      if (!difference_fact(f)) return Sat::No;
    std::vector<std::int64_t> dist(int_nodes_.size() + 1, 0);
    if (!shortest_paths(dist)) return Sat::No;
    // Exact per group first (in one theory only: its values stand for every
    // string of that theory); the joint witness search only for groups that
    // mix integers with strings or booleans.
    if (!mixed_theories_)
      if (Sat g = enumerate_groups(dist); g != Sat::Unknown) return g;
    return witness(dist) ? Sat::Yes : Sat::Unknown;
  }

 private:
  void split(const Sym& f) {
    if (f.is_true()) return;
    if (f.op() == Op::And) {
      split(f.args()[0]);
      split(f.args()[1]);
      return;
    }
    facts_.push_back(f);
  }

  void collect_vars(const Sym& s) {
    if (s.ground()) return;
    if (s.is_var()) {
      switch (s.sort()) {
        case Sort::Int:
          if (!int_nodes_.count(s.var_id()))
            int_nodes_.emplace(s.var_id(), int_nodes_.size() + 1);
          break;
        case Sort::Str:
          str_vars_.emplace(s.var_id(), std::vector<std::string>{});
          break;
        case Sort::Bool:
          bool_vars_.insert(s.var_id());
          break;
        case Sort::Json:
          opaque_ = true;
          break;
      }
      return;
    }
    if (s.op() == Op::Match) {
      if (!has_theory_) {
        theory_ = s.theory();
        has_theory_ = true;
      } else if (theory_ != s.theory()) {
        mixed_theories_ = true;
      }
    }
    // Constants a string variable is compared with are its likeliest values.
    if ((s.op() == Op::Match || s.op() == Op::Eq) && s.args().size() == 2) {
      for (int i = 0; i < 2; ++i) {
        const Sym& v = s.args()[i];
        const Sym& c = s.args()[1 - i];
        if (v.is_var() && v.sort() == Sort::Str && c.is_const() &&
            c.value().is_string()) {
          auto& list = str_vars_[v.var_id()];
          const std::string& x = c.value().get_ref<const std::string&>();
          if (std::find(list.begin(), list.end(), x) == list.end()) list.push_back(x);
        }
      }
    }
    for (const Sym& a : s.args()) collect_vars(a);
  }

  // A fresh core's name, quoted; bare when the marker begins with a quote
  // (an unmarked string's core never begins with the marker).
  std::string fresh(const char* prefix, std::size_t k) const {
    std::string quoted = "\"" + (prefix + std::to_string(k)) + "\"";
    return theory_.marked(quoted) ? quoted.substr(1, quoted.size() - 2) : quoted;
  }

  // A variable's candidate values, from the constants it is compared with:
  // each one's core, unmarked and marked.
  std::vector<std::string> candidates(const std::vector<std::string>& constants) const {
    std::vector<std::string> list;
    for (const std::string& c : constants) {
      const std::string core(theory_.core(c));
      for (const std::string& x : {core, theory_.mark(core)})
        if (list.size() < 6 && std::find(list.begin(), list.end(), x) == list.end())
          list.push_back(x);
    }
    return list;
  }

  // A fact and its negation (also with the arguments of a symmetric
  // comparison swapped).
  bool contradictory_pair() const {
    for (std::size_t i = 0; i < facts_.size(); ++i) {
      const Sym& f = facts_[i];
      if (f.op() != Op::Not) continue;
      const Sym& g = f.args()[0];
      for (std::size_t j = 0; j < facts_.size(); ++j) {
        const Sym& h = facts_[j];
        if (h == g) return true;
        if (h.op() == g.op() && h.args().size() == 2 &&
            (g.op() == Op::Eq || (g.op() == Op::Match && h.marked() == g.marked() &&
                                  h.theory() == g.theory())) &&
            h.args()[0] == g.args()[1] && h.args()[1] == g.args()[0])
          return true;
      }
    }
    return false;
  }

  std::optional<Term> term(const Sym& s) const {
    if (s.is_var() && s.sort() == Sort::Int) return Term{int_nodes_.at(s.var_id()), 0};
    if (s.is_const() && s.value().is_number_integer()) {
      std::int64_t k = s.value().get<std::int64_t>();
      if (k > kMaxMagnitude || k < -kMaxMagnitude) return std::nullopt;
      return Term{0, k};
    }
    return std::nullopt;
  }

  // a - b <= c; false if that alone is impossible.
  bool add_le(const Term& a, const Term& b, std::int64_t c) {
    const std::int64_t w = c - a.offset + b.offset;
    if (a.node == b.node) return w >= 0;
    edges_.push_back({b.node, a.node, w});
    return true;
  }

  // Reads an order fact; false if it is unsatisfiable on its own.
  bool difference_fact(const Sym& f) {
    bool negated = f.op() == Op::Not;
    const Sym& g = negated ? f.args()[0] : f;
    if ((g.op() != Op::Le && g.op() != Op::Lt && g.op() != Op::Eq) ||
        g.args().size() != 2)
      return true;
    auto a = term(g.args()[0]);
    auto b = term(g.args()[1]);
    if (!a || !b) return true;
    switch (g.op()) {
      case Op::Le:  // a <= b, or else b < a
        return negated ? add_le(*b, *a, -1) : add_le(*a, *b, 0);
      case Op::Lt:  // a < b, or else b <= a
        return negated ? add_le(*b, *a, 0) : add_le(*a, *b, -1);
      default:  // Eq: a disequality is left to the witness
        return negated || (add_le(*a, *b, 0) && add_le(*b, *a, 0));
    }
  }

  // An Int variable's value in the difference constraints' solution.
  Sym int_value(const Sym& v, const std::vector<std::int64_t>& dist) const {
    return Sym::lit(dist[int_nodes_.at(v.var_id())] - dist[0]);
  }

  // Bellman-Ford from a virtual source at distance 0 to every node; false
  // on a negative cycle (the difference constraints contradict each other).
  bool shortest_paths(std::vector<std::int64_t>& dist) const {
    const std::size_t n = dist.size();
    for (std::size_t round = 0; round < n; ++round) {
      bool changed = false;
      for (const Edge& e : edges_)
        if (dist[e.from] + e.w < dist[e.to]) {
          dist[e.to] = dist[e.from] + e.w;
          changed = true;
        }
      if (!changed) return true;
    }
    return false;
  }

  bool witness(const std::vector<std::int64_t>& dist) {
    if (opaque_) return false;
    // Per string variable: a fresh string of its own, then its candidates.
    std::vector<std::pair<VarId, std::vector<std::string>>> strs;
    for (auto& [v, constants] : str_vars_) {
      std::vector<std::string> all = {fresh("#w", v)};
      const std::vector<std::string> cands = candidates(constants);
      all.insert(all.end(), cands.begin(), cands.end());
      strs.emplace_back(v, std::move(all));
    }
    std::vector<std::size_t> pick(strs.size(), 0);
    for (int tries = 0; tries < 64; ++tries) {
      std::map<VarId, const std::string*> chosen;
      for (std::size_t i = 0; i < strs.size(); ++i)
        chosen[strs[i].first] = &strs[i].second[pick[i]];
      for (bool b : {true, false}) {
        bool ok = true;
        for (const Sym& f : facts_) {
          Sym r = substitute(f, [&](const Sym& v) -> Sym {
            switch (v.sort()) {
              case Sort::Int:
                return int_value(v, dist);
              case Sort::Str:
                return Sym::lit(*chosen.at(v.var_id()));
              case Sort::Bool:
                return Sym::lit(b);
              case Sort::Json:
                return v;
            }
            return v;
          });
          if (!r.is_true()) {
            ok = false;
            break;
          }
        }
        if (ok) return true;
        if (bool_vars_.empty()) break;
      }
      // Next combination (odometer).
      std::size_t i = 0;
      while (i < strs.size() && ++pick[i] == strs[i].second.size()) pick[i++] = 0;
      if (i == strs.size()) return false;
    }
    return false;
  }

  // Strings and booleans are decided exhaustively, one group of facts
  // sharing variables at a time (groups with no common variable are
  // independent). A string's value matters to eq and match only through
  // whether it is marked and whether its core is empty, equals a
  // constant's, or equals another variable's. So the strings "o" and
  // marker + "o" for every core o of the group's constants (and ""), plus
  // one fresh core per variable in both forms, stand for every value: if no
  // such assignment satisfies the group, nothing does. Groups with an
  // integer (left to the difference constraints) or a Json variable, or
  // that need more than kMaxEvaluations fact evaluations (a Z3 query costs
  // about as much as a few hundred), are not decided here.
  static constexpr std::size_t kMaxEvaluations = 512;
  struct VarKey {
    VarId id;
    Sort sort;
    friend bool operator<(const VarKey& a, const VarKey& b) {
      return a.id != b.id ? a.id < b.id : a.sort < b.sort;
    }
  };
  static void vars_of(const Sym& s, std::set<VarKey>& out) {
    if (s.ground()) return;
    if (s.is_var()) {
      out.insert({s.var_id(), s.sort()});
      return;
    }
    for (const Sym& a : s.args()) vars_of(a, out);
  }
  void string_constants(const Sym& s, std::set<std::string>& out) const {
    if (s.is_const()) {
      if (s.value().is_string())
        out.emplace(theory_.core(s.value().get_ref<const std::string&>()));
      return;
    }
    for (const Sym& a : s.args()) string_constants(a, out);
  }

  // No if some group is unsatisfiable; Yes if every group was enumerated
  // and is satisfiable; else Unknown.
  Sat enumerate_groups(const std::vector<std::int64_t>& dist) const {
    // Group the facts: union-find over their variables.
    std::vector<std::set<VarKey>> fact_vars(facts_.size());
    std::map<VarKey, std::size_t> parent_of;
    std::vector<std::size_t> parent;
    auto find = [&](std::size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (std::size_t i = 0; i < facts_.size(); ++i) {
      vars_of(facts_[i], fact_vars[i]);
      std::optional<std::size_t> first;
      for (const VarKey& k : fact_vars[i]) {
        auto [it, fresh] = parent_of.emplace(k, parent.size());
        if (fresh) parent.push_back(parent.size());
        if (!first)
          first = find(it->second);
        else
          parent[find(it->second)] = *first;
      }
    }
    std::map<std::size_t, std::vector<std::size_t>> groups;  // root -> facts
    bool all_decided = true;
    for (std::size_t i = 0; i < facts_.size(); ++i) {
      if (!fact_vars[i].empty())
        groups[find(parent_of.at(*fact_vars[i].begin()))].push_back(i);
      else if (!facts_[i].is_true())
        all_decided = false;
    }
    for (const auto& [root, members] : groups) {
      Sat g = enumerate_group(members, fact_vars, dist);
      if (g == Sat::No) return Sat::No;
      all_decided = all_decided && g == Sat::Yes;
    }
    return all_decided ? Sat::Yes : Sat::Unknown;
  }

  // Whether every Int variable in `s` occurs only compared with an integer
  // constant (=, <, <=, either side); collects those constants.
  static bool int_atoms(const Sym& s, std::set<std::int64_t>& constants) {
    if (s.ground()) return true;
    if (s.is_var()) return s.sort() != Sort::Int;
    if ((s.op() == Op::Eq || s.op() == Op::Le || s.op() == Op::Lt) &&
        s.args().size() == 2)
      for (int i = 0; i < 2; ++i) {
        const Sym& v = s.args()[i];
        const Sym& c = s.args()[1 - i];
        if (!(v.is_var() && v.sort() == Sort::Int)) continue;
        if (!c.is_const() || !c.value().is_number_integer()) return false;
        const std::int64_t k = c.value().get<std::int64_t>();
        if (k > kMaxMagnitude || k < -kMaxMagnitude) return false;
        constants.insert(k);
        return true;
      }
    for (const Sym& a : s.args())
      if (!int_atoms(a, constants)) return false;
    return true;
  }

  Sat enumerate_group(const std::vector<std::size_t>& members,
                      const std::vector<std::set<VarKey>>& fact_vars,
                      const std::vector<std::int64_t>& dist) const {
    std::set<VarKey> vars;
    std::set<std::string> cores{""};
    for (std::size_t i : members) {
      vars.insert(fact_vars[i].begin(), fact_vars[i].end());
      string_constants(facts_[i], cores);
    }
    std::size_t strs = 0, ints = 0;
    for (const VarKey& k : vars) {
      if (k.sort == Sort::Json) return Sat::Unknown;
      strs += k.sort == Sort::Str;
      ints += k.sort == Sort::Int;
    }
    // Only integers: satisfiable if the difference constraints' solution
    // satisfies every fact (it need not: a disequality, a disjunction).
    if (ints == vars.size()) {
      bool all = true;
      for (std::size_t i : members) {
        Sym r = substitute(facts_[i],
                           [&](const Sym& v) -> Sym { return int_value(v, dist); });
        all = all && r.is_true();
      }
      if (all) return Sat::Yes;
    }
    // Integers compared with constants only (a date with the dates a
    // response showed): c - 1, c and c + 1 for each constant c stand for
    // every value, as every such comparison reads the same on all the
    // integers strictly between two consecutive constants. A disjunction of
    // validator bindings (an ETag with a Last-Modified) went to Z3 here,
    // and with a 200-KB content beside it each query cost 6 ms.
    std::set<std::int64_t> int_constants;
    if (ints > 0)
      for (std::size_t i : members)
        if (!int_atoms(facts_[i], int_constants)) return Sat::Unknown;
    std::vector<Sym> int_domain;
    for (std::int64_t c : int_constants)
      for (std::int64_t x : {c - 1, c, c + 1})
        if (int_domain.empty() || int_domain.back().value().get<std::int64_t>() < x)
          int_domain.push_back(Sym::lit(x));
    if (int_domain.empty()) int_domain.push_back(Sym::lit(0));
    const StringTheory& th = theory_;
    std::vector<Sym> strings;
    for (const std::string& o : cores) {
      strings.push_back(Sym::lit(o));
      if (th.has_marker()) strings.push_back(Sym::lit(th.mark(o)));
    }
    for (std::size_t f = 0; f < strs; ++f) {
      std::string o = fresh("#f", f);
      if (cores.count(o)) return Sat::Unknown;  // not with real cores; stay safe
      strings.push_back(Sym::lit(o));
      if (th.has_marker()) strings.push_back(Sym::lit(th.mark(o)));
    }
    const std::vector<Sym> bools{Sym::lit(true), Sym::lit(false)};
    std::vector<VarKey> order(vars.begin(), vars.end());
    // Depth-first over the variables. A fact is evaluated once all of its
    // variables have values (true or false), and before that with those
    // that have one: a disjunction whose every branch names another value
    // of the variable just assigned folds to false, and the search backs
    // up without enumerating the variables after it.
    // (Only a disjunction can fold to false before its last variable has a
    // value; the other facts are evaluated once, complete.) touched[j]: the
    // facts evaluated once order[j] has a value; last[i]: fact i's last
    // variable in the order, where it is complete.
    std::vector<std::vector<std::size_t>> touched(order.size());
    std::map<std::size_t, std::size_t> last;
    for (std::size_t i : members) {
      for (std::size_t j = 0; j < order.size(); ++j)
        if (fact_vars[i].count(order[j])) {
          if (facts_[i].op() == Op::Or) touched[j].push_back(i);
          last[i] = j;
        }
      if (facts_[i].op() != Op::Or) touched[last[i]].push_back(i);
    }
    std::map<VarKey, const Sym*> value;
    bool unfolded = false;
    std::size_t evaluations = 0;
    std::function<bool(std::size_t)> satisfiable = [&](std::size_t j) -> bool {
      if (j == order.size()) return true;
      const std::vector<Sym>& domain = order[j].sort == Sort::Str   ? strings
                                       : order[j].sort == Sort::Int ? int_domain
                                                                    : bools;
      for (const Sym& x : domain) {
        value[order[j]] = &x;
        bool ok = true;
        for (std::size_t i : touched[j]) {
          if (++evaluations > kMaxEvaluations) {
            unfolded = true;  // out of budget: undecided
            return true;      // stop the search
          }
          const bool complete = last.at(i) == j;
          Sym r = substitute(facts_[i], [&](const Sym& v) -> Sym {
            auto it = value.find({v.var_id(), v.sort()});
            return it == value.end() ? v : *it->second;
          });
          if (r.is_false()) {
            ok = false;
            break;
          }
          if (complete && !r.is_true()) {
            // Not folded to a constant: this group is beyond the enumeration.
            unfolded = true;
            ok = false;
            break;
          }
        }
        if (ok && satisfiable(j + 1)) return true;
      }
      value.erase(order[j]);
      return false;
    };
    const bool found = satisfiable(0);
    if (unfolded) return Sat::Unknown;
    return found ? Sat::Yes : Sat::No;
  }

  std::vector<Sym> facts_;
  std::map<VarId, std::size_t> int_nodes_;
  std::map<VarId, std::vector<std::string>> str_vars_;  // -> constants met
  // The facts' theory: that of their Match nodes (none: no marker).
  StringTheory theory_;
  bool has_theory_ = false;
  bool mixed_theories_ = false;
  std::set<VarId> bool_vars_;
  bool opaque_ = false;
  std::vector<Edge> edges_;
};

}  // namespace

Sat decide_cheaply(const std::vector<Sym>& formulas) { return Decider(formulas).run(); }

}  // namespace dualfuzz::oracle::detail
