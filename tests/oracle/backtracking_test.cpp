// The incremental hypothesis search going depth-first
// (SearchLimits::depth_first_after): it does go, and its verdicts are the
// breadth-first search's, both ways. (oracle_property_test compares it with a
// brute-force checker on random traces.)
#include "dualfuzz/oracle/backtracking.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "dualfuzz/specs/cmp_set.h"
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

struct Outcome {
  StepOutcome::Status status;
  bool went_depth_first;
  std::size_t explored;
};
Outcome run_search(const std::vector<Step>& steps, std::size_t depth_first_after,
                   bool set_aside) {
  Solver solver;
  SearchLimits limits;
  limits.depth_first_after = depth_first_after;
  limits.set_aside_quiet_steps = set_aside;
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
  return {out.status, s.went_depth_first(), s.explored()};
}

// The search's last outcome over `steps`, and whether it went depth-first.
std::pair<StepOutcome::Status, bool> run(const std::vector<Step>& steps,
                                         std::size_t depth_first_after) {
  Outcome o = run_search(steps, depth_first_after, false);
  return {o.status, o.went_depth_first};
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

// The whole-trace (depth-first) check's outcome over `steps`, for the
// server `initial` (getput's by default), with `limits`.
StepOutcome::Status whole_trace(const std::vector<Step>& steps,
                                const Tree& initial = specs::getput_model().initial(),
                                SearchLimits limits = {}) {
  Solver solver;
  HypothesisSearch s(initial, solver, limits);
  std::vector<Observation> trace;
  Label label = 1;
  for (const Step& st : steps) {
    trace.push_back(
        {st.request ? Observation::Kind::Request : Observation::Kind::Response, st.conn,
         label, std::make_shared<const Json>(st.body)});
    label += 2;
  }
  std::size_t stopped = 0;
  return s.check_offline(trace, stopped, 1'000'000).status;
}

const Json kGet = {{"method", "GET"}, {"key", "x"}};
Json put(const char* v) { return Json{{"method", "PUT"}, {"key", "x"}, {"value", v}}; }

// A GET on connection 2 answered last. When connection 3's GET is answered
// "a", the depth-first search backs up over absorbing 2's GET first, which
// changes nothing and is answered nowhere yet: it leaves that step aside
// (Dfs::Parked) and absorbs the PUT. 2's answer then shows whether its GET
// ran before the PUT (null: the step left aside is needed) or after it.
std::vector<Step> late_read(Json seen) {
  return {{true, 2, kGet}, {true, 1, put("a")}, {true, 3, kGet},
          {false, 3, "a"}, {false, 1, "Done"},  {false, 2, std::move(seen)}};
}

TEST(HypothesisSearch, AReadLeftUnansweredIsFoundInThePastWhenItsAnswerComes) {
  for (Json seen : {Json(), Json("a")}) {
    EXPECT_EQ(run(late_read(seen), 0).first, StepOutcome::Status::Alive) << seen;
    EXPECT_EQ(run(late_read(seen), 1).first, StepOutcome::Status::Alive) << seen;
    EXPECT_EQ(whole_trace(late_read(seen)), StepOutcome::Status::Alive) << seen;
  }
  for (Json seen : {Json("b"), Json("zzz")}) {
    EXPECT_EQ(run(late_read(seen), 0).first, StepOutcome::Status::Dead) << seen;
    EXPECT_EQ(run(late_read(seen), 1).first, StepOutcome::Status::Dead) << seen;
    EXPECT_EQ(whole_trace(late_read(seen)), StepOutcome::Status::Dead) << seen;
  }
  // Still unanswered at the end: nothing to explain about it.
  std::vector<Step> open = late_read(Json());
  open.pop_back();
  EXPECT_EQ(run(open, 1).first, StepOutcome::Status::Alive);
  EXPECT_EQ(whole_trace(open), StepOutcome::Status::Alive);
}

// SearchLimits::stop: a search told to stop gives up, whatever it would have
// found (check_history stops the searches a verdict no longer needs).
TEST(HypothesisSearch, AStoppedSearchGivesUpAndDecidesNothing) {
  std::atomic<bool> stop{true};
  SearchLimits stopped;
  stopped.stop = &stop;
  for (Json seen : {Json(), Json("zzz")})
    EXPECT_EQ(whole_trace(late_read(seen), specs::getput_model().initial(), stopped),
              StepOutcome::Status::GaveUp)
        << seen;
  stop = false;
  EXPECT_EQ(whole_trace(late_read(Json()), specs::getput_model().initial(), stopped),
            StepOutcome::Status::Alive);
  EXPECT_EQ(whole_trace(late_read(Json("zzz")), specs::getput_model().initial(), stopped),
            StepOutcome::Status::Dead);
}

// An unanswered GET with a PUT pipelined behind it on the same connection
// is not left aside: a response elsewhere that shows the PUT needs the GET
// absorbed first (FIFO per connection).
TEST(HypothesisSearch, AnUnansweredReadWithARequestBehindItIsNotLeftAside) {
  auto pipelined = [](Json seen) {
    return std::vector<Step>{{true, 2, kGet},
                             {true, 2, put("c")},
                             {true, 3, kGet},
                             {false, 3, std::move(seen)}};
  };
  for (std::size_t after : {0, 1})
    EXPECT_EQ(run(pipelined("c"), after).first, StepOutcome::Status::Alive) << after;
  EXPECT_EQ(whole_trace(pipelined("c")), StepOutcome::Status::Alive);
  EXPECT_EQ(run(pipelined("zzz"), 1).first, StepOutcome::Status::Dead);
  EXPECT_EQ(whole_trace(pipelined("zzz")), StepOutcome::Status::Dead);
  // The same with the PUT sent only after the first response: the GET was
  // unanswered and last on its connection then, and no longer is.
  std::vector<Step> later = {{true, 2, kGet},     {true, 1, put("a")}, {false, 1, "Done"},
                             {true, 2, put("c")}, {true, 3, kGet},     {false, 3, "c"}};
  EXPECT_EQ(run(later, 1).first, StepOutcome::Status::Alive);
  EXPECT_EQ(whole_trace(later), StepOutcome::Status::Alive);
}

// SearchLimits::set_aside_quiet_steps (the breadth-first search of fuzz
// executions): the same verdicts as without, both ways, and on every path a
// hypothesis set aside can take: dropped when its own response contradicts
// it, run forward when the others all die, joining the roots when the
// search goes depth-first.
TEST(HypothesisSearch, SetAsideReadsGiveTheSameVerdicts) {
  using S = StepOutcome::Status;
  for (std::size_t after : {0, 1, 2}) {
    // c2's GET, set aside when c3's is answered, is needed (null) or not.
    for (Json seen : {Json(), Json("a")})
      EXPECT_EQ(run_search(late_read(seen), after, true).status, S::Alive) << seen;
    for (Json seen : {Json("b"), Json("zzz")})
      EXPECT_EQ(run_search(late_read(seen), after, true).status, S::Dead) << seen;
    // A PUT pipelined behind the GET set aside: c3's answer "c" needs both,
    // which only the hypothesis set aside can reach (run forward).
    std::vector<Step> pipelined = {
        {true, 2, kGet}, {true, 2, put("c")}, {true, 3, kGet}, {false, 3, "c"}};
    EXPECT_EQ(run_search(pipelined, after, true).status, S::Alive) << after;
    pipelined.back().body = "zzz";
    EXPECT_EQ(run_search(pipelined, after, true).status, S::Dead) << after;
    for (const char* last : {"b", "zzz"})
      EXPECT_EQ(run_search(racing_puts(last), after, true).status,
                run_search(racing_puts(last), after, false).status)
          << last << " " << after;
  }
}

// A GET set aside at the first response, then a response with concurrent
// PUTs that sends the search depth-first: the GET set aside (needed: it read
// the store before the first PUT) joins the depth-first search's roots.
TEST(HypothesisSearch, SetAsideReadsJoinTheDepthFirstSearch) {
  auto trace = [](Json seen) {
    return std::vector<Step>{{true, 1, put("a")}, {true, 2, kGet},
                             {false, 1, "Done"},  {true, 3, put("b")},
                             {true, 4, put("c")}, {true, 5, put("d")},
                             {false, 3, "Done"},  {false, 2, std::move(seen)}};
  };
  Outcome old = run_search(trace(Json()), 2, true);
  EXPECT_TRUE(old.went_depth_first);
  EXPECT_EQ(old.status, StepOutcome::Status::Alive);
  EXPECT_EQ(run_search(trace(Json()), 0, true).status, StepOutcome::Status::Alive);
  EXPECT_EQ(run_search(trace("zzz"), 2, true).status, StepOutcome::Status::Dead);
  EXPECT_EQ(run_search(trace("zzz"), 0, true).status, StepOutcome::Status::Dead);
}

// Reads on five connections, a PUT answered before them: absorbing every
// read in every state before the PUT is what the breadth-first search no
// longer does; each read answered with the old value (all set aside, run
// forward) or the new one is explained, one value never written is not.
TEST(HypothesisSearch, SetAsideReadsCostLess) {
  auto reads = [](const std::vector<Json>& seen) {
    std::vector<Step> t = {{true, 1, put("a")}};
    for (ConnId c = 2; c < 7; ++c) t.push_back({true, c, kGet});
    t.push_back({false, 1, "Done"});
    for (ConnId c = 2; c < 7; ++c) t.push_back({false, c, seen[c - 2]});
    return t;
  };
  const std::vector<Json> fresh(5, Json("a")), old(5, Json());
  std::vector<Json> mixed = {Json(), Json("a"), Json(), Json("a"), Json()};
  for (const auto& seen : {fresh, old, mixed}) {
    Outcome with = run_search(reads(seen), 0, true);
    Outcome without = run_search(reads(seen), 0, false);
    EXPECT_EQ(with.status, StepOutcome::Status::Alive);
    EXPECT_EQ(without.status, StepOutcome::Status::Alive);
    if (seen == fresh) {
      EXPECT_LT(with.explored * 4, without.explored);
    }
  }
  std::vector<Json> wrong = mixed;
  wrong[4] = "zzz";
  EXPECT_EQ(run_search(reads(wrong), 0, true).status, StepOutcome::Status::Dead);
  EXPECT_EQ(run_search(reads(wrong), 0, false).status, StepOutcome::Status::Dead);
}

// The depth-first lookahead checks a response as the server sends it
// (HypothesisSearch::foreseen): against the k-th response observed on its
// connection, k the responses already in flight there. c1's GET, pipelined
// behind its PUT, must run before c2's PUT "b" to answer "a"; when the search
// explains c2's "Done" it absorbs that GET while c1's "Done" is still in
// flight, so its "a" is the second response on c1, not the first. Checking
// it against the first would drop the only explanation (a false alarm).
std::vector<Step> read_behind_a_write(Json seen) {
  return {{true, 1, put("a")}, {true, 1, kGet},
          {true, 2, kGet},     {false, 2, "a"},
          {true, 2, put("b")}, {false, 2, "Done"},
          {false, 1, "Done"},  {false, 1, std::move(seen)}};
}

TEST(HypothesisSearch, TheLookaheadChecksEachResponseInItsPlace) {
  for (Json seen : {Json("a"), Json("b")}) {
    EXPECT_EQ(whole_trace(read_behind_a_write(seen)), StepOutcome::Status::Alive) << seen;
    EXPECT_EQ(run(read_behind_a_write(seen), 0).first, StepOutcome::Status::Alive)
        << seen;
    EXPECT_EQ(run(read_behind_a_write(seen), 1).first, StepOutcome::Status::Alive)
        << seen;
  }
  // A value never current, or the first value before it was written.
  for (Json seen : {Json("zzz"), Json()}) {
    EXPECT_EQ(whole_trace(read_behind_a_write(seen)), StepOutcome::Status::Dead) << seen;
    EXPECT_EQ(run(read_behind_a_write(seen), 0).first, StepOutcome::Status::Dead) << seen;
    EXPECT_EQ(run(read_behind_a_write(seen), 1).first, StepOutcome::Status::Dead) << seen;
  }
}

// Requests (true) and responses (false) on one connection, in order: the
// whole-trace check's status, or the online depth-first search's.
StepOutcome::Status one_connection(const Tree& initial,
                                   const std::vector<std::pair<bool, Json>>& steps,
                                   bool whole) {
  Solver solver;
  SearchLimits limits;
  limits.depth_first_after = 1;
  HypothesisSearch s(initial, solver, limits);
  std::vector<Observation> trace;
  StepOutcome out;
  Label label = 1;
  for (const auto& [request, body] : steps) {
    trace.push_back({request ? Observation::Kind::Request : Observation::Kind::Response,
                     1, label, std::make_shared<const Json>(body)});
    if (!whole && out.status == StepOutcome::Status::Alive)
      out = request ? s.request_sent(1, label, std::make_shared<const Json>(body))
                    : s.response_received(1, label, body);
    label += 2;
  }
  if (!whole) return out.status;
  std::size_t stopped = 0;
  HypothesisSearch w(initial, solver);
  return w.check_offline(trace, stopped, 1'000'000).status;
}

// The absorbed request leaves the network in every successor of a step,
// including both branches of a model that forks on a hidden choice (here
// CMP-RST, whose reset value is unknown: a later request may be answered 0
// or 1). A branch that kept the request in flight would absorb it twice.
TEST(HypothesisSearch, EveryBranchOfAStepAbsorbsItsRequestOnce) {
  auto run_cmp = [](const std::vector<std::pair<bool, Json>>& steps, bool whole) {
    return one_connection(specs::cmp_rst_model().initial(), steps, whole);
  };
  // 5 resets n to an unknown m; 3 and 4 pipelined: 3 <= m answers 0 (n
  // stays m), else 1 (n reset again). Each request is answered once.
  for (bool whole : {true, false}) {
    for (int a : {0, 1})
      for (int b : {0, 1}) {
        std::vector<std::pair<bool, Json>> t = {{true, 5}, {false, 1}, {true, 3},
                                                {true, 4}, {false, a}, {false, b}};
        EXPECT_EQ(run_cmp(t, whole), StepOutcome::Status::Alive) << a << b << whole;
      }
    // A third answer with no third request: never explained, whichever
    // branches the first two took (a branch that kept its request in
    // flight would answer it twice).
    for (int a : {0, 1})
      for (int b : {0, 1})
        for (int c : {0, 1}) {
          std::vector<std::pair<bool, Json>> extra = {{true, 5}, {false, 1}, {true, 3},
                                                      {true, 4}, {false, a}, {false, b},
                                                      {false, c}};
          EXPECT_NE(run_cmp(extra, whole), StepOutcome::Status::Alive)
              << a << b << c << whole;
        }
  }
}

// The same with both branches answering alike (a coin the server flips:
// "ok" either way), so that both survive the lookahead: the read behind the
// flip shows which one ran. A branch that kept the flip in flight would
// absorb it again where the read is due.
Tree coin(int side) {
  return recv(ModelState(side), [side](const Request& q) -> Tree {
    if (q.json() == "flip")
      return choose(send(q.conn, Sym::lit("ok"), coin(0)),
                    send(q.conn, Sym::lit("ok"), coin(1)));
    return send(q.conn, Sym::lit(side), coin(side));
  });
}

TEST(HypothesisSearch, BothBranchesOfAStepThatAnswerAlikeAbsorbItsRequest) {
  auto check = [](int seen, bool whole) {
    return one_connection(
        coin(0), {{true, "flip"}, {true, "read"}, {false, "ok"}, {false, seen}}, whole);
  };
  for (bool whole : {true, false}) {
    EXPECT_EQ(check(0, whole), StepOutcome::Status::Alive) << whole;
    EXPECT_EQ(check(1, whole), StepOutcome::Status::Alive) << whole;
    EXPECT_EQ(check(2, whole), StepOutcome::Status::Dead) << whole;
  }
}

// The depth-first memo (a configuration as words: position, interned model
// state, variables, store, and per channel its connection, request labels
// and response patterns) must tell apart configurations that differ in any
// of them. Two PUTs answered before a GET: absorbing a then b (tried first,
// oldest request first) and b then a reach the GET with the same network
// and different states; a memo that confused them would never try the
// second order, so "a" would be rejected.
std::vector<Step> two_writes_then_read(Json seen) {
  return {{true, 1, put("a")}, {true, 2, put("b")}, {false, 1, "Done"},
          {false, 2, "Done"},  {true, 3, kGet},     {false, 3, std::move(seen)}};
}

TEST(HypothesisSearch, TheDepthFirstMemoTellsStatesApart) {
  for (Json seen : {Json("a"), Json("b")}) {
    EXPECT_EQ(whole_trace(two_writes_then_read(seen)), StepOutcome::Status::Alive)
        << seen;
    EXPECT_EQ(run(two_writes_then_read(seen), 1).first, StepOutcome::Status::Alive)
        << seen;
  }
  for (Json seen : {Json("zzz"), Json()}) {
    EXPECT_EQ(whole_trace(two_writes_then_read(seen)), StepOutcome::Status::Dead) << seen;
    EXPECT_EQ(run(two_writes_then_read(seen), 1).first, StepOutcome::Status::Dead)
        << seen;
  }
}

// The same memo and the network: a GET on 2 absorbed before the PUT on 1
// (tried first) and the PUT absorbed first meet at 3's answer; in the
// first, 2's GET has left its channel and its answer (null) is in flight.
// Only that one explains 2's null: a memo that compared states but not
// channels would have taken it for the configuration it came from.
TEST(HypothesisSearch, TheDepthFirstMemoTellsNetworksApart) {
  const std::vector<Step> t = {{true, 2, kGet}, {true, 1, put("a")}, {true, 3, kGet},
                               {false, 3, "a"}, {false, 1, "Done"},  {false, 2, Json()}};
  EXPECT_EQ(whole_trace(t), StepOutcome::Status::Alive);
  EXPECT_EQ(run(t, 1).first, StepOutcome::Status::Alive);
  std::vector<Step> u = t;
  u.back().body = "zzz";
  EXPECT_EQ(whole_trace(u), StepOutcome::Status::Dead);
}

// The same memo and the response patterns in flight: a server that picks a
// secret when it starts (a hidden variable), answers "peek" with the secret
// or with "any", and "get" with the secret once peeked ("none" before).
// Absorbing 1's peek first (the oldest request) forks: the secret in flight
// on 1 (tried first) or "any"; both pass the lookahead (the secret may be
// "any" as far as is known then) and meet at 2's answer with the same state,
// variables, store and requests, their only difference the pattern in flight
// on 1. The first dies once 2's answer binds the secret to "s1"; a memo that
// left the patterns out would take the second for it, and the get absorbed
// first answers "none": "any" would be rejected.
Tree secret_keeper(const Sym& secret, bool peeked) {
  return recv(ModelState(Json{secret.var_id(), peeked}),
              [secret, peeked](const Request& q) -> Tree {
                if (q.json() == "peek")
                  return choose(send(q.conn, secret, secret_keeper(secret, true)),
                                send(q.conn, Sym::lit("any"), secret_keeper(secret, true)));
                return send(q.conn, peeked ? secret : Sym::lit("none"),
                            secret_keeper(secret, peeked));
              });
}

TEST(HypothesisSearch, TheDepthFirstMemoTellsResponsePatternsApart) {
  const Tree start =
      fresh(Sort::Str, "secret", [](const Sym& s) { return secret_keeper(s, false); });
  auto peek_then_get = [](Json peeked) {
    return std::vector<Step>{{true, 1, "peek"}, {true, 2, "get"}, {false, 2, "s1"},
                             {false, 1, std::move(peeked)}};
  };
  EXPECT_EQ(whole_trace(peek_then_get("any"), start), StepOutcome::Status::Alive);
  EXPECT_EQ(whole_trace(peek_then_get("s1"), start), StepOutcome::Status::Alive);
  EXPECT_EQ(whole_trace(peek_then_get("s2"), start), StepOutcome::Status::Dead);
}

}  // namespace
}  // namespace dualfuzz::oracle
