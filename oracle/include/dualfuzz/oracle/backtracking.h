// Hypothesis search (thesis Fig. 4.12/4.13), made incremental and memoized.
//
// The thesis's tester backtracks over the server's and the network's choices.
// Here every live choice sequence is a Hypothesis, and the set advances one
// observation at a time:
//   request sent on c    -> appended to c's in-flight queue in every hypothesis
//   response seen on c   -> each hypothesis must deliver it: if c already has a
//                           response in flight, it must match; otherwise the
//                           server absorbs in-flight requests (any connection,
//                           FIFO per connection) until it answers on c. This is
//                           "server first, network lazily": requests are
//                           processed only when an observation needs them, in
//                           every order, and every intermediate hypothesis is
//                           memoized so each distinct one is explored once.
//   connection closed c  -> responses to c are never seen; dropped.
// Equal hypotheses are merged (the idea of Lowe's and Horn & Kroening's
// linearizability checkers: cache configurations, not paths), and a request on
// a closed connection whose processing changes nothing is never processed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "dualfuzz/oracle/hypothesis.h"
#include "dualfuzz/oracle/reason.h"
#include "dualfuzz/oracle/solver.h"

namespace dualfuzz::oracle {

struct SearchLimits {
  std::size_t max_hypotheses = 1'000'000;  // beyond: inconclusive, never reject
  // Configurations explored over the whole trace by the incremental search
  // (0: no limit); beyond: inconclusive, never reject. Fuzzing sets it so
  // that a rare script with an explosive number of interleavings costs a
  // bounded time instead of seconds.
  std::size_t max_explored = 0;
  // Configurations one response may take the incremental search (which
  // keeps every explanation) before it goes depth-first for the rest of the
  // trace, keeping one explanation and backing up when it dies (0: never).
  // The verdicts are the same; a highly concurrent history (50 clients) has
  // millions of explanations but needs few configurations to find one.
  std::size_t depth_first_after = 20'000;
  // The incremental (breadth-first) search sets aside a step that absorbs a
  // request no response has answered yet, on another connection than the
  // one whose response it explains, when the model state does not change
  // (a read, a refused write): such a step is only ever needed to explain
  // that request's own response, which the trace has not shown. The
  // hypotheses set aside are dropped when that response comes and
  // contradicts them, and run forward through the observations since (the
  // search made exhaustive again) before any rejection: no verdict changes,
  // only the work (HypothesisSearch::Deferred). Fuzz executions set it: a
  // script's requests on other connections are unanswered while the search
  // explains one connection's response, and every read among them,
  // absorbed in every state, multiplied the configurations.
  bool set_aside_quiet_steps = false;
  std::size_t max_model_steps = 100'000;  // per request absorbed (divergence guard)
  std::size_t max_reasons = 8;
  // Keep each hypothesis's symbolic branches (Hypothesis::decisions).
  bool record_decisions = false;
  // The order in which the depth-first whole-trace check (check_offline)
  // tries the requests the server may absorb next: the oldest first (the
  // order they were sent in, as Porcupine tries them), the newest first, or
  // the one whose response the trace shows first (unanswered ones last).
  // Each is exhaustive: only the cost differs, and which one is cheaper
  // depends on the history (check_history runs all three for the first
  // budgets).
  enum class Order { Oldest, Newest, FirstAnswered };
  Order order = Order::Oldest;
  // Set (by another thread) once the search's outcome is no longer wanted:
  // the whole-trace searches then give up at their next configuration, as
  // at the end of their budget (GaveUp, never a verdict). check_history
  // stops so a partition that a violation found earlier in its order made
  // moot.
  const std::atomic<bool>* stop = nullptr;
  bool stopped() const { return stop && stop->load(std::memory_order_relaxed); }
  // Past this instant every search gives up (GaveUp, never a verdict). The
  // bounds above count configurations, and one configuration may cost a
  // solver call of up to its timeout: a fuzz campaign that classed one play
  // spent 25 s in Z3 (default: none; OracleOptions::time_budget sets it for a
  // whole-trace check).
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
  bool out_of_time() const {
    return deadline != std::chrono::steady_clock::time_point::max() &&
           std::chrono::steady_clock::now() >= deadline;
  }
};

struct StepOutcome {
  enum class Status { Alive, Dead, GaveUp } status = Status::Alive;
  std::vector<Reason> reasons;  // why hypotheses died (Dead) / why we gave up
};

// An observation for the offline (whole-trace) check.
struct Observation {
  enum class Kind { Request, Response, Close } kind;
  ConnId conn = 0;
  Label label = 0;
  std::shared_ptr<const Json> body;  // request or response
};

// What a search keeps beside its hypotheses: the requests it has interned
// and storage it reuses from one response to the next. Searches that never
// run at the same time and share a request decoder (an oracle's partitions)
// may share one, so that a short-lived search does not build its own.
struct SearchShared;
std::shared_ptr<SearchShared> make_search_shared();

class HypothesisSearch {
 public:
  // `decode`: the model's request decoder (ServerModel::decode), if any.
  HypothesisSearch(const Tree& initial, Solver& solver, SearchLimits limits = {},
                   RequestDecoder decode = nullptr,
                   std::shared_ptr<SearchShared> shared = nullptr);
  ~HypothesisSearch();
  HypothesisSearch(HypothesisSearch&&) noexcept;
  HypothesisSearch& operator=(HypothesisSearch&&) noexcept;

  StepOutcome request_sent(ConnId conn, Label label, std::shared_ptr<const Json> body);
  StepOutcome response_received(ConnId conn, Label label, const Json& response);
  StepOutcome connection_closed(ConnId conn);

