#include "dualfuzz/unison/codec.h"

#include <gtest/gtest.h>

namespace dualfuzz::unison {
namespace {

TEST(JsonLineParser, SplitsLinesAcrossFeeds) {
  JsonLineParser p;
  p.feed("{\"ok\":tr");
  EXPECT_FALSE(p.next());
  p.feed("ue}\n{\"exit\":1}\n");
  auto a = p.next(), b = p.next();
  ASSERT_TRUE(a && b);
  EXPECT_EQ((*a)["ok"], true);
  EXPECT_EQ((*b)["exit"], 1);
  EXPECT_FALSE(p.next());
  EXPECT_FALSE(p.failed());
}

TEST(JsonLineParser, GarbageOrATruncatedLineFailsTheStream) {
  JsonLineParser p;
  p.feed("not json\n");
  EXPECT_TRUE(p.failed());
  JsonLineParser q;
  q.feed("[1,2]\n");  // JSON, but not an answer object
  EXPECT_TRUE(q.failed());
  JsonLineParser r;
  r.feed("{\"ok\":");
  r.on_eof();
  EXPECT_TRUE(r.failed());
}

TEST(JsonLineParser, PrintedAnswersParseBack) {
  const harness::Json a = {
      {"exit", 2}, {"A", {{"a", {{"type", "file"}}}}}, {"log", "x\ny"}};
  JsonLineParser p;
  p.feed(print_response(a));
  auto back = p.next();
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, a);
}

}  // namespace
}  // namespace dualfuzz::unison
