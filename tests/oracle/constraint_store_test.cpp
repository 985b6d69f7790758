// The fast path (union-find + disequalities) and Z3 must agree wherever both
// apply; the fast path must spare Z3 the common ETag cases.
#include "dualfuzz/oracle/constraint_store.h"

#include <gtest/gtest.h>

#include <random>

namespace dualfuzz::oracle {
namespace {

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
  Sym n = Sym::var(0, Sort::Int);
  // The cheap witness (n = 5, the least value) fails the disjunction; Z3
  // finds n = 11.
  ASSERT_NE(cs.add(le(Sym::lit(5), n), z3), Sat::No);
  EXPECT_EQ(cs.add(or_(lt(n, Sym::lit(3)), lt(Sym::lit(10), n)), z3), Sat::Yes);
  EXPECT_GT(z3.stats().queries, 0u);
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

// Random conjunctions over 3 string variables and 3 tags: the store (fast
// path + Z3 residuals) must say No exactly when Z3 on the whole conjunction
// does.
TEST(ConstraintStore, FastPathAgreesWithZ3OnRandomConjunctions) {
  std::mt19937_64 rng(42);
  const char* tags[] = {"\"a\"", "\"b\"", "W/\"a\""};
  auto term = [&]() { return rng() % 2 ? v(rng() % 3) : c(tags[rng() % 3]); };
  int fast_unsat = 0, checked = 0;
  for (int i = 0; i < 400; ++i) {
    Solver z3, reference;
    ConstraintStore cs;
    std::vector<Sym> all;
    Sat store = Sat::Yes;
    int n = 1 + rng() % 4;
    for (int k = 0; k < n && store != Sat::No; ++k) {
      Sym f;
      switch (rng() % 4) {
        case 0:
          f = eq(term(), term());
          break;
        case 1:
          f = neq(term(), term());
          break;
        case 2:
          f = strong_match(term(), term());
          break;
        default:
          f = not_(weak_match(term(), term()));
          break;
      }
      all.push_back(f);
      store = cs.add(f, z3);
    }
    Sat truth = reference.check(all);
    ASSERT_NE(truth, Sat::Unknown);
    std::string fs;
    for (const Sym& f : all) fs += f.to_string() + " ; ";
    EXPECT_EQ(store == Sat::No, truth == Sat::No)
        << "case " << i << ": " << fs << " store=" << int(store);
    if (store == Sat::No && z3.stats().queries == 0) ++fast_unsat;
    ++checked;
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
  int decided_cheaply = 0;
  for (int i = 0; i < 300; ++i) {
    Solver z3, reference;
    ConstraintStore cs;
    std::vector<Sym> all;
    Sat store = Sat::Yes;
    int n = 1 + rng() % 5;
    for (int k = 0; k < n && store != Sat::No; ++k) {
      Sym f;
      switch (rng() % 6) {
        case 0: f = le(num(), num()); break;
        case 1: f = lt(num(), num()); break;
        case 2: f = not_(le(num(), num())); break;
        case 3: f = strong_match(tag(), tag()); break;
        case 4: f = not_(strong_match(tag(), tag())); break;
        default: f = weak_match(tag(), tag()); break;
      }
      all.push_back(f);
      store = cs.add(f, z3);
    }
    Sat truth = reference.check(all);
    ASSERT_NE(truth, Sat::Unknown);
    std::string fs;
    for (const Sym& f : all) fs += f.to_string() + " ; ";
    if (store != Sat::Unknown)
      EXPECT_EQ(store, truth) << "case " << i << ": " << fs;
    if (store != Sat::Unknown && z3.stats().queries == 0) ++decided_cheaply;
  }
  EXPECT_GT(decided_cheaply, 250) << "most such conjunctions need no Z3";
}

}  // namespace
}  // namespace dualfuzz::oracle
