// Test helper: plays a script's text on a SyncTransport (fresh replicas)
// and returns the run, judged by the oracle derived from the model.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string_view>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/unison/protocol.h"
#include "dualfuzz/unison/sync_transport.h"

namespace dualfuzz::unison::testing {

inline harness::RunResult play(SyncTransport& t, std::string_view text) {
  const harness::Protocol p = protocol();
  auto s = harness::parse_script(text, p.functions);
  EXPECT_TRUE(s.ok()) << (s ? "" : s.error());
  if (!s) return harness::RunResult::internal_error("script");
  t.reset();
  harness::RunOptions o;
  o.check_liveness = true;
  harness::Executor ex(p, t, o);
  return ex.run(*s);
}

inline bool passes(const harness::RunResult& r) {
  return r.outcome == harness::RunResult::Outcome::Pass && !r.inconclusive();
}

// A synchronizer a test scripts: `f` does (or does not) the sync.
class FakeSynchronizer final : public Synchronizer {
 public:
  using F = std::function<SyncOutcome(Replica&, Replica&)>;
  explicit FakeSynchronizer(F f) : f_(std::move(f)) {}
  SyncOutcome sync(Replica& a, Replica& b) override { return f_(a, b); }
  void reset() override {}

 private:
  F f_;
};

}  // namespace dualfuzz::unison::testing
