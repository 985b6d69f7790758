#include "dualfuzz/proxy/model.h"

#include <boost/container/flat_map.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "dualfuzz/harness/script.h"
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
// What the model reads from a client's request: made once per distinct
// request by the model's decoder (ServerModel::decode), not at each of the
// hypotheses the request reaches (building the forward's pattern there was
// a sixth of the proxy tester's CPU).
struct ClientRequest final : oracle::DecodedRequest {
  std::string method;
  std::string range;  // its Range field
  bool own = false;   // the proxy must answer it itself (answered_by_proxy)
  bool idempotent = false;             // RFC 9110 §9.2.2: a lost forward may be retried
  std::shared_ptr<const Sym> forward;  // what its forward must look like
  // What a proxy process may answer instead of forwarding it (and the
  // clause that allows it): a refusal by policy, or one the RFC leaves to
  // the proxy for this request (open_refusal_pattern).
  std::shared_ptr<const Sym> refusal;
  const char* refusal_clause = kPolicyRefusalClause;
};

std::shared_ptr<const ClientRequest> read_request(const Json& body, Mode mode) {
  auto r = std::make_shared<ClientRequest>();
  r->method = body.is_object() && body.contains("method") && body["method"].is_string()
                  ? body["method"].get<std::string>()
                  : "GET";
  if (body.is_object() && body.contains("headers") && body["headers"].is_object()) {
    auto range = body["headers"].find("range");
    if (range != body["headers"].end() && range->is_string())
      r->range = range->get<std::string>();
  }
  r->own = answered_by_proxy(body);
  r->idempotent = idempotent_method(r->method);
  r->forward = std::make_shared<const Sym>(r->own ? never_forwarded_pattern()
                                                  : forwarded_pattern(body, mode));
  Sym refusal = policy_refusal_pattern(r->method == "GET" || r->method == "HEAD");
  if (std::optional<Sym> wider = open_refusal_pattern(body)) {
    refusal = Sym::alt({std::move(refusal), std::move(*wider)});
    r->refusal_clause = kOpenRefusalClause;
  }
  r->refusal = std::make_shared<const Sym>(std::move(refusal));
  return r;
}

// An origin answer as the model reads it: what its relay to the client
// must look like depends on the client's request too (a HEAD, a Range), so
// it is built once per kind of request the answer meets, and kept for
// every hypothesis the answer reaches (a sixth of the tester's CPU when
// built at each).
class OriginAnswer final : public oracle::DecodedRequest {
 public:
  explicit OriginAnswer(const Json& body)
      : close_(connection_options(body).count("close") > 0), body_(body) {}
  bool close() const { return close_; }
  Sym relayed(const std::string& method, const std::string& range, Mode mode,
              bool lost) const {
    // (Unlike the model's other readings this one fills in as it is used,
    // and one decoded answer may reach searches on several threads.)
    std::lock_guard<std::mutex> hold(mutex_);
    for (const Relay& r : relays_)
      if (r.method == method && r.range == range && r.mode == mode && r.lost == lost)
        return r.pattern;
    Sym p = relayed_pattern(body_, method, mode, range);
    // (Or the proxy gave up waiting just before the answer came: a 504, or
    // a 502.)
    if (lost) p = Sym::alt({std::move(p), lost_pattern()});
    relays_.push_back({method, range, mode, lost, p});
    return p;
  }

 private:
  struct Relay {
    std::string method, range;
    Mode mode;
    bool lost;
    Sym pattern;
  };
  const bool close_;  // it says `Connection: close`
  const Json body_;
  mutable std::mutex mutex_;
  mutable std::vector<Relay> relays_;
};

