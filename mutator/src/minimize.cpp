#include "dualfuzz/mutator/minimize.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "dualfuzz/harness/jexp.h"
#include "dualfuzz/mutator/relink.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/mutator/shrink_loop.h"

namespace dualfuzz::mutator {
using harness::Jexp;
using harness::JexpPos;
using harness::Json;
using harness::Label;
using harness::LabelledTrace;
using harness::RequestStep;
using harness::Script;

namespace {
// Candidate simplifications of a request body: drop one object field (but
// not, at the top, one the protocol requires).
std::vector<Jexp> smaller(const Jexp& e, const std::vector<std::string>& keep = {}) {
  std::vector<Jexp> out;
  if (e.kind() != Jexp::Kind::Object) return out;
  for (std::size_t skip = 0; skip < e.keys().size(); ++skip) {
    if (std::find(keep.begin(), keep.end(), e.keys()[skip]) != keep.end()) continue;
    std::vector<std::pair<std::string, Jexp>> f;
    for (std::size_t i = 0; i < e.keys().size(); ++i)
      if (i != skip) f.emplace_back(e.keys()[i], e.items()[i]);
    out.push_back(Jexp::object(std::move(f)));
  }
  for (std::size_t i = 0; i < e.keys().size(); ++i)
    for (const Jexp& sub : smaller(e.items()[i])) {
      std::vector<std::pair<std::string, Jexp>> f;
      for (std::size_t j = 0; j < e.keys().size(); ++j)
        f.emplace_back(e.keys()[j], j == i ? sub : e.items()[j]);
      out.push_back(Jexp::object(std::move(f)));
    }
  return out;
}

// A reference in a request step, and what it evaluated to in the run.
struct Site {
  std::size_t step;  // index into Script::steps
  JexpPos pos;       // in the step's body
  Jexp::Ref ref;
  Json value;   // what the (loose) evaluation gave when the request was sent
  bool strict;  // the reference's own label gave it
  // Other labels of messages seen before the request whose strict
  // evaluation gives the same value, nearest to ref.label first.
  std::vector<Label> same;
};

// The trace as it was when request `label` was sent (what its references
// were evaluated against); nullopt when it was not sent.
std::optional<LabelledTrace> before(const LabelledTrace& t, Label label) {
  LabelledTrace out;
  for (const auto& m : t.messages()) {
    if (m.label == label) return out;
    out.add(m.label, m.conn, m.ir);
  }
  return std::nullopt;
}

std::optional<Json> strict_at(Jexp::Ref r, Label l, const LabelledTrace& t,
                              const harness::FunctionRegistry& fns) {
  r.label = l;
  auto v = harness::evaluate(Jexp::ref(std::move(r)), t, fns);
  if (!v) return std::nullopt;
  return *v;
}

std::vector<Site> sites(const Script& s, const LabelledTrace& t,
                        const harness::FunctionRegistry& fns) {
  std::vector<Site> out;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto* q = std::get_if<RequestStep>(&s.steps[i]);
    if (!q) continue;
    std::optional<LabelledTrace> seen;
    for (const JexpPos& pos : harness::leaf_positions(q->body)) {
      const std::optional<Jexp> e = harness::jexp_at(q->body, pos);
      if (!e || e->kind() != Jexp::Kind::Reference) continue;
      if (!seen) seen = before(t, q->label);
      if (!seen) break;  // not sent: nothing known
      Site site{i,     pos, e->reference(), harness::evaluate_loose(*e, *seen, fns),
                false, {}};
      site.strict = strict_at(site.ref, site.ref.label, *seen, fns) == site.value;
      std::vector<Label> labels;
      for (const auto& m : seen->messages())
        if (m.label != site.ref.label && m.label != 0) labels.push_back(m.label);
      const Label at = site.ref.label;
      auto dist = [at](Label x) { return x > at ? x - at : at - x; };
      std::stable_sort(labels.begin(), labels.end(), [&](Label a, Label b) {
        return dist(a) != dist(b) ? dist(a) < dist(b) : a < b;
      });
      labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
      for (Label l : labels)
        if (strict_at(site.ref, l, *seen, fns) == site.value) site.same.push_back(l);
      out.push_back(std::move(site));
    }
  }
  return out;
}

void set_at(Script& s, const Site& site, Jexp by) {
  auto& q = std::get<RequestStep>(s.steps[site.step]);
  if (auto b = harness::replace_at(q.body, site.pos, std::move(by)))
    q.body = std::move(*b);
}
Jexp repointed(const Site& site, Label l) {
  Jexp::Ref r = site.ref;
  r.label = l;
  return Jexp::ref(std::move(r));
}
Label request_label(Label l) { return l % 2 ? l : l - 1; }

// Steps the caller says the failure does not involve, all at once (those a
// remaining reference points at stay).
std::optional<Script> without_unrelated(const Script& best, const FailingRun& run,
                                        const std::vector<Site>& at) {
  if (run.unrelated.empty()) return std::nullopt;
  std::set<Label> needed;
  for (const Site& s : at) {
    const auto& q = std::get<RequestStep>(best.steps[s.step]);
    if (!run.unrelated.count(q.label)) needed.insert(request_label(s.ref.label));
  }
  Script cand = best;
  std::erase_if(cand.steps, [&](const harness::Step& st) {
    const auto* q = std::get_if<RequestStep>(&st);
    return q && run.unrelated.count(q->label) && !needed.count(q->label);
  });
  if (cand.steps.size() == best.steps.size()) return std::nullopt;
  return cand;
}

// A value a reference gave that is not written out as a literal: one
// relink.h would make a reference again (an entity tag, a date). It is the
// run's own; while shrinking, within the second the finding was met, a
// literal copy still matches, and on every later replay it names another
// state (Apache's µs tags, lighttpd's Last-Modified: the shrunk findings
// that showed on neither build).
bool run_specific(const Json& v) {
  return v.is_string() && v.get_ref<const std::string&>().size() >= kMinRelinked;
}

// A step that only serves as the target of references: delete it, and
// point its references at another message that gave the same value, or
// make them the value (not a run_specific one: then the step stays).
void without_reference_targets(const Script& best, const std::vector<Site>& at,
                               std::vector<Script>& out) {
  for (std::size_t k = 0; k < best.steps.size(); ++k) {
    const auto* target = std::get_if<RequestStep>(&best.steps[k]);
    if (!target) continue;
    const Label l = target->label;
    Script cand = best;
    bool any = false;
    bool kept = false;  // a reference that must stay one
    for (const Site& s : at) {
      if (s.step == k || request_label(s.ref.label) != l) continue;
      any = true;
      auto alt = std::find_if(s.same.begin(), s.same.end(),
                              [l](Label x) { return request_label(x) != l; });
      if (alt == s.same.end() && run_specific(s.value)) {
        kept = true;
        break;
      }
      set_at(cand, s,
             alt != s.same.end() ? repointed(s, *alt) : Jexp::from_json(s.value));
    }
    if (!any || kept) continue;
    cand.steps.erase(cand.steps.begin() + static_cast<std::ptrdiff_t>(k));
    out.push_back(std::move(cand));
  }
}

// Each reference on its own: point it at the message its evaluation fell
// back to (so deleting the step it names changes nothing), or make it the
// literal value it evaluated to (not a run_specific one). Only a reference
// that fell back: one that
// named its message's value stays a reference while that step stays (its
// deletion inlines it, without_reference_targets), since the literal is
// stale on a later replay (lighttpd's Last-Modified of the second the
// finding was met, written out as an If-Unmodified-Since, was an older
// date on every replay and named the finding another way).
void rewritten_references(const Script& best, const std::vector<Site>& at,
                          std::vector<Script>& out) {
  for (const Site& s : at) {
    if (s.strict) continue;
    if (!s.same.empty()) {
      Script cand = best;
      set_at(cand, s, repointed(s, s.same.front()));
      out.push_back(std::move(cand));
    }
    if (run_specific(s.value)) continue;
    Script cand = best;
    set_at(cand, s, Jexp::from_json(s.value));
    out.push_back(std::move(cand));
  }
}

// Every request's literals that an earlier answer gave, made references to
// it (relink.h), all at once: first, so that the steps those answers come
// from stay while the script shrinks (a literal tag or date copied from
// the run being shrunk still matches within its second, and on every later
// replay names another).
std::optional<Script> with_literals_relinked(const Script& best, const LabelledTrace& t,
                                             const harness::FunctionRegistry& fns) {
  Script cand = best;
  bool any = false;
  for (auto& st : cand.steps) {
    auto* q = std::get_if<RequestStep>(&st);
    if (!q) continue;
    Jexp b = relinked(q->body, t, q->label, fns);
    if (b == q->body) continue;
    q->body = std::move(b);
    any = true;
  }
  if (!any) return std::nullopt;
  return cand;
}

// Each request literal that no earlier answer gave (a run_specific string
// relink.h cannot make a reference), made a reference to a probe
// (Protocol::probe) sent just before the request, on its connection, with
// its answer awaited: one candidate per literal. Such a literal was carried
// over from another run (nginx's entity tag, the file's time in hex, where
// its 201 has none): it matched within the second the finding was met, and
// on every later replay names a stale state. The request's relinkable
// literals are relinked too.
void probed_literals(const Script& best, const LabelledTrace& t,
                     const harness::FunctionRegistry& fns, const ProbeFn& probe,
                     std::vector<Script>& out) {
  if (!probe) return;
  const Label l = harness::next_label(best);
  for (std::size_t i = 0; i < best.steps.size(); ++i) {
    const auto* q = std::get_if<RequestStep>(&best.steps[i]);
    if (!q || !t.find(q->label)) continue;
    const Jexp body = relinked(q->body, t, q->label, fns);
    for (const JexpPos& pos : harness::leaf_positions(body)) {
      const std::optional<Jexp> e = harness::jexp_at(body, pos);
      if (!e || e->kind() != Jexp::Kind::Scalar || !run_specific(e->value())) continue;
      const auto p = probe(q->body, e->value());
      if (!p) continue;
      auto b = harness::replace_at(
          body, pos, Jexp::ref({harness::response_label(l), p->field, p->function}));
      if (!b) continue;
      Script cand;
      cand.steps.assign(best.steps.begin(),
                        best.steps.begin() + static_cast<std::ptrdiff_t>(i));
      cand.steps.push_back(RequestStep{l, q->conn, p->request});
      const harness::Step wait = harness::WaitStep{l};
      cand.steps.push_back(wait);
      cand.steps.push_back(RequestStep{q->label, q->conn, std::move(*b)});
      cand.steps.insert(cand.steps.end(),
                        best.steps.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                        best.steps.end());
      out.push_back(std::move(cand));
    }
  }
}

// Each reference that copies a value as it is (the identity function), put
// through each of `nudges` that changes the value it gave (HTTP: a date a
// second earlier or later). A comparison on its boundary in the failing run
// (a PUT's Date within the second of the file's time, as a server's
// once-a-second clock gave it only under load) is off it then on every
// replay. Only identity references are nudged: a nudge is never undone.
void nudged_references(const Script& best, const std::vector<Site>& at,
                       const harness::FunctionRegistry& fns,
                       const std::vector<std::string>& nudges, std::vector<Script>& out) {
  for (const Site& s : at) {
    if (s.ref.function != "id") continue;
    for (const std::string& n : nudges) {
      const auto* f = fns.find(n);
      if (!f) continue;
      const Result<Json> v = (*f)(s.value);
      if (!v || *v == s.value) continue;
      Jexp::Ref r = s.ref;
      r.function = n;
      Script cand = best;
      set_at(cand, s, Jexp::ref(std::move(r)));
      out.push_back(std::move(cand));
    }
  }
}

// `s` without steps [from, to), its waits kept: a wait for a request that
// goes (the chunk's last step, or one after it) waits instead for the
// latest request before it that stays, on the same connection. Dropped, as
// repair drops it, the request after it would be sent before the answers it
// refers to came ("req 1; req 3; wait 3; req 5 → 2.(...)" without request 3
// needs "wait 1").
Script without_steps(const Script& s, std::size_t from, std::size_t to) {
  std::set<Label> gone;
  std::map<Label, harness::ConnId> conn;
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (const auto* q = std::get_if<RequestStep>(&s.steps[i])) {
      conn[q->label] = q->conn;
      if (i >= from && i < to) gone.insert(q->label);
    }
  Script out;
  std::map<harness::ConnId, Label> latest;  // of the requests kept so far
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const harness::Step& st = s.steps[i];
    const bool deleted = i >= from && i < to;
    const auto* w = std::get_if<harness::WaitStep>(&st);
    if (w && gone.count(w->label) && (!deleted || i + 1 == to)) {
      const auto l = latest.find(conn.at(w->label));
      if (l == latest.end()) continue;
      const harness::Step instead = harness::WaitStep{l->second};
      if (out.steps.empty() || !(out.steps.back() == instead))
        out.steps.push_back(instead);
      continue;
    }
    if (deleted) continue;
    if (const auto* q = std::get_if<RequestStep>(&st)) latest[q->conn] = q->label;
    out.steps.push_back(st);
  }
  return out;
}

