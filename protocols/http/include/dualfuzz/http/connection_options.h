// The connection options of an HTTP message (RFC 9110 §7.6.1): the tokens of
// its Connection field, lower-case.
//
//   connection_options({{"headers", {{"connection", "Keep-Alive, close"}}}})
//       == std::set<std::string>{"close", "keep-alive"}
//   closes_connection(request_ir, response_ir)  // "close" in either (§9.6)
#pragma once

#include <set>
#include <string>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::http {

std::set<std::string> connection_options(const harness::Json& message);

// Whether the server must close the connection once this response is sent
// and process no request after it: a "close" option in the request or the
// response (RFC 9112 §9.6). The client, too, MUST then close it. So after
// a 101 (the connection has switched protocols, RFC 9110 §7.8) and a 2xx to
// CONNECT (a tunnel, §9.3.6).
bool closes_connection(const harness::Json& request, const harness::Json& response);

}  // namespace dualfuzz::http