// A request received and not yet forwarded. Identified by (client, label):
// the pattern is a function of the label.
struct Pending {
  ConnId client = 0;
  Label label = 0;
  // What its forward must look like (ClientRequest::forward): the search
  // offers each pending request's forward at every step until one is
  // taken, and building the pattern there was a third of the proxy
  // tester's CPU.
  std::shared_ptr<const Sym> forward;
  // Non-null: a forward the proxy MUST NOT make, and the clause it breaks.
  // A request it must answer itself (Max-Forwards 0 on TRACE or OPTIONS),
  // in the branch where it forwards it anyway (see input); a non-idempotent
  // request the origin hung up on, retried at once (see lose). That forward
  // expects what no forwarded request has, so a proxy that makes it is told
  // the clause it broke, not only that nothing was outstanding on the
  // origin connection.
  const char* forbidden = nullptr;
  bool idempotent = false;  // ClientRequest::idempotent
  friend bool operator==(const Pending& a, const Pending& b) {
    return a.client == b.client && a.label == b.label && a.forbidden == b.forbidden;
  }
};
// A request forwarded on an origin connection and not yet answered there.
struct Carried {
  ConnId client = 0;
  Label label = 0;
  std::shared_ptr<const Sym> forward;  // (for a retry after the origin hung up)
  bool idempotent = false;
  friend bool operator==(const Carried& a, const Carried& b) {
    return a.client == b.client && a.label == b.label;
  }
};
struct OriginConn {
  bool free = false;  // the tester's last message is answered by nothing yet
  std::vector<Carried> carrying;  // forwarded, unanswered
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
    for (const Carried& k : x.carrying) carrying.push_back(k.label);
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
      for (const auto& k : o.carrying) mix(k.label);
    }
    return h;
  }
};

namespace dualfuzz::proxy {
namespace {

// The forward of a request that must not be forwarded (Pending::forbidden).
const std::shared_ptr<const Sym>& never_forwarded() {
  static const auto p = std::make_shared<const Sym>(never_forwarded_pattern());
  return p;
}

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
    // (Nothing to forward, the common case: the state moves into the wait
    // without a copy.)
    if (moves.empty()) return wait(std::move(s));
    return branches(std::make_shared<const State>(std::move(s)),
                    std::make_shared<const std::vector<std::pair<std::size_t, ConnId>>>(
                        std::move(moves)),
                    0);
  }

 private:
  using Moves = std::shared_ptr<const std::vector<std::pair<std::size_t, ConnId>>>;

  Tree branches(std::shared_ptr<const State> s, Moves moves, std::size_t k) const {
    if (k == moves->size()) return wait(State(*s));
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
    conn.carrying.push_back({p.client, p.label, p.forward, p.idempotent});
    Tree next = settle(std::move(s));
    return oracle::send(o, *p.forward, std::move(next),
                        p.forbidden ? p.forbidden : kForwardClause);
  }

  Tree wait(State s) const {
    // (The state is kept once, in the ModelState the search compares; the
    // continuation reads it from there.)
    oracle::ModelState state(std::move(s));
    return oracle::recv(state, [self = *this, state](const Request& q) -> Tree {
      return self.input(*state.get<State>(), q);
    });
  }