// Every `close` at once. A close right after a request reads only the
// answers already come, so a finding whose answer came before it shows or
// not as the server is quick, and under load each deletion played once
// fails on that timing (nginx's PUT that ignores If-Match, shrunk to it and
// an unrelated GET behind three `close c1`, showed in 1 of 5 plays).
std::optional<Script> without_closes(const Script& best) {
  Script out;
  for (const harness::Step& st : best.steps)
    if (!std::holds_alternative<harness::CloseStep>(st)) out.steps.push_back(st);
  if (out.steps.size() == best.steps.size()) return std::nullopt;
  return out;
}

// Chunks of steps deleted, halving the chunk size (ddmin-style); where that
// drops a wait, also with the wait kept (without_steps), next.
void without_chunks(const Script& best, std::vector<Script>& out) {
  const std::size_t n = best.steps.size();
  for (std::size_t chunk = std::max<std::size_t>(1, n / 2); chunk >= 1; chunk /= 2) {
    for (std::size_t at = 0; at < n; at += chunk) {
      const std::size_t to = std::min(n, at + chunk);
      Script plain = best;
      plain.steps.erase(plain.steps.begin() + static_cast<std::ptrdiff_t>(at),
                        plain.steps.begin() + static_cast<std::ptrdiff_t>(to));
      Script kept = without_steps(best, at, to);
      ScriptMutator::repair(plain);
      ScriptMutator::repair(kept);
      const bool differ = !(kept == plain);
      out.push_back(std::move(plain));
      if (differ) out.push_back(std::move(kept));
    }
    if (chunk == 1) break;
  }
}

