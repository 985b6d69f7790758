// The TCP network model (thesis §4.3, Fig. 4.9-4.11): one FIFO channel per
// connection and direction, no order across connections. A value: hypotheses
// copy it when they fork (channels are shared until written).
//
//   Network n;
//   n.push_request(Request{1, 1, body});   // tester -> server, in flight
//   auto q = n.pop_request(1);             // the server absorbs it
//   n.push_response(1, pattern, clause);   // server -> tester, in flight
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "dualfuzz/oracle/detail/small_vector.h"
#include "dualfuzz/oracle/reason.h"
#include "dualfuzz/oracle/server_model.h"
#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::oracle {

namespace detail {
// A shared, immutable-while-shared value with a plain (not atomic) count of
// its holders: a network's channel list and channels. The search copies a
// network whenever a hypothesis changes it, and once a process has started
// a thread every std::shared_ptr copy and release is an atomic operation.
// A network is used by one thread at a time (the partitions a history check
// searches on several threads share none), which is all this count needs.
template <class T>
class Shared {
 public:
  Shared() = default;
  template <class... Args>
  static Shared make(Args&&... args) {
    Shared s;
    s.box_ = new Box{1, T(std::forward<Args>(args)...)};
    return s;
  }
  Shared(const Shared& o) noexcept : box_(o.box_) {
    if (box_) ++box_->holders;
  }
  Shared(Shared&& o) noexcept : box_(o.box_) { o.box_ = nullptr; }
  Shared& operator=(const Shared& o) noexcept {
    Shared copy(o);
    std::swap(box_, copy.box_);
    return *this;
  }
  Shared& operator=(Shared&& o) noexcept {
    Shared moved(std::move(o));
    std::swap(box_, moved.box_);
    return *this;
  }
  ~Shared() {
    if (box_ && --box_->holders == 0) delete box_;
  }
  const T* get() const { return box_ ? &box_->value : nullptr; }
  const T& operator*() const { return box_->value; }
  const T* operator->() const { return &box_->value; }
  explicit operator bool() const { return box_ != nullptr; }
  std::size_t use_count() const { return box_ ? box_->holders : 0; }
  // The value, to change in place (only by its sole holder).
  T& mutable_value() { return box_->value; }
  friend bool operator==(const Shared& a, const Shared& b) { return a.box_ == b.box_; }

 private:
  struct Box {
    std::size_t holders;
    T value;
  };
  Box* box_ = nullptr;
};
}  // namespace detail

class Network {
  struct Channel;

 public:
  Network() = default;
  Network(const Network&) = default;
  Network& operator=(const Network&) = default;
  // noexcept (moving the inline entries allocates nothing), so that vectors
  // of hypotheses move them when they grow instead of copying every one.
  Network(Network&&) noexcept = default;
  Network& operator=(Network&&) noexcept = default;

  // In-flight messages of one connection and direction, front first. Inline
  // room for two requests: a channel is copied whenever a hypothesis changes
  // it, and most hold one or two messages.
  using RequestQueue = boost::container::small_vector<Request, 2>;
  // A response in flight, the clause its `send` named and the state the
  // server was in when it received the request it answers (`received`
  // false: sent before any request). Neither is part of the network's
  // identity: they change no future, only the words of an explanation that
  // dies on it (of one of the explanations merged into it). The state is a
  // handle on the model's own, shared: nothing is copied but a count.
  struct InFlight {
    Sym pattern;
    Clause clause = nullptr;
    ModelState before;
    bool received = false;
    friend bool operator==(const InFlight& a, const InFlight& b) {
      return a.pattern == b.pattern;
    }
  };
  // Inline room for one response (twice the size of a pattern and its
  // clause): a channel then stays within the allocation it had with room
  // for two of those (192 bytes with its count). With room for two, the
  // online check of kv c50-ok (jepsen_bench) took 3.7% more instructions,
  // mostly in the allocator; with one, 0.5%, and the pipelined HTTP script
  // of oracle_http_bench 0.2%.
  using ResponseQueue = boost::container::small_vector<InFlight, 1>;

  void push_request(Request r);
  std::optional<Request> pop_request(ConnId c);
  // `before`: the state the server received the request in (null: none).
  void push_response(ConnId c, Sym response, Clause clause = nullptr,
                     const ModelState* before = nullptr);
  const Sym* front_response(ConnId c) const {
    const Channel* ch = find(c);
    return (ch && !ch->to_client.empty()) ? &ch->to_client.front().pattern : nullptr;
  }
  Clause front_clause(ConnId c) const;              // (null when none)
  const InFlight* front_in_flight(ConnId c) const;  // (null when none)
  void pop_response(ConnId c);
  // The tester closed c: what the server sends there is never observed, and
  // c's requests that change nothing unanswered
  // (DecodedRequest::unobservable_unanswered) need never be processed.
  void drop_unobservable(ConnId c);
  // A list of connections (inline storage: the search makes one at every
  // step, and few connections are busy).
  using ConnList = boost::container::small_vector<ConnId, 8>;
  bool idle() const { return chans().empty(); }
  std::size_t in_flight_requests() const;
  // Requests still in flight on c.
  std::size_t pending_on(ConnId c) const {
    const Channel* ch = find(c);
    return ch ? ch->to_server.size() : 0;
  }
  // Responses in flight on c.
  std::size_t answers_on(ConnId c) const {
    const Channel* ch = find(c);
    return ch ? ch->to_client.size() : 0;
  }
  const RequestQueue* requests_on(ConnId c) const {
    const Channel* ch = find(c);
    return ch && !ch->to_server.empty() ? &ch->to_server : nullptr;
  }
  // Every connection with responses in flight, with them (front first).
  std::vector<std::pair<ConnId, const ResponseQueue*>> responses() const;
  // This network without c's in-flight requests (c must have no responses).
  Network without_requests(ConnId c) const;
  // This network without the in-flight requests of every connection in
  // `conns` (ascending); each non-empty queue removed is appended to `taken`
  // as a pointer into this network's channels (valid while this network or
  // a copy of it lives).
  Network without_requests_of(const std::set<ConnId>& conns,
                              std::vector<const RequestQueue*>& taken) const;
  // Calls f(conn, responses) for every connection with responses in flight.
  template <typename F>
  void for_each_response(F&& f) const {
    for (const Entry& e : chans())
      if (!e.second->to_client.empty()) f(e.first, e.second->to_client);
  }
  // The same for the connections whose channel this network does not share
  // with `before` (copies share the channels neither changed): the
  // responses in flight that `before` did not have there. Reads no channel
  // the two share.
  template <typename F>
  void for_each_response_since(const Network& before, F&& f) const {
    const Chans &now = chans(), &was = before.chans();
    if (&now == &was) return;
    std::size_t j = 0;
    for (const Entry& e : now) {
      while (j < was.size() && was[j].first < e.first) ++j;
      if (j < was.size() && was[j].first == e.first && was[j].second == e.second)
        continue;
      if (!e.second->to_client.empty()) f(e.first, e.second->to_client);
    }
  }

