#include "dualfuzz/oracle/backtracking.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "dualfuzz/oracle/dualize.h"
#include "dualfuzz/oracle/detail/ground_match.h"

namespace dualfuzz::oracle {
namespace {

std::string brief(const Json& v) { return brief_json(v, 120); }

constexpr std::string_view kOutOfTime = "out of time (the check's time budget)";

// An open-addressing index over a vector's entries, keyed by their hashes
// (slot = entry + 1; 0: empty) and grown at half full. The owner keeps the
// entries, in the order they were added.
class SlotIndex {
 public:
  // Calls visit(entry) for the entries on `hash`'s probe chain (those with
  // that hash among them), until it returns true.
  template <class Visit>
  void probe(std::size_t hash, Visit&& visit) const {
    if (slots_.empty()) return;
    for (std::size_t i = start(hash); slots_[i]; i = (i + 1) & mask_)
      if (visit(static_cast<std::size_t>(slots_[i] - 1))) return;
  }
  // Indexes entry k, the (k+1)-th; hash_of(j) is entry j's hash, for
  // re-indexing when the table grows.
  template <class HashOf>
  void add(std::size_t hash, std::size_t k, HashOf&& hash_of) {
    if (slots_.empty()) {
      slots_.assign(16, 0);
      mask_ = 15;
    }
    if ((k + 1) * 2 > slots_.size()) {
      slots_.assign(slots_.size() * 2, 0);
      mask_ = slots_.size() - 1;
      for (std::size_t j = 0; j < k; ++j) place(hash_of(j), j);
    }
    place(hash, k);
  }
  void clear() { std::fill(slots_.begin(), slots_.end(), 0); }  // (keeps the storage)

 private:
  std::size_t start(std::size_t hash) const { return (hash ^ (hash >> 29)) & mask_; }
  void place(std::size_t hash, std::size_t k) {
    std::size_t i = start(hash);
    while (slots_[i]) i = (i + 1) & mask_;
    slots_[i] = static_cast<std::uint32_t>(k + 1);
  }
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
};

// Subsumption over requests of closed connections. Such a request can be
// processed at any later time or never, and nothing it makes the server send
// is observable. So a hypothesis that still holds a whole closed queue can do
// everything one without that queue can (it never processes it), provided
// the two agree on everything else (server state, the other channels,
// constraints). Queues of closed
// connections are compared by content, not by connection: two closed
// connections each holding the same request are interchangeable. Without
// this, Jepsen's indeterminate (:info) calls double the hypotheses per call.
//
// A flat open-addressing table keyed by the core's hash. `keep` = false
// makes it a membership test only (take() is then empty), which saves a
// copy of every hypothesis.
class SubsumptionSet {
 public:
  SubsumptionSet(const std::set<ConnId>& closed, bool keep)
      : closed_(&closed), keep_(keep) {}

  // Empty again, for the closed set `closed`, keeping the storage (one
  // search per response reuses its sets instead of allocating them).
  void reset(const std::set<ConnId>& closed) {
    closed_ = &closed;
    entries_.clear();
    index_.clear();
  }

  // False if an entry already subsumes h (h is then redundant). Entries h
  // subsumes are retired, so each group stays an antichain.
  bool insert(const Hypothesis& h) {
    if (closed_->empty()) {  // plain dedupe: the hypothesis is its own core
      const std::size_t hash = h.hash();
      bool seen = false;
      index_.probe(hash, [&](std::size_t k) {
        Entry& x = entries_[k];
        seen = x.hash == hash && x.core == h;
        if (seen) keep_longer_trail(x.core, h);
        return seen;
      });
      if (seen) return false;
      add(hash, h, nullptr);
      return true;
    }
    // (The whole network is kept only when closed-connection requests were
    // set apart: it keeps them alive.)
    std::vector<const Queue*> set_apart;
    Hypothesis core{h.server, h.net.without_requests_of(*closed_, set_apart), h.store,
                    h.next_var, h.decisions};
    std::unique_ptr<Closed> extra;
    if (!set_apart.empty())
      extra = std::make_unique<Closed>(Closed{h.net, std::move(set_apart)});
    const std::size_t hash = core.hash();
    const std::vector<const Queue*>& dead = extra ? extra->dead : kNoQueues;
    std::size_t same = 0;  // entries with an equal core
    bool subsumed = false;
    index_.probe(hash, [&](std::size_t k) {
      Entry& x = entries_[k];
      if (x.hash != hash || !x.alive || !(x.core == core)) return false;
      subsumed = covers(x.dead(), dead);
      if (subsumed) keep_longer_trail(x.core, h);
      ++same;
      return subsumed;
    });
    if (subsumed) return false;
    if (same)
      index_.probe(hash, [&](std::size_t k) {
        Entry& x = entries_[k];
        if (x.hash == hash && x.alive && covers(dead, x.dead()) && x.core == core)
          x.alive = false;
        return false;
      });
    add(hash, std::move(core), std::move(extra));
    return true;
  }
  std::size_t size() const { return entries_.size(); }
  // Merged explanations keep one decision trail (SearchLimits::
  // record_decisions): the one with more symbolic branches, so that a
  // branch one of them took is not lost to an equal twin that took none
  // (e.g. a precondition a server may also ignore).
  static void keep_longer_trail(Hypothesis& kept, const Hypothesis& dropped) {
    if (!dropped.decisions || kept.decisions == dropped.decisions) return;
    auto length = [](const DecisionTrail* t) {
      std::size_t n = 0;
      for (; t; t = t->earlier.get()) ++n;
      return n;
    };
    if (length(dropped.decisions.get()) > length(kept.decisions.get()))
      kept.decisions = dropped.decisions;
  }
  // The inserted hypotheses that no later insertion subsumed (keep only).
  std::vector<Hypothesis> take() {
    std::vector<Hypothesis> out;
    take(out);
    return out;
  }
  // The same into `out` (cleared first; its storage is reused).
  void take(std::vector<Hypothesis>& out) {
    out.clear();
    if (!keep_) return;
    out.reserve(entries_.size());
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      Entry& e = entries_[k];
      if (!e.alive) continue;
      if (e.closed) e.core.net = std::move(e.closed->full);  // the whole hypothesis
      out.push_back(std::move(e.core));
    }
  }

 private:
  using Queue = Network::RequestQueue;
  inline static const std::vector<const Queue*> kNoQueues;
  // Only for a hypothesis with closed-connection requests in flight (most
  // entries have none: a smaller entry for them).
  struct Closed {
    Network full;                    // the whole network (keeps `dead` alive)
    std::vector<const Queue*> dead;  // non-empty closed-connection queues
  };
  struct Entry {
    std::size_t hash = 0;
    Hypothesis core;
    std::unique_ptr<Closed> closed;
    bool alive = false;
    const std::vector<const Queue*>& dead() const {
      return closed ? closed->dead : kNoQueues;
    }
  };
  using Entries = std::vector<Entry>;
  void add(std::size_t hash, Hypothesis core, std::unique_ptr<Closed> closed) {
    index_.add(hash, entries_.size(), [&](std::size_t j) { return entries_[j].hash; });
    entries_.push_back(Entry{hash, std::move(core), std::move(closed), true});
  }
  // Bodies are interned by the search (equal requests share one body), so
  // comparing pointers compares contents. (A body that escaped interning
  // only costs pruning, never soundness.)
  static bool same(const Request& a, const Request& b) { return a.body == b.body; }
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
  static bool covers(const std::vector<const Queue*>& a,
                     const std::vector<const Queue*>& b) {
    if (b.size() > a.size()) return false;
    if (b.empty()) return true;
    std::uint64_t small = 0;  // `used` for up to 64 queues, without allocating
    std::vector<bool> large(a.size() > 64 ? a.size() : 0, false);
    for (const Queue* q : b) {
      bool found = false;
      for (std::size_t i = 0; i < a.size() && !found; ++i) {
        bool used = i < 64 && large.empty() ? (small >> i) & 1 : large[i];
        if (used || !equal(*a[i], *q)) continue;
        if (large.empty())
          small |= std::uint64_t{1} << i;
        else
          large[i] = true;
        found = true;
      }
      if (!found) return false;
    }
    return true;
  }
  const std::set<ConnId>* closed_;
  bool keep_;
  SlotIndex index_;
  Entries entries_;
};

// Dense ids for the distinct values of one type that a search meets (model
// states, response patterns, constraint stores), by hash and equality: the
// depth-first memo keys on the ids instead of holding the values.
template <class T>
class Interner {
 public:
  std::uint32_t id(const T& v, std::size_t hash) {
    std::uint32_t found = kNone;
    index_.probe(hash, [&](std::size_t k) {
      if (hashes_[k] == hash && values_[k] == v) found = static_cast<std::uint32_t>(k);
      return found != kNone;
    });
    if (found != kNone) return found;
    index_.add(hash, values_.size(), [&](std::size_t j) { return hashes_[j]; });
    values_.push_back(v);
    hashes_.push_back(hash);
    return static_cast<std::uint32_t>(values_.size() - 1);
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<T> values_;
  std::vector<std::size_t> hashes_;
  SlotIndex index_;
};

// may_match's test when constants do not decide it: the guard, then the
// solver on a copy of the store.
bool may_match_guarded(const Sym& pattern, const Json& seen, const ConstraintStore& store,
                       Solver& solver) {
  Guard g = guard(pattern, seen, &store, false);
  if (!g.ok()) return false;
  if (g.constraint.is_true() && g.bindings.empty()) return true;
  ConstraintStore probe = store;
  return admit(g, probe, solver) != Sat::No;
}
// Whether `pattern` may still match `seen` under `store` (left as it is).
// Most responses are constants: decided inline, without a call beyond
// match_ground (the depth-first search tests every response it sends).
inline bool may_match(const Sym& pattern, const Json& seen, const ConstraintStore& store,
                      Solver& solver) {
  const GroundMatch m = match_ground(pattern, seen);
  return m == GroundMatch::Unknown ? may_match_guarded(pattern, seen, store, solver)
                                   : m == GroundMatch::Yes;
}

// The responses of a trace as the depth-first search matches them: the
// search tests every response a hypothesis sends against the one the trace
// shows there (most die so: a read absorbed in a state whose value the
// trace does not show), and most patterns are objects of constants, built
// with a shape the model makes once. Per observed response and that shape:
// its fields, looked up once, and for each string field the hash its
// constant would have, so that two strings of different hashes differ
// without being compared (they often share a long prefix: a store's value
// grows by appends). The answers are match_ground's.
class ResponseViews {
 public:
  explicit ResponseViews(std::size_t positions) : views_(positions) {}
  void resize(std::size_t positions) { views_.resize(positions); }
  // match_ground(pattern, seen), where `seen` is the response observed at
  // position `at`.
  GroundMatch match(const Sym& pattern, std::size_t at, const Json& seen) {
    if (pattern.op() != Op::Object || !seen.is_object() || !pattern.shape())
      return match_ground(pattern, seen);
    View& v = views_[at];
    const std::vector<std::string>& names = *pattern.shape();
    if (v.shape != pattern.shape().get()) {
      if (v.shape) return match_ground(pattern, seen);  // (another shape: rare)
      v.shape = pattern.shape().get();
      v.keep = pattern.shape();
      const Json::object_t& obj = seen.get_ref<const Json::object_t&>();
      v.fields.resize(names.size());
      v.strings.resize(names.size());
      v.hashes.resize(names.size());
      for (std::size_t i = 0; i < names.size(); ++i) {
        auto it = obj.find(names[i]);
        v.fields[i] = it == obj.end() ? nullptr : &it->second;
        v.strings[i] = v.fields[i] ? v.fields[i]->get_ptr<const std::string*>() : nullptr;
        v.hashes[i] = v.strings[i] ? Sym::lit_hash(*v.fields[i]) : 0;
      }
    }
    const std::vector<Sym>& args = pattern.args();
    bool unknown = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Json* field = v.fields[i];
      if (!field) return match_ground(pattern, seen);  // (Absent and its kin)
      const Sym& sub = args[i];
      if (const std::string* seen_string = v.strings[i];
          seen_string && sub.is_const() && sub.sort() == Sort::Json) {
        if (const std::string* own = sub.value().get_ptr<const std::string*>()) {
          if (sub.hash() != v.hashes[i] || *own != *seen_string) return GroundMatch::No;
          continue;
        }
      }
      if (!detail::and_part(match_ground(sub, *field), unknown)) return GroundMatch::No;
    }
    return unknown ? GroundMatch::Unknown : GroundMatch::Yes;
  }