// Request bodies simplified (a header, a body field dropped).
void lighter_bodies(const Script& best, const std::vector<std::string>& keep,
                    std::vector<Script>& out) {
  for (std::size_t i = 0; i < best.steps.size(); ++i) {
    const auto* r = std::get_if<RequestStep>(&best.steps[i]);
    if (!r) continue;
    for (const Jexp& s : smaller(r->body, keep)) {
      Script cand = best;
      std::get<RequestStep>(cand.steps[i]).body = s;
      out.push_back(std::move(cand));
    }
  }
}

}  // namespace

std::vector<Script> nudged_candidates(const Script& failing, const FailingRun& run,
                                      const harness::FunctionRegistry& fns,
                                      const std::vector<std::string>& nudges) {
  std::vector<Script> out;
  if (nudges.empty()) return out;
  nudged_references(failing, sites(failing, run.trace, fns), fns, nudges, out);
  return out;
}

std::vector<Script> probed_candidates(const Script& failing, const FailingRun& run,
                                      const harness::FunctionRegistry& fns,
                                      const ProbeFn& probe) {
  std::vector<Script> all, out;
  probed_literals(failing, run.trace, fns, probe, all);
  for (Script& c : all) {
    ScriptMutator::repair(c);
    if (!(c == failing)) out.push_back(std::move(c));
  }
  return out;
}

