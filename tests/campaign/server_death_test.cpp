// A server that dies or hangs is a finding (issue 42; campaign/server_death.h,
// fuzz_loop.h): the reference server with one planted request (any DELETE)
// that kills it (its listener and connections closed: later connects are
// refused) or hangs it (nothing answered from then on, connections still
// accepted). Without a way back the run ends with that finding; with one
// (a supervisor, or --restart's command) the script is shrunk on the
// restarted server and fuzzing goes on, the death reported once.
#include "dualfuzz/campaign/server_death.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio.hpp>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "dualfuzz/campaign/fuzz_loop.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/http/server_core.h"

namespace dualfuzz::campaign {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using harness::ConnId;
using namespace std::chrono_literals;

// The reference server over TCP in a thread of its own, which a planted
// request kills or hangs, and which may come back: after `back_after` (a
// supervisor), or once `restart_flag` exists (what a restart command
// makes).
class PlantedServer {
 public:
  enum class Mode { Crash, Hang };
  struct Options {
    Mode mode = Mode::Crash;
    std::chrono::milliseconds back_after{-1};  // negative: never by itself
    std::string restart_flag{};                // "" none
    std::string bug{};  // the reference server's planted bug ("" none)
    // What kills it: bytes that begin a request (or a header line) with
    // this, in lower case; any DELETE by default.
    std::string trigger = "delete ";
  };
  explicit PlantedServer(Options o)
      : o_(std::move(o)), thread_([this](std::stop_token st) { loop(st); }) {
    while (port_ == 0) std::this_thread::sleep_for(5ms);
  }
  std::uint16_t port() const { return port_; }
  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }
  int deaths() const { return deaths_; }
  int revivals() const { return revivals_; }
  // Kills it for good (whatever the mode), from another thread.
  void kill() { kill_ = true; }

 private:
  struct Up : std::enable_shared_from_this<Up> {
    Up(asio::io_context& io, const std::string& bug, std::string trigger)
        : acceptor(io),
          core(std::move(*http::HttpServerCore::make({.bug = bug}))),
          trigger(std::move(trigger)) {}
    tcp::acceptor acceptor;
    http::HttpServerCore core;
    std::map<ConnId, std::shared_ptr<tcp::socket>> socks;
    ConnId next = 0;
    bool dead = false;  // killed or hung: nothing more is read or answered
    std::function<void()> planted;
    std::string trigger;
    bool triggered(std::string_view bytes) const {
      std::string low(bytes);
      for (char& c : low)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return low.starts_with(trigger) || low.find("\r\n" + trigger) != std::string::npos;
    }

    bool listen(std::uint16_t port) {
      boost::system::error_code ec;
      tcp::endpoint ep(asio::ip::address_v4::loopback(), port);
      acceptor.open(ep.protocol(), ec);
      acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
      acceptor.bind(ep, ec);
      if (ec) return false;
      acceptor.listen(asio::socket_base::max_listen_connections, ec);
      if (ec) return false;
      accept();
      return true;
    }
    void accept() {
      acceptor.async_accept(
          [self = shared_from_this()](boost::system::error_code ec, tcp::socket s) {
            if (ec || self->dead) return;
            const ConnId id = self->next++;
            self->socks[id] = std::make_shared<tcp::socket>(std::move(s));
            self->core.on_open(id);
            self->read(id);
            self->accept();
          });
    }
    void read(ConnId id) {
      auto sock = socks[id];
      auto buf = std::make_shared<std::array<char, 16384>>();
      sock->async_read_some(asio::buffer(*buf),
                            [self = shared_from_this(), id, sock, buf](
                                boost::system::error_code ec, std::size_t n) {
                              if (self->dead || !self->socks.count(id)) return;
                              if (ec) return self->drop(id);
                              const std::string_view bytes(buf->data(), n);
                              if (self->triggered(bytes)) return self->planted();
                              self->core.on_data(id, bytes);
                              for (auto& out : self->core.poll()) {
                                auto it = self->socks.find(out.conn);
                                if (it == self->socks.end()) continue;
                                boost::system::error_code wec;
                                asio::write(*it->second, asio::buffer(out.bytes), wec);
                                if (out.close_after || wec) self->drop(out.conn);
                              }
                              if (self->socks.count(id)) self->read(id);
                            });
    }
    void drop(ConnId id) {
      auto it = socks.find(id);
      if (it == socks.end()) return;
      boost::system::error_code ec;
      it->second->close(ec);
      socks.erase(it);
      core.on_close(id);
    }
    void close_all() {
      dead = true;
      boost::system::error_code ec;
      acceptor.close(ec);
      for (auto& [id, s] : socks) s->close(ec);
      socks.clear();
    }
    // Hung: still listening (the kernel accepts into the backlog), nothing
    // accepted, read or answered.
    void freeze() {
      dead = true;
      boost::system::error_code ec;
      acceptor.cancel(ec);
    }
  };

