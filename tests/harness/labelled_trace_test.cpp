#include "dualfuzz/harness/labelled_trace.h"

#include <gtest/gtest.h>

#include "dualfuzz/harness/jexp.h"
#include "dualfuzz/harness/script.h"

namespace dualfuzz::harness {
namespace {

TEST(Labels, OddRequestsEvenResponses) {
  EXPECT_TRUE(is_request_label(1));
  EXPECT_TRUE(is_request_label(7));
  EXPECT_FALSE(is_request_label(4));
  EXPECT_FALSE(is_request_label(0));
  EXPECT_EQ(response_label(3), 4u);
  EXPECT_EQ(request_of(4), 3u);
  EXPECT_EQ(request_of(3), 3u);
  EXPECT_EQ(request_of(0), 0u);
}

TEST(LabelledTrace, ThesisFigure57) {
  // [(1, q1); (3, q2); (4, a2); (2, a1)]: a2 arrives before a1 (another
  // connection), yet get_label 4 is a2.
  Json q1 = {{"command", "ls"}}, q2 = {{"command", "ls"}, {"args", {"/"}}};
  Json a1 = {{"exitCode", 0}}, a2 = {{"files", Json::array()}, {"exitCode", 0}};
  LabelledTrace t;
  t.add_request(1, 0, q1);
  t.add_request(3, 1, q2);
  t.add_response(3, 1, a2);
  t.add_response(1, 0, a1);
  ASSERT_EQ(t.size(), 4u);
  std::vector<Label> order;
  for (const auto& m : t.messages()) order.push_back(m.label);
  EXPECT_EQ(order, (std::vector<Label>{1, 3, 4, 2}));
  ASSERT_NE(t.find(4), nullptr);
  EXPECT_EQ(*t.find(4), a2);
  EXPECT_EQ(*t.find(2), a1);
  EXPECT_EQ(t.find(5), nullptr);
  EXPECT_EQ(t.conn_of(4), 1u);
  EXPECT_EQ(t.conn_of(2), 0u);
  EXPECT_EQ(t.conn_of(6), std::nullopt);
  EXPECT_TRUE(t.contains(3));
  EXPECT_FALSE(t.contains(6));
}

TEST(LabelledTrace, FirstMessageWinsForARepeatedLabel) {
  LabelledTrace t;
  t.add(0, 2, Json("unsolicited"));
  t.add(0, 3, Json("again"));
  EXPECT_EQ(*t.find(0), "unsolicited");
  EXPECT_EQ(t.conn_of(0), 2u);
}

// Thesis §5.3.2, item 1: after shrinking away q1, label 4 still names the
// response to q2, so a reference to it keeps its meaning.
TEST(LabelledTrace, LabelsSurviveDeletingOtherSteps) {
  auto fns = FunctionRegistry::with_builtins();
  auto s = parse_script(
      "req 1 on c0: {\"command\":\"ls\"}\n"
      "req 3 on c0: {\"command\":\"ls\",\"args\":[\"/\"]}\n"
      "wait 3\n"
      "req 5 on c0: "
      "{\"command\":\"chmod\",\"args\":[4.(this@\"files\"#1@\"name\").id]}\n",
      fns);
  ASSERT_TRUE(s) << s.error();
  Label before = next_label(*s);
  s->steps.erase(s->steps.begin());  // shrink: drop q1
  ASSERT_EQ(validate(*s), std::nullopt);
  EXPECT_EQ(std::get<RequestStep>(s->steps[0]).label, 3u);
  EXPECT_EQ(std::get<RequestStep>(s->steps[2]).label, 5u);
  EXPECT_EQ(next_label(*s), before);

  LabelledTrace new_trace;  // [(3, q2); (4, a2')]
  new_trace.add_request(3, 0, Json::parse(R"({"command":"ls","args":["/"]})"));
  new_trace.add_response(3, 0, Json::parse(R"({"files":[{"name":"baz","mode":644}]})"));
  const Jexp& body = std::get<RequestStep>(s->steps[2]).body;
  EXPECT_EQ(*evaluate(body, new_trace, fns),
            Json::parse(R"({"command":"chmod","args":["baz"]})"));
  // The dropped request's label is gone from the run, not reassigned.
  EXPECT_FALSE(new_trace.contains(1));
}

}  // namespace
}  // namespace dualfuzz::harness
