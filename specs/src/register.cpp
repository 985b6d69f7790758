#include "dualfuzz/specs/register.h"

namespace dualfuzz::specs {
using namespace oracle;

namespace {
Sym ok() { return Sym::object({{"type", Sym::lit("ok")}}); }
Sym fail() { return Sym::object({{"type", Sym::lit("fail")}}); }

Tree serve(const Json& v) {
  return recv(ModelState(v), [v](const Request& q) -> Tree {
    const Json& r = q.json();
    const std::string f = r.is_object() ? r.value("f", "") : "";
    if (f == "read") {
      // One pattern, two acceptable answers: the value, or a failure (no effect).
      Sym read_ok = Sym::object({{"type", Sym::lit("ok")}, {"value", Sym::lit(v)}});
      return send(q.conn, Sym::alt({read_ok, fail()}), serve(v));
    }
    const Json arg = r.is_object() && r.contains("value") ? r["value"] : Json();
    if (f == "write")
      return choose(send(q.conn, ok(), serve(arg)), send(q.conn, fail(), serve(v)));
    if (f == "cas" && arg.is_array() && arg.size() == 2) {
      if (arg[0] == v) return send(q.conn, ok(), serve(arg[1]));
      return send(q.conn, fail(), serve(v));
    }
    // Not an operation of this register: it can only refuse.
    return send(q.conn, fail(), serve(v));
  });
}
}  // namespace

ServerModel register_model() {
  return ServerModel{"register", [] { return serve(Json(nullptr)); }, nullptr};
}

}  // namespace dualfuzz::specs
