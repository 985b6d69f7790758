#include "dualfuzz/proxy/forwarding.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/http/detail/field_text.h"
#include "dualfuzz/http/status_fields.h"
#include "dualfuzz/http/triage.h"

namespace dualfuzz::proxy {
namespace {
using oracle::Sym;

const Json& empty_object() {
  static const Json e = Json::object();
  return e;
}
const Json& headers_of(const Json& m) {
  if (m.is_object() && m.contains("headers") && m["headers"].is_object())
    return m["headers"];
  return empty_object();
}
std::string string_field(const Json& m, const char* k) {
  if (m.is_object() && m.contains(k) && m[k].is_string()) return m[k].get<std::string>();
  return "";
}
using http::detail::lower;
// Framing (re-done by every hop) and fields the patterns treat apart.
bool framing(std::string_view n) {
  return n == "content-length" || n == "transfer-encoding";
}
// A known hop-by-hop field that Connection does not name: removed or passed
// on as is. RFC 9110 §7.6.1 makes removing the fields named in Connection a
// MUST, but these only a SHOULD ("intermediaries SHOULD remove or replace
// fields that are known to require removal before forwarding, whether or
// not they appear as a connection-option": Proxy-Connection, Keep-Alive, TE,
// Upgrade), so a proxy that passes them on is not wrong (HAProxy 2.6 passes
// on Proxy-Connection).
Sym removable(const Json& v) { return Sym::alt({Sym::absent(), Sym::lit(v)}); }

// Fields that describe the content, which a transformation may change
// (RFC 9110 §8: representation metadata and validators).
bool describes_content(std::string_view k) {
  static constexpr std::array<std::string_view, 7> kFields = {
      "content-type",  "content-encoding", "content-language", "content-md5",
      "content-range", "etag",             "last-modified"};
  return std::find(kFields.begin(), kFields.end(), k) != kFields.end();
}

// The message as a transforming proxy may pass it on: `exact` without its
// body and without the fields that describe the body.
Sym transformed(std::vector<std::pair<std::string, Sym>> top,
                const std::vector<std::pair<std::string, Sym>>& fields,
                std::optional<Sym> status = std::nullopt) {
  std::vector<std::pair<std::string, Sym>> kept;
  for (const auto& [k, v] : fields)
    if (!describes_content(k)) kept.emplace_back(k, v);
  std::vector<std::pair<std::string, Sym>> out;
  for (auto& [k, v] : top)
    if (k == "headers")
      out.emplace_back(k, Sym::object(kept));
    else if (k == "status" && status)
      out.emplace_back(k, *status);
    else if (k != "body")
      out.emplace_back(k, std::move(v));
  return Sym::object(std::move(out));
}
}  // namespace

bool may_transform(const Json& message) {
  const Json& h = headers_of(message);
  auto it = h.find("cache-control");
  if (it == h.end() || !it->is_string()) return true;
  for (const std::string& d : http::detail::list_members(it->get<std::string>()))
    if (d == "no-transform") return false;
  return true;
}

bool known_hop_by_hop(std::string_view n) {
  static constexpr std::array<std::string_view, 4> kFields = {
      "keep-alive", "proxy-connection", "te", "upgrade"};
  return std::find(kFields.begin(), kFields.end(), n) != kFields.end();
}

Target split_target(std::string_view t) {
  Target out;
  const std::string l = lower(std::string(t.substr(0, 8)));
  std::size_t scheme = l.rfind("http://", 0) == 0    ? 7
                       : l.rfind("https://", 0) == 0 ? 8
                                                     : 0;
  if (scheme == 0) {
    out.path = std::string(t);
    return out;
  }
  out.absolute = true;
  std::string_view rest = t.substr(scheme);
  std::size_t slash = rest.find_first_of("/?");
  out.authority = std::string(rest.substr(0, slash));
  out.empty_path = slash == std::string_view::npos;
  out.path = out.empty_path ? "/" : std::string(rest.substr(slash));
  if (out.path.front() == '?') out.path = "/" + out.path;  // RFC 9112 §3.2.1
  return out;
}

Json namespace_request(Json q, std::string_view prefix) {
  if (prefix.empty() || !q.is_object() || !q.contains("path") || !q["path"].is_string())
    return q;
  std::string path = q["path"].get<std::string>();
  const Target t = split_target(path);
  if (!t.absolute) return http::namespace_request(std::move(q), prefix);
  if (t.empty_path) return q;
  // (The first '/' or '?' after "scheme://" ends the authority.)
  const std::size_t at = path.find_first_of("/?", path.find("://") + 3);
  if (path[at] == '/')
    path.insert(at + 1, prefix);
  else  // "http://h?q": the path is "/" (RFC 9112 §3.2.1)
    path.insert(at, "/" + std::string(prefix));
  q["path"] = std::move(path);
  return q;
}

namespace {
// The run a forward names in kRunField, or "".
std::string run_field(const Json& forwarded) {
  const Json& h = headers_of(forwarded);
  const auto it = h.find(kRunField);
  return it != h.end() && it->is_string() ? it->get<std::string>() : "";
}
// Which run a forward's path names, for a run namespace `prefix`
// (WORD-...-N-): this one, another (the same first word), or none.
enum class PathRun { kNotARun, kThis, kAnother, kNone };
PathRun path_run(const Json& forwarded, std::string_view prefix) {
  const std::size_t word = prefix.find('-');
  if (prefix.empty() || word == std::string_view::npos) return PathRun::kNotARun;
  std::string path = split_target(string_field(forwarded, "path")).path;
  if (path.starts_with('/')) path.erase(0, 1);
  if (!path.starts_with(prefix.substr(0, word + 1))) return PathRun::kNone;
  return path.starts_with(prefix) ? PathRun::kThis : PathRun::kAnother;
}
}  // namespace

bool of_another_run(const Json& forwarded, std::string_view prefix) {
  const PathRun by_path = path_run(forwarded, prefix);
  if (by_path == PathRun::kNotARun) return false;
  if (const std::string run = run_field(forwarded); !run.empty()) return run != prefix;
  return by_path == PathRun::kAnother;
}

bool idempotent_method(std::string_view m) {
  // The HTTP Method Registry's "Idempotent: yes" (RFC 9110 §16.1, §18.2):
  // RFC 9110's own and WebDAV's (RFC 4918 §9: all but LOCK). An unknown
  // method is not: nothing says a retry is harmless.
  static constexpr std::array<std::string_view, 12> kIdempotent = {
      "GET",      "HEAD",      "OPTIONS", "TRACE", "PUT",  "DELETE",
      "PROPFIND", "PROPPATCH", "MKCOL",   "COPY",  "MOVE", "UNLOCK"};
  return std::ranges::find(kIdempotent, m) != kIdempotent.end();
}

bool names_no_run(const Json& forwarded, std::string_view prefix) {
  return path_run(forwarded, prefix) == PathRun::kNone && run_field(forwarded).empty();
}

std::optional<long long> max_forwards(const Json& request) {
  const Json& h = headers_of(request);
  auto it = h.find("max-forwards");
  if (it == h.end() || !it->is_string()) return std::nullopt;
  const std::string& v = it->get_ref<const std::string&>();
  if (v.empty() || v.size() > 15 ||
      !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoll(v);
}

bool honours_max_forwards(const Json& request) {
  const std::string m = string_field(request, "method");
  return m == "TRACE" || m == "OPTIONS";
}

bool answered_by_proxy(const Json& request) {
  auto n = max_forwards(request);
  return honours_max_forwards(request) && n && *n == 0;
}

namespace {
// A Cache-Control value as its directives (RFC 9111 §5.2: tokens compared
// case-insensitively, an argument a token or a quoted-string).
Json cache_directives(const std::string& value) {
  Json out = Json::object();
  for (const std::string& d : http::detail::list_members(value)) {
    const std::size_t eq = d.find('=');
    if (eq == std::string::npos) {
      out[d] = true;
      continue;
    }
    std::string arg = d.substr(eq + 1);
    if (arg.size() >= 2 && arg.front() == '"' && arg.back() == '"')
      arg = arg.substr(1, arg.size() - 2);
    out[d.substr(0, eq)] = std::move(arg);
  }
  return out;
}
}  // namespace

Json mark_forwarded(Json message) {
  const Json& h = headers_of(message);
  if (h.contains("via")) message["via"] = {{"present", true}};
  if (const auto it = h.find("cache-control"); it != h.end() && it->is_string())
    message["cache-directives"] = cache_directives(it->get<std::string>());
  // The fields a refusal's status MUST carry (refusal patterns below).
  return http::mark_status_fields(std::move(message));
}

namespace {
// Cache-Control in a pattern: every directive received, with its argument
// ("A proxy, whether or not it implements a cache, MUST pass cache
// directives through in forwarded messages", RFC 9111 §5.2). The field's
// bytes are not compared: a cache may add directives of its own (Squid adds
// max-age=259200 to the requests it forwards), and no clause forbids it.
// None when Connection names Cache-Control: the field must go, and the
// fields' pattern says so.
std::optional<Sym> directives_pattern(const Json& h, const std::set<std::string>& listed) {
  const auto it = h.find("cache-control");
  if (it == h.end() || !it->is_string() || listed.count("cache-control")) return std::nullopt;
  std::vector<std::pair<std::string, Sym>> fields;
  const Json directives = cache_directives(it->get<std::string>());
  for (const auto& [d, arg] : directives.items())
    fields.emplace_back(d, Sym::lit(arg));
  return Sym::object(std::move(fields));
}
}  // namespace

std::string forwarded_target(const Json& request, Mode mode) {
  const std::string sent = string_field(request, "path");
  if (mode != Mode::Forward) return sent;
  const Target target = split_target(sent);
  // "If a proxy receives an OPTIONS request with an absolute-form of
  // request-target in which the URI has an empty path and no query
  // component, then the last proxy on the request chain MUST send a
  // request-target of "*"" (RFC 9112 §3.2.4).
  if (target.empty_path && string_field(request, "method") == "OPTIONS") return "*";
  return target.path;
}

Sym forwarded_pattern(const Json& request, Mode mode) {
  const Json& h = headers_of(request);
  const auto listed = connection_options(request);
  const Target target = split_target(string_field(request, "path"));
  std::vector<std::pair<std::string, Sym>> fields;
  // RFC 9110 §14.2: range handling is defined for GET alone, and a server
  // MUST ignore Range on any other method, so a proxy that drops it there
  // (Squid does, on PUT) changes nothing any conforming recipient may act
  // on: kept or dropped, both are correct.
  const bool range_meaningless = string_field(request, "method") != "GET";
  for (const auto& [k, v] : h.items()) {
    if (k == "connection" || framing(k) || k == "via" || k == "host" ||
        k == "max-forwards" || (k == "cache-control" && !listed.count(k)))
      continue;
    if (listed.count(k))
      fields.emplace_back(k, Sym::absent());
    else if (known_hop_by_hop(k))
      fields.emplace_back(k, removable(v));
    else if (k == "range" && range_meaningless)
      fields.emplace_back(k, Sym::alt({Sym::absent(), Sym::lit(v)}));
    else
      fields.emplace_back(k, Sym::lit(v));
  }
  // RFC 9112 §3.2.2: a proxy replaces Host by the target's authority. A
  // gateway's Host is its configuration's (not checked).
  if (mode == Mode::Forward && target.absolute)
    fields.emplace_back("host", Sym::lit(target.authority));
  if (h.contains("max-forwards") && !listed.count("max-forwards")) {
    const Json& v = h["max-forwards"];
    auto n = max_forwards(request);
    if (honours_max_forwards(request)) {
      // (0 is never forwarded; an invalid value is the proxy's to judge.)
      // "the lesser of a) the received value decremented by one (1) or b)
      // the recipient's maximum supported value for Max-Forwards" (§7.6.2):
      // n - 1, or less down to 0 for a proxy whose maximum is lower (the
      // generator sends 0-2; past 64 only n - 1 and 0-64 are listed).
      if (n && *n > 0) {
        std::vector<Sym> lesser = {Sym::lit(std::to_string(*n - 1))};
        for (long long k = std::min<long long>(*n - 2, 64); k >= 0; --k)
          lesser.push_back(Sym::lit(std::to_string(k)));
        fields.emplace_back("max-forwards", lesser.size() == 1
                                                ? std::move(lesser.front())
                                                : Sym::alt(std::move(lesser)));
      }
    } else {
      // Other methods: "A recipient MAY ignore a Max-Forwards header field
      // received with any other request method" (§7.6.2): passed on as is,
      // decremented, or dropped (Squid drops it; the field's definition
      // covers only TRACE and OPTIONS, and no clause asks a proxy that
      // knows it to pass it on).
      std::vector<Sym> ok = {Sym::lit(v), Sym::absent()};
      if (n && *n > 0) ok.push_back(Sym::lit(std::to_string(*n - 1)));
      fields.emplace_back("max-forwards", Sym::alt(std::move(ok)));
    }
  }
  std::vector<std::pair<std::string, Sym>> top = {
      {"method", Sym::lit(string_field(request, "method"))},
      {"path", Sym::lit(forwarded_target(request, mode))},
      {"headers", Sym::object(fields)},
      {"body", Sym::lit(string_field(request, "body"))},
      // §7.6.3: a proxy, and a gateway on inbound requests, MUST send Via.
      {"via", Sym::object({{"present", Sym::lit(true)}})}};
  if (auto d = directives_pattern(h, listed)) top.emplace_back("cache-directives", std::move(*d));
  // "A proxy MAY transform the content of a message that does not contain a
  // no-transform cache directive" (RFC 9110 §7.7; the request directive,
  // RFC 9111 §5.2.1.6); it MUST NOT transform one that does.
  if (!string_field(request, "body").empty() && may_transform(request)) {
    Sym changed = transformed(top, fields);
    return Sym::alt({Sym::object(std::move(top)), std::move(changed)});
  }
  return Sym::object(std::move(top));
}

namespace {
// One "bytes=first-last" range as written (either end may be empty);
// nullopt for another unit or a list.
struct RangeText {
  std::string_view first, last;
};
std::optional<RangeText> bytes_range(std::string_view spec) {
  if (spec.rfind("bytes=", 0) != 0) return std::nullopt;
  spec.remove_prefix(6);
  const auto dash = spec.find('-');
  if (dash == std::string_view::npos || spec.find(',') != std::string_view::npos)
    return std::nullopt;
  return RangeText{spec.substr(0, dash), spec.substr(dash + 1)};
}
std::optional<std::size_t> number(std::string_view d) {
  if (d.empty() || d.size() > 15 ||
      !std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return static_cast<std::size_t>(std::stoull(std::string(d)));
}
// The bytes of `body` that one "bytes=first-last" / "bytes=first-" /
// "bytes=-suffix" range selects (RFC 9110 §14.1.2); nullopt for anything
// else: several ranges, another unit, one that selects nothing, or no
// range-spec at all (§14.1.1: an end that is not digits, no end, a last-pos
// before the first-pos; "5-x" is no "5-").
std::optional<std::string> one_range(std::string_view spec, const std::string& body) {
  const auto t = bytes_range(spec);
  if (!t) return std::nullopt;
  const auto a = number(t->first), b = number(t->last);
  if ((!t->first.empty() && !a) || (!t->last.empty() && !b) || (!a && !b) ||
      (a && b && *b < *a))
    return std::nullopt;
  if (!a) {  // a suffix
    if (*b == 0 || body.empty()) return std::nullopt;
    return body.substr(body.size() - std::min(*b, body.size()));
  }
  if (*a >= body.size()) return std::nullopt;
  return body.substr(*a, b ? *b - *a + 1 : std::string::npos);
}
}  // namespace

Sym relayed_pattern(const Json& answer, std::string_view method, Mode mode,
                    std::string_view range) {
  const Json& h = headers_of(answer);
  const auto listed = connection_options(answer);
  std::vector<std::pair<std::string, Sym>> fields;
  for (const auto& [k, v] : h.items()) {
    if (k == "connection" || framing(k) || k == "via" ||
        (k == "cache-control" && !listed.count(k)))
      continue;
    fields.emplace_back(k, listed.count(k)       ? Sym::absent()
                           : known_hop_by_hop(k) ? removable(v)
                                                 : Sym::lit(v));
  }
  const std::optional<Sym> directives = directives_pattern(h, listed);
  int status = 200;
  if (answer.is_object() && answer.contains("status") &&
      answer["status"].is_number_integer())
    status = answer["status"].get<int>();
  const bool no_content =
      method == "HEAD" || status < 200 || status == 204 || status == 304;
  // RFC 9110 §14.2: to its client the proxy is a server, which MAY satisfy
  // a GET's Range itself from the origin's full 200 (Apache's byte-range
  // filter does; several ranges it MAY coalesce, §15.3.7.2). So a 206 with
  // a Content-Range is correct too: with the selected bytes for one range;
  // for several (multipart or coalesced) the content is not checked.
  std::optional<Sym> partial;
  if (method == "GET" && status == 200 && !range.empty()) {
    const auto slice = one_range(range, string_field(answer, "body"));
    // Several ranges in one 206 are a multipart/byteranges message (RFC
    // 9110 §14.6): its Content-Type is that, the origin's moves into each
    // part (Apache's answer to "bytes=4-6,0-1").
    std::vector<std::pair<std::string, Sym>> kept;
    for (const auto& [k, v] : fields)
      if (slice || k != "content-type") kept.emplace_back(k, v);
    std::vector<std::pair<std::string, Sym>> p = {{"status", Sym::lit(206)},
                                                  {"headers", Sym::object(std::move(kept))}};
    if (slice) p.emplace_back("body", Sym::lit(*slice));
    if (mode == Mode::Forward)
      p.emplace_back("via", Sym::object({{"present", Sym::lit(true)}}));
    if (directives) p.emplace_back("cache-directives", *directives);
    // One bytes range that selects nothing, or is no range-spec: no 206 is
    // possible; the 200, or the proxy's own 416 for a range it honours and
    // cannot satisfy (RFC 9110 §15.5.17; "MAY ignore or reject ... an
    // invalid ranges-specifier", §14.2). Not for another unit or a list:
    // those it MUST ignore, or may still satisfy in part.
    if (slice || range.find(',') != std::string_view::npos)
      partial = Sym::object(std::move(p));
    else if (bytes_range(range))
      partial = Sym::object({{"status", Sym::lit(416)}});
  }
  std::vector<std::pair<std::string, Sym>> top = {
      {"status", Sym::lit(status)},
      {"headers", Sym::object(fields)},
      {"body", Sym::lit(no_content ? std::string() : string_field(answer, "body"))}};
  // §7.6.3: a proxy MUST send Via in each message it forwards; a gateway
  // MAY in responses.
  if (mode == Mode::Forward)
    top.emplace_back("via", Sym::object({{"present", Sym::lit(true)}}));
  if (directives) top.emplace_back("cache-directives", *directives);
  std::vector<Sym> alts;
  // "A proxy MAY transform the content of a message that does not contain a
  // no-transform cache directive"; one "that transforms the content of a 200
  // (OK) response can inform downstream recipients ... by changing the
  // response status code to 203" (RFC 9110 §7.7, §15.3.4). With the
  // directive (the tester's origin sends it on most answers) the bytes are
  // compared exactly: it MUST NOT transform them.
  // A HEAD's answer describes the GET's content (§9.3.2): the proxy that
  // would transform that may say so there too.
  const bool describes = method == "HEAD" && status >= 200 && status != 204 && status != 304;
  if ((!no_content || describes) && may_transform(answer))
    alts.push_back(transformed(top, fields,
                               status == 200 ? Sym::alt({Sym::lit(200), Sym::lit(203)})
                                             : Sym::lit(status)));
  alts.insert(alts.begin(), Sym::object(std::move(top)));
  if (partial) alts.push_back(std::move(*partial));
  return alts.size() == 1 ? std::move(alts.front()) : Sym::alt(std::move(alts));
}

Sym own_answer_pattern() {
  return Sym::object(std::vector<std::pair<std::string, Sym>>{});
}

Sym never_forwarded_pattern() {
  static const Sym p = Sym::object({{"not-forwarded", Sym::lit(true)}});
  return p;
}

namespace {
// The status codes lo..hi.
std::vector<int> between(int lo, int hi) {
  std::vector<int> c;
  for (int x = lo; x <= hi; ++x) c.push_back(x);
  return c;
}
}  // namespace

Sym refusal_pattern() {
  static const Sym p = [] {
    std::vector<int> c = between(400, 431);
    std::ranges::copy(between(500, 511), std::back_inserter(c));
    return http::statuses_with_fields(std::move(c));
  }();
  return p;
}

Sym policy_refusal_pattern(bool get_or_head) {
  static const std::array<Sym, 2> table = [] {
    std::array<Sym, 2> t;
    for (const bool safe : {false, true}) {
      // 413, 414, 431: limits; 429, 503: load; 403, 451: policy; 502, 504:
      // the origin connection failed or was too slow (lost_pattern).
      std::vector<int> plain = {403, 413, 414, 429, 431, 451, 502, 503, 504};
      // Not a GET or HEAD: 501 (a method the proxy does not implement,
      // §15.6.2), 411 (content without a length, §15.5.12), 417 (an
      // expectation it cannot meet, §10.1.1).
      if (!safe) plain.insert(plain.end(), {411, 417, 501});
      // 401, 407: authentication; 405 to other methods (§9.1). Each with
      // the field it MUST carry (status_fields.h).
      plain.insert(plain.end(), {401, 407});
      if (!safe) plain.push_back(405);
      std::sort(plain.begin(), plain.end());
      t[safe ? 1 : 0] = http::statuses_with_fields(std::move(plain));
    }
    return t;
  }();
  return table[get_or_head ? 1 : 0];
}

std::optional<Sym> open_refusal_pattern(const Json& request) {
  const std::string m = string_field(request, "method");
  const bool content = !string_field(request, "body").empty();
  if (content && (m == "GET" || m == "HEAD" || m == "DELETE" || m == "TRACE" ||
                  (m == "OPTIONS" && !headers_of(request).contains("content-type")))) {
    static const Sym client_error = http::statuses_with_fields(between(400, 499));
    return client_error;
  }
  auto n = max_forwards(request);
  if (n && *n == 0 && !honours_max_forwards(request)) return refusal_pattern();
  return std::nullopt;
}

Sym lost_pattern() {
  static const Sym p = Sym::object({{"status", Sym::alt({Sym::lit(502), Sym::lit(504)})}});
  return p;
}

}  // namespace dualfuzz::proxy
