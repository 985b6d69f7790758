// The protocol registry: --spec NAME and $DUALFUZZ_PROTOCOL pick a plug-in;
// an unknown name is an error that lists the registered ones, and a target
// the plug-in cannot make is an error, not a crash.
#include "dualfuzz/campaign/plugin.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/target.h"
#include "dualfuzz/http/plugin.h"

namespace dualfuzz::campaign {
namespace {

// A plug-in with no server of its own: only HOST:PORT targets.
Plugin bare(std::string name) {
  Plugin p;
  p.protocol.name = std::move(name);
  return p;
}

TEST(Registry, FindsWhatWasAdded) {
  Registry r;
  r.add(http::plugin());
  r.add(bare("toy"));
  ASSERT_NE(r.find("http"), nullptr);
  EXPECT_EQ(r.find("http")->protocol.name, "http");
  EXPECT_EQ(r.find("toy")->protocol.name, "toy");
  EXPECT_EQ(r.find("smtp"), nullptr);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"http", "toy"}));
  EXPECT_EQ(r.joined_names(), "http, toy");
}

TEST(Registry, TwoPluginsUnderOneNameIsMisuse) {
  Registry r;
  r.add(bare("toy"));
  EXPECT_THROW(r.add(bare("toy")), std::logic_error);
  EXPECT_THROW(r.add(bare("")), std::logic_error);
}

TEST(Target, InProcessNeedsAPluginServer) {
  auto t = Target::make(bare("toy"), "inprocess");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("no in-process server"), std::string::npos) << t.error();
  EXPECT_FALSE(Target::make(bare("toy"), "not-an-address"));
  // A planted bug the reference server does not know is the plug-in's error.
  EXPECT_FALSE(Target::make(http::plugin(), "inprocess:no-such-bug"));
  EXPECT_TRUE(Target::make(http::plugin(), "inprocess:lost-update"));
}

// What `dualfuzz bugs` lists is the plug-in's (Plugin::planted_bugs), and
// each name is one its in-process server plants; `serve` is its hook too.
TEST(Plugin, ListsThePlantedBugsItsServerPlants) {
  const Plugin p = http::plugin();
  ASSERT_TRUE(p.planted_bugs);
  const auto bugs = p.planted_bugs();
  ASSERT_GE(bugs.size(), 40u);
  std::set<std::string> names;
  for (const auto& b : bugs) {
    EXPECT_TRUE(names.insert(b.name).second) << "listed twice: " << b.name;
    EXPECT_FALSE(b.category.empty()) << b.name;
    EXPECT_TRUE(Target::make(p, "inprocess:" + b.name)) << b.name;
  }
  EXPECT_TRUE(p.serve);
  EXPECT_FALSE(bare("toy").planted_bugs);  // (none: `bugs` lists nothing)
  EXPECT_FALSE(bare("toy").serve);
}

// The player is protocol-generic: it plays with the plug-in's protocol and
// server, and a planted bug is found through it as through the CLI.
TEST(Player, PlaysThePluginsProtocol) {
  auto p = Player::make(http::plugin(), "inprocess:lost-update");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ((*p)->protocol().name, "http");
  auto s = (*p)->parse(
      "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"x\"}\n"
      "wait 1\n"
      "req 3 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"y\"}\n"
      "wait 3\n"
      "req 5 on c0: {\"method\":\"PUT\",\"path\":\"/a\",\"body\":\"z\"}\n"
      "wait 5\n"
      "req 7 on c0: {\"method\":\"GET\",\"path\":\"/a\"}\n");
  ASSERT_TRUE(s) << s.error();
  harness::RunResult buggy = (*p)->play(*s);
  EXPECT_TRUE(buggy.violation()) << buggy.report();
  harness::RunResult correct = (*Player::make(http::plugin(), "inprocess"))->play(*s);
  EXPECT_FALSE(correct.violation()) << correct.report();
}

// A report names what was tested in the plug-in's words; a plug-in that
// says nothing gets a neutral name, not HTTP's "server bug".
TEST(Player, DescribesTheTargetInThePluginsWords) {
  EXPECT_EQ((*Player::make(http::plugin(), "inprocess"))->description(),
            "server bug: none planted");
  EXPECT_EQ((*Player::make(http::plugin(), "inprocess:lost-update"))->description(),
            "server bug: lost-update");
  Plugin toy = bare("toy");
  EXPECT_EQ(toy.describe(""), "in-process server");
  EXPECT_EQ(toy.describe("fast"), "in-process server: fast");
  toy.describe_in_process = [](const std::string& a) { return "toy " + a; };
  EXPECT_EQ(toy.describe("fast"), "toy fast");
}

}  // namespace
}  // namespace dualfuzz::campaign
