#include "dualfuzz/mutator/script_mutator.h"

#include <chrono>
#include <iterator>
#include <map>
#include <set>

#include "dualfuzz/mutator/targeted_mutation.h"

namespace dualfuzz::mutator {
using harness::AnswerStep;
using harness::CloseStep;
using harness::ConnId;
using harness::Jexp;
using harness::Label;
using harness::RequestStep;
using harness::Script;
using harness::Step;
using harness::WaitStep;

namespace {
std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n ? rng() % n : 0; }

std::vector<std::size_t> request_positions(const Script& s) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (std::holds_alternative<RequestStep>(s.steps[i])) out.push_back(i);
  return out;
}
ConnId some_conn(const Script& s, std::mt19937_64& rng) {
  std::set<ConnId> used;
  for (const Step& st : s.steps)
    if (const auto* r = std::get_if<RequestStep>(&st)) used.insert(r->conn);
  if (used.empty() || pick(rng, 4) == 0) return static_cast<ConnId>(pick(rng, 4));
  auto it = used.begin();
  std::advance(it, pick(rng, used.size()));
  return *it;
}

// References to labels renamed by `map` follow the rename.
Jexp relabel(const Jexp& e, const std::map<Label, Label>& map) {
  switch (e.kind()) {
    case Jexp::Kind::Scalar:
      return e;
    case Jexp::Kind::Reference: {
      Jexp::Ref r = e.reference();
      Label req = r.label % 2 ? r.label : r.label - 1;
      if (auto it = map.find(req); it != map.end())
        r.label = it->second + (r.label - req);
      return Jexp::ref(r);
    }
    case Jexp::Kind::Array: {
      std::vector<Jexp> items;
      for (const Jexp& x : e.items()) items.push_back(relabel(x, map));
      return Jexp::array(std::move(items));
    }
    case Jexp::Kind::Object: {
      std::vector<std::pair<std::string, Jexp>> f;
      for (std::size_t i = 0; i < e.keys().size(); ++i)
        f.emplace_back(e.keys()[i], relabel(e.items()[i], map));
      return Jexp::object(std::move(f));
    }
  }
  return e;
}
// Trace-based generation: a reference to a response is only meaningful once
// that response has arrived, so a new request usually waits for the
// requests whose responses it references (unless the script already does).
// Returns how many waits were inserted before position `at`.
std::size_t wait_for_references(Script& s, std::size_t at, const Jexp& body,
                                std::mt19937_64& rng) {
  std::set<Label> waited;
  for (std::size_t i = 0; i < at && i < s.steps.size(); ++i)
    if (const auto* w = std::get_if<WaitStep>(&s.steps[i])) waited.insert(w->label);
  std::size_t inserted = 0;
  for (const Jexp::Ref& r : harness::references(body)) {
    Label req = r.label % 2 ? r.label : r.label - 1;
    if (r.label % 2 || waited.count(req) || pick(rng, 4) == 0) continue;
    bool earlier = false;
    for (std::size_t i = 0; i < at && i < s.steps.size(); ++i)
      if (const auto* q = std::get_if<RequestStep>(&s.steps[i]))
        earlier = earlier || q->label == req;
    if (!earlier) continue;
    s.steps.insert(s.steps.begin() + at, WaitStep{req});
    waited.insert(req);
    ++at;
    ++inserted;
  }
  return inserted;
}
}  // namespace

// Between a request and a later one that refers to its answer, a request
// that changes what that answer described (Protocol::supersede), sent on
// the later request's connection once the answer is in and answered before
// the later one is sent: the reference then names the state before the
// change. False (the script unchanged) where no request refers to an
// earlier answer or the protocol offers nothing.
bool ScriptMutator::supersede_reference(Script& s, std::mt19937_64& rng) const {
  struct Use {
    std::size_t at;  // the referring request's step
    Label source;    // the request whose answer it names
  };
  std::vector<Use> uses;
  std::map<Label, std::size_t> step_of;
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (const auto* r = std::get_if<RequestStep>(&s.steps[i])) {
      for (const Jexp::Ref& ref : harness::references(r->body))
        if (ref.label % 2 == 0 && step_of.count(ref.label - 1))
          uses.push_back({i, ref.label - 1});
      step_of.emplace(r->label, i);
    }
  if (uses.empty()) return false;
  const Use u = uses[pick(rng, uses.size())];
  const std::size_t src = step_of.at(u.source);
  auto write = protocol_.supersede(rng, std::get<RequestStep>(s.steps[src]).body,
                                   context(s, u.at));
  if (!write) return false;
  const ConnId conn = std::get<RequestStep>(s.steps[u.at]).conn;
  const Label l = harness::next_label(s);
  std::size_t at = src + 1 + pick(rng, u.at - src);  // in (src, u.at]
  bool waited = false;
  for (std::size_t i = src + 1; i < at; ++i)
    if (const auto* w = std::get_if<WaitStep>(&s.steps[i]))
      waited = waited || w->label == u.source;
  std::vector<Step> added;
  if (!waited) added.emplace_back(std::in_place_type<WaitStep>, WaitStep{u.source});
  added.emplace_back(std::in_place_type<RequestStep>,
                     RequestStep{l, conn, std::move(*write)});
  added.emplace_back(std::in_place_type<WaitStep>, WaitStep{l});
  s.steps.insert(s.steps.begin() + at, std::make_move_iterator(added.begin()),
                 std::make_move_iterator(added.end()));
  return true;
}