  void loop(std::stop_token stop) {
    asio::io_context io;
    std::shared_ptr<Up> up;
    std::chrono::steady_clock::time_point died;
    bool down = false;
    auto start = [&](std::uint16_t port) {
      for (int i = 0; i < 100; ++i) {
        up = std::make_shared<Up>(io, o_.bug, o_.trigger);
        up->planted = [&] {
          ++deaths_;
          if (o_.mode == Mode::Crash)
            up->close_all();
          else
            up->freeze();
          down = true;
          died = std::chrono::steady_clock::now();
        };
        if (up->listen(port)) return;
        std::this_thread::sleep_for(20ms);
      }
      ADD_FAILURE() << "cannot listen on port " << port;
    };
    start(0);
    port_ = up->acceptor.local_endpoint().port();
    while (!stop.stop_requested()) {
      // (Out of work, an io_context stops until restarted: a dead server
      // has none.)
      io.restart();
      if (io.run_for(10ms) == 0) std::this_thread::sleep_for(5ms);
      if (kill_) {
        up->close_all();
        continue;
      }
      if (!down) continue;
      const bool supervisor = o_.back_after.count() >= 0 &&
                              std::chrono::steady_clock::now() - died >= o_.back_after;
      const bool restarted =
          !o_.restart_flag.empty() && std::filesystem::exists(o_.restart_flag);
      if (!supervisor && !restarted) continue;
      if (restarted) std::filesystem::remove(o_.restart_flag);
      up->close_all();  // (a hung one is killed first)
      io.restart();
      io.run_for(10ms);
      down = false;
      ++revivals_;
      start(port_);
    }
    if (up) up->close_all();
    io.restart();
    io.run_for(10ms);
  }

  Options o_;
  std::atomic<std::uint16_t> port_ = 0;
  std::atomic<int> deaths_ = 0, revivals_ = 0;
  std::atomic<bool> kill_ = false;
  std::jthread thread_;
};

