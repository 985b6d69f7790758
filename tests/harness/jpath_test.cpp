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

TEST(Jpath, MalformedIsAPositionedError) {
  for (const char* bad : {"", "that", "this@", "this@foo", "this#", "this#0", "this#x",
                          "this@\"unterminated", "this@\"a\"junk"}) {
    auto p = parse_jpath(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error().rfind("column ", 0), 0u) << p.error();
  }
}

}  // namespace
}  // namespace dualfuzz::harness
