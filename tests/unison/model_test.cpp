// The model both ways: it accepts every behaviour a correct synchronizer
// may show (the full sync, the loosened partial one with exit 2) and
// rejects the wrong ones (a silent partial sync, a propagated conflict,
// exit 1 with a transfer left undone, a crash, a hang).
#include "dualfuzz/unison/model.h"

#include <gtest/gtest.h>

#include <functional>

#include "dualfuzz/oracle/oracle.h"
#include "dualfuzz/unison/reference_synchronizer.h"
#include "play.h"

namespace dualfuzz::unison {
namespace {
using testing::FakeSynchronizer;
using testing::passes;
using testing::play;

using Outcome = harness::RunResult::Outcome;

harness::RunResult with(FakeSynchronizer::F f, const std::string& script) {
  SyncTransport t(SyncTransport::Replicas::Memory, std::make_unique<FakeSynchronizer>(f));
  return play(t, script);
}

// Copies `path` from A to B (a partial sync's one transfer).
void copy_a_to_b(Replica& a, Replica& b, const std::string& path) {
  FileTree ta = a.snapshot(), tb = b.snapshot();
  tb.copy_subtree(path, ta);
  b.assign(tb);
}

// Plays `script` twice: its first sync is the reference synchronizer's, its
// second does `second` to the replicas and answers `exit`, saying it checked
// by time and size or not. The model must accept that answer only from a
// synchronizer that says so (fastcheck's documented misses).
void expect_only_under_fastcheck(const std::string& script,
                                 const std::function<void(Replica&, Replica&)>& second,
                                 int exit = 0, const std::string& conflicts = "") {
  for (bool fastcheck : {false, true}) {
    int calls = 0;
    ReferenceSynchronizer first;
    auto r = with(
        [&](Replica& a, Replica& b) {
          if (++calls == 1) return first.sync(a, b);
          second(a, b);
          return SyncOutcome{exit, conflicts, fastcheck};
        },
        script);
    if (fastcheck)
      EXPECT_TRUE(passes(r)) << r.report(protocol());
    else
      EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report(protocol());
  }
}
void nothing(Replica&, Replica&) {}  // (a sync that saw nothing to do)

constexpr const char* kTwoNewFiles = R"(
req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"write","replica":"A","path":"b","content":"y"}
req 5 on c0: {"op":"sync"}
req 7 on c0: {"op":"sync"}
)";

TEST(UnisonModel, AcceptsAPartialSyncWithExitTwoThenTheRest) {
  int calls = 0;
  ReferenceSynchronizer rest;
  auto r = with(
      [&](Replica& a, Replica& b) {
        if (++calls > 1) return rest.sync(a, b);
        copy_a_to_b(a, b, "a");
        return SyncOutcome{2, "failed on b"};
      },
      kTwoNewFiles);
  EXPECT_TRUE(passes(r)) << r.report(protocol());
  EXPECT_EQ(calls, 2);
}

TEST(UnisonModel, RejectsAPartialSyncThatClaimsSuccess) {
  for (int exit : {0, 1}) {
    auto r = with(
        [&](Replica& a, Replica& b) {
          copy_a_to_b(a, b, "a");
          return SyncOutcome{exit, ""};
        },
        kTwoNewFiles);
    EXPECT_EQ(r.outcome, Outcome::ModelViolation) << exit << "\n" << r.report();
  }
}

TEST(UnisonModel, RejectsACrashAHangAndAnUnknownExitCode) {
  for (int exit : {3, 139, -1, 127}) {
    auto r = with(
        [&](Replica&, Replica&) {
          return SyncOutcome{exit, "boom"};
        },
        kTwoNewFiles);
    EXPECT_EQ(r.outcome, Outcome::ModelViolation) << exit;
  }
  // ... while doing nothing with exit 2 (a failed run) is allowed.
  auto r = with(
      [](Replica&, Replica&) {
        return SyncOutcome{2, "failed"};
      },
      kTwoNewFiles);
  EXPECT_TRUE(passes(r)) << r.report(protocol());
}

// Thesis §6.2.2: a deletion against a write; Unison (fastcheck) halted with
// exit 2 and propagated nothing. Allowed; propagating the deletion is not.
constexpr const char* kDeleteVsWrite = R"(
req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"write","replica":"A","path":"b","content":"x"}
req 5 on c0: {"op":"sync"}
req 7 on c0: {"op":"rm","replica":"A","path":"a"}
req 9 on c0: {"op":"write","replica":"B","path":"a","content":"y"}
req 11 on c0: {"op":"sync"}
)";

