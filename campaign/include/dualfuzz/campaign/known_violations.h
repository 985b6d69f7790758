// A list of known violations, so that a campaign against a server with
// bugs already judged (lighttpd 1.4.69 ignores If-Unmodified-Since on GET)
// neither stops on them nor reports them again, while a new one still does:
// what a suppression file is to a sanitizer. Used by `dualfuzz fuzz --known
// FILE` and by the fuzz target ($DUALFUZZ_KNOWN_VIOLATIONS=FILE, or the file
// <target>.known_violations next to its executable: docs/environment.md).
//
// The file: one pattern a line; blank lines and lines whose first non-blank
// character is `#` are skipped; leading and trailing blanks are not part of
// a pattern. A pattern is matched against the whole quick key of a violation
// (signature.h `quick_key`: the kind, the request's shape and the answer,
// computed without shrinking, e.g. `model: GET if-unmodified-since -> 200`),
// and `*` in it matches any run of characters (none included):
//
//   # lighttpd 1.4.69: If-Unmodified-Since ignored on GET and HEAD
//   model: GET if-unmodified-since -> 200
//   model: HEAD *if-unmodified-since* -> 200
//   protocol: connection closed in the middle of a response*
//
//   auto known = campaign::KnownViolations::load("lighttpd.known_violations");
//   if (!known) { std::cerr << known.error() << "\n"; return 2; }  // FILE:LINE: why
//   if (auto i = known->match(campaign::quick_key(protocol, run)))
//     ++counts[*i];  // known->entries()[*i].pattern: not a finding
//
// A line that cannot be meant as a pattern is an error (with its line):
// one that does not start with a violation kind (`model:`, `protocol:`,
// `liveness`) or `*`, one of `*` alone (it would hide every violation: use
// keep-going for that), a model signature with its context (` after `,
// `; then `, ` (concurrent)`: the quick key has none, so it would never
// match), and control characters.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

// Does `pattern` match all of `text`? `*` matches any run of characters;
// every other character only itself.
bool glob_match(std::string_view pattern, std::string_view text);

class KnownViolations {
 public:
  struct Entry {
    std::string pattern;
    std::size_t line = 0;  // in the file, from 1
  };

  KnownViolations() = default;  // knows nothing
  // `origin` names the text in errors ("FILE:LINE: why").
  static Result<KnownViolations> parse(std::string_view text, std::string_view origin);
  static Result<KnownViolations> load(const std::string& path);

  // The index in entries() of the first pattern that matches `quick_key`.
  std::optional<std::size_t> match(std::string_view quick_key) const;
  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  // Where it was read from (for messages; "" for a default-made list).
  const std::string& origin() const { return origin_; }

 private:
  std::vector<Entry> entries_;
  std::string origin_;
};

}  // namespace dualfuzz::campaign
