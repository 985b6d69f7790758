#include "dualfuzz/harness/jexp.h"

#include <gtest/gtest.h>

#include <limits>
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

TEST(Jexp, FieldsOfAnObject) {
  const Jexp e = Jexp::object({{"path", Jexp::scalar("/a")},
                               {"body", Jexp::scalar(3)},
                               {"headers", Jexp::object({{"x", Jexp::scalar("1")}})},
                               {"method", Jexp::scalar("GET")}});
  ASSERT_NE(e.find("headers"), nullptr);
  EXPECT_EQ(e.find("headers")->kind(), Jexp::Kind::Object);
  EXPECT_EQ(e.find("nope"), nullptr);
  EXPECT_EQ(e.find(""), nullptr);
  EXPECT_EQ(string_field(e, "path"), "/a");
  EXPECT_EQ(string_field(e, "method"), "GET");
  EXPECT_EQ(string_field(e, "body"), "") << "not a string";
  EXPECT_EQ(string_field(e, "headers"), "") << "not a scalar";
  EXPECT_EQ(string_field(e, "zzz"), "");
  EXPECT_EQ(Jexp::scalar("path").find("path"), nullptr) << "not an object";
  EXPECT_EQ(string_field(Jexp::array({e}), "path"), "");
}

TEST(Jexp, WithMemberReplacesOrAdds) {
  const Jexp e =
      Jexp::object({{"method", Jexp::scalar("PUT")}, {"path", Jexp::scalar("/a")}});
  const Jexp replaced = with_member(e, "method", Jexp::scalar("GET"));
  EXPECT_EQ(print_jexp(replaced), R"({"method":"GET","path":"/a"})");
  EXPECT_EQ(print_jexp(e), R"({"method":"PUT","path":"/a"})")
      << "a value: e is unchanged";
  EXPECT_EQ(print_jexp(with_member(e, "body", Jexp::scalar(""))),
            R"({"body":"","method":"PUT","path":"/a"})");
  EXPECT_EQ(print_jexp(with_member(Jexp::scalar(1), "x", Jexp::scalar(2))), R"({"x":2})");
}

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
  LabelledTrace t2;  // [(3,q1); (4,j3); (5,q2); (6,a2)]: a2 is an object, not an array
  t2.add(3, 0, q);
  t2.add(4, 0, Json::parse(R"([{"bar":31},{"baz":32},{"foo":33}])"));
  t2.add(5, 0, q);
  t2.add(6, 0, kA2);
  EXPECT_FALSE(evaluate(e, t2, fns));
  EXPECT_EQ(evaluate_loose(e, t2, fns), 33);
  EXPECT_EQ(evaluate_loose(e, LabelledTrace{}, fns), nullptr);  // documented default
}

TEST(Jexp, LooseLabelsNearestFirstTiesToSmaller) {
  auto fns = FunctionRegistry::with_builtins();
  auto e = *parse_jexp(R"(6.(this@"v").id)", fns);
  LabelledTrace t;
  t.add(3, 0, {{"v", 3}});
  t.add(9, 0, {{"v", 9}});
  t.add(5, 0, {{"w", 5}});  // nearest, but the path does not fit
  t.add(7, 0, {{"v", 7}});
  EXPECT_EQ(evaluate_loose(e, t, fns), 7);  // |7-6| = |5-6|, but 5 does not fit
  LabelledTrace u;
  u.add(8, 0, {{"v", 8}});
  u.add(4, 0, {{"v", 4}});
  EXPECT_EQ(evaluate_loose(e, u, fns), 4) << "a tie goes to the smaller label";
}

TEST(Jexp, StrictFailuresSayWhy) {
  auto fns = FunctionRegistry::with_builtins();
  fns.add("fails", [](const Json&) -> Result<Json> { return make_error("no way"); });
  fns.add("throws", [](const Json& j) -> Result<Json> { return j.at("missing"); });
  LabelledTrace t;
  t.add_request(1, 0, {{"a", {1, 2}}});
  auto why = [&](const char* text) {
    auto r = evaluate(*parse_jexp(text, fns), t, fns);
    return r ? std::string("ok") : r.error();
  };
  EXPECT_NE(why("[3.(this).id]").find("no message labelled 3"), std::string::npos);
  EXPECT_NE(why("1.(this@\"a\"#3).id").find("has 2 elements, not 3"), std::string::npos);
  EXPECT_NE(why("1.(this@\"b\").id").find("has no field \"b\""), std::string::npos);
  EXPECT_NE(why("1.(this#1).id").find("is not an array"), std::string::npos);
  EXPECT_NE(why("1.(this).fails").find("`fails` failed: no way"), std::string::npos);
  EXPECT_NE(why("1.(this).throws").find("`throws` threw"), std::string::npos);
  EXPECT_EQ(why("1.(this@\"a\"#2).id"), "ok");
  // Loosely, a failing function or a registry without the function gives
  // null for that reference only.
  auto mixed = *parse_jexp("[1.(this@\"a\"#2).id, 1.(this).throws]", fns);
  EXPECT_EQ(evaluate_loose(mixed, t, fns), Json::parse("[2,null]"));
  EXPECT_EQ(evaluate_loose(mixed, t, FunctionRegistry::with_builtins()),
            Json::parse("[2,null]"));
  EXPECT_FALSE(evaluate(mixed, t, FunctionRegistry::with_builtins()));
}

