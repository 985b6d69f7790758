#include "dualfuzz/oracle/oracle.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <exception>
#include <set>
#include <thread>

#include "dualfuzz/oracle/history_check.h"

namespace dualfuzz::oracle {
namespace {
std::string brief(const Json& v) { return brief_json(v, 200); }

Reason unsolicited_response(ConnId c) {
  return Reason::generic(Reason::Kind::NothingOutstanding, "connection",
                         "no request is outstanding on " + connection_name(c) +
                             ": a server answers only what it was asked (unsolicited "
                             "response)");
}
}  // namespace

Verdict describe_failure(Verdict::Status st, const std::string& model_name,
                         const Event& e, std::size_t index, std::vector<Reason> why,
                         std::optional<std::size_t> live_before) {
  Verdict v;
  v.status = st;
  v.event_index = index;
  std::string s;
  if (st == Verdict::Status::Reject) {
    s = "VIOLATION at event " + std::to_string(index) + ": " + e.describe() +
        "\nNo correct " + model_name +
        " server, across any TCP reordering, could have produced this trace.";
    if (live_before)
      s += " " + std::to_string(*live_before) +
           " explanation(s) were alive before this message.";
    s += " The explanations died because:\n";
  } else {
    s = "INCONCLUSIVE at event " + std::to_string(index) + ": " + e.describe() +
        "\nThe oracle stopped without a verdict:\n";
  }
  for (const Reason& r : why)
    s += "  - " + (r.clause.empty() ? std::string() : "broke " + r.clause + ": ") +
         r.text + "\n";
  v.explanation = s;
  v.reasons = std::move(why);
  return v;
}

std::string Event::describe() const {
  const std::string c = connection_name(conn);
  // On a connection the server opened, the roles turn: the tester answers
  // what the server forwards (docs/proxy.md).
  const bool origin = conn >= kFirstAcceptedConn;
  switch (kind) {
    case Kind::Open:
      return c + " opened";
    case Kind::Close:
      return c + " closed";
    case Kind::Request:
      if (origin && label == 0) return c + " opened by the server";
      return (origin ? "answer " : "request ") + std::to_string(label) + " sent on " + c +
             ": " + brief(payload());
    case Kind::Response:
      return (origin ? "forwarded request " : "response ") + std::to_string(label) +
             " received on " + c + ": " + brief(payload());
  }
  return "?";
}

namespace {
constexpr const char* kKindNames[] = {"open", "request", "response", "close"};
}

Json Event::to_json() const {
  Json j = {{"kind", kKindNames[static_cast<int>(kind)]}, {"conn", conn}};
  if (kind == Kind::Request || kind == Kind::Response) {
    j["label"] = label;
    j["body"] = payload();
  }
  return j;
}

std::optional<Event> Event::from_json(const Json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string() ||
      !j.contains("conn") || !j["conn"].is_number_unsigned())
    return std::nullopt;
  const std::string& k = j["kind"].get_ref<const std::string&>();
  const auto c = j["conn"].get<ConnId>();
  if (k == "open") return Event::open(c);
  if (k == "close") return Event::close(c);
  if (k != "request" && k != "response") return std::nullopt;
  if (!j.contains("label") || !j["label"].is_number_unsigned() || !j.contains("body"))
    return std::nullopt;
  const auto l = j["label"].get<Label>();
  return k == "request" ? Event::request(c, l, j["body"]) : Event::response(c, l, j["body"]);
}

Oracle::Oracle(ServerModel model, OracleOptions options)
    : Oracle(model, options,
             std::make_shared<Solver>(options.solver_timeout_ms, model.strings)) {}

Oracle::Oracle(ServerModel model, OracleOptions options, std::shared_ptr<Solver> solver)
    : model_(std::move(model)), options_(options), solver_(std::move(solver)) {
  if (!solver_) throw std::invalid_argument("Oracle: null solver");
  if (!model_.initial) throw std::invalid_argument("ServerModel without an initial tree");
  initial_ = model_.initial();
  shared_ = make_search_shared();
  if (!model_.partition) partition_for("");
}

