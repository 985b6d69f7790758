// The reference server, played through the executor and judged by the
// oracle: the correct server passes every script; each planted bug is caught
// by its script (no false alarm, no missed bug on these inputs).
#include <gtest/gtest.h>

#include <map>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/http/in_process_transport.h"
#include "dualfuzz/http/protocol.h"

namespace dualfuzz::http {
namespace {
using harness::RunResult;

const std::string kPutA = R"(req 1 on c0: {"method":"PUT","path":"/a","body":"x"}
wait 1
)";
const std::string kPut10 =
    R"(req 1 on c0: {"method":"PUT","path":"/a","body":"0123456789"}
wait 1
)";
const std::string kRevealA3 = R"(req 3 on c0: {"method":"GET","path":"/a"}
wait 3
)";

// A script per planted bug that exposes it.
const std::map<std::string, std::string>& bug_scripts() {
  static const std::map<std::string, std::string> m = {
      {"etag-reuse",
       kPutA + kRevealA3 + R"(req 5 on c0: {"method":"PUT","path":"/a","body":"y"}
req 7 on c0: {"method":"GET","path":"/a"})"},
      {"if-match-weak",
       kPutA + kRevealA3 +
           R"(req 5 on c0: {"method":"PUT","path":"/a","body":"y","headers":{"if-match":4.(this@"headers"@"etag").weak}})"},
      {"if-match-skipped", kPutA + R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y"}
req 5 on c0: {"method":"GET","path":"/a"}
wait 5
req 7 on c0: {"method":"PUT","path":"/a","body":"z","headers":{"if-match":"\"nope\""}})"},
      {"if-none-match-star-ignored",
       kPutA +
           R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y","headers":{"if-none-match":"*"}})"},
      {"wrong-304",
       kPutA + kRevealA3 +
           R"(req 5 on c0: {"method":"GET","path":"/a","headers":{"if-none-match":"\"zzz\""}})"},
      {"ims-wrong-304",
       kPutA + kRevealA3 +
           R"(req 5 on c0: {"method":"GET","path":"/a","headers":{"if-modified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}})"},
      {"ius-ignored",
       kPutA + kRevealA3 +
           R"(req 5 on c0: {"method":"PUT","path":"/a","body":"y","headers":{"if-unmodified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}})"},
      {"412-on-match", kPutA + R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y"}
req 5 on c0: {"method":"PUT","path":"/a","body":"z"}
req 7 on c0: {"method":"GET","path":"/a"}
wait 7
req 9 on c0: {"method":"PUT","path":"/a","body":"w","headers":{"if-match":8.(this@"headers"@"etag").id}})"},
      {"lost-update", kPutA + R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y"}
req 5 on c0: {"method":"PUT","path":"/a","body":"z"}
req 7 on c0: {"method":"GET","path":"/a"})"},
      {"stale-read", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"abcd"}
req 3 on c0: {"method":"PUT","path":"/a","body":"efgh"}
req 5 on c0: {"method":"GET","path":"/a"})"},
      {"delete-noop", kPutA + R"(req 3 on c0: {"method":"DELETE","path":"/a"}
req 5 on c0: {"method":"GET","path":"/a"})"},
      {"wrong-path", R"(req 1 on c0: {"method":"PUT","path":"/a/b","body":"x"}
req 3 on c0: {"method":"GET","path":"/a/b"})"},
      {"truncate-body", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"123456789"}
req 3 on c0: {"method":"GET","path":"/a"})"},
      {"lm-backwards",
       kPutA + kRevealA3 + R"(req 5 on c0: {"method":"PUT","path":"/a","body":"y"}
req 7 on c0: {"method":"PUT","path":"/a","body":"z"}
req 9 on c0: {"method":"GET","path":"/a"})"},
      {"not-found-403", R"(req 1 on c0: {"method":"GET","path":"/missing"})"},
      {"create-204", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"x"})"},
      {"length-off-by-one", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"123456"}
req 3 on c0: {"method":"GET","path":"/a"})"},
      {"pipeline-reorder", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"x"}
req 3 on c0: {"method":"GET","path":"/missing"})"},
      {"pipeline-drop", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"x"}
req 3 on c0: {"method":"GET","path":"/a"})"},
      {"head-with-body", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"abc"}
req 3 on c0: {"method":"HEAD","path":"/a"}
req 5 on c0: {"method":"GET","path":"/b"})"},
      {"chunked-decimal",
       R"(req 1 on c0: {"method":"PUT","path":"/a","body":"0123456789abcdef"}
req 3 on c0: {"method":"GET","path":"/a"})"},
      {"if-match-first-only",
       kPutA +
           R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y","headers":{"if-match":"\"9\", \"1\""}})"},
      {"if-none-match-strong",
       kPutA +
           R"(req 3 on c0: {"method":"GET","path":"/a","headers":{"if-none-match":"W/\"1\""}})"},
      {"ius-after-if-match",
       kPutA +
           R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y","headers":{"if-match":"\"1\"","if-unmodified-since":"Mon, 01 Jan 2001 00:00:00 GMT"}})"},
      {"delete-prefix", kPutA + R"(req 3 on c0: {"method":"PUT","path":"/a/b","body":"y"}
req 5 on c0: {"method":"DELETE","path":"/a"}
req 7 on c0: {"method":"GET","path":"/a/b"})"},
      {"path-case-folded", R"(req 1 on c0: {"method":"PUT","path":"/LongName1","body":"x"}
req 3 on c0: {"method":"GET","path":"/longname1"})"},
      {"etag-from-length", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"hello"}
