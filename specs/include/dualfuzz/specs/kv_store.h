// A multi-key store with get / put / append (the Jepsen/Porcupine "kv" model).
//
// Requests:  {"f":"get","key":k} | {"f":"put","key":k,"value":s}
//            | {"f":"append","key":k,"value":s}
// Responses: {"type":"ok","value":s} (get) | {"type":"ok"}
// Keys start as the empty string. Keys are independent, so the model declares
// one partition per key (see ServerModel::partition).
//
//   Oracle o(dualfuzz::specs::kv_store_model());
#pragma once

#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::specs {
oracle::ServerModel kv_store_model();
// The same model without the partition declaration (for comparison).
oracle::ServerModel kv_store_model_unpartitioned();
}  // namespace dualfuzz::specs