 private:
  struct View {
    const void* shape = nullptr;  // (the fields below are for this shape)
    Sym::Fields keep;             // (keeps `shape` from being reused)
    boost::container::small_vector<const Json*, 4> fields;          // (null: absent)
    boost::container::small_vector<const std::string*, 4> strings;  // (null: no string)
    boost::container::small_vector<std::size_t, 4> hashes;  // (strings: Sym::lit_hash)
  };
  std::vector<View> views_;
};

// may_match for the response observed at `at` (views: null when there are
// none).
inline bool may_match_at(const Sym& pattern, std::size_t at, const Json& seen,
                         ResponseViews* views, const ConstraintStore& store,
                         Solver& solver) {
  const GroundMatch m =
      views ? views->match(pattern, at, seen) : match_ground(pattern, seen);
  return m == GroundMatch::Unknown ? may_match_guarded(pattern, seen, store, solver)
                                   : m == GroundMatch::Yes;
}

std::uint64_t hash_words(const std::vector<std::uint32_t>& words) {
  std::uint64_t hash = words.size();
  for (std::uint32_t w : words) {
    hash = (hash ^ w) * 0x9e3779b97f4a7c15ULL;
    hash ^= hash >> 29;
  }
  return hash;
}

// Storage for word sequences in chunks that never move (a growing array was
// copied at each doubling, into pages touched for the first time).
class WordArena {
 public:
  // Room for n words, valid as long as the arena.
  std::uint32_t* take(std::size_t n) {
    if (chunks_.empty() || used_ + n > chunk_size_) {
      chunk_size_ = std::max(kChunk, n);
      chunks_.push_back(std::make_unique_for_overwrite<std::uint32_t[]>(chunk_size_));
      used_ = 0;
    }
    std::uint32_t* at = chunks_.back().get() + used_;
    used_ += n;
    return at;
  }

 private:
  static constexpr std::size_t kChunk = 16 * 1024;  // words
  std::vector<std::unique_ptr<std::uint32_t[]>> chunks_;
  std::size_t used_ = 0, chunk_size_ = 0;  // (of the last chunk)
};

// An open-addressing set of word sequences kept in a WordArena: an entry is
// its length, kHeader words of its owner's, then the words; kFirst slots at
// first.
template <std::size_t kHeader, std::size_t kFirst>
class WordTable {
 public:
  // The entry equal to `words`, or a new one with `header`; whether it is new.
  std::pair<const std::uint32_t*, bool> insert(
      const std::vector<std::uint32_t>& words, WordArena& arena,
      const std::array<std::uint32_t, kHeader>& header) {
    return insert(
        words, 0, arena, [](const std::uint32_t*) { return true; },
        [&] { return header; });
  }
  // The same for entries that stand for more than their words (their
  // header refers to it): `salt` is that part's hash, same(e) whether
  // entry e's is equal, and header() makes a new entry's header.
  template <class Same, class Header>
  std::pair<const std::uint32_t*, bool> insert(const std::vector<std::uint32_t>& words,
                                               std::uint64_t salt, WordArena& arena,
                                               Same&& same, Header&& header) {
    std::uint64_t hash = hash_words(words) ^ (salt * 0xff51afd7ed558ccdULL);
    hash ^= hash >> 32;
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t k = hash & mask;
    for (; slots_[k].at; k = (k + 1) & mask) {
      const std::uint32_t* e = slots_[k].at;
      if (slots_[k].hash == hash && e[0] == words.size() &&
          std::equal(words.begin(), words.end(), e + 1 + kHeader) && same(e))
        return {e, false};
    }
    std::uint32_t* e = arena.take(words.size() + 1 + kHeader);
    e[0] = static_cast<std::uint32_t>(words.size());
    const std::array<std::uint32_t, kHeader> made = header();
    std::copy(made.begin(), made.end(), e + 1);
    std::copy(words.begin(), words.end(), e + 1 + kHeader);
    slots_[k] = Slot{hash, e};
    ++count_;
    return {e, true};
  }
  std::size_t size() const { return count_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    const std::uint32_t* at = nullptr;
  };
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kFirst : old.size() * 2, Slot{});
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& o : old) {
      if (!o.at) continue;
      std::size_t k = o.hash & mask;
      while (slots_[k].at) k = (k + 1) & mask;
      slots_[k] = o;
    }
  }
  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

// A set of word sequences, each with a dense id (the order they came in).
class WordSet {
 public:
  // The id of `words`, and whether they are new.
  std::pair<std::uint32_t, bool> insert(const std::vector<std::uint32_t>& words) {
    const auto [e, fresh] =
        table_.insert(words, arena_, {static_cast<std::uint32_t>(table_.size())});
    return {e[1], fresh};
  }

 private:
  WordArena arena_;
  WordTable<1, 1024> table_;  // (header: the id)
};

// Sets of (model state, word sequence), one per position: the depth-first
// search works near a few positions at a time, so their tables stay in
// cache (one table for all positions was a cache miss per insertion once it
// had grown past the caches). The words share one WordArena; an entry's
// header is its state's index in `states_` (kNoState: the server stopped).
// The states are compared here, by hash then value, rather than interned
// first: an interning table of every state of a search was two cache misses
// per insertion (most states are new), a sixth of a c50 search's time.
class PositionedStates {
 public:
  // False if (state, words) were inserted at position `at` before; `state`
  // null: the server has stopped.
  bool insert(std::size_t at, const ModelState* state,
              const std::vector<std::uint32_t>& words) {
    if (at >= tables_.size()) tables_.resize(at + 1);
    auto same = [&](const std::uint32_t* e) {
      if (!state) return e[1] == kNoState;
      return e[1] != kNoState && states_[e[1]] == *state;
    };
    auto header = [&]() -> std::array<std::uint32_t, 1> {
      if (!state) return {kNoState};
      // (Siblings often share their state: one reference for them.)
      if (states_.empty() || !(states_.back() == *state)) states_.push_back(*state);
      return {static_cast<std::uint32_t>(states_.size() - 1)};
    };
    return tables_[at]
        .insert(words, state ? state->hash() : 0, arena_, same, header)
        .second;
  }

 private:
  static constexpr std::uint32_t kNoState = ~std::uint32_t{0};
  std::vector<WordTable<1, 8>> tables_;
  WordArena arena_;
  std::vector<ModelState> states_;
};

