// HTTP proxies as a dualfuzz protocol (docs/proxy.md): the HTTP codec on
// the client side, the tester's origin side (origin.h), the proxy model
// (model.h), the heuristics (heuristics.h) and HTTP's triage hooks.
//
//   harness::Protocol p = proxy::protocol({.mode = Mode::Forward,
//                                          .origin = "127.0.0.1:18090"});
//   // a request IR {"path": "/a"} goes out as "GET http://127.0.0.1:18090/a"
#pragma once

#include <string>

#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/proxy/model.h"

namespace dualfuzz::proxy {

inline constexpr const char* kInProcessOrigin = "origin.test";

struct ProtocolOptions {
  Mode mode = Mode::Forward;
  // HOST:PORT of the tester's origin listener (Protocol::Origin::listen),
  // which a forward proxy's clients name in their absolute-form targets.
  // Empty: no listener (an in-process proxy reaches the tester whatever its
  // clients name), and they name kInProcessOrigin.
  std::string origin;
  bool refusals = false;  // ModelOptions::refusals
};

harness::Protocol protocol(ProtocolOptions options = {});

// The request as a forward proxy's client sends it: an origin-form path
// becomes absolute-form on `origin`, and Host names it unless set.
harness::Json absolute_form(harness::Json request, const std::string& origin);

}  // namespace dualfuzz::proxy
