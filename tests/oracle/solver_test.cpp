// The Z3 back end on its own: one Solver serves every query of an oracle, and
// each hypothesis numbers its variables from 0, so one variable id meets
// different sorts in successive queries.
#include "dualfuzz/oracle/solver.h"

#include <gtest/gtest.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

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

#if DUALFUZZ_LAZY_Z3
// Whether a loaded object's path contains `name`.
bool mapped(const char* name) {
  auto found = [](dl_phdr_info* info, std::size_t, void* n) {
    return info->dlpi_name && std::strstr(info->dlpi_name, static_cast<const char*>(n))
               ? 1
               : 0;
  };
  return dl_iterate_phdr(found, const_cast<char*>(name)) != 0;
}

// Each in a process of its own ("threadsafe": re-executed, not forked), where
// no query has loaded the module yet.
TEST(SolverModule, Z3IsLoadedAtTheFirstQuery) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const bool before = mapped("libz3") || mapped("libdualfuzz_z3");
        Solver z3;
        const Sat s = z3.check({strong_match(Sym::lit("\"8\""), str(0))});
        const bool after = mapped("libz3") && mapped("libdualfuzz_z3.so");
        std::fprintf(stderr, "before %d after %d sat %d\n", before, after, s == Sat::Yes);
        std::exit(!before && after && s == Sat::Yes ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "before 0 after 1 sat 1");
}

// A module that cannot be loaded is an error at the first query, naming the
// path tried, never a silent Unknown.
TEST(SolverModule, AMissingModuleIsALoudError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("DUALFUZZ_Z3_MODULE", "/nonexistent/libdualfuzz_z3.so", 1);
        Solver z3;
        try {
          z3.check({strong_match(Sym::lit("\"8\""), str(0))});
        } catch (const std::runtime_error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(3);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(3),
      "cannot load the Z3 back end "
      "libdualfuzz_z3.so.*tried:.*/nonexistent/libdualfuzz_z3.so");
}
#endif

}  // namespace
}  // namespace dualfuzz::oracle
