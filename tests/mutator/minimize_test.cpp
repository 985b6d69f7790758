// mutator::minimize with the failing run's trace: references are re-pointed
// or made literal so that the steps they name can be deleted.
#include "dualfuzz/mutator/minimize.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "dualfuzz/harness/jexp.h"

namespace dualfuzz::mutator {
namespace {

using harness::Json;
using harness::LabelledTrace;
using harness::RequestStep;
using harness::Script;

// A toy server played in script order on one connection. Every answer
// about an existing path carries its tag, "<path>-<run>-<version>": tags
// differ from run to run (like a real server's, made of modification
// times), so a tag copied from an earlier run never matches. Its bug: a PUT
// whose If-None-Match names the current tag is performed (it should fail)
// — shown only while /b exists (a bug that needs two resources).
struct ToyServer {
  harness::FunctionRegistry fns = harness::FunctionRegistry::with_builtins();
  int run_id = 0;
  std::size_t runs = 0;
  // Tags the same in every run (a real server's made of a modification
  // time, all plays within one second): a literal copy still matches.
  bool stable_tags = false;

  struct Played {
    LabelledTrace trace;
    bool failed = false;
  };
  Played play(const Script& s) {
    ++run_id;
    ++runs;
    Played out;
    std::map<std::string, int> version;  // existing paths
    auto tag = [&](const std::string& p) {
      return "\"" + p + "-" +
             (stable_tags ? std::string() : std::to_string(run_id) + "-") +
             std::to_string(version[p]) + "\"";
    };
    for (const auto& st : s.steps) {
      const auto* q = std::get_if<RequestStep>(&st);
      if (!q) continue;
      Json ir = harness::evaluate_loose(q->body, out.trace, fns);
      out.trace.add_request(q->label, q->conn, ir);
      const std::string method = ir.value("method", ""), path = ir.value("path", "");
      Json answer = {{"status", 404}, {"headers", Json::object()}};
      const bool exists = version.count(path) > 0;
      if (method == "PUT") {
        const Json& h = ir.contains("headers") ? ir["headers"] : Json::object();
        if (exists && h.contains("if-none-match") && h["if-none-match"] == tag(path) &&
            version.count("/b"))
          out.failed = true;
        if (h.contains("x-token") &&
            (h["x-token"] == "\"key\"" || h["x-token"] == "\"long-token\""))
          out.failed = true;
        answer["status"] = exists ? 204 : 201;
        ++version[path];
        answer["headers"]["etag"] = tag(path);
      } else if (exists) {
        answer = {{"status", 200}, {"headers", {{"etag", tag(path)}}}};
      }
      if (method == "GET" && path == "/k")
        answer = {{"status", 200}, {"headers", {{"etag", "\"key\""}}}};
      if (method == "GET" && path == "/long")
        answer = {{"status", 200}, {"headers", {{"etag", "\"long-token\""}}}};
      out.trace.add_response(q->label, q->conn, answer);
    }
    return out;
  }
  RunIfFails runner() {
    return [this](const Script& s) -> std::optional<FailingRun> {
      Played p = play(s);
      if (!p.failed) return std::nullopt;
      return FailingRun{p.trace, {}};
    };
  }
};

Script parse(const std::string& text, const harness::FunctionRegistry& fns) {
  auto s = harness::parse_script(text, fns);
  EXPECT_TRUE(s) << s.error();
  return *s;
}

std::size_t requests(const Script& s) {
  std::size_t n = 0;
  for (const auto& st : s.steps) n += std::holds_alternative<RequestStep>(st);
  return n;
}

// The If-None-Match names the HEAD's answer; the PUT of /b, which the bug
// needs, carries another tag and is nearer to that label, so deleting the
// HEAD alone makes the reference fall back to /b's tag. The PUT of /a's
// answer carries the same tag as the HEAD's: pointing the reference there
// lets the HEAD go.
TEST(Minimize, RepointsAReferenceSoThatItsStepCanGo) {
  ToyServer server;
  const Script script = parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 7 on c0: {\"method\":\"HEAD\",\"path\":\"/a\"}\n"
      "req 9 on c0: {\"method\":\"PUT\",\"path\":\"/b\"}\n"
      "req 11 on c0: {\"headers\":{\"if-none-match\":8.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n",
      server.fns);
  ToyServer::Played first = server.play(script);
  ASSERT_TRUE(first.failed);
  // Without the trace (plain deletion) the HEAD stays.
  const Script plain =
      minimize(script, [&](const Script& s) { return server.play(s).failed; });
  EXPECT_EQ(requests(plain), 4u) << harness::print_script(plain);

  const Script small =
      minimize(script, FailingRun{first.trace, {}}, server.fns, server.runner());
  EXPECT_EQ(
      harness::print_script(small),
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 9 on c0: {\"method\":\"PUT\",\"path\":\"/b\"}\n"
      "req 11 on c0: {\"headers\":{\"if-none-match\":2.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n");
  EXPECT_TRUE(server.play(small).failed);
}

// A short value (here a token another resource hands out, the same in
// every run) can be written literally: the step it came from goes.
TEST(Minimize, MakesAReferenceLiteral) {
  ToyServer server;
  const Script script = parse(
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/k\"}\n"
      "wait 3\n"
      "req 5 on c0: {\"headers\":{\"x-token\":4.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/z\"}\n",
      server.fns);
  ToyServer::Played first = server.play(script);
  ASSERT_TRUE(first.failed);
  const Script plain =
      minimize(script, [&](const Script& s) { return server.play(s).failed; });
  EXPECT_EQ(requests(plain), 2u);
  // The fields a protocol requires (Protocol::required_fields) stay; the
  // toy server needs neither, so without them the path goes too.
  const Script small = minimize(script, FailingRun{first.trace, {}}, server.fns,
                                server.runner(), 2000, {"method", "path"});
  EXPECT_EQ(harness::print_script(small),
            "req 5 on c0: {\"headers\":{\"x-token\":\"\\\"key\\\"\"},\"method\":\"PUT\","
            "\"path\":\"/z\"}\n");
  const Script smaller =
      minimize(script, FailingRun{first.trace, {}}, server.fns, server.runner());
  EXPECT_EQ(
      harness::print_script(smaller),
      "req 5 on c0: {\"headers\":{\"x-token\":\"\\\"key\\\"\"},\"method\":\"PUT\"}\n");
}

// A reference to a message whose step stays stays a reference, even where
// the literal value would do while shrinking: the value is of that moment
// (lighttpd's Last-Modified of the second the finding was met, written out
// as an If-Unmodified-Since, was an older date on every later replay).
TEST(Minimize, AReferenceWhoseStepStaysIsNotWrittenOut) {
  ToyServer server;
  server.stable_tags = true;
  const Script script = parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 9 on c0: {\"method\":\"PUT\",\"path\":\"/b\"}\n"
      "req 11 on c0: {\"headers\":{\"if-none-match\":2.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n",
      server.fns);
  ToyServer::Played first = server.play(script);
  ASSERT_TRUE(first.failed);
  const Script small =
      minimize(script, FailingRun{first.trace, {}}, server.fns, server.runner());
  EXPECT_EQ(harness::print_script(small), harness::print_script(script));
}

// A value as long as a tag or a date is not written out, even where the
// literal would do while shrinking (the toy's token here the same in every
// run, as a real server's tag or date is within the second a finding was
// met): its step stays, and the script asks the same question on a later
// replay.
TEST(Minimize, ALongValueStaysAReference) {
  ToyServer server;
  const Script script = parse(
      "req 3 on c0: {\"method\":\"GET\",\"path\":\"/long\"}\n"
      "wait 3\n"
      "req 5 on c0: {\"headers\":{\"x-token\":4.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/z\"}\n",
      server.fns);
  ToyServer::Played first = server.play(script);
  ASSERT_TRUE(first.failed);
  const Script small = minimize(script, FailingRun{first.trace, {}}, server.fns,
                                server.runner(), 2000, {"method", "path"});
  EXPECT_EQ(harness::print_script(small),
            "req 3 on c0: {\"method\":\"GET\",\"path\":\"/long\"}\n"
            "req 5 on c0: {\"headers\":{\"x-token\":4.(this@\"headers\"@\"etag\").id},"
            "\"method\":\"PUT\",\"path\":\"/z\"}\n");
}

// A literal tag an earlier answer of the run carried (targeted mutation's
// pick) becomes a reference to that answer: on the toy, whose tags differ
// from run to run, the literal never fails again and the reference does.
TEST(Minimize, ALiteralTheRunGaveBecomesAReference) {
  ToyServer server;
  const Script script = parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 9 on c0: {\"method\":\"PUT\",\"path\":\"/b\"}\n"
      "req 11 on c0: {\"headers\":{\"if-none-match\":\"\\\"/a-1-1\\\"\"},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n",
      server.fns);
  ToyServer::Played first = server.play(script);  // run 1: the tag is "/a-1-1"
  ASSERT_TRUE(first.failed);
  ASSERT_FALSE(server.play(script).failed);  // (stale on any other run)
  const Script small =
      minimize(script, FailingRun{first.trace, {}}, server.fns, server.runner());
  EXPECT_EQ(
      harness::print_script(small),
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 9 on c0: {\"method\":\"PUT\",\"path\":\"/b\"}\n"
      "req 11 on c0: {\"headers\":{\"if-none-match\":2.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n");
  EXPECT_TRUE(server.play(small).failed);
}

// Steps the caller names unrelated go in one run.
TEST(Minimize, DropsUnrelatedStepsAtOnce) {
  ToyServer server;
  std::string text = "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n";
  for (int l = 3; l <= 41; l += 2)
    text += "req " + std::to_string(l) + " on c0: {\"method\":\"GET\",\"path\":\"/other" +
            std::to_string(l) + "\"}\n";
  text +=
      "req 43 on c0: {\"method\":\"PUT\",\"path\":\"/b\"}\n"
      "req 45 on c0: {\"headers\":{\"if-none-match\":2.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n";
  const Script script = parse(text, server.fns);
  ToyServer::Played first = server.play(script);
  ASSERT_TRUE(first.failed);
  std::set<harness::Label> others;
  for (int l = 3; l <= 41; l += 2) others.insert(l);
  RunIfFails run = [&](const Script& s) -> std::optional<FailingRun> {
    ToyServer::Played p = server.play(s);
    if (!p.failed) return std::nullopt;
    std::set<harness::Label> u;
    for (const auto& st : s.steps)
      if (const auto* q = std::get_if<RequestStep>(&st); q && others.count(q->label))
        u.insert(q->label);
    return FailingRun{p.trace, u};
  };
  // One run removes the twenty GETs (deleting them by halves takes more).
  const Script small =
      minimize(script, FailingRun{first.trace, others}, server.fns, run, /*max_runs=*/1);
  EXPECT_EQ(requests(small), 3u) << harness::print_script(small);
}

// A request deleted with the wait that followed it: the wait stays, for the
// latest request before it on its connection, so that a later reference is
// still sent after the answer it names (without it the request goes out
// before that answer came).
TEST(Minimize, ADeletedRequestsWaitIsKept) {
  const auto fns = harness::FunctionRegistry::with_builtins();
  const Script script = parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/b\"}\n"
      "wait 3\n"
      "req 5 on c0: {\"headers\":{\"if-match\":2.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n",
      fns);
  const std::string want =
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "wait 1\n"
      "req 5 on c0: {\"headers\":{\"if-match\":2.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n";
  std::set<std::string> got;
  for (const Script& c : structural_candidates(script, FailingRun{}, fns, {}))
    got.insert(harness::print_script(c));
  EXPECT_TRUE(got.count(want)) << "no candidate is\n" << want;
  // ... and the plain deletion is a candidate too (no wait at all).
  EXPECT_TRUE(got.count(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "req 5 on c0: {\"headers\":{\"if-match\":2.(this@\"headers\"@\"etag\").id},"
      "\"method\":\"PUT\",\"path\":\"/a\"}\n"));
}

// Every close at once is a candidate: three `close c1` behind a request
// made each single deletion a no-op, and kept a finding that showed only
// when the answer beat the close.
TEST(Minimize, EveryCloseGoesAtOnce) {
  const auto fns = harness::FunctionRegistry::with_builtins();
  const Script script = parse(
      "req 3 on c1: {\"method\":\"PUT\",\"path\":\"/x\"}\n"
      "req 5 on c2: {\"method\":\"GET\",\"path\":\"/b\"}\n"
      "close c1\nclose c1\nclose c1\n",
      fns);
  std::set<std::string> got;
  for (const Script& c : structural_candidates(script, FailingRun{}, fns, {}))
    got.insert(harness::print_script(c));
  EXPECT_TRUE(
      got.count("req 3 on c1: {\"method\":\"PUT\",\"path\":\"/x\"}\n"
                "req 5 on c2: {\"method\":\"GET\",\"path\":\"/b\"}\n"));
}

// A reference that copies a value as it is is tried through each nudge
// (Protocol::nudges) that changes its value, after every other candidate;
// one through another function, or whose value a nudge leaves as it is,
// is not.
TEST(Minimize, AnIdentityReferenceIsNudgedLast) {
  auto fns = harness::FunctionRegistry::with_builtins();
  // (A toy "earlier": a number one less; anything else as it is.)
  fns.add("earlier", [](const Json& j) -> Result<Json> {
    return j.is_number_integer() ? Json(j.get<int>() - 1) : j;
  });
  fns.add("twice", [](const Json& j) -> Result<Json> {
    return j.is_number_integer() ? Json(2 * j.get<int>()) : j;
  });
  const Script script = parse(
      "req 1 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"headers\":{\"n\":2.(this@\"headers\"@\"n\").id,"
      "\"t\":2.(this@\"headers\"@\"t\").id,\"m\":2.(this@\"headers\"@\"n\").twice},"
      "\"method\":\"GET\",\"path\":\"/a\"}\n",
      fns);
  LabelledTrace t;
  t.add_request(1, 0, {{"method", "GET"}, {"path", "/a"}});
  t.add_response(1, 0, {{"status", 200}, {"headers", {{"n", 5}, {"t", "\"tag\""}}}});
  t.add_request(3, 0, {{"method", "GET"}, {"path", "/a"}});
  const auto with =
      structural_candidates(script, FailingRun{t, {}}, fns, {}, {"earlier"});
  const auto without = structural_candidates(script, FailingRun{t, {}}, fns, {});
  ASSERT_EQ(with.size(), without.size() + 1);
  const std::string last = harness::print_script(with.back());
  EXPECT_NE(last.find("\"n\":2.(this@\"headers\"@\"n\").earlier"), std::string::npos)
      << last;
  EXPECT_NE(last.find("\"t\":2.(this@\"headers\"@\"t\").id"), std::string::npos) << last;
  EXPECT_NE(last.find(".twice"), std::string::npos) << last;
}

// A literal no earlier answer gave (a tag carried over from another run:
// nginx's 201 carries no ETag) is made a reference to a probe
// (Protocol::probe) inserted before its request, on its connection, and
// awaited; a literal an answer gave is relinked instead, and a value the
// probe function turns down stays as it is.
TEST(Minimize, ALiteralNoAnswerGaveIsProbed) {
  auto fns = harness::FunctionRegistry::with_builtins();
  const ProbeFn probe = [](const harness::Jexp& q,
                           const Json& v) -> std::optional<harness::Protocol::Probe> {
    if (!v.is_string() || !v.get<std::string>().starts_with("W/")) return std::nullopt;
    return harness::Protocol::Probe{
        harness::Jexp::object(
            {{"method", harness::Jexp::scalar("GET")}, {"path", *q.find("path")}}),
        harness::Jpath({harness::Jpath::Field{"headers"}, harness::Jpath::Field{"etag"}}),
        "weak"};
  };
  const Script script = parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"headers\":{\"if-match\":\"\\\"given-tag\\\"\","
      "\"if-none-match\":\"W/\\\"old-run-tag\\\"\",\"x\":\"W/\\\"old-run-tag-too\\\"\"},"
      "\"method\":\"GET\",\"path\":\"/a\"}\n",
      fns);
  LabelledTrace t;
  t.add_request(1, 0, {{"method", "PUT"}, {"path", "/a"}});
  t.add_response(1, 0, {{"status", 201}, {"headers", {{"x-tag", "\"given-tag\""}}}});
  t.add_request(3, 0, {{"method", "GET"}, {"path", "/a"}});
  const auto got = probed_candidates(script, FailingRun{t, {}}, fns, probe);
  ASSERT_EQ(got.size(), 2u);  // one per W/ literal
  EXPECT_EQ(harness::print_script(got[0]),
            "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n"
            "wait 1\n"
            "req 5 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n"
            "wait 5\n"
            "req 3 on c0: {\"headers\":{\"if-match\":2.(this@\"headers\"@\"x-tag\").id,"
            "\"if-none-match\":6.(this@\"headers\"@\"etag\").weak,"
            "\"x\":\"W/\\\"old-run-tag-too\\\"\"},\"method\":\"GET\",\"path\":\"/a\"}\n");
  EXPECT_NE(
      harness::print_script(got[1]).find("\"x\":6.(this@\"headers\"@\"etag\").weak"),
      std::string::npos)
      << harness::print_script(got[1]);
  EXPECT_TRUE(probed_candidates(script, FailingRun{t, {}}, fns, {}).empty());
  // A request not sent in the run has no literal to judge.
  LabelledTrace unsent;
  unsent.add_request(1, 0, {{"method", "PUT"}, {"path", "/a"}});
  EXPECT_TRUE(probed_candidates(script, FailingRun{unsent, {}}, fns, probe).empty());
}

}  // namespace
}  // namespace dualfuzz::mutator
