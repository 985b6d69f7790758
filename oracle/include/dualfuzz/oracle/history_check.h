// The whole-trace check (oracle::check) with its partitions searched on
// several threads, and what it found in each partition (for
// `dualfuzz history --chart`).
//
// The verdict does not depend on the threads or their timing: each
// partition's search is independent of the others', and the results are
// read in partition order, as the one-thread check reads them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dualfuzz/oracle/oracle.h"

namespace dualfuzz::oracle {

struct HistoryCheckOptions {
  // Threads searching partitions at the same time (0: one per core). A
  // trace too small to gain from them is checked on the calling thread.
  unsigned threads = 0;
  // Decide every partition (a chart shows them all), not only those the
  // verdict needs: the check otherwise stops at the first partition that
  // no explanation covers. The verdict is the same.
  bool every_partition = false;
  // With every_partition: once the verdict is known, the partitions still
  // undecided are searched up to this budget (configurations) and are
  // otherwise Unknown (a rejected history's other partitions can be long to
  // decide, and the verdict does not wait on them).
  std::size_t after_verdict_budget = 80'000;
};

// One partition's outcome. Unknown: its search ran out of budget (never a
// verdict); Unchecked: the verdict was known before it was searched.
struct PartitionOutcome {
  enum class Status { Explained, Violated, Unknown, Unchecked };
  std::string key;
  Status status = Status::Unchecked;
  // The partition's observations, as indexes into the trace, in order.
  std::vector<std::size_t> events;
  // How many of them (a prefix) the deepest explanation found covers: all
  // when Explained; when Violated, events[explained] is the observation no
  // order of the operations before it explains.
  std::size_t explained = 0;
  std::vector<Reason> reasons;  // Violated / Unknown: why
};

struct HistoryCheck {
  Verdict verdict;
  std::vector<PartitionOutcome> partitions;  // in key order
};

HistoryCheck check_history(const ServerModel& model, const std::vector<Event>& trace,
                           OracleOptions options = {}, HistoryCheckOptions how = {});

}  // namespace dualfuzz::oracle
