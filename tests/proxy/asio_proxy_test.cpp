// A proxy on real TCP, as `dualfuzz fuzz --spec proxy --target HOST:PORT
// --origin HOST:PORT` tests one: the reference proxy served by Boost.Asio
// (AsioProxy), the tester as its clients and as the origin it connects to
// (TcpTransport::listen), all on one io_context in this thread. Both ways:
// the correct proxy passes, a planted bug is caught; and a dead, garbled or
// silent proxy is an error or a finding, never a crash or a false alarm.
#include "dualfuzz/proxy/asio_proxy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio.hpp>

#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/tcp_transport.h"
#include "dualfuzz/proxy/plugin.h"
#include "dualfuzz/proxy/protocol.h"
#include "support/forwarding_transport.h"

namespace dualfuzz::proxy {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using Outcome = harness::RunResult::Outcome;

// A free loopback port (the origin listener's, known before the proxy that
// forwards to it is made).
std::uint16_t free_port(asio::io_context& io) {
  tcp::acceptor a(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

constexpr const char* kTwoClients =
    "req 1 on c0: "
    "{\"path\":\"/a\",\"headers\":{\"connection\":\"x-hop\",\"x-hop\":\"1\"}}\n"
    "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/bb\",\"body\":\"xyz\"}\n"
    "answer 5: {\"status\":200,\"body\":5.(this@\"path\").id,\"chunked\":true}\n"
    "answer 7: {\"status\":201,\"headers\":{\"etag\":\"\\\"1\\\"\"}}\n"
    "wait 1\nwait 3\n"
    "req 9 on c0: {\"method\":\"HEAD\",\"path\":\"/a\"}\n";

harness::RunResult play(harness::Transport& t, const harness::Protocol& p,
                        const std::string& text, bool liveness, int timeout_ms) {
  auto script = harness::parse_script(text, p.functions);
  EXPECT_TRUE(script) << script.error();
  harness::RunOptions o;
  o.check_liveness = liveness;
  o.message_timeout = std::chrono::milliseconds(timeout_ms);
  harness::Executor ex(p, t, o);
  return ex.run(*script);
}

harness::RunResult over_tcp(const std::string& bug, const std::string& text,
                            Mode mode = Mode::Forward) {
  asio::io_context io;
  const std::uint16_t origin_port = free_port(io);
  const std::string origin = "127.0.0.1:" + std::to_string(origin_port);
  AsioProxy proxy(io, ReferenceProxy({bug, mode}), "127.0.0.1", origin_port);
  auto port = proxy.listen(0);
  EXPECT_TRUE(port) << port.error();
  harness::TcpTransport t(io, "127.0.0.1", *port);
  auto listening = t.listen("127.0.0.1", origin_port);
  EXPECT_TRUE(listening) << listening.error();
  return play(t, protocol({.mode = mode, .origin = origin}), text, true, 1000);
}

TEST(AsioProxy, CorrectProxyPassesOverTcp) {
  for (Mode m : {Mode::Forward, Mode::Reverse}) {
    auto r = over_tcp("", kTwoClients, m);
    EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
    // Both sides were on the wire: two origin connections' worth of
    // forwarded requests and answers, three responses to the clients.
    EXPECT_EQ(r.trace.size(), 12u) << r.report();
  }
}

TEST(AsioProxy, PlantedBugIsCaughtOverTcp) {
  for (const char* bug : {"no-via", "connection-listed", "cross-talk"}) {
    auto r = over_tcp(bug, kTwoClients);
    EXPECT_EQ(r.outcome, Outcome::ModelViolation) << bug << "\n" << r.report();
  }
}

// The origin listener numbers the proxy's connections from
// kFirstAcceptedConn in each execution: forget_accepted() between two
// executions on one transport (what campaign::Target::reset does).
TEST(AsioProxy, TwoExecutionsOnOneTransportEachStartAtTheFirstOriginConnection) {
  asio::io_context io;
  const std::uint16_t origin_port = free_port(io);
  AsioProxy proxy(io, ReferenceProxy(ReferenceOptions{}), "127.0.0.1", origin_port);
  auto port = proxy.listen(0);
  ASSERT_TRUE(port);
  harness::TcpTransport t(io, "127.0.0.1", *port);
  ASSERT_TRUE(t.listen("127.0.0.1", origin_port));
  const harness::Protocol p =
      protocol({.origin = "127.0.0.1:" + std::to_string(origin_port)});
  auto script = harness::parse_script("req 1 on c0: {\"path\":\"/a\"}\n", p.functions);
  for (int i = 0; i < 3; ++i) {
    harness::Executor ex(p, t);
    auto r = ex.run(*script);
    EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
    EXPECT_NE(r.report(p).find("o1 < 3 GET /a"), std::string::npos) << r.report(p);
    t.forget_accepted();
  }
}

TEST(ProxyTarget, AnExternalProxyNeedsAnOriginToListenOn) {
  auto none = campaign::Target::make(plugin(Mode::Forward), "127.0.0.1:9");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("--origin"), std::string::npos) << none.error();
  auto bad = campaign::Target::make(plugin(Mode::Forward, "nowhere"), "127.0.0.1:9");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("--origin"), std::string::npos) << bad.error();
}

// A dead proxy: the run cannot be made (Trouble), nothing is reported
// about the proxy's behaviour.
TEST(ProxyTarget, ADeadProxyIsTroubleNotAFinding) {
  asio::io_context io;
  const std::uint16_t dead = free_port(io), origin = free_port(io);
  auto t =
      campaign::Target::make(plugin(Mode::Forward, "127.0.0.1:" + std::to_string(origin)),
                             "127.0.0.1:" + std::to_string(dead));
  ASSERT_TRUE(t) << t.error();
  const harness::Protocol p = plugin(Mode::Forward).protocol;
  auto script = harness::parse_script("req 1 on c0: {\"path\":\"/a\"}\n", p.functions);
  harness::Executor ex(p, (*t)->transport());
  auto r = ex.run(*script);
  EXPECT_EQ(r.outcome, Outcome::Trouble) << r.report();
}

// A "proxy" that answers its client with garbage, and one that accepts and
// never forwards nor answers.
class Misbehaving {
 public:
  Misbehaving(asio::io_context& io, std::string reply)
      : acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        reply_(std::move(reply)) {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (ec) return;
      socket_.emplace(std::move(s));
      if (!reply_.empty())
        asio::async_write(*socket_, asio::buffer(reply_),
                          [](boost::system::error_code, std::size_t) {});
    });
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  tcp::acceptor acceptor_;
  std::string reply_;
  std::optional<tcp::socket> socket_;
};