  // Whole-trace check, depth-first with memoization: stops at the first
  // explanation of everything (much faster than the incremental search on
  // long, highly concurrent histories). `stopped_at`: the number of
  // observations explained by the deepest hypothesis; `budget`: configurations
  // to explore before giving up, counted from the first call: a later call
  // on the same trace (with a larger budget) resumes the search.
  StepOutcome check_offline(const std::vector<Observation>& trace,
                            std::size_t& stopped_at, std::size_t budget);

  // The same over the whole trace with the incremental (breadth-first)
  // search: exhaustive, best when explanations are few (rejections, short
  // concurrency windows). `lookahead`: a response a hypothesis sends on
  // another connection than the one observed now must match the one the
  // trace shows there later, or the hypothesis dies at once (as in the
  // depth-first check), so a rejection falls where no explanation gets past
  // together with the answers still to come, with the reasons of those that
  // died there (naming: the verdict is the same).
  StepOutcome check_breadth_first(const std::vector<Observation>& trace,
                                  std::size_t& stopped_at, std::size_t budget,
                                  bool lookahead = false);

  // The live explanations (after the search went depth-first: the one it
  // holds).
  const std::vector<Hypothesis>& hypotheses() const { return live_; }
  // Whether the incremental search has gone depth-first
  // (SearchLimits::depth_first_after).
  bool went_depth_first() const { return dfs_mode_; }
  std::size_t explored() const { return explored_; }

 private:
  struct Ctx;
  struct Dfs;
  struct Lookahead;
  std::unique_ptr<Lookahead> lookahead_;  // (check_breadth_first with lookahead)
  // Why a whole-trace search gave up at `budget` configurations, or before.
  std::string limit_text(std::size_t budget) const;
  // Runs the server until it waits at a Recv (or finishes); forks on Or and
  // undecided Decide.
  void settle(Hypothesis h, std::vector<Hypothesis>& out, Ctx& ctx);
  bool foreseen(const Hypothesis& h, ConnId conn, const Sym& response, Ctx& ctx);
  enum class Delivery { NothingInFlight, Matched, Mismatch };
  Delivery deliver_in_place(Hypothesis& h, ConnId c, const Json& v, Ctx& ctx);
  void expand(const Hypothesis& h, ConnId c, std::vector<Hypothesis>& succ, Ctx& ctx);
  // expand() in parts, for the depth-first check, which builds one family
  // of successors at a time (most nodes need only their first).
  Network::ConnList ready_order(const Hypothesis& h, ConnId c, Ctx& ctx);
  void expand_via(const Hypothesis& h, ConnId d, std::vector<Hypothesis>& succ, Ctx& ctx);
  StepOutcome finish(Ctx& ctx);
  // The breadth-first search of one response over live_; `set_aside`: which
  // steps SearchLimits::set_aside_quiet_steps sets aside: none (looking for
  // reasons), those absorbing a closed connection's request only (running
  // set-aside hypotheses forward: each round brings back one more such
  // step), or those and the quiet ones.
  enum class SetAside { None, Closed, All };
  StepOutcome response_received(ConnId conn, Label label, const Json& response,
                                std::size_t max_reasons, SetAside set_aside);
  // SearchLimits::set_aside_quiet_steps: the hypotheses set aside, each
  // positioned in the search of the logged response `at` (as a hypothesis
  // on that search's queue), and the observations since the first of them.
  struct Deferred {
    std::size_t at = 0;
    ConnId conn = 0;           // whose request it absorbed (unanswered then)
    std::size_t answered = 0;  // responses on conn observed since
    Hypothesis h;
  };
  std::vector<Deferred> deferred_;
  std::vector<Observation> log_;
  std::vector<Request> log_requests_;  // (interned, per logged request)
  std::set<ConnId> log_closed_;        // connections closed before log_[0]
  std::size_t log_current_ = 0;        // log_'s entry for the response searched now
  bool current_logged_ = false;
  void log_response(ConnId conn, Label label, const Json& response);
  // Drops the set-aside hypotheses that the response on `conn` rules out.
  void prune_deferred(ConnId conn, const Json& response);
  // Runs every set-aside hypothesis forward through the logged observations
  // before `end` (their own searches included); the explanations reached, in
  // `out`. `closed_aside`: steps absorbing a closed connection's request are
  // set aside again (into deferred_, for the next round: the caller repeats
  // until an explanation or nothing is left); else exhaustively. False when
  // a limit stopped it.
  bool catch_up(std::size_t end, std::vector<Hypothesis>& out, Ctx& ctx,
                bool closed_aside = false);
  // check_offline's search; `resumable`: keeps its state after it has
  // explained the whole trace, to go on from there when the trace grows.
  StepOutcome search_depth_first(const std::vector<Observation>& trace,
                                 std::size_t& stopped_at, std::size_t budget,
                                 bool resumable);
  // The request with its body interned and decoded once.
  Request intern(ConnId conn, Label label, std::shared_ptr<const Json> body);

  Solver* solver_;
  SearchLimits limits_;
  std::vector<Hypothesis> live_;
  std::set<ConnId> closed_;
  std::size_t explored_ = 0;
  RequestDecoder decode_;
  std::unique_ptr<Dfs> dfs_;  // a depth-first check in progress (check_offline)
  // The incremental search gone depth-first: the observations since, which
  // dfs_ searches, resuming at each response.
  bool dfs_mode_ = false;
  std::vector<Observation> dfs_trace_;
  std::vector<Hypothesis> dfs_roots_;  // the explanations live at the switch
  std::set<ConnId> dfs_roots_closed_;  // and the connections closed then
  std::size_t dfs_fresh_nodes_ = 0;    // what the last fresh search cost
  StepOutcome resume_depth_first();
  std::shared_ptr<SearchShared> shared_;  // (made on first use if not given)
  SearchShared& shared();
};

}  // namespace dualfuzz::oracle
