// A baseline: the findings a server already had (recorded on the main
// branch), so that a run on a change reports only what is new. Findings are
// matched by identity (signature.h `identity_of`: the verdict and the shape
// of the shrunk script, not the request's values), never by hand-written
// patterns (that is --known, known_violations.h, matched before shrinking).
//
//   dualfuzz fuzz --target ... --keep-going --json > baseline.json   # on main
//   dualfuzz fuzz --target ... --baseline baseline.json              # on a change
//
// The file is what `dualfuzz fuzz --json` printed (its stdout as it is: the
// summary line is found among the report lines; several runs' outputs
// concatenated, e.g. of several seeds, are one baseline), or any JSON
// holding findings: a summary object (its "identity" when it stopped at a
// first violation, and each element of its "findings", "violations" and
// "races"), an array of findings, or a finding. Findings count by their
// "identity"; a death (crash, hang) by its signature, when its shrunk
// script alone brought it about again ("reproduced": true). A file with no JSON at
// all is read as one identity a line (blank lines and `#` comments skipped).
//
//   auto b = campaign::Baseline::load("baseline.json");
//   if (!b) { std::cerr << b.error() << "\n"; return 2; }
//   if (b->contains(campaign::identity_of(protocol, shrunk.run))) ...  // known
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

class Baseline {
 public:
  struct Entry {
    std::string identity;
    std::string signature;  // for messages ("" when the file had none)
    std::string script;     // its shrunk script, printed ("" when none)
  };

  Baseline() = default;  // knows nothing
  // `origin` names the text in errors and messages.
  static Result<Baseline> parse(std::string_view text, std::string_view origin);
  static Result<Baseline> load(const std::string& path);

  // Its identities, or one of its patterns (add_pattern) covers `identity`.
  bool contains(std::string_view identity) const;
  // An empty baseline that is not none(), named `origin` (for patterns).
  static Baseline named(std::string_view origin);
  // A pattern over identities (`*`: any run of characters), as a judgement
  // of the plug-in covers findings (judgements.h); its entry's identity is
  // the pattern.
  void add_pattern(std::string pattern, std::string signature);
  // `other`'s entries and patterns too (--baseline FILE with --known judged).
  void merge(const Baseline& other);
  // One per distinct identity, in the order the file has them.
  const std::vector<Entry>& entries() const { return entries_; }
  // No file was given (an empty file is a baseline with no findings).
  bool none() const { return origin_.empty(); }
  const std::string& origin() const { return origin_; }

 private:
  void add(Entry e);
  std::vector<Entry> entries_;
  std::set<std::string> identities_;
  std::vector<std::string> patterns_;
  std::string origin_;
};

}  // namespace dualfuzz::campaign
