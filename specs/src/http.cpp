#include "dualfuzz/specs/http.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <string_view>

#include "dualfuzz/specs/detail/sym_state.h"

namespace dualfuzz::specs {
using oracle::Json;
using oracle::Request;
using oracle::Sort;
using oracle::Sym;
using oracle::Tree;

namespace {

// One path's server state (the model is partitioned by path; see http_model).
struct Resource {
  std::string body;
  Sym etag;      // Str; the constant "" means "this representation has no ETag"
  Sym modified;  // Int seconds: when this representation was stored
  friend bool operator==(const Resource&, const Resource&) = default;
};
struct PathState {
  std::optional<Resource> file;
  Sym clock = Sym::lit(0);  // no modification happens before this time
  friend bool operator==(const PathState&, const PathState&) = default;
};
void to_json(Json& j, const PathState& s) {
  j = Json::object();
  if (s.file)
    j = {{"body", s.file->body},
         {"etag", detail::SymState{s.file->etag}},
         {"modified", detail::SymState{s.file->modified}}};
  else
    j = {{"missing", true}};
}

}  // namespace
}  // namespace dualfuzz::specs

template <>
struct std::hash<dualfuzz::specs::PathState> {
  std::size_t operator()(const dualfuzz::specs::PathState& s) const {
    std::size_t h = s.clock.hash();
    if (s.file)
      h ^= std::hash<std::string>{}(s.file->body) + 31 * s.file->etag.hash() +
           s.file->modified.hash() * 17;
    return h;
  }
};

namespace dualfuzz::specs {
namespace {

Sym optional(Sym s) { return Sym::alt({Sym::absent(), std::move(s)}); }
Sym status(std::vector<int> codes) {
  std::vector<Sym> alts;
  for (int c : codes) alts.push_back(Sym::lit(c));
  return Sym::alt(std::move(alts));
}
// 200 or 204: what a successful PUT of an existing resource (or a no-op
// success) may answer; built once.
const Sym& status_ok() {
  static const Sym ok = status({200, 204});
  return ok;
}
// A response that only shows its status: one of `codes`. The oracle runs
// the model for every request in every explanation, so the common ones are
// built once.
Sym status_only(std::initializer_list<int> codes) {
  auto make = [](std::vector<int> c) {
    return Sym::object({{"status", status(std::move(c))}});
  };
  if (codes.size() == 1 && *codes.begin() >= 100 && *codes.begin() < 600) {
    static const std::vector<Sym> single = [&] {
      std::vector<Sym> v;
      for (int c = 100; c < 600; ++c) v.push_back(make({c}));
      return v;
    }();
    return single[static_cast<std::size_t>(*codes.begin() - 100)];
  }
  static const Sym ok = make({200, 204});
  if (codes.size() == 2 && codes.begin()[0] == 200 && codes.begin()[1] == 204) return ok;
  return make(codes);
}

// One lookup per field (the model reads requests for every hypothesis):
// the member, or null when `obj` is no object or lacks it.
const Json* field(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);  // (a string_view key: no strlen per comparison)
  return it == obj.end() ? nullptr : &*it;
}
const Json* header_field(const Json& q, const char* name) {
  const Json* h = field(q, "headers");
  return h ? field(*h, name) : nullptr;
}
std::string string_field(const Json& obj, const char* key) {
  const Json* v = field(obj, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}
std::string header(const Json& q, const char* name) {
  const Json* h = field(q, "headers");
  return h ? string_field(*h, name) : std::string();
}
bool has_header(const Json& q, const char* name) { return header_field(q, name); }

// An entity-tag list (RFC 9110 §8.8.3): `*` or comma-separated tags.
std::vector<std::string> etag_list(const std::string& v) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) ++i;
    if (i >= v.size()) break;
    std::size_t start = i;
    if (v.compare(i, 2, "W/") == 0) i += 2;
    if (i < v.size() && v[i] == '"') {
      auto close = v.find('"', i + 1);
      i = close == std::string::npos ? v.size() : close + 1;
    } else {
      while (i < v.size() && v[i] != ',') ++i;
    }
    out.push_back(v.substr(start, i - start));
    while (!out.back().empty() && (out.back().back() == ' ' || out.back().back() == '\t'))
      out.back().pop_back();
  }
  return out;
}