HypothesisSearch& Oracle::partition_for(const std::string& key, bool unknown) {
  auto it = parts_.find(key);
  if (it != parts_.end()) return it->second;
  it = parts_
           .emplace(key, HypothesisSearch(unknown ? model_.unknown() : initial_, *solver_,
                                          options_.limits, model_.decode, shared_))
           .first;
  keys_.push_back(key);
  // A new partition has seen none of its requests, but it must know which
  // connections are already closed.
  for (ConnId c : closed_) it->second.connection_closed(c);
  return it->second;
}

Verdict Oracle::fail(Verdict::Status st, const Event& e, std::vector<Reason> why,
                     std::size_t live_before) {
  verdict_ =
      describe_failure(st, model_.name, e, events_ - 1, std::move(why), live_before);
  return verdict_;
}

Verdict Oracle::observe(const Event& e) {
  if (!verdict_.accepted()) return verdict_;
  ++events_;
  StepOutcome out;
  std::size_t live_before = 0;
  switch (e.kind) {
    case Event::Kind::Open:
      break;
    case Event::Kind::Close:
      closed_.push_back(e.conn);
      for (auto& [k, p] : parts_) p.connection_closed(e.conn);
      outstanding_.erase(e.conn);
      break;
    case Event::Kind::Request: {
      Awaiting& a = outstanding_[e.conn];
      if (!model_.partition) {
        a.parts.push_back(&parts_.begin()->second);  // the one partition
        a.sizes.push_back(1);
        out = a.parts.back()->request_sent(e.conn, e.label, e.body);
        break;
      }
      PartitionRouter::Route r = router_.route(model_, e.payload(), keys_);
      HypothesisSearch* part = &partition_for(r.key, r.unknown);
      a.parts.push_back(part);
      a.sizes.push_back(static_cast<std::uint32_t>(1 + r.foreign.size()));
      out = part->request_sent(e.conn, e.label, e.body);
      if (!r.foreign.empty()) {
        auto wrapped =
            std::make_shared<const Json>(PartitionRouter::foreign(e.payload()));
        for (const std::string& k : r.foreign) {
          HypothesisSearch* other = &partition_for(k, r.starts_unknown(k));
          a.parts.push_back(other);
          StepOutcome o = other->request_sent(e.conn, e.label, wrapped);
          if (out.status == StepOutcome::Status::Alive) out = std::move(o);
        }
      }
      break;
    }
    case Event::Kind::Response: {
      auto it = outstanding_.find(e.conn);
      if (it == outstanding_.end() || it->second.empty()) {
        return fail(Verdict::Status::Reject, e, {unsolicited_response(e.conn)}, 0);
      }
      Awaiting& a = it->second;
      const std::size_t first = a.at, n = a.sizes[a.head++];
      a.at += n;
      for (std::size_t i = first; i < first + n; ++i) {
        HypothesisSearch& p = *a.parts[i];
        const std::size_t before = p.hypotheses().size();
        StepOutcome o = p.response_received(e.conn, e.label, e.payload());
        if (i == first || (out.status == StepOutcome::Status::Alive &&
                           o.status != StepOutcome::Status::Alive)) {
          out = std::move(o);
          live_before = before;
        }
      }
      if (a.empty()) {  // (start over: the FIFO stays small)
        a.parts.clear();
        a.sizes.clear();
        a.head = a.at = 0;
      }
      break;
    }
  }
  std::size_t live = 0;
  for (auto& [k, p] : parts_) live += p.hypotheses().size();
  max_live_ = std::max(max_live_, live);
  if (out.status == StepOutcome::Status::Dead)
    return fail(Verdict::Status::Reject, e, std::move(out.reasons), live_before);
  if (out.status == StepOutcome::Status::GaveUp)
    return fail(Verdict::Status::Inconclusive, e, std::move(out.reasons), live_before);
  return verdict_;
}

std::vector<Explanation> Oracle::explanations(std::size_t max) const {
  std::vector<Explanation> out;
  for (const auto& [key, part] : parts_) {
    std::size_t n = 0;
    for (const Hypothesis& h : part.hypotheses()) {
      if (n++ == max) break;
      Explanation e;
      for (const DecisionTrail* t = h.decisions.get(); t; t = t->earlier.get())
        e.decisions.push_back(t->decision);
      std::reverse(e.decisions.begin(), e.decisions.end());
      e.facts = h.store.formulas();
      out.push_back(std::move(e));
    }
  }
  return out;
}

