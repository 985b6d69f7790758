#include "dualfuzz/oracle/oracle.h"

#include <algorithm>

namespace dualfuzz::oracle {
namespace {
std::string brief(const Json& v, std::size_t max = 200) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}
}  // namespace

std::string Event::describe() const {
  std::string c = "connection " + std::to_string(conn);
  switch (kind) {
    case Kind::Open: return c + " opened";
    case Kind::Close: return c + " closed by the tester";
    case Kind::Request:
      return "request " + std::to_string(label) + " sent on " + c + ": " + brief(payload);
    case Kind::Response:
      return "response " + std::to_string(label) + " received on " + c + ": " +
             brief(payload);
  }
  return "?";
}

Oracle::Oracle(ServerModel model, OracleOptions options)
    : model_(std::move(model)),
      options_(options),
      solver_(std::make_unique<Solver>(options.solver_timeout_ms)) {
  if (!model_.initial) throw std::invalid_argument("ServerModel without an initial tree");
  if (!model_.partition) partition_for("");
}

HypothesisSearch& Oracle::partition_for(const std::string& key) {
  auto it = parts_.find(key);
  if (it != parts_.end()) return it->second;
  it = parts_.emplace(key, HypothesisSearch(model_.initial(), *solver_, options_.limits)).first;
  // A new partition has seen none of its requests, but it must know which
  // connections are already closed.
  for (ConnId c : closed_) it->second.connection_closed(c);
  return it->second;
}

Verdict Oracle::fail(Verdict::Status st, const Event& e, const std::vector<std::string>& why,
                     std::size_t live_before) {
  Verdict v;
  v.status = st;
  v.event_index = events_ - 1;
  std::string s;
  if (st == Verdict::Status::Reject) {
    s = "VIOLATION at event " + std::to_string(v.event_index) + ": " + e.describe() +
        "\nNo correct " + model_.name + " server, across any TCP reordering, could have "
        "produced this trace. " + std::to_string(live_before) +
        " explanation(s) were alive before this message; they died because:\n";
  } else {
    s = "INCONCLUSIVE at event " + std::to_string(v.event_index) + ": " + e.describe() +
        "\nThe oracle stopped without a verdict:\n";
  }
  for (const auto& r : why) s += "  - " + r + "\n";
  v.explanation = s;
  verdict_ = v;
  return v;
}

Verdict Oracle::observe(const Event& e) {
  if (!verdict_.accepted()) return verdict_;
  ++events_;
  StepOutcome out;
  std::size_t live_before = 0;
  switch (e.kind) {
    case Event::Kind::Open:
      break;
    case Event::Kind::Close:
      closed_.push_back(e.conn);
      for (auto& [k, p] : parts_) p.connection_closed(e.conn);
      outstanding_.erase(e.conn);
      break;
    case Event::Kind::Request: {
      std::string key;
      if (model_.partition) {
        auto k = model_.partition(e.payload);
        key = k ? *k : std::string();
      }
      outstanding_[e.conn].push_back(key);
      out = partition_for(key).request_sent(e.conn, e.label,
                                            std::make_shared<const Json>(e.payload));
      break;
    }
    case Event::Kind::Response: {
      auto it = outstanding_.find(e.conn);
      if (it == outstanding_.end() || it->second.empty()) {
        return fail(Verdict::Status::Reject, e,
                    {"no request is outstanding on connection " + std::to_string(e.conn) +
                     ": a server answers only what it was asked (unsolicited response)"},
                    0);
      }
      std::string key = it->second.front();
      it->second.erase(it->second.begin());
      HypothesisSearch& p = partition_for(key);
      live_before = p.hypotheses().size();
      out = p.response_received(e.conn, e.label, e.payload);
      break;
    }
  }
  std::size_t live = 0;
  for (auto& [k, p] : parts_) live += p.hypotheses().size();
  max_live_ = std::max(max_live_, live);
  if (out.status == StepOutcome::Status::Dead)
    return fail(Verdict::Status::Reject, e, out.reasons, live_before);
  if (out.status == StepOutcome::Status::GaveUp)
    return fail(Verdict::Status::Inconclusive, e, out.reasons, live_before);
  return verdict_;
}

OracleStats Oracle::stats() const {
  OracleStats s;
  s.events = events_;
  s.max_live_hypotheses = max_live_;
  s.partitions = parts_.size();
  for (const auto& [k, p] : parts_) {
    s.live_hypotheses += p.hypotheses().size();
    s.explored += p.explored();
  }
  s.solver = solver_->stats();
  return s;
}

std::vector<Json> Oracle::model_states(std::size_t max) const {
  std::vector<Json> out;
  for (const auto& [k, p] : parts_)
    for (const auto& h : p.hypotheses()) {
      if (out.size() >= max) return out;
      out.push_back(h.model_state());
    }
  return out;
}

Verdict check(const ServerModel& model, const std::vector<Event>& trace,
              OracleOptions options) {
  Oracle o(model, options);
  for (const Event& e : trace)
    if (!o.observe(e).accepted()) break;
  return o.verdict();
}

}  // namespace dualfuzz::oracle
