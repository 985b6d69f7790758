// HTTP/1.1 as a dualfuzz protocol: the codec (codec.h), the origin-server
// model (model.h), the generation heuristics (heuristics.h), the triage
// hooks (triage.h) and the functions scripts may apply to references.
//
//   harness::Protocol http = dualfuzz::http::protocol();
#pragma once

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::http {
harness::Protocol protocol();
// The functions HTTP scripts may apply to references (`weak`, `strong`,
// `rfc850`, `asctime`), for plug-ins whose scripts are HTTP too.
void add_functions(harness::FunctionRegistry& f);
}
