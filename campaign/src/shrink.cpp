#include "dualfuzz/campaign/shrink.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

#include "dualfuzz/campaign/race_skeleton.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/harness/sequence_chart.h"
#include "dualfuzz/mutator/script_mutator.h"

namespace dualfuzz::campaign {

using harness::Json;
using harness::RunResult;
using harness::Script;
using Kind = ShrinkCandidate::Kind;

mutator::FailingRun failing_run(const harness::Protocol& p, const RunResult& r) {
  mutator::FailingRun out{r.trace, {}};
  const Json* kill = killing_request(r);
  if (r.outcome != RunResult::Outcome::ModelViolation || !kill) return out;
  const std::string key = p.race_key(*kill);
  for (const auto& m : r.trace.messages())
    if (harness::is_request_label(m.label) && p.race_key(m.ir) != key)
      out.unrelated.insert(m.label);
  return out;
}

std::set<std::string> reasons(const harness::Protocol&, const RunResult& r) {
  return harness::reason_keys(r);  // (from the verdict's reasons, not its text)
}

std::optional<Script> serialized(const Script& s, const harness::FunctionRegistry& fns) {
  Script out;
  for (const auto& st : s.steps) {
    if (const auto* q = std::get_if<harness::RequestStep>(&st)) {
      harness::RequestStep r = *q;
      r.conn = 0;
      out.steps.emplace_back(std::move(r));
      out.steps.emplace_back(harness::WaitStep{q->label});
    } else if (std::holds_alternative<harness::CommentStep>(st)) {
      out.steps.push_back(st);
    }
  }
  if (out == s || harness::validate(out, fns)) return std::nullopt;
  return out;
}

std::optional<Script> serialized_as_answered(const Script& s, const RunResult& run,
                                             const harness::FunctionRegistry& fns) {
  std::map<harness::Label, std::size_t> answered;  // request label -> position
  std::size_t i = 0;
  for (const auto& m : run.trace.messages()) {
    if (!harness::is_request_label(m.label))
      answered.emplace(harness::request_of(m.label), i);
    ++i;
  }
  std::vector<harness::RequestStep> requests;
  for (const auto& st : s.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st)) requests.push_back(*q);
  auto position = [&](const harness::RequestStep& q) {
    auto it = answered.find(q.label);
    return it == answered.end() ? run.trace.size() : it->second;
  };
  std::stable_sort(requests.begin(), requests.end(),
                   [&](const auto& a, const auto& b) { return position(a) < position(b); });
  Script ordered;
  for (harness::RequestStep& q : requests) ordered.steps.emplace_back(std::move(q));
  auto out = serialized(ordered, fns);
  if (!out || *out == s) return std::nullopt;
  return out;
}

namespace {

// How many accepted states a shrink that did not show again goes back over
// (ViolationShrinker::confirm) before the start.
constexpr std::size_t kMaxStepsBack = 4;

// The requests on the killing request's race key alone (with those their
// references need): a race's other paths are most of its counterexample,
// and one unlucky timing would keep them all.
std::optional<Script> only_the_path(const harness::Protocol& p, const Script& s,
                                    const RunResult& run) {
  const mutator::FailingRun f = failing_run(p, run);
  if (f.unrelated.empty()) return std::nullopt;
  std::set<harness::Label> needed;
  for (const auto& st : s.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st);
        q && !f.unrelated.count(q->label))
      for (const auto& ref : harness::references(q->body))
        needed.insert(ref.label % 2 ? ref.label : ref.label - 1);
  Script cand = s;
  std::erase_if(cand.steps, [&](const harness::Step& st) {
    const auto* q = std::get_if<harness::RequestStep>(&st);
    return q && f.unrelated.count(q->label) && !needed.count(q->label);
  });
  mutator::ScriptMutator::repair(cand);
  if (cand == s) return std::nullopt;
  return cand;
}

