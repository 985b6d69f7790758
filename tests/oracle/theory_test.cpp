// The marked-string theory through every decider: the constraint store's
// fast path, the cheap decision and Z3 must decide random matches and
// equalities as a brute-force search over representative strings does, with
// no marker, with "W/", and with markers that collide with the deciders' own
// invented names (a quote) or nest ("~~a" is marked, with the core "~a").
#include "dualfuzz/oracle/theory.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "dualfuzz/oracle/constraint_store.h"
#include "dualfuzz/oracle/detail/cheap_decision.h"
#include "dualfuzz/oracle/solver.h"

namespace dualfuzz::oracle {
namespace {

constexpr VarId kStrs = 3;   // string variables 0..2
constexpr VarId kBool = 10;  // one boolean variable

struct Setting {
  std::string marker;
  std::vector<std::string> constants;
};

const std::vector<Setting>& settings() {
  static const std::vector<Setting> all = {
      {"", {"a", "b", "W/a", ""}},
      {"W/", {"\"a\"", "W/\"a\"", "\"b\"", ""}},
      {"~", {"a", "~a", "~~a", "~"}},
      {"\"", {"\"z1\"", "z1", "\"#w0\"", ""}},
  };
  return all;
}

// One string per (marked, core) class that matters: every constant's core
// and one fresh core per variable, unmarked (when such a string exists: an
// unmarked string's core never begins with the marker) and marked.
std::vector<std::string> universe(const StringTheory& t,
                                  const std::vector<std::string>& constants) {
  std::vector<std::string> cores{""};
  for (const std::string& c : constants) cores.emplace_back(t.core(c));
  for (VarId v = 0; v < kStrs; ++v) cores.push_back("q" + std::to_string(v));
  std::vector<std::string> out;
  auto add = [&](std::string s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  };
  for (const std::string& o : cores) {
    if (!t.marked(o)) add(o);
    if (t.has_marker()) add(t.mark(o));
  }
  return out;
}

Sat brute_force(const std::vector<Sym>& facts, const std::vector<std::string>& u) {
  std::vector<std::size_t> pick(kStrs, 0);
  for (;;) {
    for (bool b : {false, true}) {
      bool all = true;
      for (const Sym& f : facts) {
        Sym r = substitute(f, [&](const Sym& v) {
          return v.sort() == Sort::Bool ? Sym::lit(b) : Sym::lit(u[pick[v.var_id()]]);
        });
        EXPECT_TRUE(r.is_const()) << r.to_string();
        if (!r.is_true()) {
          all = false;
          break;
        }
      }
      if (all) return Sat::Yes;
    }
    std::size_t i = 0;
    while (i < kStrs && ++pick[i] == u.size()) pick[i++] = 0;
    if (i == kStrs) return Sat::No;
  }
}

// Every formula true under the solver's model.
bool model_satisfies(Solver& z3, const std::vector<Sym>& facts) {
  std::map<VarId, Json> value;
  for (const auto& [id, v] : z3.model(facts)) value[id] = v;
  for (const Sym& f : facts) {
    bool missing = false;
    Sym r = substitute(f, [&](const Sym& v) {
      auto it = value.find(v.var_id());
      if (it == value.end()) {
        missing = true;
        return v;
      }
      return Sym::lit(it->second);
    });
    if (missing || !r.is_true()) return false;
  }
  return true;
}

TEST(StringTheory, DecidersAgreeWithBruteForceOnRandomMatches) {
  std::mt19937_64 rng(2027);
  for (const Setting& s : settings()) {
    const StringTheory t(s.marker);
    const std::vector<std::string> u = universe(t, s.constants);
    auto term = [&]() -> Sym {
      switch (rng() % 4) {
        case 0:
        case 1:
          return Sym::var(rng() % kStrs, Sort::Str);
        case 2:
          return ite(Sym::var(kBool, Sort::Bool), Sym::var(rng() % kStrs, Sort::Str),
                     Sym::lit(s.constants[rng() % s.constants.size()]));
        default:
          return Sym::lit(s.constants[rng() % s.constants.size()]);
      }
    };
    std::function<Sym(int)> formula = [&](int depth) -> Sym {
      switch (rng() % (depth > 0 ? 7 : 4)) {
        case 0:
          return eq(term(), term());
        case 1:
          return match(term(), term(), t, Marked::Allowed);
        case 2:
          return match(term(), term(), t, Marked::Excluded);
        case 3:
          return not_(
              match(term(), term(), t, rng() % 2 ? Marked::Allowed : Marked::Excluded));
        case 4:
          return not_(formula(depth - 1));
        case 5:
          return or_(formula(depth - 1), formula(depth - 1));
        default:
          return neq(term(), term());
      }
    };
    // The oracle's solver knows the model's theory; a shared one made
    // elsewhere may not, and must decide the same from the nodes.
    Solver own(500, t), plain, store_z3(500, t);
    int cheap_decided = 0, refuted = 0, store_alone = 0;
    constexpr int kTrials = 250;
    for (int i = 0; i < kTrials; ++i) {
      std::vector<Sym> facts;
      for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k)
        facts.push_back(formula(1));
      std::string text = "marker \"" + s.marker + "\", case " + std::to_string(i) + ":";
      for (const Sym& f : facts) text += " " + f.to_string() + " ;";
      const Sat truth = brute_force(facts, u);
      Solver& z3 = i % 2 ? own : plain;
      ASSERT_EQ(z3.check(facts), truth) << text;
      if (truth == Sat::Yes) {
        EXPECT_TRUE(model_satisfies(z3, facts)) << text;
      }
      const Sat cheap = detail::decide_cheaply(facts);
      if (cheap != Sat::Unknown) {
        EXPECT_EQ(cheap, truth) << text;
        ++cheap_decided;
      }
      const std::uint64_t queries = store_z3.stats().queries;
      ConstraintStore cs;
      Sat store = Sat::Yes;
      for (std::size_t k = 0; k < facts.size() && store != Sat::No; ++k)
        store = cs.add(facts[k], store_z3);
      EXPECT_EQ(store == Sat::No, truth == Sat::No) << text;
      if (store != Sat::Unknown) {
        EXPECT_EQ(store, truth) << text;
      }
      store_alone += store_z3.stats().queries == queries;
      refuted += truth == Sat::No;
    }
    std::printf("marker \"%s\": cheap decision %d/%d, store without Z3 %d, unsat %d\n",
                s.marker.c_str(), cheap_decided, kTrials, store_alone, refuted);
    EXPECT_GT(cheap_decided, kTrials * 9 / 10) << "marker \"" << s.marker << "\"";
    EXPECT_GT(refuted, kTrials / 10) << "marker \"" << s.marker << "\"";
    EXPECT_GT(store_alone, kTrials * 9 / 10) << "marker \"" << s.marker << "\"";
  }
}

// One query reads its strings in one theory: a match of a second theory is
// left out (Z3) or left undecided (cheap decision), never a wrong answer.
TEST(StringTheory, TwoTheoriesInOneQueryAreNeverRefutedWrongly) {
  const StringTheory tilde("~"), hash("#");
  const Sym v = Sym::var(0, Sort::Str);
  // v = "a" satisfies both ("~a" and "#a" have the core "a" in their theory).
  const std::vector<Sym> sat = {match(Sym::lit("~a"), v, tilde, Marked::Allowed),
                                match(Sym::lit("#a"), v, hash, Marked::Allowed)};
  Solver z3;
  EXPECT_NE(z3.check(sat), Sat::No);
  EXPECT_NE(detail::decide_cheaply(sat), Sat::No);
  // Not "a": "~a" and "#a" are the only others, and neither fits both.
  std::vector<Sym> unsat = sat;
  unsat.push_back(neq(v, Sym::lit("a")));
  EXPECT_NE(z3.check(unsat), Sat::Yes);
  EXPECT_NE(detail::decide_cheaply(unsat), Sat::Yes);
}

// What the solver invents is a string of the query's theory: a name that
// would begin with the marker is not taken for an unmarked value, and
// without a marker nothing is marked.
TEST(StringTheory, ModelsInventStringsOfTheQuerysTheory) {
  const Sym v = Sym::var(0, Sort::Str), w = Sym::var(1, Sort::Str);
  const StringTheory quote("\"");
  Solver z3;
  // An unmarked, non-empty string nobody mentioned.
  const std::vector<Sym> fresh = {match(v, v, quote, Marked::Excluded)};
  auto m = z3.model(fresh);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_FALSE(quote.marked(m[0].second.get<std::string>())) << m[0].second;
  EXPECT_TRUE(model_satisfies(z3, fresh));
  // Marked, with the core of "a".
  const std::vector<Sym> marked = {match(Sym::lit("a"), v, quote, Marked::Allowed),
                                   neq(v, Sym::lit("a"))};
  m = z3.model(marked);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].second, Json("\"a"));
  // No Match node and no theory: the plain reading.
  const std::vector<Sym> plain = {neq(v, w), neq(v, Sym::lit("")), neq(w, Sym::lit(""))};
  for (const auto& [id, value] : z3.model(plain))
    EXPECT_EQ(value.get<std::string>().rfind("\"z", 0), 0u) << value;
  EXPECT_TRUE(model_satisfies(z3, plain));
}

}  // namespace
}  // namespace dualfuzz::oracle
