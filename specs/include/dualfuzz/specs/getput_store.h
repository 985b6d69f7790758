// The GET/PUT key-value server of thesis §1.1 (Fig. 1.2-1.4).
//
// Requests:  {"method":"GET","key":k} | {"method":"PUT","key":k,"value":v}
// Responses: GET -> the value (null when never written); PUT -> "Done".
//
//   Oracle o(dualfuzz::specs::getput_model());
#pragma once

#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::specs {
oracle::ServerModel getput_model();
}