ShrinkCandidate candidate(Kind k, Script s, int plays) {
  ShrinkCandidate c;
  c.kind = k;
  c.script = std::move(s);
  c.plays = plays;
  return c;
}

}  // namespace

bool ViolationShrinker::same(const RunResult& x, const std::string& key) const {
  if (!x.violation() || (o_.known && o_.known(x))) return false;
  return (o_.same_violation ? quick_key(p_, x) : std::string(kind_name(x.outcome))) ==
         key;
}

bool ViolationShrinker::shows(const Script& s, const std::string& key, int tries,
                              RunResult& out) const {
  for (int i = 0; i < tries; ++i) {
    out = play_(s);
    if (same(out, key)) return true;
  }
  return false;
}

std::vector<Script> plainer_candidates(const harness::Protocol& p, const Script& s,
                                       harness::Label keep) {
  std::vector<Script> out;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto* q = std::get_if<harness::RequestStep>(&s.steps[i]);
    if (!q || (keep && q->label == keep)) continue;
    if (auto body = p.plainer(q->body)) {
      Script c = s;
      std::get<harness::RequestStep>(c.steps[i]).body = std::move(*body);
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<Script> flatter_candidates(const harness::Protocol& p, const Script& s) {
  std::vector<harness::Jexp> bodies;
  for (const auto& st : s.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st)) bodies.push_back(q->body);
  std::vector<Script> out;
  for (std::vector<harness::Jexp>& moved : p.flatter(bodies)) {
    if (moved.size() != bodies.size()) continue;  // (a plug-in's mistake: not tried)
    Script c = s;
    std::size_t k = 0;
    for (auto& st : c.steps)
      if (auto* q = std::get_if<harness::RequestStep>(&st))
        q->body = std::move(moved[k++]);
    out.push_back(std::move(c));
  }
  return out;
}

// quick_key keeps the killing request's preconditions, so the structural
// candidates cannot drop one the violation does not need (a reused ETag
// shows with or without If-Modified-Since): each is tried dropped, as a
// candidate that must show the same violation at the same request without
// it.
void ViolationShrinker::add_lighter(const ShrinkState& s,
                                    std::vector<ShrinkCandidate>& out,
                                    bool restating_only) const {
  const Json* kill = killing_request(s.run);
  if (!kill) return;
  for (std::size_t i = 0; i < s.script.steps.size(); ++i) {
    const auto* q = std::get_if<harness::RequestStep>(&s.script.steps[i]);
    if (!q || s.run.trace.find(q->label) != kill) continue;
    for (const harness::Protocol::Lighter& l : p_.lighter(q->body, *kill)) {
      if (restating_only && !l.restates) continue;
      ShrinkCandidate c = candidate(Kind::Lighter, s.script, 3);
      std::get<harness::RequestStep>(c.script.steps[i]).body = l.body;
      c.want = model_key(p_, p_.request_shape(l.sent), s.run);
      c.restates = l.restates;
      out.push_back(std::move(c));
    }
    return;
  }
}

// A long race is built again from its skeleton: the smallest ones first
// (the killing request with one racing request, after at most two earlier
// ones), up to 25 runs or 2 s each, then the whole skeleton (`distilled`),
// up to 200 runs or 10 s. A long counterexample without a race: the path's
// last requests in sequence (the structural candidates keep a step whose
// removal changed what an unrelated reference resolved to).
void ViolationShrinker::add_races(const ShrinkState& s, bool flaky,
                                  std::vector<ShrinkCandidate>& out) const {
  const std::size_t n = s.run.trace.size();
  if (n <= kShortRace) return;
  if (concurrent(p_, s.run)) {
    for (Script& c : race_candidates(s.script, s.run, p_)) {
      out.push_back(candidate(Kind::Skeleton, std::move(c), 25 * o_.effort));
      out.back().seconds = 2.0 * o_.effort;
      out.back().max_messages = n;
    }
    if (auto d = distilled(s.script, s.run, p_)) {
      out.push_back(candidate(Kind::Skeleton, std::move(*d), 200 * o_.effort));
      out.back().seconds = 10.0 * o_.effort;
      out.back().max_messages = n;
    }
    return;
  }
  for (Script& c : sequential_candidates(s.script, s.run, p_))
    if (count_requests(c) < count_requests(s.script)) {
      out.push_back(candidate(Kind::Sequential, std::move(c), flaky ? 8 : 3));
      out.back().max_messages = n;
    }
}

// The label of the request whose answer no explanation survived (0: none).
static harness::Label killing_label(const ShrinkState& s) {
  const Json* kill = killing_request(s.run);
  if (!kill) return 0;
  for (const auto& st : s.script.steps)
    if (const auto* q = std::get_if<harness::RequestStep>(&st);
        q && s.run.trace.find(q->label) == kill)
      return q->label;
  return 0;
}

// A copied date a second either way (Protocol::nudges), to be shown in
// each of 3 plays: it makes nothing smaller, and is worth taking only where
// it moves a comparison off its boundary (lighttpd's If-Unmodified-Since
// ignored on GET, which a PUT's Date showed only when lighttpd's clock
// lagged), not onto it (taken on one play, a date a second later met an
// off-by-one once, under load, and never in a replay). Not for a race:
// its plays show now and then whatever the script.
void ViolationShrinker::add_nudged(const ShrinkState& s,
                                   std::vector<ShrinkCandidate>& out) const {
  for (Script& c : mutator::nudged_candidates(s.script, failing_run(p_, s.run),
                                              p_.functions, p_.nudges))
    out.push_back(candidate(Kind::Nudged, std::move(c), 3));
}

std::vector<ShrinkCandidate> ViolationShrinker::candidates(const ShrinkState& s,
                                                           bool flaky) const {
  std::vector<ShrinkCandidate> out;
  // First, a literal another run gave made a reference to a probe: until
  // then it names a stale state on every replay and nothing else shows
  // (nginx's tag of a file's time, where its 201 carries none).
  for (Script& c : mutator::probed_candidates(s.script, failing_run(p_, s.run),
                                              p_.functions, p_.probe))
    out.push_back(candidate(Kind::Structural, std::move(c), flaky ? 4 : 1));
  if (!o_.same_violation) {
    // (Any violation will do, but a restated precondition must still show
    // this one: it tells two defects of one field apart, e.g. If-Match
    // ignored from If-Match compared weakly.)
    add_lighter(s, out, /*restating_only=*/true);
    for (Script& c : mutator::structural_candidates(s.script, failing_run(p_, s.run),
                                                    p_.functions, p_.required_fields))
      out.push_back(candidate(Kind::Structural, std::move(c), 1));
    for (Script& c : plainer_candidates(p_, s.script, killing_label(s)))
      out.push_back(candidate(Kind::Structural, std::move(c), 1));
    for (Script& c : flatter_candidates(p_, s.script))
      out.push_back(candidate(Kind::Structural, std::move(c), 1));
    if (!flaky) add_nudged(s, out);
    return out;
  }
  // A race shows on some runs only: each candidate gets four chances (the
  // path alone eight), or the loop would keep whatever happened to be in
  // the first run that lost the race.
  if (flaky)
    if (auto c = only_the_path(p_, s.script, s.run))
      out.push_back(candidate(Kind::OnlyThePath, std::move(*c), 8));
  add_lighter(s, out);
  for (Script& c : mutator::structural_candidates(s.script, failing_run(p_, s.run),
                                                  p_.functions, p_.required_fields))
    out.push_back(candidate(Kind::Structural, std::move(c), flaky ? 4 : 1));
  // (The killing request keeps its kind: the violation's name holds it.)
  for (Script& c : plainer_candidates(p_, s.script, killing_label(s)))
    out.push_back(candidate(Kind::Structural, std::move(c), flaky ? 4 : 1));
  for (Script& c : flatter_candidates(p_, s.script))
    out.push_back(candidate(Kind::Structural, std::move(c), flaky ? 4 : 1));
  if (!flaky) add_nudged(s, out);
  // The signature says "concurrent" only when the race is needed: the
  // interaction in sequence is tried (only for a race: a sequence it would
  // lengthen by its waits, which the structural candidates take out again).
  if (concurrent(p_, s.run)) {
    auto seq = serialized(s.script, p_.functions);
    if (seq) out.push_back(candidate(Kind::Serialized, *seq, 3));
    if (auto as = serialized_as_answered(s.script, s.run, p_.functions); as && as != seq)
      out.push_back(candidate(Kind::Serialized, std::move(*as), 3));
  }
  add_races(s, flaky, out);
  return out;
}

mutator::Tested<ShrinkState> ViolationShrinker::test(const ShrinkCandidate& c,
                                                     const ShrinkState& from) const {
  const auto t0 = std::chrono::steady_clock::now();
  auto in_time = [&] {
    return !past_deadline() &&
           (c.seconds <= 0 ||
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <
                c.seconds);
  };
  mutator::Tested<ShrinkState> out{std::nullopt, 0};
  for (int i = 0; i < c.plays && in_time(); ++i) {
    RunResult x = play_(c.script);
    ++out.replays;
    std::string key = from.key;
    bool ok = same(x, key);
    if (c.kind == Kind::Lighter) {
      // ... and for no new reason: without If-Match, a PUT that ignored it
      // may still fail for reusing an ETag, which is another bug.
      // (Shrinking to any violation, the state keeps its key: the outcome's.)
      if (o_.same_violation) key = c.want;
      const std::set<std::string> was = reasons(p_, from.run), now = reasons(p_, x);
      ok = x.violation() && quick_key(p_, x) == c.want &&
           (c.restates ? std::ranges::any_of(
                             now, [&](const std::string& r) { return was.count(r) > 0; })
                       : std::ranges::includes(was, now));
      // Answered otherwise, but breaking what the original broke, where it
      // broke it (signature.h `obligations`): the same defect shown more
      // simply (a Range beside the If-None-Match that a server ignored for
      // If-Modified-Since made its answer 206 instead of 200).
      if (!ok && !c.restates && x.violation() && std::ranges::includes(was, now) &&
          quick_key(p_, x).starts_with(c.want.substr(0, c.want.rfind(" -> ") + 4))) {
        const std::set<std::string> broke = obligations(from.run);
        ok = std::ranges::any_of(
            obligations(x), [&](const std::string& o) { return broke.count(o) > 0; });
        if (ok && o_.same_violation) key = quick_key(p_, x);
      }
    } else if (c.kind == Kind::Structural && !ok && o_.same_violation && x.violation() &&
               names_better(from.run, x)) {
      // With a step less the violation names what broke (signature.h,
      // names_better): that is the bug to report, under its own name.
      key = quick_key(p_, x);
      ok = true;
    } else if (c.kind == Kind::Serialized && !ok &&
               x.outcome == RunResult::Outcome::ModelViolation && killing_request(x)) {
      // Another violation in sequence (a DELETE that ignored If-None-Match,
      // seen concurrently as a later HEAD's 404) is the bug to report.
      key = quick_key(p_, x);
      ok = true;
    }
    if (ok && c.max_messages && x.trace.size() >= c.max_messages) ok = false;
    if (ok && o_.known && o_.known(x)) ok = false;  // (Lighter, Serialized)
    if (c.kind == Kind::Nudged) {
      // (Every play must show it: the last one's run is the state's.)
      if (!ok) return {std::nullopt, out.replays};
      if (i + 1 < c.plays) continue;
    }
    if (ok) {
      out.state = ShrinkState{c.script, std::move(x), std::move(key)};
      return out;
    }
  }
  return out;
}

mutator::Shrunk<ShrinkState> ViolationShrinker::settle(ShrinkState start) const {
  auto out = settle_once(std::move(start));
  // Gone back to a state that shows it: the loop once more from there (a
  // lucky candidate, played again, is refused now).
  if (out.stats.went_back > 0 && !past_deadline()) {
    auto again = settle_once(out.best);
    again.stats.tests += out.stats.tests;
    again.stats.replays += out.stats.replays;
    again.stats.accepted += out.stats.accepted;
    again.stats.went_back += out.stats.went_back;
    out = std::move(again);
  }
  return out;
}

mutator::Shrunk<ShrinkState> ViolationShrinker::settle_once(ShrinkState start) const {
  const bool flaky = concurrent(p_, start.run);
  // The start and the last states the loop accepted, in order: a result
  // that does not show again goes back along them.
  std::vector<ShrinkState> path{start};
  // The loop's test needs the state a candidate came from (Lighter compares
  // reasons with it): candidates are tested against the current best.
  const ShrinkState* current = &start;
  mutator::Shrinker<ShrinkState, ShrinkCandidate> s;
  s.candidates = [&](const ShrinkState& st) {
    current = &st;
    return candidates(st, flaky);
  };
  s.test = [&](const ShrinkCandidate& c) {
    auto t = test(c, *current);
    if (t.state) {
      // (Only the start and the states confirm may go back to are kept.)
      if (path.size() > kMaxStepsBack + 1) path.erase(path.begin() + 1);
      path.push_back(*t.state);
    }
    return t;
  };
  s.memo_key = [&](const ShrinkCandidate& c) {
    return std::to_string(static_cast<int>(c.kind)) + "\n" + current->key + "\n" +
           c.want + "\n" + harness::print_script(c.script);
  };
  const std::size_t budget = o_.same_violation ? 5 * o_.max_replays : o_.max_replays;
  mutator::ShrinkBudget b{.max_replays = budget};
  if (o_.deadline != std::chrono::steady_clock::time_point::max())
    b.max_time = std::max(std::chrono::steady_clock::duration::zero(),
                          o_.deadline - std::chrono::steady_clock::now());
  auto out = mutator::shrink_greedy(std::move(start), s, b);
  if (path.size() > 1) confirm(out, path);
  return out;
}

// The loop accepts a candidate on one play that shows the violation; that
// play may have been luck (a race, a literal that matched only then).
// What is reported must show again: the result is played again (3 times,
// 8 for a race) and, when it does not show, the states accepted before it
// are, latest first (at most kMaxStepsBack), then the start, which showed
// already (shrink_in_time's replays). The play that showed it is its run.
void ViolationShrinker::confirm(mutator::Shrunk<ShrinkState>& out,
                                const std::vector<ShrinkState>& path) const {
  const int tries = concurrent(p_, out.best.run) ? 8 : 3;
  RunResult again;
  std::size_t back = 0;
  for (std::size_t i = path.size(); i-- > 1 && back <= kMaxStepsBack; ++back) {
    // (The result is played again even past the deadline: a few plays.)
    if (back > 0 && past_deadline()) break;
    if (shows(path[i].script, path[i].key, tries, again)) {
      out.best = ShrinkState{path[i].script, std::move(again), path[i].key};
      out.stats.went_back = back;
      return;
    }
  }
  out.best = path.front();
  out.stats.went_back = back;
}

// The first race skeleton of a violation that did not show again and that
// shows it; only a run of the small script itself that showed it counts.
std::optional<Shrunk> ViolationShrinker::distill(const Script& s, const RunResult& r,
                                                 const std::string& key) const {
  const ShrinkState from{s, r, key};
  std::vector<ShrinkCandidate> list;
  for (Script& c : race_candidates(s, r, p_)) {
    list.push_back(candidate(Kind::Skeleton, std::move(c), 25 * o_.effort));
    list.back().seconds = 2.0 * o_.effort;
  }
  if (auto d = distilled(s, r, p_)) {
    list.push_back(candidate(Kind::Skeleton, std::move(*d), 200 * o_.effort));
    list.back().seconds = 10.0 * o_.effort;
  }
  for (const ShrinkCandidate& c : list)
    if (auto t = test(c, from); t.state)
      return Shrunk{t.state->script, std::move(t.state->run), true};
  return std::nullopt;
}

// A violation that did not show again in its replays.
Shrunk ViolationShrinker::not_shown(const Script& original, const RunResult& r) const {
  const std::string key =
      o_.same_violation ? quick_key(p_, r) : std::string(kind_name(r.outcome));
  // A literal another run gave names a stale state on every replay (a tag
  // that matched within its second): probed, it names the current one.
  RunResult probed;
  for (const Script& c :
       mutator::probed_candidates(original, failing_run(p_, r), p_.functions, p_.probe))
    if (past_deadline()) {
      break;
    } else if (shows(c, key, concurrent(p_, r) ? 8 : 3, probed)) {
      if (!o_.same_violation) return shrink_any(c, probed, probed);
      auto s = settle(ShrinkState{c, probed, key});
      return {s.best.script, s.best.run, true};
    }
  if (o_.same_violation) {
    // A race lost on every replay may still show from its skeleton.
    if (concurrent(p_, r))
      if (auto d = distill(original, r, key)) {
        auto s = settle(ShrinkState{d->script, d->run, key});
        return {s.best.script, s.best.run, true};
      }
    // A violation that needed no race, or a race that did not show from
    // its skeleton, may show with the path's requests in sequence: the
    // original may have lost it to another timing (a reference to an
    // answer from another connection resolved before that answer came).
    RunResult replayed;
    for (const Script& c : sequential_candidates(original, r, p_))
      if (past_deadline()) {
        break;
      } else if (shows(c, key, concurrent(p_, r) ? 8 : 3, replayed)) {
        auto s = settle(ShrinkState{c, replayed, key});
        return {s.best.script, s.best.run, true};
      }
  }
  return {original, r, false};
}

// Any violation of the same kind: the structural loop, its result
// confirmed (one that failed by luck during shrinking gives the original).
Shrunk ViolationShrinker::shrink_any(const Script& original, const RunResult& r,
                                     const RunResult& replayed) const {
  const std::string key = kind_name(r.outcome);
  auto s = settle(ShrinkState{original, replayed, key});
  RunResult again;
  if (!shows(s.best.script, key, concurrent(p_, r) ? 8 : 3, again))
    return {original, replayed, true};
  return {s.best.script, std::move(again), true};
}

bool ViolationShrinker::past_deadline() const {
  return std::chrono::steady_clock::now() >= o_.deadline;
}

Shrunk ViolationShrinker::shrink(const Script& original, const RunResult& r) const {
  Shrunk out = shrink_in_time(original, r);
  if (past_deadline() && out.note.empty()) out.note = kShrinkCut;
  return out;
}

Shrunk ViolationShrinker::shrink_in_time(const Script& original, const RunResult& r) const {
  const std::string key =
      o_.same_violation ? quick_key(p_, r) : std::string(kind_name(r.outcome));
  // A real server may show a violation only under one timing (two racing
  // PUTs): replay a few times before trusting it (a race more often: a
  // replay costs little next to losing the finding's shrinking).
  RunResult replayed;
  if (!shows(original, key, concurrent(p_, r) ? 8 : 3, replayed))
    return not_shown(original, r);
  if (!o_.same_violation) return shrink_any(original, r, replayed);
  auto s = settle(ShrinkState{original, std::move(replayed), key});
  return {s.best.script, std::move(s.best.run), true};
}

}  // namespace dualfuzz::campaign