// The depth-first check's memo of (position, hypothesis) at positions where
// no connection is closed (there it is a plain set, no subsumption). An
// entry is the hypothesis's model state (compared by value) and its
// identity as words, in its position's table: its variables and constraint
// store (an interned id), and an id per channel, for the connection, the
// labels of its requests and the ids of its response patterns (channels
// recur in many configurations: one copy each). Two entries are equal
// exactly when the hypotheses are (operator== compares these, and the ids
// stand for equal values); but the memo keeps no tree, network or response
// alive (they were most of a c50 search's memory, and freeing them at its
// end a tenth of its time), and it is freed as a few arrays and its states.
class WordMemo {
 public:
  // False if (i, h) was inserted before.
  bool insert(std::size_t i, const Hypothesis& h) {
    words_.clear();
    const bool ret = h.server.is_ret();
    const ModelState* st = ret ? nullptr : &h.server.event().state;
    words_.push_back(h.next_var);
    words_.push_back(h.store.empty() ? 0 : 1 + stores_.id(h.store, h.store.hash()));
    // A channel this memo has read before (shared with a network inserted
    // earlier: most of a successor's channels are its parent's) carries its
    // id in its tag.
    const std::uint64_t mine = std::uint64_t{serial_} << 32;
    h.net.for_each_channel_tagged(
        [&](ConnId c, std::atomic<std::uint64_t>& tag, auto&& channel) {
          const std::uint64_t t = tag.load(std::memory_order_relaxed);
          if (serial_ != 0 && (t & ~std::uint64_t{0xffffffff}) == mine) {
            words_.push_back(static_cast<std::uint32_t>(t));
            return;
          }
          const auto [rq, rs] = channel();
          channel_.clear();
          channel_.push_back(c);
          channel_.push_back(static_cast<std::uint32_t>(rq.size()));
          for (const Request& r : rq) channel_.push_back(r.label);
          for (const Network::InFlight& x : rs)
            channel_.push_back(patterns_.id(x.pattern, x.pattern.hash()));
          const std::uint32_t id = channels_.insert(channel_).first;
          if (serial_ != 0) tag.store(mine | id, std::memory_order_relaxed);
          words_.push_back(id);
        });
    return entries_.insert(i, st, words_);
  }

 private:
  // This memo's tag prefix, distinct from every other memo's; 0 (tags
  // unused) once a process has made 2^32 - 1 memos, so that no memo ever
  // reads a tag another one set.
  static std::uint32_t next_serial() {
    static std::atomic<std::uint64_t> made{0};
    const std::uint64_t n = made.fetch_add(1, std::memory_order_relaxed) + 1;
    return n <= 0xffffffffULL ? static_cast<std::uint32_t>(n) : 0;
  }
  const std::uint32_t serial_ = next_serial();
  Interner<ConstraintStore> stores_;
  Interner<Sym> patterns_;
  WordSet channels_;          // connection, requests in flight, their labels, responses
  PositionedStates entries_;  // (position: the table; the state; the rest: the words)
  std::vector<std::uint32_t> words_, channel_;  // (the hypothesis being inserted)
};

// The positions of a trace's observations of one kind, per connection,
// ascending. Connection numbers are small in practice: a direct table for
// them (the depth-first check looks one up at every response sent), a map
// beyond.
class PositionsByConn {
 public:
  void add(ConnId c, std::size_t i) {
    if (c < kDirect) {
      if (c >= direct_.size()) direct_.resize(c + 1);
      direct_[c].push_back(i);
    } else {
      far_[c].push_back(i);
    }
  }
  // (null when there are none)
  const std::vector<std::size_t>* find(ConnId c) const {
    if (c < kDirect)
      return c < direct_.size() && !direct_[c].empty() ? &direct_[c] : nullptr;
    auto it = far_.find(c);
    return it == far_.end() ? nullptr : &it->second;
  }

 private:
  static constexpr ConnId kDirect = 4096;
  std::vector<std::vector<std::size_t>> direct_;
  std::unordered_map<ConnId, std::vector<std::size_t>> far_;
};

}  // namespace

struct HypothesisSearch::Ctx {
  Ctx() = default;
  Ctx(std::size_t max, const std::set<ConnId>* closed_now)
      : max_reasons(max), closed(closed_now) {}
  std::size_t max_reasons = 0;
  const std::set<ConnId>* closed = nullptr;  // connections closed at this point
  Label current = 0;                         // the request the server is processing
  // The state the server received it in (null: none, at the start), which
  // the responses it sends keep for explanations (Network::InFlight).
  const ModelState* before = nullptr;
  std::vector<Reason> reasons;
  bool gave_up = false;
  Reason gave_up_why;
  // Early delivery (response_received without explanations): the response
  // observed on `observed_conn`. A hypothesis whose server sends its first
  // response there while settling is matched against it at once, so a
  // branch the response rules out dies before it is queued, copied and
  // hashed; the survivors go to `delivered`.
  const Json* observed = nullptr;
  ConnId observed_conn = 0;
  std::vector<Hypothesis>* delivered = nullptr;
  // Lookahead (the depth-first whole-trace check): the observations and,
  // per connection, the positions of its responses; a response the server
  // sends is checked against the one the trace shows there from `ahead_at`
  // on, so a branch that contradicts it dies before it is queued (most
  // successors of a node die so: a read absorbed in a state whose value the
  // trace does not show).
  const std::vector<Observation>* ahead = nullptr;
  const PositionsByConn* ahead_responses = nullptr;
  ResponseViews* ahead_views = nullptr;  // (of `ahead`)
  // foreseen(): per connection, the index of its first response in
  // ahead_responses at or after position at - 1 (0: none remembered).
  struct FirstAhead {
    std::size_t at = 0, first = 0;
  };
  std::vector<FirstAhead> first_ahead;
  static constexpr ConnId kFirstAheadConns = 4096;
  std::size_t ahead_at = 0;
  // The connection whose response is observed now, when the breadth-first
  // search looks ahead (HypothesisSearch::Lookahead): its answers are left
  // to deliver_in_place, which says why they differ.
  std::optional<ConnId> ahead_skip;
  // What ready_order saw of each connection it returned (in its order): the
  // request the server would absorb there and the responses in flight on
  // it; `via`, when the depth-first check sets it for expand_via, is the
  // connection expanded now (the node's network is not searched again for
  // them: two lookups per family).
  struct ReadyFront {
    const Request* front;
    std::size_t answers;
  };
  boost::container::small_vector<ReadyFront, 8> ready_fronts;
  const ReadyFront* via = nullptr;
  // foreseen(): the responses in flight on its connection, when known.
  static constexpr std::size_t kUnknownAnswers = static_cast<std::size_t>(-1);
  std::size_t known_answers = kUnknownAnswers;
  // The hypothesis settle() is given sends first a response expand_via has
  // already found foreseen (read and cleared by settle).
  bool first_foreseen = false;
  bool wants_reason() const { return reasons.size() < max_reasons; }
  void reason(Reason r) {
    if (reasons.size() >= max_reasons) return;
    for (const auto& x : reasons)
      if (x.text == r.text) return;
    reasons.push_back(std::move(r));
  }
  void give_up(std::string why) {
    if (!gave_up) gave_up_why = Reason::generic(Reason::Kind::Limit, {}, std::move(why));
    gave_up = true;
  }
  // The server's transitions, memoized: by the ModelState contract, servers
  // waiting in equal states continue alike, so a request absorbed in a state
  // met before needs no second run of the model (the search meets the same
  // state and request in many configurations). Keyed by the request's
  // connection, label and (interned) body.
  struct Step {
    std::size_t key;
    ModelState state;
    Request request;
    Tree next;
  };
  // When the states rarely repeat (e.g. a store whose state is the whole
  // history of appends), the memo only costs: it turns itself off. (A flat
  // table: a node-based map cost two allocations per step remembered.)
  std::vector<Step> steps;
  SlotIndex step_index;
  std::size_t step_lookups = 0, step_hits = 0, steps_seen = 0;
  static constexpr std::size_t kStepsUnmemoized = 32;
  Tree step(const Tree& server, const Request& r) {
    if (step_lookups == kStepsOff) return server.step(r);
    // A small search meets few states twice: the table would cost more
    // than it saves (most responses need a handful of steps).
    if (++steps_seen <= kStepsUnmemoized) return server.step(r);
    const ModelState& st = server.event().state;
    std::size_t key = st.hash() ^ (std::hash<const void*>{}(r.body.get()) +
                                   0x9e3779b97f4a7c15ULL + (r.label << 6) + r.conn);
    ++step_lookups;
    const Step* hit = nullptr;
    step_index.probe(key, [&](std::size_t k) {
      const Step& m = steps[k];
      if (m.key == key && m.request.label == r.label && m.request.conn == r.conn &&
          m.request.body == r.body && m.state == st)
        hit = &m;
      return hit != nullptr;
    });
    if (hit) {
      ++step_hits;
      return hit->next;
    }
    Tree next = server.step(r);
    // (Judged early, at 256, 512, ... lookups, then every 4096: where the
    // states rarely repeat, the table's first thousands of entries were
    // most of its cost.)
    const bool judge = step_lookups % 4096 == 0 ||
                       (step_lookups >= 256 && (step_lookups & (step_lookups - 1)) == 0);
    if (judge && (step_hits * 2 < step_lookups || steps.size() > kMaxSteps)) {
      steps = {};  // not worth it (or too big): off for this search
      step_index = {};
      step_lookups = kStepsOff;
      return next;
    }
    step_index.add(key, steps.size(), [&](std::size_t j) { return steps[j].key; });
    steps.push_back(Step{key, st, r, next});
    return next;
  }
  static constexpr std::size_t kMaxSteps = 1'000'000;
  static constexpr std::size_t kStepsOff = static_cast<std::size_t>(-1);
};