TEST(Jexp, ReferencesAnywhereAValueMayAppear) {
  auto fns = FunctionRegistry::with_builtins();
  LabelledTrace t;
  t.add_request(1, 0, {{"k", "v"}});
  for (auto [text, expected] : std::vector<std::pair<const char*, const char*>>{
           {"1.(this@\"k\").id", R"("v")"},
           {"[1.(this@\"k\").id,1.(this).id]", R"(["v",{"k":"v"}])"},
           {"{\"x\":{\"y\":[null,1.(this@\"k\").id]}}", R"({"x":{"y":[null,"v"]}})"},
           {"  1.(this)\t.id", nullptr},  // no spaces inside a reference
       }) {
    auto e = parse_jexp(text, fns);
    if (!expected) {
      EXPECT_FALSE(e) << text;
      continue;
    }
    ASSERT_TRUE(e) << text << ": " << e.error();
    EXPECT_EQ(*evaluate(*e, t, fns), Json::parse(expected)) << text;
    EXPECT_EQ(*parse_jexp(print_jexp(*e), fns), *e);
  }
}

TEST(Jexp, DepthLimitIsExact) {
  auto fns = FunctionRegistry::with_builtins();
  auto nest = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  auto ok = parse_jexp(nest(kMaxJexpDepth + 1), fns);  // innermost [] at depth 64
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(jexp_depth(*ok), kMaxJexpDepth);
  EXPECT_FALSE(parse_jexp(nest(kMaxJexpDepth + 2), fns));
  EXPECT_FALSE(parse_jexp(std::string(200000, '{'), fns));
}

TEST(Jexp, ScalarsBuiltInCodePrintAsTheyParse) {
  auto fns = FunctionRegistry::with_builtins();
  for (const Jexp& e :
       {Jexp::scalar(std::string("bad \xff utf8")),
        Jexp::scalar(std::numeric_limits<double>::infinity()),
        Jexp::scalar(Json::parse("[1]")), Jexp::object({{"\xc3", Jexp::scalar(1)}}),
        Jexp::from_json(Json::parse(R"({"b":[1,2.5],"a":"\u00e9"})"))}) {
    auto back = parse_jexp(print_jexp(e), fns);
    ASSERT_TRUE(back) << print_jexp(e);
    EXPECT_EQ(*back, e) << print_jexp(e);
  }
  EXPECT_EQ(Jexp::scalar(Json::parse("[1]")).value(), nullptr);
}

TEST(Jexp, PositionsReplaceAndMap) {
  auto fns = FunctionRegistry::with_builtins();
  auto e = *parse_jexp(R"({"b":[1,2.(this).id],"a":"x","c":{}})", fns);
  // Sorted keys: a, b, c. Leaves: "x", 1, the reference (not the empty {}).
  auto leaves = leaf_positions(e);
  ASSERT_EQ(leaves, (std::vector<JexpPos>{{0}, {1, 0}, {1, 1}}));
  EXPECT_EQ(*jexp_at(e, {1, 1}), Jexp::ref({2, Jpath(), "id"}));
  EXPECT_EQ(jexp_at(e, {1, 2}), std::nullopt);
  EXPECT_EQ(jexp_at(e, {0, 0}), std::nullopt);

  // A literal becomes a reference...
  auto r = replace_at(e, {1, 0}, Jexp::ref({4, *parse_jpath("this@\"etag\""), "id"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(print_jexp(*r), R"({"a":"x","b":[4.(this@"etag").id,2.(this).id],"c":{}})");
  EXPECT_EQ(print_jexp(e), R"({"a":"x","b":[1,2.(this).id],"c":{}})") << "e unchanged";
  // ...and back.
  EXPECT_EQ(*replace_at(*r, {1, 0}, Jexp::scalar(1)), e);
  EXPECT_EQ(*replace_at(e, {}, Jexp::scalar(7)), Jexp::scalar(7));
  EXPECT_EQ(replace_at(e, {3}, Jexp::scalar(7)), std::nullopt);

  Jexp relabelled = map_references(*r, [](const Jexp::Ref& ref) {
    Jexp::Ref out = ref;
    out.label += 10;
    return Jexp::ref(out);
  });
  EXPECT_EQ(print_jexp(relabelled),
            R"({"a":"x","b":[14.(this@"etag").id,12.(this).id],"c":{}})");
  Jexp inlined = map_references(e, [](const Jexp::Ref&) { return Jexp::scalar("v"); });
  EXPECT_TRUE(references(inlined).empty());
  EXPECT_EQ(print_jexp(inlined), R"({"a":"x","b":[1,"v"],"c":{}})");
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
