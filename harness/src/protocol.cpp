#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::harness {
std::string Protocol::default_label(const Json& ir) { return oracle::brief_json(ir, 30); }
std::string Protocol::default_describe(const Json& ir) { return oracle::brief_json(ir, 300); }

}  // namespace dualfuzz::harness
