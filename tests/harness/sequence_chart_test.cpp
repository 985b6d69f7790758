// The counterexample presentation: the message-sequence chart's structure
// (one lifeline per connection plus the server, one arrow per message, the
// killing message red, everything escaped), the text report's format, and
// the violation key that minimization keeps.
#include "dualfuzz/harness/sequence_chart.h"

#include <gtest/gtest.h>

#include <string>

#include "dualfuzz/http/protocol.h"

namespace dualfuzz::harness {
namespace {
const Protocol& proto() {
  static const Protocol p = http::protocol();
  return p;
}

using oracle::Event;

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos;
       at = hay.find(needle, at + needle.size()))
    ++n;
  return n;
}

oracle::Reason mismatch(const char* location, const char* expected,
                        const char* observed) {
  oracle::Reason r;
  r.kind = oracle::Reason::Kind::Mismatch;
  r.location = location;
  r.expected = expected;
  r.observed = observed;
  r.text = std::string(location) + ": expected " + expected + ", observed " + observed;
  return r;
}

// PUT on c0, GET on c1 (answered 200 then a 412 that kills), close c0.
RunResult lost_update_run(const std::string& body = "v1") {
  RunResult r;
  Json put = {{"method", "PUT"}, {"path", "/a"}, {"body", body}};
  Json get = {{"method", "GET"}, {"path", "/a"}};
  Json ok = {{"status", 200}, {"reason", "OK"}, {"body", body}};
  Json bad = {{"status", 412}, {"reason", "Precondition Failed"}};
  r.events = {Event::open(0), Event::request(0, 1, put), Event::response(0, 2, ok),
              Event::open(1), Event::request(1, 3, get), Event::response(1, 4, bad),
              Event::close(0)};
  r.trace.add(1, 0, put);
  r.trace.add(2, 0, ok);
  r.trace.add(3, 1, get);
  r.trace.add(4, 1, bad);
  r.outcome = RunResult::Outcome::ModelViolation;
  r.verdict.status = oracle::Verdict::Status::Reject;
  r.verdict.event_index = 5;
  r.detail =
      "VIOLATION at event 5: response 4 received on connection 1: {\"status\":412}\n"
      "No correct http server, across any TCP reordering, could have produced this "
      "trace. "
      "1 explanation(s) were alive before this message. The explanations died because:\n"
      "  - response.status: expected 200, observed 412 (server state \"v1\")\n";
  r.verdict.explanation = r.detail;
  r.verdict.reasons = {mismatch("response.status", "200", "412")};
  return r;
}

TEST(SequenceChart, LifelinesArrowsAndTheKillingMessage) {
  RunResult r = lost_update_run();
  std::string svg = sequence_chart_svg(proto(), r, "lost update");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // Two connections and the server.
  EXPECT_EQ(count(svg, "<g class=\"lifeline"), 3u);
  EXPECT_EQ(count(svg, "<g class=\"lifeline server\""), 1u);
  // Four messages: two requests, two responses; one close mark.
  EXPECT_EQ(count(svg, "<g class=\"msg request"), 2u);
  EXPECT_EQ(count(svg, "<g class=\"msg response"), 2u);
  EXPECT_EQ(count(svg, "<g class=\"close"), 1u);
  // Exactly the 412 is red, with its short summary.
  EXPECT_EQ(count(svg, " kill\""), 1u);
  std::size_t kill = svg.find("<g class=\"msg response kill\"");
  ASSERT_NE(kill, std::string::npos);
  EXPECT_NE(svg.find("4 412", kill), std::string::npos);
  EXPECT_NE(svg.find("url(#arrow-kill)", kill), std::string::npos);
  EXPECT_NE(svg.find(">1 PUT /a<"), std::string::npos);
  EXPECT_NE(svg.find(">2 200"), std::string::npos);
  // The explanation follows the chart.
  std::size_t expl = svg.find("<g class=\"explanation\">");
  ASSERT_NE(expl, std::string::npos);
  EXPECT_GT(expl, kill);
  EXPECT_NE(svg.find("response.status: expected 200, observed 412", expl),
            std::string::npos);
}

