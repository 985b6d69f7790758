#include "dualfuzz/oracle/symbolic.h"

#include <gtest/gtest.h>

#include "entity_tags.h"

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

// The "W/" theory is RFC 9110 §8.8.3.2's table of entity-tag comparisons.
TEST(Symbolic, EtagComparisonsFollowRfc9110) {
  const StringTheory& t = tests::etags();
  constexpr Marked kStrong = Marked::Excluded, kWeak = Marked::Allowed;
  EXPECT_FALSE(t.match("W/\"1\"", "W/\"1\"", kStrong));
  EXPECT_TRUE(t.match("W/\"1\"", "W/\"1\"", kWeak));
  EXPECT_FALSE(t.match("W/\"1\"", "W/\"2\"", kStrong));
  EXPECT_FALSE(t.match("W/\"1\"", "W/\"2\"", kWeak));
  EXPECT_FALSE(t.match("W/\"1\"", "\"1\"", kStrong));
  EXPECT_TRUE(t.match("W/\"1\"", "\"1\"", kWeak));
  EXPECT_TRUE(t.match("\"1\"", "\"1\"", kStrong));
  EXPECT_TRUE(t.match("\"1\"", "\"1\"", kWeak));
  EXPECT_FALSE(t.match("", "", kStrong));  // no tag matches nothing
  EXPECT_FALSE(t.match("W/", "W/", kWeak));
  EXPECT_TRUE(tests::strong_match(Sym::lit("\"1\""), Sym::lit("\"1\"")).is_true());
}

// Without a marker every string is its own core: match is "equal and
// non-empty", whatever `marked` says.
TEST(Symbolic, DefaultTheoryMatchesEqualNonEmptyStrings) {
  const StringTheory plain;
  EXPECT_FALSE(plain.has_marker());
  EXPECT_EQ(plain, StringTheory(""));
  for (Marked m : {Marked::Allowed, Marked::Excluded}) {
    EXPECT_TRUE(plain.match("W/a", "W/a", m));
    EXPECT_FALSE(plain.match("W/a", "a", m));
    EXPECT_FALSE(plain.match("", "", m));
    EXPECT_TRUE(match(Sym::lit("x"), Sym::lit("x"), plain, m).is_true());
    EXPECT_TRUE(match(Sym::lit("x"), Sym::lit("y"), plain, m).is_false());
    // A constant alone decides only when it is empty (or not a string).
    const Sym v = Sym::var(0, Sort::Str);
    EXPECT_TRUE(match(Sym::lit(""), v, plain, m).is_false());
    EXPECT_TRUE(match(v, Sym::lit(3), plain, m).is_false());
    EXPECT_EQ(match(v, Sym::lit("W/a"), plain, m).op(), Op::Match);
  }
}

// A marker of the protocol's choice: the core is the rest, once.
TEST(Symbolic, MarkerTheorySplitsOneMarker) {
  const StringTheory t("~");
  EXPECT_EQ(t.marker(), "~");
  EXPECT_TRUE(t.marked("~a"));
  EXPECT_FALSE(t.marked("a~"));
  EXPECT_EQ(t.core("~a"), "a");
  EXPECT_EQ(t.core("~~a"), "~a");
  EXPECT_EQ(t.core("a"), "a");
  EXPECT_EQ(t.mark("a"), "~a");
  EXPECT_TRUE(t.match("~a", "a", Marked::Allowed));
  EXPECT_FALSE(t.match("~a", "a", Marked::Excluded));
  EXPECT_FALSE(t.match("~~a", "~a", Marked::Allowed));  // cores "~a" and "a"
  EXPECT_FALSE(t.match("~", "", Marked::Allowed));      // empty cores
  EXPECT_EQ(t, StringTheory("~"));
  EXPECT_FALSE(t == StringTheory("W/"));
  EXPECT_FALSE(t == StringTheory());
  const Sym v = Sym::var(0, Sort::Str);
  // A marked constant cannot match when marks are excluded; an empty core
  // never matches.
  EXPECT_TRUE(match(Sym::lit("~a"), v, t, Marked::Excluded).is_false());
  EXPECT_EQ(match(Sym::lit("~a"), v, t, Marked::Allowed).op(), Op::Match);
  EXPECT_TRUE(match(v, Sym::lit("~"), t, Marked::Allowed).is_false());
  EXPECT_TRUE(match(Sym::lit("~a"), Sym::lit("a"), t, Marked::Allowed).is_true());
}

// Match nodes are symmetric (a constant first, then the lower variable),
// and their theory and mode are part of their identity.
TEST(Symbolic, MatchNodesCarryTheirTheory) {
  const Sym a = Sym::var(1, Sort::Str), b = Sym::var(2, Sort::Str);
  const StringTheory t("~"), u("~"), w("#");
  const Sym m = match(a, b, t, Marked::Allowed);
  EXPECT_EQ(m, match(b, a, t, Marked::Allowed));
  EXPECT_EQ(m, match(a, b, u, Marked::Allowed));  // an equal theory
  EXPECT_EQ(m.hash(), match(a, b, u, Marked::Allowed).hash());
  EXPECT_FALSE(m == match(a, b, w, Marked::Allowed));
  EXPECT_FALSE(m == match(a, b, t, Marked::Excluded));
  EXPECT_FALSE(m == match(a, b, StringTheory(), Marked::Allowed));
  EXPECT_EQ(m.theory(), t);
  EXPECT_EQ(m.marked(), Marked::Allowed);
  EXPECT_EQ(match(a, Sym::lit("x"), t, Marked::Allowed).args()[0], Sym::lit("x"));
}

// Substitution folds a match again in the node's own theory.
TEST(Symbolic, SubstituteRefolds) {
  Sym x = Sym::var(0, Sort::Str);
  Sym f = tests::strong_match(Sym::lit("\"a\""), x);
  Sym g = substitute(f, [](const Sym&) { return Sym::lit("\"a\""); });
  EXPECT_TRUE(g.is_true());
  const StringTheory t("~");
  auto to = [](const char* s) { return [s](const Sym&) { return Sym::lit(s); }; };
  EXPECT_TRUE(
      substitute(match(Sym::lit("a"), x, t, Marked::Allowed), to("~a")).is_true());
  EXPECT_TRUE(
      substitute(match(Sym::lit("a"), x, t, Marked::Excluded), to("~a")).is_false());
  EXPECT_TRUE(
      substitute(match(Sym::lit("a"), x, StringTheory(), Marked::Allowed), to("~a"))
          .is_false());
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
