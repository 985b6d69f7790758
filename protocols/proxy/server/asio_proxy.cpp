#include "dualfuzz/proxy/asio_proxy.h"

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <iostream>
#include <map>

#include "dualfuzz/harness/tcp_transport.h"

namespace dualfuzz::proxy {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

struct AsioProxy::State : std::enable_shared_from_this<State> {
  // One socket, client or origin side: what is queued for it, and whether
  // it closes once that is written.
  struct Socket {
    explicit Socket(asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    std::array<char, 16 * 1024> buf;
    std::deque<std::string> out;
    bool connected = false;  // (origin side: until then writes wait)
    bool writing = false;
    bool close_after = false;
    bool lingering = false;  // (closing in stages: see linger)
  };
  using Key = std::pair<bool, ConnId>;  // {to_origin, conn}

  State(asio::io_context& io, ReferenceProxy p, std::string host, std::uint16_t port)
      : io(io),
        acceptor(io),
        proxy(std::move(p)),
        origin_host(std::move(host)),
        origin_port(port) {}

  void accept() {
    acceptor.async_accept([self = shared_from_this()](error_code ec, tcp::socket s) {
      if (ec) return;  // stopped, or out of descriptors: stop accepting
      auto sock = std::make_shared<Socket>(self->io);
      sock->socket = std::move(s);
      sock->connected = true;
      error_code ignored;
      sock->socket.set_option(tcp::no_delay(true), ignored);
      const Key k{false, self->next_client++};
      self->sockets[k] = sock;
      self->read(k, sock);
      self->accept();
    });
  }

  void read(Key k, const std::shared_ptr<Socket>& s) {
    s->socket.async_read_some(asio::buffer(s->buf), [self = shared_from_this(), k, s](
                                                        error_code ec, std::size_t n) {
      if (s->lingering) {  // what still comes is dropped, until EOF
        if (ec) {
          error_code ignored;
          s->socket.close(ignored);
        } else {
          self->read(k, s);
        }
        return;
      }
      if (!self->alive(k, s)) return;
      if (ec) {
        self->peer_closed(k);
      } else {
        const std::string_view bytes(s->buf.data(), n);
        k.first ? self->proxy.on_origin_data(k.second, bytes)
                : self->proxy.on_client_data(k.second, bytes);
        self->read(k, s);
      }
      self->pump();
    });
  }

  bool alive(Key k, const std::shared_ptr<Socket>& s) const {
    auto it = sockets.find(k);
    return it != sockets.end() && it->second == s;
  }

  void peer_closed(Key k) {
    drop(k);
    k.first ? proxy.on_origin_close(k.second) : proxy.on_client_close(k.second);
  }

  void drop(Key k) {
    auto it = sockets.find(k);
    if (it == sockets.end()) return;
    error_code ignored;
    it->second->socket.close(ignored);
    sockets.erase(it);
  }

  // The core's output onto the sockets; an origin connection the core
  // names for the first time is opened here.
  void pump() {
    for (auto& o : proxy.poll()) {
      const Key k{o.to_origin, o.conn};
      auto it = sockets.find(k);
      if (it == sockets.end()) {
        if (!o.to_origin || o.conn < next_origin) continue;  // closed meanwhile
        next_origin = o.conn + 1;
        it = sockets.emplace(k, std::make_shared<Socket>(io)).first;
        connect(k, it->second);
      }
      if (!o.bytes.empty()) it->second->out.push_back(std::move(o.bytes));
      it->second->close_after = it->second->close_after || o.close_after;
      write(k, it->second);
    }
  }

  void connect(Key k, const std::shared_ptr<Socket>& s) {
    tcp::resolver resolver(io);
    error_code ec;
    auto endpoints = resolver.resolve(origin_host, std::to_string(origin_port), ec);
    if (ec)
      return asio::post(io, [self = shared_from_this(), k] {
        self->peer_closed(k);  // the core answers its client with a 502
        self->pump();
      });
    asio::async_connect(
        s->socket, endpoints,
        [self = shared_from_this(), k, s](error_code e, const tcp::endpoint&) {
          if (!self->alive(k, s)) return;
          if (e) {
            self->peer_closed(k);
          } else {
            s->connected = true;
            error_code ignored;
            s->socket.set_option(tcp::no_delay(true), ignored);
            self->read(k, s);
            self->write(k, s);
          }
          self->pump();
        });
  }

