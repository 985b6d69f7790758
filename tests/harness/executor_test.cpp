// The executor against scripted misbehaving servers: garbage, a close in the
// middle of a response, silence, unsolicited bytes. None may crash dualfuzz
// or lose the trace; each ends in the right kind of verdict.
#include "dualfuzz/harness/executor.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

#include "dualfuzz/http/protocol.h"

namespace dualfuzz::harness {
namespace {

// A server that answers every request with `reply(conn, request_bytes)`.
class FakeTransport final : public Transport {
 public:
  using Reply = std::function<std::vector<Incoming>(ConnId, const std::string&)>;
  explicit FakeTransport(Reply r) : reply_(std::move(r)) {}
  Result<bool> open(ConnId) override {
    ++opened;
    return true;
  }
  void send(ConnId c, std::string_view b) override {
    for (auto& in : reply_(c, std::string(b))) queue_.push_back(std::move(in));
  }
  void close(ConnId) override { ++closed; }
  int opened = 0, closed = 0;
  std::vector<Incoming> receive(std::chrono::milliseconds) override {
    return std::exchange(queue_, {});
  }

 private:
  Reply reply_;
  std::vector<Incoming> queue_;
};

const Protocol& http() {
  static const Protocol p = http::protocol();
  return p;
}
RunResult play(FakeTransport::Reply reply, const std::string& text, bool liveness = false,
               bool check_at_end = false) {
  FakeTransport t(std::move(reply));
  RunOptions o;
  o.check_liveness = liveness;
  o.check_at_end = check_at_end;
  o.message_timeout = std::chrono::milliseconds(10);
  Executor ex(http(), t, o);
  return ex.run(*parse_script(text, http().functions));
}
const char* kGet = R"(req 1 on c0: {"method":"GET","path":"/a"})";

// A protocol whose model throws: on the first request, or when it starts.
Protocol throwing_protocol(bool at_start) {
  Protocol p = http::protocol();
  p.model = [at_start] {
    return oracle::ServerModel{
        "throws",
        [at_start]() -> oracle::Tree {
          if (at_start) throw std::runtime_error("model bug: no initial state");
          return oracle::recv(oracle::ModelState(Json(nullptr)),
                              [](const oracle::Request&) -> oracle::Tree {
                                throw std::runtime_error("model bug: unexpected request");
                              });
        },
        nullptr};
  };
  return p;
}
std::vector<Transport::Incoming> not_found(ConnId c, const std::string&) {
  return {{c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, {}}};
}

TEST(Executor, AModelThatThrowsIsAnInternalErrorNotAViolation) {
  for (bool at_start : {false, true}) {
    const Protocol p = throwing_protocol(at_start);
    FakeTransport t(not_found);
    RunOptions o;
    o.message_timeout = std::chrono::milliseconds(10);
    Executor ex(p, t, o);
    RunResult r = ex.run(
        *parse_script(std::string(kGet) +
                          "\nwait 1\nreq 3 on c0: {\"method\":\"GET\",\"path\":\"/b\"}\n",
                      p.functions));
    EXPECT_EQ(r.outcome, RunResult::Outcome::InternalError) << r.report();
    EXPECT_FALSE(r.violation()) << "a fuzzer must not save it as a finding";
    EXPECT_NE(r.report().find(at_start ? "no initial state" : "unexpected request"),
              std::string::npos)
        << r.report();
    EXPECT_NE(r.report().find("INTERNAL ERROR"), std::string::npos) << r.report();
    // The trace up to the throw is kept (the request the model choked on).
    if (!at_start) {
      EXPECT_GE(r.trace.size(), 1u) << r.report();
    }
    // The executor stays usable: the next run reports the same, no leftover state.
    EXPECT_EQ(ex.run(*parse_script(kGet, p.functions)).outcome,
              RunResult::Outcome::InternalError);
  }
}

TEST(Executor, WellBehavedServerPasses) {
  auto r = play(
      [](ConnId c, const std::string&) {
        return std::vector<Transport::Incoming>{
            {c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, {}}};
      },
      kGet);
  EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
  EXPECT_EQ(r.trace.size(), 2u);
}

// On an external server each run gets a namespace: a script path's first
// segment gets the run's prefix, the rest keeps its hierarchy.
TEST(Executor, PathPrefixNamesEachRunsTopLevelSegments) {
  std::vector<std::string> seen;
  FakeTransport t([&](ConnId c, const std::string& bytes) {
    seen.push_back(bytes.substr(0, bytes.find(" HTTP/1.1")));
    return std::vector<Transport::Incoming>{
        {c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, {}}};
  });
  RunOptions o;
  o.run_namespace = "run-7-";
  Executor ex(http(), t, o);
  auto r =
      ex.run(*parse_script("req 1 on c0: {\"method\":\"GET\",\"path\":\"/a/b/c\"}\n"
                           "req 3 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n"
                           "req 5 on c0: {\"method\":\"GET\",\"path\":\"x\"}\n",
                           http().functions));
  EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
  EXPECT_EQ(seen, (std::vector<std::string>{"GET /run-7-a/b/c", "GET /run-7-a",
                                            "GET /run-7-x"}));
}

// Found by AFL++ against the correct server: `"method":""` goes on the wire
// as GET and `"if-matcH"` as an If-Match the server honours, so the trace
// (what the model judges) must hold the request as sent, not the raw IR.
TEST(Executor, TraceHoldsTheRequestAsSent) {
  FakeTransport t([](ConnId c, const std::string&) {
    return std::vector<Transport::Incoming>{
        {c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, {}}};
  });
  Executor ex(http(), t, RunOptions{});
  auto r = ex.run(*parse_script(
      R"(req 1 on c0: {"method":"","path":"/a","headers":{"If-MatcH":"\"x\""}})",
      http().functions));
  EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
  ASSERT_EQ(r.trace.size(), 2u);
  const Json& sent = *r.trace.find(1);
  EXPECT_EQ(sent["method"], "GET");
  EXPECT_EQ(sent["headers"], Json({{"if-match", "\"x\""}}));
}

