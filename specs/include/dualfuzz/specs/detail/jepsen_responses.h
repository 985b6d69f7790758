// The fixed answers of the Jepsen-history models (register, kv store): a
// completed operation is {"type":"ok"} or {"type":"fail"}. Built once, since
// the models answer with them on every step of the search; once per thread,
// since a copy counts a reference in the node and partitions searched on
// several threads would pass its cache line between cores.
#pragma once

#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::specs::detail {

inline const oracle::Sym& jepsen_ok() {
  static thread_local const oracle::Sym s =
      oracle::Sym::object({{"type", oracle::Sym::lit("ok")}});
  return s;
}
inline const oracle::Sym& jepsen_fail() {
  static thread_local const oracle::Sym s =
      oracle::Sym::object({{"type", oracle::Sym::lit("fail")}});
  return s;
}

}  // namespace dualfuzz::specs::detail
