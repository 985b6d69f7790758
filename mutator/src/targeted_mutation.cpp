#include "dualfuzz/mutator/targeted_mutation.h"

#include <algorithm>
#include <map>
#include <set>

#include "dualfuzz/mutator/relink.h"

namespace dualfuzz::mutator {
using harness::Jexp;
using harness::RequestStep;
using oracle::Sym;

namespace {

// String and integer constants of a condition: the candidates for request
// literals (the protocol's retarget tells which really came from a field).
void literals(const Sym& s, std::vector<oracle::Json>& out) {
  if (s.is_const()) {
    const auto& v = s.value();
    if ((v.is_string() || v.is_number_integer()) &&
        std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
    return;
  }
  for (const Sym& a : s.args()) literals(a, out);
}

void max_var(const Sym& s, oracle::VarId& m) {
  if (s.ground()) return;
  if (s.is_var()) {
    m = std::max(m, s.var_id());
    return;
  }
  for (const Sym& a : s.args()) max_var(a, m);
}

// `s` with the constant `k` replaced by `x`, folded again.
Sym replace_const(const Sym& s, const oracle::Json& k, const Sym& x) {
  if (s.is_const()) return s.value() == k ? x : s;
  if (s.args().empty()) return s;
  std::vector<Sym> args;
  for (const Sym& a : s.args()) args.push_back(replace_const(a, k, x));
  return oracle::detail::rebuild(s, std::move(args));
}

// A value for `x` that satisfies `goal`, other than `k`. The candidates
// are the goal's own constants of x's sort (a string the server sent and its
// Protocol::related_values, a number it announced, one either side of it)
// and, for a string, one
// nobody has seen; each is checked, in an order the rng picks. Checking
// (sat or not is a property of the formulas) rather than taking Z3's model
// keeps the answer independent of what the solver's context solved before,
// so a fuzzer's mutation is a function of (input, seed). Z3's model is the
// fallback. Never "" (an empty header).
oracle::Json pick_value(const harness::Protocol& protocol, const std::vector<Sym>& goal,
                        const Sym& x, const oracle::Json& k, oracle::Solver& solver,
                        std::mt19937_64& rng) {
  std::vector<oracle::Json> consts;
  for (const Sym& f : goal) literals(f, consts);
  std::vector<oracle::Json> cands;
  auto add = [&](oracle::Json v) {
    if (v != k && v != "" && std::find(cands.begin(), cands.end(), v) == cands.end())
      cands.push_back(std::move(v));
  };
  const bool str = x.sort() == oracle::Sort::Str;
  for (const oracle::Json& v : consts) {
    if (str && v.is_string()) {
      add(v);
      for (oracle::Json r : protocol.related_values(v)) add(std::move(r));
    } else if (!str && v.is_number_integer()) {
      const long long n = v.get<long long>();
      for (long long d : {0LL, -1LL, 1LL}) add(n + d);
    }
  }
  if (str) {
    // "t", "tt", ...: made whole each time (growing it in place by insert()
    // drew a false -Wrestrict from GCC 12's string code).
    auto quoted_ts = [](std::size_t n) {
      std::string q(n + 2, 't');
      q.front() = q.back() = '"';
      return q;
    };
    std::size_t ts = 1;
    while (std::find(consts.begin(), consts.end(), oracle::Json(quoted_ts(ts))) !=
           consts.end())
      ++ts;
    add(quoted_ts(ts));
  }
  std::shuffle(cands.begin(), cands.end(), rng);
  constexpr std::size_t kMaxChecks = 12;  // a solver call each
  for (std::size_t i = 0; i < cands.size() && i < kMaxChecks; ++i) {
    std::vector<Sym> g = goal;
    g.push_back(oracle::eq(x, Sym::lit(cands[i])));
    if (solver.check(g) == oracle::Sat::Yes) return cands[i];
  }
  std::vector<Sym> g = goal;
  if (str) g.push_back(oracle::neq(x, Sym::lit("")));
  for (const auto& [id, v] : solver.model(g))
    if (id == x.var_id()) return v;
  return nullptr;
}

}  // namespace

std::optional<harness::Script> targeted_mutation(const harness::Script& script,
                                                 const harness::RunResult& run,
                                                 const harness::Protocol& protocol,
                                                 oracle::Solver& solver,
                                                 std::mt19937_64& rng) {
  if (!protocol.retarget || !protocol.apply_retarget) return std::nullopt;
  std::map<harness::Label, std::size_t> step_of;
  for (std::size_t i = 0; i < script.steps.size(); ++i)
    if (const auto* r = std::get_if<RequestStep>(&script.steps[i])) step_of[r->label] = i;

  struct Candidate {
    const oracle::Explanation* why;
    const oracle::Decision* d;
    bool disputed;
  };
  // Branches the explanations took both ways (same request, same condition).
  std::map<std::pair<harness::Label, std::size_t>, std::set<bool>> ways;
  for (const auto& e : run.explanations)
    for (const auto& d : e.decisions) ways[{d.label, d.condition.hash()}].insert(d.taken);
  std::vector<Candidate> cands;
  for (const auto& e : run.explanations)
    for (const auto& d : e.decisions)
      if (step_of.count(d.label) && run.trace.find(d.label))
        cands.push_back({&e, &d, ways[{d.label, d.condition.hash()}].size() > 1});
  std::shuffle(cands.begin(), cands.end(), rng);
  std::stable_partition(cands.begin(), cands.end(),
                        [](const Candidate& c) { return c.disputed; });

  for (std::size_t tries = 0; tries < cands.size() && tries < 8; ++tries) {
    const Candidate& c = cands[tries];
    const oracle::Json& ir = *run.trace.find(c.d->label);
    std::vector<oracle::Json> ks;
    literals(c.d->condition, ks);
    std::shuffle(ks.begin(), ks.end(), rng);
    oracle::VarId top = 0;  // the unknown value gets the next free id
    max_var(c.d->condition, top);
    for (const Sym& f : c.why->facts) max_var(f, top);
    for (const oracle::Json& k : ks) {
      if (!protocol.retarget(ir, k, k)) continue;  // not a request field's value
      const Sym x =
          Sym::var(top + 1, k.is_string() ? oracle::Sort::Str : oracle::Sort::Int);
      const Sym flipped = replace_const(c.d->condition, k, x);
      std::vector<Sym> goal = c.why->facts;
      goal.push_back(c.d->taken ? oracle::not_(flipped) : flipped);
      const oracle::Json value = pick_value(protocol, goal, x, k, solver, rng);
      if (value.is_null() || value == k) continue;
      auto field = protocol.retarget(ir, k, value);
      if (!field) continue;
      harness::Script out = script;
      auto& step = std::get<RequestStep>(out.steps[step_of[c.d->label]]);
      auto body = protocol.apply_retarget(step.body, *field);
      if (!body) continue;
      // A value an earlier answer carried (the current tag, its date) as a
      // reference to that answer: the same question on every replay.
      step.body = relinked(*body, run.trace, c.d->label, protocol.functions);
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace dualfuzz::mutator
