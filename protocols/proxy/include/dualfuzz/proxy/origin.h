// The tester as the proxy's origin server (docs/proxy.md): how it reads the
// requests the proxy forwards and how it writes its answers, as the
// harness's Protocol::Origin.
//
//   harness::Protocol::Origin o = proxy::origin_side();
//   auto fwd = o.new_forward_stream();  fwd->feed(bytes);  auto q = fwd->next();
//   std::string bytes = o.print_answer({{"status", 200}, {"body", "x"},
//                                       {"chunked", true}}, *q);
#pragma once

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::proxy {

// The answer IR is an HTTP response IR ("status", "reason", "headers",
// "body") plus "chunked": true for a chunked body; the canonical answer is
// what the proxy parses from the printed bytes. The default answer to a
// forwarded request no `answer` step answers is 200 with a body naming the
// request's method and path, chunked for every other path length.
harness::Protocol::Origin origin_side();

}  // namespace dualfuzz::proxy