req 3 on c0: {"method":"PUT","path":"/a","body":"world"})"},
      {"deep-404", R"(req 1 on c0: {"method":"PUT","path":"/a/b/c","body":"x"}
req 3 on c0: {"method":"GET","path":"/a/b/c"})"},
      {"tombstone-200", kPutA + R"(req 3 on c0: {"method":"DELETE","path":"/a"}
req 5 on c0: {"method":"GET","path":"/a"})"},
      {"racy-if-match",
       kPutA +
           R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y","headers":{"if-match":2.(this@"headers"@"etag").id}}
req 5 on c1: {"method":"PUT","path":"/a","body":"z","headers":{"if-match":2.(this@"headers"@"etag").id}})"},
      {"torn-write", kPutA + R"(req 3 on c0: {"method":"PUT","path":"/a","body":"y"}
req 5 on c1: {"method":"GET","path":"/a"})"},
      {"two-step-writes", R"(req 1 on c0: {"method":"PUT","path":"/a","body":"x"}
req 3 on c1: {"method":"PUT","path":"/a","body":"y"})"},
      {"range-end-exclusive",
       kPut10 +
           R"(req 3 on c0: {"method":"GET","path":"/a","headers":{"range":"bytes=2-4"}})"},
      {"range-unsatisfiable-206",
       kPut10 +
           R"(req 3 on c0: {"method":"GET","path":"/a","headers":{"range":"bytes=10-"}})"},
      {"range-suffix-from-start",
       kPut10 +
           R"(req 3 on c0: {"method":"GET","path":"/a","headers":{"range":"bytes=-3"}})"},
      {"content-range-total",
       kPut10 +
           R"(req 3 on c0: {"method":"GET","path":"/a","headers":{"range":"bytes=2-4"}})"},
      {"if-range-stale",
       kPut10 + R"(req 3 on c0: {"method":"PUT","path":"/a","body":"abcdefghij"}
req 5 on c0: {"method":"GET","path":"/a","headers":{"range":"bytes=2-4","if-range":2.(this@"headers"@"etag").id}})"},
      {"if-range-weak",
       kPut10 +
           R"(req 3 on c0: {"method":"GET","path":"/a","headers":{"range":"bytes=2-4","if-range":2.(this@"headers"@"etag").weak}})"},
      {"head-content-length", kPut10 + R"(req 3 on c0: {"method":"HEAD","path":"/a"})"},
      {"head-etag", kPut10 + R"(req 3 on c0: {"method":"HEAD","path":"/a"}
req 5 on c0: {"method":"GET","path":"/a"})"},
      {"head-range",
       kPut10 +
           R"(req 3 on c0: {"method":"HEAD","path":"/a","headers":{"range":"bytes=0-1"}})"},
      {"allow-missing", R"(req 1 on c0: {"method":"PATCH","path":"/a"})"},
      {"host-unchecked",
       R"(req 1 on c0: {"method":"GET","path":"/a","headers":{"host":"a b"}})"},
      {"absolute-form-path",
       kPutA +
           R"(req 3 on c0: {"method":"GET","path":"/a","malformed":"absolute-form"})"},
      {"wrong-connection", R"(req 1 on c0: {"method":"GET","path":"/x"}
wait 1
req 3 on c1: {"method":"GET","path":"/x"}
wait 3
req 5 on c2: {"method":"GET","path":"/x"})"},
  };
  return m;
}

// Planted bugs that are no violation for just any server: a 403 for a
// missing resource is a refusal any server may send (RFC 9110 §15.5.4), so
// only a store the user says takes requests (--assume writable) breaks a
// rule with it.
bool needs_writable(const std::string& bug) { return bug == "not-found-403"; }

RunResult play(const std::string& bug, const std::string& text, bool writable = false) {
  static const harness::Protocol any = http::protocol();
  static const harness::Protocol store = [] {
    harness::Protocol p = http::protocol();
    p.assumptions.front().apply(p);  // "writable"
    return p;
  }();
  const harness::Protocol& http = writable ? store : any;
  auto script = harness::parse_script(text, http.functions);
  EXPECT_TRUE(script) << script.error();
  if (!script) return {};
  HttpServerCore server({bug});
  InProcessTransport t(server);
  harness::RunOptions opts;
  opts.check_liveness = true;
  harness::Executor ex(http, t, opts);
  return ex.run(*script);
}

TEST(ReferenceServer, EveryPlantedBugHasAScript) {
  EXPECT_GE(planted_bugs().size(), 20u);
  for (const auto& b : planted_bugs()) EXPECT_TRUE(bug_scripts().count(b.name)) << b.name;
}

TEST(ReferenceServer, CorrectServerPassesEveryScript) {
  for (bool writable : {false, true})
    for (const auto& [name, text] : bug_scripts()) {
      RunResult r = play("", text, writable);
      EXPECT_EQ(r.outcome, RunResult::Outcome::Pass) << name << "\n" << r.report();
    }
}

TEST(ReferenceServer, EachPlantedBugIsCaught) {
  for (const auto& [name, text] : bug_scripts()) {
    // Caught when the model assumes a writable store; and for any server,
    // but for the bugs that are a refusal any server may send.
    RunResult store = play(name, text, /*writable=*/true);
    EXPECT_TRUE(store.violation()) << name << "\n" << store.report();
    RunResult any = play(name, text);
    EXPECT_EQ(any.violation(), !needs_writable(name)) << name << "\n" << any.report();
  }
}

TEST(ReferenceServer, GarbageAndUnknownBugs) {
  EXPECT_FALSE(HttpServerCore::make({"no-such-bug"}));
  HttpServerCore s;
  s.on_data(1, "NONSENSE\r\n\r\n");
  auto out = s.poll();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].bytes.rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_TRUE(out[0].close_after);
}

}  // namespace
}  // namespace dualfuzz::http
