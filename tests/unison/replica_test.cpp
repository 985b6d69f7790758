// The harness's real directories behave as the model's file system: random
// file operations give the same answers and the same trees on disk as in
// memory; `same_time` writes keep the timestamp; TempDir cleans up.
#include "dualfuzz/unison/replica.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <random>

namespace dualfuzz::unison {
namespace {

Query random_query(std::mt19937_64& rng) {
  static const char* kPaths[] = {"a", "b", "a/a", "a/b", "b/a", "a/a/a"};
  static const char* kModes[] = {"644", "755", "555", "700", "600"};
  Query q;
  q.op = static_cast<Query::Op>(rng() % 6);  // every file operation
  q.path = kPaths[rng() % std::size(kPaths)];
  q.content = std::string(rng() % 3, 'x');
  q.mode = kModes[rng() % std::size(kModes)];
  q.same_time = rng() % 2;
  if (q.op == Query::Op::Ls && rng() % 2) q.path = "";
  return q;
}

TEST(DiskReplica, AgreesWithTheModelsFileSystem) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    TempDir dir;
    DiskReplica disk(dir.path() + "/r");
    MemoryReplica memory;
    for (int i = 0; i < 40; ++i) {
      const Query q = random_query(rng);
      const Json want = memory.apply(q), got = disk.apply(q);
      ASSERT_EQ(got.value("ok", false), want.value("ok", false))
          << "seed " << seed << " step " << i << ": " << got.dump() << " vs "
          << want.dump();
      if (want.value("ok", false)) {
        ASSERT_EQ(got, want);
      }
      ASSERT_EQ(disk.snapshot(), memory.snapshot()) << "seed " << seed << " step " << i;
    }
  }
}

TEST(DiskReplica, SameTimeWritesKeepTheModificationTime) {
  TempDir dir;
  DiskReplica disk(dir.path() + "/r");
  Query w;
  w.op = Query::Op::Write;
  w.path = "a";
  w.content = "x";
  ASSERT_TRUE(disk.apply(w).value("ok", false));
  const std::string file = dir.path() + "/r/a";
  struct timespec old[2] = {{0, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), old, 0), 0);
  w.content = "y";
  w.same_time = true;
  ASSERT_TRUE(disk.apply(w).value("ok", false));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  w.same_time = false;
  ASSERT_TRUE(disk.apply(w).value("ok", false));
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_NE(st.st_mtim.tv_sec, 1000000000);
}

TEST(DiskReplica, AssignAndSnapshotRoundTripAndTempDirCleansUp) {
  std::string path;
  {
    TempDir dir;
    path = dir.path();
    DiskReplica disk(dir.path() + "/r");
    FileTree t;
    t.put("a", Node::dir("555"));
    t.put("a/b", Node::file("x", "400"));
    t.put("b", Node::file("", "644"));
    disk.assign(t);
    EXPECT_EQ(disk.snapshot(), t);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace dualfuzz::unison
