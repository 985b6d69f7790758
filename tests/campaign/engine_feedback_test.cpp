// Behaviour coverage (campaign/detail/engine_feedback.h): what the engine
// sees of a black-box server is one counter per kind of exchange and one mark
// per pair of consecutive kinds on a resource, the same for the same trace.
#include "dualfuzz/campaign/detail/engine_feedback.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <utility>

#include "dualfuzz/http/protocol.h"

namespace dualfuzz::campaign::detail {
namespace {

using harness::Json;
using harness::LabelledTrace;

// (index, value) of every non-zero counter after counting t alone.
std::set<std::pair<std::size_t, int>> seen(const LabelledTrace& t) {
  std::memset(behaviour_counters(), 0, kBehaviourCounters);
  count_behaviour(http::protocol(), t);
  std::set<std::pair<std::size_t, int>> out;
  for (std::size_t i = 0; i < kBehaviourCounters; ++i)
    if (behaviour_counters()[i]) out.insert({i, behaviour_counters()[i]});
  return out;
}

Json put(const char* path) { return Json{{"method", "PUT"}, {"path", path}}; }
Json get(const char* path) { return Json{{"method", "GET"}, {"path", path}}; }
Json status(int s) { return Json{{"status", s}}; }
// Request `label` on connection 0, answered with status s.
void exchange(LabelledTrace& t, harness::Label label, Json q, int s) {
  t.add_request(label, 0, std::move(q));
  t.add_response(label, 0, status(s));
}

TEST(BehaviourCoverage, OneKindPerAnsweredRequestAndTheSameForTheSameTrace) {
  LabelledTrace t;
  exchange(t, 1, put("/a"), 201);
  t.add_request(3, 0, get("/b"));  // never answered: not counted
  EXPECT_EQ(count_behaviour(http::protocol(), t), 1u);
  const auto once = seen(t);
  // The kind (counted) and the edge from "nothing yet" on /a (marked).
  EXPECT_EQ(once.size(), 2u);
  EXPECT_EQ(seen(t), once);
}

TEST(BehaviourCoverage, ADifferentAnswerIsADifferentKind) {
  LabelledTrace a, b;
  exchange(a, 1, put("/a"), 201);
  exchange(b, 1, put("/a"), 500);
  EXPECT_NE(seen(a), seen(b));
}

TEST(BehaviourCoverage, KindsAreCountedEdgesOnlyMarked) {
  LabelledTrace t;
  for (harness::Label l : {1, 3, 5}) exchange(t, l, get("/a"), 404);
  const auto s = seen(t);
  // The kind 3 times; the edges start->404 and 404->404 (twice) marked once.
  std::multiset<int> values;
  for (const auto& [i, v] : s) values.insert(v);
  EXPECT_EQ(values, (std::multiset<int>{1, 1, 3}));
}

TEST(BehaviourCoverage, EdgesFollowOneResource) {
  // The same exchanges on one path, or spread over two, walk different
  // edges: on two paths each starts afresh.
  LabelledTrace one, two;
  exchange(one, 1, put("/a"), 201);
  exchange(one, 3, get("/a"), 200);
  exchange(two, 1, put("/a"), 201);
  exchange(two, 3, get("/b"), 200);
  EXPECT_NE(seen(one), seen(two));
  EXPECT_EQ(seen(one).size(), 4u);  // two kinds, start->PUT 201, PUT 201->GET 200
}

}  // namespace
}  // namespace dualfuzz::campaign::detail
