#include "dualfuzz/specs/cmp_set.h"

#include "dualfuzz/specs/detail/sym_state.h"

namespace dualfuzz::specs {
using oracle::ModelState;
using oracle::Request;
using oracle::Sort;
using oracle::Sym;
using oracle::Tree;

namespace {
Sym request_int(const Request& q) {
  return q.json().is_number_integer() ? Sym::lit(q.json()) : Sym::lit(0);
}

Tree serve_set(std::int64_t n) {
  return oracle::recv(ModelState(n), [n](const Request& q) -> Tree {
    std::int64_t r = q.json().is_number_integer() ? q.json().get<std::int64_t>() : 0;
    if (r <= n) return oracle::send(q.conn, Sym::lit(0), serve_set(n));
    return oracle::send(q.conn, Sym::lit(1), serve_set(r));
  });
}

// n is symbolic once the server has reset it.
Tree serve_rst(Sym n) {
  return oracle::recv(ModelState(detail::SymState{n}), [n](const Request& q) -> Tree {
    return oracle::ifx(
        oracle::le(request_int(q), n),
        [q, n] { return oracle::send(q.conn, Sym::lit(0), serve_rst(n)); },
        [q] {
          return oracle::fresh(Sort::Int, "n", [q](const Sym& m) {
            return oracle::send(q.conn, Sym::lit(1), serve_rst(m));
          });
        });
  });
}
}  // namespace

oracle::ServerModel cmp_set_model() {
  return {"CMP-SET", [] { return serve_set(0); }, nullptr};
}
oracle::ServerModel cmp_rst_model() {
  return {"CMP-RST", [] { return serve_rst(Sym::lit(0)); }, nullptr};
}

}  // namespace dualfuzz::specs
