// The Asio server answers real TCP clients on the caller's io_context, in
// the same thread as the client (no server thread).
#include "dualfuzz/http/asio_server.h"

#include <gtest/gtest.h>

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <functional>

namespace dualfuzz::http {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// A client on `io`: sends `bytes`, collects responses until `want` arrived or
// the server closed; `closed` tells which.
struct Client {
  Client(asio::io_context& io, std::uint16_t port) : socket(io) {
    socket.connect(tcp::endpoint(asio::ip::address_v4::loopback(), port));
  }
  void send(const std::vector<Json>& requests) {
    for (const Json& q : requests) {
      parser.expect(q.value("method", "GET"));
      out += http::print_request(q);
    }
    asio::async_write(socket, asio::buffer(out),
                      [](boost::system::error_code, std::size_t) {});
  }
  void read() {
    socket.async_read_some(asio::buffer(buf),
                           [this](boost::system::error_code ec, std::size_t n) {
                             if (ec) {
                               parser.on_eof();
                               closed = true;
                             } else {
                               parser.feed(std::string_view(buf.data(), n));
                               read();
                             }
                             while (auto r = parser.next()) responses.push_back(*r);
                           });
  }
  tcp::socket socket;
  std::string out;
  std::array<char, 4096> buf;
  http::ResponseParser parser;
  std::vector<Json> responses;
  bool closed = false;
};

void run_until(asio::io_context& io, const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done() && std::chrono::steady_clock::now() < deadline)
    io.run_one_for(std::chrono::milliseconds(100));
}

TEST(AsioHttpServer, AnswersPipelinedRequestsOnTheSameIoContext) {
  asio::io_context io;
  AsioHttpServer server(io, HttpServerCore());
  auto port = server.listen(0);
  ASSERT_TRUE(port) << port.error();
  EXPECT_NE(*port, 0);
  EXPECT_EQ(server.port(), *port);
  Client c(io, *port);
  c.send({{{"method", "PUT"}, {"path", "/a"}, {"body", "hello"}},
          {{"method", "GET"}, {"path", "/a"}},
          {{"method", "GET"}, {"path", "/nope"}}});
  c.read();
  run_until(io, [&] { return c.responses.size() == 3 || c.parser.failed(); });
  ASSERT_EQ(c.responses.size(), 3u) << c.parser.error();
  EXPECT_EQ(c.responses[0]["status"], 201);
  EXPECT_EQ(c.responses[1]["body"], "hello");
  EXPECT_EQ(c.responses[2]["status"], 404);
  EXPECT_FALSE(c.closed);
}

TEST(AsioHttpServer, TwoConnectionsShareTheServerState) {
  asio::io_context io;
  AsioHttpServer server(io, HttpServerCore());
  auto port = server.listen(0);
  ASSERT_TRUE(port) << port.error();
  Client a(io, *port), b(io, *port);
  a.send({{{"method", "PUT"}, {"path", "/x"}, {"body", "1"}}});
  a.read();
  run_until(io, [&] { return a.responses.size() == 1; });
  b.send({{{"method", "GET"}, {"path", "/x"}}});
  b.read();
  run_until(io, [&] { return b.responses.size() == 1; });
  ASSERT_EQ(b.responses.size(), 1u);
  EXPECT_EQ(b.responses[0]["body"], "1");
}

TEST(AsioHttpServer, ConnectionCloseAndGarbageCloseTheConnection) {
  asio::io_context io;
  AsioHttpServer server(io, HttpServerCore());
  auto port = server.listen(0);
  ASSERT_TRUE(port) << port.error();
  Client c(io, *port);
  c.send({{{"method", "GET"}, {"path", "/a"}, {"headers", {{"connection", "close"}}}},
          {{"method", "GET"}, {"path", "/b"}}});
  c.read();
  run_until(io, [&] { return c.closed; });
  EXPECT_TRUE(c.closed);
  ASSERT_EQ(c.responses.size(), 1u);
  EXPECT_EQ(c.responses[0]["headers"]["connection"], "close");

  Client g(io, *port);
  g.parser.expect("GET");
  g.out = "BAD REQUEST LINE\r\n\r\n";
  asio::async_write(g.socket, asio::buffer(g.out),
                    [](boost::system::error_code, std::size_t) {});
  g.read();
  run_until(io, [&] { return g.closed; });
  ASSERT_EQ(g.responses.size(), 1u);
  EXPECT_EQ(g.responses[0]["status"], 400);
}

TEST(AsioHttpServer, PlantedBugsAndErrorsAsValues) {
  asio::io_context io;
  auto core = HttpServerCore::make({.bug = "not-found-403"});
  ASSERT_TRUE(core);
  AsioHttpServer server(io, std::move(*core));
  auto port = server.listen(0);
  ASSERT_TRUE(port) << port.error();
  EXPECT_FALSE(server.listen(0));  // already listening
  AsioHttpServer second(io, HttpServerCore());
  EXPECT_FALSE(second.listen(*port));  // port taken
  Client c(io, *port);
  c.send({{{"method", "GET"}, {"path", "/missing"}}});
  c.read();
  run_until(io, [&] { return c.responses.size() == 1; });
  ASSERT_EQ(c.responses.size(), 1u);
  EXPECT_EQ(c.responses[0]["status"], 403);
  server.stop();
  run_until(io, [&] { return c.closed; });
  EXPECT_TRUE(c.closed);
}

TEST(AsioHttpServer, RunStandaloneRejectsUnknownBugs) {
  EXPECT_EQ(run_standalone(0, "no-such-bug"), 1);
}

}  // namespace
}  // namespace dualfuzz::http
