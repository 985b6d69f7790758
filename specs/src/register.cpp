#include "dualfuzz/specs/register.h"

#include <string_view>

#include "dualfuzz/specs/detail/jepsen_responses.h"

namespace dualfuzz::specs {
using namespace oracle;

namespace {
using detail::jepsen_fail;
using detail::jepsen_ok;
const Json& field(const Json& r, const char* name) {
  static const Json none;
  if (!r.is_object()) return none;
  auto it = r.find(name);
  return it == r.end() ? none : *it;
}

// The register's value lives in its ModelState, passed on without a copy.
Tree serve(const ModelState& state) {
  return recv(state, [state](const Request& q) -> Tree {
    const Json& v = *state.get<Json>();
    const Json& r = q.json();
    const Json& fj = field(r, "f");
    const std::string_view f =
        fj.is_string() ? std::string_view(fj.get_ref<const std::string&>()) : "";
    if (f == "read") {
      // One pattern, two acceptable answers: the value, or a failure (no effect).
      Sym read_ok = Sym::object({{"type", Sym::lit("ok")}, {"value", Sym::lit(v)}});
      return send(q.conn, Sym::alt({read_ok, jepsen_fail()}), serve(state));
    }
    const Json& arg = field(r, "value");
    if (f == "write")
      return choose(send(q.conn, jepsen_ok(), serve(ModelState(arg))),
                    send(q.conn, jepsen_fail(), serve(state)));
    if (f == "cas" && arg.is_array() && arg.size() == 2) {
      if (arg[0] == v) return send(q.conn, jepsen_ok(), serve(ModelState(arg[1])));
      return send(q.conn, jepsen_fail(), serve(state));
    }
    // Not an operation of this register: it can only refuse.
    return send(q.conn, jepsen_fail(), serve(state));
  });
}
}  // namespace

ServerModel register_model() {
  return ServerModel{"register", [] { return serve(ModelState(Json(nullptr))); },
                     nullptr};
}

}  // namespace dualfuzz::specs
