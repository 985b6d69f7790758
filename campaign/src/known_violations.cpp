#include "dualfuzz/campaign/known_violations.h"

#include "dualfuzz/campaign/detail/text_file.h"

namespace dualfuzz::campaign {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Greedy, backing up to the last `*` on a mismatch: that star takes one
  // more character (linear in practice, quadratic at worst).
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_t = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

constexpr std::string_view kBlanks = " \t\r";

std::string_view trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kBlanks) - first + 1);
}

// Why `pattern` cannot be meant as one, or "".
std::string malformed(std::string_view pattern) {
  for (char c : pattern)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
      return "a control character in the pattern";
  if (pattern.find_first_not_of('*') == std::string_view::npos)
    return "'" + std::string(pattern) +
           "' would hide every violation (to count them all and go on, use "
           "keep-going instead)";
  const bool kind = pattern.starts_with("model:") || pattern.starts_with("protocol:") ||
                    pattern.starts_with("liveness") || pattern.starts_with('*');
  if (!kind)
    return "'" + std::string(pattern) +
           "' does not start with a violation kind (model:, protocol:, liveness) or *";
  if (pattern.starts_with("model:"))
    for (std::string_view context : {" after ", "; then ", " (concurrent)"})
      if (pattern.find(context) != std::string_view::npos)
        return "'" + std::string(pattern) + "' is a signature: the quick key it is " +
               "matched against has no '" + std::string(trim(context)) +
               "' part (write the killing request and its answer alone, e.g. "
               "'model: GET if-match -> 200')";
  return "";
}

}  // namespace

Result<KnownViolations> KnownViolations::parse(std::string_view text,
                                               std::string_view origin) {
  KnownViolations out;
  out.origin_ = std::string(origin);
  std::size_t line = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view raw = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line;
    const std::string_view pattern = trim(raw);
    if (pattern.empty() || pattern.starts_with('#')) continue;
    if (std::string why = malformed(pattern); !why.empty())
      return make_error(std::string(origin) + ":" + std::to_string(line) + ": " + why);
    out.entries_.push_back({std::string(pattern), line});
  }
  return out;
}

Result<KnownViolations> KnownViolations::load(const std::string& path) {
  auto text = detail::read_text_file(path, "known-violations file");
  if (!text) return make_error(text.error());
  return parse(*text, path);
}

std::optional<std::size_t> KnownViolations::match(std::string_view quick_key) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (glob_match(entries_[i].pattern, quick_key)) return i;
  return std::nullopt;
}

}  // namespace dualfuzz::campaign
