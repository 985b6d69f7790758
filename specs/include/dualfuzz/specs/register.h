// A read / write / compare-and-set register (Jepsen etcd semantics).
//
// Requests:  {"f":"read"} | {"f":"write","value":v} | {"f":"cas","value":[old,new]}
// Responses: {"type":"ok","value":v} (read) | {"type":"ok"} | {"type":"fail"}
// The register starts as null. A CAS applies (ok) exactly when the value
// equals `old`, and fails otherwise. A failed read or write had no effect.
// An indeterminate call is simply a response the tester never receives.
//
//   Oracle o(dualfuzz::specs::register_model());
#pragma once

#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::specs {
oracle::ServerModel register_model();
}
