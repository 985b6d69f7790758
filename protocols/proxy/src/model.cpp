#include "dualfuzz/proxy/model.h"

#include <boost/container/flat_map.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "dualfuzz/harness/transport.h"
#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::proxy {
namespace {
using oracle::Answer;
using oracle::ConnId;
using oracle::Label;
using oracle::Request;
using oracle::Sym;
using oracle::Tree;

// A response the proxy owes a client, in the order of its requests.
struct Owed {
  Label label = 0;
  std::string method;
  std::string range;  // the request's Range field (a proxy may serve it itself)
  std::optional<Sym> response;  // known once answered (relayed or its own)
  const char* clause = kRelayClause;
  friend bool operator==(const Owed& a, const Owed& b) {
    return a.label == b.label && a.method == b.method && a.range == b.range &&
           a.response == b.response;
  }
};
// A request received and not yet forwarded. Identified by (client, label):
// the body is a function of the label.
struct Pending {
  ConnId client = 0;
  Label label = 0;
  std::shared_ptr<const Json> body;
  // A request the proxy must answer itself (Max-Forwards 0 on TRACE or
  // OPTIONS), in the branch where it forwards it anyway: that forward
  // expects what no forwarded request has, so a proxy that makes it is told
  // the clause it broke, not only that nothing was outstanding on the
  // origin connection (see input).
  bool forbidden = false;
  friend bool operator==(const Pending& a, const Pending& b) {
    return a.client == b.client && a.label == b.label && a.forbidden == b.forbidden;
  }
};
struct OriginConn {
  bool free = false;  // the tester's last message is answered by nothing yet
  std::vector<std::pair<ConnId, Label>> carrying;  // forwarded, unanswered
  friend bool operator==(const OriginConn&, const OriginConn&) = default;
};

struct State {
  std::vector<Pending> pending;  // in order of arrival
  // (Flat maps and vectors, not std::map and deques: a state is copied at
  // every step of the search and these hold a few entries each.)
  boost::container::flat_map<ConnId, std::vector<Owed>> owed;
  boost::container::flat_map<ConnId, OriginConn> origins;
  friend bool operator==(const State&, const State&) = default;
};

void to_json(Json& j, const State& s) {
  j = Json::object();
  Json p = Json::array();
  for (const Pending& x : s.pending) p.push_back(x.label);
  j["pending"] = p;
  Json o = Json::object();
  for (const auto& [c, q] : s.owed) {
    Json a = Json::array();
    for (const Owed& x : q)
      a.push_back({{"label", x.label}, {"answered", x.response.has_value()}});
    o[std::to_string(c)] = a;
  }
  j["owed"] = o;
  Json g = Json::object();
  for (const auto& [c, x] : s.origins) {
    Json carrying = Json::array();
    for (const auto& [client, label] : x.carrying) carrying.push_back(label);
    g[std::to_string(c)] = {{"free", x.free}, {"carrying", carrying}};
  }
  j["origins"] = g;
}

}  // namespace
}  // namespace dualfuzz::proxy

template <>
struct std::hash<dualfuzz::proxy::State> {
  std::size_t operator()(const dualfuzz::proxy::State& s) const {
    std::size_t h = 0x51ed27;
    auto mix = [&h](std::size_t v) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    };
    for (const auto& p : s.pending) mix(p.client * 31 + p.label);
    for (const auto& [c, q] : s.owed) {
      mix(c);
      for (const auto& o : q) mix(o.label * 7 + (o.response ? o.response->hash() : 1));
    }
    for (const auto& [c, o] : s.origins) {
      mix(c * 3 + o.free);
      for (const auto& [client, label] : o.carrying) mix(label);
    }
    return h;
  }
};

namespace dualfuzz::proxy {
namespace {

class ProxyModel {
 public:
  explicit ProxyModel(ModelOptions o) : o_(o) {}

  // Where the model stands after an input: it sends what it owes in order,
  // then may forward, then waits.
  Tree settle(State s) const {
    for (auto it = s.owed.begin(); it != s.owed.end();)
      it = it->second.empty() ? s.owed.erase(it) : std::next(it);
    for (auto& [c, q] : s.owed) {
      if (!q.front().response) continue;
      const ConnId client = c;
      Owed head = std::move(q.front());
      q.erase(q.begin());
      Tree next = settle(std::move(s));
      return oracle::send(client, std::move(*head.response), std::move(next),
                          head.clause);
    }
    // Which pending request goes on which free origin connection, if any:
    // each a branch, built only when the search takes it.
    std::vector<std::pair<std::size_t, ConnId>> moves;
    for (std::size_t i = 0; i < s.pending.size(); ++i)
      for (const auto& [o, conn] : s.origins)
        if (conn.free) moves.emplace_back(i, o);
    return branches(std::make_shared<const State>(std::move(s)),
                    std::make_shared<const std::vector<std::pair<std::size_t, ConnId>>>(
                        std::move(moves)),
                    0);
  }