FuzzSummary fuzz(FuzzOptions o, std::uint64_t seed, FuzzObserver obs = {}) {
  auto c = FuzzCampaign::make(http::plugin(), std::move(o));
  EXPECT_TRUE(c) << c.error();
  if (!c) return {};
  std::mt19937_64 rng(seed);
  return (*c)->run(rng, obs);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<const Finding*> deaths(const FuzzSummary& s) {
  std::vector<const Finding*> out;
  for (const Finding& f : s.findings)
    if (f.death()) out.push_back(&f);
  return out;
}

// The first DELETE the trace shows (the planted server dies or hangs on
// any), or null.
const harness::LabelledTrace::Message* first_delete(const harness::RunResult& r) {
  for (const auto& m : r.trace.messages())
    if (harness::is_request_label(m.label) && m.ir.value("method", "") == "DELETE")
      return &m;
  return nullptr;
}

bool sends_delete(const harness::RunResult& r) { return first_delete(r) != nullptr; }

// Whether that DELETE went unanswered: the server died (or hung) on it, and
// the report is the script as it was played.
bool first_delete_unanswered(const harness::RunResult& r) {
  const auto* d = first_delete(r);
  return d && r.trace.find(d->label + 1) == nullptr;
}

// The signatures of `fs`, for a failure message.
std::string signatures(const std::vector<const Finding*>& fs) {
  std::string out;
  for (const Finding* f : fs) out += (out.empty() ? "" : "; ") + f->signature;
  return out;
}

// No supervisor, no restart: the run stops with the death (exit 1 in the
// CLI: violation()), never "no violation", the script the server took last
// as it was played.
TEST(ServerDeath, ACrashWithoutARestartEndsTheRunWithIt) {
  PlantedServer server({.mode = PlantedServer::Mode::Crash});
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t reported = 0;
  FuzzObserver obs;
  obs.on_death = [&](const FuzzObserver::Death& d) {
    ++reported;
    EXPECT_EQ(d.index, 1u);
    EXPECT_EQ(d.finding.kind, "crash");
  };
  const FuzzSummary s =
      fuzz({.target = server.target(), .seconds = 30, .server_down_seconds = 1}, 1, obs);
  EXPECT_LT(since(t0), 15) << "it stops once the wait is over";
  EXPECT_TRUE(s.violation());
  EXPECT_TRUE(s.server_lost());
  EXPECT_EQ(reported, 1u);
  ASSERT_EQ(s.findings.size(), 1u);
  const Finding& f = s.findings[0];
  EXPECT_EQ(f.kind, "crash");
  EXPECT_EQ(s.lost_on, 0u);
  EXPECT_EQ(f.count, 1u);
  EXPECT_FALSE(f.reproduced) << "nothing to replay it on";
  EXPECT_NE(f.note.find("did not come back"), std::string::npos) << f.note;
  EXPECT_NE(f.detail.find("refused"), std::string::npos) << f.detail;
  EXPECT_TRUE(sends_delete(f.run)) << harness::print_script(f.script);
  EXPECT_TRUE(first_delete_unanswered(f.run)) << harness::print_script(f.script);
  EXPECT_EQ(f.signature.rfind("crash: ", 0), 0u) << f.signature;
  EXPECT_EQ(s.counters.crashes, 1u);
  EXPECT_EQ(server.deaths(), 1);
}

TEST(ServerDeath, AHangWithoutARestartEndsTheRunWithIt) {
  PlantedServer server({.mode = PlantedServer::Mode::Hang});
  const auto t0 = std::chrono::steady_clock::now();
  const FuzzSummary s = fuzz({.target = server.target(),
                              .seconds = 30,
                              .message_timeout = 300ms,
                              .server_down_seconds = 1},
                             1);
  EXPECT_LT(since(t0), 15);
  EXPECT_TRUE(s.violation());
  ASSERT_EQ(s.findings.size(), 1u);
  const Finding& f = s.findings[0];
  EXPECT_EQ(f.kind, "hang");
  EXPECT_EQ(s.lost_on, 0u);
  EXPECT_NE(f.detail.find("answered nothing"), std::string::npos) << f.detail;
  EXPECT_TRUE(sends_delete(f.run)) << harness::print_script(f.script);
  EXPECT_TRUE(first_delete_unanswered(f.run)) << harness::print_script(f.script);
  EXPECT_EQ(s.counters.hangs, 1u);
}

// A server that answers every request with bytes that are no response
// lives: its answer is a protocol violation, not a death (the probes were
// read as "closed without an answer", and a hang reported).
TEST(ServerDeath, GarbageIsAProtocolViolationNotADeath) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  const auto port = acceptor.local_endpoint().port();
  std::function<void()> accept = [&] {
    acceptor.async_accept([&](boost::system::error_code ec, tcp::socket sock) {
      if (ec) return;
      auto s = std::make_shared<tcp::socket>(std::move(sock));
      auto buf = std::make_shared<std::array<char, 4096>>();
      s->async_read_some(
          asio::buffer(*buf), [s, buf](boost::system::error_code e, std::size_t) {
            if (e) return;
            boost::system::error_code wec;
            asio::write(*s, asio::buffer(std::string_view("garbage\r\n\r\n")), wec);
            s->close(wec);
          });
      accept();
    });
  };
  accept();
  std::jthread serving([&] { io.run(); });
  const FuzzSummary s = fuzz({.target = "127.0.0.1:" + std::to_string(port),
                              .seconds = 10,
                              .server_down_seconds = 1},
                             1);
  io.stop();
  ASSERT_TRUE(s.first) << s.findings.size() << " findings";
  EXPECT_EQ(s.first->kind, "protocol");
  EXPECT_EQ(s.counters.hangs + s.counters.crashes, 0u);
  EXPECT_TRUE(s.findings.empty());
}

