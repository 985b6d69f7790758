// The proxy plug-ins: `--spec proxy` (a forward proxy) and `--spec gateway`
// (a reverse proxy), each with the reference proxy in-process
// (`--target inprocess[:BUG]`, planted_bugs()). `origin` is HOST:PORT of the
// tester's origin listener, which a real proxy (`--target HOST:PORT`) must
// forward to (`--origin`, $DUALFUZZ_ORIGIN; ProtocolOptions::origin).
// ProtocolOptions::refusals lets the proxy answer any error of its own
// (ModelOptions::refusals; $DUALFUZZ_PROXY_REFUSALS=1 through
// protocols::builtin: the plug-in reads no environment).
#pragma once

#include <string>

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/proxy/forwarding.h"
#include "dualfuzz/proxy/protocol.h"

namespace dualfuzz::proxy {
campaign::Plugin plugin(ProtocolOptions options);
campaign::Plugin plugin(Mode mode = Mode::Forward, std::string origin = "");
}  // namespace dualfuzz::proxy
