// A small synchronizer in this process (the evaluation's system under
// test, like HTTP's reference server): reconciliation as Balasubramaniam
// and Pierce define it, on replica snapshots, with an archive of the last
// consensus — and, on request, one planted bug.
//
//   ReferenceSynchronizer s;                    // correct
//   ReferenceSynchronizer bad("conflict-a-wins");
//   for (const PlantedBug& b : ReferenceSynchronizer::planted_bugs()) ...
#pragma once

#include <string>
#include <vector>

#include "dualfuzz/unison/synchronizer.h"

namespace dualfuzz::unison {

struct PlantedBug {
  std::string name;
  std::string description;
};

class ReferenceSynchronizer final : public Synchronizer {
 public:
  // Throws std::invalid_argument for a bug that is not planted_bugs()'s.
  explicit ReferenceSynchronizer(std::string bug = "");
  SyncOutcome sync(Replica& a, Replica& b) override;
  void reset() override { archive_ = FileTree(); }
  static const std::vector<PlantedBug>& planted_bugs();

 private:
  bool bug(const char* name) const { return bug_ == name; }
  void sync_dir(const std::string& dir, FileTree& a, FileTree& b, int& conflicts);
  void copy(const std::string& p, const FileTree& from, FileTree& to);
  std::string bug_;
  FileTree archive_;
};

}  // namespace dualfuzz::unison
