#include "dualfuzz/specs/kv_store.h"

#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <string>
#include <utility>
#include <vector>

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
  std::string value;  // (absent: "")
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
// vector rather than a JSON object: a step that writes copies it, and one
// partition holds one key. Values are kept as constants (Sym::lit, hashed
// once, when written), each with the response a read of it gets, built
// once when the value is written: the search absorbs every read in many
// states (reads are most of a history's steps), and a read then answers
// with that response as it is, without building, copying or hashing it.
Sym read_response(const Sym& value) {
  // (Per thread: partitions searched on several threads would otherwise
  // count references in the same nodes, oracle/src/symbolic.cpp.)
  static thread_local const Sym::Fields kShape = Sym::fields({"type", "value"});
  static thread_local const Sym kOk = Sym::lit("ok");
  return Sym::object(kShape, {kOk, value});
}
struct KvEntry {
  std::string key;
  Sym value;
  Sym read;  // read_response(value): not part of the state's identity
  friend bool operator==(const KvEntry& a, const KvEntry& b) {
    return a.key == b.key && a.value == b.value;
  }
};
struct KvState {
  // (Inline room for one key: a partition's store holds one, and its copy
  // is then part of the state's own allocation.)
  boost::container::small_vector<KvEntry, 1> entries;
  // Where `key` is or would go, in `es` (this store's entries or a copy's).
  template <class Entries>
  static auto position(Entries& es, const std::string& key) {
    return std::lower_bound(es.begin(), es.end(), key,
                            [](const KvEntry& e, const std::string& k) { return e.key < k; });
  }
  const KvEntry* find(const std::string& key) const {
    auto it = position(entries, key);
    return it != entries.end() && it->key == key ? &*it : nullptr;
  }
  const Sym& get(const std::string& key) const {
    static thread_local const Sym empty = Sym::lit("");
    const KvEntry* e = find(key);
    return e ? e->value : empty;
  }
  // The response to a read of `key`.
  const Sym& read(const std::string& key) const {
    static thread_local const Sym empty = read_response(Sym::lit(""));
    const KvEntry* e = find(key);
    return e ? e->read : empty;
  }
  KvState with(const std::string& key, std::string value) const {
    KvState next = *this;
    auto it = position(next.entries, key);
    Sym v = Sym::lit(std::move(value));
    Sym r = read_response(v);
    if (it != next.entries.end() && it->key == key) {
      it->value = std::move(v);
      it->read = std::move(r);
    } else {
      next.entries.insert(it, KvEntry{key, std::move(v), std::move(r)});
    }
    return next;
  }
  friend bool operator==(const KvState&, const KvState&) = default;
};
const std::string& text(const Sym& value) {
  return value.value().get_ref<const std::string&>();
}
// (Explanations and state-based heuristics read it as the JSON object.)
void to_json(Json& j, const KvState& s) {
  j = Json::object();
  for (const KvEntry& e : s.entries) j[e.key] = text(e.value);
}
}  // namespace
}  // namespace dualfuzz::specs

template <>
struct std::hash<dualfuzz::specs::KvState> {
  std::size_t operator()(const dualfuzz::specs::KvState& s) const {
    std::size_t h = s.entries.size();
    for (const auto& e : s.entries)
      h = (h * 31 + std::hash<std::string>{}(e.key)) * 31 + e.value.hash();
    return h;
  }
};

namespace dualfuzz::specs {
namespace {
// The state lives in its ModelState, so an unchanged state is passed on
// without a copy; a step that leaves it unchanged (a read, a refused
// request) continues with this very tree (`self`).
Tree serve(const ModelState& state) {
  return recv(state, [state](const Request& q, const Tree& self) -> Tree {
    const KvState& st = *state.get<KvState>();
    KvOp own;
    const KvOp* op = q.decoded_as<KvOp>();
    if (!op) {  // (no decoder: the same model, decoding here)
      own = decode(q.json());
      op = &own;
    }
    if (!op->has_key || op->f == KvOp::F::Other) return send(q.conn, jepsen_fail(), self);
    if (op->f == KvOp::F::Get) return send(q.conn, st.read(op->key), self);
    const Sym& cur = st.get(op->key);
    // (Sized once: `text(cur) + op->value` copied the value into a string of
    // its own size, then grew it to twice that for the append. The states
    // of a search are its largest memory, and every append makes one.)
    std::string next;
    if (op->f == KvOp::F::Put) {
      next = op->value;
    } else {
      next.reserve(text(cur).size() + op->value.size());
      next.append(text(cur)).append(op->value);
    }
    return send(q.conn, jepsen_ok(),
                serve(ModelState(st.with(op->key, std::move(next)))));
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
