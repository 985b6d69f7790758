// The file synchronizer's model (thesis §6.2.1): two replicas and their
// last consensus, σ = (A, B, O), all empty at first. File operations act on
// one replica (query.h); `sync` reconciles (reconcile.h), loosened as the
// thesis did after talking to Unison's authors (§6.2.2):
//   - every transfer done, exit 0 without conflicts, 1 with;
//   - or the synchronizer failed part-way, exit 2: any subset of the
//     transfers done (and any subset of the merely recorded agreements).
// A conflict is never propagated, and exit 0 promises the whole sync.
// A synchronizer whose answer says "fastcheck" may also not see a file
// rewritten with its time and size kept (`same_time`, same length: the
// Unison manual's documented fastcheck behaviour); it then reconciles as if
// the file were unchanged, and a transfer onto it fails (exit 2).
// Which subset is an internal choice the oracle resolves against the
// observed replicas (one `choose` branch per distinct outcome).
//
//   oracle::ServerModel m = unison::server_model();
#pragma once

#include "dualfuzz/oracle/server_model.h"

namespace dualfuzz::unison {
oracle::ServerModel server_model();
}  // namespace dualfuzz::unison
