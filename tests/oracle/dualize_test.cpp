#include "dualfuzz/oracle/dualize.h"

#include <gtest/gtest.h>

namespace dualfuzz::oracle {
namespace {

TEST(Dualize, ConstantsMatchOrExplain) {
  EXPECT_TRUE(guard(Sym::lit(1), 1).ok());
  Guard g = guard(Sym::lit("new"), "old");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.mismatch, "response: expected \"new\", observed \"old\"");
}

TEST(Dualize, ObjectsAreOpenAndFieldsMayBeAbsentOrOptional) {
  Sym p = Sym::object({{"status", Sym::lit(200)},
                       {"etag", Sym::absent()},
                       {"lm", Sym::alt({Sym::absent(), Sym::var(0, Sort::Int)})}});
  EXPECT_TRUE(guard(p, {{"status", 200}, {"server", "x"}}).ok());
  EXPECT_FALSE(guard(p, {{"status", 200}, {"etag", "\"a\""}}).ok());
  Guard g = guard(p, {{"status", 200}, {"lm", 5}});
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g.constraint.is_true());  // binds the variable
  EXPECT_FALSE(guard(p, {{"status", 404}}).ok());
}

TEST(Dualize, VariablesBecomeConstraints) {
  Sym tag = Sym::var(3, Sort::Str);
  Guard g = guard(Sym::object({{"etag", tag}}), {{"etag", "\"x\""}});
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g.constraint == eq(tag, Sym::lit("\"x\"")));
}

TEST(Dualize, AlternativesAreADisjunction) {
  Sym p = Sym::alt({Sym::lit(200), Sym::lit(204)});
  EXPECT_TRUE(guard(p, 204).ok());
  EXPECT_FALSE(guard(p, 201).ok());
  EXPECT_NE(guard(p, 201).mismatch.find("; or "), std::string::npos);
  EXPECT_FALSE(guard(p, 201, /*explain=*/false).ok());
}

TEST(Dualize, ArraysMatchElementwise) {
  Sym p = Sym::array({Sym::lit(1), Sym::var(0, Sort::Int)});
  EXPECT_TRUE(guard(p, Json::array({1, 7})).ok());
  EXPECT_FALSE(guard(p, Json::array({1})).ok());
  EXPECT_FALSE(guard(p, Json::array({2, 7})).ok());
}

}  // namespace
}  // namespace dualfuzz::oracle
