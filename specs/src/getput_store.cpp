#include "dualfuzz/specs/getput_store.h"

namespace dualfuzz::specs {
using oracle::Json;
using oracle::Request;
using oracle::Sym;
using oracle::Tree;

namespace {
Tree serve(const Json& st) {
  return oracle::recv(oracle::ModelState(st), [st](const Request& q) -> Tree {
    const Json& r = q.json();
    std::string key =
        r.is_object() && r.contains("key") ? oracle::dump_json(r["key"]) : "null";
    std::string method = r.is_object() ? r.value("method", "") : "";
    if (method == "PUT") {
      Json next = st;
      next[key] = r.value("value", Json());
      return oracle::send(q.conn, Sym::lit("Done"), serve(next));
    }
    if (method == "GET")
      return oracle::send(q.conn, Sym::lit(st.contains(key) ? st[key] : Json()),
                          serve(st));
    return oracle::send(q.conn, Sym::lit("Bad request"), serve(st));
  });
}
}  // namespace

oracle::ServerModel getput_model() {
  return {"GET/PUT store", [] { return serve(Json::object()); }, nullptr};
}

}  // namespace dualfuzz::specs
