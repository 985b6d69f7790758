// How the synchronizer's messages are named and shown: "write A a/b",
// "exit 1", and one line each for reports. One bug = one answer kind to one
// kind of query (request_shape: the op; response_shape: ok / refused / exit N).
//
//   describe_response({{"exit",1},{"A",{..}},{"B",{..}}}) == "exit 1  A{a=x}  B{a=y}"
#pragma once

#include <string>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::unison {
std::string request_label(const harness::Json& q);
std::string response_label(const harness::Json& r);
std::string describe_request(const harness::Json& q);
std::string describe_response(const harness::Json& r);
std::string request_kind(const harness::Json& q);
std::string response_shape(const harness::Json& r);
}  // namespace dualfuzz::unison
