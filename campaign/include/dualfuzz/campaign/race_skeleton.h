// What a violating run's trace says about the race behind it, and the
// race's skeleton as a script (`dualfuzz fuzz --keep-going` reports it when
// shrinking a long race fails).
//
//   RunResult r = player.play(script);                  // a (concurrent) violation
//   if (auto d = campaign::distilled(script, r, protocol)) ...    // replay *d until it
//   shows
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"

namespace dualfuzz::campaign {

// The request (in the trace) whose response killed the last explanation —
// for a violation shown late, the one whose answer it is about
// (RunResult::culprit_event) — or nullptr (a protocol or liveness
// violation, or a kill at a request).
inline const harness::Json* killing_request(const harness::RunResult& r) {
  if (r.blamed_event() >= r.events.size()) return nullptr;
  const oracle::Event& e = r.events[r.blamed_event()];
  if (e.kind != oracle::Event::Kind::Response) return nullptr;
  return r.trace.find(harness::request_of(e.label));
}

// The TCP connection a message went over, as the oracle numbers them: a
// script's `close cN` followed by a request on cN opens a new one, and
// requests already sent on the closed one may still be processed by the
// server, concurrently.
inline std::map<harness::Label, oracle::ConnId> wire_conns(const harness::RunResult& r) {
  std::map<harness::Label, oracle::ConnId> out;
  for (const oracle::Event& e : r.events)
    if (e.kind == oracle::Event::Kind::Request || e.kind == oracle::Event::Kind::Response)
      out.emplace(e.label, e.conn);
  return out;
}

// Requests with the killing request's race key (Protocol::race_key) that
// were in flight at once with another of them on a different connection,
// ascending: the requests a race needs.
inline std::vector<harness::Label> overlapping_requests(const harness::Protocol& p,
                                                        const harness::RunResult& r) {
  std::vector<harness::Label> out;
  const harness::Json* kill = killing_request(r);
  if (!kill) return out;
  const std::string key = p.race_key(*kill);
  const auto wire = wire_conns(r);
  std::map<harness::Label, oracle::ConnId> in_flight;
  auto mark = [&out](harness::Label l) {
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  };
  for (const auto& m : r.trace.messages()) {
    if (!harness::is_request_label(m.label)) {
      in_flight.erase(harness::request_of(m.label));
      continue;
    }
    // (What a proxy forwards on its origin connections is the same request
    // on another connection, not a second one racing it.)
    if (harness::is_accepted_conn(m.conn) || p.race_key(m.ir) != key) continue;
    auto it = wire.find(m.label);
    const oracle::ConnId conn = it == wire.end() ? m.conn : it->second;
    for (const auto& [label, c] : in_flight)
      if (c != conn) {
        mark(label);
        mark(m.label);
      }
    in_flight[m.label] = conn;
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::size_t count_requests(const harness::Script& s) {
  return static_cast<std::size_t>(
      std::count_if(s.steps.begin(), s.steps.end(), [](const harness::Step& st) {
        return std::holds_alternative<harness::RequestStep>(st);
      }));
}

namespace detail {
// A race, read off a violating run: the killing request `k`, the requests
// of its path answered before it was sent (`before`), those in flight with
// it on other connections (`during`) and all those sent before it
// (`earlier`), each in the order sent. `during` is empty when the
// violation needed no other connection.
struct Race {
  harness::Label k = 0;
  std::vector<harness::Label> before, during, earlier;
  std::map<harness::Label, const harness::RequestStep*> step;
  std::map<harness::Label, std::size_t> sent;     // position in the trace
  std::map<harness::Label, oracle::ConnId> conn;  // of the requests in `during`
};

inline std::optional<Race> race_of(const harness::Script& s, const harness::RunResult& r,
                                   const harness::Protocol& p) {
  const harness::Json* kill = killing_request(r);
  if (!kill) return std::nullopt;
  const std::string key = p.race_key(*kill);
  const auto wire = wire_conns(r);
  const auto& msgs = r.trace.messages();
  constexpr std::size_t kNever = static_cast<std::size_t>(-1);
  Race race;
  std::map<harness::Label, std::size_t> answered;  // message positions
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    if (!harness::is_request_label(msgs[i].label)) {
      answered[harness::request_of(msgs[i].label)] = i;
    } else {
      race.sent[msgs[i].label] = i;
      if (&msgs[i].ir == kill) race.k = msgs[i].label;
    }
  }
  if (!race.sent.count(race.k)) return std::nullopt;
  auto at = [](const std::map<harness::Label, std::size_t>& m, harness::Label l) {
    auto it = m.find(l);
    return it == m.end() ? kNever : it->second;
  };
  auto conn = [&](harness::Label l) {
    auto it = wire.find(l);
    return it == wire.end() ? oracle::ConnId{0} : it->second;
  };
  std::vector<std::pair<std::size_t, harness::Label>> before, during, earlier;
  for (const auto& [l, i] : race.sent) {
    if (l == race.k || p.race_key(msgs[i].ir) != key) continue;
    if (i < race.sent[race.k]) earlier.emplace_back(i, l);
    if (at(answered, l) < race.sent[race.k])
      before.emplace_back(i, l);
    else if (i < at(answered, race.k) && conn(l) != conn(race.k)) {
      during.emplace_back(i, l);
      race.conn[l] = conn(l);
    }
  }
  std::sort(before.begin(), before.end());
  std::sort(during.begin(), during.end());
  std::sort(earlier.begin(), earlier.end());
  for (const auto& [i, l] : before) race.before.push_back(l);
  for (const auto& [i, l] : during) race.during.push_back(l);
  for (const auto& [i, l] : earlier) race.earlier.push_back(l);
  for (const auto& st : s.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st)) race.step[q->label] = q;
  return race;
}

// The script: `history` in sequence on c0, each awaited (with the requests
// their references need), then the killing request on c0 and `racers` on
// c1, in the order they were sent (the killing request first with
// `kill_first`). Nullopt if it is no valid script.
inline std::optional<harness::Script> skeleton(const Race& race,
                                               const std::vector<harness::Label>& history,
                                               const std::vector<harness::Label>& racers,
                                               const harness::FunctionRegistry& fns,
                                               bool kill_first = false) {
  std::set<harness::Label> before(history.begin(), history.end());
  const std::set<harness::Label> during(racers.begin(), racers.end());
  std::vector<harness::Label> work(before.begin(), before.end());
  work.insert(work.end(), during.begin(), during.end());
  work.push_back(race.k);
  while (!work.empty()) {
    const harness::Label l = work.back();
    work.pop_back();
    auto it = race.step.find(l);
    if (it == race.step.end()) return std::nullopt;
    for (const auto& ref : harness::references(it->second->body)) {
      const harness::Label t = ref.label % 2 ? ref.label : ref.label - 1;
      if (t != race.k && !before.count(t) && !during.count(t)) {
        before.insert(t);
        work.push_back(t);
      }
    }
  }
  harness::Script out;
  std::vector<harness::Label> hist(before.begin(), before.end());
  auto sent_at = [&](harness::Label l) {
    auto it = race.sent.find(l);
    return it == race.sent.end() ? std::size_t{0} : it->second;
  };
  std::stable_sort(hist.begin(), hist.end(), [&](harness::Label a, harness::Label b) {
    return sent_at(a) < sent_at(b);
  });
  for (harness::Label l : hist) {
    harness::RequestStep q = *race.step.at(l);
    q.conn = 0;
    out.steps.emplace_back(std::move(q));
    out.steps.emplace_back(harness::WaitStep{l});
  }
  std::vector<harness::Label> flight(during.begin(), during.end());
  flight.push_back(race.k);
  std::sort(flight.begin(), flight.end(), [&](harness::Label a, harness::Label b) {
    if (kill_first && (a == race.k || b == race.k)) return a == race.k && b != race.k;
    return sent_at(a) < sent_at(b);
  });
  for (harness::Label l : flight) {
    harness::RequestStep q = *race.step.at(l);
    q.conn = l == race.k ? 0 : 1;
    out.steps.emplace_back(std::move(q));
  }
  if (harness::validate(out, fns)) return std::nullopt;
  return out;
}

// The last n of v.
inline std::vector<harness::Label> last(const std::vector<harness::Label>& v,
                                        std::size_t n) {
  n = std::min(n, v.size());
  return {v.end() - static_cast<std::ptrdiff_t>(n), v.end()};
}

// Appends skeleton(race, history, racers) to `out` unless it is invalid,
// the script `s` itself, or already there.
inline void add_skeleton(std::vector<harness::Script>& out, const harness::Script& s,
                         const Race& race, const std::vector<harness::Label>& history,
                         const std::vector<harness::Label>& racers,
                         const harness::FunctionRegistry& fns, bool kill_first = false) {
  auto c = skeleton(race, history, racers, fns, kill_first);
  if (c && *c != s && std::find(out.begin(), out.end(), *c) == out.end())
    out.push_back(std::move(*c));
}

// Smallest first, stably (references can pull history in).
inline void smallest_first(std::vector<harness::Script>& v) {
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return count_requests(a) < count_requests(b);
  });
}
}  // namespace detail

