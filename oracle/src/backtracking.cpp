#include "dualfuzz/oracle/backtracking.h"

#include <unordered_map>

#include "dualfuzz/oracle/dualize.h"

namespace dualfuzz::oracle {
namespace {

std::string brief(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

// Hypotheses with structural dedupe (hash + equality).
class HypSet {
 public:
  bool insert(const Hypothesis& h) {
    std::size_t k = h.hash();
    auto [lo, hi] = index_.equal_range(k);
    for (auto it = lo; it != hi; ++it)
      if (items_[it->second] == h) return false;
    index_.emplace(k, items_.size());
    items_.push_back(h);
    return true;
  }
  std::size_t size() const { return items_.size(); }
  std::vector<Hypothesis> take() { return std::move(items_); }

 private:
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
  HypSet merged;
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
  HypSet next, visited;
  std::vector<Hypothesis> stack = std::move(live_);
  live_.clear();
  while (!stack.empty()) {
    Hypothesis h = std::move(stack.back());
    stack.pop_back();
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
