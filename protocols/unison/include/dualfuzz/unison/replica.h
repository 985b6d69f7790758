// A replica the harness plays file operations on: in memory (a FileTree,
// for the in-process reference synchronizer) or a real directory (for the
// real Unison). Both answer a query as the model's file system does
// (query.h) and report what they hold as a FileTree; names the synchronizer
// keeps for itself (".unison*": temporary files) are left out.
//
//   TempDir dir;                               // removed with everything in it
//   DiskReplica a(dir.path() + "/A");
//   Json answer = a.apply(*parse_query(ir));   // performs it on the disk
//   FileTree now = a.snapshot();
#pragma once

#include <optional>
#include <string>

#include "dualfuzz/unison/file_tree.h"
#include "dualfuzz/unison/query.h"

namespace dualfuzz::unison {

class Replica {
 public:
  virtual ~Replica() = default;
  // A file operation (not Sync). May throw on a harness failure.
  virtual Json apply(const Query& q) = 0;
  virtual FileTree snapshot() const = 0;
  // Makes the replica hold `t` (an in-process synchronizer's result).
  virtual void assign(const FileTree& t) = 0;
  // The directory, for a synchronizer that runs on disk.
  virtual std::optional<std::string> directory() const { return std::nullopt; }
};

class MemoryReplica final : public Replica {
 public:
  Json apply(const Query& q) override { return apply_file_op(tree_, q); }
  FileTree snapshot() const override { return tree_; }
  void assign(const FileTree& t) override { tree_ = t; }

 private:
  FileTree tree_;
};

// A fresh directory under $TMPDIR (or /tmp), removed (after making it
// writable throughout) when this goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Makes everything below `path` owner-writable (so that it can be removed
// by a user who is not root); errors ignored.
void make_writable(const std::string& path);

class DiskReplica final : public Replica {
 public:
  // Creates `root` (mode 755) if it does not exist.
  explicit DiskReplica(std::string root);
  Json apply(const Query& q) override;
  FileTree snapshot() const override;
  void assign(const FileTree& t) override;
  std::optional<std::string> directory() const override { return root_; }

 private:
  std::string root_;
};

}  // namespace dualfuzz::unison