// What one search for a response works with, kept between responses so that
// its storage is reused (most responses need a handful of configurations,
// and allocating these afresh was a large part of their cost).
struct SearchShared {
  SearchShared() : next(none, true), visited(none, false) {}
  // The distinct request bodies, indexed by their shallow_hash (most
  // partitions see a handful of requests, and a node-based map cost two
  // allocations per request).
  struct Interned {
    std::size_t hash;
    std::shared_ptr<const Json> body;
    std::shared_ptr<const DecodedRequest> decoded;
  };
  std::vector<Interned> bodies;
  SlotIndex body_index;
  // Scratch storage of one response's search.
  std::set<ConnId> none;  // (each use resets the sets to its search's closed set)
  SubsumptionSet next, visited;
  std::vector<Hypothesis> queue, succ, delivered, survivors;
  std::vector<std::pair<Hypothesis, bool>> work;  // settle's forks
};

std::shared_ptr<SearchShared> make_search_shared() {
  return std::make_shared<SearchShared>();
}

SearchShared& HypothesisSearch::shared() {
  if (!shared_) shared_ = make_search_shared();
  return *shared_;
}

// check_breadth_first's lookahead: the trace, the positions of its
// responses, and the position searched now.
struct HypothesisSearch::Lookahead {
  const std::vector<Observation>* trace = nullptr;
  PositionsByConn responses_on;
  std::size_t at = 0;
};

// The state of a depth-first whole-trace check, kept between calls so that a
// larger budget resumes the search instead of restarting it.
struct HypothesisSearch::Dfs {
  const std::vector<Observation>* trace = nullptr;
  // Closed connections as of each position (shared between positions).
  std::vector<std::shared_ptr<const std::set<ConnId>>> closed_at;
  // For each connection, the positions of the responses observed on it.
  PositionsByConn responses_on;
  PositionsByConn requests_on;
  std::vector<Request> requests;  // the trace's requests, interned (one per observation)
  ResponseViews views{0};         // (one per observation)
  // The memo: per position, lazily, where a connection is closed; the rest
  // in one WordMemo.
  std::vector<std::unique_ptr<SubsumptionSet>> seen;
  WordMemo memo;
  // A hypothesis to run from position i on, or (expanding) a node whose
  // successor families, one per connection in `ready`, are built one at a
  // time from `next` on.
  struct Entry {
    std::size_t i = 0;
    Hypothesis h;
    bool expanding = false;
    Network::ConnList ready = {};
    std::size_t next = 0;
    bool root = false;  // one of the hypotheses the search started from
    boost::container::small_vector<Ctx::ReadyFront, 8> fronts = {};  // (ready's)
  };
  std::vector<Entry> stack;
  // Deferred successors: the server absorbed the last request of `conn` in
  // the trace without changing anything but that connection's responses,
  // and the trace shows no response to it (yet). Such a step is never
  // needed to explain the trace: whatever follows it can follow without it,
  // the request left in flight (nothing later waits behind it, nothing
  // observed depends on it). They wait here instead of on the stack, and go
  // back to it if the trace grows a response or a request on `conn` (the
  // online search). A concurrent history leaves a request per client
  // unanswered at its end, and absorbing every read among them, in every
  // state, multiplied the configurations of a prefix by thousands.
  struct Parked {
    Entry entry;
    ConnId conn = 0;
    std::size_t answers = 0;  // responses in flight on conn before the request
  };
  std::vector<Parked> parked;
  std::vector<Hypothesis> succ;
  std::size_t deepest = 0, nodes = 0;
  // A branch was cut by a limit (the divergence guard) in some call: the
  // search is no longer exhaustive, so running out of hypotheses is not a
  // rejection. (ctx.gave_up is cleared at each call: a budget resumes.)
  bool cut = false;
  Ctx ctx;
};

HypothesisSearch::HypothesisSearch(const Tree& initial, Solver& solver,
                                   SearchLimits limits, RequestDecoder decode,
                                   std::shared_ptr<SearchShared> shared)
    : solver_(&solver),
      limits_(limits),
      decode_(std::move(decode)),
      shared_(std::move(shared)) {
  Hypothesis h;
  h.server = initial;
  Ctx ctx(limits_.max_reasons, &closed_);
  settle(std::move(h), live_, ctx);
}

HypothesisSearch::~HypothesisSearch() = default;
HypothesisSearch::HypothesisSearch(HypothesisSearch&&) noexcept = default;
HypothesisSearch& HypothesisSearch::operator=(HypothesisSearch&&) noexcept = default;

// Whether `response`, sent on `conn` after the responses h has in flight
// there, can be the one the trace shows in that place (Ctx::ahead): the k-th
// response in flight is the k-th observed from the current position on.
bool HypothesisSearch::foreseen(const Hypothesis& h, ConnId conn, const Sym& response,
                                Ctx& ctx) {
  if (ctx.ahead_skip == conn) return true;
  const std::vector<std::size_t>* positions = ctx.ahead_responses->find(conn);
  if (!positions) return true;
  const std::vector<std::size_t>& at = *positions;
  // (The search expands many nodes at one position in a row: where conn's
  // responses from there on start is remembered, per connection.)
  std::vector<Ctx::FirstAhead>& cache = ctx.first_ahead;
  std::vector<std::size_t>::const_iterator first;
  if (conn < cache.size() && cache[conn].at == ctx.ahead_at + 1) {
    first = at.begin() + static_cast<std::ptrdiff_t>(cache[conn].first);
  } else {
    first = std::lower_bound(at.begin(), at.end(), ctx.ahead_at);
    if (conn < Ctx::kFirstAheadConns) {
      if (conn >= cache.size()) cache.resize(conn + 1);
      cache[conn] = {ctx.ahead_at + 1, static_cast<std::size_t>(first - at.begin())};
    }
  }
  const std::size_t k = ctx.known_answers != Ctx::kUnknownAnswers
                            ? ctx.known_answers
                            : h.net.answers_on(conn);
  if (static_cast<std::size_t>(at.end() - first) <= k) return true;  // not observed (yet)
  return may_match_at(response, first[k], *(*ctx.ahead)[first[k]].body, ctx.ahead_views,
                      h.store, *solver_);
}

void HypothesisSearch::settle(Hypothesis h, std::vector<Hypothesis>& out, Ctx& ctx) {
  // Forks still to run, each with whether it has already been matched
  // against ctx.observed (settle never nests: one reused stack).
  std::vector<std::pair<Hypothesis, bool>>& work = shared().work;
  work.clear();
  std::size_t steps = 0;
  Hypothesis cur = std::move(h);
  bool delivered = false;
  const bool first_foreseen = ctx.first_foreseen;
  ctx.first_foreseen = false;
  for (;;) {
    for (;;) {
      if (++steps > limits_.max_model_steps) {
        ctx.give_up("the server model ran " + std::to_string(steps) +
                    " steps without waiting for a request (diverging model?)");
        return;
      }
      if (cur.server.is_ret() || cur.server.event().kind == EventKind::Recv) {
        (delivered ? *ctx.delivered : out).push_back(std::move(cur));
        break;
      }
      const ServerEvent& ev = cur.server.event();
      switch (ev.kind) {
        case EventKind::Send:
          if (ctx.closed->count(ev.conn)) {
            // never observed
          } else if (ctx.observed && !delivered && ev.conn == ctx.observed_conn &&
                     !cur.net.front_response(ev.conn)) {
            // This response is the one observed: the same test as
            // deliver_in_place, now instead of after queueing.
            const GroundMatch m = match_ground(ev.sym, *ctx.observed);
            if (m == GroundMatch::No) break;  // dies
            if (m == GroundMatch::Unknown) {
              Guard g = guard(ev.sym, *ctx.observed, &cur.store, false);
              if (!g.ok() || admit(g, cur.store, *solver_) == Sat::No) break;  // dies
            }
            delivered = true;
          } else {
            if (ctx.ahead && !(first_foreseen && steps == 1) &&
                !foreseen(cur, ev.conn, ev.sym, ctx))
              break;  // dies
            cur.net.push_response(ev.conn, ev.sym, ev.clause, ctx.before);
          }
          cur.server = cur.server.step(std::monostate{});
          continue;
        case EventKind::Fresh: {
          Sym v = Sym::var(cur.next_var++, ev.sort);
          cur.server = cur.server.step(v);
          continue;
        }
        case EventKind::Decide: {
          Sym c = cur.store.resolve(ev.sym);
          // A branch on hidden choices is worth recording even when this
          // explanation already knows its outcome (the value was observed).
          auto note = [&](bool taken) {
            return std::make_shared<const DecisionTrail>(
                DecisionTrail{{ctx.current, ev.sym, taken}, cur.decisions});
          };
          if (c.is_true() || c.is_false()) {
            if (limits_.record_decisions && !ev.sym.ground())
              cur.decisions = note(c.is_true());
            cur.server = cur.server.step(c.is_true());
            continue;
          }
          Hypothesis alt = cur;
          if (limits_.record_decisions) {
            alt.decisions = note(false);
            cur.decisions = note(true);
          }
          if (alt.store.add(not_(c), *solver_) != Sat::No) {
            alt.server = alt.server.step(false);
            work.emplace_back(std::move(alt), delivered);
          }
          if (cur.store.add(c, *solver_) == Sat::No) break;  // dies
          cur.server = cur.server.step(true);
          continue;
        }
        case EventKind::Resolve:
          cur.server = cur.server.step(cur.store.resolve(ev.sym));
          continue;
        case EventKind::Assume:
          if (cur.store.add(cur.store.resolve(ev.sym), *solver_) == Sat::No)
            break;  // dies
          cur.server = cur.server.step(std::monostate{});
          continue;
        case EventKind::Or: {
          Hypothesis alt = cur;
          alt.server = alt.server.step(false);
          work.emplace_back(std::move(alt), delivered);
          cur.server = cur.server.step(true);
          continue;
        }
        case EventKind::Recv:
          break;  // unreachable: handled above
      }
      break;
    }
    if (work.empty()) return;
    cur = std::move(work.back().first);
    delivered = work.back().second;
    work.pop_back();
  }
}

