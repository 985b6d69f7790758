// The Z3 back end on its own: one Solver serves every query of an oracle, and
// each hypothesis numbers its variables from 0, so one variable id meets
// different sorts in successive queries.
#include "dualfuzz/oracle/solver.h"

#include <gtest/gtest.h>

#include "entity_tags.h"

namespace dualfuzz::oracle {
namespace {

using tests::strong_match;
using tests::weak_match;

Sym str(VarId i) { return Sym::var(i, Sort::Str); }
Sym num(VarId i) { return Sym::var(i, Sort::Int); }

TEST(Solver, DecidesContradictoryTags) {
  Solver z3;
  EXPECT_EQ(z3.check({strong_match(Sym::lit("\"8\""), str(0)),
                      strong_match(Sym::lit("\"1\""), str(0))}),
            Sat::No);
  EXPECT_EQ(z3.check({strong_match(Sym::lit("\"8\""), str(0)),
                      weak_match(Sym::lit("W/\"8\""), str(0))}),
            Sat::Yes);
}

// Regression: the variable cache was keyed by id alone, so after a query in
// which $0 was a date, a query in which $0 is a tag met an Int term, dropped
// the conjunct as untranslatable and answered Unknown instead of No.
TEST(Solver, SameIdDifferentSortsAcrossQueries) {
  Solver z3;
  EXPECT_EQ(z3.check({le(Sym::lit(1700000000), num(0)), le(num(0), num(1))}), Sat::Yes);
  EXPECT_EQ(z3.check({strong_match(Sym::lit("\"8\""), str(0)),
                      strong_match(Sym::lit("\"1\""), str(0))}),
            Sat::No);
  EXPECT_EQ(z3.check({le(num(1), num(0)), lt(num(0), num(1))}), Sat::No);
  EXPECT_EQ(z3.check({not_(eq(str(1), Sym::lit(""))), eq(str(1), str(0)),
                      strong_match(Sym::lit("\"x\""), str(0))}),
            Sat::Yes);
  EXPECT_EQ(z3.stats().unknown, 0u);
}

// A model names only the query's own variables, each with a value of its
// sort, even when earlier queries used the same ids with other sorts.
TEST(Solver, ModelHasOnlyThisQuerysVariables) {
  Solver z3;
  ASSERT_EQ(z3.check({le(Sym::lit(5), num(0)), le(Sym::lit(5), num(3))}), Sat::Yes);
  auto m = z3.model({strong_match(Sym::lit("\"a\""), str(0))});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].first, 0u);
  EXPECT_EQ(m[0].second, Json("\"a\""));
}

// Regression: strings nobody mentioned were named by their rank, starting
// over at the rank after skipping a name the query mentions, so two
// different strings could get one name ("z2" twice after skipping "z1").
TEST(Solver, InventedStringsHaveDistinctNames) {
  Solver z3;
  const std::vector<Sym> f = {neq(str(0), Sym::lit("\"z1\"")),
                              neq(str(1), Sym::lit("\"z1\"")), neq(str(0), str(1)),
                              neq(str(0), Sym::lit("")), neq(str(1), Sym::lit(""))};
  auto m = z3.model(f);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_NE(m[0].second, m[1].second);
  EXPECT_NE(m[0].second, Json("\"z1\""));
  EXPECT_NE(m[1].second, Json("\"z1\""));
}

}  // namespace
}  // namespace dualfuzz::oracle