  Tree input(State s, const Request& q) const {
    const bool opened = harness::is_accepted_conn(q.conn) && is_acceptance(q.json());
    if (!opened)  // (a retry forbidden by lose: only until another input)
      std::erase_if(s.pending,
                    [](const Pending& p) { return p.forbidden == kAbortedClause; });
    if (harness::is_accepted_conn(q.conn)) {
      OriginConn& conn = s.origins[q.conn];
      if (opened) {
        conn.free = true;
        return settle(std::move(s));
      }
      if (harness::is_abort(q.json())) {
        // The origin hung up without answering: what o carried is lost.
        conn.free = false;
        std::vector<Carried> lost = std::move(conn.carrying);
        conn.carrying.clear();
        return lose(std::move(s), std::move(lost), 0);
      }
      // (Without the decoder's reading, read here.)
      std::shared_ptr<const OriginAnswer> fresh;
      const OriginAnswer* answer = q.decoded_as<OriginAnswer>();
      if (!answer)
        answer = (fresh = std::make_shared<const OriginAnswer>(q.json())).get();
      if (!conn.carrying.empty()) {
        const ConnId client = conn.carrying.front().client;
        const Label label = conn.carrying.front().label;
        conn.carrying.erase(conn.carrying.begin());
        for (Owed& x : s.owed[client])
          if (x.label == label)
            x.response = answer->relayed(x.method, x.range, o_.mode, o_.lost_forwards);
      }
      // An answer that says `Connection: close` ends the connection.
      conn.free = !answer->close();
      return settle(std::move(s));
    }
    // (Without the decoder's reading, e.g. a model run by hand, read here.)
    std::shared_ptr<const ClientRequest> fresh;
    const ClientRequest* r = q.decoded_as<ClientRequest>();
    if (!r) r = (fresh = read_request(q.json(), o_.mode)).get();
    Owed owed;
    owed.label = q.label;
    owed.method = r->method;
    owed.range = r->range;
    if (r->own) {
      // Answered by the proxy, or (a branch that lives until the proxy's
      // answer or a forward shows which) forwarded against §7.6.2.
      owed.clause = kMaxForwardsClause;
      State forwarded = s;
      forwarded.owed[q.conn].push_back(owed);
      forwarded.pending.push_back(
          {q.conn, q.label, r->forward, kMaxForwardsClause, r->idempotent});
      owed.response = own_answer_pattern();
      s.owed[q.conn].push_back(std::move(owed));
      return oracle::choose(settle(std::move(s)), settle(std::move(forwarded)));
    }
    s.owed[q.conn].push_back(owed);
    if (!o_.refusals && !o_.lost_forwards) {
      s.pending.push_back({q.conn, q.label, r->forward, nullptr, r->idempotent});
      return settle(std::move(s));
    }
    // Refused (any error of its own when asked for, refusal_pattern; by
    // policy, policy_refusal_pattern, in a proxy process), or lost on an
    // origin connection that failed (502/504, within both): either way
    // never forwarded, as far as the tester sees.
    State refused = s;
    refused.owed[q.conn].back().response = o_.refusals ? refusal_pattern() : *r->refusal;
    refused.owed[q.conn].back().clause = o_.refusals ? kRefusalClause : r->refusal_clause;
    s.pending.push_back({q.conn, q.label, r->forward, nullptr, r->idempotent});
    return oracle::choose(settle(std::move(s)), settle(std::move(refused)));
  }

  // Each request lost[k...] the origin hung up on: its client gets a 502
  // (or 504) of the proxy's own; an idempotent one MAY instead be retried,
  // i.e. forwarded again, a non-idempotent one MUST NOT (RFC 9110 §9.2.2).
  Tree lose(State s, std::vector<Carried> lost, std::size_t k) const {
    if (k == lost.size()) return settle(std::move(s));
    const Carried c = lost[k];
    State given_up = s;
    for (Owed& x : given_up.owed[c.client])
      if (x.label == c.label) {
        x.response = lost_pattern();
        x.clause = kAbortedClause;
      }
    if (!c.idempotent) {
      // A retry at once (on a free origin connection, or on the next one
      // opened) breaks §9.2.2 by name; one later is still a forward nothing
      // outstanding explains (input drops the entry).
      given_up.pending.push_back(
          {c.client, c.label, never_forwarded(), kAbortedClause, false});
      return lose(std::move(given_up), std::move(lost), k + 1);
    }
    s.pending.push_back({c.client, c.label, c.forward, nullptr, true});
    Tree retried = lose(std::move(s), lost, k + 1);
    return oracle::choose(lose(std::move(given_up), std::move(lost), k + 1),
                          std::move(retried));
  }

  ModelOptions o_;
};

}  // namespace

oracle::ServerModel model(ModelOptions options) {
  oracle::ServerModel m;
  m.name = options.mode == Mode::Forward ? "HTTP forward proxy" : "HTTP gateway";
  m.initial = [options] { return ProxyModel(options).settle(State{}); };
  // A client's request, or an origin's answer (it has a status); the
  // origin's acceptance is read as it comes.
  m.decode = [mode = options.mode](
                 const Json& body) -> std::shared_ptr<const oracle::DecodedRequest> {
    if (!body.is_object() || is_acceptance(body)) return nullptr;
    if (body.contains("status")) return std::make_shared<const OriginAnswer>(body);
    return read_request(body, mode);
  };
  return m;
}

}  // namespace dualfuzz::proxy