namespace {
// A cheap hash for interning: the top level's scalar values, and only the
// size of nested objects and arrays (requests that differ in keys or deeper,
// e.g. in one nested field, share a bucket and are told apart by comparison).
std::size_t shallow_hash(const Json& v) {
  auto scalar = [](const Json& x) -> std::size_t {
    if (x.is_object() || x.is_array()) return x.size() * 0x9e3779b97f4a7c15ULL;
    if (x.is_string()) return std::hash<std::string>{}(x.get_ref<const std::string&>());
    return std::hash<Json>{}(x);
  };
  if (!v.is_object()) return scalar(v);
  std::size_t h = v.size();
  for (auto it = v.begin(); it != v.end(); ++it) h = h * 31 + scalar(*it);
  return h;
}
}  // namespace

// One shared body per distinct request content, so that requests compare by
// pointer (SubsumptionSet), decoded once for the model.
Request HypothesisSearch::intern(ConnId conn, Label label,
                                 std::shared_ptr<const Json> body) {
  if (!body) return Request{conn, label, nullptr, nullptr};
  const std::size_t h = shallow_hash(*body);
  SearchShared& sh = shared();
  const SearchShared::Interned* found = nullptr;
  sh.body_index.probe(h, [&](std::size_t k) {
    const SearchShared::Interned& b = sh.bodies[k];
    if (b.hash == h && (b.body == body || *b.body == *body)) found = &b;
    return found != nullptr;
  });
  if (found) return Request{conn, label, found->body, found->decoded};
  SearchShared::Interned fresh{h, std::move(body), nullptr};
  if (decode_) fresh.decoded = decode_(*fresh.body);
  if (sh.bodies.empty()) sh.bodies.reserve(8);
  sh.body_index.add(h, sh.bodies.size(),
                    [&](std::size_t j) { return sh.bodies[j].hash; });
  sh.bodies.push_back(fresh);
  return Request{conn, label, std::move(fresh.body), std::move(fresh.decoded)};
}

StepOutcome HypothesisSearch::request_sent(ConnId conn, Label label,
                                           std::shared_ptr<const Json> body) {
  StepOutcome o;
  if (closed_.count(conn)) {
    o.status = StepOutcome::Status::GaveUp;
    o.reasons.push_back(Reason::generic(
        Reason::Kind::Other, "connection",
        "request sent on " + connection_name(conn) + " after it was closed"));
    return o;
  }
  if (dfs_mode_) {  // (interned when the search reaches it)
    dfs_trace_.push_back(
        Observation{Observation::Kind::Request, conn, label, std::move(body)});
    return o;
  }
  const Request r = intern(conn, label, std::move(body));
  for (Hypothesis& h : live_) h.net.push_request(r);
  if (!deferred_.empty()) {  // (what the hypotheses set aside will run through)
    log_.push_back(Observation{Observation::Kind::Request, conn, label, r.body});
    log_requests_.push_back(r);
  }
  return o;
}

StepOutcome HypothesisSearch::connection_closed(ConnId conn) {
  closed_.insert(conn);
  if (dfs_mode_) {
    dfs_trace_.push_back(Observation{Observation::Kind::Close, conn, 0, nullptr});
    return {};
  }
  if (!deferred_.empty()) {
    log_.push_back(Observation{Observation::Kind::Close, conn, 0, nullptr});
    log_requests_.emplace_back();
  }
  SubsumptionSet merged(closed_, true);
  for (Hypothesis& h : live_) {
    h.net.drop_unobservable(conn);
    merged.insert(h);
  }
  live_ = merged.take();
  return {};
}

// What one hypothesis makes of a response observed on c, applied to h
// itself (h is garbage after a Mismatch).
HypothesisSearch::Delivery HypothesisSearch::deliver_in_place(Hypothesis& h, ConnId c,
                                                              const Json& v, Ctx& ctx) {
  const Sym* p = h.net.front_response(c);
  if (!p) return Delivery::NothingInFlight;
  if (!ctx.wants_reason()) {  // (constants decide most matches)
    const GroundMatch m = match_ground(*p, v);
    if (m == GroundMatch::No) return Delivery::Mismatch;
    if (m == GroundMatch::Yes) {
      h.net.pop_response(c);
      return Delivery::Matched;
    }
  }
  Guard g = guard(*p, v, &h.store, ctx.wants_reason());
  // (Read before the response leaves the network; only when explaining.)
  const Network::InFlight* front =
      ctx.wants_reason() ? h.net.front_in_flight(c) : nullptr;
  const Clause clause = front ? front->clause : nullptr;
  // The state the server received the request in: h's own is the state
  // after it (and after any request absorbed since), the one a server
  // that answered as expected would be in, not the one it answered from.
  std::optional<ModelState> before;
  if (front && front->received) before = front->before;
  auto explained = [&](Reason r) {
    r.clause = clause ? clause : "";
    if (before) {
      r.state = brief(before->to_json());
      r.text += " (server state before the request: " + r.state + ")";
    } else {  // (a response sent before any request)
      r.state = brief(h.model_state());
      r.text += " (server state " + r.state + ")";
    }
    ctx.reason(std::move(r));
  };
  if (!g.ok()) {
    if (ctx.wants_reason()) explained(std::move(*g.mismatch));
    return Delivery::Mismatch;
  }
  h.net.pop_response(c);
  // (When a reason is wanted the guard has no bindings: its equations are
  // all in the constraint the message shows.)
  if (admit(g, h.store, *solver_) == Sat::No) {
    if (ctx.wants_reason()) {
      Reason r = Reason::generic(Reason::Kind::Contradiction, "response", {});
      r.observed = brief_constants(g.constraint.to_string());  // what it requires
      r.text = "the response contradicts what earlier messages revealed: " + r.observed +
               " is impossible";
      explained(std::move(r));
    }
    return Delivery::Mismatch;
  }
  return Delivery::Matched;
}

// The connections whose front request the server may absorb next, because c
// still waits for a response, in the order to try them (empty when the
// server has stopped).
Network::ConnList HypothesisSearch::ready_order(const Hypothesis& h, ConnId c, Ctx& ctx) {
  if (h.server.is_ret()) {
    ctx.reason(Reason::generic(Reason::Kind::ModelStopped, "server",
                               "the server model has stopped; it sends nothing more"));
    return {};
  }
  const std::set<ConnId>& closed = *ctx.closed;
  const bool own_first = dfs_mode_;
  // (The sort keys, read once per connection rather than per comparison.)
  struct Key {
    // Not c's own (when that goes first), a closed connection's, the
    // front request's label: one word, compared once.
    std::uint64_t order;
    ConnId conn;
    const Request* request;
    std::size_t answers;
    bool operator<(const Key& o) const { return order < o.order; }
  };
  boost::container::small_vector<Key, 8> keys;
  bool own_request = false;
  const bool none_closed = closed.empty();
  // SearchLimits::Order::FirstAnswered (the depth-first check, which knows
  // the trace): d's front request is answered by the response observed on d
  // after the `answers` already in flight there, from position ahead_at on.
  const PositionsByConn* answered_at =
      limits_.order == SearchLimits::Order::FirstAnswered ? ctx.ahead_responses : nullptr;
  auto when_answered = [&](ConnId d, std::size_t answers) -> std::uint64_t {
    const std::vector<std::size_t>* at = answered_at->find(d);
    if (!at) return 0xffff'ffffu;
    auto first = std::lower_bound(at->begin(), at->end(), ctx.ahead_at);
    return static_cast<std::size_t>(at->end() - first) > answers
               ? std::min<std::uint64_t>(first[answers], 0xffff'fffeu)
               : 0xffff'ffffu;
  };
  h.net.for_each_ready_channel([&](ConnId d, const Request& front, std::size_t answers) {
    own_request = own_request || d == c;
    const bool later = own_first && d != c;
    const bool is_closed = !none_closed && closed.count(d) > 0;
    const std::uint64_t rank =
        answered_at                                           ? when_answered(d, answers)
        : limits_.order == SearchLimits::Order::Newest ? 0xffff'ffffu - front.label
                                                              : front.label;
    keys.push_back(Key{(std::uint64_t{later} << 33) | (std::uint64_t{is_closed} << 32) | rank,
                       d, &front, answers});
  });
  if (!own_request && ctx.wants_reason())
    ctx.reason(Reason::generic(
        Reason::Kind::NothingOutstanding, "connection",
        keys.empty() ? "no request is outstanding on " + connection_name(c) +
                           ", so no response can arrive there"
                     : "the server answers in order on each connection, and " +
                           connection_name(c) + " has nothing left to answer"));
  // Oldest request first: the likeliest order of execution, which is the
  // order the depth-first check tries first (as Porcupine does).
  // Requests of closed connections go last: they may wait forever, so
  // the cheapest explanation leaves them unprocessed.
  // Online (after going depth-first), c's own request comes first: without
  // the observations to come, the explanation that absorbs the fewest
  // requests commits to the least, and dies least often later.
  // (Insertion: a handful of keys, often in order already.)
  for (std::size_t k = 1; k < keys.size(); ++k)
    for (std::size_t j = k; j > 0 && keys[j] < keys[j - 1]; --j)
      std::swap(keys[j], keys[j - 1]);
  Network::ConnList ready;
  ready.reserve(keys.size());
  ctx.ready_fronts.clear();
  for (const Key& k : keys) {
    ready.push_back(k.conn);
    ctx.ready_fronts.push_back(Ctx::ReadyFront{k.request, k.answers});
  }
  return ready;
}

// The server absorbs the front request of connection d (one successor
// family), appended to succ.
void HypothesisSearch::expand_via(const Hypothesis& h, ConnId d,
                                  std::vector<Hypothesis>& succ, Ctx& ctx) {
  // The request leaves the network only in a branch that survives the
  // lookahead's first test below (most that die, die there, before any copy
  // of the channel list); settling touches no request queue.
  const Ctx::ReadyFront* via = std::exchange(ctx.via, nullptr);
  const Request& r = via ? *via->front : h.net.requests_on(d)->front();
  Tree next = ctx.step(h.server, r);
  // Most branches of the depth-first check die on the lookahead at their
  // first response (a read absorbed in a state whose value the trace does
  // not show there): the same test settle() would make first, made before
  // the hypothesis is copied.
  if (ctx.ahead && !ctx.observed && limits_.max_model_steps > 0 && !next.is_ret()) {
    const ServerEvent& ev = next.event();
    if (ev.kind == EventKind::Send && !ctx.closed->count(ev.conn)) {
      if (via && ev.conn == d) ctx.known_answers = via->answers;
      const bool ok = foreseen(h, ev.conn, ev.sym, ctx);
      ctx.known_answers = Ctx::kUnknownAnswers;
      if (!ok) return;
      ctx.first_foreseen = true;  // (settle need not test it again)
    }
  }
  // A request from a closed connection whose processing left no trace
  // is dominated by not processing it (it stays available for later).
  const bool dead_conn = ctx.closed->count(d) > 0 && h.net.pending_on(d) == 1;
  std::optional<Hypothesis> base;
  if (dead_conn) {
    base = h;
    base->net.pop_request(d);
  }
  // (Made with its new server: a copy of h's, replaced at once, counted two
  // references for nothing.)
  Hypothesis stepped{std::move(next), h.net, h.store, h.next_var, h.decisions};
  // The request leaves before settling adds responses: a channel that held
  // only it is dropped instead of copied (with the request) for the
  // responses and then trimmed. (The forks settle makes share this.)
  stepped.net.pop_request(d);
  ctx.current = r.label;
  ctx.before = &h.server.event().state;
  const std::size_t first = succ.size();
  settle(std::move(stepped), succ, ctx);
  ctx.before = nullptr;
  // Twins (e.g. a server that may ignore a precondition, and one that
  // evaluated it to the same answer) would be merged by the visited set,
  // keeping whichever came first; keep the one whose trail took the
  // branch, so targeted mutation can flip it.
  if (limits_.record_decisions)
    for (std::size_t i = first; i < succ.size(); ++i)
      for (std::size_t j = succ.size(); j-- > i + 1;)
        if (succ[j] == succ[i]) {
          SubsumptionSet::keep_longer_trail(succ[i], succ[j]);
          succ.erase(succ.begin() + static_cast<std::ptrdiff_t>(j));
        }
  if (dead_conn)
    succ.erase(
        std::remove_if(succ.begin() + static_cast<std::ptrdiff_t>(first), succ.end(),
                       [&](const Hypothesis& s) { return s == *base; }),
        succ.end());
}

// The server absorbs one in-flight request (each connection's front, one
// successor family per connection), because c still waits for a response.
void HypothesisSearch::expand(const Hypothesis& h, ConnId c,
                              std::vector<Hypothesis>& succ, Ctx& ctx) {
  for (ConnId d : ready_order(h, c, ctx)) expand_via(h, d, succ, ctx);
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
    if (o.reasons.empty())
      o.reasons.push_back(Reason::generic(Reason::Kind::Other, "response",
                                          "no hypothesis explains this response"));
  }
  return o;
}

