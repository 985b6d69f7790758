#include "dualfuzz/harness/jexp.h"

#include <gtest/gtest.h>

#include <random>

#include "dualfuzz/harness/script_gen.h"

namespace dualfuzz::harness {
namespace {

// mode_add_write of thesis Fig. 5.8: OR the write bits (200, in octal digits).
FunctionRegistry thesis_fns() {
  auto fns = FunctionRegistry::with_builtins();
  fns.add("mode_add_write", [](const Json& j) -> Result<Json> {
    if (!j.is_number_integer()) return j;
    int n = j.get<int>(), out = 0, scale = 1;
    for (int w : {0, 0, 2}) {  // digits of 200, least significant first
      out += ((n % 10) | w) * scale;
      n /= 10;
      scale *= 10;
    }
    return Json(out + n * scale);
  });
  return fns;
}

const Json kA2 =
    Json::parse(R"({"files":[{"name":"foo","mode":755},{"name":"bar","mode":500}],
                                 "exitCode":0})");

TEST(Jexp, ThesisE5) {
  auto fns = thesis_fns();
  auto e = parse_jexp(R"({"command": "chmod",
      "args": [4.(this@"files"#2@"mode").mode_add_write, 4.(this@"files"#2@"name").id]})",
                      fns);
  ASSERT_TRUE(e) << e.error();
  LabelledTrace t;  // Fig. 5.7: [(1,q1); (3,q2); (4,a2); (2,a1)]
  t.add(1, 0, {{"command", "ls"}});
  t.add(3, 0, {{"command", "ls"}, {"args", {"/"}}});
  t.add(4, 0, kA2);
  t.add(2, 0, {{"exitCode", 0}});
  Json expected = Json::parse(R"({"command":"chmod","args":[700,"bar"]})");
  EXPECT_EQ(*evaluate(*e, t, fns), expected);
  EXPECT_EQ(evaluate_loose(*e, t, fns), expected);
}

TEST(Jexp, ThesisT1T2LooseLabels) {
  auto fns = FunctionRegistry::with_builtins();
  auto e = *parse_jexp(R"(6.(this#2@"foo").id)", fns);
  Json q = {{"op", "q"}};
  LabelledTrace t1;  // label 6 is missing
  t1.add(1, 0, q);
  t1.add(2, 0, Json::parse(R"([{"foo":21},{"bar":22}])"));
  t1.add(5, 0, q);
  EXPECT_FALSE(evaluate(e, t1, fns));
  EXPECT_EQ(evaluate_loose(e, t1, fns), 21);
  LabelledTrace t2;  // label 6 is an object, not an array
  t2.add(3, 0, q);
  t2.add(4, 0, Json::parse(R"([{"bar":31},{"baz":32},{"foo":33}])"));
  t2.add(5, 0, q);
  t2.add(6, 0, {{"foo", 1}});
  EXPECT_EQ(evaluate_loose(e, t2, fns), 33);
  EXPECT_EQ(evaluate_loose(e, LabelledTrace{}, fns), nullptr);  // documented default
}

TEST(Jexp, CanonicalPrinting) {
  auto fns = FunctionRegistry::with_builtins();
  auto e = parse_jexp(R"( { "b" : [1, 2.5, "x"], "a" : 2.(this@"h"#1).id , "c": null } )",
                      fns);
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(print_jexp(*e), R"({"a":2.(this@"h"#1).id,"b":[1,2.5,"x"],"c":null})");
  EXPECT_EQ(references(*e).size(), 1u);
  EXPECT_EQ(references(*e)[0].label, 2u);
}

TEST(Jexp, ErrorsAreValuesWithColumns) {
  auto fns = FunctionRegistry::with_builtins();
  auto unknown = parse_jexp(R"({"a": 2.(this).rm_rf})", fns);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("unknown function `rm_rf`"), std::string::npos);
  for (const char* bad :
       {"", "{", "[1,", "{\"a\" 1}", "{\"a\":1,\"a\":2}", "01.(this).id", "2.(that).id",
        "2.(this)", "\"\\x\"", "tru", "1 2", "\"\xff\""}) {
    auto r = parse_jexp(bad, fns);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().rfind("column ", 0), 0u) << r.error();
    }
  }
  std::string deep(100, '[');
  deep += std::string(100, ']');
  auto d = parse_jexp(deep, fns);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().find("nesting"), std::string::npos);
}

TEST(Jexp, RoundTripOverGeneratedExpressions) {
  auto fns = FunctionRegistry::with_builtins();
  std::mt19937_64 rng(1);
  for (int i = 0; i < 3000; ++i) {
    Jexp e = random_jexp(rng, fns, 9, 4);
    std::string text = print_jexp(e);
    auto back = parse_jexp(text, fns);
    ASSERT_TRUE(back) << text << ": " << back.error();
    ASSERT_EQ(*back, e) << text;
    ASSERT_EQ(print_jexp(*back), text);
  }
}

TEST(Jexp, FromJsonHasNoReferences) {
  Json v = Json::parse(R"({"method":"PUT","headers":{"x":"1"},"body":[1,{"a":null}]})");
  Jexp e = Jexp::from_json(v);
  EXPECT_TRUE(references(e).empty());
  EXPECT_EQ(*evaluate(e, LabelledTrace{}, FunctionRegistry::with_builtins()), v);
}

}  // namespace
}  // namespace dualfuzz::harness
