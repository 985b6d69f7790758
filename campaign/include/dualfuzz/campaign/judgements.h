// Findings on real servers judged by hand, as the data of a protocol
// plug-in (Plugin::judgements; HTTP's is protocols/http/judgements.json):
// per judgement, the identities it covers (signature.h identity_of, with
// `*` matching any run of characters, as in known_violations.h), the
// servers it was checked on, the verdict ("server bug"), the clause, and
// why. `dualfuzz fuzz --known judged:SERVER` counts the findings a judgement
// of SERVER covers as known (baseline.h), so a run against a server with
// judged bugs reports only what is not judged; the evaluation scripts
// tabulate findings by the same data.
//
//   auto j = campaign::Judgements::parse(plugin.judgements, "http judgements");
//   if (!j) { std::cerr << j.error() << "\n"; return 2; }
//   if (const campaign::Judgement* x = j->match(identity, "nginx")) ...  // x->clause
//
// The text: a JSON array of objects {"id", "verdict", "clause", "why",
// "servers": [NAME...], "identities": [PATTERN...]}; every field is
// required, "servers" and "identities" non-empty, ids unique. A server is
// named as `scripts/subjects/subject.sh` names it ("nginx-static").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/campaign/baseline.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

struct Judgement {
  std::string id, verdict, clause, why;
  std::vector<std::string> servers, identities;
  bool covers(std::string_view identity) const;
  bool of(std::string_view server) const;  // "" or "*": any server
};

class Judgements {
 public:
  Judgements() = default;  // none
  // `origin` names the text in errors ("ORIGIN: judgement 3: why").
  static Result<Judgements> parse(std::string_view json, std::string_view origin);

  // The first judgement of `server` ("" any) that covers `identity`.
  const Judgement* match(std::string_view identity, std::string_view server = "") const;
  const std::vector<Judgement>& entries() const { return entries_; }
  // The servers named, each once, in the order they first appear.
  std::vector<std::string> servers() const;
  // Those of `server` as a baseline of patterns (its entries' signatures
  // "judged: ID (CLAUSE)"); misuse (a server no judgement names) is an
  // error that lists the servers there are.
  Result<Baseline> baseline(std::string_view server, std::string_view origin) const;

 private:
  std::vector<Judgement> entries_;
};

}  // namespace dualfuzz::campaign