harness::Protocol::Context ScriptMutator::context(const Script& s,
                                                  std::size_t before) const {
  harness::Protocol::Context ctx;
  for (std::size_t i = 0; i < before && i < s.steps.size(); ++i)
    if (const auto* r = std::get_if<RequestStep>(&s.steps[i])) {
      ctx.earlier.push_back(r->body);
      ctx.earlier_labels.push_back(r->label);
    }
  return ctx;
}

void ScriptMutator::repair(Script& s) {
  std::set<Label> seen, answers;
  std::vector<Step> kept;
  for (Step& st : s.steps) {
    if (auto* r = std::get_if<RequestStep>(&st)) {
      if (r->label % 2 == 0 || answers.count(r->label) || !seen.insert(r->label).second)
        continue;
      r->conn = std::min<ConnId>(r->conn, harness::kMaxConn);
    } else if (const auto* a = std::get_if<AnswerStep>(&st)) {
      if (a->label % 2 == 0 || seen.count(a->label) || !answers.insert(a->label).second)
        continue;
    } else if (const auto* w = std::get_if<WaitStep>(&st)) {
      if (!seen.count(w->label)) continue;
    }
    kept.push_back(std::move(st));
  }
  if (kept.size() > harness::kMaxSteps) kept.resize(harness::kMaxSteps);
  s.steps = std::move(kept);
}

void ScriptMutator::fit(Script& s, std::size_t max_size) {
  while (!s.steps.empty() && harness::print_script(s).size() > max_size) {
    s.steps.pop_back();
    repair(s);
  }
}

void ScriptMutator::mutate_once(Script& s, std::mt19937_64& rng) const {
  auto reqs = request_positions(s);
  const std::size_t n = s.steps.size();
  // A protocol whose tester is an origin too (docs/proxy.md): now and then
  // a new `answer` step, or a fresh body for an existing one.
  if (protocol_.origin && protocol_.origin->generate_answer && pick(rng, 8) == 0) {
    std::vector<std::size_t> answers;
    for (std::size_t i = 0; i < n; ++i)
      if (std::holds_alternative<AnswerStep>(s.steps[i])) answers.push_back(i);
    if (!answers.empty() && pick(rng, 2)) {
      auto& a = std::get<AnswerStep>(s.steps[answers[pick(rng, answers.size())]]);
      a.body = protocol_.origin->generate_answer(rng, a.label);
    } else {
      const Label l = harness::next_label(s);
      s.steps.insert(s.steps.begin() + pick(rng, n + 1),
                     AnswerStep{l, protocol_.origin->generate_answer(rng, l)});
    }
    repair(s);
    return;
  }
  // Now and then a reference made stale (Protocol::supersede), where the
  // script has one.
  if (protocol_.supersede && pick(rng, 10) == 0 && supersede_reference(s, rng)) {
    repair(s);
    return;
  }
  switch (pick(rng, reqs.empty() ? 1 : 10)) {
    case 0: {  // insert a generated request
      std::size_t at = pick(rng, n + 1);
      ConnId conn = some_conn(s, rng);
      Jexp body = protocol_.generate_request(rng, context(s, at));
      Label label = harness::next_label(s);
      at += wait_for_references(s, at, body, rng);
      s.steps.insert(s.steps.begin() + at, RequestStep{label, conn, std::move(body)});
      break;
    }
    case 1:  // delete a step
      s.steps.erase(s.steps.begin() + pick(rng, n));
      break;
    case 2: {  // duplicate a request later on, or send it concurrently
      std::size_t from = reqs[pick(rng, reqs.size())];
      RequestStep copy = std::get<RequestStep>(s.steps[from]);
      copy.label = harness::next_label(s);
      if (pick(rng, 2)) {
        // A twin from another client at the same moment: the race two
        // clients acting on the same view of the state would run.
        copy.conn =
            static_cast<ConnId>((copy.conn + 1 + pick(rng, 3)) % (harness::kMaxConn + 1));
        s.steps.insert(s.steps.begin() + from + 1, copy);
      } else {
        s.steps.insert(s.steps.begin() + from + 1 + pick(rng, n - from), copy);
      }
      break;
    }
    case 3:  // swap neighbours
      if (n >= 2) {
        std::size_t i = pick(rng, n - 1);
        std::swap(s.steps[i], s.steps[i + 1]);
      }
      break;
    case 4:  // move a request to another connection
      std::get<RequestStep>(s.steps[reqs[pick(rng, reqs.size())]]).conn =
          some_conn(s, rng);
      break;
    case 5:
    case 6: {  // change a request (method, path, headers, body)
      std::size_t at = reqs[pick(rng, reqs.size())];
      Jexp body = protocol_.mutate_request(rng, std::get<RequestStep>(s.steps[at]).body,
                                           context(s, at));
      at += wait_for_references(s, at, body, rng);
      std::get<RequestStep>(s.steps[at]).body = std::move(body);
      break;
    }
    case 7: {  // wait for an earlier request
      std::size_t after = reqs[pick(rng, reqs.size())];
      Label l = std::get<RequestStep>(s.steps[after]).label;
      s.steps.insert(s.steps.begin() + after + 1 + pick(rng, n - after), WaitStep{l});
      break;
    }
    case 8: {  // drop an ordering directive, or close a connection
      std::vector<std::size_t> waits;
      for (std::size_t i = 0; i < n; ++i)
        if (std::holds_alternative<WaitStep>(s.steps[i])) waits.push_back(i);
      if (!waits.empty() && pick(rng, 2)) {
        s.steps.erase(s.steps.begin() + waits[pick(rng, waits.size())]);
      } else {
        s.steps.insert(s.steps.begin() + pick(rng, n + 1), CloseStep{some_conn(s, rng)});
      }
      break;
    }
    default: {  // replace a request by a fresh one, keeping its label and place
      std::size_t at = reqs[pick(rng, reqs.size())];
      Jexp body = protocol_.generate_request(rng, context(s, at));
      at += wait_for_references(s, at, body, rng);
      std::get<RequestStep>(s.steps[at]).body = std::move(body);
      break;
    }
  }
  repair(s);
}