// A supervisor brings it back: the killing script is shrunk on the
// restarted server (one DELETE), the campaign goes on, and each later
// death by a DELETE counts as the same finding.
TEST(ServerDeath, ASupervisedCrashIsOneShrunkFindingAndTheRunGoesOn) {
  PlantedServer server({.mode = PlantedServer::Mode::Crash, .back_after = 200ms});
  const FuzzSummary s = fuzz({.target = server.target(), .seconds = 6}, 1);
  EXPECT_TRUE(s.violation());
  EXPECT_FALSE(s.server_lost());
  EXPECT_FALSE(s.lost_on);
  // One death shrunk to its DELETE. (The planted server dies on any DELETE
  // bytes it reads, also those pipelined behind a request it refuses and
  // closes on — `FOO` with a bare CR — when one read brings both, which
  // another play's timing may not: such a death stays unshrunk, with a note
  // saying so, and is no second reproduced finding: 3 runs in 40 on a quiet
  // machine.)
  std::vector<const Finding*> shown;
  std::uint64_t counted = 0;
  for (const Finding* f : deaths(s)) {
    counted += f->count;
    if (f->reproduced)
      shown.push_back(f);
    else
      EXPECT_NE(f->note.find("again"), std::string::npos)
          << f->signature << ": " << f->note;
  }
  ASSERT_EQ(shown.size(), 1u) << signatures(shown);
  const Finding* d = shown[0];
  EXPECT_EQ(d->kind, "crash");
  EXPECT_EQ(d->signature, "crash: DELETE");
  EXPECT_LE(d->run.trace.size(), 3u);
  EXPECT_EQ(count_requests(d->script), 1u) << harness::print_script(d->script);
  EXPECT_EQ(counted, s.counters.crashes);
  EXPECT_GT(s.counters.executions, 50u) << "fuzzing went on";
  // Its script is never mutated again: the deaths are few, not one a play.
  EXPECT_LT(s.counters.crashes * 5, s.counters.executions);
}

// A death that any request with a field brings, whatever its method (npm
// webdav-server's untagged If list): the shrinker makes each request as
// plain as it can (Protocol::plainer), so it is one finding, named by a
// GET with that field, not one per method it was met under (the DELETE
// death above keeps its method: it needs it).
TEST(ServerDeath, ADeathByAFieldIsOneFindingWhateverTheMethod) {
  PlantedServer server(
      {.mode = PlantedServer::Mode::Crash, .back_after = 200ms, .trigger = "if-match:"});
  const FuzzSummary s = fuzz({.target = server.target(), .seconds = 6}, 1);
  ASSERT_TRUE(s.violation());
  std::vector<const Finding*> shown;
  for (const Finding* f : deaths(s))
    if (f->reproduced) shown.push_back(f);
  ASSERT_EQ(shown.size(), 1u) << signatures(shown);
  EXPECT_EQ(shown[0]->signature, "crash: GET if-match") << signatures(shown);
  EXPECT_EQ(count_requests(shown[0]->script), 1u)
      << harness::print_script(shown[0]->script);
}

