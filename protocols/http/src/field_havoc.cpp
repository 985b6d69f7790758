#include "dualfuzz/http/field_havoc.h"

#include <algorithm>
#include <array>

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {
namespace {

std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n ? rng() % n : 0; }

constexpr std::array kFields{
    HavocField{"range", "bytes=0-1"},
    HavocField{"if-range", "\"abc\""},
    HavocField{"if-match", "\"abc\", W/\"d\""},
    HavocField{"if-none-match", "W/\"abc\""},
    HavocField{"if-modified-since", "Sun, 06 Nov 1994 08:49:37 GMT"},
    HavocField{"if-unmodified-since", "Sunday, 06-Nov-94 08:49:37 GMT"},
    HavocField{"if", "(<urn:uuid:a> [\"e\"]) (Not <DAV:no-lock>)"},
    HavocField{"lock-token", "<urn:uuid:a>"},
    HavocField{"timeout", "Second-60, Infinite"},
    HavocField{"depth", "infinity"},
    HavocField{"overwrite", "T"},
    HavocField{"destination", "http://localhost/a"},
    HavocField{"content-type", "text/plain; charset=utf-8"},
    HavocField{"content-range", "bytes 0-1/2"},
    HavocField{"content-encoding", "gzip"},
    HavocField{"accept", "text/*;q=0.5, */*"},
    HavocField{"accept-encoding", "gzip;q=1.0, br, *;q=0"},
    HavocField{"accept-language", "en-US, fr;q=0.8"},
    HavocField{"authorization", "Basic YTpi"},
    HavocField{"cookie", "a=b; c=d"},
    HavocField{"cache-control", "no-cache, max-age=0"},
    HavocField{"host", "localhost:80"},
    HavocField{"forwarded", "for=192.0.2.1;proto=http"},
    HavocField{"x-forwarded-for", "192.0.2.1, 198.51.100.2"},
    HavocField{"max-forwards", "1"},
    HavocField{"user-agent", "dualfuzz/1"},
};

// Tokens of each field's grammar, and edge numbers: what byte-level edits
// alone take long to spell.
constexpr std::string_view kCommon[] = {",", ";", "=", "\"", " ",  "\t",  "*",
                                        "-", "/", ":", "%",  "\\", "q=0", "  ,"};
constexpr std::string_view kRange[] = {"bytes=", "0-", "-0", "-1",
                                       "1-",     ",",  " ,", "1-0"};
constexpr std::string_view kTags[] = {"W/", "\"", "*", "\"\"", ", ", "W/\"x\""};
constexpr std::string_view kDates[] = {"GMT",       " 1994",    "Sun, ", "-94", "Nov",
                                       " 08:49:37", "00:00:60", "31",    " UTC"};
constexpr std::string_view kIf[] = {"(",         ")",
                                    "<",         ">",
                                    "[",         "]",
                                    "Not ",      "<DAV:no-lock>",
                                    "urn:uuid:", "http://localhost/a"};
// (Percent escapes a path parser trips on: a NUL, an invalid escape, a
// byte that is no UTF-8, an overlong "/", an escaped "%".)
constexpr std::string_view kUrls[] = {
    "http://", "localhost", "/..", "/.", "//",  "%2f", "%2e",    "%00", "?",
    "#",       ":80",       "@",   "%",  "%zz", "%ff", "%C0%AF", "%25"};
constexpr std::string_view kNumbers[] = {
    "0",  "-1", "2147483647", "4294967296", "99999999999999999999", "9223372036854775807",
    "00", "1e3"};

std::span<const std::string_view> tokens_of(std::string_view name) {
  if (name.empty() || name == "destination" || name == "host" || name == "forwarded")
    return kUrls;
  if (name == "range" || name == "content-range") return kRange;
  if (name == "if-match" || name == "if-none-match" || name == "if-range") return kTags;
  if (name.ends_with("since")) return kDates;
  if (name == "if" || name == "lock-token") return kIf;
  return kCommon;
}

bool value_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u != 0 && u != '\r' && u != '\n' && u < 0x80;
}
bool target_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7f;
}