TEST(SequenceChart, PayloadsAndTitlesAreEscaped) {
  RunResult r = lost_update_run("<b>&amp;</b>\x01\xff");
  r.trace = {};
  std::string svg = sequence_chart_svg(proto(), r, "a <title> & more");
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_EQ(svg.find("<title> &"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;title&gt; &amp; more"), std::string::npos);
  EXPECT_NE(svg.find("&lt;b&gt;&amp;amp;&lt;/b&gt;"), std::string::npos);
  // No raw control characters or invalid UTF-8 in the document.
  EXPECT_EQ(svg.find('\x01'), std::string::npos);
  EXPECT_EQ(svg.find('\xff'), std::string::npos);
  // Every '&' starts an entity.
  for (std::size_t at = svg.find('&'); at != std::string::npos;
       at = svg.find('&', at + 1)) {
    std::size_t semi = svg.find(';', at);
    ASSERT_NE(semi, std::string::npos);
    EXPECT_LE(semi - at, 6u) << svg.substr(at, 10);
  }
  std::string html = sequence_chart_html(proto(), Script{}, r, "t");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<pre class=\"report\">"), std::string::npos);
}

TEST(SequenceChart, XmlEscape) {
  EXPECT_EQ(xml_escape("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
  EXPECT_EQ(xml_escape("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(xml_escape("\xc3"), "\xEF\xBF\xBD");  // truncated sequence
  EXPECT_EQ(xml_escape("\xed\xa0\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(xml_escape("a\tb\nc\x1b"), "a\tb\nc\xEF\xBF\xBD");
}

TEST(SequenceChart, LivenessMarksTheUnansweredRequest) {
  RunResult r;
  Json get = {{"method", "GET"}, {"path", "/a"}};
  r.events = {Event::open(2), Event::request(2, 1, get)};
  r.trace.add(1, 2, get);
  r.outcome = RunResult::Outcome::LivenessViolation;
  r.detail = "LIVENESS: at `the run ended`, 1 request(s) were still unanswered";
  std::string svg = sequence_chart_svg(proto(), r, "silence");
  EXPECT_EQ(count(svg, "<g class=\"lifeline"), 2u);
  EXPECT_EQ(count(svg, "<g class=\"msg missing kill\""), 1u);
  EXPECT_NE(svg.find("no response to 1"), std::string::npos);
  EXPECT_NE(svg.find(">c2<"), std::string::npos);
}

TEST(SequenceChart, EmptyRunIsStillADocument) {
  RunResult r;
  std::string svg = sequence_chart_svg(proto(), r, "");
  EXPECT_EQ(count(svg, "<g class=\"lifeline"), 1u);  // the server alone
  EXPECT_NE(svg.find("no violation"), std::string::npos);
}

TEST(RunReport, FuzzTargetFormat) {
  const Protocol http = http::protocol();
  auto s =
      parse_script("req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"v1\"}\n",
                   http.functions);
  ASSERT_TRUE(s);
  RunResult r = lost_update_run();
  std::string rep = run_report(*s, r, "server bug: lost-update");
  EXPECT_EQ(rep,
            "==dualfuzz== functional violation (server bug: lost-update)\n--- script\n" +
                print_script(*s) + "--- " + r.report());
  r.outcome = RunResult::Outcome::Pass;
  EXPECT_EQ(run_report(*s, r, "x").rfind("==dualfuzz== no violation (x)\n", 0), 0u);
}

// Each message on one line as the protocol describes it, JSON behind the
// flag; the verdict and explanation the same either way.
TEST(RunReport, ReadableByDefaultJsonOnRequest) {
  const RunResult r = lost_update_run();
  const std::string readable = r.report(proto());
  EXPECT_NE(readable.find("\n  c0 > 1 PUT /a  (2 bytes)\n"), std::string::npos)
      << readable;
  EXPECT_NE(readable.find("\n  c1 < 4 412\n"), std::string::npos) << readable;
  EXPECT_EQ(readable.find("{\""),
            readable.find("{\"status\":412}"));  // JSON only in detail
  const std::string json = r.report(proto(), TraceFormat::Json);
  EXPECT_EQ(json, r.report());
  EXPECT_NE(
      json.find("\n  c0 > 1 {\"body\":\"v1\",\"method\":\"PUT\",\"path\":\"/a\"}\n"),
      std::string::npos)
      << json;
  // Only the trace lines differ.
  EXPECT_EQ(readable.substr(readable.find("VIOLATION")),
            json.substr(json.find("VIOLATION")));
  auto s = parse_script("req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n",
                        proto().functions);
  ASSERT_TRUE(s);
  EXPECT_EQ(run_report(proto(), *s, r, "t"),
            "==dualfuzz== functional violation (t)\n--- script\n" + print_script(*s) +
                "--- " + readable);
  EXPECT_EQ(run_report(proto(), *s, r, "t", TraceFormat::Json), run_report(*s, r, "t"));
}

// A protocol without describe hooks: the generic fallback, compact JSON,
// exactly what --json shows.
TEST(RunReport, ProtocolWithoutHooksFallsBackToJson) {
  const Protocol bare;
  const RunResult r = lost_update_run();
  EXPECT_EQ(r.report(bare), r.report());
  EXPECT_EQ(r.report(bare), r.report(bare, TraceFormat::Json));
  std::string long_text(400, 'x');
  EXPECT_EQ(Protocol::default_describe(Json(long_text)).size(), 300u);
}

// A description with line breaks (a fuzzed path) stays on one line.
TEST(RunReport, ControlBytesInADescriptionAreEscaped) {
  Protocol p;
  p.describe_request = [](const Json&) { return std::string("GET /a\r\nX: y"); };
  const std::string rep = lost_update_run().report(p);
  EXPECT_NE(rep.find("  c0 > 1 GET /a\\x0d\\x0aX: y\n"), std::string::npos) << rep;
}

// Charts: the report in the page is the readable one; an arrow's tooltip
// starts with the same description, then the payload in full.
TEST(SequenceChart, UsesTheReadableDescription) {
  const RunResult r = lost_update_run();
  auto s = parse_script("req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\"}\n",
                        proto().functions);
  ASSERT_TRUE(s);
  const std::string html = sequence_chart_html(proto(), *s, r, "t");
  EXPECT_NE(html.find("c0 &gt; 1 PUT /a  (2 bytes)"), std::string::npos);
  EXPECT_NE(html.find("<title>PUT /a  (2 bytes)\n"), std::string::npos) << html;
  // Without hooks the tooltip is the payload alone, as before.
  const std::string bare = sequence_chart_svg(Protocol{}, r, "t");
  EXPECT_EQ(bare.find("<title>PUT /a"), std::string::npos);
  EXPECT_EQ(bare.find("<title>{"), std::string::npos);
}

TEST(ViolationKey, IgnoresValuesKeepsKinds) {
  RunResult a = lost_update_run("v1");
  RunResult b = lost_update_run("other");
  b.detail =
      "VIOLATION at event 9: response 12 received on connection 3: {}\n"
      "No correct http server ... The explanations died because:\n"
      "  - response.status: expected 201, observed 412 (server state \"x y\")\n";
  b.verdict.reasons = {mismatch("response.status", "201", "412")};
  b.verdict.reasons[0].clause = "RFC 9110 §9.3.1";
  b.verdict.event_index = 5;
  EXPECT_FALSE(violation_key(proto(), a).empty());
  EXPECT_EQ(violation_key(proto(), a), violation_key(proto(), b));
  EXPECT_NE(violation_key(proto(), a).find("response GET 412"), std::string::npos)
      << violation_key(proto(), a);

  RunResult c = lost_update_run();
  c.detail =
      "VIOLATION ...:\n  - response.headers.etag: expected \"1\", observed \"2\"\n";
  c.verdict.reasons = {mismatch("response.headers.etag", "\"1\"", "\"2\"")};
  EXPECT_NE(violation_key(proto(), a), violation_key(proto(), c));
  // The key reads the reasons as data, not the text.
  EXPECT_EQ(violation_key(proto(), c).substr(violation_key(proto(), c).rfind('\n') + 1),
            "response.headers.etag");
  RunResult f = lost_update_run();
  f.verdict.reasons.push_back(oracle::Reason::generic(
      oracle::Reason::Kind::Contradiction, "response", "the response contradicts ..."));
  const std::string fk = violation_key(proto(), f);
  EXPECT_NE(fk.find("\ncontradiction"), std::string::npos) << fk;
  EXPECT_NE(fk.find("\nresponse.status"), std::string::npos) << fk;
  f.detail = "no reasons in the text";
  EXPECT_EQ(violation_key(proto(), f), fk);
  EXPECT_EQ(reason_keys(f), (std::set<std::string>{"contradiction", "response.status"}));
  f.outcome = RunResult::Outcome::LivenessViolation;
  EXPECT_TRUE(reason_keys(f).empty());
  RunResult d = lost_update_run();
  d.outcome = RunResult::Outcome::LivenessViolation;
  EXPECT_EQ(violation_key(proto(), d), "liveness");
  RunResult e;
  EXPECT_EQ(violation_key(proto(), e), "");
}

}  // namespace
}  // namespace dualfuzz::harness