StepOutcome HypothesisSearch::response_received(ConnId c, Label label, const Json& v) {
  // Explanations (server states as JSON, mismatch texts) cost more than the
  // search itself and are only read when every hypothesis dies: search
  // without them, and again with them only then (the search reads the live
  // hypotheses without changing them, and replaces them when it is done).
  if (dfs_mode_) {
    if (closed_.count(c)) {
      Ctx ctx(0, &closed_);
      ctx.give_up("response observed on " + connection_name(c) +
                  " after the tester closed it");
      return finish(ctx);
    }
    dfs_trace_.push_back(Observation{Observation::Kind::Response, c, label,
                                     std::make_shared<const Json>(v)});
    return resume_depth_first();
  }
  current_logged_ = false;
  if (!deferred_.empty()) {
    log_response(c, label, v);
    prune_deferred(c, v);
  }
  StepOutcome o = response_received(
      c, label, v, 0, limits_.set_aside_quiet_steps ? SetAside::All : SetAside::None);
  // No rejection while a hypothesis set aside may still explain the trace:
  // run them all forward through this response. Those that absorb a closed
  // connection's request on the way are set aside again, for the next round
  // (explanations with fewer such steps first; the rounds end, as the
  // requests do).
  while (o.status == StepOutcome::Status::Dead && !deferred_.empty() && !dfs_mode_) {
    log_response(c, label, v);
    Ctx ctx(0, &closed_);
    std::vector<Hypothesis> found;
    if (!catch_up(log_.size(), found, ctx, /*closed_aside=*/true)) {
      o = finish(ctx);
    } else if (!found.empty()) {
      live_ = std::move(found);
      o = {};
    }
  }
  if (o.status == StepOutcome::Status::Dead && limits_.max_reasons > 0 && !dfs_mode_)
    o = response_received(c, label, v, limits_.max_reasons, SetAside::None);
  if (deferred_.empty()) {
    log_.clear();
    log_requests_.clear();
  }
  current_logged_ = false;
  return o;
}

void HypothesisSearch::log_response(ConnId conn, Label label, const Json& response) {
  if (current_logged_) return;
  if (log_.empty()) log_closed_ = closed_;
  log_.push_back(Observation{Observation::Kind::Response, conn, label,
                             std::make_shared<const Json>(response)});
  log_requests_.emplace_back();
  log_current_ = log_.size() - 1;
  current_logged_ = true;
}

// A hypothesis set aside is frozen: the responses it has in flight on conn
// stay as they were, and the k-th of them is the k-th response observed on
// conn since (none can be delivered before it runs again). One that cannot
// match is dead, without running it forward.
void HypothesisSearch::prune_deferred(ConnId conn, const Json& response) {
  std::size_t kept = 0;
  for (std::size_t k = 0; k < deferred_.size(); ++k) {
    Deferred& d = deferred_[k];
    bool dead = false;
    if (d.conn == conn) {
      d.h.net.for_each_response([&](ConnId c, const Network::ResponseQueue& rs) {
        if (c != conn || d.answered >= rs.size()) return;
        dead = !may_match(rs[d.answered].pattern, response, d.h.store, *solver_);
      });
      ++d.answered;
    }
    if (dead) continue;
    if (kept != k) deferred_[kept] = std::move(d);
    ++kept;
  }
  deferred_.resize(kept);
}

bool HypothesisSearch::catch_up(std::size_t end, std::vector<Hypothesis>& out, Ctx& ctx,
                                bool closed_aside) {
  std::vector<Deferred> todo = std::move(deferred_);
  deferred_.clear();
  std::stable_sort(todo.begin(), todo.end(),
                   [](const Deferred& a, const Deferred& b) { return a.at < b.at; });
  std::vector<Hypothesis> saved_live = std::move(live_);
  const std::set<ConnId> saved_closed = closed_;
  const SearchLimits saved_limits = limits_;
  const std::size_t saved_current = log_current_;
  const bool saved_logged = current_logged_;
  limits_.depth_first_after = 0;  // (exhaustive, as the search it stands for)
  std::set<ConnId> closed = log_closed_;
  std::vector<Hypothesis> set;
  std::size_t k = 0;
  bool ok = true;
  for (std::size_t p = todo.empty() ? end : todo.front().at; p < end && ok; ++p) {
    const Observation& ob = log_[p];
    switch (ob.kind) {
      case Observation::Kind::Request:
        for (Hypothesis& h : set) h.net.push_request(log_requests_[p]);
        break;
      case Observation::Kind::Close:
        closed.insert(ob.conn);
        for (Hypothesis& h : set) h.net.drop_unobservable(ob.conn);
        break;
      case Observation::Kind::Response: {
        live_ = std::move(set);
        set.clear();
        for (; k < todo.size() && todo[k].at == p; ++k)
          live_.push_back(std::move(todo[k].h));
        if (live_.empty()) break;
        closed_ = closed;
        // (What this search sets aside is positioned at p.)
        log_current_ = p;
        current_logged_ = true;
        StepOutcome o =
            response_received(ob.conn, ob.label, *ob.body, 0,
                              closed_aside ? SetAside::Closed : SetAside::None);
        if (o.status == StepOutcome::Status::GaveUp) {
          ok = false;
          ctx.gave_up = true;
          ctx.gave_up_why = o.reasons.empty()
                                ? Reason::generic(Reason::Kind::Limit, {}, "limit")
                                : o.reasons.front();
        } else if (o.status == StepOutcome::Status::Alive) {
          set = std::move(live_);
        }
        break;
      }
    }
  }
  // (Set aside at `end` itself: still before their search, which is the caller's.)
  for (; k < todo.size(); ++k) set.push_back(std::move(todo[k].h));
  live_ = std::move(saved_live);
  closed_ = saved_closed;
  limits_ = saved_limits;
  log_current_ = saved_current;
  current_logged_ = saved_logged;
  out = std::move(set);
  return ok;
}

