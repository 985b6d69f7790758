// The conjunction of ground matches (an object's fields), one part at a
// time: a No decides at once, an Unknown is remembered. Shared by the
// matcher (dualize.cpp) and the lookahead's per-observation view
// (backtracking.cpp).
//
//   bool unknown = false;
//   for (...)
//     if (!detail::and_part(match_ground(sub, field), unknown)) return GroundMatch::No;
//   return unknown ? GroundMatch::Unknown : GroundMatch::Yes;
#pragma once

#include "dualfuzz/oracle/dualize.h"

namespace dualfuzz::oracle::detail {

inline bool and_part(GroundMatch m, bool& unknown) {
  unknown = unknown || m == GroundMatch::Unknown;
  return m != GroundMatch::No;
}

}  // namespace dualfuzz::oracle::detail
