#include "dualfuzz/http/asio_server.h"

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <iostream>
#include <map>

namespace dualfuzz::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

struct AsioHttpServer::State : std::enable_shared_from_this<State> {
  struct Session {
    explicit Session(tcp::socket s) : socket(std::move(s)) {}
    tcp::socket socket;
    std::array<char, 16 * 1024> buf;
    std::deque<std::string> out;
    bool writing = false;
    bool close_after = false;  // close once `out` is written
    bool peer_done = false;    // the peer closed its sending side
  };

  State(asio::io_context& io, HttpServerCore c) : acceptor(io), core(std::move(c)) {}

  void accept() {
    acceptor.async_accept([self = shared_from_this()](error_code ec, tcp::socket s) {
      if (ec) return;  // closed (stop) or out of descriptors: stop accepting
      ConnId id = self->next_id++;
      auto session = std::make_shared<Session>(std::move(s));
      error_code ignored;
      session->socket.set_option(tcp::no_delay(true), ignored);
      self->sessions.emplace(id, session);
      self->core.on_open(id);
      self->read(id, session);
      self->accept();
    });
  }

  void read(ConnId id, const std::shared_ptr<Session>& s) {
    s->socket.async_read_some(asio::buffer(s->buf), [self = shared_from_this(), id, s](
                                                        error_code ec, std::size_t n) {
      if (self->sessions.count(id) == 0 || self->sessions[id] != s) return;
      if (ec) {
        // Peer finished sending: answer what is complete, then close.
        s->peer_done = true;
        self->pump();
        if (!s->writing) self->drop(id);
        return;
      }
      self->core.on_data(id, std::string_view(s->buf.data(), n));
      self->pump();
      if (!s->close_after) self->read(id, s);
    });
  }

  // Hands every output of the core to its connection.
  void pump() {
    for (auto& o : core.poll()) {
      auto it = sessions.find(o.conn);
      if (it == sessions.end()) continue;
      it->second->out.push_back(std::move(o.bytes));
      it->second->close_after = it->second->close_after || o.close_after;
      write(o.conn, it->second);
    }
  }

  void write(ConnId id, const std::shared_ptr<Session>& s) {
    if (s->writing) return;
    if (s->out.empty()) {
      if (s->close_after || s->peer_done) drop(id);
      return;
    }
    s->writing = true;
    asio::async_write(s->socket, asio::buffer(s->out.front()),
                      [self = shared_from_this(), id, s](error_code ec, std::size_t) {
                        s->writing = false;
                        if (self->sessions.count(id) == 0 || self->sessions[id] != s)
                          return;
                        if (ec) return self->drop(id);
                        s->out.pop_front();
                        self->write(id, s);
                      });
  }

  void drop(ConnId id) {
    auto it = sessions.find(id);
    if (it == sessions.end()) return;
    error_code ignored;
    it->second->socket.shutdown(tcp::socket::shutdown_both, ignored);
    it->second->socket.close(ignored);
    sessions.erase(it);
    core.on_close(id);
  }

  void stop() {
    error_code ignored;
    acceptor.close(ignored);
    while (!sessions.empty()) drop(sessions.begin()->first);
  }

  tcp::acceptor acceptor;
  HttpServerCore core;
  std::map<ConnId, std::shared_ptr<Session>> sessions;
  ConnId next_id = 0;
};

AsioHttpServer::AsioHttpServer(asio::io_context& io, HttpServerCore core)
    : state_(std::make_shared<State>(io, std::move(core))) {}

AsioHttpServer::~AsioHttpServer() { state_->stop(); }

Result<std::uint16_t> AsioHttpServer::listen(std::uint16_t port) {
  error_code ec;
  tcp::endpoint ep(asio::ip::address_v4::loopback(), port);
  tcp::acceptor& a = state_->acceptor;
  if (a.is_open()) return make_error("already listening");
  if (!a.open(ep.protocol(), ec) &&
      !a.set_option(tcp::acceptor::reuse_address(true), ec) && !a.bind(ep, ec) &&
      !a.listen(asio::socket_base::max_listen_connections, ec)) {
    state_->accept();
    return a.local_endpoint().port();
  }
  a.close();
  return make_error("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                    ec.message());
}

std::uint16_t AsioHttpServer::port() const {
  error_code ec;
  auto ep = state_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void AsioHttpServer::stop() { state_->stop(); }

HttpServerCore& AsioHttpServer::core() { return state_->core; }

int run_standalone(std::uint16_t port, std::string bug) {
  auto core = HttpServerCore::make({.bug = std::move(bug)});
  if (!core) {
    std::cerr << "dualfuzz serve: " << core.error() << "\n";
    return 1;
  }
  asio::io_context io;
  AsioHttpServer server(io, std::move(*core));
  auto bound = server.listen(port);
  if (!bound) {
    std::cerr << "dualfuzz serve: " << bound.error() << "\n";
    return 1;
  }
  std::cerr << "dualfuzz reference server (bug: "
            << (server.core().bug().empty() ? "none" : server.core().bug())
            << ") listening on 127.0.0.1:" << *bound << "\n";
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](error_code, int) {
    server.stop();
    io.stop();
  });
  io.run();
  return 0;
}

}  // namespace dualfuzz::http
