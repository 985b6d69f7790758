// The server's own resources (site.h) on a real server over TCP: the
// reference server holding files stored before the run (the tester's
// paths would be under a run namespace; these are not). Discovery follows
// the links; the seed scripts are judged, with no false alarm on the
// correct server and a violation on a planted bug.
#include "dualfuzz/campaign/site.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <fstream>
#include <thread>

#include "dualfuzz/campaign/fuzz_loop.h"
#include "dualfuzz/http/asio_server.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/http/server_core.h"

namespace dualfuzz::campaign {
namespace {
using namespace std::chrono_literals;

// The reference server on a port of its own, in a thread, until stopped.
void serve(std::stop_token stop, std::atomic<std::uint16_t>& port, std::string bug) {
  boost::asio::io_context io;
  auto core = http::HttpServerCore::make({.bug = bug});
  ASSERT_TRUE(core) << core.error();
  http::AsioHttpServer server(io, std::move(*core));
  auto bound = server.listen(0);
  ASSERT_TRUE(bound) << bound.error();
  port = *bound;
  while (!stop.stop_requested()) io.run_for(20ms);
}

harness::RunResult play(const Plugin& plugin, Target& t, const std::string& text,
                        bool oracle) {
  auto script = harness::parse_script(text, plugin.protocol.functions);
  EXPECT_TRUE(script) << script.error();
  if (!script) return {};
  harness::RunOptions o;
  o.oracle = oracle;  // (no run namespace: the site's own paths)
  harness::Executor ex(plugin.protocol, t.transport(), o);
  return ex.run(*script);
}

// Files put there before the run: a page linking the others.
const char* kBefore =
    R"(req 1 on c0: {"method":"PUT","path":"/index.html","body":"<html><a href=\"a.txt\">a</a> <img src=\"/sub/b.bin\"><a href=\"http://elsewhere.example/x\">x</a></html>"}
wait 1
req 3 on c0: {"method":"PUT","path":"/a.txt","body":"hello, world"}
wait 3
req 5 on c0: {"method":"PUT","path":"/sub/b.bin","body":"0123456789abcdef"}
wait 5
)";

struct Site {
  explicit Site(std::string bug = "") : thread(serve, std::ref(port), std::move(bug)) {
    while (port == 0) std::this_thread::sleep_for(5ms);
    auto t = Target::make(plugin, "127.0.0.1:" + std::to_string(port.load()));
    EXPECT_TRUE(t) << t.error();
    target = std::move(*t);
    EXPECT_FALSE(play(plugin, *target, kBefore, false).violation());
  }
  std::atomic<std::uint16_t> port = 0;
  Plugin plugin = http::plugin();
  std::jthread thread;
  std::unique_ptr<Target> target;
};

TEST(Site, DiscoveryFollowsLinksFromTheStart) {
  Site s;
  harness::Protocol p = s.plugin.protocol;
  p.site->start = {"/index.html"};
  auto found = discover_site(p, *s.target, {});
  ASSERT_TRUE(found) << found.error();
  std::vector<std::string> paths = *found;
  std::sort(paths.begin(), paths.end());
  // (The foreign link's path, /x, answered 404 there: not a resource.)
  EXPECT_EQ(paths, (std::vector<std::string>{"/a.txt", "/index.html", "/sub/b.bin"}));
  // Named paths are taken as given.
  auto named = discover_site(p, *s.target, {"/a.txt", "/nope"});
  ASSERT_TRUE(named) << named.error();
  EXPECT_EQ(named->size(), 2u);
}

TEST(Site, SeedScriptsJudgeTheFilesWithoutFalseAlarm) {
  Site s;
  const auto seeds =
      site_seeds(s.plugin.protocol, {"/index.html", "/a.txt", "/sub/b.bin", "/gone"}, 2);
  ASSERT_EQ(seeds.size(), 2u);
  std::size_t judged = 0;
  for (const std::string& text : seeds)
    for (int round = 0; round < 2; ++round) {  // (the second: answers must agree)
      const harness::RunResult r = play(s.plugin, *s.target, text, true);
      EXPECT_EQ(r.outcome, harness::RunResult::Outcome::Pass) << text << r.report();
      for (const auto& m : r.trace.messages())
        judged += !harness::is_request_label(m.label);
    }
  // Seven reads of each path, and an HTTP/1.0 GET and an offer of h2c per
  // script (the reference server ignores it), each answered.
  EXPECT_EQ(judged, 2u * (4u * 7u + 2u));
}

// A campaign started from the site's reads counts the answers judged per
// resource of the site: the paths it read, not a mutant's path ("/%2f")
// of a site read.
TEST(Site, AnswersAreCountedOnTheSitesOwnPathsOnly) {
  Site s;
  const std::vector<std::string> paths = {"/index.html", "/a.txt", "/sub/b.bin"};
  FuzzOptions o;
  o.target = "127.0.0.1:" + std::to_string(s.port.load());
  o.seconds = 4;
  o.keep_going = true;
  o.seeds = site_seeds(s.plugin.protocol, paths, 2);
  auto c = FuzzCampaign::make(s.plugin, o);
  ASSERT_TRUE(c) << c.error();
  std::mt19937_64 rng(3);
  const FuzzSummary sum = (*c)->run(rng, {});
  EXPECT_GT(sum.counters.executions, 50u);
  ASSERT_FALSE(sum.site_answers.empty());
  for (const auto& [path, n] : sum.site_answers)
    EXPECT_NE(std::find(paths.begin(), paths.end(), path), paths.end())
        << path << ": " << n;
}

TEST(Site, A304ToAStaleValidatorIsAViolation) {
  const char* stale =
      R"(req 1 on c0: {"method":"GET","path":"/a.txt","site":true}
wait 1
req 3 on c0: {"method":"GET","path":"/a.txt","site":true,"headers":{"if-none-match":"\"no-such-tag\""}}
)";
  Site correct;
  EXPECT_EQ(play(correct.plugin, *correct.target, stale, true).outcome,
            harness::RunResult::Outcome::Pass);
  Site buggy("wrong-304");
  const harness::RunResult r = play(buggy.plugin, *buggy.target, stale, true);
  EXPECT_EQ(r.outcome, harness::RunResult::Outcome::ModelViolation) << r.report();
}

TEST(Site, PathsFileIsReadStrictly) {
  const std::string file = testing::TempDir() + "/dualfuzz-paths.txt";
  {
    std::ofstream out(file);
    out << "# the site\n/a.txt\n\n  /sub/b.bin  # a comment\n";
  }
  auto paths = read_site_paths(file);
  ASSERT_TRUE(paths) << paths.error();
  EXPECT_EQ(*paths, (std::vector<std::string>{"/a.txt", "/sub/b.bin"}));
  {
    std::ofstream out(file);
    out << "a.txt\n";
  }
  EXPECT_FALSE(read_site_paths(file));
  EXPECT_FALSE(read_site_paths(file + ".missing"));
}

}  // namespace
}  // namespace dualfuzz::campaign
