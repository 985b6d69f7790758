// The incremental hypothesis search going depth-first
// (SearchLimits::depth_first_after): it does go, and its verdicts are the
// breadth-first search's, both ways. (oracle_property_test compares it with a
// brute-force checker on random traces.)
#include "dualfuzz/oracle/backtracking.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "dualfuzz/specs/getput_store.h"

namespace dualfuzz::oracle {
namespace {

struct Step {
  bool request;
  ConnId conn;
  Json body;
};

// Three concurrent PUTs of x, a GET that saw the second value before the
// third PUT was answered, then a GET on a fresh connection answering `last`.
std::vector<Step> racing_puts(Json last) {
  auto put = [](const char* v) {
    return Json{{"method", "PUT"}, {"key", "x"}, {"value", v}};
  };
  const Json get = {{"method", "GET"}, {"key", "x"}};
  return {{true, 1, put("a")}, {true, 2, put("b")}, {true, 3, put("c")},
          {true, 4, get},      {false, 1, "Done"},  {false, 2, "Done"},
          {false, 4, "b"},     {false, 3, "Done"},  {true, 5, get},
          {false, 5, last}};
}

// The search's last outcome over `steps`, and whether it went depth-first.
std::pair<StepOutcome::Status, bool> run(const std::vector<Step>& steps,
                                         std::size_t depth_first_after) {
  Solver solver;
  SearchLimits limits;
  limits.depth_first_after = depth_first_after;
  HypothesisSearch s(specs::getput_model().initial(), solver, limits);
  StepOutcome out;
  Label label = 1;
  for (const Step& st : steps) {
    out = st.request
              ? s.request_sent(st.conn, label, std::make_shared<const Json>(st.body))
              : s.response_received(st.conn, label, st.body);
    label += 2;
    if (out.status != StepOutcome::Status::Alive) break;
  }
  return {out.status, s.went_depth_first()};
}

TEST(HypothesisSearch, GoesDepthFirstWithTheSameVerdicts) {
  // "b" can be last (a, c, b, then both GETs); "zzz" was never written.
  for (const char* last : {"b", "zzz"}) {
    auto [breadth, went_b] = run(racing_puts(last), 0);
    auto [depth, went_d] = run(racing_puts(last), 1);
    EXPECT_FALSE(went_b);
    EXPECT_TRUE(went_d);
    EXPECT_EQ(breadth, depth) << last;
  }
  EXPECT_EQ(run(racing_puts("b"), 1).first, StepOutcome::Status::Alive);
  EXPECT_EQ(run(racing_puts("zzz"), 1).first, StepOutcome::Status::Dead);
}

}  // namespace
}  // namespace dualfuzz::oracle
