#include "dualfuzz/harness/tcp_transport.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace dualfuzz::harness {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {
// Acknowledge what the server sent at once (Linux: TCP_QUICKACK, which the
// kernel drops again after a while, so it is set after every read). A
// server that leaves Nagle's algorithm on holds its next answer until the
// last is acknowledged, and a delayed acknowledgement then costs 40 ms per
// pipelined answer: a Python socketserver took 121 executions in 15 s,
// 2,184-2,953 with this (docs/eval/quickack-640115b/).
void quick_ack(tcp::socket& s) {
#ifdef TCP_QUICKACK
  const int one = 1;
  ::setsockopt(s.native_handle(), IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
#else
  (void)s;
#endif
}
}  // namespace

struct TcpTransport::Conn {
  explicit Conn(asio::io_context& io) : socket(io) {}
  tcp::socket socket;
  std::array<char, 16 * 1024> buf{};
  bool reading = false;
  bool dead = false;
  bool draining = false;  // closed by us; read (and dropped) until the server's EOF
  // A write failed (the server reset the connection: it stopped reading).
  // No more writes; the read side still delivers what the server sent
  // before, then the close, which carries this text.
  std::string write_error;
};

TcpTransport::TcpTransport(asio::io_context& io, std::string host, std::uint16_t port,
                           std::chrono::milliseconds connect_timeout,
                           std::chrono::milliseconds write_timeout)
    : io_(io),
      host_(std::move(host)),
      port_(port),
      connect_timeout_(connect_timeout),
      write_timeout_(write_timeout) {}

TcpTransport::~TcpTransport() {
  if (acceptor_) {
    boost::system::error_code ec;
    acceptor_->close(ec);
  }
  for (auto& [c, conn] : conns_) {
    boost::system::error_code ec;
    conn->socket.close(ec);
  }
  for (auto& conn : draining_) {
    boost::system::error_code ec;
    conn->socket.close(ec);
  }
  for (auto& conn : lingering_) {
    boost::system::error_code ec;
    conn->socket.close(ec);
  }
  // Let cancelled handlers run so none outlives this object's buffers.
  io_.restart();
  io_.poll();
}

Result<bool> TcpTransport::open(ConnId c) {
  close(c);
  auto conn = std::make_shared<Conn>(io_);
  boost::system::error_code ec;
  tcp::resolver resolver(io_);
  auto endpoints = resolver.resolve(host_, std::to_string(port_), ec);
  if (ec) return make_error("cannot resolve " + host_ + ": " + ec.message());
  bool done = false;
  boost::system::error_code result = asio::error::timed_out;
  asio::async_connect(conn->socket, endpoints,
                      [&](const boost::system::error_code& e, const tcp::endpoint&) {
                        result = e;
                        done = true;
                      });
  io_.restart();
  auto deadline = std::chrono::steady_clock::now() + connect_timeout_;
  while (!done && std::chrono::steady_clock::now() < deadline)
    io_.run_one_for(deadline - std::chrono::steady_clock::now());
  if (!done) {
    conn->socket.close(ec);
    io_.restart();
    io_.poll();
    return make_error("connect to " + host_ + ":" + std::to_string(port_) + " timed out");
  }
  if (result)
    return make_error("connect to " + host_ + ":" + std::to_string(port_) + ": " +
                      result.message());
  conn->socket.set_option(tcp::no_delay(true), ec);
  quick_ack(conn->socket);
  conns_[c] = conn;
  start_read(c, conn);
  return true;
}

void TcpTransport::start_read(ConnId c, const std::shared_ptr<Conn>& conn) {
  if (conn->reading || conn->dead) return;
  conn->reading = true;
  conn->socket.async_read_some(
      asio::buffer(conn->buf),
      [this, c, conn](const boost::system::error_code& e, std::size_t n) {
        conn->reading = false;
        if (conn->draining) return drain_read(conn, e);
        if (conn->dead) return;  // closed by us
        if (e) {
          conn->dead = true;
          Incoming in{c, {}, true, {}, conn->write_error};
          if (e != asio::error::eof) in.error = e.message();
          inbox_.push_back(std::move(in));
          return;
        }
        inbox_.push_back({c, std::string(conn->buf.data(), n), false, {}});
        quick_ack(conn->socket);
        start_read(c, conn);
      });
}