harness::RunResult against(const std::string& reply, bool liveness) {
  asio::io_context io;
  Misbehaving m(io, reply);
  harness::TcpTransport t(io, "127.0.0.1", m.port());
  const std::uint16_t origin_port = free_port(io);
  EXPECT_TRUE(t.listen("127.0.0.1", origin_port));
  return play(t, protocol({.origin = "127.0.0.1:" + std::to_string(origin_port)}),
              "req 1 on c0: {\"path\":\"/a\"}\n", liveness, 300);
}

TEST(ProxyTarget, GarbageFromTheProxyIsAProtocolViolation) {
  auto r = against("SSH-2.0-nope\r\n\r\n", false);
  EXPECT_EQ(r.outcome, Outcome::ProtocolViolation) << r.report();
}

// It never connects to the origin: no answer is no false alarm, and a
// liveness violation only when asked for.
TEST(ProxyTarget, AProxyThatNeverForwardsIsALivenessViolationOnlyWhenAskedFor) {
  EXPECT_EQ(against("", false).outcome, Outcome::Pass);
  const auto r = against("", true);
  EXPECT_EQ(r.outcome, Outcome::LivenessViolation);
  EXPECT_NE(r.report().find("sends 504, §15.6.5"), std::string::npos) << r.report();
}

// A proxy in tinyproxy's style: it forwards one request with `Connection:
// close` and reads the origin's answer up to the origin's EOF, then relays
// it (with Via) and closes. It relays nothing unless the tester's origin
// closes, as RFC 9112 §9.6 requires of a server after a `close` request.
class ReadsToEof {
 public:
  ReadsToEof(asio::io_context& io, std::uint16_t origin_port)
      : io_(io),
        acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        origin_port_(origin_port) {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (ec) return;
      client_.emplace(std::move(s));
      asio::async_read_until(*client_, asio::dynamic_buffer(request_), "\r\n\r\n",
                             [this](boost::system::error_code e, std::size_t n) {
                               if (!e) forward(n);
                             });
    });
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  bool relayed() const { return relayed_; }

 private:
  void forward(std::size_t head) {
    // Origin-form target, Host = the authority, Via added, and `close`.
    std::string q = request_.substr(0, head);
    const std::size_t target = q.find(' ') + 1, path = q.find('/', q.find("//") + 2);
    q.erase(target, path - target);
    std::string out;
    std::size_t at = 0;
    for (std::size_t eol; (eol = q.find("\r\n", at)) != std::string::npos; at = eol + 2) {
      const std::string line = q.substr(at, eol - at);
      std::string lower = line;
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      if (lower.starts_with("host:") || lower.starts_with("connection:")) continue;
      if (line.empty()) {
        out += "Host: 127.0.0.1:" + std::to_string(origin_port_) +
               "\r\nVia: 1.1 mini\r\nConnection: close\r\n\r\n";
        break;
      }
      out += line + "\r\n";
    }
    forwarded_ = std::move(out);
    origin_.emplace(io_);
    origin_->async_connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), origin_port_),
        [this](boost::system::error_code e) {
          if (e) return;
          asio::async_write(*origin_, asio::buffer(forwarded_),
                            [this](boost::system::error_code e, std::size_t) {
                              if (!e) read_to_eof();
                            });
        });
  }
  void read_to_eof() {
    asio::async_read(*origin_, asio::dynamic_buffer(answer_),
                     [this](boost::system::error_code e, std::size_t) {
                       if (e != asio::error::eof) return;
                       answer_.insert(answer_.find("\r\n") + 2, "Via: 1.1 mini\r\n");
                       relayed_ = true;
                       asio::async_write(*client_, asio::buffer(answer_),
                                         [this](boost::system::error_code, std::size_t) {
                                           boost::system::error_code ec;
                                           client_->shutdown(tcp::socket::shutdown_both,
                                                             ec);
                                         });
                     });
  }
  asio::io_context& io_;
  tcp::acceptor acceptor_;
  std::uint16_t origin_port_;
  std::optional<tcp::socket> client_, origin_;
  std::string request_, forwarded_, answer_;
  bool relayed_ = false;
};

