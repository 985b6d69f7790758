#include "dualfuzz/http/byte_range.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {
namespace {

// Positions beyond this are all "past the end" of anything the server holds.
constexpr long long kSaturated = 1'000'000'000'000'000LL;

constexpr auto trim = detail::trim_ows;
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}
// 1*DIGIT, saturating.
std::optional<long long> digits(std::string_view s) {
  if (s.empty()) return std::nullopt;
  long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = std::min(kSaturated, v * 10 + (c - '0'));
  }
  return v;
}
// token (RFC 9110 §5.6.2)
bool token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos))
      return false;
  return true;
}

// `backwards`: set when s is an int-range with last < first (nullopt too).
std::optional<RangeSpec> spec(std::string_view s, bool* backwards = nullptr) {
  const auto dash = s.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  RangeSpec r;
  if (dash == 0) {
    auto n = digits(s.substr(1));
    if (!n) return std::nullopt;
    r.suffix = true;
    r.suffix_length = *n;
    return r;
  }
  auto first = digits(s.substr(0, dash));
  if (!first) return std::nullopt;
  r.first = *first;
  if (dash + 1 < s.size()) {
    auto last = digits(s.substr(dash + 1));
    if (!last) return std::nullopt;
    if (*last < *first) {
      if (backwards) *backwards = true;
      return std::nullopt;
    }
    r.last = *last;
  }
  return r;
}

}  // namespace

RangeField parse_range(const std::string& value) {
  RangeField f;
  const std::string_view v = value;
  const auto eq = v.find('=');
  if (eq == std::string_view::npos) return f;
  const std::string_view unit = v.substr(0, eq);
  if (!token(unit)) return f;
  if (!iequals(unit, "bytes")) {
    // other-range-set: 1*VCHAR (RFC 9110 §14.1.1)
    const std::string_view rest = v.substr(eq + 1);
    if (!rest.empty() && std::all_of(rest.begin(), rest.end(),
                                     [](char c) { return c > 0x20 && c < 0x7f; }))
      f.kind = RangeField::Kind::OtherUnit;
    return f;
  }
  // 1#range-spec: empty list elements are allowed and ignored (§5.6.1).
  // Whitespace before the first element is not: `*( "," OWS ) element`
  // (§5.6.1.2), so "bytes= 0-1" is an invalid ranges-specifier a server may
  // ignore or reject (h2o 2.2 answers 416), or serve as its specs.
  std::vector<RangeSpec> specs;
  std::string_view rest = v.substr(eq + 1);
  const bool leading_ows = !rest.empty() && (rest.front() == ' ' || rest.front() == '\t');
  bool some_backwards = false;
  for (;;) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (!item.empty()) {
      bool backwards = false;
      auto s = spec(item, &backwards);
      if (!s && !backwards) return f;
      if (s) specs.push_back(*s);
      some_backwards = some_backwards || backwards;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (some_backwards || leading_ows) {
    f.well_formed = std::move(specs);
    return f;
  }
  if (specs.empty()) return f;
  f.kind = RangeField::Kind::Bytes;
  f.specs = std::move(specs);
  return f;
}

std::vector<ByteInterval> satisfiable(const RangeField& f, long long length) {
  std::vector<ByteInterval> out;
  if (f.kind != RangeField::Kind::Bytes || length <= 0) return out;
  for (const RangeSpec& s : f.specs) {
    if (s.suffix) {
      if (s.suffix_length > 0)
        out.push_back({std::max(0LL, length - s.suffix_length), length - 1});
    } else if (s.first < length) {
      out.push_back({s.first, std::min(s.last.value_or(length - 1), length - 1)});
    }
  }
  return out;
}

bool overlapping_or_unordered(const std::vector<ByteInterval>& parts) {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i].first <= parts[i - 1].last) return true;
  return false;
}

std::string content_range(long long first, long long last,
                          std::optional<long long> complete) {
  return "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" +
         (complete ? std::to_string(*complete) : "*");
}

std::string unsatisfied_range(long long complete) {
  return "bytes */" + std::to_string(complete);
}

namespace {

// Content-Range = range-unit SP ( range-resp / unsatisfied-range ), split
// into the range ("F-L" or "*") and the complete length ("N" or "*").
std::optional<std::pair<std::string_view, std::string_view>> content_range_halves(
    std::string_view value) {
  const std::string_view v = trim(value);
  const auto sp = v.find(' ');
  if (sp == std::string_view::npos || !iequals(v.substr(0, sp), "bytes"))
    return std::nullopt;
  const std::string_view r = v.substr(sp + 1);
  const auto slash = r.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  return std::pair{r.substr(0, slash), r.substr(slash + 1)};
}

}  // namespace

std::optional<ContentRangePart> content_range_part(const std::string& value) {
  const auto halves = content_range_halves(value);
  if (!halves) return std::nullopt;
  const auto [range, total] = *halves;
  const auto dash = range.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto first = digits(range.substr(0, dash)), last = digits(range.substr(dash + 1));
  if (!first || !last || *last < *first) return std::nullopt;
  if (total == "*") return ContentRangePart{{*first, *last}, std::nullopt};
  auto n = digits(total);
  if (!n || *n <= *last) return std::nullopt;
  return ContentRangePart{{*first, *last}, *n};
}

std::optional<std::string> canonical_content_range(const std::string& value) {
  const auto halves = content_range_halves(value);
  if (!halves) return std::nullopt;
  if (halves->first == "*") {
    auto n = digits(halves->second);
    if (!n) return std::nullopt;
    return unsatisfied_range(*n);
  }
  const auto part = content_range_part(value);
  if (!part) return std::nullopt;
  return content_range(part->range.first, part->range.last, part->complete);
}

}  // namespace dualfuzz::http
