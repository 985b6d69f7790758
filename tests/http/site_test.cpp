// Resources the model has not made: the site's own (a path the server held
// before the run, request IR "site": true) and what a POST made of a path.
// Unknown but fixed: the first answer that shows one binds its content, and
// every later answer must agree; its validators may change (a touched file),
// but each answer must agree with the validators it shows. Both ways.
#include "dualfuzz/http/site.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/script.h"
#include "dualfuzz/http/model.h"
#include "dualfuzz/http/protocol.h"
#include "dualfuzz/oracle/oracle.h"
#include "messages.h"

namespace dualfuzz::http {
namespace {
using oracle::Event;
using oracle::Json;
using test::req;
using test::resp;

Json site(Json q) {
  q["site"] = true;
  return q;
}
Json tag(const char* t) { return {{"etag", t}}; }

bool accepted(const std::vector<std::pair<Json, Json>>& exchanges) {
  const std::vector<Event> t = test::one_connection(exchanges);
  const oracle::Verdict v = test::judged(server_model(), t);
  // (One connection: the weaker consistency judges it alike.)
  const oracle::Verdict interval = test::judged(server_model(Consistency::Interval), t);
  EXPECT_EQ(interval.accepted(), v.accepted()) << interval.explanation;
  return v.accepted();
}

TEST(HttpSite, TheFirstAnswerBindsTheContent) {
  EXPECT_TRUE(accepted({{site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")},
                        {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")}}));
  // Nobody wrote it: other bytes are a violation.
  EXPECT_FALSE(accepted({{site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")},
                         {site(req("GET", "/f")), resp(200, tag("\"1\""), "abd")}}));
  // HEAD shows the validators only; the GET after it binds the content.
  EXPECT_TRUE(accepted({{site(req("HEAD", "/f")), resp(200, tag("\"1\""))},
                        {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")}}));
  // Without the site mark, the path is the run's own: nothing is there.
  EXPECT_FALSE(accepted({{req("GET", "/f"), resp(200, tag("\"1\""), "abc")}}));
}

// A server's bytes are any bytes: a verdict on content that is not UTF-8 (a
// binary file, h2o's 200 to a weak If-None-Match of large.bin) is explained,
// not an internal error of the oracle's printing (it threw json's
// type_error 316).
TEST(HttpSite, AVerdictOnBinaryContentIsExplained) {
  const std::string binary = "X\xa8\x34\xff\x12";
  const std::vector<Event> t =
      test::one_connection({{site(req("HEAD", "/f")), resp(200, tag("\"1\""))},
                            {site(req("GET", "/f", {{"if-none-match", "W/\"1\""}})),
                             resp(200, tag("\"1\""), binary.c_str())}});
  oracle::Verdict v;
  ASSERT_NO_THROW(v = test::judged(server_model(), t));
  EXPECT_FALSE(v.accepted());
  EXPECT_NE(v.explanation.find("13.1.2"), std::string::npos) << v.explanation;
  EXPECT_NE(v.explanation.find("\xEF\xBF\xBD"), std::string::npos) << v.explanation;
}

// A write to a path that is not plain may land on any path
// (ServerModel::reach): each path's partition gets it as a foreign request.
// A partition that has not served a request of its own yet (a site file
// whose only GET went unanswered on a connection the server closed) learns
// nothing from it of what the path is: refused, the write changed nothing
// and the file is still the site's, bound by its first answer; done, the
// path is unknown. Found on nginx: a malformed request's 400 closed the
// connection with a GET of /medium.txt unanswered, a PUT of
// "dualfuzz.invalid:80" got 404, and the file's next GET (200) was
// reported as a read of a missing path.
TEST(HttpSite, AnotherPathsWriteLeavesAFileNotYetServedForItsOwnRequestsToTell) {
  auto judged = [](int put_status, const char* second_body) {
    std::vector<Event> t = {
        Event::request(1, 1, site(req("GET", "/f"))),
        Event::close(1),
        Event::request(2, 3, req("PUT", "a.invalid:80", {}, "x")),
        Event::response(2, 4, resp(put_status)),
        Event::request(2, 5, site(req("GET", "/f"))),
        Event::response(2, 6, resp(200, tag("\"1\""), "abc")),
        Event::request(2, 7, site(req("GET", "/f"))),
        Event::response(2, 8, resp(200, tag("\"1\""), second_body)),
    };
    return test::judged(server_model(), t);
  };
  EXPECT_TRUE(judged(404, "abc").accepted()) << judged(404, "abc").explanation;
  // Refused, the write left the file as it was: still fixed by its first answer.
  EXPECT_FALSE(judged(404, "abd").accepted());
  // Done, it may have written the file.
  EXPECT_TRUE(judged(204, "abd").accepted()) << judged(204, "abd").explanation;
}

// A recorded nginx trace (tests/http/data/nginx-reset-reads.jsonl): reads of
// the site's files pipelined behind `OPTIONS *`, which nginx refuses with
// close; a GET of /medium.txt goes unanswered on the closed connection while
// another connection reads the same file, then a new connection reads it
// again, pipelined. Whether the server processed the unanswered GET is not
// observable (a read binds only what its answer would show), so the oracle
// does not try it both ways: within a fuzz execution's budget (5,000
// configurations) the trace was Inconclusive after 5,013, and it is decided
// now. Both ways: nginx's 405 to OPTIONS without Allow (RFC 9110 §15.5.6)
// is found; with an Allow it is accepted.
TEST(HttpSite, AnUnansweredReadOfAClosedConnectionIsNotTriedBothWays) {
  std::ifstream in(DUALFUZZ_SOURCE_DIR "/tests/http/data/nginx-reset-reads.jsonl");
  ASSERT_TRUE(in) << "tests/http/data/nginx-reset-reads.jsonl";
  std::vector<Event> recorded;
  for (std::string line; std::getline(in, line);)
    if (auto e = Event::from_json(Json::parse(line))) recorded.push_back(*e);
  ASSERT_EQ(recorded.size(), 33u);
  const oracle::OracleOptions fuzz = harness::RunOptions{}.oracle_options;
  for (const bool allow : {false, true}) {
    std::vector<Event> t = recorded;
    if (allow) {
      Json last = t.back().payload();
      ASSERT_EQ(last["status"], 405);
      last["headers"]["allow"] = "GET, HEAD";
      last["allow"] = {{"present", true}};  // (as the codec's IR has it)
      t.back() = Event::response(t.back().conn, t.back().label, last);
    }
    oracle::Oracle o(server_model(), fuzz);
    for (const Event& e : t)
      if (!o.observe(e).accepted()) break;
    EXPECT_EQ(o.verdict().status,
              allow ? oracle::Verdict::Status::Accept : oracle::Verdict::Status::Reject)
        << o.verdict().explanation;
    if (!allow) {
      EXPECT_NE(o.verdict().explanation.find("allow"), std::string::npos);
    }
    EXPECT_LT(o.stats().explored, fuzz.limits.max_explored);
  }
}

TEST(HttpSite, ValidatorsMayChangeButEachAnswerAgreesWithItsOwn) {
  // A new ETag for the same bytes (the file was touched) is no violation.
  EXPECT_TRUE(accepted({{site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")},
                        {site(req("GET", "/f")), resp(200, tag("\"2\""), "abc")}}));
  const std::pair<Json, Json> shown = {site(req("GET", "/f")),
                                       resp(200, tag("\"1\""), "abc")};
  // 304 exactly when the tag it shows matches (RFC 9110 §13.1.2).
  EXPECT_TRUE(accepted(
      {shown,
       {site(req("GET", "/f", {{"if-none-match", "\"1\""}})), resp(304, tag("\"1\""))}}));
  EXPECT_FALSE(accepted(
      {shown,
       {site(req("GET", "/f", {{"if-none-match", "\"0\""}})), resp(304, tag("\"1\""))}}));
  EXPECT_FALSE(accepted({shown,
                         {site(req("GET", "/f", {{"if-none-match", "\"1\""}})),
                          resp(200, tag("\"1\""), "abc")}}));
  // A changed tag, and the content it shows is still the first one's.
  EXPECT_TRUE(accepted({shown,
                        {site(req("GET", "/f", {{"if-none-match", "\"1\""}})),
                         resp(200, tag("\"2\""), "abc")}}));
  EXPECT_FALSE(accepted({shown,
                         {site(req("GET", "/f", {{"if-none-match", "\"1\""}})),
                          resp(200, tag("\"2\""), "xyz")}}));
}

TEST(HttpSite, MissingAndRefusedResources) {
  // 404 binds "nothing there": nobody made it since.
  EXPECT_TRUE(accepted(
      {{site(req("GET", "/f")), resp(404)}, {site(req("GET", "/f")), resp(404)}}));
  EXPECT_FALSE(accepted({{site(req("GET", "/f")), resp(404)},
                         {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")}}));
  // A refusal shows nothing; the next 200 still binds.
  EXPECT_TRUE(accepted({{site(req("GET", "/f")), resp(403)},
                        {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")},
                        {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")}}));
}

TEST(HttpSite, WhatAPostMadeIsFixedOnceShown) {
  const std::pair<Json, Json> post = {req("POST", "/a", {}, "x"), resp(201)};
  EXPECT_TRUE(accepted({post,
                        {req("GET", "/a"), resp(200, tag("\"1\""), "x")},
                        {req("GET", "/a"), resp(200, tag("\"1\""), "x")}}));
  // Later answers agree with one another (RFC 9110 §9.3.3 leaves the effect
  // to the resource, not a change between two reads).
  EXPECT_FALSE(accepted({post,
                         {req("GET", "/a"), resp(200, tag("\"1\""), "x")},
                         {req("GET", "/a"), resp(200, tag("\"1\""), "y")}}));
  // Another POST may change it again.
  EXPECT_TRUE(accepted({post,
                        {req("GET", "/a"), resp(200, tag("\"1\""), "x")},
                        {req("POST", "/a", {}, "y"), resp(200)},
                        {req("GET", "/a"), resp(200, tag("\"2\""), "xy")}}));
}

TEST(HttpSite, OptionsOnTheSiteIsJudged) {
  // nginx serving a static file: OPTIONS -> 405 without Allow (§15.5.6 MUST).
  const Json allow = {{"allow", "GET, HEAD"}};
  EXPECT_TRUE(accepted({{site(req("OPTIONS", "/f")), resp(405, allow)}}));
  EXPECT_FALSE(accepted({{site(req("OPTIONS", "/f")), resp(405)}}));
  EXPECT_TRUE(accepted({{site(req("OPTIONS", "/f")), resp(200, allow)},
                        {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")}}));
}

TEST(HttpSite, TheLeniencyOfAnyPathHoldsOnTheSite) {
  // Chunked content may be refused with 411 (§15.5.12), an If header the
  // model does not follow with 412 (RFC 4918 §10.4), on the site as anywhere.
  Json chunked = site(req("OPTIONS", "/f", {{"transfer-encoding", "chunked"}}));
  EXPECT_TRUE(accepted({{chunked, resp(411)}}));
  EXPECT_TRUE(accepted({{site(req("GET", "/f", {{"if", "(<urn:x>)"}})), resp(412)},
                        {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")}}));
  // Still judged: a 404 is no refusal there (the file is missing), and a
  // 412 without an If header is no answer to a plain GET.
  EXPECT_FALSE(accepted({{site(req("GET", "/f")), resp(404)},
                         {site(req("OPTIONS", "/f")), resp(200, {{"allow", "GET"}})},
                         {site(req("GET", "/f")), resp(200, tag("\"1\""), "abc")}}));
  EXPECT_FALSE(accepted({{site(req("GET", "/f")), resp(412)}}));
}

TEST(HttpSite, RangesOfShownBytesAreSlicesOfThem) {
  // Once a 200 showed the bytes, the model reads them (oracle::resolve): a
  // 206 is their slice with a Content-Range saying so (RFC 9110 §14.4,
  // §15.3.7), a HEAD's Content-Length their length (§8.6).
  const std::pair<Json, Json> shown = {site(req("GET", "/f")),
                                       resp(200, tag("\"1\""), "abcdef")};
  auto part = [](const char* range, const char* body) {
    Json h = tag("\"1\"");
    h["content-range"] = range;
    return resp(206, h, body);
  };
  const Json ranged = site(req("GET", "/f", {{"range", "bytes=1-2"}}));
  EXPECT_TRUE(accepted({shown, {ranged, part("bytes 1-2/6", "bc")}}));
  EXPECT_FALSE(accepted({shown, {ranged, part("bytes 1-2/6", "xy")}}));
  // Another part than asked for is a SHOULD (§14.2; HttpAssumptions.
  // APartOtherThanAskedForBreaksAShould); its bytes and length are MUSTs.
  EXPECT_TRUE(accepted({shown, {ranged, part("bytes 0-1/6", "ab")}}));
  EXPECT_FALSE(accepted({shown, {ranged, part("bytes 0-1/6", "bc")}}));
  EXPECT_FALSE(accepted({shown, {ranged, part("bytes 1-2/7", "bc")}}));
  EXPECT_FALSE(accepted({shown, {ranged, resp(200, tag("\"1\""), "bc")}}));
  // With a new tag (a touched file) the slice is still of the same bytes.
  Json retagged = tag("\"2\"");
  retagged["content-range"] = "bytes 1-2/6";
  EXPECT_TRUE(accepted({shown, {ranged, resp(206, retagged, "bc")}}));
  // Past the end: 416 (§15.5.17), not a part.
  const Json past = site(req("GET", "/f", {{"range", "bytes=10-"}}));
  EXPECT_TRUE(accepted({shown, {past, resp(416, {{"content-range", "bytes */6"}})}}));
  EXPECT_FALSE(accepted({shown, {past, part("bytes 10-10/6", "")}}));
  // HEAD after the bytes were shown: a Content-Length must be theirs.
  EXPECT_TRUE(accepted({shown, {site(req("HEAD", "/f")), resp(200, tag("\"1\""))}}));
  Json six = tag("\"1\""), five = tag("\"1\"");
  six["content-length"] = "6";
  five["content-length"] = "5";
  EXPECT_TRUE(accepted({shown, {site(req("HEAD", "/f")), resp(200, six)}}));
  EXPECT_FALSE(accepted({shown, {site(req("HEAD", "/f")), resp(200, five)}}));
}

TEST(HttpSite, RangesOfUnreadBytesAreNotSliced) {
  // Only validators were shown (a HEAD): the content is still a variable,
  // so a 206's part is not checked (its validators are); a later 200 binds
  // the bytes, and the ranges after it are slices.
  const std::pair<Json, Json> head = {site(req("HEAD", "/f")), resp(200, tag("\"1\""))};
  Json h = tag("\"1\"");
  h["content-range"] = "bytes 1-2/6";
  const Json ranged = site(req("GET", "/f", {{"range", "bytes=1-2"}}));
  EXPECT_TRUE(accepted({head, {ranged, resp(206, h, "xy")}}));
  EXPECT_TRUE(accepted({head,
                        {ranged, resp(206, h, "xy")},
                        {site(req("GET", "/f")), resp(200, tag("\"1\""), "abcdef")},
                        {ranged, resp(206, h, "bc")}}));
  EXPECT_FALSE(accepted({head,
                         {site(req("GET", "/f")), resp(200, tag("\"1\""), "abcdef")},
                         {ranged, resp(206, h, "xy")}}));
}

TEST(HttpSiteLinks, PagesSitemapsAndLocation) {
  const Json page =
      resp(200, {{"content-type", "text/html"}},
           "<html><body><a href=\"a.txt?x=1#top\">a</a><img src=\"/img/b.png\">"
           "<a href=\"https://other.example/c\">c</a><a href=\"mailto:x@y\">m</a>"
           "<a href=\"//cdn.example/d\">d</a><a href=\"a.txt\">again</a><p>unclosed");
  EXPECT_EQ(site_links(page, "/dir/index.html"),
            (std::vector<std::string>{"/dir/a.txt", "/img/b.png", "/c"}));
  const Json sitemap =
      resp(200, {},
           "<?xml version=\"1.0\"?><urlset><url><loc>http://h/x.html</loc></url>"
           "<url><loc> /y.txt </loc></url></urlset>");
  EXPECT_EQ(site_links(sitemap), (std::vector<std::string>{"/x.html", "/y.txt"}));
  EXPECT_EQ(site_links(resp(301, {{"location", "/moved"}})),
            (std::vector<std::string>{"/moved"}));
  // Garbage is no link, and never a crash.
  EXPECT_TRUE(site_links(resp(200, {}, "\x00<<a href=>>\xff")).empty());
  EXPECT_TRUE(site_links(Json("not a response")).empty());
  EXPECT_EQ(site_links(page, "/", 1).size(), 1u);
}

TEST(HttpSiteScript, ParsesAndReadsOnlyTheSite) {
  const harness::Protocol http = protocol();
  const std::string text = site_script({"/a.txt", "/b.bin"});
  auto script = harness::parse_script(text, http.functions);
  ASSERT_TRUE(script) << script.error() << "\n" << text;
  std::size_t reads = 0;
  for (const auto& step : script->steps)
    if (const auto* r = std::get_if<harness::RequestStep>(&step)) {
      ++reads;
      const harness::Jexp* site = r->body.find("site");
      ASSERT_TRUE(site);
      EXPECT_EQ(site->value(), true);
      const std::string m = harness::string_field(r->body, "method");
      EXPECT_TRUE(m == "GET" || m == "HEAD" || m == "OPTIONS") << m;
    }
  // Seven reads a path, and once a run an HTTP/1.0 GET and an offer of h2c.
  EXPECT_EQ(reads, 16u);
  EXPECT_NE(text.find("\"version\":\"HTTP/1.0\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"upgrade\":\"h2c\""), std::string::npos) << text;
  // --shared-server: every read marked so, none left as the fixed kind.
  const std::string shared = site_script({"/a.txt"}, /*shared=*/true);
  EXPECT_EQ(shared.find("\"site\":true"), std::string::npos) << shared;
  EXPECT_NE(shared.find("\"site\":\"shared\""), std::string::npos) << shared;
}

}  // namespace
}  // namespace dualfuzz::http
