// The real Unison (Debian package `unison`, 2.52) as the system under test:
// each sync is one `unison A B -batch ...` process on two DiskReplicas, with
// a private HOME and UNISON directory (its own archive, made fresh by
// reset()), its own process group, stdin from /dev/null, and a time limit
// after which the whole group is killed. A process that cannot start, dies
// of a signal or hangs is an outcome (exit 127 / 128+N / -1), never an
// exception.
//
//   UnisonProcess u({.fastcheck = true});
//   SyncOutcome o = u.sync(a, b);   // a, b: DiskReplica
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dualfuzz/unison/synchronizer.h"

namespace dualfuzz::unison {

struct UnisonOptions {
  std::string binary = "unison";  // searched on PATH
  bool fastcheck = false;
  std::chrono::milliseconds timeout{20000};
  std::vector<std::string> extra_args;  // more preferences
};

class UnisonProcess final : public Synchronizer {
 public:
  explicit UnisonProcess(UnisonOptions o = {});
  SyncOutcome sync(Replica& a, Replica& b) override;
  void reset() override;
  // The command line of one sync (for reports and tests).
  std::vector<std::string> command(const std::string& a, const std::string& b) const;

 private:
  UnisonOptions o_;
  std::unique_ptr<TempDir> home_;  // HOME and UNISON: the archive lives here
};

}  // namespace dualfuzz::unison
