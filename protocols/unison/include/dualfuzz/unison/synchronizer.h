// The system under test: something that reconciles two replicas when the
// tester says `sync`, and reports an exit code (0 synchronized, 1 conflicts
// left, 2 some transfer failed — Unison's convention; anything else, a
// crash or a hang, is reported as it is and judged by the model).
//
//   ReferenceSynchronizer s("lost-deletion");   // or UnisonProcess
//   SyncOutcome o = s.sync(a, b);               // o.exit, o.log
#pragma once

#include <string>

#include "dualfuzz/unison/replica.h"

namespace dualfuzz::unison {

struct SyncOutcome {
  int exit = 0;     // the process's exit code; 128+N: killed by signal N; -1: hung
  std::string log;  // what it said, shortened (empty on exit 0)
  // It detected updates by modification time and size (Unison's
  // fastcheck): the answer says so, and the model then allows the updates
  // such a check cannot see (documented behaviour).
  bool fastcheck = false;
};

class Synchronizer {
 public:
  virtual ~Synchronizer() = default;
  virtual SyncOutcome sync(Replica& a, Replica& b) = 0;
  // Forget every earlier sync (a fresh archive), before each execution.
  virtual void reset() = 0;
};

}  // namespace dualfuzz::unison
