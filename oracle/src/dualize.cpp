#include "dualfuzz/oracle/dualize.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "dualfuzz/oracle/detail/ground_match.h"

namespace dualfuzz::oracle {
namespace {

std::string brief(const Json& v) { return brief_json(v, 80); }

// Why a pattern did not match, as the explaining match builds it: what was
// expected at each place where it went wrong. A plain pattern goes wrong at
// one place; alternatives may go wrong at several (one wrong status,
// another with the right status but a field missing), and all that went
// wrong at one place is one expectation there, however many alternatives
// it comes from (a status any of 500 codes is one set of codes).
struct Expectation {
  std::string location;  // a path into the response ("response.status")
  std::string observed;  // the value there, as text ("missing": absent)
  std::vector<Json> values;         // constants expected there (any order, repeats)
  std::vector<std::string> others;  // other expectations there, as text (distinct)
};
struct Why {
  std::vector<Expectation> places;  // in the order first met
  // With several places: the alternatives' own place (in or above each of
  // them) and the value there, as text.
  std::string at, observed;
};

// A mismatch at `at` against the constant `value`.
void mismatch_value(Why* why, const std::string& at, Json value, std::string observed) {
  why->places.assign(1, Expectation{at, std::move(observed), {std::move(value)}, {}});
}
// A mismatch at `at` against a pattern described by `expected`.
void mismatch(Why* why, const std::string& at, std::string expected,
              std::string observed) {
  why->places.assign(1, Expectation{at, std::move(observed), {}, {std::move(expected)}});
}

// Adds what one alternative expected to what the others did: one
// expectation per place.
void merge(std::vector<Expectation>& into, std::vector<Expectation>&& from) {
  for (Expectation& e : from) {
    auto same = std::find_if(into.begin(), into.end(), [&](const Expectation& x) {
      return x.location == e.location && x.observed == e.observed;
    });
    if (same == into.end()) {
      into.push_back(std::move(e));
      continue;
    }
    for (Json& v : e.values) same->values.push_back(std::move(v));
    for (std::string& t : e.others)
      if (std::find(same->others.begin(), same->others.end(), t) == same->others.end())
        same->others.push_back(std::move(t));
  }
}

// How many items of a list a sentence shows; the rest are counted.
constexpr std::size_t kShown = 6;

// "a, b or c" (`last`: "or", "and"); beyond kShown items, "a, b, ... and N more".
std::string listed(const std::vector<std::string>& items, const char* last) {
  std::string s;
  const std::size_t shown = std::min(items.size(), kShown);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) s += (i + 1 == items.size()) ? std::string(" ") + last + " " : ", ";
    s += items[i];
  }
  if (items.size() > shown) s += " ... and " + std::to_string(items.size() - shown) + " more";
  return s;
}

// Integers as ranges: runs of three or more as "lo-hi" ("lo..hi" when a
// bound is negative, where a dash would read as a sign), shorter runs as
// their numbers.
using Run = std::pair<std::int64_t, std::int64_t>;
void add_run(std::vector<std::string>& out, Run r) {
  if (r.second - r.first >= 2) {
    const char* dash = r.first < 0 || r.second < 0 ? ".." : "-";
    out.push_back(std::to_string(r.first) + dash + std::to_string(r.second));
    return;
  }
  for (std::int64_t i = r.first; i <= r.second; ++i) out.push_back(std::to_string(i));
}

// Sorted distinct integers as runs.
std::vector<Run> runs_of(const std::vector<std::int64_t>& sorted) {
  std::vector<Run> runs;
  for (std::int64_t x : sorted) {
    if (!runs.empty() && runs.back().second + 1 == x)
      runs.back().second = x;
    else
      runs.emplace_back(x, x);
  }
  return runs;
}