  void write(Key k, const std::shared_ptr<Socket>& s) {
    if (!s->connected || s->writing) return;
    if (s->out.empty()) {
      if (!s->close_after) return;
      if (k.first) return drop(k);
      // (As the in-process transport does: the core forgets a client it
      // closed; an origin connection it closed it has forgotten already.)
      sockets.erase(k);
      linger(s);
      proxy.on_client_close(k.second);
      return;
    }
    s->writing = true;
    asio::async_write(s->socket, asio::buffer(s->out.front()),
                      [self = shared_from_this(), k, s](error_code ec, std::size_t) {
                        s->writing = false;
                        if (!self->alive(k, s)) return;
                        if (ec) {
                          self->peer_closed(k);
                          self->pump();
                          return;
                        }
                        s->out.pop_front();
                        self->write(k, s);
                      });
  }

  // RFC 9112 §9.6: a server SHOULD close in stages: shut down its sending
  // side, then read until the client closes. Closed at once with a
  // pipelined request still unread, the kernel resets the connection, and
  // the reset can destroy the last answer before the client has read it.
  // The socket's read loop drops what still comes (Socket::lingering);
  // 2 s at most.
  void linger(const std::shared_ptr<Socket>& s) {
    s->lingering = true;
    error_code ignored;
    s->socket.shutdown(tcp::socket::shutdown_send, ignored);
    auto timer = std::make_shared<asio::steady_timer>(io, std::chrono::seconds(2));
    timer->async_wait([s, timer](error_code) {
      error_code i;
      s->socket.close(i);
    });
  }

  void stop() {
    error_code ignored;
    acceptor.close(ignored);
    for (auto& [k, s] : sockets) s->socket.close(ignored);
    sockets.clear();
  }

  asio::io_context& io;
  tcp::acceptor acceptor;
  ReferenceProxy proxy;
  std::string origin_host;
  std::uint16_t origin_port;
  std::map<Key, std::shared_ptr<Socket>> sockets;
  ConnId next_client = 0;
  ConnId next_origin = 0;
};

AsioProxy::AsioProxy(asio::io_context& io, ReferenceProxy proxy, std::string origin_host,
                     std::uint16_t origin_port)
    : state_(std::make_shared<State>(io, std::move(proxy), std::move(origin_host),
                                     origin_port)) {}

AsioProxy::~AsioProxy() { state_->stop(); }

void AsioProxy::stop() { state_->stop(); }

Result<std::uint16_t> AsioProxy::listen(std::uint16_t port) {
  error_code ec;
  const tcp::endpoint at(asio::ip::make_address("127.0.0.1"), port);
  auto& a = state_->acceptor;
  if (a.open(at.protocol(), ec); ec) return make_error("open: " + ec.message());
  a.set_option(tcp::acceptor::reuse_address(true), ec);
  if (a.bind(at, ec); ec)
    return make_error("cannot bind 127.0.0.1:" + std::to_string(port) + ": " +
                      ec.message());
  if (a.listen(asio::socket_base::max_listen_connections, ec); ec)
    return make_error("listen: " + ec.message());
  state_->accept();
  return a.local_endpoint().port();
}

int run_standalone(std::uint16_t port, const std::string& origin, std::string bug,
                   Mode mode) {
  auto at = harness::parse_host_port(origin);
  if (!at) {
    std::cerr << "dualfuzz serve --proxy: --origin: " << at.error() << "\n";
    return 1;
  }
  if (!is_known_bug(bug)) {
    std::cerr << "dualfuzz serve --proxy: unknown bug '" << bug
              << "' (`dualfuzz bugs --spec proxy`)\n";
    return 1;
  }
  asio::io_context io;
  AsioProxy proxy(io, ReferenceProxy({bug, mode}), at->first, at->second);
  auto bound = proxy.listen(port);
  if (!bound) {
    std::cerr << "dualfuzz serve --proxy: " << bound.error() << "\n";
    return 1;
  }
  std::cerr << "dualfuzz reference " << (mode == Mode::Forward ? "proxy" : "gateway")
            << " (bug: " << (bug.empty() ? "none" : bug)
            << ") listening on 127.0.0.1:" << *bound << ", origin " << origin << "\n";
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](error_code, int) {
    proxy.stop();
    io.stop();
  });
  io.run();
  return 0;
}

}  // namespace dualfuzz::proxy
