// The fast path (union-find + disequalities) and Z3 must agree wherever both
// apply; the fast path must spare Z3 the common ETag cases.
#include "dualfuzz/oracle/constraint_store.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "entity_tags.h"

namespace dualfuzz::oracle {
namespace {

using tests::strong_match;
using tests::weak_match;

Sym v(VarId i) { return Sym::var(i, Sort::Str); }
Sym c(const char* s) { return Sym::lit(s); }

TEST(ConstraintStore, BindingsAndConflictsWithoutZ3) {
  Solver z3;
  ConstraintStore cs;
  EXPECT_NE(cs.add(eq(v(0), c("\"a\"")), z3), Sat::No);
  EXPECT_NE(cs.add(eq(v(1), v(0)), z3), Sat::No);
  EXPECT_EQ(cs.value_of(1), Json("\"a\""));
  ConstraintStore bad = cs;
  EXPECT_EQ(bad.add(eq(v(1), c("\"b\"")), z3), Sat::No);
  ConstraintStore ne = cs;
  EXPECT_EQ(ne.add(neq(v(0), v(1)), z3), Sat::No);
  EXPECT_EQ(z3.stats().queries, 0u) << "equalities of constants need no solver";
}

// A lone integer bound (every PUT's "not before the last modification") is
// decided without the cheap decider or Z3; a second bound on the same
// variable still is decided, both ways.
// formulas() (what Z3 gets) states each variable with the sort it was made
// with, also when a higher-numbered variable was met first: a variable
// stated as Json-sorted is opaque to Z3, and its facts would be dropped.
TEST(ConstraintStore, FormulasKeepSortsOfVariablesMetOutOfOrder) {
  Solver z3;
  ConstraintStore cs;
  EXPECT_NE(cs.add(eq(v(1), c("\"a\"")), z3), Sat::No);
  const Sym i0 = Sym::var(0, Sort::Int), i2 = Sym::var(2, Sort::Int);
  EXPECT_NE(cs.add(eq(i2, i0), z3), Sat::No);
  std::function<void(const Sym&)> check = [&](const Sym& s) {
    if (s.is_var()) {
      EXPECT_EQ(s.sort(), s.var_id() == 1 ? Sort::Str : Sort::Int) << s.to_string();
      return;
    }
    for (const Sym& a : s.args()) check(a);
  };
  const std::vector<Sym> fs = cs.formulas();
  ASSERT_FALSE(fs.empty());
  for (const Sym& f : fs) check(f);
}

TEST(ConstraintStore, LoneIntegerBounds) {
  Solver z3;
  auto t = [](VarId i) { return Sym::var(i, Sort::Int); };
  ConstraintStore cs;
  EXPECT_EQ(cs.add(le(Sym::lit(100), t(0)), z3), Sat::Yes);
  EXPECT_EQ(cs.add(le(t(0), t(1)), z3), Sat::Yes);  // shares t0: decided, satisfiable
  EXPECT_EQ(cs.add(le(Sym::lit(5), t(7)), z3), Sat::Yes);  // another component
  ConstraintStore low = cs;
  EXPECT_EQ(low.add(lt(t(1), Sym::lit(50)), z3), Sat::No);  // 100 <= t0 <= t1 < 50
  ConstraintStore same = cs;
  EXPECT_EQ(same.add(lt(t(3), t(3)), z3), Sat::No);  // not a bound between two variables
  ConstraintStore neg = cs;
  EXPECT_EQ(neg.add(not_(le(t(7), Sym::lit(4))), z3), Sat::Yes);  // t7 > 4 and 5 <= t7
  EXPECT_EQ(neg.add(lt(t(7), Sym::lit(5)), z3), Sat::No);
  EXPECT_EQ(z3.stats().queries, 0u);
}

TEST(ConstraintStore, EtagComparisonsResolveOnceBound) {
  Solver z3;
  ConstraintStore cs;
  ASSERT_NE(cs.add(not_(strong_match(c("\"x\""), v(0))), z3), Sat::No);  // 412 seen
  // Revealing the tag "x" contradicts the earlier 412.
  ConstraintStore later = cs;
  EXPECT_EQ(later.add(eq(v(0), c("\"x\"")), z3), Sat::No);
  ConstraintStore other = cs;
  EXPECT_NE(other.add(eq(v(0), c("\"y\"")), z3), Sat::No);
}

// A tag comparison whose variables nothing else constrains is satisfiable
// on its own (every PUT of new content: its fresh tag is not the old one);
// one that shares a variable with a disequality or another comparison is
// not decided alone.
TEST(ConstraintStore, LoneEntityTagFacts) {
  Solver z3;
  ConstraintStore cs;
  ASSERT_EQ(cs.add(not_(strong_match(c("\"a\""), v(0))), z3), Sat::Yes);
  EXPECT_EQ(cs.add(strong_match(c("\"b\""), v(1)), z3), Sat::Yes);
  EXPECT_EQ(cs.add(not_(weak_match(v(2), v(3))), z3), Sat::Yes);
  ConstraintStore again = cs;  // v0 is the only tag that must differ from "a"
  EXPECT_EQ(again.add(strong_match(c("\"a\""), v(0)), z3), Sat::No);
  ConstraintStore weak = cs;  // v1 is "b", strongly; W/"b" matches it weakly
  EXPECT_EQ(weak.add(not_(weak_match(c("W/\"b\""), v(1))), z3), Sat::No);
  // Through a disequality alone: v4 != "a" leaves no residual behind, so
  // only the lone-fact test itself can see that v4 is constrained.
  ConstraintStore diseq;
  ASSERT_EQ(diseq.add(neq(v(4), c("\"a\"")), z3), Sat::Yes);
  EXPECT_EQ(diseq.add(strong_match(c("\"a\""), v(4)), z3), Sat::No);
  ConstraintStore classes;  // v5 = v6, v6 != "a": v5 cannot be "a" either
  ASSERT_EQ(classes.add(eq(v(5), v(6)), z3), Sat::Yes);
  ASSERT_EQ(classes.add(neq(v(6), c("\"a\"")), z3), Sat::Yes);
  EXPECT_EQ(classes.add(strong_match(c("\"a\""), v(5)), z3), Sat::No);
}

TEST(ConstraintStore, OrderFactsDecidedWithoutZ3) {
  Solver z3;
  ConstraintStore cs;
  Sym n = Sym::var(0, Sort::Int), m = Sym::var(1, Sort::Int);
  ASSERT_EQ(cs.add(le(Sym::lit(7), n), z3), Sat::Yes);
  ASSERT_EQ(cs.add(le(n, m), z3), Sat::Yes);
  ConstraintStore late = cs;
  EXPECT_EQ(late.add(lt(m, Sym::lit(7)), z3), Sat::No);  // 7 <= n <= m < 7
  ConstraintStore fine = cs;
  EXPECT_EQ(fine.add(not_(lt(m, Sym::lit(9))), z3), Sat::Yes);
  EXPECT_EQ(z3.stats().queries, 0u) << "difference constraints need no solver";
}

TEST(ConstraintStore, ResidualsBeyondTheCheapPathGoToZ3) {
  Solver z3;
  ConstraintStore cs;
  Sym n = Sym::var(0, Sort::Int), m = Sym::var(1, Sort::Int);
  // The cheap witness (n = 5, m = 0) fails the disjunction, which compares
  // two variables (no enumeration over constants stands for every value);
  // Z3 finds m = 11.
  ASSERT_NE(cs.add(le(Sym::lit(5), n), z3), Sat::No);
  EXPECT_EQ(cs.add(or_(lt(n, m), lt(Sym::lit(10), m)), z3), Sat::Yes);
  EXPECT_GT(z3.stats().queries, 0u);
}

// Integers compared with constants only are enumerated over each constant
// and its neighbours: a disjunction of validator bindings (an ETag with a
// Last-Modified) is decided without Z3, both ways, as Z3 decides it.
TEST(ConstraintStore, ADisjunctionOfBindingsIsDecidedWithoutZ3) {
  Solver z3, reference;
  Sym t = Sym::var(0, Sort::Str), d = Sym::var(1, Sort::Int);
  Sym either = or_(and_(eq(t, c("\"a\"")), eq(d, Sym::lit(5))),
                   and_(eq(t, c("\"b\"")), eq(d, Sym::lit(7))));
  ConstraintStore cs;
  ASSERT_NE(cs.add(either, z3), Sat::No);
  EXPECT_EQ(cs.add(lt(Sym::lit(2), d), z3), Sat::Yes);  // 5 > 2
  EXPECT_EQ(cs.add(le(d, Sym::lit(6)), z3), Sat::Yes);  // only "a", 5 left
  EXPECT_EQ(z3.stats().queries, 0u);
  ConstraintStore no = cs;
  EXPECT_EQ(no.add(neq(t, c("\"a\"")), z3), Sat::No);
  EXPECT_EQ(z3.stats().queries, 0u);
  EXPECT_EQ(reference.check(
                {either, lt(Sym::lit(2), d), le(d, Sym::lit(6)), neq(t, c("\"a\""))}),
            Sat::No);
  EXPECT_EQ(reference.check({either, le(d, Sym::lit(6))}), Sat::Yes);
}

TEST(ConstraintStore, WeakAndStrongMatchInZ3) {
  Solver z3;
  // W/"a" weakly matches "a" but never strongly.
  EXPECT_EQ(z3.check({strong_match(c("W/\"a\""), v(0))}), Sat::No);
  EXPECT_EQ(z3.check({weak_match(c("W/\"a\""), v(0)), eq(v(0), c("\"a\""))}), Sat::Yes);
  EXPECT_EQ(z3.check({strong_match(v(0), v(1)), neq(v(0), v(1))}), Sat::No);
}

TEST(ConstraintStore, UntranslatableIsUnknownNeverNo) {
  Solver z3;
  Sym j = Sym::var(0, Sort::Json);
  EXPECT_EQ(z3.check({lt(j, Sym::lit(3))}), Sat::Unknown);
  ConstraintStore cs;
  EXPECT_NE(cs.add(lt(j, Sym::lit(3)), z3), Sat::No);
}

// One random conjunction of `n` formulas: what the store says after adding
// them one by one (stopping at No), what Z3 says of the whole conjunction,
// and whether the store needed Z3.
struct Trial {
  Sat store = Sat::Yes;
  Sat truth = Sat::Unknown;
  bool used_z3 = false;
  std::string text;
};
Trial trial(int n, const std::function<Sym()>& formula) {
  Solver z3, reference;
  ConstraintStore cs;
  std::vector<Sym> all;
  Trial t;
  for (int k = 0; k < n && t.store != Sat::No; ++k) {
    all.push_back(formula());
    t.store = cs.add(all.back(), z3);
  }
  t.truth = reference.check(all);
  t.used_z3 = z3.stats().queries > 0;
  for (const Sym& f : all) t.text += f.to_string() + " ; ";
  return t;
}

// `trials` random stores of 1 to 5 formulas: wherever the store decides, it
// says what Z3 says of the whole conjunction. Counts the stores it decided
// without Z3, and the unsatisfiable ones.
struct Agreement {
  int decided_cheaply = 0, unsat = 0;
};
void agree_with_z3(std::mt19937_64& rng, int trials, const std::function<Sym()>& formula,
                   Agreement& out) {
  for (int i = 0; i < trials; ++i) {
    Trial t = trial(1 + static_cast<int>(rng() % 5), formula);
    ASSERT_NE(t.truth, Sat::Unknown);
    if (t.store != Sat::Unknown) {
      EXPECT_EQ(t.store, t.truth) << "case " << i << ": " << t.text;
    }
    if (t.store != Sat::Unknown && !t.used_z3) ++out.decided_cheaply;
    out.unsat += t.truth == Sat::No;
  }
}

// Random conjunctions over 3 string variables and 3 tags: the store (fast
// path + Z3 residuals) must say No exactly when Z3 on the whole conjunction
// does.
// bind() is add() of the equations var == value without building them: the
// same verdict and the same store, on random stores of tag and time facts.
TEST(ConstraintStore, BindIsAddingTheEquations) {
  std::mt19937_64 rng(7);
  const Json tags[] = {"\"a\"", "\"b\"", "W/\"a\""};
  auto tag = [&]() { return Sym::lit(tags[rng() % 3]); };
  auto time = [&](VarId i) { return Sym::var(i, Sort::Int); };
  auto fact = [&]() {
    switch (rng() % 5) {
      case 0:
        return neq(v(rng() % 3), tag());
      case 1:
        return strong_match(v(rng() % 3), rng() % 2 ? tag() : v(rng() % 3));
      case 2:
        return eq(v(rng() % 3), v(rng() % 3));
      case 3:
        return le(time(3 + rng() % 2), Sym::lit(static_cast<int>(rng() % 3)));
      default:
        return le(time(3), time(4));
    }
  };
  int bound = 0, refuted = 0;
  for (int i = 0; i < 500; ++i) {
    Solver z3;
    ConstraintStore base;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k)
      if (base.add(fact(), z3) == Sat::No) break;
    std::vector<Json> values;  // (bindings point into them)
    values.reserve(2);
    ConstraintStore::Bindings bs;
    Sym conj = Sym::lit(true);
    for (int k = 0, n = 1 + static_cast<int>(rng() % 2); k < n; ++k) {
      const bool is_time = rng() % 3 == 0;
      const Sym x = is_time ? time(3 + rng() % 2) : v(rng() % 3);
      values.push_back(is_time ? Json(static_cast<int>(rng() % 3)) : tags[rng() % 3]);
      bs.emplace_back(x, &values.back());
      conj = and_(conj, eq(x, Sym::lit(values.back())));
    }
    ConstraintStore by_bind = base, by_add = base;
    const Sat b = by_bind.bind(bs, z3), a = by_add.add(conj, z3);
    ASSERT_EQ(b == Sat::No, a == Sat::No) << "case " << i << ": " << conj.to_string();
    if (b != Sat::No) {
      EXPECT_TRUE(by_bind == by_add) << "case " << i << ": " << conj.to_string();
      ++bound;
    } else {
      ++refuted;
    }
  }
  EXPECT_GT(bound, 50);
  EXPECT_GT(refuted, 50);
}

TEST(ConstraintStore, FastPathAgreesWithZ3OnRandomConjunctions) {
  std::mt19937_64 rng(42);
  const char* tags[] = {"\"a\"", "\"b\"", "W/\"a\""};
  auto term = [&]() { return rng() % 2 ? v(rng() % 3) : c(tags[rng() % 3]); };
  auto formula = [&]() {
    switch (rng() % 4) {
      case 0:
        return eq(term(), term());
      case 1:
        return neq(term(), term());
      case 2:
        return strong_match(term(), term());
      default:
        return not_(weak_match(term(), term()));
    }
  };
  int fast_unsat = 0;
  for (int i = 0; i < 400; ++i) {
    Trial t = trial(1 + static_cast<int>(rng() % 4), formula);
    ASSERT_NE(t.truth, Sat::Unknown);
    EXPECT_EQ(t.store == Sat::No, t.truth == Sat::No)
        << "case " << i << ": " << t.text << " store=" << int(t.store);
    if (t.store == Sat::No && !t.used_z3) ++fast_unsat;
  }
  EXPECT_GT(fast_unsat, 20) << "the fast path should decide many conflicts alone";
}

// The same over integers and tags together (times and ETags, as the HTTP
// model mixes them): the store must never say No where Z3 says Yes, nor Yes
// where Z3 says No.
TEST(ConstraintStore, CheapDecisionAgreesWithZ3OnTimesAndTags) {
  std::mt19937_64 rng(7);
  const char* tags[] = {"\"a\"", "\"b\"", "W/\"a\""};
  auto tag = [&]() { return rng() % 2 ? v(rng() % 2) : c(tags[rng() % 3]); };
  auto num = [&]() {
    return rng() % 2 ? Sym::var(2 + rng() % 3, Sort::Int)
                     : Sym::lit(static_cast<int>(rng() % 4) * 10);
  };
  auto formula = [&]() {
    switch (rng() % 6) {
      case 0:
        return le(num(), num());
      case 1:
        return lt(num(), num());
      case 2:
        return not_(le(num(), num()));
      case 3:
        return strong_match(tag(), tag());
      case 4:
        return not_(strong_match(tag(), tag()));
      default:
        return weak_match(tag(), tag());
    }
  };
  Agreement a;
  ASSERT_NO_FATAL_FAILURE(agree_with_z3(rng, 300, formula, a));
  EXPECT_GT(a.decided_cheaply, 250) << "most such conjunctions need no Z3";
}

// Disjunctions of bindings, entity-tag matches and comparisons of integers
// with constants (a response's validators and dates, as the HTTP model's
// alternatives make them), beside negations: the store agrees with Z3, and
// decides most of them without it.
TEST(ConstraintStore, CheapDecisionAgreesWithZ3OnDisjunctionsOfBindings) {
  std::mt19937_64 rng(11);
  const char* tags[] = {"\"a\"", "\"b\"", "W/\"a\"", ""};
  auto tag = [&]() { return c(tags[rng() % 4]); };
  auto num = [&]() { return Sym::lit(static_cast<int>(rng() % 4) * 10 + 100); };
  auto time = [&]() { return Sym::var(2 + rng() % 2, Sort::Int); };
  auto atom = [&]() -> Sym {
    switch (rng() % 7) {
      case 0:
      case 1:
        return eq(v(rng() % 2), tag());
      case 5:
        return strong_match(v(rng() % 2), rng() % 2 ? tag() : v(rng() % 2));
      case 6:
        return weak_match(tag(), v(rng() % 2));
      case 2:
        return eq(time(), num());
      case 3:
        return rng() % 2 ? le(time(), num()) : le(num(), time());
      default:
        return lt(time(), num());
    }
  };
  auto conj = [&]() {
    Sym a = atom();
    for (int k = 0, n = static_cast<int>(rng() % 3); k < n; ++k) a = and_(a, atom());
    return a;
  };
  auto formula = [&]() -> Sym {
    switch (rng() % 4) {
      case 0:
        return not_(atom());
      case 1:
        return atom();
      default:
        return or_(conj(), conj());
    }
  };
  Agreement a;
  ASSERT_NO_FATAL_FAILURE(agree_with_z3(rng, 400, formula, a));
  EXPECT_GT(a.unsat, 40);
  EXPECT_GT(a.decided_cheaply, 300) << "such disjunctions need no Z3";
}

}  // namespace
}  // namespace dualfuzz::oracle