void TcpTransport::send(ConnId c, std::string_view bytes) {
  auto it = conns_.find(c);
  if (it == conns_.end() || it->second->dead || !it->second->write_error.empty()) return;
  const std::shared_ptr<Conn> conn = it->second;
  // Not a blocking write: a server that stops reading would hang it. The
  // write runs on the io_context with a deadline, and the server's answers
  // keep being read meanwhile (one that writes before reading cannot
  // deadlock us). The handler owns what it touches: it may run after a
  // timeout, when this call has returned.
  struct Write {
    std::string bytes;
    bool done = false;
    boost::system::error_code ec;
  };
  auto w = std::make_shared<Write>();
  w->bytes.assign(bytes);
  asio::async_write(conn->socket, asio::buffer(w->bytes),
                    [w](const boost::system::error_code& e, std::size_t) {
                      w->done = true;
                      w->ec = e;
                    });
  io_.restart();
  const auto deadline = std::chrono::steady_clock::now() + write_timeout_;
  while (!w->done && std::chrono::steady_clock::now() < deadline)
    io_.run_one_for(deadline - std::chrono::steady_clock::now());
  if (!w->done) {
    conn->dead = true;  // its read handler reports nothing more
    boost::system::error_code ec;
    conn->socket.close(ec);
    inbox_.push_back({c,
                      {},
                      true,
                      "write timed out: the server stopped reading (" +
                          std::to_string(w->bytes.size()) + " bytes not taken within " +
                          std::to_string(write_timeout_.count()) + " ms)"});
    return;
  }
  // Not a close event yet: the answers the server sent before it reset
  // are still to be read (a close reported now would drop them), and the
  // read side reports the close after them. Nor another write: after a
  // failed one, Asio's edge-triggered reactor may not retry a write until
  // the write timeout (a 2-s stall per play on nginx).
  if (w->ec) conn->write_error = "write failed: " + w->ec.message();
}

void TcpTransport::drain_read(const std::shared_ptr<Conn>& conn,
                              const boost::system::error_code& e) {
  if (e) {  // the server's EOF (or an error): it is done with the connection
    boost::system::error_code ec;
    conn->socket.close(ec);
    std::erase(draining_, conn);
    std::erase(lingering_, conn);
    return;
  }
  conn->reading = true;
  conn->socket.async_read_some(
      asio::buffer(conn->buf),
      [this, conn](const boost::system::error_code& e, std::size_t) {
        conn->reading = false;
        drain_read(conn, e);
      });
}

bool TcpTransport::drain(std::chrono::milliseconds timeout) {
  return drain(timeout, timeout);
}

bool TcpTransport::drain(std::chrono::milliseconds timeout,
                         std::chrono::milliseconds quiet) {
  io_.restart();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!draining_.empty()) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= left.zero()) break;
    const auto step = std::min<std::chrono::steady_clock::duration>(left, quiet);
    if (io_.run_one_for(step) == 0 && quiet < timeout) break;  // silent for `quiet`
  }
  const bool drained = draining_.empty();
  for (const auto& conn : draining_) {
    boost::system::error_code ec;
    conn->socket.close(ec);
  }
  draining_.clear();
  io_.restart();
  io_.poll();  // (the cancelled reads)
  return drained;
}

void TcpTransport::close(ConnId c) {
  auto it = conns_.find(c);
  if (it == conns_.end()) return;
  const std::shared_ptr<Conn> conn = it->second;
  conns_.erase(it);
  std::erase_if(inbox_, [c](const Incoming& in) { return in.conn == c; });
  conn->dead = true;
  boost::system::error_code ec;
  // A staged close (half-close, then read and drop until the peer's EOF):
  // - our client connections with drain_on_close_: the server sees our EOF
  //   after the requests already sent, serves them and closes; drain()
  //   waits for that;
  // - a connection the server opened (the tester as a proxy's origin,
  //   closing after its answer, RFC 9112 §9.6): so that a request the
  //   server sent meanwhile does not turn our close into a reset that loses
  //   the answer. Never waited for: a proxy may keep it until its idle
  //   timeout.
  const bool accepted = is_accepted_conn(c);
  if (drain_on_close_ || accepted) {
    conn->draining = true;
    conn->socket.shutdown(tcp::socket::shutdown_send, ec);
    (accepted ? lingering_ : draining_).push_back(conn);
    if (!conn->reading) drain_read(conn, {});
    return;
  }
  conn->socket.shutdown(tcp::socket::shutdown_both, ec);
  conn->socket.close(ec);
}

