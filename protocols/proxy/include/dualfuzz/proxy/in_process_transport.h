// A Transport to a ReferenceProxy in the same thread: client connections
// are the script's, the proxy's origin connections are the tester's
// accepted connections (harness::kFirstAcceptedConn + k). No sockets, no
// waiting: the fuzz target's transport.
//
//   proxy::ReferenceProxy p({.bug = "cross-talk"});
//   proxy::InProcessTransport t(p);
//   harness::Executor ex(proxy::protocol(), t);
#pragma once

#include "dualfuzz/harness/transport.h"
#include "dualfuzz/proxy/reference_proxy.h"

namespace dualfuzz::proxy {

class InProcessTransport final : public harness::Transport {
 public:
  explicit InProcessTransport(ReferenceProxy& proxy) : proxy_(proxy) {}
  Result<bool> open(harness::ConnId) override { return true; }
  void send(harness::ConnId c, std::string_view bytes) override {
    if (harness::is_accepted_conn(c))
      proxy_.on_origin_data(c - harness::kFirstAcceptedConn, bytes);
    else
      proxy_.on_client_data(c, bytes);
  }
  void close(harness::ConnId c) override {
    if (harness::is_accepted_conn(c))
      proxy_.on_origin_close(c - harness::kFirstAcceptedConn);
    else
      proxy_.on_client_close(c);
  }
  std::vector<Incoming> receive(std::chrono::milliseconds) override {
    std::vector<Incoming> in;
    for (auto& o : proxy_.poll()) {
      const harness::ConnId c =
          o.to_origin ? harness::kFirstAcceptedConn + o.conn : o.conn;
      in.push_back({c, std::move(o.bytes), o.close_after, {}});
      if (o.close_after && !o.to_origin) proxy_.on_client_close(o.conn);
    }
    return in;
  }

 private:
  ReferenceProxy& proxy_;
};

}  // namespace dualfuzz::proxy