// Is the field a well-formed `"*" / #entity-tag` (RFC 9110 §13.1.1-2,
// §8.8.3)? A server may treat a malformed one as absent or refuse it.
bool valid_etag_list(const Json& q, const char* name) {
  const Json* h = header_field(q, name);
  if (!h || !h->is_string()) return false;
  auto tags = etag_list(h->get_ref<const std::string&>());
  if (tags.empty()) return false;
  if (tags.size() == 1 && tags[0] == "*") return true;
  for (const std::string& t : tags) {
    std::string_view v = t;
    if (v.starts_with("W/")) v.remove_prefix(2);
    if (v.size() < 2 || v.front() != '"' || v.back() != '"') return false;
    for (char c : v.substr(1, v.size() - 2))
      if (static_cast<unsigned char>(c) < 0x21 || c == '"' || c == 0x7f) return false;
  }
  return true;
}

// Does the If-Match / If-None-Match list match the resource's tag?
Sym list_matches(const std::string& field, const Resource* r, bool strong) {
  if (!r) return Sym::lit(false);
  auto tags = etag_list(field);
  Sym any = Sym::lit(false);
  for (const std::string& t : tags) {
    if (t == "*") return Sym::lit(true);
    any = oracle::or_(any, strong ? oracle::strong_match(Sym::lit(t), r->etag)
                                  : oracle::weak_match(Sym::lit(t), r->etag));
  }
  return any;
}

Tree serve(const PathState& st);

Tree respond(const Request& q, Sym pattern, const PathState& next) {
  return oracle::send(q.conn, std::move(pattern), serve(next));
}

Sym validators(const Resource& r) {
  // A representation without an ETag has none in any response. One with a
  // tag may still omit it: RFC 9110 §8.8.3 says an origin server SHOULD (not
  // MUST) send it (lighttpd 1.4.69 shows it on the 201 of a PUT, not on GET).
  if (r.etag.is_const() && r.etag.value() == "") return Sym::absent();
  return optional(r.etag);
}

Tree get(const Request& q, const PathState& st, bool head) {
  const Resource& r = *st.file;
  std::vector<std::pair<std::string, Sym>> fields = {
      {"status", Sym::lit(200)},
      {"headers", Sym::object({{"etag", validators(r)}})},
      {"dates", optional(Sym::object({{"last-modified", optional(r.modified)}}))}};
  if (!head) fields.push_back({"body", Sym::lit(r.body)});
  return respond(q, Sym::object(std::move(fields)), st);
}

Tree not_modified(const Request& q, const PathState& st) {
  const Resource& r = *st.file;
  return respond(q,
                 Sym::object({{"status", Sym::lit(304)},
                              {"headers", Sym::object({{"etag", validators(r)}})}}),
                 st);
}

Tree put(const Request& q, const PathState& st, const std::string& body) {
  bool exists = st.file.has_value();
  // Last-Modified: an unknown time, not before any earlier modification.
  return oracle::fresh(Sort::Int, "last-modified", [=](const Sym& m) {
    auto commit = [=](Sym tag) {
      PathState next = st;
      next.file = Resource{body, tag, m};
      next.clock = m;
      Sym etag = tag.is_const() ? Sym::absent() : optional(tag);
      Sym pattern = Sym::object(
          {{"status", exists ? status_ok() : Sym::lit(201)},
           {"headers", Sym::object({{"etag", etag}})},
           {"dates", optional(Sym::object({{"last-modified", optional(m)}}))}});
      return respond(q, pattern, next);
    };
    Tree tagged = oracle::fresh(Sort::Str, "etag", [=](const Sym& t) {
      // A strong tag never names two different contents of one resource.
      if (exists && st.file->body != body)
        return oracle::assume(oracle::not_(oracle::strong_match(t, st.file->etag)),
                              commit(t));
      return commit(t);
    });
    return oracle::assume(oracle::le(st.clock, m), tagged);
  });
}

