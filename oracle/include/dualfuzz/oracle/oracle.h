// The verdict API: feed observed events one at a time; the oracle answers
// whether a correct server, seen across a TCP network, could have produced
// the trace so far.
//
//   Oracle oracle(specs::register_model());
//   oracle.observe(Event::request(/*conn=*/1, /*label=*/1, {{"f", "read"}}));
//   Verdict v = oracle.observe(Event::response(1, 2, {{"type", "ok"}, {"value", 3}}));
//   if (v.status == Verdict::Status::Reject) std::cerr << v.explanation;
//
// Reject means: no hypothesis survives. Inconclusive means a resource limit
// was hit (never a rejection on a guess). After a Reject or Inconclusive the
// verdict sticks.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dualfuzz/oracle/backtracking.h"
#include "dualfuzz/oracle/detail/small_vector.h"
#include "dualfuzz/oracle/partition_router.h"
#include "dualfuzz/oracle/reason.h"
#include "dualfuzz/oracle/server_model.h"
#include "dualfuzz/oracle/solver.h"

namespace dualfuzz::oracle {

struct Event {
  enum class Kind { Open, Request, Response, Close } kind = Kind::Open;
  ConnId conn = 0;
  Label label = 0;  // requests odd; a response carries its request's label + 1
  // The message, immutable and shared: a trace, the oracle's hypotheses and
  // the run report all hold the same value, so copying an event (the
  // executor records every one) copies no JSON.
  std::shared_ptr<const Json> body = null_json();

  const Json& payload() const { return *body; }
  void set_payload(Json v) { body = std::make_shared<const Json>(std::move(v)); }

  static Event open(ConnId c) { return {Kind::Open, c, 0}; }
  static Event request(ConnId c, Label l, Json q) {
    return {Kind::Request, c, l, std::make_shared<const Json>(std::move(q))};
  }
  static Event response(ConnId c, Label l, Json a) {
    return {Kind::Response, c, l, std::make_shared<const Json>(std::move(a))};
  }
  static Event close(ConnId c) { return {Kind::Close, c, 0}; }
  std::string describe() const;
  // As data, to keep a trace and check it again later (bench/oracle_recheck):
  //   {"kind":"request","conn":1,"label":3,"body":{...}}
  Json to_json() const;
  // nullopt when `j` is not such an object.
  static std::optional<Event> from_json(const Json& j);

 private:
  static const std::shared_ptr<const Json>& null_json() {
    static const std::shared_ptr<const Json> null = std::make_shared<const Json>();
    return null;
  }
};

struct Verdict {
  enum class Status { Accept, Reject, Inconclusive } status = Status::Accept;
  std::string explanation;      // Reject/Inconclusive: for a server author
  std::vector<Reason> reasons;  // the same reasons as data (why it died / gave up)
  std::size_t event_index = 0;  // the event that decided it
  bool accepted() const { return status == Status::Accept; }
};

struct OracleOptions {
  SearchLimits limits;
  unsigned solver_timeout_ms = 500;
  // check() and check_history(): the whole check gives up (Inconclusive) once
  // it has run this long (0: no limit). A fuzz campaign's classing and
  // whole-trace checks set it, so that `--seconds` bounds a run.
  std::chrono::milliseconds time_budget{0};
};

struct OracleStats {
  std::size_t events = 0;
  std::size_t live_hypotheses = 0;
  std::size_t max_live_hypotheses = 0;
  std::size_t explored = 0;
  std::size_t partitions = 0;
  // Some partition's search went depth-first (SearchLimits::
  // depth_first_after): a rejection's reasons are then the depth-first
  // search's, thin (it prunes by looking ahead); oracle::check names them.
  bool went_depth_first = false;
  SolverStats solver;
};

// One live explanation of the trace (of one partition), for targeted
// mutation: the symbolic branches it took and what it knows.
struct Explanation {
  std::vector<Decision> decisions;  // oldest first (SearchLimits::record_decisions)
  std::vector<Sym> facts;           // its constraint store
};

class Oracle {
 public:
  explicit Oracle(ServerModel model, OracleOptions options = {});
  // Shares a solver across oracles: creating a Z3 context costs ~10 ms, so a
  // fuzz target keeps one for all executions (single-threaded use only).
  Oracle(ServerModel model, OracleOptions options, std::shared_ptr<Solver> solver);
  Verdict observe(const Event& e);
  const Verdict& verdict() const { return verdict_; }
  OracleStats stats() const;
  // Model states of (up to `max`) live hypotheses, for state-based heuristics.
  std::vector<Json> model_states(std::size_t max = 16) const;
  // Up to `max` live explanations of each partition.
  std::vector<Explanation> explanations(std::size_t max = 4) const;
  const ServerModel& model() const { return model_; }

 private:
  HypothesisSearch& partition_for(const std::string& key, bool unknown = false);
  Verdict fail(Verdict::Status st, const Event& e, std::vector<Reason> why,
               std::size_t live_before);

  ServerModel model_;
  OracleOptions options_;
  std::shared_ptr<Solver> solver_;
  Tree initial_;  // the model's initial tree, shared by every partition
  // The partitions' interned requests and search storage (they never
  // search at the same time).
  std::shared_ptr<SearchShared> shared_;
  std::map<std::string, HypothesisSearch> parts_;  // (nodes never move)
  // conn -> the partition of each request awaiting its response, in order
  // (a FIFO read from `head`: a deque allocated two blocks per connection).
  // Each request's partitions lie in a row of `parts` (more than one when
  // its effect reaches others, ServerModel::reach); `sizes` says how many.
  struct Awaiting {
    boost::container::small_vector<HypothesisSearch*, 8> parts;
    boost::container::small_vector<std::uint32_t, 8> sizes;
    std::size_t head = 0, at = 0;  // the next request in `sizes`, its first part
    bool empty() const { return head == sizes.size(); }
  };
  PartitionRouter router_;
  std::vector<std::string> keys_;  // of parts_, in the order made
  std::map<ConnId, Awaiting> outstanding_;
  std::vector<ConnId> closed_;
  Verdict verdict_;
  std::size_t events_ = 0;
  std::size_t max_live_ = 0;
};

// A verdict with the standard explanation text, built from its reasons
// (shared by observe() and check()).
Verdict describe_failure(Verdict::Status st, const std::string& model_name,
                         const Event& e, std::size_t index, std::vector<Reason> why,
                         std::optional<std::size_t> live_before = std::nullopt);

// Whole-trace check: the same derived model, partitions and network
// semantics as observe(), searched depth-first with memoization (it stops at
// the first explanation of the whole trace). Reject names the first event
// that no explanation gets past.
Verdict check(const ServerModel& model, const std::vector<Event>& trace,
              OracleOptions options = {});

}  // namespace dualfuzz::oracle
