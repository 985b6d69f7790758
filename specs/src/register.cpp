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

// A request as the model reads it, decoded once per distinct request
// (ServerModel::decode): no JSON field lookups in the search's model steps.
struct RegOp final : DecodedRequest {
  enum class F { Read, Write, Cas, Other } f = F::Other;
  Json arg;  // write: the value; cas: [expected, new]
};

RegOp decode(const Json& r) {
  RegOp op;
  const Json& fj = field(r, "f");
  const std::string_view f =
      fj.is_string() ? std::string_view(fj.get_ref<const std::string&>()) : "";
  op.arg = field(r, "value");
  op.f = f == "read"                                             ? RegOp::F::Read
         : f == "write"                                          ? RegOp::F::Write
         : f == "cas" && op.arg.is_array() && op.arg.size() == 2 ? RegOp::F::Cas
                                                                 : RegOp::F::Other;
  return op;
}

// The register's value lives in its ModelState, passed on without a copy.
Tree serve(const ModelState& state) {
  return recv(state, [state](const Request& q) -> Tree {
    const Json& v = *state.get<Json>();
    RegOp own;
    const RegOp* op = q.decoded_as<RegOp>();
    if (!op) {  // (no decoder: the same model, decoding here)
      own = decode(q.json());
      op = &own;
    }
    switch (op->f) {
      case RegOp::F::Read: {
        // One pattern, two acceptable answers: the value, or a failure (no effect).
        static const Sym::Fields kShape = Sym::fields({"type", "value"});
        static const Sym kOk = Sym::lit("ok");
        Sym read_ok = Sym::object(kShape, {kOk, Sym::lit(v)});
        return send(q.conn, Sym::alt({read_ok, jepsen_fail()}), serve(state));
      }
      case RegOp::F::Write:
        return choose(send(q.conn, jepsen_ok(), serve(ModelState(op->arg))),
                      send(q.conn, jepsen_fail(), serve(state)));
      case RegOp::F::Cas:
        if (op->arg[0] == v)
          return send(q.conn, jepsen_ok(), serve(ModelState(op->arg[1])));
        return send(q.conn, jepsen_fail(), serve(state));
      case RegOp::F::Other:
        break;
    }
    // Not an operation of this register: it can only refuse.
    return send(q.conn, jepsen_fail(), serve(state));
  });
}
}  // namespace

ServerModel register_model() {
  ServerModel m{"register", [] { return serve(ModelState(Json(nullptr))); }, nullptr};
  m.decode = [](const Json& r) -> std::shared_ptr<const DecodedRequest> {
    return std::make_shared<const RegOp>(decode(r));
  };
  return m;
}

}  // namespace dualfuzz::specs