 private:
  using Moves = std::shared_ptr<const std::vector<std::pair<std::size_t, ConnId>>>;

  Tree branches(std::shared_ptr<const State> s, Moves moves, std::size_t k) const {
    if (k == moves->size()) return wait(*s);
    oracle::ServerEvent e{oracle::EventKind::Or, {}, 0,      {},
                          oracle::Sort::Bool,    {}, nullptr};
    return Tree::vis(std::move(e), [self = *this, s, moves, k](const Answer& a) -> Tree {
      if (!std::get<bool>(a)) return self.branches(s, moves, k + 1);
      return self.forward(*s, (*moves)[k].first, (*moves)[k].second);
    });
  }

  Tree forward(State s, std::size_t i, ConnId o) const {
    Pending p = s.pending[i];
    s.pending.erase(s.pending.begin() + static_cast<std::ptrdiff_t>(i));
    OriginConn& conn = s.origins[o];
    conn.free = false;
    conn.carrying.emplace_back(p.client, p.label);
    Tree next = settle(std::move(s));
    if (p.forbidden)
      return oracle::send(o, never_forwarded_pattern(), std::move(next),
                          kMaxForwardsClause);
    return oracle::send(o, forwarded_pattern(*p.body, o_.mode), std::move(next),
                        kForwardClause);
  }

  Tree wait(const State& s) const {
    return oracle::recv(
        oracle::ModelState(s),
        [self = *this, s](const Request& q) -> Tree { return self.input(s, q); });
  }

  Tree input(State s, const Request& q) const {
    if (harness::is_accepted_conn(q.conn)) {
      OriginConn& conn = s.origins[q.conn];
      if (!is_acceptance(q.json()) && !conn.carrying.empty()) {
        auto [client, label] = conn.carrying.front();
        conn.carrying.erase(conn.carrying.begin());
        for (Owed& x : s.owed[client])
          if (x.label == label) {
            x.response = relayed_pattern(q.json(), x.method, o_.mode, x.range);
            // (Or the proxy gave up waiting just before the answer came: a
            // 504, or a 502.)
            if (o_.lost_forwards) x.response = Sym::alt({*x.response, lost_pattern()});
          }
      }
      // An answer that says `Connection: close` ends the connection.
      conn.free = !connection_options(q.json()).count("close");
      return settle(std::move(s));
    }
    const Json& body = q.json();
    Owed owed;
    owed.label = q.label;
    owed.method = body.is_object() && body.contains("method") && body["method"].is_string()
                      ? body["method"].get<std::string>()
                      : "GET";
    if (body.is_object() && body.contains("headers") && body["headers"].is_object()) {
      auto r = body["headers"].find("range");
      if (r != body["headers"].end() && r->is_string()) owed.range = r->get<std::string>();
    }
    if (answered_by_proxy(body)) {
      // Answered by the proxy, or (a branch that lives until the proxy's
      // answer or a forward shows which) forwarded against §7.6.2.
      owed.clause = kMaxForwardsClause;
      State forwarded = s;
      forwarded.owed[q.conn].push_back(owed);
      forwarded.pending.push_back({q.conn, q.label, q.body, /*forbidden=*/true});
      owed.response = own_answer_pattern();
      s.owed[q.conn].push_back(std::move(owed));
      return oracle::choose(settle(std::move(s)), settle(std::move(forwarded)));
    }
    s.owed[q.conn].push_back(owed);
    if (!o_.refusals && !o_.lost_forwards) {
      s.pending.push_back({q.conn, q.label, q.body});
      return settle(std::move(s));
    }
    // Refused by policy (an error of its own, refusal_pattern), or lost on
    // an origin connection that failed (502/504: lost_pattern): either way
    // never forwarded, as far as the tester sees.
    State refused = s;
    refused.owed[q.conn].back().response = o_.refusals ? refusal_pattern() : lost_pattern();
    refused.owed[q.conn].back().clause = o_.refusals ? kRefusalClause : kLostClause;
    s.pending.push_back({q.conn, q.label, q.body});
    return oracle::choose(settle(std::move(s)), settle(std::move(refused)));
  }

  ModelOptions o_;
};

}  // namespace

oracle::ServerModel model(ModelOptions options) {
  oracle::ServerModel m;
  m.name = options.mode == Mode::Forward ? "HTTP forward proxy" : "HTTP gateway";
  m.initial = [options] { return ProxyModel(options).settle(State{}); };
  return m;
}

}  // namespace dualfuzz::proxy