// --restart CMD: a shell command brings it back (here it leaves the file
// the server's supervisor-to-be waits for), then the campaign waits until
// it answers.
TEST(ServerDeath, ARestartCommandBringsItBack) {
  const std::string flag =
      ::testing::TempDir() + "dualfuzz-restart-" + std::to_string(::getpid());
  std::filesystem::remove(flag);
  PlantedServer server({.mode = PlantedServer::Mode::Crash, .restart_flag = flag});
  const FuzzSummary s = fuzz(
      {.target = server.target(), .seconds = 5, .restart = "touch '" + flag + "'"}, 2);
  EXPECT_FALSE(s.lost_on);
  // One death shrunk to its DELETE. (Under a loaded ctest a later death's
  // replays may miss the restarted server: it then stays unshrunk, with a
  // note saying so, and is no second reproduced finding.)
  std::vector<const Finding*> shown;
  for (const Finding* f : deaths(s)) {
    if (f->reproduced)
      shown.push_back(f);
    else
      EXPECT_FALSE(f->note.empty()) << f->signature;
  }
  ASSERT_EQ(shown.size(), 1u) << signatures(shown);
  EXPECT_EQ(shown[0]->signature, "crash: DELETE");
  EXPECT_EQ(count_requests(shown[0]->script), 1u);
  EXPECT_GE(server.revivals(), 2) << "restarted after the death and the shrink's";
  EXPECT_EQ(server.revivals(), server.deaths());
  std::filesystem::remove(flag);
}

TEST(ServerDeath, AHangIsShrunkOnARestartedServer) {
  const std::string flag =
      ::testing::TempDir() + "dualfuzz-restart-hang-" + std::to_string(::getpid());
  std::filesystem::remove(flag);
  PlantedServer server({.mode = PlantedServer::Mode::Hang, .restart_flag = flag});
  const auto t0 = std::chrono::steady_clock::now();
  const FuzzSummary s = fuzz({.target = server.target(),
                              .seconds = 3,
                              .message_timeout = 300ms,
                              .restart = "touch '" + flag + "'"},
                             1);
  EXPECT_LT(since(t0), 20);
  EXPECT_FALSE(s.lost_on);
  const auto d = deaths(s);
  ASSERT_GE(d.size(), 1u);
  EXPECT_EQ(d[0]->kind, "hang");
  EXPECT_TRUE(d[0]->reproduced) << d[0]->note;
  EXPECT_LE(d[0]->run.trace.size(), 3u) << harness::print_script(d[0]->script);
  EXPECT_TRUE(sends_delete(d[0]->run));
  std::filesystem::remove(flag);
}

// A violation's shrink that meets a dead server says so, instead of "did
// not re-occur".
TEST(ServerDeath, AShrinkThatMeetsADeadServerSaysSo) {
  PlantedServer server({.mode = PlantedServer::Mode::Crash, .bug = "lost-update"});
  auto c = FuzzCampaign::make(http::plugin(),
                              {.target = server.target(), .server_down_seconds = 0.5});
  ASSERT_TRUE(c);
  std::ifstream in(std::string(DUALFUZZ_SOURCE_DIR) +
                   "/corpora/http/conditional-put.txt");
  std::stringstream text;
  text << in.rdbuf();
  auto script = harness::parse_script(text.str(), (*c)->protocol().functions);
  ASSERT_TRUE(script) << script.error();
  harness::RunResult r;
  for (int i = 0; i < 20 && !r.violation(); ++i) r = (*c)->play(*script);
  ASSERT_TRUE(r.violation());
  server.kill();
  std::this_thread::sleep_for(100ms);
  const Shrunk sh = (*c)->shrink(*script, r);
  EXPECT_FALSE(sh.reproduced);
  EXPECT_NE(sh.note.find("the server was down during the shrink"), std::string::npos)
      << sh.note;
  EXPECT_NE(sh.note.find("did not come back"), std::string::npos) << sh.note;
}

// ---- The pieces ----

harness::RunResult run_of(std::vector<std::pair<harness::Label, harness::Json>> msgs) {
  harness::RunResult r;
  for (auto& [l, ir] : msgs) r.trace.add(l, 0, std::move(ir));
  return r;
}