// A byte an edit inserts: mostly printable, now and then a control.
char random_byte(std::mt19937_64& rng) {
  if (pick(rng, 8) == 0) return static_cast<char>(1 + pick(rng, 8));
  return static_cast<char>(0x20 + pick(rng, 0x5f));
}

void edit(std::string& s, std::span<const std::string_view> tokens,
          std::mt19937_64& rng) {
  const std::size_t at = pick(rng, s.size() + 1);
  switch (s.empty() ? 0 : pick(rng, 8)) {
    case 0:  // a token of the grammar
    case 1: {
      const std::string_view t = pick(rng, 3) ? tokens[pick(rng, tokens.size())]
                                              : kCommon[pick(rng, std::size(kCommon))];
      s.insert(at, t);
      break;
    }
    case 2:  // a byte inserted
      s.insert(at, 1, random_byte(rng));
      break;
    case 3:  // a byte changed
      s[std::min(at, s.size() - 1)] = random_byte(rng);
      break;
    case 4:  // a few bytes deleted
      if (at < s.size()) s.erase(at, 1 + pick(rng, 4));
      break;
    case 5: {  // a span repeated (lists, overflows)
      if (at >= s.size()) break;
      const std::string span = s.substr(at, 1 + pick(rng, 8));
      for (std::size_t n = 1 + pick(rng, pick(rng, 4) ? 3 : 64); n > 0; --n)
        s.insert(at, span);
      break;
    }
    case 6: {  // a digit run (or a point) replaced by an edge number
      std::size_t b = at;
      while (b < s.size() && !(s[b] >= '0' && s[b] <= '9')) ++b;
      std::size_t e = b;
      while (e < s.size() && s[e] >= '0' && s[e] <= '9') ++e;
      if (b == s.size()) b = e = at;
      s.replace(b, e - b, kNumbers[pick(rng, std::size(kNumbers))]);
      break;
    }
    default:  // the value cut
      s.resize(at);
      break;
  }
}

}  // namespace

std::span<const HavocField> havoc_fields() { return kFields; }

bool havoc_protected(std::string_view n) {
  static constexpr std::string_view kProtected[] = {
      "content-length", "transfer-encoding", "connection",
      "keep-alive",     "proxy-connection",  "expect",
      "upgrade",        "http2-settings",    "te",
      "trailer"};
  return std::find(std::begin(kProtected), std::end(kProtected), n) !=
         std::end(kProtected);
}

std::optional<FieldLine> havoc_line(const harness::Json& ir) {
  if (!ir.is_object()) return std::nullopt;
  const auto h = ir.find("havoc");
  if (h == ir.end() || !h->is_object()) return std::nullopt;
  FieldLine out;
  if (auto n = h->find("name"); n != h->end() && n->is_string()) out.name = *n;
  if (auto v = h->find("value"); v != h->end() && v->is_string()) out.value = *v;
  std::erase_if(out.name, [](char c) { return !detail::tchar(c); });
  std::erase_if(out.value, [](char c) { return !value_byte(c); });
  if (out.value.size() > kMaxHavocValue) out.value.resize(kMaxHavocValue);
  if (out.name.empty() || havoc_protected(detail::lower(out.name))) return std::nullopt;
  return out;
}

std::string havoc_bytes(std::string value, std::string_view name, std::mt19937_64& rng) {
  const auto tokens = tokens_of(name);
  // Mostly one edit; stacks of up to four, as engines' havoc stages do.
  for (std::size_t n = 1 + (pick(rng, 2) ? 0 : pick(rng, 4)); n > 0; --n)
    edit(value, tokens, rng);
  if (name.empty()) {
    std::erase_if(value, [](char c) { return !target_byte(c); });
    if (value.empty() || value.front() != '/') value.insert(0, 1, '/');
  } else {
    std::erase_if(value, [](char c) { return !value_byte(c); });
  }
  if (value.size() > kMaxHavocValue) value.resize(kMaxHavocValue);
  return value;
}

}  // namespace dualfuzz::http