OracleStats Oracle::stats() const {
  OracleStats s;
  s.events = events_;
  s.max_live_hypotheses = max_live_;
  s.partitions = parts_.size();
  for (const auto& [k, p] : parts_) {
    s.live_hypotheses += p.hypotheses().size();
    s.explored += p.explored();
    s.went_depth_first = s.went_depth_first || p.went_depth_first();
  }
  s.solver = solver_->stats();
  return s;
}

std::vector<Json> Oracle::model_states(std::size_t max) const {
  std::vector<Json> out;
  for (const auto& [k, p] : parts_)
    for (const auto& h : p.hypotheses()) {
      if (out.size() >= max) return out;
      out.push_back(h.model_state());
    }
  return out;
}

namespace {
// A partition's observations, routed from the trace.
struct Part {
  std::vector<Observation> obs;
  std::vector<std::size_t> event_of;  // observation -> trace index
};

// The orders a partition's depth-first search tries requests in
// (SearchLimits::Order), a portfolio: which one finds an explanation soon
// depends on the history, and much. c50-ok, configurations to decide each
// of its ten partitions:
//   oldest first     21,121 15,724  7,056 5,269  62,862 2,250 2,084 4,622 3,124 53,752
//   first answered    6,837    697 11,131 3,742 186,680   301   437 2,684 1,031 13,519
//   newest first      9,960  3,999 12,209 3,845   6,347 1,266 1,386 4,445 1,419 17,076
// (etcd's histories are cheapest first answered first: 714 M instructions
// for the 102 with it and oldest first, 896 M with newest first instead.)
// At each budget first answered first runs first, then newest first on
// the partitions it left undecided, then oldest first with the
// breadth-first search, a budget behind (check_history); the first two
// stop at kProbeBudget: a partition hard for every order is left to the
// one Porcupine uses, and the others cost it at most that budget each.
enum Order : std::size_t { kFirstAnswered = 0, kNewest = 1, kOldest = 2, kOrders = 3 };
constexpr std::size_t kProbeBudget = 20'000;
constexpr SearchLimits::Order kSearchOrder[kOrders] = {SearchLimits::Order::FirstAnswered,
                                                       SearchLimits::Order::Newest,
                                                       SearchLimits::Order::Oldest};

// One partition's search state across budgets. Each of its orders is
// searched by one thread at a time; with several threads each has its own
// solver (a Solver is single-threaded; its Z3 context is made only if
// queried).
struct PartSearch {
  const Part* part = nullptr;
  bool unknown_start = false;
  std::unique_ptr<Solver> own_solver[kOrders];
  Solver* solver[kOrders] = {};
  // Depth-first searches resume with each larger budget instead of restarting.
  std::unique_ptr<HypothesisSearch> depth_first[kOrders];
  // Set when the verdict no longer needs an order's search in progress
  // (SearchLimits::stop; each its own allocation: the searches keep its
  // address).
  std::unique_ptr<std::atomic<bool>> stop[kOrders] = {
      std::make_unique<std::atomic<bool>>(false), std::make_unique<std::atomic<bool>>(false),
      std::make_unique<std::atomic<bool>>(false)};
};

// What one partition's search at one budget found.
struct Attempt {
  StepOutcome::Status status = StepOutcome::Status::Alive;
  std::size_t explained = 0;  // observations of the partition explained (a prefix)
  std::size_t index = 0;      // Dead / GaveUp: the trace's event that decided
  std::vector<Reason> reasons;
  bool stopped = false;  // GaveUp because SearchLimits::stop was set: not read
};

// `resumed`: whether a larger budget may follow in this order (else its
// depth-first search is dropped at once when it gives up).
Attempt attempt(const ServerModel& model, const OracleOptions& options, PartSearch& ps,
                Order order, std::size_t budget, std::size_t limit, bool resumed,
                std::size_t trace_size) {
  const Part& p = *ps.part;
  Solver& solver = *ps.solver[order];
  auto start = [&] { return ps.unknown_start ? model.unknown() : model.initial(); };
  // A portfolio: breadth-first is exhaustive and memoizes across the
  // whole frontier (fast when explanations are few); depth-first stops
  // at the first full explanation (fast when they are many).
  std::size_t stopped = 0;
  StepOutcome out;
  SearchLimits limits = options.limits;
  limits.stop = ps.stop[order].get();
  limits.order = kSearchOrder[order];
  // (The breadth-first half runs beside the oldest-first order only.)
  const int strategies = order == kOldest ? 2 : 1;
  for (int strategy = 0; strategy < strategies; ++strategy) {
    if (strategy == 0) {
      auto& search = ps.depth_first[order];
      if (!search)
        search = std::make_unique<HypothesisSearch>(start(), solver, limits, model.decode);
      out = search->check_offline(p.obs, stopped, budget);
      if (out.status != StepOutcome::Status::GaveUp || !resumed || limits.stopped())
        search.reset();
    } else {
      HypothesisSearch search(start(), solver, limits, model.decode);
      // A sixteenth of the depth-first budget below the last, a quarter
      // at the last: this half starts afresh at each budget, and
      // depth-first decided every partition of the Jepsen histories
      // (with a quarter each time, these runs were a seventh of a
      // 50-client check's time).
      out = search.check_breadth_first(p.obs, stopped,
                                       budget == limit ? budget / 4 : budget / 16);
    }
    if (out.status != StepOutcome::Status::GaveUp) break;
  }
  Attempt a;
  a.status = out.status;
  a.stopped = out.status == StepOutcome::Status::GaveUp && limits.stopped();
  if (out.status == StepOutcome::Status::Alive) {
    a.explained = p.obs.size();
    return a;
  }
  a.explained = std::min(stopped, p.obs.size());
  a.index = stopped < p.event_of.size() ? p.event_of[stopped] : trace_size - 1;
  if (out.status == StepOutcome::Status::Dead) {
    // The depth-first search prunes by looking ahead, so its reasons are
    // thin; the breadth-first search names the exact event and why each
    // explanation died. Ask it, within a bounded effort: first looking
    // ahead too, so the event is where no explanation gets past together
    // with the answers still to come (an explanation that only a later
    // answer kills — a concurrent PUT "accepted", 202, answered 204 — is
    // not what the violation is about), then, if that names no mismatch,
    // as the incremental check saw it.
    for (bool lookahead : {true, false}) {
      HypothesisSearch explain(start(), solver, options.limits, model.decode);
      std::size_t at = 0;
      StepOutcome why = explain.check_breadth_first(
          p.obs, at, std::max<std::size_t>(budget, 100'000), lookahead);
      if (why.status != StepOutcome::Status::Dead) continue;
      if (lookahead && std::ranges::none_of(why.reasons, [](const Reason& r) {
            return r.kind == Reason::Kind::Mismatch ||
                   r.kind == Reason::Kind::Contradiction;
          }))
        continue;
      a.index = p.event_of[at];
      a.explained = at;
      a.reasons = std::move(why.reasons);
      return a;
    }
    out.reasons.push_back(Reason::generic(
        Reason::Kind::Other, "response",
        "(found by depth-first search with lookahead: no explanation gets past "
        "this event together with the responses observed after it)"));
  }
  a.reasons = std::move(out.reasons);
  return a;
}

// A partition's search at one budget in one order: round r of partition k
// in order o. One thread's order is (round, order, key): every partition at
// the first budget first answered first, in key order, then newest first
// those that this left undecided; at the next round the same at the next
// budget, then oldest first at the first budget those still undecided; and
// so on.
struct Task {
  std::size_t round = 0, order = 0, part = 0;
  auto operator<=>(const Task&) const = default;
};

// Runs the tasks on `threads` threads (the caller's among them), starting
// from `initial`, without waiting for a round to end before the next
// begins: an order that gave up on a partition at round r is queued at
// round r + 1 at once (`next`), and the threads take the least task queued,
// as one thread would, so they rarely wait. (Helpers that took the latest
// round's tasks instead, to carry the hardest partitions on early, ran
// ahead of a violation the first round was about to find: c50-bad's
// rejection took twice the work.)
// A partition one task explained is settled: its other tasks are skipped,
// and one running is stopped (`stop(task)`: its search gives up at its next
// configuration). `skip(task, decisive)`, given the least decisive task
// found so far (or none), says whether a task need not start; it must only
// skip tasks one thread would not run after that decisive one, and skip a
// task whenever it skips a lesser one of the same partition and order; a
// running task it comes to skip is stopped too. No task is skipped or
// stopped that one thread would run, except on a settled partition (whose
// tasks can then only explain it or give up: no order finds a violation
// where another found an explanation), so reading the results in task
// order gives one thread's verdict and partitions; some more tasks may
// run. `drop(task)` frees what a skipped task of a settled partition would
// have resumed. Returns each task's result (a stopped task's is never
// read); an exception is raised as one thread would raise it.
template <class Job, class Next, class Skip, class Stop, class Drop>
std::map<Task, Attempt> run_tasks(const std::vector<Task>& initial, unsigned threads,
                                  Job job, Next next, Skip skip, Stop stop, Drop drop) {
  std::mutex mu;
  std::condition_variable cv;
  std::set<Task> queued(initial.begin(), initial.end());
  std::set<Task> running;
  std::set<std::size_t> settled;  // partitions explained
  std::optional<Task> decisive;
  std::map<Task, Attempt> done;
  std::map<Task, std::exception_ptr> failed;
  auto work = [&] {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return !queued.empty() || running.empty(); });
      if (queued.empty()) return;  // (and nothing running: nothing more comes)
      const Task t = *queued.begin();
      queued.erase(queued.begin());
      if (settled.count(t.part)) {
        // (What its order kept for this task is freed now, not at the end;
        // only this task could use it.)
        lock.unlock();
        drop(t);
        lock.lock();
        cv.notify_all();
        continue;
      }
      if (skip(t, decisive)) {
        cv.notify_all();
        continue;
      }
      running.insert(t);
      lock.unlock();
      Attempt a;
      std::exception_ptr e;
      try {
        a = job(t);
      } catch (...) {
        e = std::current_exception();
      }
      lock.lock();
      running.erase(t);
      // (An exception stops one thread there: decisive too.)
      if (e || a.status == StepOutcome::Status::Dead) {
        if (!decisive || t < *decisive) {
          decisive = t;
          for (const Task& r : running)
            if (skip(r, decisive)) stop(r);
        }
      } else if (a.status == StepOutcome::Status::Alive) {
        settled.insert(t.part);
        for (const Task& r : running)
          if (r.part == t.part) stop(r);
      } else if (std::optional<Task> n = next(t, a)) {
        queued.insert(*n);
      }
      if (e) failed.emplace(t, e);
      done.emplace(t, std::move(a));
      cv.notify_all();
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work);
    work();
  }  // (joined)
  // An exception as one thread would raise it: the first in task order
  // among the tasks it would run.
  std::optional<Task> first_decisive;
  for (const auto& [t, a] : done) {
    if (skip(t, first_decisive)) continue;
    if (auto f = failed.find(t); f != failed.end()) std::rethrow_exception(f->second);
    if (a.status == StepOutcome::Status::Dead && !first_decisive) first_decisive = t;
  }
  return done;
}