TEST(Executor, GarbageIsAProtocolViolationShowingTheBytes) {
  auto r = play(
      [](ConnId c, const std::string&) {
        return std::vector<Transport::Incoming>{
            {c, std::string("\x16\x03\x01 hello\r\n", 10), false, {}}};
      },
      kGet);
  EXPECT_EQ(r.outcome, RunResult::Outcome::ProtocolViolation);
  EXPECT_NE(r.report().find("\\x16\\x03\\x01"), std::string::npos) << r.report();
  EXPECT_EQ(r.trace.size(), 1u) << "the request stays in the trace";
}

TEST(Executor, CloseMidResponseIsAProtocolViolation) {
  auto r = play(
      [](ConnId c, const std::string&) {
        return std::vector<Transport::Incoming>{
            {c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", /*eof=*/true, {}}};
      },
      kGet);
  EXPECT_EQ(r.outcome, RunResult::Outcome::ProtocolViolation) << r.report();
  EXPECT_NE(r.report().find("closed in the middle"), std::string::npos);
}

// A reset, unlike a close, may lose what the server sent (RFC 9112 §9.6:
// Python's http.server closes at once with a pipelined request unread):
// the cut answer is no violation, and the reset is noted. Not an advisory:
// §9.6 says servers "typically" close in stages, which is no SHOULD.
TEST(Executor, ResetMidResponseIsNotedNotAViolation) {
  auto r = play(
      [](ConnId c, const std::string&) {
        return std::vector<Transport::Incoming>{{c,
                                                 "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                                                 /*eof=*/true,
                                                 "Connection reset by peer"}};
      },
      kGet);
  EXPECT_NE(r.outcome, RunResult::Outcome::ProtocolViolation) << r.report();
  EXPECT_FALSE(r.violation()) << r.report();
  EXPECT_FALSE(r.advisory) << r.report();
  EXPECT_NE(r.detail.find("note: the server reset c0"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("RFC 9112 §9.6"), std::string::npos) << r.detail;
}

// The same reset seen by a write first (Transport::Incoming::write_error):
// the read side then meets an end of stream, not the reset, and the answer
// nginx was sending (200 KB of /large.bin, a 400 and close behind it, the
// pipeline unread) is cut all the same. Found as a false alarm on
// nginx-static: "connection closed in the middle of a response".
TEST(Executor, AResetSeenByAWriteIsNotedNotAViolation) {
  auto r = play(
      [](ConnId c, const std::string&) {
        Transport::Incoming cut{c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                                /*eof=*/true, ""};
        cut.write_error = "write failed: Connection reset by peer";
        return std::vector<Transport::Incoming>{cut};
      },
      kGet);
  EXPECT_FALSE(r.violation()) << r.report();
  EXPECT_FALSE(r.advisory) << r.report();
  EXPECT_NE(r.detail.find("note: the server reset c0 (write failed"), std::string::npos)
      << r.detail;
}

TEST(Executor, SilenceIsALivenessViolationOnlyWhenAskedFor) {
  auto silent = [](ConnId, const std::string&) {
    return std::vector<Transport::Incoming>{};
  };
  EXPECT_EQ(play(silent, kGet).outcome, RunResult::Outcome::Pass);
  auto r = play(silent, kGet, /*liveness=*/true);
  EXPECT_EQ(r.outcome, RunResult::Outcome::LivenessViolation);
  EXPECT_NE(r.report().find("unanswered"), std::string::npos);
}

// Once the server has stayed silent for a whole timeout, later waits read
// what came and go on: a server that stopped answering costs one timeout a
// play, not one per wait step.
TEST(Executor, OneTimeoutOfSilenceAPlay) {
  class Silent final : public Transport {
   public:
    Result<bool> open(ConnId) override { return true; }
    void send(ConnId, std::string_view) override {}
    void close(ConnId) override {}
    std::vector<Incoming> receive(std::chrono::milliseconds t) override {
      waited += t;
      return {};
    }
    std::chrono::milliseconds waited{0};
  } t;
  std::string text;
  for (int i = 1; i <= 19; i += 2)
    text += "req " + std::to_string(i) + " on c0: {\"method\":\"GET\",\"path\":\"/a\"}\nwait " +
            std::to_string(i) + "\n";
  RunOptions o;
  o.message_timeout = std::chrono::milliseconds(10);
  Executor ex(http(), t, o);
  const RunResult r = ex.run(*parse_script(text, http().functions));
  EXPECT_TRUE(r.went_silent);
  EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
  EXPECT_EQ(t.waited, std::chrono::milliseconds(10));  // (ten waits: was 100 ms)
  EXPECT_EQ(r.trace.size(), 10u);  // every request still sent
}

TEST(Executor, ServerClosingWithoutAnswerIsNotAModelViolation) {
  auto r = play(
      [](ConnId c, const std::string&) {
        return std::vector<Transport::Incoming>{{c, "", /*eof=*/true, {}}};
      },
      std::string(kGet) + "\nreq 3 on c0: {\"method\":\"GET\",\"path\":\"/b\"}");
  EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
  EXPECT_NE(r.report().find("closed c0"), std::string::npos);
}

// A response with a close option: the server must process nothing after it
// and the client must close (RFC 9112 §9.6). The tester closes at once, so
// a request pipelined behind is a closed connection's (never answered,
// whatever arrives after), and a later request opens a new connection.
TEST(Executor, ACloseOptionClosesTheConnection) {
  FakeTransport t([](ConnId c, const std::string& req) {
    // (A server that wrongly answers after its close: never read.)
    const char* answer =
        req.rfind("PUT", 0) == 0
            ? "HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        : req.rfind("GET", 0) == 0
            ? "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz"
            : "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    return std::vector<Transport::Incoming>{{c, answer, false, {}}};
  });
  RunOptions o;
  o.check_liveness = true;
  o.message_timeout = std::chrono::milliseconds(10);
  Executor ex(http(), t, o);
  const RunResult r = ex.run(*parse_script(
      R"(req 1 on c0: {"method":"PUT","path":"/a","body":"x"}
req 3 on c0: {"method":"GET","path":"/a"}
wait 1
req 5 on c0: {"method":"DELETE","path":"/b"})",
      http().functions));
  // The GET's "z" was never read: it would contradict the PUT.
  EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
  EXPECT_TRUE(r.trace.contains(2));
  EXPECT_FALSE(r.trace.contains(4));
  EXPECT_EQ(t.opened, 2) << "the DELETE went on a new connection";
  std::size_t closes = 0;
  for (const oracle::Event& e : r.events) closes += e.kind == oracle::Event::Kind::Close;
  EXPECT_GE(closes, 1u);
}

TEST(Executor, WrongAnswerIsAModelViolation) {
  auto r = play(
      [](ConnId c, const std::string&) {
        return std::vector<Transport::Incoming>{
            {c,
             "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
             false,
             {}}};  // /a was never created
      },
      kGet);
  EXPECT_EQ(r.outcome, RunResult::Outcome::ModelViolation);
  EXPECT_NE(r.report().find("VIOLATION"), std::string::npos);
}

// A server whose answer's content comes after the answer, in another read
// (nginx's HEAD answered with content, in a later segment).
class LateBytesTransport final : public Transport {
 public:
  Result<bool> open(ConnId) override { return true; }
  void send(ConnId c, std::string_view) override {
    queue_.push_back(
        {c, "HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\n", false, {}});
    later_.push_back({c, "hello", false, {}});
  }
  void close(ConnId) override {}
  std::vector<Incoming> receive(std::chrono::milliseconds) override {
    if (!queue_.empty()) return std::exchange(queue_, {});
    return std::exchange(later_, {});
  }

 private:
  std::vector<Incoming> queue_, later_;
};

// RunOptions::linger: bytes past the last answer are read and judged for
// that long before the connections close; without it they are never read.
TEST(Executor, BytesPastTheLastAnswerAreReadWhileItLingers) {
  const char* head = R"(req 1 on c0: {"method":"HEAD","path":"/a"})";
  for (int linger : {0, 20}) {
    LateBytesTransport t;
    RunOptions o;
    o.message_timeout = std::chrono::milliseconds(10);
    o.linger = std::chrono::milliseconds(linger);
    Executor ex(http(), t, o);
    const RunResult r = ex.run(*parse_script(head, http().functions));
    EXPECT_EQ(r.outcome,
              linger ? RunResult::Outcome::ProtocolViolation : RunResult::Outcome::Pass)
        << "linger " << linger << " ms:\n"
        << r.report();
    EXPECT_EQ(r.trace.size(), 2u);  // (the answer is kept either way)
  }
}

// A violation shown late: two PUTs of a new /a both answered 201 (the
// second should say it replaced: Apache's concurrent creations), while a
// PUT of /a/b was in flight. The model explains the second 201 by /a/b's
// PUT having made /a (a collection, in a tree of paths); that PUT's 409
// says it made nothing, so the incremental check rejects at the 409. The
// violation is about the second 201: the whole-trace check, which looks
// ahead to the 409, names it (RunResult::culprit_event, judged again
// without /a/b's PUT, names it when that check gives up).
TEST(Executor, AViolationShownLateNamesTheAnswerItIsAbout) {
  auto server = [](ConnId c, const std::string& req) {
    const auto ok = [](ConnId to, int status) {
      return Transport::Incoming{
          to,
          "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 0\r\n\r\n",
          false,
          {}};
    };
    if (req.find(" /a/b ") != std::string::npos)
      return std::vector<Transport::Incoming>{};
    if (c == 0) return std::vector{ok(0, 201)};
    return std::vector{ok(1, 201), ok(2, 409)};  // /a/b's answer comes last
  };
  for (bool at_end : {false, true}) {
    RunResult r =
        play(server,
             "req 5 on c2: {\"method\":\"PUT\",\"path\":\"/a/b\",\"body\":\"z\"}\n"
             "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
             "wait 1\n"
             "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n",
             false, at_end);
    ASSERT_EQ(r.outcome, RunResult::Outcome::ModelViolation) << r.report();
    EXPECT_EQ(r.events[r.blamed_event()].label, 4u) << r.report();
    ASSERT_FALSE(r.reasons().empty());
    for (const oracle::Reason& x : r.reasons())
      EXPECT_EQ(x.observed.find("409"), std::string::npos) << r.report();
  }
  // Without the second 201 (a 204: it replaced), the 409 is no violation.
  // (A 204 carries no Content-Length: RFC 9110 §8.6, a message rule.)
  auto correct = [&](ConnId c, const std::string& req) {
    auto out = server(c, req);
    for (auto& in : out)
      if (in.conn == 1) in.bytes = "HTTP/1.1 204 X\r\n\r\n";
    return out;
  };
  EXPECT_EQ(play(correct,
                 "req 5 on c2: {\"method\":\"PUT\",\"path\":\"/a/b\",\"body\":\"z\"}\n"
                 "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
                 "wait 1\n"
                 "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n")
                .outcome,
            RunResult::Outcome::Pass);
  // A wrong answer that is its own violation names no culprit.
  RunResult own = play(
      [](ConnId c, const std::string&) {
        return std::vector<Transport::Incoming>{
            {c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", false, {}}};
      },
      kGet);
  ASSERT_EQ(own.outcome, RunResult::Outcome::ModelViolation);
  EXPECT_EQ(own.culprit_event, RunResult::kNoCulprit);
  EXPECT_EQ(own.blamed_event(), own.verdict.event_index);
}

// A violation is named where the whole trace shows it: a GET of /a
// answered "z", which nothing wrote, while a PUT of "y" was in flight. Online,
// the GET's answer is explained only by that PUT having been accepted (202,
// its effect unknown), and the oracle rejects the PUT's later 204 ("202
// expected"): a name that any race of that PUT shares. Looking ahead, that
// explanation dies where it is made, and the violation is the GET's.
TEST(Executor, AViolationIsNamedByTheAnswerNothingExplains) {
  auto server = [](ConnId c, const std::string& req) {
    if (c == 0)
      return std::vector<Transport::Incoming>{
          {0, "HTTP/1.1 201 X\r\nContent-Length: 0\r\n\r\n", false, {}}};
    if (req.starts_with("PUT")) return std::vector<Transport::Incoming>{};
    return std::vector<Transport::Incoming>{
        {2, "HTTP/1.1 200 X\r\nContent-Length: 1\r\n\r\nz", false, {}},
        {1, "HTTP/1.1 204 X\r\n\r\n", false, {}}};  // the PUT's answer last
  };
  for (bool at_end : {false, true}) {
    RunResult r =
        play(server,
             "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
             "wait 1\n"
             "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n"
             "req 5 on c2: {\"method\":\"GET\",\"path\":\"/a\"}\n",
             false, at_end);
    ASSERT_EQ(r.outcome, RunResult::Outcome::ModelViolation) << r.report();
    EXPECT_EQ(r.events[r.blamed_event()].label, 6u) << r.report();
    for (const oracle::Reason& x : r.reasons())
      EXPECT_EQ(x.expected.find("202"), std::string::npos) << r.report();
  }
}

// RunOptions::check_at_end judges the run when it ends, and the result is
// the one an online check gives: a run cut back to the violating event,
// the same outcome when the harness found something first.
TEST(Executor, CheckAtEndGivesTheOnlineResult) {
  // Answers by request: /a "exists" (a model violation: it was never
  // created), /g is garbage (a protocol violation), the rest 404.
  auto server = [](ConnId c, const std::string& req) {
    std::string bytes = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    if (req.find(" /a ") != std::string::npos)
      bytes = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
    if (req.find(" /g ") != std::string::npos) bytes = "\x16\x03garbage\r\n";
    return std::vector<Transport::Incoming>{{c, bytes, false, {}}};
  };
  auto req = [](int label, const char* path) {
    return "req " + std::to_string(label) + " on c0: {\"method\":\"GET\",\"path\":\"" +
           path + "\"}\nwait " + std::to_string(label) + "\n";
  };
  const std::vector<std::pair<std::string, RunResult::Outcome>> cases = {
      {req(1, "/x") + req(3, "/y"), RunResult::Outcome::Pass},
      {req(1, "/x") + req(3, "/a") + req(5, "/y") + req(7, "/g"),
       RunResult::Outcome::ModelViolation},
      {req(1, "/g") + req(3, "/a"), RunResult::Outcome::ProtocolViolation},
      {req(1, "/x") + req(3, "/a") + req(5, "/g"), RunResult::Outcome::ModelViolation},
  };
  for (const auto& [text, outcome] : cases) {
    const RunResult online = play(server, text, false, false);
    const RunResult at_end = play(server, text, false, true);
    EXPECT_EQ(online.outcome, outcome) << online.report();
    EXPECT_EQ(at_end.outcome, online.outcome) << at_end.report();
    EXPECT_EQ(at_end.detail, online.detail);
    EXPECT_TRUE(at_end.trace == online.trace) << at_end.report() << online.report();
    EXPECT_EQ(at_end.events.size(), online.events.size());
    EXPECT_EQ(at_end.verdict.status, online.verdict.status);
    EXPECT_EQ(at_end.verdict.event_index, online.verdict.event_index);
    EXPECT_EQ(at_end.report(), online.report());
  }
}

// The held wait a campaign learns: the first value until enough waits were
// seen; then four times the longest a forward came in, within its bounds.
TEST(HeldWaitBound, LearnsFromTheWaitsItSees) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  HeldWaitBound b;
  EXPECT_EQ(b.wait(), milliseconds(100));
  b.learn({.waits = HeldWaitBound::kLearnAfter - 1, .met = 0, .longest_met = {}});
  EXPECT_EQ(b.wait(), milliseconds(100)) << "too few waits seen to learn";
  b.learn({.waits = 1, .met = 0, .longest_met = {}});
  EXPECT_EQ(b.wait(), milliseconds(10)) << "no forward ever came while one was held";
  b.learn({.waits = 3, .met = 2, .longest_met = microseconds(4'200)});
  EXPECT_EQ(b.wait(), milliseconds(17));
  b.learn({.waits = 1, .met = 1, .longest_met = microseconds(1'000)});
  EXPECT_EQ(b.wait(), milliseconds(17)) << "the longest one seen counts";
  b.learn({.waits = 1, .met = 1, .longest_met = milliseconds(60)});
  EXPECT_EQ(b.wait(), milliseconds(100)) << "never above the first value";
}

// The answer wait a campaign learns: the timeout given until enough answers
// were read; then eight times the slowest, at least the floor, at most
// the timeout given.
TEST(AnswerWaitBound, LearnsFromTheAnswersItReads) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  const milliseconds given(2000);
  AnswerWaitBound b;
  EXPECT_EQ(b.wait(given), given);
  b.learn({.answers = AnswerWaitBound::kLearnAfter - 1, .slowest = microseconds(2'000)});
  EXPECT_EQ(b.wait(given), given) << "too few answers read to learn";
  b.learn({.answers = 1, .slowest = microseconds(1'000)});
  EXPECT_EQ(b.wait(given), milliseconds(250)) << "8 x 2 ms is under the floor";
  b.learn({.answers = 5, .slowest = microseconds(60'100)});
  EXPECT_EQ(b.wait(given), milliseconds(481)) << "8 x the slowest, rounded up";
  b.learn({.answers = 5, .slowest = microseconds(10'000)});
  EXPECT_EQ(b.wait(given), milliseconds(481)) << "the slowest one read counts";
  EXPECT_EQ(b.wait(milliseconds(300)), milliseconds(300))
      << "never above the timeout given";
  EXPECT_EQ(b.wait(milliseconds(100)), milliseconds(100))
      << "a timeout under the floor stays";
  b.learn({.answers = 1, .slowest = milliseconds(900)});
  EXPECT_EQ(b.wait(given), given);
}

// Each answer read is counted, with the time since its request was sent;
// a request never answered is not.
TEST(Executor, CountsTheAnswersItReadsAndTheSlowest) {
  int n = 0;
  auto r = play(
      [&n](ConnId c, const std::string&) {
        if (++n == 2) return std::vector<Transport::Incoming>{};  // the second: never
        return std::vector<Transport::Incoming>{
            {c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, {}}};
      },
      "req 1 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\nwait 1\n"
      "req 3 on c1: {\"method\":\"GET\",\"path\":\"/b\"}\n"
      "req 5 on c2: {\"method\":\"GET\",\"path\":\"/c\"}\n");
  EXPECT_EQ(r.answer_latency.answers, 2u) << r.report();
  EXPECT_LT(r.answer_latency.slowest, std::chrono::seconds(5));
}

}  // namespace
}  // namespace dualfuzz::harness

namespace dualfuzz::harness {
namespace {

// A departure from a SHOULD (an unknown method answered 400, RFC 9110 §9.1's
// "SHOULD respond with 501") is an advisory: the run passes, never a
// violation (so no fuzz target aborts on it), and says which answer.
TEST(Executor, AnAdvisoryIsNoViolation) {
  auto bad_request = [](ConnId c,
                        const std::string&) -> std::vector<Transport::Incoming> {
    return {{c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", false, {}}};
  };
  const char* foo = R"(req 1 on c0: {"method":"FOO","path":"/a"})";
  for (bool at_end : {false, true}) {
    const RunResult r = play(bad_request, foo, /*liveness=*/true, at_end);
    EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << r.report();
    EXPECT_FALSE(r.violation());
    ASSERT_TRUE(r.advisory) << r.report();
    EXPECT_EQ(r.advisory->status, oracle::Verdict::Status::Reject);
    EXPECT_NE(r.report(http()).find("advisory"), std::string::npos) << r.report(http());
  }
  // 501 is what the SHOULD asks: no advisory.
  auto not_implemented = [](ConnId c,
                            const std::string&) -> std::vector<Transport::Incoming> {
    return {{c, "HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n", false, {}}};
  };
  EXPECT_FALSE(play(not_implemented, foo, true).advisory);
  // Judged strictly (--strict), the 400 is the violation.
  Protocol strict = http();
  strict.model = strict.recommended;
  strict.recommended = nullptr;
  FakeTransport t(bad_request);
  RunOptions o;
  o.message_timeout = std::chrono::milliseconds(10);
  Executor ex(strict, t, o);
  EXPECT_EQ(ex.run(*parse_script(foo, strict.functions)).outcome,
            RunResult::Outcome::ModelViolation);
}

}  // namespace
}  // namespace dualfuzz::harness