TEST(UnisonModel, ConflictLeftAloneWithExitOneOrTwo) {
  for (int exit : {1, 2}) {
    int calls = 0;
    ReferenceSynchronizer first;
    auto r = with(
        [&](Replica& a, Replica& b) {
          if (++calls == 1) return first.sync(a, b);
          return SyncOutcome{exit, ""};
        },
        kDeleteVsWrite);
    EXPECT_TRUE(passes(r)) << exit << "\n" << r.report(protocol());
  }
  // Exit 0 says everything was reconciled: a conflict cannot have been.
  int calls = 0;
  ReferenceSynchronizer first;
  auto r = with(
      [&](Replica& a, Replica& b) {
        if (++calls == 1) return first.sync(a, b);
        return SyncOutcome{0, ""};
      },
      kDeleteVsWrite);
  EXPECT_EQ(r.outcome, Outcome::ModelViolation);
}

TEST(UnisonModel, RejectsAPropagatedConflictWhateverTheExitCode) {
  for (int exit : {1, 2}) {
    int calls = 0;
    ReferenceSynchronizer first;
    auto r = with(
        [&](Replica& a, Replica& b) {
          if (++calls == 1) return first.sync(a, b);
          FileTree tb = b.snapshot();
          tb.erase_subtree("a");  // the deletion wins
          b.assign(tb);
          return SyncOutcome{exit, ""};
        },
        kDeleteVsWrite);
    EXPECT_EQ(r.outcome, Outcome::ModelViolation) << exit << "\n" << r.report();
  }
}

// A rewrite that keeps time and size, then a sync that does not see it:
// allowed only from a synchronizer that says it checks by time and size
// (fastcheck, documented), and only as long as nothing else touched it.
constexpr const char* kStealthyRewrite = R"(
req 1 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 3 on c0: {"op":"sync"}
req 5 on c0: {"op":"write","replica":"B","path":"a","content":"y","same_time":true}
req 7 on c0: {"op":"sync"}
)";

TEST(UnisonModel, AMissedSameTimeRewriteOnlyUnderFastcheck) {
  expect_only_under_fastcheck(kStealthyRewrite, nothing);
  // A rewrite that changes the size cannot be missed, fastcheck or not.
  std::string visible = kStealthyRewrite;
  visible.replace(visible.find("\"y\""), 3, "\"yy\"");
  int calls = 0;
  ReferenceSynchronizer first;
  auto r = with(
      [&](Replica& a, Replica& b) {
        if (++calls == 1) return first.sync(a, b);
        return SyncOutcome{0, "", true};
      },
      visible);
  EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report(protocol());
}

// Found on the real Unison with fastcheck (seed 2): a file new on both sides
// (a conflict, not in the archive), then A rewrites it to B's content
// keeping time and size: Unison still believes A's old content and reports
// the conflict again (exit 1). A fastcheck synchronizer may; one that sees
// every change must not (the two files are equal now: exit 0).
TEST(UnisonModel, AnUnseenRewriteOfAnUnsyncedFileUnderFastcheck) {
  const std::string script = R"(
req 1 on c0: {"op":"write","replica":"B","path":"b","content":"y"}
req 3 on c0: {"op":"write","replica":"A","path":"b","content":"x"}
req 5 on c0: {"op":"sync"}
req 7 on c0: {"op":"write","replica":"A","path":"b","content":"y","same_time":true}
req 9 on c0: {"op":"sync"}
)";
  expect_only_under_fastcheck(script, nothing, 1, "new file <-?-> new file");
}

// Found on the real Unison with fastcheck (fb45872, seed 1): A rewrites a/a
// keeping time and size, B makes a/b. Unison sees only a/b and creates it
// on A (exit 0), leaving A's a/a as it is. The model's item is B's whole
// subtree `a`, whose a/a is what the synchronizer believes A holds: no
// write onto the unseen file, so no exit 2 is needed.
TEST(UnisonModel, AnUnseenRewriteBesideANewSiblingUnderFastcheck) {
  const std::string script = R"(
req 1 on c0: {"op":"mkdir","replica":"A","path":"a"}
req 3 on c0: {"op":"write","replica":"A","path":"a/a","content":"xy"}
req 5 on c0: {"op":"sync"}
req 7 on c0: {"op":"write","replica":"A","path":"a/a","content":"yy","same_time":true}
req 9 on c0: {"op":"mkdir","replica":"B","path":"a/b"}
req 11 on c0: {"op":"sync"}
)";
  expect_only_under_fastcheck(script, [](Replica& a, Replica& b) {
    copy_a_to_b(b, a, "a/b");  // (B's new directory onto A)
  });
}

// Found on the real Unison with fastcheck (fb45872, seed 2): two rewrites
// keeping the time stamp, the first of another size, the second back to
// the scanned size: time and size are the scanned ones again, and fastcheck
// misses the change (exit 0, nothing done).
TEST(UnisonModel, ARewriteBackToTheScannedSizeUnderFastcheck) {
  const std::string script = R"(
req 1 on c0: {"op":"write","replica":"B","path":"a","content":"x"}
req 3 on c0: {"op":"sync"}
req 5 on c0: {"op":"write","replica":"A","path":"a","content":"","same_time":true}
req 7 on c0: {"op":"write","replica":"A","path":"a","content":"y","same_time":true}
req 9 on c0: {"op":"sync"}
)";
  expect_only_under_fastcheck(script, nothing);
}