// Fewer observations than this are checked on the calling thread when the
// number of threads is automatic: starting threads would cost more than
// they save (a fuzz execution's consistency check is tens of events).
constexpr std::size_t kParallelFrom = 512;
}  // namespace

Verdict check(const ServerModel& model, const std::vector<Event>& trace,
              OracleOptions options) {
  return check_history(model, trace, options).verdict;
}

HistoryCheck check_history(const ServerModel& model, const std::vector<Event>& trace,
                           OracleOptions options, HistoryCheckOptions how) {
  if (!model.initial) throw std::invalid_argument("ServerModel without an initial tree");
  if (options.time_budget.count() > 0)
    options.limits.deadline = std::min(
        options.limits.deadline, std::chrono::steady_clock::now() + options.time_budget);
  // Route events to partitions exactly as observe() does, then check each
  // partition depth-first (HypothesisSearch::check_offline).
  std::map<std::string, Part> parts;
  std::map<ConnId, std::vector<std::vector<std::string>>> outstanding;
  std::vector<ConnId> closed;
  std::optional<std::size_t> unsolicited;
  PartitionRouter router;
  std::vector<std::string> keys;        // of `parts`, in the order made
  std::set<std::string> unknown_start;  // partitions that start from model.unknown
  auto part = [&](const std::string& key, bool unknown = false) -> Part& {
    auto [it, fresh] = parts.try_emplace(key);
    if (fresh) keys.push_back(key);
    if (fresh && unknown) unknown_start.insert(key);
    if (fresh)
      for (ConnId c : closed) {
        it->second.obs.push_back({Observation::Kind::Close, c, 0, nullptr});
        it->second.event_of.push_back(0);
      }
    return it->second;
  };
  if (!model.partition) part("");
  for (std::size_t i = 0; i < trace.size() && !unsolicited; ++i) {
    const Event& e = trace[i];
    switch (e.kind) {
      case Event::Kind::Open:
        break;
      case Event::Kind::Close:
        closed.push_back(e.conn);
        outstanding.erase(e.conn);
        for (auto& [k, p] : parts) {
          p.obs.push_back({Observation::Kind::Close, e.conn, 0, nullptr});
          p.event_of.push_back(i);
        }
        break;
      case Event::Kind::Request: {
        PartitionRouter::Route r;
        if (model.partition) r = router.route(model, e.payload(), keys);
        Part& p = part(r.key, r.unknown);
        p.obs.push_back({Observation::Kind::Request, e.conn, e.label, e.body});
        p.event_of.push_back(i);
        std::vector<std::string> to{r.key};
        if (!r.foreign.empty()) {
          auto wrapped =
              std::make_shared<const Json>(PartitionRouter::foreign(e.payload()));
          for (const std::string& k : r.foreign) {
            Part& o = part(k, r.starts_unknown(k));
            o.obs.push_back({Observation::Kind::Request, e.conn, e.label, wrapped});
            o.event_of.push_back(i);
            to.push_back(k);
          }
        }
        outstanding[e.conn].push_back(std::move(to));
        break;
      }
      case Event::Kind::Response: {
        auto it = outstanding.find(e.conn);
        if (it == outstanding.end() || it->second.empty()) {
          unsolicited = i;
          break;
        }
        for (const std::string& k : it->second.front()) {
          Part& p = part(k);
          p.obs.push_back({Observation::Kind::Response, e.conn, e.label, e.body});
          p.event_of.push_back(i);
        }
        it->second.erase(it->second.begin());
        break;
      }
    }
  }
  HistoryCheck result;
  std::vector<PartSearch> searches;
  std::size_t observations = 0;
  for (const auto& [key, p] : parts) {
    PartitionOutcome o;
    o.key = key;
    o.events = p.event_of;
    result.partitions.push_back(std::move(o));
    PartSearch s;
    s.part = &p;
    s.unknown_start = unknown_start.count(key) > 0;
    searches.push_back(std::move(s));
    observations += p.obs.size();
  }
  unsigned threads = how.threads;
  if (threads == 0)
    threads = observations < kParallelFrom
                  ? 1
                  : std::max(1u, std::jthread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, searches.size()));
  Solver shared_solver(options.solver_timeout_ms, model.strings);
  for (PartSearch& s : searches)
    for (std::size_t o = 0; o < kOrders; ++o) {
      if (threads > 1)
        s.own_solver[o] = std::make_unique<Solver>(options.solver_timeout_ms, model.strings);
      s.solver[o] = s.own_solver[o] ? s.own_solver[o].get() : &shared_solver;
    }

  Verdict& best = result.verdict;
  bool decided = false;  // a partition no explanation covers fixed the verdict
  std::size_t best_index = trace.size();
  auto consider = [&](Verdict::Status st, std::size_t index, std::vector<Reason> why) {
    if (decided) return;
    if (index >= best_index && best.status == Verdict::Status::Reject) return;
    if (st == Verdict::Status::Inconclusive && best.status == Verdict::Status::Reject)
      return;
    best_index = index;
    best = describe_failure(st, model.name, trace[index], index, std::move(why));
  };
  if (unsolicited)
    consider(Verdict::Status::Reject, *unsolicited,
             {unsolicited_response(trace[*unsolicited].conn)});
  // Every partition must be explained; one that cannot be is a violation on
  // its own. So search all partitions with a small budget first and raise
  // it only for those still undecided: a violating partition is found
  // without first exhausting a hard, correct one (Porcupine stops at the
  // first failing partition for the same reason). The partitions of one
  // budget are searched in parallel and read in key order, so the first
  // failing one is the one a single thread finds.
  const std::size_t limit = options.limits.max_hypotheses * 4;
  const std::size_t first = std::min<std::size_t>(5'000, limit);
  auto budget = [&](std::size_t round) {
    std::size_t b = first;
    for (std::size_t r = 0; r < round && b < limit; ++r) b = std::min(b * 4, limit);
    return b;
  };
  // Oldest first runs a round behind the other orders, from round 1: its
  // first budget after their second, which decides most partitions they
  // leave at the first (on c50-ok, oldest first at the first budget was 20,000
  // configurations of 100,000, all on partitions the others then decided).
  // The others stop at kProbeBudget.
  auto runs = [&](std::size_t order, std::size_t round) {
    return order == kOldest ? round >= 1 : budget(round) <= kProbeBudget;
  };
  auto order_budget = [&](std::size_t order, std::size_t round) {
    return budget(order == kOldest ? round - 1 : round);
  };
  // The largest budget any order searches at `round`.
  auto round_budget = [&](std::size_t round) {
    std::size_t b = 0;
    for (std::size_t order = 0; order < kOrders; ++order)
      if (runs(order, round)) b = std::max(b, order_budget(order, round));
    return b;
  };
  // The partitions of all rounds are searched in parallel and read below
  // in (round, order, key) order, as one thread runs them, so the first
  // failing one is the one a single thread finds. One thread stops at the
  // first failing partition; with every_partition, after the round that
  // found one once its budget reached after_verdict_budget.
  std::vector<Task> initial;
  for (std::size_t k = 0; k < searches.size(); ++k)
    for (std::size_t order = 0; order < kOrders; ++order)
      initial.push_back(Task{runs(order, 0) ? 0u : 1u, order, k});
  std::map<Task, Attempt> done = run_tasks(
      initial, threads,
      [&](const Task& t) {
        const std::size_t b = order_budget(t.order, t.round);
        const bool resumed = b < limit && runs(t.order, t.round + 1);
        return attempt(model, options, searches[t.part], static_cast<Order>(t.order), b,
                       limit, resumed, trace.size());
      },
      [&](const Task& t, const Attempt& a) -> std::optional<Task> {
        if (a.status != StepOutcome::Status::GaveUp || a.stopped ||
            order_budget(t.order, t.round) == limit)
          return std::nullopt;
        if (!runs(t.order, t.round + 1)) return std::nullopt;
        return Task{t.round + 1, t.order, t.part};
      },
      [&](const Task& t, const std::optional<Task>& decisive) {
        if (!decisive) return false;
        if (!how.every_partition) return *decisive < t;
        return t.round > 0 && decisive->round < t.round &&
               round_budget(t.round - 1) >= how.after_verdict_budget;
      },
      [&](const Task& t) {
        searches[t.part].stop[t.order]->store(true, std::memory_order_relaxed);
      },
      [&](const Task& t) { searches[t.part].depth_first[t.order].reset(); });
  std::vector<std::size_t> pending(searches.size());
  for (std::size_t k = 0; k < pending.size(); ++k) pending[k] = k;
  for (std::size_t round = 0; !pending.empty(); ++round) {
    for (std::size_t order = 0; order < kOrders; ++order) {
      if (!runs(order, round)) continue;
      const std::size_t b = order_budget(order, round);
      std::vector<std::size_t> undecided;
      for (std::size_t k : pending) {
        auto it = done.find(Task{round, order, k});
        // Not run or stopped: the partition was explained by its other
        // order (read there), which one thread may have found later.
        if (it == done.end() || it->second.stopped) {
          undecided.push_back(k);
          continue;
        }
        Attempt& a = it->second;
        PartitionOutcome& o = result.partitions[k];
        o.explained = a.explained;
        if (a.status == StepOutcome::Status::Alive) {
          o.status = PartitionOutcome::Status::Explained;
          o.reasons.clear();
          continue;
        }
        o.reasons = a.reasons;
        if (a.status == StepOutcome::Status::Dead) {
          o.status = PartitionOutcome::Status::Violated;
          consider(Verdict::Status::Reject, a.index, std::move(a.reasons));
          decided = true;
          if (!how.every_partition) return result;
          continue;
        }
        o.status = PartitionOutcome::Status::Unknown;
        undecided.push_back(k);
        if (b == limit && order == kOldest)
          consider(Verdict::Status::Inconclusive, a.index, std::move(a.reasons));
      }
      pending = std::move(undecided);
    }
    if ((runs(kOldest, round) && order_budget(kOldest, round) == limit) ||
        (decided && round_budget(round) >= how.after_verdict_budget))
      break;
  }
  return result;
}

}  // namespace dualfuzz::oracle
