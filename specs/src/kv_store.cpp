#include "dualfuzz/specs/kv_store.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "dualfuzz/oracle/detail/small_vector.h"
#include "dualfuzz/specs/detail/jepsen_responses.h"

namespace dualfuzz::specs {
using namespace oracle;

namespace {
using detail::jepsen_fail;
using detail::jepsen_ok;

// A request as the model reads it, decoded once per distinct request
// (ServerModel::decode): the search runs the model on the same request in
// many states, and field lookups in its JSON were a large part of a step.
struct KvOp final : DecodedRequest {
  enum class F { Get, Put, Append, Other } f = F::Other;
  bool has_key = false;
  std::string key;
  std::size_t key_hash = 0;  // std::hash of `key`, for the states it writes
  std::string value;         // (absent: "")
};

const std::string* string_field(const Json& r, const char* name) {
  auto it = r.find(name);
  return it != r.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

KvOp decode(const Json& r) {
  KvOp op;
  if (!r.is_object()) return op;
  if (const std::string* k = string_field(r, "key")) {
    op.has_key = true;
    op.key = *k;
    op.key_hash = std::hash<std::string>{}(op.key);
  }
  if (const std::string* v = string_field(r, "value")) op.value = *v;
  if (const std::string* f = string_field(r, "f"))
    op.f = *f == "get"      ? KvOp::F::Get
           : *f == "put"    ? KvOp::F::Put
           : *f == "append" ? KvOp::F::Append
                            : KvOp::F::Other;
  return op;
}

// The store: key -> value, sorted by key; absent keys read as "". A flat
// vector rather than a JSON object: a step that writes makes a new one, and
// one partition holds one key. Each value is kept only inside the response
// a read of it gets, {"type":"ok","value":v}, built once when the value is
// written: the search absorbs every read in many states (reads are most of
// a history's steps, and 95 % of the values written on c50-ok are read),
// and a read then answers with that response as it is. The value is the
// response's second field, a constant (Sym::lit, hashed once).
const Sym::Fields& read_shape() {
  // (Per thread: partitions searched on several threads would otherwise
  // count references in the same nodes, oracle/src/symbolic.cpp.)
  static thread_local const Sym::Fields kShape = Sym::fields({"type", "value"});
  return kShape;
}
// (`value` by reference: each JSON value passed on by value is one more
// moved-from temporary to destroy, per write.)
Sym read_response(Json&& value) {
  static thread_local const Sym kOk = Sym::lit("ok");
  // (Built in place: an initializer list would copy both Syms, counting a
  // reference in each and releasing it again.)
  std::vector<Sym> fields;
  fields.reserve(2);
  fields.push_back(kOk);
  fields.push_back(Sym::lit(std::move(value)));
  return Sym::object(read_shape(), std::move(fields));
}
const std::string& text(const Sym& value) {
  // (Through the pointer: get_ref<>() goes through nlohmann's checked
  // conversion; a written value is always a string.)
  return *value.value().get_ptr<const std::string*>();
}
struct KvEntry {
  std::string key;
  // (Kept: a state is hashed when it is made, once per write, and hashing
  // the key again was a call per write. It fits in the state's allocation
  // size class.)
  std::size_t key_hash;  // std::hash<std::string>{}(key)
  Sym read;              // read_response(value)
  const Sym& value() const { return read.args()[1]; }
  friend bool operator==(const KvEntry& a, const KvEntry& b) {
    return a.key == b.key && a.value() == b.value();
  }
};
struct KvState {
  // (Inline room for one key: a partition's store holds one, and its copy
  // is then part of the state's own allocation.)
  boost::container::small_vector<KvEntry, 1> entries;
  using Entries = boost::container::small_vector<KvEntry, 1>;
  KvState() = default;
  KvState(const KvState&) = default;
  KvState& operator=(const KvState&) = default;
  KvState& operator=(KvState&&) = default;
  // (A state is moved twice into its ModelState, whose constructor takes it
  // by value. small_vector's own move of inline entries went through its
  // generic range assignment, a call per move; entry by entry it inlines.
  // More than one entry are on the heap, and their buffer is taken.)
  KvState(KvState&& o) noexcept {
    if (o.entries.size() > 1) {
      entries = std::move(o.entries);
      return;
    }
    for (KvEntry& e : o.entries) entries.push_back(std::move(e));
  }
  // Where `key` is or would go.
  Entries::const_iterator position(const std::string& key) const {
    return std::lower_bound(entries.begin(), entries.end(), key,
                            [](const KvEntry& e, const std::string& k) { return e.key < k; });
  }
  // Up to this many keys, a lookup compares each for equality.
  static constexpr std::size_t kScan = 4;
  const KvEntry* find(const std::string& key) const {
    // (A partition's store holds one key: comparing for equality is one
    // length test, where a binary search compared the bytes twice.)
    if (entries.size() <= kScan) {
      for (const KvEntry& e : entries)
        if (e.key == key) return &e;
      return nullptr;
    }
    auto it = position(key);
    return it != entries.end() && it->key == key ? &*it : nullptr;
  }
  const std::string& get(const std::string& key) const {
    static thread_local const std::string empty;
    const KvEntry* e = find(key);
    return e ? text(e->value()) : empty;
  }
  // The response to a read of `key`.
  const Sym& read(const std::string& key) const {
    static thread_local const Sym empty = read_response(Json(""));
    const KvEntry* e = find(key);
    return e ? e->read : empty;
  }
  // This store with `key` set to `value` (a JSON string). The entries are
  // copied around the written one, not copied and then overwritten (which
  // counted a reference in the old response only to release it).
  KvState with(const std::string& key, std::size_t key_hash, Json&& value) const {
    KvState next;
    auto it = position(key);
    const bool found = it != entries.end() && it->key == key;
    // (Entry by entry, and room made only past the one inline entry: with a
    // single key, small_vector's range insertions and reserve were calls
    // that did nothing.)
    if (const std::size_t n = entries.size() + (found ? 0 : 1); n > 1) next.entries.reserve(n);
    for (auto e = entries.begin(); e != it; ++e) next.entries.push_back(*e);
    next.entries.push_back(KvEntry{key, key_hash, read_response(std::move(value))});
    for (auto e = found ? it + 1 : it; e != entries.end(); ++e) next.entries.push_back(*e);
    return next;
  }
  friend bool operator==(const KvState&, const KvState&) = default;
};
// (Explanations and state-based heuristics read it as the JSON object.)
void to_json(Json& j, const KvState& s) {
  j = Json::object();
  for (const KvEntry& e : s.entries) j[e.key] = text(e.value());
}
}  // namespace
}  // namespace dualfuzz::specs

template <>
struct std::hash<dualfuzz::specs::KvState> {
  std::size_t operator()(const dualfuzz::specs::KvState& s) const {
    std::size_t h = s.entries.size();
    for (const auto& e : s.entries)
      h = (h * 31 + e.key_hash) * 31 + e.value().hash();
    return h;
  }
};

namespace dualfuzz::specs {
namespace {
Tree serve(ModelState state);
// One step of the store in state `st` (the tree `self`) on `op`, the
// request `q` as the model reads it.
Tree step(const KvState& st, const KvOp& op, const Request& q, const Tree& self) {
  if (!op.has_key || op.f == KvOp::F::Other) return send(q.conn, jepsen_fail(), self);
  if (op.f == KvOp::F::Get) return send(q.conn, st.read(op.key), self);
  // The new value is made in its JSON string, sized once: `text(cur) +
  // op.value` copied the value into a string of its own size, then grew it
  // to twice that for the append (the states of a search are its largest
  // memory, and every append makes one), and a separate string was then
  // moved into a JSON value of its own.
  Json next(Json::value_t::string);
  std::string& s = *next.get_ptr<std::string*>();
  if (op.f == KvOp::F::Put) {
    s = op.value;
  } else {
    const std::string& cur = st.get(op.key);
    s.reserve(cur.size() + op.value.size());
    s.append(cur).append(op.value);
  }
  return send(q.conn, jepsen_ok(), serve(ModelState(st.with(op.key, op.key_hash, std::move(next)))));
}
// The state lives in its ModelState, in the recv event, and the
// continuation reads it there (through `self`): a copy in the continuation
// too counted one more reference per state. A step that leaves the state
// unchanged (a read, a refused request) continues with this very tree.
Tree serve(ModelState state) {
  return recv(std::move(state), [](const Request& q, const Tree& self) -> Tree {
    const KvState& st = *self.event().state.get<KvState>();
    if (const KvOp* op = q.decoded_as<KvOp>()) return step(st, *op, q, self);
    return step(st, decode(q.json()), q, self);  // (no decoder: the same model)
  });
}
}  // namespace

ServerModel kv_store_model_unpartitioned() {
  ServerModel m{"kv-store", [] { return serve(ModelState(KvState{})); }, nullptr};
  m.decode = [](const Json& r) -> std::shared_ptr<const DecodedRequest> {
    return std::make_shared<const KvOp>(decode(r));
  };
  return m;
}

ServerModel kv_store_model() {
  ServerModel m = kv_store_model_unpartitioned();
  m.partition = [](const Json& r) -> std::optional<std::string> {
    if (r.is_object() && r.contains("key") && r["key"].is_string())
      return r["key"].get<std::string>();
    return std::nullopt;
  };
  return m;
}

}  // namespace dualfuzz::specs