std::vector<Transport::Incoming> TcpTransport::receive(
    std::chrono::milliseconds timeout) {
  io_.restart();
  io_.poll();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (inbox_.empty() && std::chrono::steady_clock::now() < deadline)
    if (io_.run_one_for(deadline - std::chrono::steady_clock::now()) == 0 &&
        io_.stopped())
      io_.restart();
  io_.poll();  // whatever else is ready
  return std::exchange(inbox_, {});
}

Result<std::uint16_t> TcpTransport::listen(const std::string& host, std::uint16_t port) {
  boost::system::error_code ec;
  tcp::resolver resolver(io_);
  auto endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec || endpoints.empty())
    return make_error("cannot resolve " + host + ": " + ec.message());
  auto acceptor = std::make_unique<tcp::acceptor>(io_);
  const tcp::endpoint at = endpoints.begin()->endpoint();
  const std::string where = host + ":" + std::to_string(port);
  if (acceptor->open(at.protocol(), ec); ec)
    return make_error(where + ": " + ec.message());
  // (A restarted campaign must get its port back while the previous one's
  // connections are in TIME_WAIT.)
  acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (acceptor->bind(at, ec); ec)
    return make_error("cannot listen on " + where + ": " + ec.message());
  if (acceptor->listen(asio::socket_base::max_listen_connections, ec); ec)
    return make_error("cannot listen on " + where + ": " + ec.message());
  const std::uint16_t bound = acceptor->local_endpoint(ec).port();
  acceptor_ = std::move(acceptor);
  start_accept();
  return bound;
}

void TcpTransport::start_accept() {
  auto conn = std::make_shared<Conn>(io_);
  acceptor_->async_accept(conn->socket, [this, conn](const boost::system::error_code& e) {
    if (e == asio::error::operation_aborted || !acceptor_) return;
    if (!e) {
      const ConnId c = next_accepted_++;
      boost::system::error_code ec;
      conn->socket.set_option(tcp::no_delay(true), ec);
      conns_[c] = conn;
      inbox_.push_back({c, {}, false, {}});
      start_read(c, conn);
    }
    // (An error on one acceptance, e.g. too many open files, ends only that
    // one: the listener goes on.)
    start_accept();
  });
}

void TcpTransport::forget_accepted() {
  io_.restart();
  io_.poll();  // accepts what waits in the backlog, to close it below
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (!is_accepted_conn(it->first)) {
      ++it;
      continue;
    }
    it->second->dead = true;
    boost::system::error_code ec;
    it->second->socket.close(ec);
    it = conns_.erase(it);
  }
  for (const auto& conn : lingering_) {
    boost::system::error_code ec;
    conn->socket.close(ec);
  }
  lingering_.clear();
  std::erase_if(inbox_, [](const Incoming& in) { return is_accepted_conn(in.conn); });
  next_accepted_ = kFirstAcceptedConn;
  io_.restart();
  io_.poll();  // (the cancelled reads)
}

Result<std::pair<std::string, std::uint16_t>> parse_host_port(const std::string& s) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return make_error("expected HOST:PORT, got `" + s + "`");
  try {
    unsigned long p = std::stoul(s.substr(colon + 1));
    if (p == 0 || p > 65535) throw std::out_of_range("port");
    return std::make_pair(s.substr(0, colon), static_cast<std::uint16_t>(p));
  } catch (const std::exception&) {
    return make_error("bad port in `" + s + "`");
  }
}

}  // namespace dualfuzz::harness
