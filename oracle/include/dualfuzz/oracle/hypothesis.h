// One explanation of the trace so far: where the server model is, what is in
// flight on the network, and what is known about the server's hidden choices.
// A plain value; forking copies it (trees and channels are shared).
#pragma once

#include "dualfuzz/oracle/constraint_store.h"
#include "dualfuzz/oracle/itree.h"
#include "dualfuzz/oracle/network_model.h"

namespace dualfuzz::oracle {

struct Hypothesis {
  Tree server;  // settled: waiting at a Recv, or finished (Ret)
  Network net;
  ConstraintStore store;
  VarId next_var = 0;

  // The model state the server waits in (null when it has finished).
  Json model_state() const;
  std::size_t hash() const;
  // Equal hypotheses have equal futures (by the ModelState contract).
  friend bool operator==(const Hypothesis& a, const Hypothesis& b);
};

}  // namespace dualfuzz::oracle
