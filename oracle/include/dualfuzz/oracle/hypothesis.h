// One explanation of the trace so far: where the server model is, what is in
// flight on the network, and what is known about the server's hidden choices.
// A plain value; forking copies it (trees and channels are shared).
#pragma once

#include <memory>

#include "dualfuzz/oracle/constraint_store.h"
#include "dualfuzz/oracle/itree.h"
#include "dualfuzz/oracle/network_model.h"

namespace dualfuzz::oracle {

// A symbolic branch (IFX) the model took in one explanation: recorded only
// when SearchLimits::record_decisions is set, for targeted mutation (a
// solver picks request values that send it the other way).
struct Decision {
  Label label = 0;  // the request being processed
  Sym condition;    // as the model stated it, over request literals and hidden choices
  bool taken = false;
};
// Decisions newest first, shared between forks.
struct DecisionTrail {
  Decision decision;
  std::shared_ptr<const DecisionTrail> earlier;
};

struct Hypothesis {
  Tree server;  // settled: waiting at a Recv, or finished (Ret)
  Network net;
  ConstraintStore store;
  VarId next_var = 0;
  // Not part of the hypothesis's identity (hash, ==): merged explanations
  // keep one trail, which is all targeted mutation needs.
  std::shared_ptr<const DecisionTrail> decisions;

  // The model state the server waits in (null when it has finished).
  Json model_state() const;
  std::size_t hash() const;
  // Equal hypotheses have equal futures (by the ModelState contract).
  friend bool operator==(const Hypothesis& a, const Hypothesis& b);
};

}  // namespace dualfuzz::oracle
