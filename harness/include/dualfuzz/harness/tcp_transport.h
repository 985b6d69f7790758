// TCP transport (Boost.Asio) to a server at host:port. Single-threaded: it
// runs the io_context it is given, so an in-process Asio server sharing that
// io_context is served in the same thread (no hand-off, DESIGN.md).
//
//   boost::asio::io_context io;
//   TcpTransport t(io, "127.0.0.1", 8080);
//   t.open(0); t.send(0, bytes); auto in = t.receive(std::chrono::milliseconds(500));
//
// A server that connects back to the tester (a proxy to the origin the
// tester plays, docs/proxy.md) is reached through listen(): its connections
// are delivered as accepted ones (kFirstAcceptedConn + k).
//
//   t.listen("127.0.0.1", 18090);   // the proxy forwards to 127.0.0.1:18090
#pragma once

// <utility> before Asio: Boost 1.74's awaitable.hpp uses std::exchange
// without including it.
// clang-format off
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <boost/asio.hpp>
// clang-format on

#include "dualfuzz/harness/transport.h"

namespace dualfuzz::harness {

class TcpTransport final : public Transport {
 public:
  // `write_timeout` bounds each send: a server that stops reading (its
  // receive window full) ends that connection, it does not hang the run.
  TcpTransport(
      boost::asio::io_context& io, std::string host, std::uint16_t port,
      std::chrono::milliseconds connect_timeout = std::chrono::milliseconds(2000),
      std::chrono::milliseconds write_timeout = std::chrono::milliseconds(2000));
  ~TcpTransport() override;
  Result<bool> open(ConnId c) override;
  void send(ConnId c, std::string_view bytes) override;
  void close(ConnId c) override;
  std::vector<Incoming> receive(std::chrono::milliseconds timeout) override;

  // Off (the default): close() closes the socket at once. On: close()
  // half-closes it and keeps reading, dropping what arrives, until the
  // server closes its side, i.e. until it has served every request sent on
  // it; drain() waits for that. A server in this process needs it before a
  // reset: requests sent just before a close may otherwise land after it.
  void set_drain_on_close(bool on) { drain_on_close_ = on; }
  // Waits (at most `timeout`) until the server has closed every connection
  // we closed, then closes what is left. True when all were closed in time.
  // With `quiet`, the wait also ends once nothing at all has happened on any
  // connection for that long (a server that keeps a half-closed connection
  // open, as HAProxy does, has answered what it will).
  bool drain(std::chrono::milliseconds timeout);
  bool drain(std::chrono::milliseconds timeout, std::chrono::milliseconds quiet);

  // Accepts the server's own connections on host:port (port 0: any free
  // one; the port is returned). Each gets the id kFirstAcceptedConn + k, k
  // counting acceptances since the last forget_accepted(); receive()
  // delivers an empty Incoming when it is accepted, then its bytes.
  Result<std::uint16_t> listen(const std::string& host, std::uint16_t port);
  // Before a new execution: closes every accepted connection (and those
  // still in the backlog), so nothing a server sends on them lands in the
  // next execution, and numbers the next one kFirstAcceptedConn again.
  void forget_accepted();

 private:
  struct Conn;
  void start_read(ConnId c, const std::shared_ptr<Conn>& conn);
  void drain_read(const std::shared_ptr<Conn>& conn, const boost::system::error_code& e);
  void start_accept();
  boost::asio::io_context& io_;
  std::string host_;
  std::uint16_t port_;
  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds write_timeout_;
  std::map<ConnId, std::shared_ptr<Conn>> conns_;
  std::vector<Incoming> inbox_;
  bool drain_on_close_ = false;
  std::vector<std::shared_ptr<Conn>> draining_;
  // Origin connections the tester closed: half-closed, read and dropped
  // until the server closes them or forget_accepted().
  std::vector<std::shared_ptr<Conn>> lingering_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  ConnId next_accepted_ = kFirstAcceptedConn;
};

// Parses "host:port"; an error for anything else.
Result<std::pair<std::string, std::uint16_t>> parse_host_port(const std::string& s);

}  // namespace dualfuzz::harness