// The depth-first search over the observations since the switch, from the
// explanations live then. It goes on from the explanation it holds; when that
// explanation leads nowhere for long, it starts afresh: a search resumed
// backs up through choices it made before the responses that refute them were
// observed, while a fresh one checks every response in flight against the
// responses observed since (the whole-trace check's lookahead), which prunes
// far more. Resuming may cost as much as the last fresh search (at least
// what one response could cost breadth-first) before it restarts.
StepOutcome HypothesisSearch::resume_depth_first() {
  // Per search, the same limit as the whole-trace check; over the trace,
  // what is left of its exploration budget.
  auto budget = [&](std::size_t nodes_now, std::size_t want) {
    std::size_t b = std::min(want, limits_.max_hypotheses * 4);
    if (limits_.max_explored)
      b = std::min(b, nodes_now + (limits_.max_explored > explored_
                                       ? limits_.max_explored - explored_
                                       : 0));
    return b;
  };
  std::size_t stopped = 0;
  if (dfs_) {
    const std::size_t now = dfs_->nodes;
    const std::size_t room = std::max(limits_.depth_first_after, dfs_fresh_nodes_);
    StepOutcome out =
        search_depth_first(dfs_trace_, stopped, budget(now, now + room), true);
    if (out.status != StepOutcome::Status::GaveUp || !dfs_ ||
        budget(dfs_->nodes, static_cast<std::size_t>(-1)) <= dfs_->nodes)
      return out;  // decided, or out of budget
  }
  dfs_.reset();
  live_ = dfs_roots_;
  closed_ = dfs_roots_closed_;
  StepOutcome out = search_depth_first(dfs_trace_, stopped,
                                       budget(0, static_cast<std::size_t>(-1)), true);
  if (dfs_) dfs_fresh_nodes_ = dfs_->nodes;
  return out;
}

StepOutcome HypothesisSearch::response_received(ConnId c, Label label, const Json& v,
                                                std::size_t max_reasons,
                                                SetAside set_aside) {
  Ctx ctx(max_reasons, &closed_);
  if (lookahead_) {
    ctx.ahead = lookahead_->trace;
    ctx.ahead_responses = &lookahead_->responses_on;
    ctx.ahead_at = lookahead_->at;
    ctx.ahead_skip = c;
  }
  if (closed_.count(c)) {
    ctx.give_up("response observed on " + connection_name(c) +
                " after the tester closed it");
    return finish(ctx);
  }
  // Breadth-first, so hypotheses that processed fewer requests come first and
  // subsume those that processed more closed-connection requests.
  SearchShared& sc = shared();
  sc.next.reset(closed_);
  sc.visited.reset(closed_);
  SubsumptionSet &next = sc.next, &visited = sc.visited;
  // A FIFO queue: the live hypotheses (read, not changed: a search that
  // leaves none alive runs again on them to explain why), then the
  // successors, in a vector read from `head` on.
  const std::size_t initial = live_.size();
  std::vector<Hypothesis>&queue = sc.queue, &succ = sc.succ, &delivered = sc.delivered;
  queue.clear();
  delivered.clear();
  if (max_reasons == 0) {
    ctx.observed = &v;
    ctx.observed_conn = c;
    ctx.delivered = &delivered;
  }
  // Repeats need several interleavings to meet (concurrent requests); the
  // first few configurations of a response skip the visited set (a repeat
  // among them costs one expansion, never an answer).
  constexpr std::size_t kUnvisited = 4;
  std::size_t popped = 0, delivered_total = 0;
  // Hypotheses delivered while settling count as explored configurations,
  // as they did when they were queued first: the limits keep their meaning.
  auto over_limits = [&] {
    if (visited.size() + std::min(popped, kUnvisited) + delivered_total >
        limits_.max_hypotheses) {
      ctx.give_up("more than " + std::to_string(limits_.max_hypotheses) +
                  " hypotheses for one observation");
      return true;
    }
    if (limits_.max_explored && explored_ > limits_.max_explored) {
      ctx.give_up("more than " + std::to_string(limits_.max_explored) +
                  " configurations explored for this trace");
      return true;
    }
    if (limits_.out_of_time()) {
      ctx.give_up(std::string(kOutOfTime));
      return true;
    }
    return false;
  };
  bool too_many = false;  // for breadth first: go depth-first
  for (std::size_t head = 0; head < initial + queue.size(); ++head) {
    if (limits_.depth_first_after && popped >= limits_.depth_first_after &&
        max_reasons == 0) {
      too_many = true;
      break;
    }
    const Hypothesis& h = head < initial ? live_[head] : queue[head - initial];
    if (++popped > kUnvisited && !visited.insert(h)) continue;
    ++explored_;
    if (over_limits()) break;
    if (h.net.front_response(c)) {
      Hypothesis d = h;
      if (deliver_in_place(d, c, v, ctx) == Delivery::Matched) next.insert(d);
      continue;
    }
    succ.clear();
    if (set_aside == SetAside::None) {
      expand(h, c, succ, ctx);
    } else {
      for (ConnId d : ready_order(h, c, ctx)) {
        const std::size_t first = succ.size();
        expand_via(h, d, succ, ctx);
        if (d == c) continue;
        // A request of a connection the tester closed: its response is
        // never observed, and not processing it at all is always one of the
        // server's choices, so a step that absorbs it (a write: quiet ones
        // are never taken, expand_via) is only needed by a trace that the
        // steps without it cannot explain. Set aside, it comes back only
        // then (catch_up before any rejection, as below); it was absorbed
        // in every order with every other connection's requests, which made
        // scripts that close connections with writes in flight the most
        // common inconclusive ones against real servers.
        const bool ghost = ctx.closed->count(d) > 0;
        std::size_t kept = first;
        for (std::size_t k = first; k < succ.size(); ++k) {
          Hypothesis& s = succ[k];
          if (ghost || (set_aside == SetAside::All && !s.server.is_ret() &&
                        s.server.event().state == h.server.event().state)) {
            log_response(c, label, v);
            deferred_.push_back(Deferred{log_current_, d, 0, std::move(s)});
            continue;
          }
          if (kept != k) succ[kept] = std::move(s);
          ++kept;
        }
        succ.resize(kept);
      }
    }
    for (Hypothesis& s : succ) queue.push_back(std::move(s));
    for (Hypothesis& d : delivered) next.insert(d);
    explored_ += delivered.size();
    delivered_total += delivered.size();
    delivered.clear();
    if (over_limits()) break;
  }
  if (too_many) {
    // The live explanations are as they were before this response: search
    // on from them depth-first, this response first. The hypotheses set
    // aside before this response are explanations too: they join them
    // (those set aside in this response's search descend from them).
    std::vector<Hypothesis> roots = live_;
    if (!deferred_.empty()) {
      std::size_t end = log_.size();
      if (current_logged_) {
        end = log_current_;
        std::erase_if(deferred_, [&](const Deferred& d) { return d.at == end; });
      }
      std::vector<Hypothesis> more;
      if (!catch_up(end, more, ctx)) return finish(ctx);
      for (Hypothesis& m : more) roots.push_back(std::move(m));
      log_.clear();
      log_requests_.clear();
      current_logged_ = false;
    }
    dfs_mode_ = true;
    dfs_roots_ = std::move(roots);
    dfs_roots_closed_ = closed_;
    dfs_.reset();
    dfs_trace_ = {Observation{Observation::Kind::Response, c, label,
                              std::make_shared<const Json>(v)}};
    return resume_depth_first();
  }
  next.take(sc.survivors);
  if (sc.survivors.empty() && !ctx.gave_up && max_reasons == 0 &&
      limits_.max_reasons > 0) {
    StepOutcome dead;  // the caller searches again, for the reasons
    dead.status = StepOutcome::Status::Dead;
    return dead;
  }
  std::swap(live_, sc.survivors);  // (the old live set's storage is reused next time)
  return finish(ctx);
}