// An expectation as words: `items` is what the machine-readable `expected`
// field lists (all of it, joined by " or "), `phrase` what the sentence says
// ("412", "one of 200-299 or 304", "any of 100-599 except 405 and 501").
struct Described {
  std::vector<std::string> items;
  std::string phrase;
};
Described describe(const Expectation& e) {
  Described d;
  std::vector<std::int64_t> ints;
  std::vector<std::string> rest;  // other constants, as text
  std::vector<Json> seen;         // (the other constants met, for repeats)
  for (const Json& v : e.values) {
    if (v.is_number_integer()) {
      ints.push_back(v.get<std::int64_t>());
    } else if (std::find(seen.begin(), seen.end(), v) == seen.end()) {
      seen.push_back(v);
      rest.push_back(brief(v));
    }
  }
  std::sort(ints.begin(), ints.end());
  ints.erase(std::unique(ints.begin(), ints.end()), ints.end());
  const std::vector<Run> runs = runs_of(ints);
  for (const Run& r : runs) add_run(d.items, r);
  for (std::string& t : rest) d.items.push_back(std::move(t));
  for (const std::string& t : e.others)
    if (std::find(d.items.begin(), d.items.end(), t) == d.items.end()) d.items.push_back(t);
  const std::size_t distinct = ints.size() + seen.size() + e.others.size();
  if (distinct <= 1) {
    d.phrase = d.items.empty() ? std::string("something else") : d.items.front();
    return d;
  }
  // ("200 or 204"; "one of" where a list or a range would read as a
  // difference: "one of 200-299 or 304".)
  const bool ranged = std::any_of(runs.begin(), runs.end(),
                                  [](const Run& r) { return r.second - r.first >= 2; });
  d.phrase = (d.items.size() > 2 || ranged ? "one of " : "") + listed(d.items, "or");
  // Integers only, with gaps: the whole span but the gaps may be shorter
  // ("any of 100-599 except 405" for all of them but one; as long, it is
  // still the clearer).
  if (runs.size() > 1 && rest.empty() && e.others.empty()) {
    std::vector<std::string> gaps;
    for (std::size_t i = 1; i < runs.size(); ++i)
      add_run(gaps, Run{runs[i - 1].second + 1, runs[i].first - 1});
    std::vector<std::string> span;
    add_run(span, Run{runs.front().first, runs.back().second});
    std::string complement = "any of " + listed(span, "or") + " except " + listed(gaps, "and");
    if (complement.size() <= d.phrase.size()) d.phrase = std::move(complement);
  }
  return d;
}

// `location` relative to `at` (which it is in or below): "" for `at`
// itself, "status" for at + ".status", "[2]" for at + "[2]".
std::string relative(const std::string& location, const std::string& at) {
  if (location.size() <= at.size() || location.compare(0, at.size(), at) != 0)
    return location == at ? std::string() : location;
  std::string rest = location.substr(at.size());
  if (rest.front() == '.') rest.erase(0, 1);
  return rest;
}

// The reason of a failed match: one sentence per place where it went wrong.
// Its fields name the place when there is one; with several, the place of
// the alternatives that went wrong there, and what each expected below it.
Reason explain_mismatch(const Why& why) {
  Reason r;
  r.kind = Reason::Kind::Mismatch;
  const std::vector<Expectation>& places = why.places;
  std::string expected;
  for (const Expectation& e : places) {
    Described d = describe(e);
    std::string sentence = e.location + ": expected " + d.phrase;
    sentence += e.observed == "missing" ? ", but it is missing" : ", observed " + e.observed;
    r.text += (r.text.empty() ? "" : "; or ") + sentence;
    std::string all;
    for (const std::string& i : d.items) all += (all.empty() ? "" : " or ") + i;
    if (places.size() == 1) {
      expected = std::move(all);
    } else {
      const std::string place = relative(e.location, why.at);
      expected += (expected.empty() ? "" : "; or ") + (place.empty() ? all : place + " " + all);
      r.places.push_back({e.location, std::move(all), e.observed});
    }
  }
  if (places.size() == 1) {
    r.location = places.front().location;
    r.observed = places.front().observed;
  } else {
    r.location = why.at;
    r.observed = why.observed;
  }
  r.expected = std::move(expected);
  return r;
}

// What a missing field's pattern expected: its constants when it is one, or
// alternatives that are all constants; else the pattern as text.
void expect_missing(Why* why, const std::string& at, const Sym& pattern) {
  Expectation e{at, "missing", {}, {}};
  if (pattern.is_const()) {
    e.values.push_back(pattern.value());
  } else if (pattern.op() == Op::Alt &&
             std::all_of(pattern.args().begin(), pattern.args().end(),
                         [](const Sym& a) { return a.is_const(); })) {
    for (const Sym& a : pattern.args()) e.values.push_back(a.value());
  } else {
    e.others.push_back(pattern.to_string());
  }
  why->places.assign(1, std::move(e));
}

