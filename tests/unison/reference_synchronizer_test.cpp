// The reference synchronizer passes the model's oracle on scripts that
// exercise each reconciliation case, and every planted bug is caught by
// the oracle on a script made for it (and only with the bug planted).
#include "dualfuzz/unison/reference_synchronizer.h"

#include <gtest/gtest.h>

#include <map>

#include "play.h"

namespace dualfuzz::unison {
namespace {
using testing::passes;
using testing::play;

harness::RunResult run(const std::string& bug, const std::string& script,
                       SyncTransport::Replicas kind = SyncTransport::Replicas::Memory) {
  SyncTransport t(kind, std::make_unique<ReferenceSynchronizer>(bug));
  return play(t, script);
}

// One script per planted bug.
const std::map<std::string, std::string>& exposing_scripts() {
  static const std::map<std::string, std::string> s = {
      {"conflict-a-wins",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"write","replica":"B","path":"a","content":"y"}
req 5 on c0: {"op":"sync"}
)"},
      {"delete-wins",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"sync"}
req 5 on c0: {"op":"rm","replica":"A","path":"a"}
req 7 on c0: {"op":"write","replica":"B","path":"a","content":"y"}
req 9 on c0: {"op":"sync"}
)"},
      {"lost-deletion",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"sync"}
req 5 on c0: {"op":"rm","replica":"A","path":"a"}
req 7 on c0: {"op":"sync"}
)"},
      {"exit-zero-on-conflict",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"write","replica":"B","path":"a","content":"y"}
req 5 on c0: {"op":"sync"}
)"},
      {"ignore-mode",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"sync"}
req 5 on c0: {"op":"chmod","replica":"A","path":"a","mode":"600"}
req 7 on c0: {"op":"sync"}
)"},
      {"mode-reset", R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"chmod","replica":"A","path":"a","mode":"600"}
req 5 on c0: {"op":"sync"}
)"},
      {"shallow-dir-copy", R"(req 1 on c0: {"op":"mkdir","replica":"A","path":"a"}
req 3 on c0: {"op":"write","replica":"A","path":"a/b","content":"x"}
req 5 on c0: {"op":"sync"}
)"},
      {"archive-a-on-conflict",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"write","replica":"B","path":"a","content":"y"}
req 5 on c0: {"op":"sync"}
req 7 on c0: {"op":"sync"}
)"},
      {"false-conflict",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"write","replica":"B","path":"a","content":"x"}
req 5 on c0: {"op":"sync"}
)"},
      {"wrong-direction",
       R"(req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"sync"}
req 5 on c0: {"op":"write","replica":"B","path":"a","content":"y"}
req 7 on c0: {"op":"sync"}
)"},
  };
  return s;
}

TEST(ReferenceSynchronizer, EveryPlantedBugHasAnExposingScript) {
  for (const PlantedBug& b : ReferenceSynchronizer::planted_bugs())
    EXPECT_TRUE(exposing_scripts().count(b.name)) << b.name;
  EXPECT_GE(ReferenceSynchronizer::planted_bugs().size(), 8u);
}

TEST(ReferenceSynchronizer, EachPlantedBugIsRejectedAndTheCorrectOneAccepted) {
  for (const auto& [bug, script] : exposing_scripts()) {
    const harness::RunResult correct = run("", script);
    EXPECT_TRUE(passes(correct)) << bug << "\n" << correct.report();
    const harness::RunResult bad = run(bug, script);
    EXPECT_EQ(bad.outcome, harness::RunResult::Outcome::ModelViolation) << bug << "\n"
                                                                        << bad.report();
  }
}

TEST(ReferenceSynchronizer, UnknownBugIsAnError) {
  EXPECT_THROW(ReferenceSynchronizer("no-such-bug"), std::invalid_argument);
}

// Every reconciliation case of the model, on the correct synchronizer, in
// memory and on disk (the disk run checks the harness's file operations).
constexpr const char* kAllCases = R"(
req 1 on c0: {"op":"mkdir","replica":"A","path":"a"}
req 3 on c0: {"op":"write","replica":"A","path":"a/a","content":"x"}
req 5 on c0: {"op":"write","replica":"B","path":"b","content":"y"}
req 7 on c0: {"op":"sync"}
req 9 on c0: {"op":"chmod","replica":"A","path":"a","mode":"700"}
req 11 on c0: {"op":"write","replica":"B","path":"a/b","content":"z"}
req 13 on c0: {"op":"write","replica":"A","path":"b","content":"same"}
req 15 on c0: {"op":"write","replica":"B","path":"b","content":"same"}
req 17 on c0: {"op":"sync"}
req 19 on c0: {"op":"chmod","replica":"A","path":"a","mode":"500"}
req 21 on c0: {"op":"chmod","replica":"B","path":"a","mode":"550"}
req 23 on c0: {"op":"rm","replica":"A","path":"b"}
req 25 on c0: {"op":"write","replica":"B","path":"b","content":"w"}
req 27 on c0: {"op":"sync"}
req 29 on c0: {"op":"rm","replica":"B","path":"b"}
req 31 on c0: {"op":"sync"}
req 33 on c0: {"op":"rm","replica":"B","path":"a"}
req 35 on c0: {"op":"mkdir","replica":"A","path":"b"}
req 37 on c0: {"op":"sync"}
req 39 on c0: {"op":"ls","replica":"B","path":""}
req 41 on c0: {"op":"read","replica":"A","path":"a/a"}
req 43 on c0: {"op":"read","replica":"A","path":"nope"}
req 45 on c0: {"op":"write","replica":"A","path":"x/y","content":"no parent"}
req 47 on c0: {"op":"frobnicate"}
)";

TEST(ReferenceSynchronizer, AllCasesPassInMemoryAndOnDisk) {
  for (auto kind : {SyncTransport::Replicas::Memory, SyncTransport::Replicas::Disk}) {
    const harness::RunResult r = run("", kAllCases, kind);
    EXPECT_TRUE(passes(r)) << r.report(protocol());
    // (a property of the script, so the test can fail: it reaches the end)
    EXPECT_EQ(r.trace.messages().size(), 48u);
  }
}

}  // namespace
}  // namespace dualfuzz::unison