// Both ways: the tester's origin closes after a request that says `close`,
// so this proxy relays the answer and the run passes; had the origin kept
// the connection open, nothing would reach the client (a liveness violation).
harness::RunResult through_reads_to_eof(bool origin_closes, int timeout_ms,
                                        bool* relayed) {
  asio::io_context io;
  const std::uint16_t origin_port = free_port(io);
  ReadsToEof proxy(io, origin_port);
  harness::TcpTransport t(io, "127.0.0.1", proxy.port());
  EXPECT_TRUE(t.listen("127.0.0.1", origin_port));
  harness::Protocol p = protocol({.origin = "127.0.0.1:" + std::to_string(origin_port)});
  if (!origin_closes) p.origin->closes_after = nullptr;
  auto r = play(t, p, "req 1 on c0: {\"path\":\"/a\"}\nwait 1\n", true, timeout_ms);
  *relayed = proxy.relayed();
  return r;
}

TEST(ProxyTarget, TheOriginClosesAfterARequestThatSaysClose) {
  bool relayed = false;
  auto r = through_reads_to_eof(true, 1000, &relayed);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
  EXPECT_TRUE(relayed);
  auto kept_open = through_reads_to_eof(false, 300, &relayed);
  EXPECT_EQ(kept_open.outcome, Outcome::LivenessViolation) << kept_open.report();
  EXPECT_FALSE(relayed);
}

// A transport that counts the waits that ran out: receive() given time and
// returning nothing.
class CountingTransport final : public test_support::ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  std::vector<Incoming> receive(std::chrono::milliseconds timeout) override {
    auto in = t_.receive(timeout);
    if (in.empty() && timeout.count() > 0) {
      ++ran_out;
      longest_ran_out = std::max(longest_ran_out, timeout);
    }
    return in;
  }
  int ran_out = 0;
  std::chrono::milliseconds longest_ran_out{0};
};

