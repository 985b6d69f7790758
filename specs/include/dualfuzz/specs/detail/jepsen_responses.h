// The fixed answers of the Jepsen-history models (register, kv store): a
// completed operation is {"type":"ok"} or {"type":"fail"}. Built once, since
// the models answer with them on every step of the search.
#pragma once

#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::specs::detail {

inline const oracle::Sym& jepsen_ok() {
  static const oracle::Sym s = oracle::Sym::object({{"type", oracle::Sym::lit("ok")}});
  return s;
}
inline const oracle::Sym& jepsen_fail() {
  static const oracle::Sym s = oracle::Sym::object({{"type", oracle::Sym::lit("fail")}});
  return s;
}

}  // namespace dualfuzz::specs::detail
