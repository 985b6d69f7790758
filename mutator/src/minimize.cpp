#include "dualfuzz/mutator/minimize.h"

#include "dualfuzz/mutator/script_mutator.h"

namespace dualfuzz::mutator {
using harness::Jexp;
using harness::Script;

namespace {
// Candidate simplifications of a request body: drop one object field.
std::vector<Jexp> smaller(const Jexp& e) {
  std::vector<Jexp> out;
  if (e.kind() != Jexp::Kind::Object) return out;
  for (std::size_t skip = 0; skip < e.keys().size(); ++skip) {
    if (e.keys()[skip] == "method" || e.keys()[skip] == "path") continue;
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
}  // namespace

Script minimize(const Script& failing, const std::function<bool(const Script&)>& still_fails,
                std::size_t max_runs) {
  Script best = failing;
  std::size_t runs = 0;
  auto attempt = [&](Script cand) {
    ScriptMutator::repair(cand);
    if (runs >= max_runs || cand == best) return false;
    ++runs;
    if (!still_fails(cand)) return false;
    best = std::move(cand);
    return true;
  };
  for (bool progress = true; progress && runs < max_runs;) {
    progress = false;
    // Delete chunks of steps, halving the chunk size (ddmin-style).
    for (std::size_t chunk = std::max<std::size_t>(1, best.steps.size() / 2); chunk >= 1; chunk /= 2) {
      for (std::size_t at = 0; at < best.steps.size();) {
        Script cand = best;
        cand.steps.erase(cand.steps.begin() + at,
                         cand.steps.begin() + std::min(best.steps.size(), at + chunk));
        if (attempt(std::move(cand)))
          progress = true;
        else
          at += chunk;
      }
      if (chunk == 1) break;
    }
    // Simplify request bodies (drop headers, body fields).
    for (std::size_t i = 0; i < best.steps.size(); ++i) {
      auto* r = std::get_if<harness::RequestStep>(&best.steps[i]);
      if (!r) continue;
      for (const Jexp& s : smaller(r->body)) {
        Script cand = best;
        std::get<harness::RequestStep>(cand.steps[i]).body = s;
        if (attempt(std::move(cand))) {
          progress = true;
          break;
        }
      }
    }
  }
  return best;
}

}  // namespace dualfuzz::mutator
