#include "dualfuzz/specs/kv_store.h"

namespace dualfuzz::specs {
using namespace oracle;

namespace {
// State: a JSON object key -> string; absent keys read as "".
Tree serve(const Json& st) {
  return recv(ModelState(st), [st](const Request& q) -> Tree {
    const Json& r = q.json();
    Sym ok = Sym::object({{"type", Sym::lit("ok")}});
    if (!r.is_object() || !r.contains("key") || !r["key"].is_string())
      return send(q.conn, Sym::object({{"type", Sym::lit("fail")}}), serve(st));
    const std::string key = r["key"].get<std::string>();
    const std::string f = r.value("f", "");
    const std::string cur = st.contains(key) ? st[key].get<std::string>() : "";
    const std::string arg = r.contains("value") && r["value"].is_string()
                                ? r["value"].get<std::string>()
                                : "";
    if (f == "get")
      return send(q.conn,
                  Sym::object({{"type", Sym::lit("ok")}, {"value", Sym::lit(cur)}}),
                  serve(st));
    if (f == "put" || f == "append") {
      Json next = st;
      next[key] = f == "put" ? arg : cur + arg;
      return send(q.conn, ok, serve(next));
    }
    return send(q.conn, Sym::object({{"type", Sym::lit("fail")}}), serve(st));
  });
}
}  // namespace

ServerModel kv_store_model_unpartitioned() {
  return ServerModel{"kv-store", [] { return serve(Json::object()); }, nullptr};
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