std::vector<Script> structural_candidates(const Script& failing, const FailingRun& run,
                                          const harness::FunctionRegistry& fns,
                                          const std::vector<std::string>& keep,
                                          const std::vector<std::string>& nudges) {
  const std::vector<Site> at = sites(failing, run.trace, fns);
  std::vector<Script> all;
  if (auto r = with_literals_relinked(failing, run.trace, fns))
    all.push_back(std::move(*r));
  if (auto u = without_unrelated(failing, run, at)) all.push_back(std::move(*u));
  if (auto c = without_closes(failing)) all.push_back(std::move(*c));
  without_reference_targets(failing, at, all);
  rewritten_references(failing, at, all);
  without_chunks(failing, all);
  lighter_bodies(failing, keep, all);
  nudged_references(failing, at, fns, nudges, all);
  // Repaired (dangling waits and references go), and each once.
  std::vector<Script> out;
  std::set<std::string> seen;
  for (Script& c : all) {
    ScriptMutator::repair(c);
    if (c == failing || !seen.insert(harness::print_script(c)).second) continue;
    out.push_back(std::move(c));
  }
  return out;
}

Script minimize(const Script& failing, FailingRun run,
                const harness::FunctionRegistry& fns, const RunIfFails& still_fails,
                std::size_t max_runs, const std::vector<std::string>& keep,
                const std::vector<std::string>& nudges, const ProbeFn& probe) {
  struct State {
    Script script;
    FailingRun run;
  };
  Shrinker<State, Script> s;
  s.candidates = [&](const State& st) {
    // Probes first: a literal carried over from another run matches only
    // within its second, and then no other candidate shows.
    std::vector<Script> out = probed_candidates(st.script, st.run, fns, probe);
    for (Script& c : structural_candidates(st.script, st.run, fns, keep, nudges))
      out.push_back(std::move(c));
    return out;
  };
  s.test = [&](const Script& c) -> Tested<State> {
    std::optional<FailingRun> r = still_fails(c);
    if (!r) return {std::nullopt, 1};
    return {State{c, std::move(*r)}, 1};
  };
  // `still_fails` is deterministic: a candidate that passed passes again.
  s.memo_key = [](const Script& c) { return harness::print_script(c); };
  return shrink_greedy(State{failing, std::move(run)}, s, {.max_replays = max_runs})
      .best.script;
}

Script minimize(const Script& failing,
                const std::function<bool(const Script&)>& still_fails,
                std::size_t max_runs, const std::vector<std::string>& keep) {
  // Without a trace the reference passes find nothing to work on.
  static const harness::FunctionRegistry no_functions;
  return minimize(
      failing, FailingRun{}, no_functions,
      [&](const Script& s) -> std::optional<FailingRun> {
        if (still_fails(s)) return FailingRun{};
        return std::nullopt;
      },
      max_runs, keep);
}

}  // namespace dualfuzz::mutator
