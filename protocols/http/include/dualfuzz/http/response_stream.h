// The HTTP responses of one connection as the harness reads them: the
// codec's ResponseParser, each response normalized for the model
// (normalize_response). Shared by every plug-in whose clients speak HTTP
// (http, proxy).
//
//   auto s = http::new_response_stream();
//   s->expect(request_ir);  s->feed(bytes);
//   while (auto r = s->next()) observe(*r);
#pragma once

#include <memory>

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::http {
std::unique_ptr<harness::ResponseStream> new_response_stream();
}  // namespace dualfuzz::http
