#include "dualfuzz/oracle/network_model.h"

#include <algorithm>

namespace dualfuzz::oracle {
namespace {
std::size_t mix(std::size_t h, std::size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
}  // namespace

const Network::Chans& Network::no_chans() {
  static const Chans none;  // (immutable)
  return none;
}

Network::Chans& Network::edit_chans() {
  if (!chans_)
    chans_ = detail::Shared<Chans>::make();
  else if (chans_.use_count() > 1)
    chans_ = detail::Shared<Chans>::make(*chans_);
  return chans_.mutable_value();
}

Network::Channel& Network::edit(ConnId c) {
  Chans& cs = edit_chans();
  auto it = std::lower_bound(cs.begin(), cs.end(), c,
                             [](const Entry& e, ConnId k) { return e.first < k; });
  if (it == cs.end() || it->first != c)
    it = cs.insert(it, Entry{c, detail::Shared<Channel>::make()});
  else if (it->second.use_count() > 1)
    it->second = detail::Shared<Channel>::make(*it->second);
  it->tag.store(0, std::memory_order_relaxed);  // (the channel is about to change)
  return it->second.mutable_value();
}

void Network::prune(ConnId c) {
  if (!chans_) return;
  Chans& cs = edit_chans();
  auto it = std::lower_bound(cs.begin(), cs.end(), c,
                             [](const Entry& e, ConnId k) { return e.first < k; });
  if (it != cs.end() && it->first == c && it->second->to_server.empty() &&
      it->second->to_client.empty())
    cs.erase(it);
}

void Network::push_request(Request r) {
  ConnId c = r.conn;
  edit(c).to_server.push_back(std::move(r));
}

std::optional<Request> Network::pop_request(ConnId c) {
  const Channel* ch = find(c);
  if (!ch || ch->to_server.empty()) return std::nullopt;
  if (ch->to_server.size() == 1 && ch->to_client.empty()) {
    // The channel empties: drop it without copying it first.
    Request r = ch->to_server.front();
    Chans& cs = edit_chans();
    cs.erase(std::lower_bound(cs.begin(), cs.end(), c,
                              [](const Entry& e, ConnId k) { return e.first < k; }));
    return r;
  }
  Channel& e = edit(c);
  Request r = std::move(e.to_server.front());
  e.to_server.erase(e.to_server.begin());
  prune(c);
  return r;
}

void Network::push_response(ConnId c, Sym response, Clause clause,
                            const ModelState* before) {
  ResponseQueue& q = edit(c).to_client;
  if (before)
    q.push_back(InFlight{std::move(response), clause, *before, true});
  else
    q.push_back(InFlight{std::move(response), clause, {}, false});
}

Clause Network::front_clause(ConnId c) const {
  const Channel* ch = find(c);
  return (ch && !ch->to_client.empty()) ? ch->to_client.front().clause : nullptr;
}

const Network::InFlight* Network::front_in_flight(ConnId c) const {
  const Channel* ch = find(c);
  return (ch && !ch->to_client.empty()) ? &ch->to_client.front() : nullptr;
}

void Network::pop_response(ConnId c) {
  const Channel* ch = find(c);
  if (!ch || ch->to_client.empty()) return;
  if (ch->to_client.size() == 1 && ch->to_server.empty()) {
    Chans& cs = edit_chans();  // the channel empties: no copy first
    cs.erase(std::lower_bound(cs.begin(), cs.end(), c,
                              [](const Entry& e, ConnId k) { return e.first < k; }));
    return;
  }
  Channel& e = edit(c);
  e.to_client.erase(e.to_client.begin());
  prune(c);
}

void Network::drop_unobservable(ConnId c) {
  const Channel* ch = find(c);
  if (!ch) return;
  auto unobservable = [](const Request& r) {
    return r.decoded && r.decoded->unobservable_unanswered();
  };
  const bool requests =
      std::any_of(ch->to_server.begin(), ch->to_server.end(), unobservable);
  if (ch->to_client.empty() && !requests) return;
  Channel& e = edit(c);
  e.to_client.clear();
  if (requests)
    e.to_server.erase(
        std::remove_if(e.to_server.begin(), e.to_server.end(), unobservable),
        e.to_server.end());
  prune(c);
}

std::vector<std::pair<ConnId, const Network::ResponseQueue*>> Network::responses() const {
  std::vector<std::pair<ConnId, const ResponseQueue*>> out;
  for (const Entry& e : chans())
    if (!e.second->to_client.empty()) out.emplace_back(e.first, &e.second->to_client);
  return out;
}

Network Network::without_requests(ConnId c) const {
  Network n = *this;
  if (!n.find(c)) return n;
  n.edit(c).to_server.clear();
  n.prune(c);
  return n;
}

Network Network::without_requests_of(const std::set<ConnId>& conns,
                                     std::vector<const RequestQueue*>& taken) const {
  Network n;
  Chans& out = n.edit_chans();
  out.reserve(chans().size());
  auto it = conns.begin();
  for (const Entry& e : chans()) {
    while (it != conns.end() && *it < e.first) ++it;
    if (it == conns.end() || *it != e.first || e.second->to_server.empty()) {
      out.push_back(e);
      continue;
    }
    taken.push_back(&e.second->to_server);
    if (e.second->to_client.empty()) continue;  // the channel becomes empty
    auto ch = detail::Shared<Channel>::make();
    ch.mutable_value().to_client = e.second->to_client;
    out.emplace_back(e.first, std::move(ch));
  }
  return n;
}

std::size_t Network::in_flight_requests() const {
  std::size_t n = 0;
  for (const auto& e : chans()) n += e.second->to_server.size();
  return n;
}

std::size_t Network::hash() const {
  std::size_t h = chans().size();
  for (const Entry& e : chans()) {
    const ConnId c = e.first;
    const Channel* ch = e.second.get();
    h = mix(h, c);
    for (const Request& r : ch->to_server) h = mix(h, r.label);
    h = mix(h, 0xfeed);
    for (const InFlight& s : ch->to_client) h = mix(h, s.pattern.hash());
  }
  return h;
}

namespace {
bool same_requests(const Network::RequestQueue& a, const Network::RequestQueue& b,
                   std::size_t skip_a) {
  if (a.size() != b.size() + skip_a) return false;
  for (std::size_t j = 0; j < b.size(); ++j)
    if (a[j + skip_a].label != b[j].label) return false;
  return true;
}
}  // namespace

bool Network::absorbed_quietly(const Network& before, ConnId c) const {
  static const Channel empty;
  const Chans &now = chans(), &was = before.chans();
  std::size_t i = 0, j = 0;
  bool seen_c = false;
  while (i < now.size() || j < was.size()) {
    const ConnId cn = i < now.size() ? now[i].first : ~ConnId{0};
    const ConnId cw = j < was.size() ? was[j].first : ~ConnId{0};
    const ConnId k = std::min(cn, cw);
    const Channel& x = cn == k ? *now[i].second : empty;
    const Channel& y = cw == k ? *was[j].second : empty;
    if (cn == k) ++i;
    if (cw == k) ++j;
    if (k != c) {
      if (&x == &y) continue;
      if (!same_requests(x.to_server, y.to_server, 0) || !(x.to_client == y.to_client))
        return false;
      continue;
    }
    // c: one request fewer, the same responses with some appended.
    seen_c = true;
    if (!same_requests(y.to_server, x.to_server, 1)) return false;
    if (x.to_client.size() < y.to_client.size()) return false;
    for (std::size_t r = 0; r < y.to_client.size(); ++r)
      if (!(x.to_client[r] == y.to_client[r])) return false;
  }
  return seen_c;
}

bool operator==(const Network& a, const Network& b) {
  if (a.chans_ == b.chans_) return true;
  const Network::Chans &ac = a.chans(), &bc = b.chans();
  if (ac.size() != bc.size()) return false;
  for (std::size_t i = 0; i < ac.size(); ++i) {
    const ConnId ca = ac[i].first, cb = bc[i].first;
    const detail::Shared<Network::Channel>&x = ac[i].second, &y = bc[i].second;
    if (ca != cb) return false;
    if (x == y) continue;
    if (x->to_server.size() != y->to_server.size() || !(x->to_client == y->to_client))
      return false;
    for (std::size_t j = 0; j < x->to_server.size(); ++j)
      if (x->to_server[j].label != y->to_server[j].label) return false;
  }
  return true;
}

}  // namespace dualfuzz::oracle
