#include "dualfuzz/specs/swap.h"

namespace dualfuzz::specs {
using oracle::Json;
using oracle::Request;
using oracle::Sym;
using oracle::Tree;

namespace {
Tree serve(const Json& v) {
  return oracle::recv(oracle::ModelState(v), [v](const Request& q) -> Tree {
    return oracle::send(q.conn, Sym::lit(v), serve(q.json()));
  });
}
}  // namespace

oracle::ServerModel swap_model() {
  return {"swap", [] { return serve(Json(0)); }, nullptr};
}

}  // namespace dualfuzz::specs
