// The file synchronizer as a dualfuzz protocol (issue 18, thesis §6.2): the
// codec (codec.h), the model (model.h), the heuristics (heuristics.h) and
// the triage hooks (triage.h).
//
//   harness::Protocol p = dualfuzz::unison::protocol();
#pragma once

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::unison {
harness::Protocol protocol();
}
