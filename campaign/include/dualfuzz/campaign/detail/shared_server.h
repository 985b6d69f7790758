// One server fuzzed by several processes at once (`dualfuzz fuzz --jobs N`
// without a server per worker): a lock file they all open. Every play holds
// it shared; a process that met a death holds it alone while it confirms
// the death, brings the server back and shrinks the script, so that nobody
// else plays meanwhile and a replay that kills the server again is the
// replayed script's doing, not another worker's. The file also counts the
// deaths confirmed by any of them: a play whose answers were lost while
// another process confirmed one is replayed alone before it is blamed.
//
//   auto s = SharedServer::open(dir + "/server.lock");
//   { SharedServer::Play p(**s); run(script); }  // beside the others' plays
//   (*s)->hold_alone(); confirm(); (*s)->count_death(); (*s)->release_alone();
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dualfuzz/result.h"

namespace dualfuzz::campaign::detail {

class SharedServer {
 public:
  static Result<std::unique_ptr<SharedServer>> open(const std::string& path);
  SharedServer(const SharedServer&) = delete;
  SharedServer& operator=(const SharedServer&) = delete;
  ~SharedServer();

  // A play beside the other processes' plays (nothing when this process
  // holds the server alone already).
  class Play {
   public:
    explicit Play(SharedServer& s);
    ~Play();
    Play(const Play&) = delete;
    Play& operator=(const Play&) = delete;

   private:
    SharedServer* s_;
  };

  // Waits until no other process plays, then keeps them out.
  void hold_alone();
  void release_alone();
  bool alone() const { return alone_; }
  // Deaths confirmed by any of the processes so far.
  std::uint64_t deaths() const;
  void count_death();  // (held alone)

 private:
  explicit SharedServer(int fd) : fd_(fd) {}
  int fd_ = -1;
  bool alone_ = false;
};

}  // namespace dualfuzz::campaign::detail
