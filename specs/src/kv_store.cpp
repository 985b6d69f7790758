#include "dualfuzz/specs/kv_store.h"

#include "dualfuzz/specs/detail/jepsen_responses.h"

namespace dualfuzz::specs {
using namespace oracle;

namespace {
using detail::jepsen_fail;
using detail::jepsen_ok;
const std::string* string_field(const Json& r, const char* name) {
  auto it = r.find(name);
  return it != r.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

// State: a JSON object key -> string; absent keys read as "". The state
// lives in its ModelState, so an unchanged state is passed on without a copy.
Tree serve(const ModelState& state) {
  return recv(state, [state](const Request& q) -> Tree {
    const Json& st = *state.get<Json>();
    const Json& r = q.json();
    const std::string* key = r.is_object() ? string_field(r, "key") : nullptr;
    if (!key) return send(q.conn, jepsen_fail(), serve(state));
    const std::string* f = string_field(r, "f");
    static const std::string empty;
    auto it = st.find(*key);
    const std::string& cur = it != st.end() ? it->get_ref<const std::string&>() : empty;
    const std::string* value = string_field(r, "value");
    const std::string& arg = value ? *value : empty;
    if (f && *f == "get")
      return send(q.conn,
                  Sym::object({{"type", Sym::lit("ok")}, {"value", Sym::lit(cur)}}),
                  serve(state));
    if (f && (*f == "put" || *f == "append")) {
      Json next = st;
      next[*key] = *f == "put" ? arg : cur + arg;
      return send(q.conn, jepsen_ok(), serve(ModelState(std::move(next))));
    }
    return send(q.conn, jepsen_fail(), serve(state));
  });
}
}  // namespace

ServerModel kv_store_model_unpartitioned() {
  return ServerModel{"kv-store", [] { return serve(ModelState(Json::object())); },
                     nullptr};
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
