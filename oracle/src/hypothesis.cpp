#include "dualfuzz/oracle/hypothesis.h"

namespace dualfuzz::oracle {
namespace {
std::size_t mix(std::size_t h, std::size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
}  // namespace

Json Hypothesis::model_state() const {
  return server.is_ret() ? Json(nullptr) : server.event().state.to_json();
}

std::size_t Hypothesis::hash() const {
  std::size_t h = server.is_ret() ? 0x51 : server.event().state.hash();
  h = mix(h, net.hash());
  h = mix(h, store.hash());
  return mix(h, next_var);
}

bool operator==(const Hypothesis& a, const Hypothesis& b) {
  if (a.server.is_ret() != b.server.is_ret()) return false;
  if (!a.server.is_ret() && !(a.server.event().state == b.server.event().state))
    return false;
  return a.next_var == b.next_var && a.net == b.net && a.store == b.store;
}

}  // namespace dualfuzz::oracle
