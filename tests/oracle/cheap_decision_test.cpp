// The constraint store's second fast path on its own: what it decides must be
// what Z3 decides, and the common HTTP conflicts must not reach Z3.
#include "dualfuzz/oracle/detail/cheap_decision.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "entity_tags.h"

namespace dualfuzz::oracle {
namespace {

using tests::strong_match;
using tests::weak_match;

using detail::decide_cheaply;

Sym tag(VarId i) { return Sym::var(i, Sort::Str); }
Sym lit(const char* s) { return Sym::lit(s); }

// From a fuzzing run: a hypothesis in which the resource's tag strongly
// matched "5" (a 2xx to If-Match: "5") and later did not weakly match
// W/"5". Both facts name one variable; no value satisfies them.
TEST(CheapDecision, RefutesTagFactsWithoutZ3) {
  EXPECT_EQ(
      decide_cheaply({not_(eq(tag(19), lit(""))), strong_match(lit("\"5\""), tag(19)),
                      not_(weak_match(lit("W/\"5\""), tag(19)))}),
      Sat::No);
  EXPECT_EQ(decide_cheaply(
                {strong_match(lit("\"8\""), tag(1)), strong_match(lit("\"1\""), tag(1))}),
            Sat::No);
  // Two variables tied together: $1 = $2, $1 strong-matches "a", $2 is weak.
  EXPECT_EQ(decide_cheaply({eq(tag(1), tag(2)), strong_match(lit("\"a\""), tag(1)),
                            weak_match(lit("W/\"b\""), tag(2))}),
            Sat::No);
  // Satisfiable ones stay satisfiable.
  EXPECT_EQ(decide_cheaply({strong_match(lit("\"5\""), tag(19)),
                            weak_match(lit("W/\"5\""), tag(19))}),
            Sat::Yes);
}

// Independent groups: an unsatisfiable tag group is refuted even next to
// integer facts the enumeration does not handle.
TEST(CheapDecision, RefutesOneGroupNextToOrderFacts) {
  Sym t = Sym::var(3, Sort::Int);
  EXPECT_EQ(
      decide_cheaply({le(Sym::lit(10), t), or_(eq(t, Sym::lit(12)), eq(t, Sym::lit(15))),
                      strong_match(lit("\"a\""), tag(1)),
                      not_(weak_match(lit("\"a\""), tag(1)))}),
      Sat::No);
}

// Random formulas over two tags and two booleans (the HTTP model's groups
// have one or two tags), with or, ite and negations: whatever the fast path
// decides, Z3 decides the same, and it decides most of them (it is
// exhaustive over tags and booleans).
TEST(CheapDecision, AgreesWithZ3OnRandomTagAndBoolFormulas) {
  std::mt19937_64 rng(2026);
  const char* tags[] = {"\"a\"", "\"b\"", "W/\"a\"", ""};
  auto term = [&]() -> Sym {
    switch (rng() % 3) {
      case 0:
        return tag(rng() % 2);
      case 1:
        return ite(Sym::var(10 + rng() % 2, Sort::Bool), tag(rng() % 2),
                   lit(tags[rng() % 4]));
      default:
        return lit(tags[rng() % 4]);
    }
  };
  std::function<Sym(int)> formula = [&](int depth) -> Sym {
    switch (rng() % (depth > 0 ? 7 : 4)) {
      case 0:
        return eq(term(), term());
      case 1:
        return strong_match(term(), term());
      case 2:
        return weak_match(term(), term());
      case 3:
        return Sym::var(10 + rng() % 2, Sort::Bool);
      case 4:
        return not_(formula(depth - 1));
      case 5:
        return or_(formula(depth - 1), formula(depth - 1));
      default:
        return and_(formula(depth - 1), formula(depth - 1));
    }
  };
  int decided = 0, refuted = 0, trials = 0;
  Solver z3;  // one for all queries, as in an oracle
  for (int i = 0; i < 600; ++i) {
    std::vector<Sym> facts;
    for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) facts.push_back(formula(2));
    const Sat truth = z3.check(facts);
    ASSERT_NE(truth, Sat::Unknown);
    const Sat fast = decide_cheaply(facts);
    std::string text;
    for (const Sym& f : facts) text += f.to_string() + " ; ";
    if (fast != Sat::Unknown) {
      EXPECT_EQ(fast, truth) << "case " << i << ": " << text;
      ++decided;
    }
    refuted += fast == Sat::No;
    ++trials;
  }
  EXPECT_GT(decided, trials * 8 / 10);
  EXPECT_GT(refuted, 50);
}

}  // namespace
}  // namespace dualfuzz::oracle
