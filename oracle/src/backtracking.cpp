#include "dualfuzz/oracle/backtracking.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include "dualfuzz/oracle/dualize.h"

namespace dualfuzz::oracle {
namespace {

std::string brief(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

// Subsumption over requests of closed connections. Such a request can be
// processed at any later time or never, and nothing it makes the server send
// is observable. So a hypothesis that still holds a whole closed queue can do
// everything one without that queue can (it never processes it), provided
// the two agree on everything else (server state, the other channels,
// constraints). Queues of closed
// connections are compared by content, not by connection: two closed
// connections each holding the same request are interchangeable. Without
// this, Jepsen's indeterminate (:info) calls double the hypotheses per call.
class SubsumptionSet {
 public:
  explicit SubsumptionSet(const std::set<ConnId>& closed) : closed_(closed) {}

  // False if an entry already subsumes h (h is then redundant). Entries h
  // subsumes are retired, so each group stays an antichain.
  bool insert(const Hypothesis& h) {
    if (closed_.empty()) {  // plain dedupe: no second copy for the core
      auto& group = index_[h.hash()];
      for (std::size_t i : group)
        if (items_[i] == h) return false;
      group.push_back(items_.size());
      items_.push_back(h);
      alive_.push_back(true);
      return true;
    }
    Entry e{h, {}};
    for (ConnId c : closed_) {
      if (const std::vector<Request>* q = e.core.net.requests_on(c)) {
        e.dead.push_back(*q);
        e.core.net = e.core.net.without_requests(c);
      }
    }
    auto& group = index_[e.core.hash()];
    for (std::size_t i : group)
      if (alive_[i] && covers(entries_[i].dead, e.dead) && entries_[i].core == e.core)
        return false;
    std::size_t kept = 0;
    for (std::size_t i : group) {
      if (alive_[i] && covers(e.dead, entries_[i].dead) && entries_[i].core == e.core) {
        alive_[i] = false;
        continue;
      }
      group[kept++] = i;
    }
    group.resize(kept);
    group.push_back(items_.size());
    entries_.push_back(std::move(e));
    items_.push_back(h);
    alive_.push_back(true);
    return true;
  }
  std::size_t size() const { return items_.size(); }
  // The inserted hypotheses that no later insertion subsumed.
  std::vector<Hypothesis> take() {
    std::vector<Hypothesis> out;
    out.reserve(items_.size());
    for (std::size_t i = 0; i < items_.size(); ++i)
      if (alive_[i]) out.push_back(std::move(items_[i]));
    return out;
  }

 private:
  using Queue = std::vector<Request>;
  struct Entry {
    Hypothesis core;
    std::vector<Queue> dead;  // non-empty closed-connection queues
  };
  static bool same(const Request& a, const Request& b) {
    return a.body == b.body || *a.body == *b.body;
  }
  static bool equal(const Queue& a, const Queue& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  // Every queue of `b` equals a distinct queue of `a`: `a` may hold whole
  // extra queues, which it can leave unprocessed forever and so behave like
  // `b`. (A mere suffix is not enough: `a` could reach the rest of such a
  // queue only by first processing its front, which may change the state —
  // a fuzzing run against a TCP server caught that as a false alarm.)
  // Greedy matching: a missed matching only costs pruning, never soundness.
  static bool covers(const std::vector<Queue>& a, const std::vector<Queue>& b) {
    if (b.size() > a.size()) return false;
    std::vector<bool> used(a.size(), false);
    for (const Queue& q : b) {
      bool found = false;
      for (std::size_t i = 0; i < a.size() && !found; ++i)
        if (!used[i] && equal(a[i], q)) used[i] = found = true;
      if (!found) return false;
    }
    return true;
  }
  const std::set<ConnId>& closed_;
  std::vector<Entry> entries_;
  std::vector<Hypothesis> items_;
  std::vector<bool> alive_;
  std::unordered_map<std::size_t, std::vector<std::size_t>> index_;
};

}  // namespace

struct HypothesisSearch::Ctx {
  std::size_t max_reasons;
  std::vector<std::string> reasons;
  bool gave_up = false;
  std::string gave_up_why;
  bool wants_reason() const { return reasons.size() < max_reasons; }
  void reason(std::string r) {
    if (reasons.size() >= max_reasons) return;
    for (const auto& x : reasons)
      if (x == r) return;
    reasons.push_back(std::move(r));
  }
  void give_up(std::string why) {
    if (!gave_up) gave_up_why = std::move(why);
    gave_up = true;
  }
};

HypothesisSearch::HypothesisSearch(const Tree& initial, Solver& solver,
                                   SearchLimits limits)
    : solver_(&solver), limits_(limits) {
  Hypothesis h;
  h.server = initial;
  Ctx ctx{limits_.max_reasons, {}, false, {}};
  settle(std::move(h), live_, ctx);
}

void HypothesisSearch::settle(Hypothesis h, std::vector<Hypothesis>& out, Ctx& ctx) {
  std::vector<Hypothesis> work;
  work.push_back(std::move(h));
  std::size_t steps = 0;
  while (!work.empty()) {
    Hypothesis cur = std::move(work.back());
    work.pop_back();
    for (;;) {
      if (++steps > limits_.max_model_steps) {
        ctx.give_up("the server model ran " + std::to_string(steps) +
                    " steps without waiting for a request (diverging model?)");
        return;
      }
      if (cur.server.is_ret() || cur.server.event().kind == EventKind::Recv) {
        out.push_back(std::move(cur));
        break;
      }
      const ServerEvent& ev = cur.server.event();
      switch (ev.kind) {
        case EventKind::Send:
          if (!closed_.count(ev.conn)) cur.net.push_response(ev.conn, ev.sym);
          cur.server = cur.server.step(std::monostate{});
          break;
        case EventKind::Fresh: {
          Sym v = Sym::var(cur.next_var++, ev.sort);
          cur.server = cur.server.step(v);
          break;
        }
        case EventKind::Decide: {
          Sym c = cur.store.resolve(ev.sym);
          if (c.is_true() || c.is_false()) {
            cur.server = cur.server.step(c.is_true());
            break;
          }
          Hypothesis alt = cur;
          if (alt.store.add(not_(c), *solver_) != Sat::No) {
            alt.server = alt.server.step(false);
            work.push_back(std::move(alt));
          }
          if (cur.store.add(c, *solver_) == Sat::No) goto next;
          cur.server = cur.server.step(true);
          break;
        }
        case EventKind::Assume:
          if (cur.store.add(cur.store.resolve(ev.sym), *solver_) == Sat::No) goto next;
          cur.server = cur.server.step(std::monostate{});
          break;
        case EventKind::Or: {
          Hypothesis alt = cur;
          alt.server = alt.server.step(false);
          work.push_back(std::move(alt));
          cur.server = cur.server.step(true);
          break;
        }
        case EventKind::Recv:
          break;  // unreachable: handled above
      }
    }
  next:;
  }
}

StepOutcome HypothesisSearch::request_sent(ConnId conn, Label label,
                                           std::shared_ptr<const Json> body) {
  StepOutcome o;
  if (closed_.count(conn)) {
    o.status = StepOutcome::Status::GaveUp;
    o.reasons.push_back("request sent on connection " + std::to_string(conn) +
                        " after it was closed");
    return o;
  }
  for (Hypothesis& h : live_) h.net.push_request(Request{conn, label, body});
  return o;
}

StepOutcome HypothesisSearch::connection_closed(ConnId conn) {
  closed_.insert(conn);
  SubsumptionSet merged(closed_);
  for (Hypothesis& h : live_) {
    h.net.drop_responses(conn);
    merged.insert(h);
  }
  live_ = merged.take();
  return {};
}

// What one hypothesis makes of a response observed on c.
HypothesisSearch::Delivery HypothesisSearch::deliver(const Hypothesis& h, ConnId c,
                                                     const Json& v, Hypothesis& out,
                                                     Ctx& ctx) {
  const Sym* p = h.net.front_response(c);
  if (!p) return Delivery::NothingInFlight;
  Guard g = guard(h.store.resolve(*p), v, ctx.wants_reason());
  if (!g.ok()) {
    if (ctx.wants_reason())
      ctx.reason(g.mismatch + " (server state " + brief(h.model_state()) + ")");
    return Delivery::Mismatch;
  }
  out = h;
  out.net.pop_response(c);
  if (out.store.add(g.constraint, *solver_) == Sat::No) {
    if (ctx.wants_reason())
      ctx.reason("the response contradicts what earlier messages revealed: " +
                 g.constraint.to_string() + " is impossible (server state " +
                 brief(h.model_state()) + ")");
    return Delivery::Mismatch;
  }
  return Delivery::Matched;
}

// The server absorbs one in-flight request (each connection's front, one
// successor family per connection), because c still waits for a response.
void HypothesisSearch::expand(const Hypothesis& h, ConnId c,
                              std::vector<Hypothesis>& succ, Ctx& ctx) {
  if (h.server.is_ret()) {
    ctx.reason("the server model has stopped; it sends nothing more");
    return;
  }
  std::vector<ConnId> ready = h.net.ready();
  bool own_request = false;
  for (ConnId d : ready) own_request = own_request || d == c;
  if (!own_request && ctx.wants_reason())
    ctx.reason(ready.empty()
                   ? "no request is outstanding on connection " + std::to_string(c) +
                         ", so no response can arrive there"
                   : "the server answers in order on each connection, and connection " +
                         std::to_string(c) + " has nothing left to answer");
  // Oldest request first: the likeliest order of execution, which is the
  // order the depth-first check tries first (as Porcupine does).
  // Requests of closed connections go last: they may wait forever, so
  // the cheapest explanation leaves them unprocessed.
  std::sort(ready.begin(), ready.end(), [&](ConnId x, ConnId y) {
    bool dx = closed_.count(x) > 0, dy = closed_.count(y) > 0;
    if (dx != dy) return dy;
    return h.net.requests_on(x)->front().label < h.net.requests_on(y)->front().label;
  });
  for (ConnId d : ready) {
    Hypothesis base = h;
    Request r = *base.net.pop_request(d);
    Hypothesis stepped = base;
    stepped.server = h.server.step(r);
    std::vector<Hypothesis> outs;
    settle(std::move(stepped), outs, ctx);
    bool dead_conn = closed_.count(d) > 0 && base.net.pending_on(d) == 0;
    for (Hypothesis& s : outs) {
      // A request from a closed connection whose processing left no trace
      // is dominated by not processing it (it stays available for later).
      if (dead_conn && s == base) continue;
      succ.push_back(std::move(s));
    }
  }
}

StepOutcome HypothesisSearch::finish(Ctx& ctx) {
  StepOutcome o;
  if (ctx.gave_up) {
    o.status = StepOutcome::Status::GaveUp;
    o.reasons = {ctx.gave_up_why};
    return o;
  }
  if (live_.empty()) {
    o.status = StepOutcome::Status::Dead;
    o.reasons = std::move(ctx.reasons);
    if (o.reasons.empty()) o.reasons.push_back("no hypothesis explains this response");
  }
  return o;
}

StepOutcome HypothesisSearch::response_received(ConnId c, Label label, const Json& v) {
  (void)label;
  Ctx ctx{limits_.max_reasons, {}, false, {}};
  if (closed_.count(c)) {
    ctx.give_up("response observed on connection " + std::to_string(c) +
                " after the tester closed it");
    return finish(ctx);
  }
  // Breadth-first, so hypotheses that processed fewer requests come first and
  // subsume those that processed more closed-connection requests.
  SubsumptionSet next(closed_), visited(closed_);
  std::deque<Hypothesis> queue(std::make_move_iterator(live_.begin()),
                               std::make_move_iterator(live_.end()));
  live_.clear();
  std::vector<Hypothesis> succ;
  while (!queue.empty()) {
    Hypothesis h = std::move(queue.front());
    queue.pop_front();
    if (!visited.insert(h)) continue;
    ++explored_;
    if (visited.size() > limits_.max_hypotheses) {
      ctx.give_up("more than " + std::to_string(limits_.max_hypotheses) +
                  " hypotheses for one observation");
      break;
    }
    Hypothesis m;
    switch (deliver(h, c, v, m, ctx)) {
      case Delivery::Matched:
        next.insert(m);
        continue;
      case Delivery::Mismatch:
        continue;
      case Delivery::NothingInFlight:
        break;
    }
    succ.clear();
    expand(h, c, succ, ctx);
    for (Hypothesis& s : succ) queue.push_back(std::move(s));
  }
  live_ = next.take();
  return finish(ctx);
}

StepOutcome HypothesisSearch::check_breadth_first(const std::vector<Observation>& trace,
                                                  std::size_t& stopped_at,
                                                  std::size_t budget) {
  const std::size_t start = explored_;
  const SearchLimits saved = limits_;
  limits_.max_hypotheses = std::min(limits_.max_hypotheses, budget);
  StepOutcome out;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const Observation& ob = trace[i];
    switch (ob.kind) {
      case Observation::Kind::Request:
        out = request_sent(ob.conn, ob.label, ob.body);
        break;
      case Observation::Kind::Response:
        out = response_received(ob.conn, ob.label, *ob.body);
        break;
      case Observation::Kind::Close:
        out = connection_closed(ob.conn);
        break;
    }
    if (out.status == StepOutcome::Status::Alive && explored_ - start > budget) {
      out.status = StepOutcome::Status::GaveUp;
      out.reasons = {"more than " + std::to_string(budget) + " configurations explored"};
    }
    if (out.status != StepOutcome::Status::Alive) {
      stopped_at = i;
      limits_ = saved;
      return out;
    }
  }
  stopped_at = trace.size();
  limits_ = saved;
  return out;
}

// Depth-first, like the thesis's backtracking tester (Fig. 4.12/4.13) and
// Porcupine: commit to one explanation, back up only when it fails. A node is
// (observations explained, hypothesis); nodes are memoized with subsumption,
// so every distinct configuration is expanded at most once.
StepOutcome HypothesisSearch::check_offline(const std::vector<Observation>& trace,
                                            std::size_t& stopped_at, std::size_t budget) {
  Ctx ctx{limits_.max_reasons, {}, false, {}};
  // Closed connections as of each position.
  std::vector<std::set<ConnId>> closed_at(trace.size() + 1, closed_);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    closed_at[i + 1] = closed_at[i];
    if (trace[i].kind == Observation::Kind::Close) closed_at[i + 1].insert(trace[i].conn);
  }
  // Lookahead (offline only): the k-th response in flight on d is the k-th
  // response observed on d from here on, so a hypothesis whose in-flight
  // response cannot match it is dead already — prune it now rather than
  // after exploring everything in between (Porcupine checks outputs at
  // linearization time for the same reason).
  std::map<ConnId, std::vector<std::size_t>> responses_on;
  for (std::size_t i = 0; i < trace.size(); ++i)
    if (trace[i].kind == Observation::Kind::Response)
      responses_on[trace[i].conn].push_back(i);
  auto doomed = [&](const Hypothesis& h, std::size_t i) {
    for (const auto& [d, rs] : h.net.responses()) {
      auto lit = responses_on.find(d);
      if (lit == responses_on.end()) continue;
      auto first = std::lower_bound(lit->second.begin(), lit->second.end(), i);
      for (std::size_t k = 0; k < rs->size() && first + k < lit->second.end(); ++k) {
        Guard g = guard(h.store.resolve((*rs)[k]), *trace[first[k]].body, false);
        if (!g.ok()) return true;
        if (!g.constraint.is_true()) {
          ConstraintStore probe = h.store;
          if (probe.add(g.constraint, *solver_) == Sat::No) return true;
        }
      }
    }
    return false;
  };
  std::vector<std::unique_ptr<SubsumptionSet>> seen(trace.size() + 1);
  for (std::size_t i = 0; i <= trace.size(); ++i)
    seen[i] = std::make_unique<SubsumptionSet>(closed_at[i]);
  std::vector<std::pair<std::size_t, Hypothesis>> stack;
  for (auto it = live_.rbegin(); it != live_.rend(); ++it) stack.emplace_back(0, *it);
  std::size_t deepest = 0, nodes = 0;
  std::vector<Hypothesis> succ;
  while (!stack.empty()) {
    auto [i, h] = std::move(stack.back());
    stack.pop_back();
    if (i == trace.size()) {
      live_ = {h};
      closed_ = closed_at[i];
      stopped_at = i;
      return {};
    }
    if (!seen[i]->insert(h)) continue;
    ++explored_;
    if (++nodes > budget) {
      ctx.give_up("more than " + std::to_string(budget) + " configurations explored");
      break;
    }
    if (i > deepest) {
      deepest = i;
      ctx.reasons.clear();
    }
    const Observation& ob = trace[i];
    closed_ = closed_at[i];
    switch (ob.kind) {
      case Observation::Kind::Request:
        h.net.push_request(Request{ob.conn, ob.label, ob.body});
        stack.emplace_back(i + 1, std::move(h));
        break;
      case Observation::Kind::Close:
        h.net.drop_responses(ob.conn);
        stack.emplace_back(i + 1, std::move(h));
        break;
      case Observation::Kind::Response: {
        Hypothesis m;
        ctx.max_reasons = i == deepest ? limits_.max_reasons : 0;
        switch (deliver(h, ob.conn, *ob.body, m, ctx)) {
          case Delivery::Matched:
            stack.emplace_back(i + 1, std::move(m));
            continue;
          case Delivery::Mismatch:
            continue;
          case Delivery::NothingInFlight:
            break;
        }
        succ.clear();
        expand(h, ob.conn, succ, ctx);
        for (auto it = succ.rbegin(); it != succ.rend(); ++it)
          if (!doomed(*it, i)) stack.emplace_back(i, std::move(*it));
        break;
      }
    }
  }
  live_.clear();
  stopped_at = deepest;
  return finish(ctx);
}

}  // namespace dualfuzz::oracle
