// The proxy plug-ins: `--spec proxy` (a forward proxy) and `--spec gateway`
// (a reverse proxy), each with the reference proxy in-process
// (`--target inprocess[:BUG]`, planted_bugs()). The origin authority that
// forward-proxy clients name is $DUALFUZZ_ORIGIN (default origin.test; a
// real proxy must reach the tester's origin listener there).
#pragma once

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/proxy/forwarding.h"

namespace dualfuzz::proxy {
campaign::Plugin plugin(Mode mode = Mode::Forward);
}  // namespace dualfuzz::proxy