// `why` null: the same verdict without building reasons (hot path).
// `store`: the hypothesis's knowledge; the pattern is read as if resolved
// by it, but only the leaves that need a constraint are resolved (a whole
// resolved copy of every response pattern cost more than the match).
bool match(const Sym& p, const Json& v, const std::string& at, Sym& acc, Why* why,
           const ConstraintStore* store, ConstraintStore::Bindings* bindings) {
  switch (p.op()) {
    case Op::Const:
      if (p.value() == v) return true;
      if (why) mismatch_value(why, at, p.value(), brief(v));
      return false;
    case Op::Absent:
      if (why) mismatch(why, at, "no value", brief(v));
      return false;
    case Op::Test:
      if (!p.value_test()->accepts(p.test_argument(), v)) {
        if (why)
          mismatch(why, at,
                   std::string(p.value_test()->name()) + " " +
                       brief_json(p.test_argument(), 60),
                   brief(v));
        return false;
      }
      return match(p.args()[0], v, at, acc, why, store, bindings);
    case Op::Object: {
      if (!v.is_object()) {
        if (why) mismatch(why, at, "an object", brief(v));
        return false;
      }
      for (std::size_t i = 0; i < p.args().size(); ++i) {
        const std::string& k = p.field_names()[i];
        const Sym& sub = p.args()[i];
        auto it = v.find(k);
        std::string here = why ? at + "." + k : std::string();
        if (it == v.end()) {
          if (sub.op() == Op::Absent) continue;
          if (sub.op() == Op::Alt) {  // an optional field: one alternative is Absent
            bool optional = false;
            for (const Sym& a : sub.args()) optional = optional || a.op() == Op::Absent;
            if (optional) continue;
          }
          if (why) expect_missing(why, here, store ? store->resolve(sub) : sub);
          return false;
        }
        if (!match(sub, *it, here, acc, why, store, bindings)) return false;
      }
      return true;
    }
    case Op::Alt: {
      if (bindings) {
        // One alternative matching (an optional field that is present, one
        // status code of several) binds like a plain pattern; with more
        // than one, their equations stay in the disjunction (below).
        ConstraintStore::Bindings mine;
        Sym only = Sym::lit(true);
        int matched = 0;
        for (const Sym& alt : p.args()) {
          Sym c = Sym::lit(true);
          ConstraintStore::Bindings b;
          if (!match(alt, v, at, c, nullptr, store, &b)) continue;
          if (++matched > 1) break;
          only = c;
          mine = std::move(b);
        }
        if (matched == 0) return false;
        if (matched == 1) {
          acc = and_(acc, only);
          bindings->insert(bindings->end(), mine.begin(), mine.end());
          return true;
        }
      }
      Sym any = Sym::lit(false);
      // Explaining: what the alternatives expected, one expectation per
      // place where they went wrong (each alternative is a pattern for the
      // value found at `at`).
      std::vector<Expectation> places;
      Why w;  // (explaining only)
      for (const Sym& alt : p.args()) {
        Sym c = Sym::lit(true);
        // (An alternative's equations stay in its disjunct.)
        if (match(alt, v, at, c, why ? &w : nullptr, store, nullptr)) {
          any = or_(any, c);
          if (any.is_true()) break;
        } else if (why) {
          merge(places, std::move(w.places));
          w.places.clear();
        }
      }
      if (any.is_false()) {
        if (why) {
          why->places = std::move(places);
          why->at = at;
          why->observed = brief(v);
        }
        return false;
      }
      acc = and_(acc, any);
      return true;
    }
    case Op::Array: {
      if (!v.is_array() || v.size() != p.args().size()) {
        if (why)
          mismatch(why, at,
                   "an array of " + std::to_string(p.args().size()) + " elements",
                   brief(v));
        return false;
      }
      for (std::size_t i = 0; i < p.args().size(); ++i)
        if (!match(p.args()[i], v[i], why ? at + "[" + std::to_string(i) + "]" : at, acc,
                   why, store, bindings))
          return false;
      return true;
    }
    default: {
      const Sym q = store && !p.ground() ? store->resolve(p) : p;
      if (q.is_const()) {  // (a bound variable: no constraint to build)
        if (q.value() == v) return true;
        if (why) mismatch_value(why, at, q.value(), brief(v));
        return false;
      }
      if (bindings && q.is_var()) {  // (eq(var, const) never folds)
        bindings->emplace_back(q, &v);
        return true;
      }
      Sym c = eq(q, Sym::lit(v));
      if (c.is_false()) {
        if (why) mismatch(why, at, q.to_string(), brief(v));
        return false;
      }
      acc = and_(acc, c);
      return true;
    }
  }
}

