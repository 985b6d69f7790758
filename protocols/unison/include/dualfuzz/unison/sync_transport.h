// The harness as a Transport: each request line is performed as it is sent
// (a file operation on replica A or B, or a run of the synchronizer) and
// its answer queued for receive(); the tester is a single client, so the
// steps run one at a time in the order sent. reset() starts from two empty
// replicas (fresh temporary directories on disk) and a synchronizer with no
// archive. A harness failure (a file system error) throws: the executor
// reports it as an internal error, never as a finding.
//
//   SyncTransport t(SyncTransport::Replicas::Disk, std::make_unique<UnisonProcess>());
//   harness::Executor ex(unison::protocol(), t);
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dualfuzz/harness/transport.h"
#include "dualfuzz/unison/synchronizer.h"

namespace dualfuzz::unison {

class SyncTransport final : public harness::Transport {
 public:
  enum class Replicas { Memory, Disk };
  SyncTransport(Replicas kind, std::unique_ptr<Synchronizer> sync);
  Result<bool> open(harness::ConnId) override { return true; }
  void send(harness::ConnId c, std::string_view bytes) override;
  void close(harness::ConnId c) override { partial_.erase(c); }
  std::vector<Incoming> receive(std::chrono::milliseconds) override;
  void reset();
  // The answer to one request line (what send() queues).
  harness::Json perform(const harness::Json& request);

 private:
  Replicas kind_;
  std::unique_ptr<Synchronizer> sync_;
  std::unique_ptr<TempDir> dir_;  // Disk: holds A and B
  std::unique_ptr<Replica> a_, b_;
  std::map<harness::ConnId, std::string> partial_;
  std::vector<Incoming> out_;
};

}  // namespace dualfuzz::unison
