#include "dualfuzz/harness/script.h"

#include <gtest/gtest.h>

#include <random>

#include "dualfuzz/harness/script_gen.h"

namespace dualfuzz::harness {
namespace {

const FunctionRegistry kFns = FunctionRegistry::with_builtins();

TEST(Script, ParsesEveryStepKind) {
  auto s = parse_script(
      "# create, then read back\n"
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
      "\n"
      "wait 1\r\n"
      "  req 3 on "
      "c1:{\"method\":\"GET\",\"headers\":{\"if-none-match\":2.(this@\"etag\").id}}\n"
      "close c0",
      kFns);
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ(s->steps.size(), 5u);
  EXPECT_EQ(std::get<CommentStep>(s->steps[0]).text, " create, then read back");
  EXPECT_EQ(std::get<RequestStep>(s->steps[1]).conn, 0u);
  EXPECT_EQ(std::get<WaitStep>(s->steps[2]).label, 1u);
  EXPECT_EQ(std::get<RequestStep>(s->steps[3]).label, 3u);
  EXPECT_EQ(std::get<CloseStep>(s->steps[4]).conn, 0u);
  EXPECT_EQ(print_script(*s),
            "# create, then read back\n"
            "req 1 on c0: {\"body\":\"x\",\"method\":\"PUT\",\"path\":\"/a\"}\n"
            "wait 1\n"
            "req 3 on c1: "
            "{\"headers\":{\"if-none-match\":2.(this@\"etag\").id},\"method\":\"GET\"}\n"
            "close c0\n");
  EXPECT_EQ(next_label(*s), 5u);
}

TEST(Script, ErrorsNameLineAndColumn) {
  struct Case {
    const char* text;
    const char* where;
    const char* what;
  };
  for (const Case& c : {
           Case{"req 2 on c0: {}", "line 1, column 1", "odd"},
           Case{"req 1 on c0: {}\nreq 1 on c1: {}", "line 2", "used twice"},
           Case{"wait 3", "line 1", "no earlier request"},
           Case{"req 1 on c99: {}", "line 1, column 11", "0..63"},
           Case{"req 1 on c0: {\"a\": }", "line 1, column 20", "unexpected character"},
           Case{"send 1", "line 1, column 1", "expected `req`"},
           Case{"close c1 now", "line 1, column 10", "unexpected text"},
           Case{"req 1 on c0: 3.(this).nope", "line 1", "unknown function `nope`"},
       }) {
    auto s = parse_script(c.text, kFns);
    ASSERT_FALSE(s) << c.text;
    EXPECT_NE(s.error().find(c.where), std::string::npos)
        << c.text << " -> " << s.error();
    EXPECT_NE(s.error().find(c.what), std::string::npos) << c.text << " -> " << s.error();
  }
  EXPECT_FALSE(parse_script(std::string("req 1 on c0: \"a\0b\"", 19), kFns));
}

TEST(Script, RoundTripOverGeneratedScripts) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 2000; ++i) {
    Script s = random_script(rng, kFns, 12);
    ASSERT_EQ(validate(s), std::nullopt);
    std::string text = print_script(s);
    auto back = parse_script(text, kFns);
    ASSERT_TRUE(back) << text << "\n" << back.error();
    ASSERT_EQ(*back, s) << text;
    ASSERT_EQ(print_script(*back), text);
  }
}

TEST(Script, LimitsAreErrorsNotCrashes) {
  std::string many;
  for (int i = 0; i < 1100; ++i) many += "close c0\n";
  auto s = parse_script(many, kFns);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("1024"), std::string::npos);
  std::string deep = "req 1 on c0: " + std::string(5000, '[') + std::string(5000, ']');
  EXPECT_FALSE(parse_script(deep, kFns));
}

}  // namespace
}  // namespace dualfuzz::harness
