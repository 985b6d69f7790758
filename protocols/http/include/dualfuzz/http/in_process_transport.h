// A Transport to an HttpServerCore in the same thread: sends are handed to
// the core, receive() polls it. No sockets, no waiting, fully deterministic —
// the fuzz targets' transport (DESIGN.md, "Performance facts").
//
//   HttpServerCore server({.bug = "lost-update"});
//   InProcessTransport t(server);
//   harness::Executor ex(http::protocol(), t);
#pragma once

#include "dualfuzz/harness/transport.h"
#include "dualfuzz/http/server_core.h"

namespace dualfuzz::http {

class InProcessTransport final : public harness::Transport {
 public:
  explicit InProcessTransport(HttpServerCore& server) : server_(server) {}
  Result<bool> open(harness::ConnId c) override {
    server_.on_open(c);
    return true;
  }
  void send(harness::ConnId c, std::string_view bytes) override {
    server_.on_data(c, bytes);
  }
  void close(harness::ConnId c) override { server_.on_close(c); }
  std::vector<Incoming> receive(std::chrono::milliseconds) override {
    std::vector<Incoming> in;
    for (auto& o : server_.poll()) {
      in.push_back({o.conn, std::move(o.bytes), o.close_after, {}});
      if (o.close_after) server_.on_close(o.conn);
    }
    return in;
  }

 private:
  HttpServerCore& server_;
};

}  // namespace dualfuzz::http
