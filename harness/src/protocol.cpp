#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::harness {
namespace {
std::string clipped_json(const Json& ir, std::size_t max) {
  return oracle::brief_json(ir, max);
}
}  // namespace

std::string Protocol::default_label(const Json& ir) { return clipped_json(ir, 30); }
std::string Protocol::default_describe(const Json& ir) { return clipped_json(ir, 300); }

}  // namespace dualfuzz::harness