// A malformed precondition field: evaluated as written, ignored, or refused
// with 400 (RFC 9110 §5.5 lets a recipient reject or ignore an invalid value;
// nginx 1.22 ignores `If-Match: null`).
template <class Ignore, class Evaluate>
Tree malformed_or(const Json& r, const char* name, const Request& q, const PathState& st,
                  Ignore ignore, Evaluate evaluate) {
  if (valid_etag_list(r, name)) return evaluate();
  return oracle::choose(evaluate(),
                        oracle::choose(ignore(), respond(q, status_only({400}), st)));
}

// What the steps of one precondition evaluation share: one allocation,
// captured by pointer, instead of a copy of the state per closure (the
// oracle runs this for every request in every hypothesis).
struct Evaluation {
  Request q;
  PathState st;
  std::string method;
  bool safe;  // GET or HEAD
  const Resource* file() const { return st.file ? &*st.file : nullptr; }
};
using Ev = std::shared_ptr<const Evaluation>;

std::string put_body(const Request& q) {
  const Json* body = field(q.json(), "body");
  if (!body) return "";
  return body->is_string() ? body->get<std::string>() : body->dump();
}

// The method itself, once the preconditions hold.
Tree proceed(const Ev& e) {
  const Request& q = e->q;
  const PathState& st = e->st;
  if (e->safe) return get(q, st, e->method == "HEAD");
  if (e->method == "PUT") return put(q, st, put_body(q));
  // POST and other methods: a 2xx that changes nothing (see handle).
  if (e->method != "DELETE") return respond(q, status_only({200, 204}), st);
  // DELETE of an existing resource.
  PathState gone = st;
  gone.file.reset();
  return oracle::choose(respond(q, status_only({200, 204}), gone),
                        respond(q, status_only({202}), st));
}

Tree fail412(const Ev& e) { return respond(e->q, status_only({412}), e->st); }

// A false If-Match or If-Unmodified-Since: 412, or, for a state-changing
// request whose change is already in place, a 2xx that changes nothing.
// RFC 9110 §13.1.1 (and §13.1.4 in the same words): "An origin server MUST
// NOT perform the requested method if a received If-Match condition
// evaluates to false. Instead, the origin server MAY indicate that the
// conditional request failed by responding with a 412 (Precondition Failed)
// status code or, if the request is a state-changing operation that appears
// to have already been applied to the selected representation, the origin
// server MAY respond with a 2xx (Successful) status code". A PUT of the
// content the resource already has is such a request; the representation,
// and so its validators, stay as they are. (If-None-Match has no such
// clause, §13.1.2.)
Tree fail_precondition(const Ev& e) {
  const Resource* file = e->file();
  if (e->method != "PUT" || !file || file->body != put_body(e->q)) return fail412(e);
  Sym applied = Sym::object(
      {{"status", status_ok()},
       {"headers", Sym::object({{"etag", validators(*file)}})},
       {"dates", optional(Sym::object({{"last-modified", optional(file->modified)}}))}});
  return oracle::choose(fail412(e), respond(e->q, std::move(applied), e->st));
}

// Step 4: If-Modified-Since, GET/HEAD only; a server may ignore it.
Tree step4(const Ev& e) {
  const Resource* file = e->file();
  if (auto d = parse_http_date(header(e->q.json(), "if-modified-since"));
      d && e->safe && file) {
    Sym not_since = oracle::le(file->modified, Sym::lit(*d));
    return oracle::choose(proceed(e),
                          oracle::ifx(
                              not_since, [e] { return not_modified(e->q, e->st); },
                              [e] { return proceed(e); }));
  }
  return proceed(e);
}

// Step 3: If-None-Match (weak comparison).
Tree step3(const Ev& e) {
  const Json& r = e->q.json();
  if (!has_header(r, "if-none-match")) return step4(e);
  return malformed_or(
      r, "if-none-match", e->q, e->st, [e] { return step4(e); },
      [e] {
        return oracle::ifx(
            list_matches(header(e->q.json(), "if-none-match"), e->file(), false),
            [e] { return e->safe ? not_modified(e->q, e->st) : fail412(e); },
            [e] { return proceed(e); });
      });
}

