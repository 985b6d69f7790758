#include "dualfuzz/oracle/dualize.h"

#include <gtest/gtest.h>

namespace dualfuzz::oracle {
namespace {

TEST(Dualize, ConstantsMatchOrExplain) {
  EXPECT_TRUE(guard(Sym::lit(1), 1).ok());
  Guard g = guard(Sym::lit("new"), "old");
  ASSERT_FALSE(g.ok());
  ASSERT_TRUE(g.mismatch);
  EXPECT_EQ(g.mismatch->text, "response: expected \"new\", observed \"old\"");
  EXPECT_EQ(g.mismatch->kind, Reason::Kind::Mismatch);
  EXPECT_EQ(g.mismatch->location, "response");
  EXPECT_EQ(g.mismatch->expected, "\"new\"");
  EXPECT_EQ(g.mismatch->observed, "\"old\"");
  EXPECT_EQ(g.mismatch->clause, "");  // (the guard knows no clause)
}

TEST(Dualize, ReasonsNameTheFieldWhereTheResponseWentWrong) {
  Sym p = Sym::object({{"status", Sym::alt({Sym::lit(200), Sym::lit(204)})},
                       {"headers", Sym::object({{"etag", Sym::lit("v1")}})}});
  Guard status = guard(p, {{"status", 412}, {"headers", {{"etag", "v1"}}}});
  EXPECT_EQ(status.mismatch->location, "response.status");
  EXPECT_EQ(status.mismatch->expected, "200 or 204");
  EXPECT_EQ(status.mismatch->observed, "412");
  EXPECT_EQ(status.mismatch->text,
            "response.status: expected 200, observed 412; or response.status: expected "
            "204, observed 412");
  Guard tag = guard(p, {{"status", 200}, {"headers", {{"etag", "v2"}}}});
  EXPECT_EQ(tag.mismatch->location, "response.headers.etag");
  EXPECT_EQ(tag.mismatch->expected, "\"v1\"");
  EXPECT_EQ(tag.mismatch->observed, "\"v2\"");
  Guard missing = guard(p, {{"status", 200}});
  EXPECT_EQ(missing.mismatch->location, "response.headers");
  EXPECT_EQ(missing.mismatch->observed, "missing");
  EXPECT_NE(missing.mismatch->text.find("but it is missing"), std::string::npos);
  // Whole-response alternatives: the place they share, each one's own part.
  Sym either =
      Sym::alt({Sym::object({{"status", Sym::lit(412)}}),
                Sym::object({{"status", Sym::lit(200)}, {"body", Sym::lit("x")}})});
  Guard g = guard(either, {{"status", 200}, {"body", "y"}});
  EXPECT_EQ(g.mismatch->location, "response");
  EXPECT_EQ(g.mismatch->expected, "status 412 or body \"x\"");
  // A match explains nothing.
  EXPECT_FALSE(guard(p, {{"status", 204}, {"headers", {{"etag", "v1"}}}}).mismatch);
  // Nor does a guard that is not asked to.
  EXPECT_FALSE(guard(p, {{"status", 412}}, /*explain=*/false).mismatch);
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
  EXPECT_NE(guard(p, 201).mismatch->text.find("; or "), std::string::npos);
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
