// A transport that passes everything through to another: a test's
// subclass overrides what it changes or counts (a byte-changing server in
// campaign tests, wrapped_server.h; the waits a proxy run ran out of).
//
//   class NoDate final : public ForwardingTransport {
//     using ForwardingTransport::ForwardingTransport;
//     std::vector<Incoming> receive(std::chrono::milliseconds t) override { ... }
//   };
#pragma once

#include <chrono>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/transport.h"

namespace dualfuzz::test_support {

class ForwardingTransport : public harness::Transport {
 public:
  explicit ForwardingTransport(harness::Transport& t) : t_(t) {}
  Result<bool> open(harness::ConnId c) override { return t_.open(c); }
  void send(harness::ConnId c, std::string_view bytes) override { t_.send(c, bytes); }
  void close(harness::ConnId c) override { t_.close(c); }
  std::vector<Incoming> receive(std::chrono::milliseconds timeout) override {
    return t_.receive(timeout);
  }

 protected:
  harness::Transport& t_;
};

}  // namespace dualfuzz::test_support
