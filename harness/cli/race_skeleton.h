// What a violating run's trace says about the race behind it, and the
// race's skeleton as a script (`dualfuzz fuzz --keep-going` reports it when
// shrinking a long race fails).
//
//   RunResult r = player.play(script);                  // a (concurrent) violation
//   if (auto d = cli::distilled(script, r, fns)) ...    // replay *d until it shows
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/script.h"

namespace dualfuzz::cli {

// The request (in the trace) whose response killed the last explanation, or
// nullptr (a protocol or liveness violation, or a kill at a request).
inline const harness::Json* killing_request(const harness::RunResult& r) {
  if (r.verdict.event_index >= r.events.size()) return nullptr;
  const oracle::Event& e = r.events[r.verdict.event_index];
  if (e.kind != oracle::Event::Kind::Response) return nullptr;
  return r.trace.find(harness::request_of(e.label));
}

inline std::string path_of(const harness::Json& q) {
  return q.is_object() && q.contains("path") && q["path"].is_string()
             ? q["path"].get<std::string>()
             : "";
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
                                                const harness::FunctionRegistry& fns) {
  const harness::Json* kill = killing_request(r);
  if (!kill) return std::nullopt;
  const std::string path = path_of(*kill);
  const auto wire = wire_conns(r);
  const auto& msgs = r.trace.messages();
  constexpr std::size_t kNever = static_cast<std::size_t>(-1);
  std::map<harness::Label, std::size_t> sent, answered;  // message positions
  harness::Label k = 0;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    if (!harness::is_request_label(msgs[i].label)) {
      answered[harness::request_of(msgs[i].label)] = i;
    } else {
      sent[msgs[i].label] = i;
      if (&msgs[i].ir == kill) k = msgs[i].label;
    }
  }
  if (!sent.count(k)) return std::nullopt;
  auto at = [](const std::map<harness::Label, std::size_t>& m, harness::Label l) {
    auto it = m.find(l);
    return it == m.end() ? kNever : it->second;
  };
  auto conn = [&](harness::Label l) {
    auto it = wire.find(l);
    return it == wire.end() ? oracle::ConnId{0} : it->second;
  };
  std::set<harness::Label> before, during;
  for (const auto& [l, i] : sent) {
    if (l == k || path_of(msgs[i].ir) != path) continue;
    if (at(answered, l) < sent[k])
      before.insert(l);
    else if (i < at(answered, k) && conn(l) != conn(k))
      during.insert(l);
  }
  if (during.empty()) return std::nullopt;
  std::map<harness::Label, const harness::RequestStep*> step;
  for (const auto& st : s.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st)) step[q->label] = q;
  std::vector<harness::Label> work(before.begin(), before.end());
  work.insert(work.end(), during.begin(), during.end());
  work.push_back(k);
  while (!work.empty()) {
    const harness::Label l = work.back();
    work.pop_back();
    if (!step.count(l)) return std::nullopt;
    for (const auto& ref : harness::references(step[l]->body)) {
      const harness::Label t = ref.label % 2 ? ref.label : ref.label - 1;
      if (t != k && !before.count(t) && !during.count(t)) {
        before.insert(t);
        work.push_back(t);
      }
    }
  }
  harness::Script out;
  for (const auto& st : s.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st);
        q && before.count(q->label)) {
      harness::RequestStep r0 = *q;
      r0.conn = 0;
      out.steps.emplace_back(std::move(r0));
      out.steps.emplace_back(harness::WaitStep{q->label});
    }
  std::vector<harness::Label> race(during.begin(), during.end());
  race.push_back(k);
  std::sort(race.begin(), race.end(),
            [&](harness::Label a, harness::Label b) { return sent[a] < sent[b]; });
  for (harness::Label l : race) {
    harness::RequestStep q = *step[l];
    q.conn = l == k ? 0 : 1;
    out.steps.emplace_back(std::move(q));
  }
  if (out == s || harness::validate(out, fns)) return std::nullopt;
  return out;
}

}  // namespace dualfuzz::cli
