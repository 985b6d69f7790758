// The reference proxy on real TCP (`dualfuzz serve --proxy`): a
// ReferenceProxy driven by Boost.Asio on the caller's io_context, accepting
// clients on 127.0.0.1:port and opening its origin connections to one
// origin (HOST:PORT), whatever the clients' targets name. A real-proxy
// subject of its own: the TCP transport (TcpTransport::listen) is tested
// against it before it meets a proxy from a distribution.
//
//   boost::asio::io_context io;
//   AsioProxy proxy(io, ReferenceProxy({.bug = "no-via"}), "127.0.0.1", 18090);
//   Result<std::uint16_t> port = proxy.listen(0);   // 0: an ephemeral port
//   io.run();
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange

#include "dualfuzz/proxy/reference_proxy.h"
#include "dualfuzz/result.h"

namespace dualfuzz::proxy {

class AsioProxy {
 public:
  AsioProxy(boost::asio::io_context& io, ReferenceProxy proxy, std::string origin_host,
            std::uint16_t origin_port);
  // Closes the listener and every connection (queued handlers then run
  // harmlessly: they hold the state, not this object).
  ~AsioProxy();
  AsioProxy(const AsioProxy&) = delete;
  AsioProxy& operator=(const AsioProxy&) = delete;

  // Binds 127.0.0.1:port and starts accepting clients; the bound port.
  Result<std::uint16_t> listen(std::uint16_t port);
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// Serves the reference proxy (`bug`, "" the correct one; `mode` forward or
// reverse) on 127.0.0.1:port, forwarding to `origin` (HOST:PORT), until
// SIGINT or SIGTERM. A process exit code: 0 after a signal, 1 when the bug
// or the origin is unknown or the port cannot be bound (reason on stderr).
int run_standalone(std::uint16_t port, const std::string& origin, std::string bug,
                   Mode mode);

}  // namespace dualfuzz::proxy
