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
           Case{"req 1 on c0: {}\nwait 3\nreq 3 on c0: {}", "line 2",
                "no earlier request"},
           Case{"req 1 on c0: {}\n\n# ok\nreq 3 on c0 {}", "line 4, column 13", "`:`"},
           Case{"req 1000000001 on c0: {}", "line 1, column 15", "request label"},
           Case{"req 1 on c0: [1,\n2]", "line 1, column 17", "expected a value"},
           Case{"close 0", "line 1, column 7", "connection `c<N>`"},
           Case{"wait", "line 1, column 1", "expected `req`"},
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
  std::size_t requests = 0, references = 0;
  for (int i = 0; i < 2000; ++i) {
    Script s = random_script(rng, kFns, 12);
    ASSERT_EQ(validate(s, kFns), std::nullopt);
    for (const Step& st : s.steps)
      if (const auto* r = std::get_if<RequestStep>(&st)) {
        ++requests;
        references += harness::references(r->body).size();
      }
    std::string text = print_script(s);
    auto back = parse_script(text, kFns);
    ASSERT_TRUE(back) << text << "\n" << back.error();
    ASSERT_EQ(*back, s) << text;
    ASSERT_EQ(print_script(*back), text);
  }
  // The generator really exercises the interesting parts.
  EXPECT_GT(requests, 5000u);
  EXPECT_GT(references, 500u);
}

TEST(Script, CanonicalFormIsAFixedPoint) {
  // Blank lines, CRLF, indentation and spacing go; comments stay verbatim.
  const char* messy =
      "\r\n   #  spaced comment  \r\n"
      "req   001 on c07 :[ 1 , {\"b\":1,\"a\":1e2} ]\r\n"
      "\t wait 1   \n"
      "close   c7";
  auto s = parse_script(messy, kFns);
  ASSERT_TRUE(s) << s.error();
  std::string canonical = print_script(*s);
  EXPECT_EQ(canonical,
            "#  spaced comment  \n"
            "req 1 on c7: [1,{\"a\":100.0,\"b\":1}]\n"
            "wait 1\n"
            "close c7\n");
  EXPECT_EQ(print_script(*parse_script(canonical, kFns)), canonical);
  EXPECT_EQ(print_step(s->steps[2]), "wait 1");
  EXPECT_EQ(print_script(Script{}), "");
  EXPECT_TRUE(parse_script("", kFns));
  EXPECT_TRUE(parse_script("\n\n", kFns)->steps.empty());
}

TEST(Script, ValidateChecksScriptsBuiltInCode) {
  auto req = [](Label l, Jexp body) { return Step{RequestStep{l, 0, std::move(body)}}; };
  EXPECT_EQ(validate(Script{{req(1, Jexp::scalar(1)), WaitStep{1}}}), std::nullopt);
  struct Case {
    Script s;
    const char* what;
  };
  Jexp deep = Jexp::scalar(1);
  for (int i = 0; i < 70; ++i) deep = Jexp::array({deep});
  for (const Case& c : {
           Case{Script{{req(2, Jexp())}}, "step 1: request labels are odd"},
           Case{Script{{WaitStep{1}, req(1, Jexp())}}, "step 1: wait 1"},
           Case{Script{{req(1, Jexp()), req(1, Jexp())}}, "step 2: label 1 used twice"},
           Case{Script{{CloseStep{64}}}, "c0..c63"},
           Case{Script{{CommentStep{"two\nlines"}}}, "one line"},
           Case{Script{{req(1, deep)}}, "nesting"},
           Case{Script{{req(1, Jexp::ref({0, Jpath(), "id"}))}}, "reference label 0"},
           Case{Script{{req(1, Jexp::ref({1, Jpath({Jpath::Index{0}}), "id"}))}},
                "does not print back"},
           Case{Script{{req(1, Jexp::ref({1, Jpath(), "no such"}))}},
                "bad function name"},
       }) {
    auto e = validate(c.s);
    ASSERT_TRUE(e.has_value()) << c.what;
    EXPECT_NE(e->find(c.what), std::string::npos) << *e;
  }
  Script unknown{{req(1, Jexp::ref({1, Jpath(), "weak"}))}};
  EXPECT_EQ(validate(unknown), std::nullopt);
  EXPECT_NE(validate(unknown, kFns)->find("unknown function `weak`"), std::string::npos);
}

TEST(Script, LabelsAreStableAndNextLabelIsFresh) {
  auto s = *parse_script("req 7 on c0: 1\nreq 3 on c1: 2\n# 99\n", kFns);
  EXPECT_EQ(next_label(s), 9u);
  EXPECT_EQ(next_label(Script{}), 1u);
  s.steps.erase(s.steps.begin());
  EXPECT_EQ(next_label(s), 5u);
  EXPECT_EQ(std::get<RequestStep>(s.steps[0]).label, 3u) << "no renumbering";
}

TEST(Script, LimitsAreErrorsNotCrashes) {
  // 1024 steps are fine, the 1025th is not.
  std::string max;
  for (std::size_t i = 0; i < kMaxSteps; ++i) max += "close c0\n";
  EXPECT_TRUE(parse_script(max, kFns));
  // A line that only grows past the limit when printed canonically.
  std::string grows = "req 1 on c0: [";
  while (grows.size() < kMaxLine - 10) grows += "1e9,";
  grows += "1]";
  auto g = parse_script(grows, kFns);
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().find("once printed"), std::string::npos) << g.error();
  EXPECT_FALSE(parse_script(std::string(kMaxLine + 1, '#'), kFns));

  std::string many;
  for (int i = 0; i < 1100; ++i) many += "close c0\n";
  auto s = parse_script(many, kFns);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("1024"), std::string::npos);
  std::string deep = "req 1 on c0: " + std::string(5000, '[') + std::string(5000, ']');
  EXPECT_FALSE(parse_script(deep, kFns));
}

// The origin side's step (docs/proxy.md): parsed, printed back, and its
// label shares the request label space.
TEST(Script, AnswerStepRoundTripsAndSharesLabels) {
  const std::string text =
      "req 1 on c0: {\"path\":\"/a\"}\n"
      "answer 3: {\"body\":3.(this@\"path\").id,\"status\":200}\n"
      "wait 1\n";
  auto s = parse_script(text, kFns);
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ(s->steps.size(), 3u);
  EXPECT_EQ(std::get<AnswerStep>(s->steps[1]).label, 3u);
  EXPECT_EQ(print_script(*s), text);
  EXPECT_EQ(next_label(*s), 5u);
  EXPECT_FALSE(validate(*s, kFns));
  auto twice = parse_script("req 1 on c0: {}\nanswer 1: {}\n", kFns);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().find("label 1 used twice"), std::string::npos);
  auto even = parse_script("answer 2: {}\n", kFns);
  ASSERT_FALSE(even);
  EXPECT_NE(even.error().find("odd"), std::string::npos);
  // `wait` names requests only.
  EXPECT_FALSE(parse_script("answer 1: {}\nwait 1\n", kFns));
}

}  // namespace
}  // namespace dualfuzz::harness
