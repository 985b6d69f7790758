#include "dualfuzz/campaign/consistency.h"

#include "dualfuzz/campaign/race_skeleton.h"
#include "dualfuzz/oracle/oracle.h"

namespace dualfuzz::campaign {
namespace {

std::string labels(const std::vector<harness::Label>& ls) {
  std::string s;
  for (harness::Label l : ls) s += (s.empty() ? "" : ", ") + std::to_string(l);
  return s;
}

}  // namespace

const char* class_name(Classification::Kind k) {
  switch (k) {
    case Classification::Kind::Protocol:
      return "protocol";
    case Classification::Kind::NotLinearizable:
      return "not-linearizable";
    case Classification::Kind::Undecided:
      return "undecided";
    default:
      return "none";
  }
}

Classification classify(const harness::Protocol& p, const harness::RunResult& r,
                        const oracle::OracleOptions& options) {
  Classification c;
  if (!r.violation()) return c;
  c.kind = Classification::Kind::Protocol;
  if (r.outcome != harness::RunResult::Outcome::ModelViolation) {
    c.text = "breaks the protocol (a " +
             std::string(r.outcome == harness::RunResult::Outcome::LivenessViolation
                             ? "missing"
                             : "malformed") +
             " answer)";
    return c;
  }
  c.overlapping = overlapping_requests(p, r);
  // The trace as far as the oracle judged it.
  const std::size_t end = r.judged_end();
  const std::vector<oracle::Event> seen(
      r.events.begin(), r.events.begin() + static_cast<std::ptrdiff_t>(end));
  const std::string where =
      c.overlapping.empty() ? "" : "; overlapping requests " + labels(c.overlapping);
  for (const harness::Protocol::Consistency& weaker : p.weaker) {
    const oracle::Verdict v = oracle::check(weaker.model(), seen, options);
    if (v.status == oracle::Verdict::Status::Accept && !weaker.classifies) {
      // A consistency so weak that explaining a trace is no evidence (HTTP's
      // torn reads explain any read that overlaps a write): the finding
      // stays the protocol's, and says what would explain it.
      c.consistency = weaker.name;
      c.text = "breaks the protocol (" + p.consistency + "); explained only under '" +
               weaker.name + "' (" + weaker.summary + ")" + where;
      return c;
    }
    if (v.status == oracle::Verdict::Status::Accept) {
      c.kind = Classification::Kind::NotLinearizable;
      c.consistency = weaker.name;
      c.text = "not linearizable: wrong only if requests are atomic (" + p.consistency +
               "); explained under consistency '" + weaker.name + "' (" + weaker.summary +
               ")" + where;
      return c;
    }
    if (v.status == oracle::Verdict::Status::Inconclusive) {
      if (!weaker.classifies) break;
      c.kind = Classification::Kind::Undecided;
      c.consistency = weaker.name;
      c.text = "undecided: the check under consistency '" + weaker.name +
               "' ran out of budget" + where;
      return c;
    }
  }
  c.text = "breaks the protocol: no consistency (" + consistency_names(p) +
           ") explains it" + where;
  return c;
}

Result<harness::Protocol> with_consistency(harness::Protocol p, std::string_view name) {
  if (name.empty() || name == p.consistency) return p;
  for (std::size_t i = 0; i < p.weaker.size(); ++i) {
    if (p.weaker[i].name != name) continue;
    p.model = p.weaker[i].model;
    p.recommended = p.weaker[i].recommended;
    p.consistency = p.weaker[i].name;
    p.weaker.erase(p.weaker.begin(),
                   p.weaker.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return p;
  }
  return make_error("unknown consistency '" + std::string(name) + "' for protocol " +
                    p.name + " (known: " + consistency_names(p) + ")");
}

Result<Plugin> with_consistency(Plugin plugin, std::string_view name) {
  auto p = with_consistency(std::move(plugin.protocol), name);
  if (!p) return make_error(p.error());
  plugin.protocol = std::move(*p);
  return plugin;
}

bool stop_on_races(bool stop_on_races_flag, std::string_view consistency,
                   bool strict_reading) {
  return stop_on_races_flag || (!consistency.empty() && strict_reading);
}

std::optional<harness::Protocol> past_races(const harness::Protocol& p) {
  for (auto w = p.weaker.rbegin(); w != p.weaker.rend(); ++w)
    if (w->classifies) {
      auto q = with_consistency(p, w->name);
      if (q) return std::move(*q);
    }
  return std::nullopt;
}

std::string consistency_names(const harness::Protocol& p) {
  std::string s = p.consistency;
  for (const auto& w : p.weaker) s += ", " + w.name;
  return s;
}

Result<harness::Protocol> assume(harness::Protocol p, std::string_view name) {
  for (const harness::Protocol::Assumption& a : p.assumptions) {
    if (a.name != name) continue;
    const auto apply = a.apply;  // (it rewrites `p`, its own list included)
    apply(p);
    p.assumed += (p.assumed.empty() ? "" : ", ") + std::string(name);
    return p;
  }
  return make_error(
      "unknown assumption '" + std::string(name) + "' for protocol " + p.name +
      " (known: " + (p.assumptions.empty() ? std::string("none") : assumption_names(p)) +
      ")");
}

Result<Plugin> assume(Plugin plugin, std::string_view name) {
  auto p = assume(std::move(plugin.protocol), name);
  if (!p) return make_error(p.error());
  plugin.protocol = std::move(*p);
  return plugin;
}

std::string assumption_names(const harness::Protocol& p) {
  std::string s;
  for (const auto& a : p.assumptions) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

harness::Protocol strict(harness::Protocol p) {
  p.strict_rules = true;  // (a message rule's SHOULD too)
  if (!p.recommended) return p;
  p.model = p.recommended;
  p.recommended = nullptr;
  for (auto& w : p.weaker)
    if (w.recommended) {
      w.model = w.recommended;
      w.recommended = nullptr;
    }
  return p;
}

Plugin strict(Plugin plugin) {
  plugin.protocol = strict(std::move(plugin.protocol));
  return plugin;
}

Result<Plugin> judged_as(Plugin plugin, const std::vector<std::string>& assumptions,
                         std::string_view consistency, bool strict_reading) {
  for (const std::string& a : assumptions) {
    auto assumed = assume(std::move(plugin), a);
    if (!assumed) return make_error(assumed.error());
    plugin = std::move(*assumed);
  }
  auto tested = with_consistency(std::move(plugin), consistency);
  if (!tested) return make_error(tested.error());
  return strict_reading ? strict(std::move(*tested)) : std::move(*tested);
}

}  // namespace dualfuzz::campaign