// RFC 9110 §13.2.2: evaluate preconditions in order, then the method.
Tree preconditions(const Request& q, const PathState& st, const std::string& method) {
  const Ev e = std::make_shared<const Evaluation>(
      Evaluation{q, st, method, method == "GET" || method == "HEAD"});
  const Json& r = q.json();
  const Resource* file = e->file();
  // Step 1: If-Match (strong comparison); when true, go on to step 3.
  if (has_header(r, "if-match"))
    return malformed_or(
        r, "if-match", q, st, [e] { return step3(e); },
        [e] {
          return oracle::ifx(
              list_matches(header(e->q.json(), "if-match"), e->file(), true),
              [e] { return step3(e); }, [e] { return fail_precondition(e); });
        });
  // Step 2: If-Unmodified-Since (only without If-Match).
  Sym unmodified = Sym::lit(true);
  if (auto d = parse_http_date(header(r, "if-unmodified-since")); d && file)
    unmodified = oracle::le(file->modified, Sym::lit(*d));
  else if (d)  // no representation, no date: either way (§13.1.4; Apache: 412)
    return oracle::choose(step3(e), fail412(e));
  return oracle::ifx(
      unmodified, [e] { return step3(e); }, [e] { return fail_precondition(e); });
}

Tree handle_method(const Request& q, const PathState& st, const std::string& method) {
  // Preconditions are ignored when the unconditional answer is an error.
  if ((method == "GET" || method == "HEAD" || method == "DELETE") && !st.file)
    return respond(q, status_only({404}), st);
  // The model keeps paths independent, so it cannot know whether /a/b's
  // parent collection exists: a PUT there may fail with 409 and change
  // nothing (RFC 9110 §9.3.4; RFC 4918 §9.7.1 requires it of WebDAV servers).
  const Json& r = q.json();
  if (method == "PUT" && string_field(r, "path").find('/', 1) != std::string::npos)
    return oracle::choose(respond(q, status_only({409}), st),
                          preconditions(q, st, method));
  return preconditions(q, st, method);
}

Tree handle(const Request& q, const PathState& st) {
  const Json& r = q.json();
  const std::string method = string_field(r, "method");
  if (method != "GET" && method != "HEAD" && method != "PUT" && method != "DELETE") {
    std::vector<int> codes = {405, 501};
    if (method == "OPTIONS") codes = {200, 204, 405, 501};
    // No resource to apply the method to is a 404 as much as a 405 (RFC 9110
    // §15.5.5; Apache, nginx and lighttpd all answer POST /missing so).
    if (!st.file) codes.push_back(404);
    // What POST and other methods do to an existing resource is the
    // resource's own business (RFC 9110 §9.3.3); the model only covers
    // servers where it changes nothing, e.g. a static file answering POST
    // with itself (Apache 2.4) or with an empty 2xx.
    Tree refuse = respond(q, Sym::object({{"status", status(codes)}}), st);
    // A 2xx answer is subject to the preconditions (RFC 9110 §13.2.1); a
    // refusal takes precedence over them. Without a representation, If-Match
    // is false and If-Unmodified-Since may be (§13.1.1, §13.1.4).
    if (st.file) return oracle::choose(refuse, preconditions(q, st, method));
    if (has_header(r, "if-match") || has_header(r, "if-unmodified-since"))
      return oracle::choose(refuse, respond(q, status_only({412}), st));
    return refuse;
  }
  // Content in a GET, HEAD or DELETE has no defined semantics and "might
  // lead some implementations to reject the request" (RFC 9110 §9.3.1,
  // §9.3.2, §9.3.5): a 400 (or 413, 415: nginx) that changes nothing is correct too.
  if (const Json* body = field(r, "body");
      method != "PUT" && body && *body != "" && !body->is_null())
    return oracle::choose(respond(q, status_only({400, 413, 415}), st),
                          handle_method(q, st, method));
  return handle_method(q, st, method);
}

Tree serve(const PathState& state) {
  // The continuation keeps the state through the ModelState (one shared
  // copy, small enough for std::function's inline storage).
  oracle::ModelState ms(state);
  return oracle::recv(ms, [ms](const Request& q) -> Tree {
    const PathState& st = *ms.get<PathState>();
    if (!plain_path(string_field(
            q.json(), "path")))  // a correct server may refuse odd paths outright
      return oracle::choose(respond(q, status_only({400, 403, 404, 405, 409, 414}), st),
                            handle(q, st));
    return handle(q, st);
  });
}

}  // namespace

