// Property tests of the oracle against an independent brute-force checker.
//  1. Traces produced by running a reference server under a random network
//     schedule are always accepted (no false alarms).
//  2. With one response mutated, the oracle rejects exactly when no order of
//     processing (FIFO per connection, respecting what the tester saw before
//     sending) explains the trace — checked by enumerating all orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <random>

#include "dualfuzz/oracle/backtracking.h"
#include "dualfuzz/oracle/oracle.h"
#include "dualfuzz/specs/getput_store.h"

namespace dualfuzz::oracle {
namespace {

// The GET/PUT store, written directly (independent of the itree model).
Json reference(const Json& q, std::map<std::string, Json>& st) {
  std::string key = q["key"].dump();
  if (q["method"] == "PUT") {
    st[key] = q["value"];
    return "Done";
  }
  auto it = st.find(key);
  return it == st.end() ? Json() : it->second;
}

Json random_request(std::mt19937_64& rng) {
  static const char* keys[] = {"x", "y"};
  static const char* vals[] = {"a", "b", "c"};
  if (rng() % 2) return {{"method", "GET"}, {"key", keys[rng() % 2]}};
  return {{"method", "PUT"}, {"key", keys[rng() % 2]}, {"value", vals[rng() % 3]}};
}

// Runs the reference server under a random schedule; returns the trace.
std::vector<Event> random_trace(std::mt19937_64& rng, int conns, int requests) {
  std::vector<Event> t;
  std::map<ConnId, std::deque<std::pair<Label, Json>>> to_server;
  std::map<ConnId, std::deque<std::pair<Label, Json>>> to_client;
  std::map<std::string, Json> st;
  Label next = 1;
  int sent = 0;
  for (;;) {
    std::vector<int> moves;
    if (sent < requests) moves.push_back(0);
    bool can_serve = false, can_deliver = false;
    for (auto& [c, q] : to_server) can_serve = can_serve || !q.empty();
    for (auto& [c, q] : to_client) can_deliver = can_deliver || !q.empty();
    if (can_serve) moves.push_back(1);
    if (can_deliver) moves.push_back(2);
    if (moves.empty()) break;
    int m = moves[rng() % moves.size()];
    if (m == 0) {
      ConnId c = 1 + rng() % conns;
      Json q = random_request(rng);
      t.push_back(Event::request(c, next, q));
      to_server[c].push_back({next, q});
      next += 2;
      ++sent;
    } else {
      auto& chans = m == 1 ? to_server : to_client;
      std::vector<ConnId> ready;
      for (auto& [c, q] : chans)
        if (!q.empty()) ready.push_back(c);
      ConnId c = ready[rng() % ready.size()];
      auto [l, v] = chans[c].front();
      chans[c].pop_front();
      if (m == 1)
        to_client[c].push_back({l, reference(v, st)});
      else
        t.push_back(Event::response(c, l + 1, v));
    }
  }
  return t;
}

// Brute force: does some processing order explain every response?
bool explainable(const std::vector<Event>& t) {
  struct Req {
    Label label;
    ConnId conn;
    Json body;
    std::vector<Label> after;  // requests whose responses were seen before this was sent
  };
  std::vector<Req> reqs;
  std::map<Label, Json> observed;
  std::vector<Label> seen;
  for (const Event& e : t) {
    if (e.kind == Event::Kind::Request)
      reqs.push_back({e.label, e.conn, e.payload(), seen});
    if (e.kind == Event::Kind::Response) {
      observed[e.label - 1] = e.payload();
      seen.push_back(e.label - 1);
    }
  }
  std::vector<int> order(reqs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  do {
    std::map<Label, std::size_t> pos;
    for (std::size_t i = 0; i < order.size(); ++i) pos[reqs[order[i]].label] = i;
    bool valid = true;
    for (std::size_t i = 0; i < reqs.size() && valid; ++i) {
      for (Label a : reqs[i].after) valid = valid && pos[a] < pos[reqs[i].label];
      for (std::size_t j = 0; j < i && valid; ++j)  // FIFO per connection
        if (reqs[j].conn == reqs[i].conn) valid = pos[reqs[j].label] < pos[reqs[i].label];
    }
    if (!valid) continue;
    std::map<std::string, Json> st;
    bool match = true;
    for (int i : order) {
      Json a = reference(reqs[i].body, st);
      auto it = observed.find(reqs[i].label);
      if (it != observed.end() && it->second != a) match = false;
    }
    if (match) return true;
  } while (std::next_permutation(order.begin(), order.end()));
  return false;
}

// The online oracle gone depth-first at once (SearchLimits::
// depth_first_after = 1: resumed and restarted searches from the first
// response with two configurations on): its verdict, or nullopt if it gave up.
// `set_aside`: SearchLimits::set_aside_quiet_steps (fuzz executions'),
// breadth-first (`depth_first_after` = 0) or gone depth-first at once.
std::optional<bool> online_depth_first(const std::vector<Event>& t,
                                       std::size_t depth_first_after = 1,
                                       bool set_aside = false) {
  OracleOptions opt;
  opt.limits.depth_first_after = depth_first_after;
  opt.limits.set_aside_quiet_steps = set_aside;
  Oracle o(specs::getput_model(), opt);
  for (const Event& e : t)
    if (!o.observe(e).accepted()) break;
  if (o.verdict().status == Verdict::Status::Inconclusive) return std::nullopt;
  return o.verdict().accepted();
}

// The whole-trace depth-first search alone (HypothesisSearch::check_offline),
// trying requests in `order` (check_history runs both orders and reads
// whichever decides first, so each must decide alike on its own): its
// verdict, or nullopt if it gave up.
std::optional<bool> offline(const std::vector<Event>& t, SearchLimits::Order order) {
  SearchLimits limits;
  limits.order = order;
  Solver solver;
  HypothesisSearch s(specs::getput_model().initial(), solver, limits);
  std::vector<Observation> obs;
  for (const Event& e : t) {
    if (e.kind == Event::Kind::Request)
      obs.push_back({Observation::Kind::Request, e.conn, e.label, e.body});
    else if (e.kind == Event::Kind::Response)
      obs.push_back({Observation::Kind::Response, e.conn, e.label, e.body});
    else if (e.kind == Event::Kind::Close)
      obs.push_back({Observation::Kind::Close, e.conn, 0, nullptr});
  }
  std::size_t stopped = 0;
  StepOutcome out = s.check_offline(obs, stopped, 1'000'000);
  if (out.status == StepOutcome::Status::GaveUp) return std::nullopt;
  return out.status == StepOutcome::Status::Alive;
}
constexpr SearchLimits::Order kOrders[] = {SearchLimits::Order::Oldest,
                                           SearchLimits::Order::Newest,
                                           SearchLimits::Order::FirstAnswered};

TEST(OracleProperty, ModelGeneratedTracesAreAccepted) {
  std::mt19937_64 rng(20261122);
  for (int i = 0; i < 300; ++i) {
    auto t = random_trace(rng, 1 + rng() % 3, 1 + rng() % 7);
    Oracle o(specs::getput_model());
    for (const Event& e : t)
      ASSERT_TRUE(o.observe(e).accepted()) << o.verdict().explanation;
    ASSERT_TRUE(check(specs::getput_model(), t).accepted());
    ASSERT_EQ(online_depth_first(t), std::optional<bool>(true));
    ASSERT_EQ(online_depth_first(t, 0, true), std::optional<bool>(true));
    ASSERT_EQ(online_depth_first(t, 1, true), std::optional<bool>(true));
    // (Gone depth-first later, with hypotheses set aside before: they join.)
    ASSERT_EQ(online_depth_first(t, 3, true), std::optional<bool>(true));
    for (SearchLimits::Order order : kOrders)
      ASSERT_EQ(offline(t, order), std::optional<bool>(true));
    ASSERT_TRUE(explainable(t)) << "brute force disagrees with the generator";
  }
}

TEST(OracleProperty, MutatedResponseRejectedIffNothingExplainsIt) {
  std::mt19937_64 rng(7);
  const Json candidates[] = {"Done", "a", "b", "c", nullptr};
  int rejected = 0, accepted = 0;
  for (int i = 0; i < 1000; ++i) {
    auto t = random_trace(rng, 1 + rng() % 3, 2 + rng() % 5);
    std::vector<std::size_t> responses;
    for (std::size_t k = 0; k < t.size(); ++k)
      if (t[k].kind == Event::Kind::Response) responses.push_back(k);
    if (responses.empty()) continue;
    std::size_t k = responses[rng() % responses.size()];
    Json v = candidates[rng() % 5];
    if (v == t[k].payload()) continue;
    t[k].set_payload(v);
    bool expected = explainable(t);
    Oracle o(specs::getput_model());
    for (const Event& e : t)
      if (!o.observe(e).accepted()) break;
    ASSERT_EQ(o.verdict().accepted(), expected) << o.verdict().explanation;
    ASSERT_EQ(check(specs::getput_model(), t).accepted(), expected);
    ASSERT_EQ(online_depth_first(t), std::optional<bool>(expected));
    ASSERT_EQ(online_depth_first(t, 0, true), std::optional<bool>(expected));
    ASSERT_EQ(online_depth_first(t, 1, true), std::optional<bool>(expected));
    // (Gone depth-first later, with hypotheses set aside before: they join.)
    ASSERT_EQ(online_depth_first(t, 3, true), std::optional<bool>(expected));
    for (SearchLimits::Order order : kOrders)
      ASSERT_EQ(offline(t, order), std::optional<bool>(expected));
    (expected ? accepted : rejected)++;
  }
  // Both directions must actually be exercised.
  EXPECT_GT(rejected, 50);
  EXPECT_GT(accepted, 10);  // mutations that a reordering still explains
}

}  // namespace
}  // namespace dualfuzz::oracle
