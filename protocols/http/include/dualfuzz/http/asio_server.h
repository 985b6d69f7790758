// The reference server on real TCP: an HttpServerCore driven by Boost.Asio on
// the CALLER's io_context (no internal threads), listening on 127.0.0.1. In
// process, the harness and the server share one io_context and one thread
// (a thread hand-off costs ~200 µs per message here; see DESIGN.md).
//
//   boost::asio::io_context io;
//   auto core = HttpServerCore::make({.bug = "lost-update"});
//   AsioHttpServer server(io, std::move(*core));
//   Result<std::uint16_t> port = server.listen(0);   // 0: an ephemeral port
//   ... clients on the same io ...; io.run();
//
//   return run_standalone(8080, "");   // blocks until SIGINT/SIGTERM
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange

#include "dualfuzz/http/server_core.h"
#include "dualfuzz/result.h"

namespace dualfuzz::http {

class AsioHttpServer {
 public:
  AsioHttpServer(boost::asio::io_context& io, HttpServerCore core);
  // Closes the listener and every connection (handlers still queued on the
  // io_context run harmlessly afterwards).
  ~AsioHttpServer();
  AsioHttpServer(const AsioHttpServer&) = delete;
  AsioHttpServer& operator=(const AsioHttpServer&) = delete;

  // Binds 127.0.0.1:port and starts accepting; returns the bound port.
  Result<std::uint16_t> listen(std::uint16_t port);
  std::uint16_t port() const;
  // Stops accepting and closes every connection.
  void stop();
  // The core, e.g. to reset() it between fuzz executions.
  HttpServerCore& core();

 private:
  struct State;  // shared with the pending handlers, which may outlive *this
  std::shared_ptr<State> state_;
};

// Serves the reference server (with `bug`, "" for the correct one) on
// 127.0.0.1:port until SIGINT or SIGTERM. Returns a process exit code: 0 after
// a signal, 1 when the bug is unknown or the port cannot be bound (the reason
// goes to stderr).
int run_standalone(std::uint16_t port, std::string bug);

}  // namespace dualfuzz::http