bool plain_path(const std::string& path) {
  // (/[A-Za-z0-9._~-]+)+ : RFC 3986 unreserved characters only.
  if (path.empty() || path.size() > 512 || path.front() != '/' || path.back() == '/')
    return false;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '~' ||
                            c == '-';
    if (!unreserved && !(c == '/' && (i == 0 || path[i - 1] != '/'))) return false;
  }
  // No dot segments: servers normalise them.
  return path.find("/./") == std::string::npos &&
         path.find("/../") == std::string::npos && !path.ends_with("/.") &&
         !path.ends_with("/..");
}

namespace {
// Exactly the fixed-width shape `shape`: 'D' a digit, 'd' a digit or a
// space, 'A' a letter, anything else itself.
bool shaped(std::string_view s, std::string_view shape) {
  if (s.size() != shape.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool digit = c >= '0' && c <= '9';
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    switch (shape[i]) {
      case 'D':
        if (!digit) return false;
        break;
      case 'd':
        if (!digit && c != ' ') return false;
        break;
      case 'A':
        if (!letter) return false;
        break;
      default:
        if (c != shape[i]) return false;
    }
  }
  return true;
}
std::optional<long long> parsed(const std::string& s, const char* format, std::tm& tm) {
  const char* end = strptime(s.c_str(), format, &tm);
  if (!end || *end != '\0') return std::nullopt;
  return static_cast<long long>(timegm(&tm));
}
}  // namespace

// RFC 9110 §5.6.7: "A recipient that parses a timestamp value in an HTTP
// field MUST accept all three HTTP-date formats" — IMF-fixdate and the
// obsolete rfc850-date and asctime-date.
std::optional<long long> parse_http_date(const std::string& s) {
  std::tm tm{};
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  if (shaped(s, "AAA, DD AAA DDDD DD:DD:DD GMT"))
    return parsed(s, "%a, %d %b %Y %H:%M:%S GMT", tm);
  // asctime-date: "Sun Nov  6 08:49:37 1994"
  if (shaped(s, "AAA AAA dD DD:DD:DD DDDD")) return parsed(s, "%a %b %e %H:%M:%S %Y", tm);
  // rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT"; a two-digit year more
  // than 50 years in the future is the latest such year in the past.
  static const char* const kDays[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                      "Friday", "Saturday", "Sunday"};
  const std::size_t comma = s.find(", ");
  if (comma == std::string::npos ||
      std::find(std::begin(kDays), std::end(kDays), s.substr(0, comma)) ==
          std::end(kDays) ||
      !shaped(std::string_view(s).substr(comma + 2), "DD-AAA-DD DD:DD:DD GMT"))
    return std::nullopt;
  auto t = parsed(s, "%A, %d-%b-%y %H:%M:%S GMT", tm);
  if (!t) return std::nullopt;
  std::tm now{};
  const std::time_t clock = std::time(nullptr);
  gmtime_r(&clock, &now);
  const int year = 1900 + tm.tm_year, this_year = 1900 + now.tm_year;
  int full = this_year / 100 * 100 + year % 100;
  if (full > this_year + 50) full -= 100;
  tm.tm_year = full - 1900;
  return static_cast<long long>(timegm(&tm));
}

std::string format_http_date(long long seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

Json normalize_response(Json ir) {
  if (!ir.is_object() || !ir.contains("headers") || !ir["headers"].is_object()) return ir;
  Json dates = Json::object();
  for (const auto& [k, v] : ir["headers"].items())
    if (v.is_string())
      if (auto d = parse_http_date(v.get<std::string>())) dates[k] = *d;
  ir["dates"] = dates;
  return ir;
}

oracle::ServerModel http_model() {
  oracle::ServerModel m{"HTTP/1.1", [] { return serve(PathState{}); }, nullptr};
  // Resources are independent: one server per path (P-compositionality).
  m.partition = [](const Json& r) -> std::optional<std::string> {
    if (const Json* p = field(r, "path"); p && p->is_string())
      return p->get<std::string>();
    return std::nullopt;
  };
  return m;
}

}  // namespace dualfuzz::specs