Script ScriptMutator::generate(std::mt19937_64& rng, std::size_t requests) const {
  Script s;
  for (std::size_t i = 0; i < requests; ++i) {
    Label l = harness::next_label(s);
    ConnId conn = some_conn(s, rng);
    Jexp body = protocol_.generate_request(rng, context(s, s.steps.size()));
    wait_for_references(s, s.steps.size(), body, rng);
    // (Made in place: moving a temporary step into the vector drew a false
    // -Wmaybe-uninitialized from GCC 12's std::variant code.)
    s.steps.emplace_back(std::in_place_type<RequestStep>,
                         RequestStep{l, conn, std::move(body)});
    if (pick(rng, 2)) s.steps.emplace_back(std::in_place_type<WaitStep>, WaitStep{l});
  }
  return s;
}

std::string ScriptMutator::mutate(std::string_view input, std::size_t max_size,
                                  std::mt19937_64& rng) const {
  auto parsed = harness::parse_script(input, protocol_.functions);
  Script s = parsed ? std::move(*parsed) : generate(rng, 1 + pick(rng, 6));
  if (parsed && targeted() && pick(rng, kTargetedOneIn) == 0) {
    ++targeted_stats_.runs;
    const auto t0 = std::chrono::steady_clock::now();
    auto t = targeted_mutation(s, runner_(s), protocol_, *solver_, rng);
    targeted_stats_.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t) {
      ++targeted_stats_.rewrites;
      fit(*t, max_size);
      return harness::print_script(*t);
    }
  }
  for (std::size_t k = 1 + pick(rng, 4); k > 0; --k) mutate_once(s, rng);
  fit(s, max_size);
  return harness::print_script(s);
}

std::string ScriptMutator::crossover(std::string_view a, std::string_view b,
                                     std::size_t max_size, std::mt19937_64& rng) const {
  auto pa = harness::parse_script(a, protocol_.functions);
  auto pb = harness::parse_script(b, protocol_.functions);
  if (!pa || !pb) return mutate(pa ? a : b, max_size, rng);
  Script out;
  out.steps.assign(pa->steps.begin(),
                   pa->steps.begin() + pick(rng, pa->steps.size() + 1));
  std::size_t from = pick(rng, pb->steps.size() + 1);
  // Requests and answers are the labelled steps with a body (a J-expression).
  auto with_body = [](Step& st) -> std::pair<Label*, Jexp*> {
    if (auto* r = std::get_if<RequestStep>(&st)) return {&r->label, &r->body};
    if (auto* a = std::get_if<AnswerStep>(&st)) return {&a->label, &a->body};
    return {nullptr, nullptr};
  };
  std::map<Label, Label> map;
  Label next = std::max(harness::next_label(*pa), harness::next_label(out));
  const std::size_t first_of_b = out.steps.size();
  for (std::size_t i = from; i < pb->steps.size(); ++i) {
    Step st = pb->steps[i];
    if (Label* l = with_body(st).first) {
      map[*l] = next;
      *l = next;
      next += 2;
    }
    out.steps.push_back(std::move(st));
  }
  // With every label of b mapped, b's references and waits follow them.
  for (std::size_t i = first_of_b; i < out.steps.size(); ++i) {
    if (Jexp* body = with_body(out.steps[i]).second) {
      *body = relabel(*body, map);
    } else if (auto* w = std::get_if<WaitStep>(&out.steps[i])) {
      if (auto it = map.find(w->label); it != map.end()) w->label = it->second;
    }
  }
  repair(out);
  fit(out, max_size);
  return harness::print_script(out);
}

}  // namespace dualfuzz::mutator