  // Calls f(conn, front request) for every connection with a request in
  // flight to the server, ascending.
  template <typename F>
  void for_each_ready(F&& f) const {
    for (const Entry& e : chans())
      if (!e.second->to_server.empty()) f(e.first, e.second->to_server.front());
  }

  // The same with the number of responses in flight there:
  // f(conn, front request, responses).
  template <typename F>
  void for_each_ready_channel(F&& f) const {
    for (const Entry& e : chans())
      if (!e.second->to_server.empty())
        f(e.first, e.second->to_server.front(), e.second->to_client.size());
  }

  // Calls f(conn, requests, responses) for every channel, ascending by
  // connection: all that network equality compares (the depth-first
  // memo encodes a network so).
  template <typename F>
  void for_each_channel(F&& f) const {
    for (const Entry& e : chans()) f(e.first, e.second->to_server, e.second->to_client);
  }
  // The same, with each channel's tag: a word a caller may keep with a
  // channel's contents (e.g. the id a memo gave them), so that a channel met
  // again, shared by another network, is not read again. A tag is 0 when its
  // channel is made and whenever the channel changes; it is kept beside the
  // channel in the network's list (copied with it), so that reading it
  // touches no channel. f(conn, tag) returns the channel's reader:
  //   net.for_each_channel_tagged([&](ConnId c, std::atomic<std::uint64_t>& tag) {
  //     if (known(tag)) return; ... read(c, requests, responses) ...
  //   });
  // f(conn, tag, channel) with `channel` a callable returning (requests,
  // responses), read only when called.
  template <typename F>
  void for_each_channel_tagged(F&& f) const {
    for (const Entry& e : chans()) {
      const Channel* ch = e.second.get();
      f(e.first, e.tag, [ch]() -> std::pair<const RequestQueue&, const ResponseQueue&> {
        return {ch->to_server, ch->to_client};
      });
    }
  }

  // Whether this network is `before` after the server absorbed c's front
  // request and answered only on c (zero or more responses appended there):
  // the absorption changed nothing anywhere else.
  bool absorbed_quietly(const Network& before, ConnId c) const;

  std::size_t hash() const;
  friend bool operator==(const Network& a, const Network& b);

 private:
  struct Channel {
    RequestQueue to_server;  // FIFO, front first
    ResponseQueue to_client;
  };
  // A connection's channel, and for_each_channel_tagged's word for it
  // (relaxed: a list may be shared by searches on other threads; each tag
  // is one word, set whole).
  struct Entry {
    ConnId first = 0;
    detail::Shared<Channel> second;
    mutable std::atomic<std::uint64_t> tag{0};
    Entry(ConnId c, detail::Shared<Channel> ch) : first(c), second(std::move(ch)) {}
    Entry(const Entry& o)
        : first(o.first), second(o.second), tag(o.tag.load(std::memory_order_relaxed)) {}
    Entry(Entry&& o) noexcept
        : first(o.first),
          second(std::move(o.second)),
          tag(o.tag.load(std::memory_order_relaxed)) {}
    Entry& operator=(const Entry& o) {
      first = o.first;
      second = o.second;
      tag.store(o.tag.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return *this;
    }
    Entry& operator=(Entry&& o) noexcept {
      first = o.first;
      second = std::move(o.second);
      tag.store(o.tag.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return *this;
    }
  };
  // (Inline: the search looks up a channel several times per step.)
  const Channel* find(ConnId c) const {
    const Chans& cs = chans();
    auto it = std::lower_bound(cs.begin(), cs.end(), c,
                               [](const Entry& e, ConnId k) { return e.first < k; });
    return (it != cs.end() && it->first == c) ? it->second.get() : nullptr;
  }
  Channel& edit(ConnId c);  // copy-on-write
  void prune(ConnId c);     // drop empty channels so equal networks compare equal
  using Chans = std::vector<Entry>;
  const Chans& chans() const { return chans_ ? *chans_ : no_chans(); }
  static const Chans& no_chans();
  Chans& edit_chans();  // copy-on-write
  // Sorted by ConnId, only non-empty channels; shared between copies until
  // one of them changes (copy-on-write, as the channels are): the search
  // copies a hypothesis into its memo and its stack far more often than it
  // changes one, and a history with 50 clients has 50 channels.
  detail::Shared<Chans> chans_;
};

}  // namespace dualfuzz::oracle