// `answer` steps for forwards that cannot come: a request the proxy must
// answer itself (Max-Forwards 0 on OPTIONS), and one pipelined behind a
// request that ends its connection. No wait runs out on them (each cost a
// whole --timeout-ms: half the wall time of a campaign on the reference
// proxy); a proxy that forwards the first anyway is still caught.
TEST(ProxyTarget, NoWaitRunsOutOnAForwardThatCannotCome) {
  // (Each behind a request whose forward's answer step comes later, so
  // that the proxy's own answer cannot end the wait.)
  const std::string own =
      "req 1 on c0: {\"path\":\"/x\"}\n"
      "req 3 on c0: {\"method\":\"OPTIONS\",\"path\":\"/a\","
      "\"headers\":{\"max-forwards\":\"0\"}}\n"
      "answer 7: {\"status\":200}\nanswer 5: {\"status\":200}\nwait 3\n";
  const std::string behind_close =
      "req 1 on c0: {\"path\":\"/x\"}\n"
      "req 3 on c0: {\"path\":\"/a\",\"headers\":{\"connection\":\"close\"}}\n"
      "req 5 on c0: {\"path\":\"/b\"}\n"
      "answer 11: {\"status\":200}\nanswer 7: {\"status\":200}\n"
      "answer 9: {\"status\":200}\nwait 3\n";
  // (hooks: whether the protocol says which forwards cannot come.)
  auto run = [](const std::string& bug, const std::string& text, bool hooks, int* ran_out,
                std::chrono::milliseconds* longest = nullptr) {
    asio::io_context io;
    const std::uint16_t origin_port = free_port(io);
    AsioProxy proxy(io, ReferenceProxy({bug, Mode::Forward}), "127.0.0.1", origin_port);
    auto port = proxy.listen(0);
    EXPECT_TRUE(port) << port.error();
    harness::TcpTransport tcp(io, "127.0.0.1", *port);
    EXPECT_TRUE(tcp.listen("127.0.0.1", origin_port));
    CountingTransport t(tcp);
    harness::Protocol p =
        protocol({.origin = "127.0.0.1:" + std::to_string(origin_port)});
    if (!hooks) p.origin->never_forwarded = p.origin->ends_connection = nullptr;
    auto r = play(t, p, text, true, 300);
    *ran_out = t.ran_out;
    if (longest) *longest = t.longest_ran_out;
    return r;
  };
  int ran_out = -1;
  for (const std::string* text : {&own, &behind_close}) {
    auto r = run("", *text, true, &ran_out);
    EXPECT_EQ(r.outcome, Outcome::Pass) << r.report();
    EXPECT_EQ(ran_out, 0) << *text;
    // Without the protocol's word, the tester waits for them, but not a
    // whole timeout (300 ms here) while it holds a forward unanswered: a
    // proxy may be waiting for that answer before it forwards the next.
    std::chrono::milliseconds longest{0};
    auto blind = run("", *text, false, &ran_out, &longest);
    EXPECT_EQ(blind.outcome, Outcome::Pass) << blind.report();
    EXPECT_GE(ran_out, 1) << *text;
    EXPECT_LE(longest.count(), 100) << *text;
    // (Counted for HeldWaitBound: waits held, none met.)
    EXPECT_GE(blind.held_waits.waits, 1u) << *text;
    EXPECT_EQ(blind.held_waits.met, 0u) << *text;
  }
  // Two clients' forwards answered in the other order: a held wait, if the
  // step had to make one, is met, and its length counted.
  auto crossed = run("",
                     "req 1 on c0: {\"path\":\"/x\"}\nreq 3 on c1: {\"path\":\"/y\"}\n"
                     "answer 7: {\"status\":200}\nanswer 5: {\"status\":200}\n"
                     "wait 1\nwait 3\n",
                     true, &ran_out);
  EXPECT_EQ(crossed.outcome, Outcome::Pass) << crossed.report();
  EXPECT_EQ(crossed.held_waits.met, crossed.held_waits.waits);
  if (crossed.held_waits.met) {
    EXPECT_GT(crossed.held_waits.longest_met.count(), 0);
  }
  auto r = run("max-forwards-ignored", own, true, &ran_out);
  EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report();
}

}  // namespace
}  // namespace dualfuzz::proxy
