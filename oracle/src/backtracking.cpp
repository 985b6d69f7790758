#include "dualfuzz/oracle/backtracking.h"

#include <deque>
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
// is observable. So a hypothesis that still holds it can do everything one
// that already processed it can, provided the two agree on everything else
// (server state, the other channels, constraints). Of such hypotheses only
// those with the most left in the closed queues matter (queues are suffixes
// of what was sent, so lengths compare them). Without this, Jepsen's
// indeterminate (:info) calls double the hypotheses per call.
class SubsumptionSet {
 public:
  explicit SubsumptionSet(const std::set<ConnId>& closed) : closed_(closed) {}

  // False if an entry already subsumes h (h is then redundant).
  bool insert(const Hypothesis& h) {
    Entry e{h, {}};
    for (ConnId c : closed_) {
      std::size_t n = e.core.net.pending_on(c);
      e.left.push_back(n);
      if (n) e.core.net = e.core.net.without_requests(c);
    }
    auto [lo, hi] = index_.equal_range(e.core.hash());
    for (auto it = lo; it != hi; ++it) {
      const Entry& x = entries_[it->second];
      if (covers(x.left, e.left) && x.core == e.core) return false;
    }
    index_.emplace(e.core.hash(), entries_.size());
    entries_.push_back(std::move(e));
    items_.push_back(h);
    return true;
  }
  std::size_t size() const { return items_.size(); }
  // The inserted hypotheses minus those a later insertion subsumes.
  std::vector<Hypothesis> take() {
    std::vector<Hypothesis> out;
    out.reserve(items_.size());
    for (std::size_t i = 0; i < items_.size(); ++i) {
      bool dominated = false;
      auto [lo, hi] = index_.equal_range(entries_[i].core.hash());
      for (auto it = lo; it != hi && !dominated; ++it) {
        std::size_t j = it->second;
        dominated = j != i && covers(entries_[j].left, entries_[i].left) &&
                    entries_[j].left != entries_[i].left &&
                    entries_[j].core == entries_[i].core;
      }
      if (!dominated) out.push_back(std::move(items_[i]));
    }
    return out;
  }

 private:
  struct Entry {
    Hypothesis core;
    std::vector<std::size_t> left;
  };
  static bool covers(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
    for (std::size_t k = 0; k < a.size(); ++k)
      if (a[k] < b[k]) return false;
    return true;
  }
  const std::set<ConnId>& closed_;
  std::vector<Entry> entries_;
  std::vector<Hypothesis> items_;
  std::unordered_multimap<std::size_t, std::size_t> index_;
};

}  // namespace

struct HypothesisSearch::Ctx {
  std::size_t max_reasons;
  std::vector<std::string> reasons;
  bool gave_up = false;
  std::string gave_up_why;
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

HypothesisSearch::HypothesisSearch(const Tree& initial, Solver& solver, SearchLimits limits)
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

StepOutcome HypothesisSearch::response_received(ConnId c, Label label, const Json& v) {
  (void)label;
  StepOutcome o;
  Ctx ctx{limits_.max_reasons, {}, false, {}};
  if (closed_.count(c)) {
    o.status = StepOutcome::Status::GaveUp;
    o.reasons.push_back("response observed on connection " + std::to_string(c) +
                        " after the tester closed it");
    return o;
  }
  // Breadth-first, so hypotheses that processed fewer requests come first and
  // subsume those that processed more closed-connection requests.
  SubsumptionSet next(closed_), visited(closed_);
  std::deque<Hypothesis> stack(std::make_move_iterator(live_.begin()),
                               std::make_move_iterator(live_.end()));
  live_.clear();
  while (!stack.empty()) {
    Hypothesis h = std::move(stack.front());
    stack.pop_front();
    if (!visited.insert(h)) continue;
    ++explored_;
    if (visited.size() > limits_.max_hypotheses) {
      ctx.give_up("more than " + std::to_string(limits_.max_hypotheses) +
                  " hypotheses for one observation");
      break;
    }
    if (const Sym* p = h.net.front_response(c)) {
      Guard g = guard(h.store.resolve(*p), v);
      if (!g.ok()) {
        ctx.reason(g.mismatch + " (server state " + brief(h.model_state()) + ")");
        continue;
      }
      Hypothesis m = h;
      m.net.pop_response(c);
      Sat s = m.store.add(g.constraint, *solver_);
      if (s == Sat::No) {
        ctx.reason("the response contradicts what earlier messages revealed: " +
                   g.constraint.to_string() + " is impossible (server state " +
                   brief(h.model_state()) + ")");
        continue;
      }
      next.insert(m);
      continue;
    }
    if (h.server.is_ret()) {
      ctx.reason("the server model has stopped; it sends nothing more");
      continue;
    }
    std::vector<ConnId> ready = h.net.ready();
    bool own_request = false;
    for (ConnId d : ready) own_request = own_request || d == c;
    if (!own_request && ready.empty()) {
      ctx.reason("no request is outstanding on connection " + std::to_string(c) +
                 ", so no response can arrive there");
      continue;
    }
    for (ConnId d : ready) {
      Hypothesis base = h;
      Request r = *base.net.pop_request(d);
      Hypothesis stepped = base;
      stepped.server = h.server.step(r);
      std::vector<Hypothesis> outs;
      settle(std::move(stepped), outs, ctx);
      bool more_on_d = false;
      for (ConnId x : base.net.ready()) more_on_d = more_on_d || x == d;
      bool dead_conn = closed_.count(d) > 0 && !more_on_d;
      for (Hypothesis& s : outs) {
        // A request from a closed connection whose processing left no trace
        // is dominated by not processing it (it stays available for later).
        if (dead_conn && s == base) continue;
        stack.push_back(std::move(s));
      }
    }
    if (!own_request)
      ctx.reason("the server answers in order on each connection, and connection " +
                 std::to_string(c) + " has nothing to answer");
  }
  live_ = next.take();
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

}  // namespace dualfuzz::oracle
