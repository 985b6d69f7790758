// HTTP/1.1 as a campaign plug-in: the protocol value and the reference
// server in this process (`--target inprocess[:BUG]`, BUG one of
// planted_bugs()).
//
//   campaign::Registry r;
//   r.add(dualfuzz::http::plugin());
#pragma once

#include "dualfuzz/campaign/plugin.h"

namespace dualfuzz::http {
campaign::Plugin plugin();
}
