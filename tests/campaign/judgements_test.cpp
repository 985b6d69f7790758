// Judgements as a plug-in's data (campaign/judgements.h): a finding is
// covered by a judgement of its server when one of its patterns matches the
// finding's identity, and by no other; a malformed file is an error naming
// the judgement; the HTTP plug-in's own file is well formed, and each of its
// judgements names a clause and the servers it was checked on.
#include "dualfuzz/campaign/judgements.h"

#include <gtest/gtest.h>

#include "dualfuzz/http/plugin.h"

namespace dualfuzz::campaign {
namespace {

constexpr const char* kTwo = R"([
  {"id": "405-without-allow", "verdict": "server bug", "clause": "RFC 9110 §15.5.6",
   "why": "...", "servers": ["nginx-static", "rclone-http"],
   "identities": ["model: * -> 4xx | response.allow: value expected, absent observed*"]},
  {"id": "ius-ignored", "verdict": "server bug", "clause": "RFC 9110 §13.1.4",
   "why": "...", "servers": ["lighttpd-static"],
   "identities": ["model: GET if-unmodified-since {if-unmodified-since:*} -> 2xx | response.status: 412 expected, 2xx observed (RFC 9110 §13.1.4) | *"]}
])";

TEST(Judgements, AFindingIsCoveredByAJudgementOfItsServerOnly) {
  auto j = Judgements::parse(kTwo, "test");
  ASSERT_TRUE(j) << j.error();
  const std::string no_allow =
      "model: OPTIONS -> 4xx | response.allow: value expected, absent observed (RFC 9110 "
      "§15.5.6) | alone";
  const std::string ius =
      "model: GET if-unmodified-since {if-unmodified-since:other} -> 2xx | "
      "response.status: 412 expected, 2xx observed (RFC 9110 §13.1.4) | with PUT";
  ASSERT_NE(j->match(no_allow, "nginx-static"), nullptr);
  EXPECT_EQ(j->match(no_allow, "nginx-static")->id, "405-without-allow");
  EXPECT_EQ(j->match(no_allow, "lighttpd-static"), nullptr);
  EXPECT_NE(j->match(ius, "lighttpd-static"), nullptr);
  EXPECT_NE(j->match(ius), nullptr) << "any server";
  // Another defect of a similar request is not covered: If-Match ignored.
  EXPECT_EQ(j->match("model: GET if-match {if-match:other} -> 2xx | response.status: 412 "
                     "expected, 2xx observed (RFC 9110 §13.1.1) | with PUT"),
            nullptr);
  EXPECT_EQ((std::vector<std::string>{"nginx-static", "rclone-http", "lighttpd-static"}),
            j->servers());
  // As a baseline: the server's patterns, named by judgement.
  auto b = j->baseline("lighttpd-static", "judged:lighttpd-static");
  ASSERT_TRUE(b) << b.error();
  EXPECT_TRUE(b->contains(ius));
  EXPECT_FALSE(b->contains(no_allow));
  EXPECT_FALSE(b->none());
  ASSERT_EQ(b->entries().size(), 1u);
  EXPECT_EQ(b->entries()[0].signature, "judged: ius-ignored (RFC 9110 §13.1.4)");
  auto unknown = j->baseline("apache2-static", "x");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("nginx-static, rclone-http, lighttpd-static"),
            std::string::npos)
      << unknown.error();
  // Merged into a recorded baseline, both hold.
  auto recorded = Baseline::parse("model: PUT -> 2xx | x | alone\n", "rec");
  ASSERT_TRUE(recorded);
  recorded->merge(*b);
  EXPECT_TRUE(recorded->contains("model: PUT -> 2xx | x | alone"));
  EXPECT_TRUE(recorded->contains(ius));
  EXPECT_FALSE(recorded->contains(no_allow));
}

TEST(Judgements, AMalformedFileIsAnErrorNamingTheJudgement) {
  auto bad = [](const char* text) {
    auto j = Judgements::parse(text, "f.json");
    EXPECT_FALSE(j) << text;
    return j ? std::string() : j.error();
  };
  EXPECT_NE(bad("{}").find("f.json: not a JSON array"), std::string::npos);
  EXPECT_NE(bad(R"([{"id": "a", "verdict": "v", "clause": "c", "why": "w",
                    "servers": ["s"]}])")
                .find("judgement 1: no \"identities\" list"),
            std::string::npos);
  EXPECT_NE(bad(R"([{"id": "a", "verdict": "v", "clause": "c", "why": "w",
                    "servers": ["s"], "identities": ["**"]}])")
                .find("would cover every finding"),
            std::string::npos);
  const std::string one = R"({"id": "a", "verdict": "v", "clause": "c", "why": "w",
                              "servers": ["s"], "identities": ["x*"]})";
  EXPECT_NE(bad(("[" + one + "," + one + "]").c_str())
                .find("judgement 2: a second judgement a"),
            std::string::npos);
  EXPECT_TRUE(Judgements::parse("[]", "empty"));
}

TEST(Judgements, TheHttpPluginsOwnAreWellFormed) {
  auto j = Judgements::parse(http::plugin().judgements, "http");
  ASSERT_TRUE(j) << j.error();
  for (const Judgement& x : j->entries()) {
    EXPECT_TRUE(x.clause.starts_with("RFC ")) << x.id << ": " << x.clause;
    EXPECT_FALSE(x.servers.empty()) << x.id;
  }
}

}  // namespace
}  // namespace dualfuzz::campaign
