// Test servers: the reference server in process, seen through a transport
// that changes bytes on their way (a bug the reference has not, a glitch
// once, a Date that lags), for campaign tests that need such a server.
//
//   class NoDate final : public ForwardingTransport {
//     using ForwardingTransport::ForwardingTransport;
//     std::vector<Incoming> receive(std::chrono::milliseconds t) override { ... }
//   };
//   campaign::Plugin p = wrapped<NoDate>(http::plugin());                   //
//   inprocess[:BUG] campaign::Plugin q = wrapped<NoDate>(http::plugin(),
//   "two-step-writes");  // that bug always
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/harness/transport.h"

namespace dualfuzz::campaign {

// Passes everything through; a test's subclass overrides what it changes.
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

// An in-process server whose transport is `Wrap` over the inner one's.
template <class Wrap>
class WrappedServer final : public InProcessServer {
 public:
  explicit WrappedServer(std::unique_ptr<InProcessServer> s)
      : inner_(std::move(s)), wrap_(inner_->transport()) {}
  harness::Transport& transport() override { return wrap_; }
  void reset() override { inner_->reset(); }
  std::string path_namespace() const override { return inner_->path_namespace(); }

 private:
  std::unique_ptr<InProcessServer> inner_;
  Wrap wrap_;
};

// `p` with its in-process servers wrapped; `arg`, when given, replaces the
// target's argument (inprocess:ARG) for the inner server.
template <class Wrap>
Plugin wrapped(Plugin p, std::optional<std::string> arg = std::nullopt) {
  auto inner = p.in_process;
  p.in_process = [inner,
                  arg](const std::string& a) -> Result<std::unique_ptr<InProcessServer>> {
    auto s = inner(arg.value_or(a));
    if (!s) return make_error(s.error());
    return std::unique_ptr<InProcessServer>(new WrappedServer<Wrap>(std::move(*s)));
  };
  return p;
}

}  // namespace dualfuzz::campaign