// A race's counterexample built from its skeleton instead of shrunk: the
// requests on the killing request's path that were answered before it was
// sent go first, in order, each awaited, on c0 (with the requests their
// references need); then the killing request on c0 and the requests of the
// path that were in flight with it on c1, in the order they were sent. A
// race shows on some runs only, and shrinking a long script by deleting
// one step at a time rarely survives a lost race, while this script is
// small from the start and costs little to replay until it shows again.
// Nullopt when the violation needed no other connection.
inline std::optional<harness::Script> distilled(const harness::Script& s,
                                                const harness::RunResult& r,
                                                const harness::Protocol& p) {
  const harness::FunctionRegistry& fns = p.functions;
  auto race = detail::race_of(s, r, p);
  if (!race || race->during.empty()) return std::nullopt;
  auto out = detail::skeleton(*race, race->before, race->during, fns);
  if (!out || *out == s) return std::nullopt;
  return out;
}

// Smaller skeletons to try before `distilled`'s, smallest first: the
// killing request with one racing request at a time (sent in either order),
// after none, any one or the last two requests of the path's history
// (answered before the killing request was sent, or sent before the racer
// on its connection); then with all the racing requests after the last one
// or two. Most races need one other
// request and the state one earlier request made (two PUTs of a new path:
// 4 messages; a GET and a DELETE after the PUT that made the file: 6). A
// candidate that does not show the violation costs a few replays; one that
// does is a counterexample no longer than it must be.
inline std::vector<harness::Script> race_candidates(const harness::Script& s,
                                                    const harness::RunResult& r,
                                                    const harness::Protocol& p) {
  const harness::FunctionRegistry& fns = p.functions;
  std::vector<harness::Script> out;
  auto race = detail::race_of(s, r, p);
  if (!race || race->during.empty()) return out;
  const auto& b = race->before;
  // The racer's history: the path's requests answered before the killing
  // one was sent, and those sent before the racer on its connection (a
  // pipelined PUT that made the content the racer replaces).
  for (harness::Label d : race->during) {
    std::vector<harness::Label> h = b;
    for (harness::Label x : race->during)
      if (x != d && race->conn.at(x) == race->conn.at(d) &&
          race->sent.at(x) < race->sent.at(d))
        h.push_back(x);
    std::stable_sort(h.begin(), h.end(), [&](harness::Label x, harness::Label y) {
      return race->sent.at(x) < race->sent.at(y);
    });
    // After none, any one (the state raced on is often not the latest:
    // a GET in between changed nothing), or the last two.
    std::vector<std::vector<harness::Label>> histories = {{}};
    for (harness::Label x : h) histories.push_back({x});
    if (h.size() >= 2) histories.push_back(detail::last(h, 2));
    // Which of two racing requests is sent first is the script's choice,
    // and a race may show far more often one way (a GET sent just before a
    // PUT reads the file while the PUT rewrites it): each order.
    for (const auto& hist : histories)
      for (bool kill_first : {false, true})
        detail::add_skeleton(out, s, *race, hist, {d}, fns, kill_first);
  }
  if (race->during.size() > 1)
    for (std::size_t n = 1; n <= 2 && n <= b.size(); ++n)
      detail::add_skeleton(out, s, *race, detail::last(b, n), race->during, fns);
  detail::smallest_first(out);
  return out;
}

// The killing request's path in sequence: the last 0, 1, 2 or 3 requests
// of the path sent before the killing request, then all of them, each on
// c0 and awaited (with the requests their references need), then the
// killing request; smallest first. For a violation that did not show again
// (a reference resolved against an answer from another connection that
// came later on the replay) or whose counterexample stayed long (requests
// of the path that only slow the shrinker down): each is a short script
// that may show the same violation deterministically. No candidate without
// a killing request (a protocol or liveness violation).
inline std::vector<harness::Script> sequential_candidates(const harness::Script& s,
                                                          const harness::RunResult& r,
                                                          const harness::Protocol& p) {
  const harness::FunctionRegistry& fns = p.functions;
  std::vector<harness::Script> out;
  auto race = detail::race_of(s, r, p);
  if (!race) return out;
  const auto& e = race->earlier;
  std::set<std::size_t> sizes = {e.size()};
  for (std::size_t n = 0; n <= 3 && n <= e.size(); ++n) sizes.insert(n);
  for (std::size_t n : sizes)
    detail::add_skeleton(out, s, *race, detail::last(e, n), {}, fns);
  detail::smallest_first(out);
  return out;
}

}  // namespace dualfuzz::campaign
