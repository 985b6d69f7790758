// mutator::relinked: literals an earlier answer carried become references
// to it; the script's own choices stay literals.
#include "dualfuzz/mutator/relink.h"

#include <gtest/gtest.h>

#include "dualfuzz/http/protocol.h"

namespace dualfuzz::mutator {
namespace {

using harness::Json;
using harness::LabelledTrace;

harness::FunctionRegistry http_functions() {
  harness::FunctionRegistry f = harness::FunctionRegistry::with_builtins();
  http::add_functions(f);
  return f;
}

harness::Jexp body(const std::string& text, const harness::FunctionRegistry& fns) {
  auto e = harness::parse_jexp(text, fns);
  EXPECT_TRUE(e) << e.error();
  return *e;
}

constexpr harness::Label kSentAs = 5;  // the request relinked

LabelledTrace two_answers() {
  LabelledTrace t;
  t.add_request(1, 0, {{"method", "PUT"}, {"path", "/a"}});
  t.add_response(
      1, 0,
      {{"status", 201},
       {"body", "created and long"},
       {"headers",
        {{"etag", "\"tag-one\""}, {"date", "Tue, 01 Dec 2026 02:02:41 GMT"}}}});
  t.add_request(3, 0, {{"method", "GET"}, {"path", "/a"}});
  t.add_response(3, 0, {{"status", 200}, {"headers", {{"etag", "\"tag-one\""}}}});
  t.add_request(kSentAs, 0, {{"method", "PUT"}, {"path", "/a"}});
  return t;
}

TEST(Relink, ATagAnAnswerCarriedBecomesAReferenceToTheLatest) {
  const auto fns = http_functions();
  const auto out = relinked(body(R"({"headers":{"if-match":"\"tag-one\""}})", fns),
                            two_answers(), kSentAs, fns);
  EXPECT_EQ(harness::print_jexp(out),
            R"({"headers":{"if-match":4.(this@"headers"@"etag").id}})");
}

TEST(Relink, AFunctionOfTheValueIsFound) {
  const auto fns = http_functions();
  // The weak form of the tag; the answer's date in the obsolete asctime
  // format, and one second later.
  const auto out =
      relinked(body(R"({"headers":{"if-none-match":"W/\"tag-one\"",)"
                    R"("if-modified-since":"Tue Dec  1 02:02:41 2026",)"
                    R"("if-unmodified-since":"Tue, 01 Dec 2026 02:02:42 GMT"}})",
                    fns),
               two_answers(), kSentAs, fns);
  EXPECT_EQ(harness::print_jexp(out),
            R"({"headers":{"if-modified-since":2.(this@"headers"@"date").asctime,)"
            R"("if-none-match":4.(this@"headers"@"etag").weak,)"
            R"("if-unmodified-since":2.(this@"headers"@"date").later}})");
}

TEST(Relink, TheScriptsOwnChoicesStayLiterals) {
  const auto fns = http_functions();
  // A short value, a value no answer carried, a top-level field's (a body)
  // and one only a request carried.
  for (const char* text :
       {R"({"headers":{"if-match":"*"}})", R"({"headers":{"if-match":"\"never-sent\""}})",
        R"({"body":"created and long"})", R"({"headers":{"x":"\"tag-one\""}})"}) {
    LabelledTrace t = two_answers();
    if (std::string(text).find("x\"") != std::string::npos) {
      t = LabelledTrace{};
      t.add_request(1, 0, {{"headers", {{"x", "\"tag-one\""}}}});
      t.add_request(kSentAs, 0, {});
    }
    const harness::Jexp in = body(text, fns);
    EXPECT_EQ(relinked(in, t, kSentAs, fns), in) << text;
  }
}

}  // namespace
}  // namespace dualfuzz::mutator
