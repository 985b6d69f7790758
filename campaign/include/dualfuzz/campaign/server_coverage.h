// The code coverage of a server in a process of its own (a real server built
// with -fsanitize-coverage=trace-pc-guard and harness/coverage/sancov_shm.c),
// read from the shared-memory map its runtime writes
// (dualfuzz/harness/coverage_map.h); and whether that server is still the
// one that was up when the execution began.
//
//   auto cov = ServerCoverage::open("/lighttpd-cov");   // made by the server
//   cov->begin();                  // after the previous execution's connections closed
//   ... play one script ...
//   if (cov->health() != ServerCoverage::Health::Up) ...  // crashed or restarted
//   cov->fold_into(counters);      // this execution's edges, for the engine
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "dualfuzz/harness/coverage_map.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

class ServerCoverage {
 public:
  // Maps an existing map (the server's runtime creates it when it starts).
  static Result<ServerCoverage> open(const std::string& name);
  ServerCoverage(ServerCoverage&& o) noexcept;
  ServerCoverage& operator=(ServerCoverage&& o) noexcept;
  ServerCoverage(const ServerCoverage&) = delete;
  ~ServerCoverage();

  // Zeroes the per-execution counters and notes which server process is
  // up. Call it once the server has finished the previous execution (its
  // connections closed), or that execution's last edges count in this one.
  void begin();

  enum class Health {
    Up,         // the process that was up at begin() still is
    Restarted,  // another process attached since begin(): the server died and came back
    Down,       // no live process writes the map
  };
  Health health() const;
  // Waits up to `timeout_ms` for a live server process (after a crash, a
  // supervisor may restart it); true when one is up.
  bool wait_until_up(int timeout_ms) const;
  // The pid writing the map (0 before any server attached).
  int pid() const;

  // Edges this execution hit (counts, saturating at 255), indices [0, guards).
  std::span<const std::uint8_t> hits() const;
  // Distinct edges hit since the map was made, and edges the server has.
  std::size_t edges_ever() const;
  std::size_t guards() const;
  // What an engine gets of each edge: whether it was hit (the default), or
  // how often. A server's event loop runs its edges a number of times that
  // depends on timing (how reads and writes were split), so hit counts make
  // inputs look new by chance: in 10 min on lighttpd libFuzzer kept 1,002
  // inputs and slowed 3x, AFL++ measured 7.8 % stability (EVALUATION).
  enum class Counting { Edges, HitCounts };
  // out[i % out.size()] = max(out[...], hits[i] or 1) for every edge i hit:
  // this execution's counters folded into an engine's fixed-size array.
  void fold_into(std::span<std::uint8_t> out, Counting c = Counting::Edges) const;

 private:
  ServerCoverage(std::string name, void* map) : name_(std::move(name)), map_(map) {}
  const dualfuzz_coverage_header& header() const {
    return *static_cast<const dualfuzz_coverage_header*>(map_);
  }
  std::uint8_t* hits_mut() const {
    return static_cast<std::uint8_t*>(map_) + DUALFUZZ_COVERAGE_HITS_OFFSET;
  }

  std::string name_;
  void* map_;
  std::uint32_t starts_at_begin_ = 0;
  int pid_at_begin_ = 0;
};

// Hands a ServerCoverage's execution counters to the engine the process
// runs under: libFuzzer's extra counters (section __libfuzzer_extra_counters)
// and, under AFL++, a block of slots AFL++ assigned past the target's own
// edges (registered at start-up when $DUALFUZZ_SERVER_COVERAGE is set).
// Both are fixed-size: a server with more edges is folded (modulo).
void forward_to_engine(const ServerCoverage& coverage,
                       ServerCoverage::Counting c = ServerCoverage::Counting::Edges);
// Slots each engine gets (0 for AFL++ when not running under it).
std::size_t libfuzzer_server_slots();
std::size_t afl_server_slots();

}  // namespace dualfuzz::campaign
