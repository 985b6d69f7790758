#include "dualfuzz/oracle/symbolic.h"

#include <gtest/gtest.h>

namespace dualfuzz::oracle {
namespace {

// An object built from a shared shape is the same value as one built from
// name-value pairs (equal, same hash), and a shape that does not fit its
// values is refused.
TEST(Symbolic, ObjectsFromSharedShapes) {
  const Sym::Fields shape = Sym::fields({"status", "etag"});
  const Sym a = Sym::object(shape, {Sym::lit(200), Sym::var(1, Sort::Str)});
  const Sym b =
      Sym::object({{"status", Sym::lit(200)}, {"etag", Sym::var(1, Sort::Str)}});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.field_names(), (std::vector<std::string>{"status", "etag"}));
  EXPECT_FALSE(a == Sym::object(Sym::fields({"status", "tag"}),
                                {Sym::lit(200), Sym::var(1, Sort::Str)}));
  EXPECT_THROW(Sym::object(shape, {Sym::lit(200)}), std::invalid_argument);
  EXPECT_THROW(Sym::object(nullptr, {}), std::invalid_argument);
}

TEST(Symbolic, ConstantsFoldEagerly) {
  EXPECT_TRUE(eq(Sym::lit(3), Sym::lit(3)).is_true());
  EXPECT_TRUE(neq(Sym::lit("a"), Sym::lit("b")).is_true());
  EXPECT_TRUE(and_(Sym::lit(true), Sym::lit(false)).is_false());
  EXPECT_TRUE(lt(Sym::lit(1), Sym::lit(2)).is_true());
  EXPECT_TRUE(ite(Sym::lit(false), Sym::lit(1), Sym::lit(2)) == Sym::lit(2));
  Sym x = Sym::var(0, Sort::Int);
  EXPECT_FALSE(lt(x, Sym::lit(2)).ground());
  EXPECT_TRUE(and_(Sym::lit(true), lt(x, Sym::lit(2))) == lt(x, Sym::lit(2)));
}

TEST(Symbolic, EtagComparisonsFollowRfc9110) {
  // RFC 9110 §8.8.3.2's table.
  EXPECT_FALSE(etag_strong_match("W/\"1\"", "W/\"1\""));
  EXPECT_TRUE(etag_weak_match("W/\"1\"", "W/\"1\""));
  EXPECT_FALSE(etag_strong_match("W/\"1\"", "W/\"2\""));
  EXPECT_FALSE(etag_weak_match("W/\"1\"", "W/\"2\""));
  EXPECT_FALSE(etag_strong_match("W/\"1\"", "\"1\""));
  EXPECT_TRUE(etag_weak_match("W/\"1\"", "\"1\""));
  EXPECT_TRUE(etag_strong_match("\"1\"", "\"1\""));
  EXPECT_TRUE(etag_weak_match("\"1\"", "\"1\""));
  EXPECT_FALSE(etag_strong_match("", ""));  // no tag matches nothing
  EXPECT_TRUE(strong_match(Sym::lit("\"1\""), Sym::lit("\"1\"")).is_true());
}

TEST(Symbolic, SubstituteRefolds) {
  Sym x = Sym::var(0, Sort::Str);
  Sym f = strong_match(Sym::lit("\"a\""), x);
  Sym g = substitute(f, [](const Sym&) { return Sym::lit("\"a\""); });
  EXPECT_TRUE(g.is_true());
}

TEST(Symbolic, StructuralEqualityAndHash) {
  Sym a = Sym::object({{"status", Sym::lit(200)}, {"etag", Sym::var(1, Sort::Str)}});
  Sym b = Sym::object({{"status", Sym::lit(200)}, {"etag", Sym::var(1, Sort::Str)}});
  Sym c = Sym::object({{"status", Sym::lit(200)}, {"etag", Sym::var(2, Sort::Str)}});
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_FALSE(a == c);
}

}  // namespace
}  // namespace dualfuzz::oracle