StepOutcome HypothesisSearch::check_breadth_first(const std::vector<Observation>& trace,
                                                  std::size_t& stopped_at,
                                                  std::size_t budget, bool lookahead) {
  const std::size_t start = explored_;
  const SearchLimits saved = limits_;
  limits_.max_hypotheses = std::min(limits_.max_hypotheses, budget);
  // The portfolio's exhaustive half: going depth-first is the other half's job.
  limits_.depth_first_after = 0;
  if (lookahead) {
    lookahead_ = std::make_unique<Lookahead>();
    lookahead_->trace = &trace;
    for (std::size_t i = 0; i < trace.size(); ++i)
      if (trace[i].kind == Observation::Kind::Response)
        lookahead_->responses_on.add(trace[i].conn, i);
  }
  // (Not left set: a later incremental step has no trace to look at.)
  struct Done {
    std::unique_ptr<Lookahead>& l;
    ~Done() { l.reset(); }
  } done{lookahead_};
  StepOutcome out;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const Observation& ob = trace[i];
    if (lookahead_) lookahead_->at = i;
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
    if (out.status == StepOutcome::Status::Alive &&
        (explored_ - start > budget || limits_.stopped() || limits_.out_of_time())) {
      out.status = StepOutcome::Status::GaveUp;
      out.reasons = {Reason::generic(Reason::Kind::Limit, {}, limit_text(budget))};
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

std::string HypothesisSearch::limit_text(std::size_t budget) const {
  if (limits_.stopped()) return "stopped: the verdict no longer needs this search";
  if (limits_.out_of_time()) return std::string(kOutOfTime);
  return "more than " + std::to_string(budget) + " configurations explored";
}

// Depth-first, like the thesis's backtracking tester (Fig. 4.12/4.13) and
// Porcupine: commit to one explanation, back up only when it fails. Requests,
// closes and the delivery of a response already in flight are deterministic,
// so a hypothesis runs through them without branching; a node is
// (observations explained, hypothesis) at a response that needs the server to
// absorb requests first. Nodes are memoized with subsumption, so every
// distinct configuration is expanded at most once (Lowe's and Horn &
// Kroening's configuration cache). A call with a larger budget on the same
// trace resumes where the previous one gave up.
StepOutcome HypothesisSearch::check_offline(const std::vector<Observation>& trace,
                                            std::size_t& stopped_at, std::size_t budget) {
  return search_depth_first(trace, stopped_at, budget, false);
}

StepOutcome HypothesisSearch::search_depth_first(const std::vector<Observation>& trace,
                                                 std::size_t& stopped_at,
                                                 std::size_t budget, bool resumable) {
  if (!dfs_ || dfs_->trace != &trace) {
    dfs_ = std::make_unique<Dfs>();
    Dfs& d = *dfs_;
    d.trace = &trace;
    d.ctx = Ctx(limits_.max_reasons, &closed_);
    d.closed_at.push_back(std::make_shared<const std::set<ConnId>>(closed_));
    for (auto it = live_.rbegin(); it != live_.rend(); ++it)
      d.stack.push_back(Dfs::Entry{0, *it, false, {}, 0, true});
  }
  Dfs& d = *dfs_;
  // Index the observations added since the last call (all, the first time):
  // a resumed search sees the trace extended at its end, which changes
  // nothing it has concluded (a configuration that died, died on an
  // observation that is still there).
  d.closed_at.reserve(trace.size() + 1);
  for (std::size_t i = d.requests.size(); i < trace.size(); ++i) {
    if (trace[i].kind == Observation::Kind::Close) {
      auto next = std::make_shared<std::set<ConnId>>(*d.closed_at.back());
      next->insert(trace[i].conn);
      d.closed_at.push_back(std::move(next));
    } else {
      d.closed_at.push_back(d.closed_at.back());
    }
    if (trace[i].kind == Observation::Kind::Response)
      d.responses_on.add(trace[i].conn, i);
    if (trace[i].kind == Observation::Kind::Request) d.requests_on.add(trace[i].conn, i);
    d.requests.push_back(trace[i].kind == Observation::Kind::Request
                             ? intern(trace[i].conn, trace[i].label, trace[i].body)
                             : Request{});
  }
  d.seen.resize(trace.size() + 1);
  d.views.resize(trace.size());
  Ctx& ctx = d.ctx;
  ctx.gave_up = false;
  ctx.first_ahead.clear();  // (the trace may have grown)
  // Whether the trace, from position i on, shows no request on `conn` and
  // no more than `answers` responses there (Dfs::Parked).
  auto unanswered = [&](std::size_t i, ConnId conn, std::size_t answers) {
    auto from = [i](const PositionsByConn& m, ConnId k) -> std::size_t {
      const std::vector<std::size_t>* at = m.find(k);
      if (!at) return 0;
      return static_cast<std::size_t>(at->end() -
                                      std::lower_bound(at->begin(), at->end(), i));
    };
    return from(d.requests_on, conn) == 0 && from(d.responses_on, conn) <= answers;
  };
  // Deferred steps the grown trace now needs go back onto the stack (their
  // in-flight responses are checked again, as a starting point's are).
  {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < d.parked.size(); ++k) {
      Dfs::Parked& p = d.parked[k];
      if (unanswered(p.entry.i, p.conn, p.answers)) {
        if (kept != k) d.parked[kept] = std::move(p);
        ++kept;
        continue;
      }
      p.entry.root = true;
      d.stack.push_back(std::move(p.entry));
    }
    d.parked.resize(kept);
  }
  // Lookahead (offline only): the k-th response in flight on a connection is
  // the k-th response observed on it from here on, so a hypothesis whose
  // in-flight response cannot match it is dead already — prune it now rather
  // than after exploring everything in between (Porcupine checks outputs at
  // linearization time for the same reason).
  // Only responses the expansion added need a look: the others were checked
  // when they were sent (a shared channel is the same vector), and their
  // place in the observations has not moved since.
  // `parent`: the node h was expanded from (its responses were checked,
  // and the channels h shares with it are unchanged), or null (a starting
  // point: every response).
  auto doomed = [&](const Hypothesis& h, std::size_t i, const Network* parent) {
    bool dead = false;
    auto look = [&](ConnId conn, const Network::ResponseQueue& rs) {
      if (dead) return;
      const std::vector<std::size_t>* at = d.responses_on.find(conn);
      if (!at) return;
      auto first = std::lower_bound(at->begin(), at->end(), i);
      for (std::size_t k = 0; k < rs.size() && first + k < at->end(); ++k)
        if (!may_match_at(rs[k].pattern, first[k], *trace[first[k]].body, &d.views,
                          h.store, *solver_)) {
          dead = true;
          return;
        }
    };
    if (parent)
      h.net.for_each_response_since(*parent, look);
    else
      h.net.for_each_response(look);
    return dead;
  };
  std::vector<Hypothesis>& succ = d.succ;
  while (!d.stack.empty()) {
    if (d.nodes >= budget || limits_.stopped() || limits_.out_of_time()) {
      ctx.give_up(limit_text(budget));
      stopped_at = d.deepest;
      return finish(ctx);
    }
    if (d.stack.back().expanding) {
      // A node's next family of successors, built only now: the search
      // backs up to it only if every successor tried before has failed.
      Dfs::Entry& node = d.stack.back();
      if (node.next == node.ready.size()) {
        d.stack.pop_back();
        continue;
      }
      const std::size_t i = node.i;
      ctx.via = &node.fronts[node.next];
      const ConnId via = node.ready[node.next++];
      ctx.max_reasons = i == d.deepest ? limits_.max_reasons : 0;
      ctx.closed = d.closed_at[i].get();
      ctx.ahead = &trace;
      ctx.ahead_responses = &d.responses_on;
      ctx.ahead_views = &d.views;
      ctx.ahead_at = i;
      succ.clear();
      expand_via(node.h, via, succ, ctx);
      ctx.ahead = nullptr;
      ctx.via = nullptr;
      d.cut = d.cut || ctx.gave_up;
      std::size_t alive = 0;  // (the doomed ones leave succ, the rest keep order)
      for (std::size_t k = 0; k < succ.size(); ++k)
        if (!doomed(succ[k], i, &node.h.net)) {
          if (alive != k) succ[alive] = std::move(succ[k]);
          ++alive;
        }
      succ.resize(alive);
      // A quiet step on a request the trace never answers waits aside.
      if (!succ.empty() && node.h.net.pending_on(via) == 1 && !node.h.server.is_ret()) {
        const std::size_t answers = node.h.net.answers_on(via);
        if (unanswered(i, via, answers)) {
          std::size_t kept = 0;
          for (std::size_t k = 0; k < succ.size(); ++k) {
            Hypothesis& s = succ[k];
            if (!s.server.is_ret() &&
                s.server.event().state == node.h.server.event().state &&
                s.next_var == node.h.next_var && s.store == node.h.store &&
                s.net.absorbed_quietly(node.h.net, via)) {
              d.parked.push_back(Dfs::Parked{Dfs::Entry{i, std::move(s)}, via, answers});
              continue;
            }
            if (kept != k) succ[kept] = std::move(s);
            ++kept;
          }
          succ.resize(kept);
        }
      }
      // (node is not used below: pushing may move it.)
      for (auto it = succ.rbegin(); it != succ.rend(); ++it)
        d.stack.push_back(Dfs::Entry{i, std::move(*it)});
      continue;
    }
    std::size_t i = d.stack.back().i;
    const bool root = d.stack.back().root;
    Hypothesis h = std::move(d.stack.back().h);
    d.stack.pop_back();
    if (root) {
      // Responses a starting point already has in flight were never looked
      // at (an online search that went depth-first starts from
      // explanations that processed requests before their responses came).
      if (doomed(h, i, nullptr)) continue;
    }
    // Run through the deterministic observations.
    bool dead = false;
    for (;;) {
      if (i > d.deepest) {
        d.deepest = i;
        ctx.reasons.clear();
      }
      if (i == trace.size()) {
        closed_ = *d.closed_at[i];
        stopped_at = i;
        if (resumable) {
          // The explanation is where the search goes on when the trace grows.
          live_ = {h};
          d.stack.push_back(Dfs::Entry{i, std::move(h)});
        } else {
          live_ = {std::move(h)};
          dfs_.reset();
        }
        return {};
      }
      const Observation& ob = trace[i];
      if (ob.kind == Observation::Kind::Request) {
        h.net.push_request(d.requests[i]);
        ++i;
        continue;
      }
      if (ob.kind == Observation::Kind::Close) {
        h.net.drop_unobservable(ob.conn);
        ++i;
        continue;
      }
      ctx.max_reasons = i == d.deepest ? limits_.max_reasons : 0;
      ctx.closed = d.closed_at[i].get();
      Delivery r = deliver_in_place(h, ob.conn, *ob.body, ctx);
      if (r == Delivery::Matched) {
        ++i;
        continue;
      }
      dead = r == Delivery::Mismatch;
      break;
    }
    if (dead) continue;
    if (d.closed_at[i]->empty()) {
      if (!d.memo.insert(i, h)) continue;
    } else {
      auto& seen = d.seen[i];
      if (!seen) seen = std::make_unique<SubsumptionSet>(*d.closed_at[i], false);
      if (!seen->insert(h)) continue;
    }
    ++explored_;
    ++d.nodes;
    ctx.ahead_responses = &d.responses_on;  // (ready_order's FirstAnswered)
    ctx.ahead_at = i;
    Network::ConnList ready = ready_order(h, trace[i].conn, ctx);
    if (!ready.empty()) {
      d.stack.push_back(Dfs::Entry{i, std::move(h), true, std::move(ready)});
      d.stack.back().fronts = ctx.ready_fronts;  // (into h's channels, which it keeps)
    }
  }
  live_.clear();
  stopped_at = d.deepest;
  ctx.gave_up = ctx.gave_up || d.cut;
  StepOutcome out = finish(ctx);
  if (!resumable) dfs_.reset();
  return out;
}

}  // namespace dualfuzz::oracle
