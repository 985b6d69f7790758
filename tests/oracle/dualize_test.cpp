#include "dualfuzz/oracle/dualize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

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
  EXPECT_EQ(status.mismatch->text, "response.status: expected 200 or 204, observed 412");
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
  EXPECT_EQ(g.mismatch->expected, "status 412; or body \"x\"");
  EXPECT_EQ(g.mismatch->text,
            "response.status: expected 412, observed 200; or response.body: expected "
            "\"x\", observed \"y\"");
  // ... and each place apart, for readers that tell them apart (a proxy's
  // 502 in place of its relay is a latitude, the relay's body what broke).
  using Place = Reason::Place;
  EXPECT_EQ(g.mismatch->places,
            (std::vector<Place>{{"response.status", "412", "200"},
                                {"response.body", "\"x\"", "\"y\""}}));
  // Whole-response alternatives that go wrong at one place: that place.
  Guard one = guard(either, {{"status", 404}, {"body", "x"}});
  EXPECT_EQ(one.mismatch->location, "response.status");
  EXPECT_EQ(one.mismatch->expected, "200 or 412");
  EXPECT_EQ(one.mismatch->observed, "404");
  EXPECT_TRUE(one.mismatch->places.empty());
  // A match explains nothing.
  EXPECT_FALSE(guard(p, {{"status", 204}, {"headers", {{"etag", "v1"}}}}).mismatch);
  // Nor does a guard that is not asked to.
  EXPECT_FALSE(guard(p, {{"status", 412}}, /*explain=*/false).mismatch);
}

// A protocol's test (ValueTest) beside a pattern: both must hold; the
// pattern's variables bind as without it; the reason names the test.
struct Prefix final : ValueTest {
  bool accepts(const Json& arg, const Json& v) const override {
    return v.is_object() && v.contains("body") && v["body"].is_string() &&
           arg.get<std::string>().starts_with(v["body"].get<std::string>());
  }
  const char* name() const override { return "a prefix of"; }
};

