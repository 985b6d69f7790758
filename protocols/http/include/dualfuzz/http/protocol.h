// HTTP/1.1 as a dualfuzz protocol: the codec of harness/http_codec.h, the
// server model of http.h, and the functions scripts may apply to references.
//
//   harness::Protocol http = dualfuzz::http::protocol();
#pragma once

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::http {
harness::Protocol protocol();
}