// Found on the real Unison with fastcheck (fb45872, seed 3): B changes the
// mode of a file whose bytes A rewrote unseen. Unison sets the mode on A
// and leaves its bytes (exit 0); one that sees the rewrite must not (a
// conflict: both sides changed the file).
TEST(UnisonModel, AModeSetOnAnUnseenRewriteUnderFastcheck) {
  const std::string script = R"(
req 1 on c0: {"op":"write","replica":"A","path":"b","content":"x"}
req 3 on c0: {"op":"sync"}
req 5 on c0: {"op":"chmod","replica":"B","path":"b","mode":"755"}
req 7 on c0: {"op":"write","replica":"A","path":"b","content":"z","same_time":true}
req 9 on c0: {"op":"sync"}
)";
  expect_only_under_fastcheck(script, [](Replica& a, Replica&) {
    FileTree ta = a.snapshot();
    Node n = *ta.find("b");
    n.mode = "755";  // (B's mode, A's bytes)
    ta.put("b", n);
    a.assign(ta);
  });
}

TEST(UnisonModel, AnUnseenRewriteIsNeverOverwritten) {
  // B's unseen rewrite, then A changes visibly: propagating A's version over
  // B's unseen one is a lost update; failing on it (exit 2) is allowed.
  const std::string script =
      std::string(kStealthyRewrite)
          .replace(
              std::string(kStealthyRewrite).rfind("req 7"), std::string::npos,
              "req 7 on c0: "
              "{\"op\":\"write\",\"replica\":\"A\",\"path\":\"a\",\"content\":\"zz\"}\n"
              "req 9 on c0: {\"op\":\"sync\"}\n");
  for (int exit : {0, 2}) {
    int calls = 0;
    ReferenceSynchronizer first;
    auto r = with(
        [&](Replica& a, Replica& b) {
          if (++calls == 1) return first.sync(a, b);
          if (exit == 0) b.assign(a.snapshot());  // A's version over B's
          return SyncOutcome{exit, "", true};
        },
        script);
    if (exit == 2)
      EXPECT_TRUE(passes(r)) << r.report(protocol());
    else
      EXPECT_EQ(r.outcome, Outcome::ModelViolation) << r.report(protocol());
  }
}

TEST(UnisonModel, FileOperationsFollowThePosixLikeSemantics) {
  auto r = with(
      [](Replica&, Replica&) {
        return SyncOutcome{0, ""};
      },
      R"(
req 1 on c0: {"op":"write","replica":"A","path":"a/b","content":"x"}
req 3 on c0: {"op":"mkdir","replica":"A","path":"a"}
req 5 on c0: {"op":"mkdir","replica":"A","path":"a"}
req 7 on c0: {"op":"write","replica":"A","path":"a","content":"x"}
req 9 on c0: {"op":"read","replica":"A","path":"a"}
req 11 on c0: {"op":"ls","replica":"B","path":""}
req 13 on c0: {"op":"chmod","replica":"B","path":"a","mode":"700"}
req 15 on c0: {"op":"rm","replica":"A","path":"a"}
req 17 on c0: {"op":"chmod","replica":"A","path":"a","mode":"9"}
req 19 on c0: {"op":"write","replica":"C","path":"a","content":"x"}
req 21 on c0: {"op":"write","replica":"A","path":"../a","content":"x"}
)");
  EXPECT_TRUE(passes(r)) << r.report(protocol());
  const std::vector<std::string> expected = {"refused", "ok",      "refused", "refused",
                                             "refused", "ok",      "refused", "ok",
                                             "refused", "refused", "refused"};
  std::vector<std::string> seen;
  for (const auto& m : r.trace.messages())
    if (!harness::is_request_label(m.label))
      seen.push_back(m.ir.value("ok", false) ? "ok" : "refused");
  EXPECT_EQ(seen, expected);
}

TEST(UnisonModel, RejectsAWrongFileAnswer) {
  // A harness that reads the wrong content: the model's file system says "x".
  oracle::Oracle o(server_model());
  auto req = [&](harness::Label l, harness::Json q) {
    return o.observe(oracle::Event::request(0, l, std::move(q)));
  };
  auto resp = [&](harness::Label l, harness::Json a) {
    return o.observe(oracle::Event::response(0, l, std::move(a)));
  };
  o.observe(oracle::Event::open(0));
  req(1, {{"op", "write"}, {"replica", "A"}, {"path", "a"}, {"content", "x"}});
  req(3, {{"op", "read"}, {"replica", "A"}, {"path", "a"}});
  EXPECT_NE(resp(2, {{"ok", true}}).status, oracle::Verdict::Status::Reject);
  EXPECT_EQ(resp(4, {{"ok", true}, {"content", "y"}}).status,
            oracle::Verdict::Status::Reject);
}

}  // namespace
}  // namespace dualfuzz::unison
