#include "dualfuzz/unison/file_tree.h"

#include <gtest/gtest.h>

namespace dualfuzz::unison {
namespace {

TEST(FileTree, SubtreesAreExactlyThePathAndBelow) {
  FileTree t;
  t.put("a", Node::dir());
  t.put("a/b", Node::file("x"));
  t.put("a0", Node::file("y"));
  t.put("a_", Node::file("z"));
  t.put("b", Node::file("w"));
  EXPECT_EQ(t.subtree("a").size(), 2u);
  EXPECT_EQ(t.children(""), (std::vector<std::string>{"a", "a0", "a_", "b"}));
  FileTree u = t;
  u.erase_subtree("a");
  EXPECT_FALSE(u.exists("a/b"));
  EXPECT_TRUE(u.exists("a0"));
  EXPECT_TRUE(u.exists("a_"));
  u.copy_subtree("a", t);
  EXPECT_EQ(u, t);
  EXPECT_EQ(u.hash(), t.hash());
}

TEST(FileTree, PathVocabulary) {
  EXPECT_TRUE(valid_path("a"));
  EXPECT_TRUE(valid_path("a/b_1/c"));
  EXPECT_FALSE(valid_path(""));
  EXPECT_TRUE(valid_path("", /*root_ok=*/true));
  EXPECT_FALSE(valid_path("a/b/c/d"));
  for (const char* bad : {"/a", "a/", "a//b", "..", ".unison", "A", "abcdefghi", "a b"})
    EXPECT_FALSE(valid_path(bad)) << bad;
  EXPECT_TRUE(valid_mode("755"));
  EXPECT_FALSE(valid_mode("75"));
  EXPECT_FALSE(valid_mode("789"));
}

TEST(FileTree, ParentsAndJoins) {
  EXPECT_EQ(parent_of("a/b"), "a");
  EXPECT_EQ(parent_of("a"), "");
  EXPECT_EQ(join("", "a"), "a");
  EXPECT_EQ(join("a", "b"), "a/b");
  EXPECT_TRUE(within("a/b", "a"));
  EXPECT_FALSE(within("ab", "a"));
  EXPECT_TRUE(within("a", ""));
}

}  // namespace
}  // namespace dualfuzz::unison
