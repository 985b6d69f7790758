// The swap server (thesis §2.2): stores a value (initially 0); each request
// stores the request and answers the previous value.
//
//   Oracle o(dualfuzz::specs::swap_model());
#pragma once

#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::specs {
oracle::ServerModel swap_model();
}
