#include "dualfuzz/harness/jpath.h"

#include <gtest/gtest.h>

namespace dualfuzz::harness {
namespace {

// Thesis Fig. 5.8.
const Json kA2 =
    Json::parse(R"({"files":[{"name":"foo","mode":755},{"name":"bar","mode":500}],
                                 "exitCode":0})");

TEST(Jpath, ParsePrintRoundTrip) {
  auto p = parse_jpath("this@\"files\"#2@\"mode\"");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->print(), "this@\"files\"#2@\"mode\"");
  EXPECT_EQ(p->steps().size(), 3u);
  EXPECT_EQ(*parse_jpath(p->print()), *p);
  EXPECT_EQ(parse_jpath("this")->steps().size(), 0u);
}

TEST(Jpath, StrictApplyThesisExample) {
  EXPECT_EQ(*parse_jpath("this@\"files\"#2@\"mode\"")->apply(kA2), 500);
  auto miss = parse_jpath("this@\"files\"#3@\"mode\"")->apply(kA2);
  ASSERT_FALSE(miss);
  EXPECT_NE(miss.error().find("has 2 elements, not 3"), std::string::npos)
      << miss.error();
}

TEST(Jpath, LooseApplyThesisJ2J3) {
  // Thesis §5.3.2: this#3@"bar" gives 22 on j2 and 31 on j3.
  Json j2 = Json::parse(R"([{"foo":21},{"bar":22}])");
  Json j3 = Json::parse(R"([{"bar":31},{"baz":32},{"foo":33}])");
  auto p = *parse_jpath("this#3@\"bar\"");
  EXPECT_FALSE(p.apply(j2));
  EXPECT_EQ(p.apply_loose(j2), Json(22));
  EXPECT_EQ(p.apply_loose(j3), Json(31));
  EXPECT_EQ(p.apply_loose(Json::parse(R"([{"x":1}])")), std::nullopt);
}

TEST(Jpath, LooseFallbackIsDeterministicAndKeepsFittingIndices) {
  Json v = Json::parse(R"({"a":[[{"x":1}],[{"y":2},{"x":3}],[{"x":4}]]})");
  auto p = *parse_jpath("this@\"a\"#2#1@\"x\"");
  EXPECT_FALSE(p.apply(v));
  // #2#1 does not fit; within element 2, #1 falls back to its element 2.
  EXPECT_EQ(p.apply_loose(v), Json(3));
  EXPECT_EQ(parse_jpath("this@\"a\"#3#1@\"x\"")->apply_loose(v), Json(4));
  EXPECT_EQ(parse_jpath("this@\"a\"#9#9@\"y\"")->apply_loose(v), Json(2));
  // Fields are never loosened: only array indices are.
  EXPECT_EQ(parse_jpath("this@\"b\"")->apply_loose(v), std::nullopt);
  EXPECT_EQ(parse_jpath("this")->apply_loose(v), v);
}

TEST(Jpath, StrictReasons) {
  Json v = Json::parse(R"({"a":[1,2],"s":"str"})");
  auto reason = [&](const char* path) { return parse_jpath(path)->apply(v).error(); };
  EXPECT_EQ(reason("this@\"s\"@\"x\""), "this@\"s\" is not an object");
  EXPECT_EQ(reason("this@\"s\"#1"), "this@\"s\" is not an array");
  EXPECT_EQ(reason("this@\"b\""), "this has no field \"b\"");
  EXPECT_EQ(reason("this@\"a\"#3"), "this@\"a\" has 2 elements, not 3");
}

TEST(Jpath, EscapedFieldNamesRoundTrip) {
  Jpath p({Jpath::Field{"with \"quote\" and \\ and\nnewline"}, Jpath::Index{12}});
  auto back = parse_jpath(p.print());
  ASSERT_TRUE(back) << p.print() << ": " << back.error();
  EXPECT_EQ(*back, p);
  std::size_t used = 0;
  auto prefix = parse_jpath("this#1).id", &used);
  ASSERT_TRUE(prefix);
  EXPECT_EQ(used, 6u);
}

TEST(Jpath, MalformedIsAPositionedError) {
  for (const char* bad : {"", "that", "this@", "this@foo", "this#", "this#0", "this#x",
                          "this@\"unterminated", "this@\"a\"junk"}) {
    auto p = parse_jpath(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error().rfind("column ", 0), 0u) << p.error();
  }
  EXPECT_EQ(parse_jpath("this#0").error(),
            "column 6: indices are 1-based decimals without leading zeros");
  EXPECT_EQ(parse_jpath("this@\"a\"x").error(),
            "column 9: unexpected text after the Jpath");
  std::string longest = "this";
  for (int i = 0; i < 64; ++i) longest += "#1";
  EXPECT_TRUE(parse_jpath(longest));
  EXPECT_FALSE(parse_jpath(longest + "#1"));
}

}  // namespace
}  // namespace dualfuzz::harness
