// Model states that hold symbolic values need hashing, equality and a JSON
// rendering for ModelState; SymState wraps a Sym to provide them.
#pragma once

#include <functional>

#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::specs::detail {

struct SymState {
  oracle::Sym value;
  friend bool operator==(const SymState& a, const SymState& b) {
    return a.value == b.value;
  }
};
inline void to_json(oracle::Json& j, const SymState& s) {
  j = s.value.is_const() ? s.value.value() : oracle::Json(s.value.to_string());
}

}  // namespace dualfuzz::specs::detail

template <>
struct std::hash<dualfuzz::specs::detail::SymState> {
  std::size_t operator()(const dualfuzz::specs::detail::SymState& s) const {
    return s.value.hash();
  }
};