TEST(Dualize, AProtocolsTestAndItsPattern) {
  static const Prefix kPrefix;
  const Sym v = Sym::var(0, Sort::Int);
  const Sym p = Sym::test(kPrefix, Sym::lit("abcdef"), Sym::object({{"status", v}}));
  EXPECT_TRUE(guard(p, {{"status", 206}, {"body", "abc"}}).ok());
  Guard no = guard(p, {{"status", 206}, {"body", "abd"}});
  ASSERT_FALSE(no.ok());
  EXPECT_NE(no.mismatch->text.find("a prefix of \"abcdef\""), std::string::npos)
      << no.mismatch->text;
  EXPECT_FALSE(guard(p, {{"body", "abc"}}).ok());  // the pattern fails
  // Ground: the fast path decides it; with a variable inside, substitution
  // keeps the test.
  const Sym ground =
      Sym::test(kPrefix, Sym::lit("abcdef"), Sym::object({{"status", Sym::lit(206)}}));
  EXPECT_EQ(match_ground(ground, {{"status", 206}, {"body", "ab"}}), GroundMatch::Yes);
  EXPECT_EQ(match_ground(ground, {{"status", 206}, {"body", "b"}}), GroundMatch::No);
  EXPECT_EQ(match_ground(ground, {{"status", 200}, {"body", "ab"}}), GroundMatch::No);
  EXPECT_FALSE(p.ground());
  const Sym bound = substitute(p, [](const Sym&) { return Sym::lit(206); });
  EXPECT_EQ(bound, ground);
  EXPECT_NE(bound, Sym::test(kPrefix, Sym::lit("abcdeX"),
                             Sym::object({{"status", Sym::lit(206)}})));
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
  EXPECT_EQ(guard(p, 201).mismatch->text, "response: expected 200 or 204, observed 201");
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

namespace dualfuzz::oracle {
namespace {

Sym statuses(int from, int to, std::initializer_list<int> except = {}) {
  std::vector<Sym> alts;
  for (int c = from; c <= to; ++c)
    if (std::find(except.begin(), except.end(), c) == except.end())
      alts.push_back(Sym::lit(c));
  return Sym::alt(std::move(alts));
}

// The integers a collapsed `expected` field lists ("200-299 or 304"): what a
// machine reads back from it.
std::set<long long> read_integers(const std::string& expected) {
  std::set<long long> out;
  std::size_t at = 0;
  for (;;) {
    std::size_t end = expected.find(" or ", at);
    std::string item = expected.substr(at, end == std::string::npos ? end : end - at);
    std::size_t dash = item.find('-', 1);
    if (dash == std::string::npos) {
      out.insert(std::stoll(item));
    } else {
      for (long long i = std::stoll(item.substr(0, dash)); i <= std::stoll(item.substr(dash + 1));
           ++i)
        out.insert(i);
    }
    if (end == std::string::npos) return out;
    at = end + 4;
  }
}

// Issue 40: a status that may be any of 500 codes is one short expectation,
// not 500 clauses; the fields say the same as the sentence, all of it.
TEST(DualizeReasons, FiveHundredIntegerAlternativesCollapseToAShortText) {
  Sym all = Sym::object({{"status", statuses(100, 599)}});
  Guard g = guard(all, {{"status", 600}});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.mismatch->text, "response.status: expected one of 100-599, observed 600");
  EXPECT_EQ(g.mismatch->location, "response.status");
  EXPECT_EQ(g.mismatch->expected, "100-599");
  EXPECT_EQ(g.mismatch->observed, "600");

  // All but one: the complement is the shorter phrasing.
  Guard but = guard(Sym::object({{"status", statuses(100, 599, {405})}}), {{"status", 405}});
  EXPECT_EQ(but.mismatch->text, "response.status: expected any of 100-599 except 405, observed 405");
  EXPECT_EQ(but.mismatch->expected, "100-404 or 406-599");
  // All but a block: the ranges are.
  std::vector<Sym> no4xx;
  for (int c = 100; c <= 599; ++c)
    if (c < 400 || c > 499) no4xx.push_back(Sym::lit(c));
  Guard block = guard(Sym::alt(no4xx), 404);
  EXPECT_EQ(block.mismatch->text, "response: expected one of 100-399 or 500-599, observed 404");
  // All but a few scattered codes.
  Guard few = guard(statuses(100, 599, {400, 403, 404, 405, 409, 414}), 403);
  EXPECT_EQ(few.mismatch->text,
            "response: expected any of 100-599 except 400, 403-405, 409 and 414, observed 403");
  EXPECT_EQ(read_integers(few.mismatch->expected).size(), 494u);
  // A success or 304.
  std::vector<Sym> ok;
  for (int c = 200; c <= 299; ++c) ok.push_back(Sym::lit(c));
  ok.push_back(Sym::lit(304));
  EXPECT_EQ(guard(Sym::alt(ok), 412).mismatch->text,
            "response: expected one of 200-299 or 304, observed 412");
  // 500 codes with nothing to collapse: a handful, and a count of the rest.
  std::vector<Sym> even;
  for (int c = 0; c < 500; ++c) even.push_back(Sym::lit(100 + 2 * c));
  Guard spread = guard(Sym::alt(even), 101);
  EXPECT_EQ(spread.mismatch->text,
            "response: expected one of 100, 102, 104, 106, 108, 110 ... and 494 more, "
            "observed 101");
  // Every such text is short; every expected field lists the whole set.
  for (const Guard* x : {&g, &but, &block, &few, &spread})
    EXPECT_LT(x->mismatch->text.size(), 100u) << x->mismatch->text;
  EXPECT_EQ(read_integers(g.mismatch->expected).size(), 500u);
  EXPECT_EQ(read_integers(but.mismatch->expected).size(), 499u);
  EXPECT_EQ(read_integers(block.mismatch->expected).size(), 400u);
  EXPECT_EQ(read_integers(spread.mismatch->expected).size(), 500u);
  // Negative bounds read as bounds, not signs.
  EXPECT_EQ(guard(Sym::alt({Sym::lit(-3), Sym::lit(-2), Sym::lit(-1), Sym::lit(7)}), 0)
                .mismatch->expected,
            "-3..-1 or 7");
}

TEST(DualizeReasons, StringsAreAListAndAHandfulOfTextsAreShown) {
  Guard abc = guard(Sym::alt({Sym::lit("a"), Sym::lit("b"), Sym::lit("c"), Sym::lit("a")}), "d");
  EXPECT_EQ(abc.mismatch->text, "response: expected one of \"a\", \"b\" or \"c\", observed \"d\"");
  EXPECT_EQ(abc.mismatch->expected, "\"a\" or \"b\" or \"c\"");
  std::vector<Sym> words;
  for (const char* w : {"one", "two", "three", "four", "five", "six", "seven", "eight"})
    words.push_back(Sym::lit(w));
  Guard many = guard(Sym::object({{"body", Sym::alt(words)}}), {{"body", "nine"}});
  EXPECT_EQ(many.mismatch->text,
            "response.body: expected one of \"one\", \"two\", \"three\", \"four\", \"five\", "
            "\"six\" ... and 2 more, observed \"nine\"");
  EXPECT_EQ(many.mismatch->expected.find("\"eight\""), many.mismatch->expected.size() - 7);
  // A missing field whose value was to be one of several constants.
  Guard missing = guard(Sym::object({{"status", statuses(200, 299)}}), Json::object());
  EXPECT_EQ(missing.mismatch->text, "response.status: expected one of 200-299, but it is missing");
  EXPECT_EQ(missing.mismatch->observed, "missing");
}

// One clause per place where alternatives went wrong, each collapsed: the
// 405 alternative of an HTTP-like model needs an Allow field, the others
// another status.
TEST(DualizeReasons, AlternativesThatFailAtDifferentPlacesKeepOneClauseEach) {
  Sym allowed = Sym::object(
      {{"status", Sym::lit(405)}, {"allow", Sym::object({{"present", Sym::lit(true)}})}});
  Sym p = Sym::alt({Sym::object({{"status", Sym::alt({Sym::lit(200), Sym::lit(204)})}}),
                    Sym::object({{"status", Sym::lit(501)}}),
                    Sym::object({{"status", Sym::lit(404)}}), allowed});
  Guard no_allow = guard(p, {{"status", 405}});
  ASSERT_FALSE(no_allow.ok());
  EXPECT_EQ(no_allow.mismatch->text,
            "response.status: expected one of 200, 204, 404 or 501, observed 405; or "
            "response.allow: expected {\"present\":true,...}, but it is missing");
  EXPECT_EQ(no_allow.mismatch->location, "response");
  EXPECT_EQ(no_allow.mismatch->expected,
            "status 200 or 204 or 404 or 501; or allow {\"present\":true,...}");
  EXPECT_EQ(no_allow.mismatch->observed, "{\"status\":405}");
  // Every alternative wrong at the status: one clause, there.
  Guard other = guard(p, {{"status", 302}});
  EXPECT_EQ(other.mismatch->text,
            "response.status: expected one of 200, 204, 404, 405 or 501, observed 302");
  EXPECT_EQ(other.mismatch->location, "response.status");
  EXPECT_EQ(other.mismatch->expected, "200 or 204 or 404 or 405 or 501");
  // A variable's expectation is text beside the constants'.
  Sym v = Sym::alt({Sym::object({{"n", Sym::lit(1)}}),
                    Sym::object({{"n", Sym::lit(2)}, {"m", Sym::lit("x")}})});
  Guard deep = guard(v, {{"n", 2}, {"m", "y"}});
  EXPECT_EQ(deep.mismatch->text,
            "response.n: expected 1, observed 2; or response.m: expected \"x\", observed "
            "\"y\"");
}

// Only the words changed: a random pattern matches a random value the same
// whether the guard explains or not, with or without a store, and as the
// constants-only test says.
TEST(DualizeReasons, ExplainingNeverChangesAVerdict) {
  std::mt19937 rng(40);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto value = [&](auto& self, int depth) -> Json {
    switch (pick(depth > 0 ? 5 : 3)) {
      case 0:
        return pick(6);
      case 1:
        return std::string(1, static_cast<char>('a' + pick(3)));
      case 2:
        return Json(nullptr);
      case 3: {
        Json o = Json::object();
        for (const char* k : {"s", "t"})
          if (pick(3)) o[k] = self(self, depth - 1);
        return o;
      }
      default:
        return Json::array({self(self, depth - 1)});
    }
  };
  auto pattern = [&](auto& self, int depth) -> Sym {
    switch (pick(depth > 0 ? 7 : 4)) {
      case 0:
        return Sym::lit(value(value, 0));
      case 1:
        return Sym::var(static_cast<VarId>(pick(2)), Sort::Json);
      case 2:
        return Sym::absent();
      case 3:
        return Sym::lit(pick(6));
      case 4: {
        std::vector<std::pair<std::string, Sym>> f;
        for (const char* k : {"s", "t"})
          if (pick(3)) f.emplace_back(k, self(self, depth - 1));
        return Sym::object(std::move(f));
      }
      case 5:
        return Sym::array({self(self, depth - 1)});
      default: {
        std::vector<Sym> alts;
        for (int i = 0, n = 2 + pick(6); i < n; ++i) alts.push_back(self(self, depth - 1));
        return Sym::alt(std::move(alts));
      }
    }
  };
  ConstraintStore none;
  int failed = 0;
  for (int i = 0; i < 20'000; ++i) {
    Sym p = pattern(pattern, 3);
    Json v = value(value, 3);
    Guard plain = guard(p, v, false), told = guard(p, v, true);
    ASSERT_EQ(plain.ok(), told.ok()) << p.to_string() << " vs " << v.dump();
    EXPECT_TRUE(plain.constraint == told.constraint) << p.to_string() << " vs " << v.dump();
    ASSERT_EQ(told.mismatch.has_value(), !told.ok());
    EXPECT_EQ(guard(p, v, &none, false).ok(), told.ok());
    EXPECT_EQ(guard(p, v, &none, true).ok(), told.ok());
    GroundMatch m = match_ground(p, v);
    if (m != GroundMatch::Unknown) {
      EXPECT_EQ(m == GroundMatch::Yes, told.ok());
    }
    if (!told.ok()) {
      ++failed;
      EXPECT_FALSE(told.mismatch->text.empty());
      EXPECT_EQ(told.mismatch->location.rfind("response", 0), 0u);
    }
  }
  EXPECT_GT(failed, 1000);
}

}  // namespace
}  // namespace dualfuzz::oracle