TEST(ServerDeathPieces, ASignatureNamesMethodsAndFieldsNotValues) {
  const harness::Protocol p = http::plugin().protocol;
  const harness::Json put_if = {{"method", "PUT"},
                                {"path", "/a/b"},
                                {"headers", {{"If", "(<opaquelocktoken:x>)"}}}};
  EXPECT_EQ(request_signature(p, put_if), "PUT if");
  const harness::Json put_match = {{"method", "PUT"},
                                   {"path", "/x"},
                                   {"headers", {{"if-match", "\"1\""}, {"depth", "0"}}}};
  EXPECT_EQ(request_signature(p, put_match), "PUT if-match depth");
  harness::Json invalid = put_match;
  invalid["headers"]["if-match"] = "1";  // (no quotes: not an entity tag)
  EXPECT_EQ(request_signature(p, invalid), "PUT if-match depth");
  const harness::Json blind = {
      {"method", "GET"}, {"path", "/a"}, {"havoc", {{"name", "if"}, {"value", "(<"}}}};
  EXPECT_EQ(request_signature(p, blind), "GET if")
      << "as the field sent by its generator";
  const auto r = run_of({{1, put_match}, {2, {{"status", 201}}}, {3, put_if}});
  EXPECT_EQ(death_signature(p, DeathKind::Crash, r),
            "crash: PUT if-match depth ; PUT if");
  EXPECT_EQ(death_quick_key(p, DeathKind::Hang, r), "hang: PUT if")
      << "the first request left unanswered";
}

TEST(ServerDeathPieces, LostAnswersAreWhatCallsForAProbe) {
  const harness::Json get = {{"method", "GET"}, {"path", "/a"}};
  EXPECT_FALSE(lost_answers(run_of({{1, get}, {2, {{"status", 200}}}})));
  EXPECT_TRUE(lost_answers(run_of({{1, get}, {2, {{"status", 200}}}, {3, get}})));
  harness::RunResult silent = run_of({{1, get}, {2, {{"status", 200}}}});
  silent.went_silent = true;
  EXPECT_TRUE(lost_answers(silent));
  harness::RunResult refused_later = run_of({{1, get}, {2, {{"status", 200}}}});
  refused_later.outcome = harness::RunResult::Outcome::Trouble;
  refused_later.detail =
      "cannot open connection c1: connect to 127.0.0.1:9: Connection refused";
  EXPECT_TRUE(lost_answers(refused_later));
  EXPECT_TRUE(refused(refused_later));
  EXPECT_FALSE(unreachable(refused_later)) << "it reached the server first";
  refused_later.detail = "cannot open connection c1: connect to 127.0.0.1:9 timed out";
  EXPECT_FALSE(refused(refused_later)) << "a connect that timed out is no refusal";
  // (A play with not one answer: the server was gone before it, or at its
  // first request.)
  EXPECT_TRUE(answered_nothing(run_of({{1, get}, {3, get}})));
  EXPECT_FALSE(answered_nothing(run_of({{1, get}, {2, {{"status", 200}}}, {3, get}})));
}

TEST(ServerDeathPieces, TakenKeepsWhatWasSent) {
  const harness::Protocol p = http::plugin().protocol;
  auto s = harness::parse_script(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"method\":\"DELETE\",\"path\":\"/a\"}\n"
      "wait 3\n"
      "req 5 on c1: {\"method\":\"GET\",\"path\":\"/a\"}\n"
      "close c1\n",
      p.functions);
  ASSERT_TRUE(s) << s.error();
  const auto r = run_of({{1, {{"method", "PUT"}, {"path", "/a"}}},
                         {2, {{"status", 201}}},
                         {3, {{"method", "DELETE"}, {"path", "/a"}}}});
  EXPECT_EQ(harness::print_script(taken(*s, r)),
            "req 1 on c0: {\"body\":\"x\",\"method\":\"PUT\",\"path\":\"/a\"}\n"
            "wait 1\n"
            "req 3 on c0: {\"method\":\"DELETE\",\"path\":\"/a\"}\n"
            "wait 3\n");
}

}  // namespace
}  // namespace dualfuzz::campaign