// An object's member named `k` (null when missing). The objects responses
// are matched against have a handful of members: a scan of them, comparing
// lengths first, costs less than the tree's search by ordering.
const Json* member(const Json& v, const std::string& k) {
  const Json::object_t& obj = v.get_ref<const Json::object_t&>();
  if (obj.size() > 8) {
    auto it = obj.find(k);
    return it == obj.end() ? nullptr : &it->second;
  }
  for (const auto& [name, value] : obj)
    if (name.size() == k.size() && name == k) return &value;
  return nullptr;
}

}  // namespace

GroundMatch match_ground(const Sym& p, const Json& v) {
  switch (p.op()) {
    case Op::Const: {
      // (Strings, the common case, compared as strings: Json's equality
      // dispatches on both types first.)
      const Json& c = p.value();
      if (c.is_string() && v.is_string())
        return c.get_ref<const std::string&>() == v.get_ref<const std::string&>()
                   ? GroundMatch::Yes
                   : GroundMatch::No;
      return c == v ? GroundMatch::Yes : GroundMatch::No;
    }
    case Op::Absent:
      return GroundMatch::No;
    case Op::Test:
      if (!p.value_test()->accepts(p.test_argument(), v)) return GroundMatch::No;
      return match_ground(p.args()[0], v);
    case Op::Object: {
      if (!v.is_object()) return GroundMatch::No;
      bool unknown = false;
      const std::vector<std::string>& names = p.field_names();
      for (std::size_t i = 0; i < p.args().size(); ++i) {
        const Sym& sub = p.args()[i];
        const Json* field = member(v, names[i]);
        if (!field) {  // (as match(): Absent, or an Alt with an Absent, may be missing)
          if (sub.op() == Op::Absent) continue;
          if (sub.op() == Op::Alt) {
            bool optional = false;
            for (const Sym& a : sub.args()) optional = optional || a.op() == Op::Absent;
            if (optional) continue;
          }
          return GroundMatch::No;
        }
        if (!detail::and_part(match_ground(sub, *field), unknown)) return GroundMatch::No;
      }
      return unknown ? GroundMatch::Unknown : GroundMatch::Yes;
    }
    case Op::Alt: {
      bool unknown = false;
      for (const Sym& a : p.args()) {
        GroundMatch m = match_ground(a, v);
        if (m == GroundMatch::Yes) return GroundMatch::Yes;
        unknown = unknown || m == GroundMatch::Unknown;
      }
      return unknown ? GroundMatch::Unknown : GroundMatch::No;
    }
    case Op::Array: {
      if (!v.is_array() || v.size() != p.args().size()) return GroundMatch::No;
      bool unknown = false;
      for (std::size_t i = 0; i < p.args().size(); ++i) {
        GroundMatch m = match_ground(p.args()[i], v[i]);
        if (m == GroundMatch::No) return GroundMatch::No;
        unknown = unknown || m == GroundMatch::Unknown;
      }
      return unknown ? GroundMatch::Unknown : GroundMatch::Yes;
    }
    default:
      return GroundMatch::Unknown;  // (a variable, or an expression to fold)
  }
}

Guard guard(const Sym& pattern, const Json& observed, bool explain) {
  return guard(pattern, observed, nullptr, explain);
}

Guard guard(const Sym& pattern, const Json& observed, const ConstraintStore* store,
            bool explain) {
  Guard g{Sym::lit(true), false, {}, {}};
  static const std::string kWhole = "response";
  Why why;
  if (!match(pattern, observed, kWhole, g.constraint, explain ? &why : nullptr, store,
             store && !explain ? &g.bindings : nullptr)) {
    g.failed = true;
    g.bindings.clear();
    if (explain) {
      if (why.places.empty()) {  // (an alternative of none)
        Reason r;
        r.kind = Reason::Kind::Mismatch;
        r.location = kWhole;
        r.text = "response does not match";
        g.mismatch = std::move(r);
      } else {
        g.mismatch = explain_mismatch(why);
      }
    }
    g.constraint = Sym::lit(false);
  }
  return g;
}

Sat admit(const Guard& g, ConstraintStore& store, Solver& solver) {
  if (!g.bindings.empty() && store.bind(g.bindings, solver) == Sat::No) return Sat::No;
  if (!g.constraint.is_true() && store.add(g.constraint, solver) == Sat::No)
    return Sat::No;
  return Sat::Yes;
}

}  // namespace dualfuzz::oracle
