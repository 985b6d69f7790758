#include "dualfuzz/http/malformation.h"

#include <algorithm>
#include <array>
#include <vector>

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {
namespace {

constexpr std::array kVocabulary{
    Malformation{"space-before-colon", Latitude::kMustReject, "RFC 9112 §5.1"},
    Malformation{"two-hosts", Latitude::kMustReject, "RFC 9112 §3.2"},
    Malformation{"no-host", Latitude::kMustReject, "RFC 9112 §3.2"},
    Malformation{"content-length-sign", Latitude::kMustReject,
                 "RFC 9112 §6.3, RFC 9110 §8.6"},
    Malformation{"content-length-list", Latitude::kMayReject, "RFC 9110 §8.6"},
    Malformation{"chunked-with-content-length", Latitude::kMayReject, "RFC 9112 §6.1"},
    Malformation{"obs-fold", Latitude::kMayReject, "RFC 9112 §5.2"},
    Malformation{"bare-cr", Latitude::kMayReject, "RFC 9112 §2.2"},
    Malformation{"nul-in-value", Latitude::kMayReject, "RFC 9110 §5.5"},
    Malformation{"ctl-in-value", Latitude::kMayReject, "RFC 9110 §5.5"},
    Malformation{"no-colon", Latitude::kMayReject, "RFC 9112 §5, RFC 9110 §15.5.1"},
    Malformation{"whitespace-line", Latitude::kMayReject, "RFC 9112 §2.2"},
    Malformation{"leading-empty-line", Latitude::kShouldServe, "RFC 9112 §2.2"},
    Malformation{"lf-line-ends", Latitude::kMayReject, "RFC 9112 §2.2"},
    Malformation{"double-space", Latitude::kMayReject, "RFC 9112 §3"},
    Malformation{"tab-separator", Latitude::kMayReject, "RFC 9112 §3"},
    // A higher minor version SHOULD be served as the highest one the server
    // knows (RFC 9112 §2.6); a lowercase HTTP-name is an invalid request line,
    // which SHOULD get 400 or 301 (§3): neither is a MUST either way.
    Malformation{"minor-version", Latitude::kMayReject, "RFC 9112 §2.6"},
    Malformation{"lowercase-version", Latitude::kMayReject, "RFC 9112 §2.3, §3"},
    // Larger than the usual 8 KB line and 100-field limits (Apache's
    // LimitRequestFieldSize and LimitRequestFields, nginx's header buffers,
    // lighttpd's max-request-field-size): a server refuses a request larger
    // than it wishes to process with a 4xx (RFC 9110 §5.4), or serves it.
    Malformation{"long-field", Latitude::kMayReject, "RFC 9110 §5.4"},
    Malformation{"many-fields", Latitude::kMayReject, "RFC 9110 §5.4"},
    Malformation{"absolute-form", Latitude::kMustServe, "RFC 9112 §3.2.2"},
};

constexpr std::size_t kLongField = 10000;  // value bytes of long-field
constexpr int kManyFields = 120;           // fields of many-fields

// A header line's name, lowercase ("" for the request line or a broken one).
std::string line_name(std::string_view line) {
  const std::size_t colon = line.find(':');
  return colon == std::string_view::npos ? std::string()
                                         : detail::lower(line.substr(0, colon));
}

}  // namespace

std::span<const Malformation> malformations() { return kVocabulary; }

const Malformation* find_malformation(std::string_view name) {
  for (const Malformation& m : kVocabulary)
    if (m.name == name) return &m;
  return nullptr;
}

std::optional<std::string> malform(std::string_view printed, const Malformation& m) {
  const std::size_t end = printed.find("\r\n\r\n");
  if (end == std::string_view::npos) return std::nullopt;
  // The head as lines without their CRLF (the blank line excluded), the
  // content after it untouched.
  std::vector<std::string> lines;
  for (std::size_t at = 0; at <= end;) {
    const std::size_t crlf = printed.find("\r\n", at);
    lines.emplace_back(printed.substr(at, crlf - at));
    at = crlf + 2;
  }
  const std::string_view content = printed.substr(end + 4);
  auto find = [&lines](std::string_view name) {
    return std::find_if(lines.begin() + 1, lines.end(),
                        [name](const std::string& l) { return line_name(l) == name; });
  };
  const bool chunked = find("transfer-encoding") != lines.end();
  const auto length = find("content-length");
  auto after_start = [&lines](std::string line) {
    lines.insert(lines.begin() + 1, std::move(line));
  };
  std::string lead, eol = "\r\n";
  const std::string_view n = m.name;
  if (n == "space-before-colon") {
    after_start("X-Dualfuzz : 1");
  } else if (n == "two-hosts" || n == "no-host") {
    const auto host = find("host");
    if (host == lines.end()) return std::nullopt;
    if (n == "no-host")
      lines.erase(host);
    else
      lines.insert(host + 1, *host);
  } else if (n == "content-length-sign" || n == "content-length-list") {
    if (chunked) return std::nullopt;
    const std::string value =
        length == lines.end() ? "0" : std::string(detail::trim_ows(length->substr(15)));
    std::string line = "Content-Length: " +
                       (n == "content-length-sign" ? "+" + value : value + ", " + value);
    if (length == lines.end())
      lines.push_back(std::move(line));
    else
      *length = std::move(line);
  } else if (n == "chunked-with-content-length") {
    if (!chunked) return std::nullopt;
    lines.push_back("Content-Length: 0");
  } else if (n == "obs-fold") {
    after_start("X-Dualfuzz: a\r\n b");
  } else if (n == "bare-cr") {
    after_start("X-Dualfuzz: a\rb");
  } else if (n == "nul-in-value") {
    after_start(std::string("X-Dualfuzz: a\0b", 14));
  } else if (n == "ctl-in-value") {
    after_start(
        "X-Dualfuzz: a\x01"
        "b");
  } else if (n == "no-colon") {
    after_start("X-Dualfuzz 1");
  } else if (n == "whitespace-line") {
    // (Read, it would make a GET's answer a 206: malformation.h.)
    after_start(" Range: bytes=0-0");
  } else if (n == "long-field") {
    after_start("X-Dualfuzz: " + std::string(kLongField, 'a'));
  } else if (n == "many-fields") {
    for (int i = kManyFields; i > 0; --i)
      after_start("X-Dualfuzz-" + std::to_string(i) + ": 1");
  } else if (n == "leading-empty-line") {
    lead = "\r\n";
  } else if (n == "lf-line-ends") {
    eol = "\n";
  } else if (n == "minor-version" || n == "lowercase-version") {
    std::string& start = lines.front();
    const std::string v = " HTTP/1.1";
    if (start.size() < v.size() ||
        start.compare(start.size() - v.size(), v.size(), v) != 0)
      return std::nullopt;
    start.replace(start.size() - v.size(), v.size(),
                  n == "minor-version" ? " HTTP/1.2" : " http/1.1");
  } else if (n == "double-space" || n == "tab-separator" || n == "absolute-form") {
    std::string& start = lines.front();
    const std::size_t sp = start.find(' ');
    if (sp == std::string::npos) return std::nullopt;
    if (n == "double-space")
      start.insert(sp, " ");
    else if (n == "tab-separator")
      start[sp] = '\t';
    else if (start.compare(sp + 1, 1, "/") == 0)
      start.insert(sp + 1, "http://localhost");
    else
      return std::nullopt;  // (not an origin-form target)
  } else {
    return std::nullopt;
  }
  std::string out = lead;
  for (const std::string& l : lines) out += l + eol;
  out += eol;
  out += content;
  return out;
}

}  // namespace dualfuzz::http
