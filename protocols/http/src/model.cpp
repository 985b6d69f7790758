#include "dualfuzz/http/model.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <string_view>

#include "dualfuzz/http/byte_range.h"
#include "dualfuzz/http/content_coding.h"
#include "dualfuzz/http/destination.h"
#include "dualfuzz/http/detail/field_text.h"
#include "dualfuzz/http/entity_tag.h"
#include "dualfuzz/http/host.h"
#include "dualfuzz/http/malformation.h"
#include "dualfuzz/http/status_fields.h"
#include "dualfuzz/oracle/partition_router.h"
#include "dualfuzz/specs/detail/sym_state.h"

namespace dualfuzz::http {
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
  // What every response showing this representation contains, built once
  // when it is stored (make_resource): functions of the fields above.
  Sym headers;  // {"etag": the tag, which the server may leave out}
  // The same for a HEAD, plus the Content-Length a GET would send, which a
  // HEAD may leave out but MUST NOT misstate (RFC 9110 §8.6).
  Sym head_headers;
  Sym dates;    // {"last-modified": ...}, optional
  Sym content;  // the body as a constant
  // False for a representation the model has only seen (make_observed): its
  // content is a variable the first GET binds, `body` is empty, and what
  // needs the bytes (a range's slice, Content-Length, "the same content")
  // is left open.
  bool known = true;
  // A representation the model has seen rather than stored (a site's file,
  // what a POST made): its validators may change at any time (a touched
  // file), so each request is served against validators of its own
  // (serve_dav). Once an answer has shown its bytes it is read (read_state):
  // known, and still seen.
  bool seen = false;
  friend bool operator==(const Resource& a, const Resource& b) {
    return a.body == b.body && a.known == b.known && a.seen == b.seen &&
           a.content == b.content && a.etag == b.etag && a.modified == b.modified;
  }
};
struct PathState {
  std::optional<Resource> file;
  Sym clock = Sym::lit(0);  // no modification happens before this time
  // WebDAV (RFC 4918). `unknown`: a state the model knows it does not know
  // (a collection, a locked empty resource, a path another path's COPY or
  // MOVE may have written): every answer is accepted until a PUT or DELETE
  // with a known effect pins it again (unknown_answer). `lockable`: a lock
  // may cover the path (a LOCK succeeded on it, or it was unknown), so any
  // write may be refused with 423 and change nothing; locks expire and
  // UNLOCK needs the right token, so the model never clears it.
  bool unknown = false;
  bool lockable = false;
  // What the user let the model assume (the same in every state of a model).
  Assumptions assume{};
  // Unknown but fixed: a state the model does not know that nobody else
  // changes (a resource the server held before the run, or what a POST
  // made of the path): the first answer that shows it binds it
  // (fixed_answer), and every later answer must agree.
  bool fixed = false;
  // The partition's first tree (first()): no request yet. Only to tell its
  // state from "missing" (the futures differ for a site's resource).
  bool pristine = false;
  friend bool operator==(const PathState&, const PathState&) = default;
};
void to_json(Json& j, const PathState& s) {
  j = Json::object();
  if (s.unknown)
    j = {{"unknown", true}};
  else if (s.fixed)
    j = {{"unknown", "fixed: the next answer that shows it binds it"}};
  else if (s.file && !s.file->known)
    j = {{"body", "(as first shown)"},
         {"etag", specs::detail::SymState{s.file->etag}},
         {"modified", specs::detail::SymState{s.file->modified}}};
  else if (s.file)
    j = {{"body", s.file->body},
         {"etag", specs::detail::SymState{s.file->etag}},
         {"modified", specs::detail::SymState{s.file->modified}}};
  else
    j = {{"missing", true}};
}

}  // namespace
}  // namespace dualfuzz::http

template <>
struct std::hash<dualfuzz::http::PathState> {
  std::size_t operator()(const dualfuzz::http::PathState& s) const {
    std::size_t h = s.clock.hash() + 3 * s.unknown + 5 * s.lockable + 7 * s.fixed;
    if (s.file)
      h ^= std::hash<std::string>{}(s.file->body) + 13 * s.file->content.hash() +
           31 * s.file->etag.hash() + s.file->modified.hash() * 17;
    return h;
  }
};

namespace dualfuzz::http {
namespace {

// The weaker consistencies (Consistency::Interval, Torn): a write takes
// effect over an interval. The server has received it and decided its answer
// (`pattern`, the path's state `after`), but has neither stored the new
// state nor answered yet; meanwhile it serves other connections' requests
// on the path against the old state or a pending new one.
struct Pending {
  oracle::ConnId conn = 0;
  Sym pattern;
  oracle::Clause clause = nullptr;  // (not part of the identity, as in the network)
  // The state it stores; none for a write that changes nothing (a DELETE
  // of nothing, a PUT refused): still in progress, so a conflicting request
  // may find the server busy (Go's x/net/webdav locks for every DELETE).
  std::optional<PathState> after;
  friend bool operator==(const Pending& a, const Pending& b) {
    return a.conn == b.conn && a.pattern == b.pattern && a.after == b.after;
  }
};
struct World {
  Consistency consistency = Consistency::Interval;
  PathState committed;
  std::vector<Pending> pending;  // in the order received
  friend bool operator==(const World&, const World&) = default;
};
void to_json(Json& j, const World& w) {
  j = {{"committed", w.committed}, {"pending", Json::array()}};
  for (const Pending& p : w.pending)
    j["pending"].push_back(
        {{"conn", p.conn}, {"after", p.after ? Json(*p.after) : Json()}});
}

}  // namespace
}  // namespace dualfuzz::http

template <>
struct std::hash<dualfuzz::http::World> {
  std::size_t operator()(const dualfuzz::http::World& w) const {
    std::size_t h = std::hash<dualfuzz::http::PathState>{}(w.committed) +
                    static_cast<std::size_t>(w.consistency);
    for (const auto& p : w.pending)
      h = h * 1000003 ^
          ((p.after ? std::hash<dualfuzz::http::PathState>{}(*p.after) : 7) +
           31 * p.pattern.hash() + p.conn);
    return h;
  }
};

namespace dualfuzz::http {
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
const Sym& status_ok_only() {
  static const Sym ok = Sym::object({{"status", status_ok()}});
  return ok;
}
// A response with these statuses, and a field whose presence
// normalize_response marked ({"location": {"present": true}}).
Sym with_field(std::vector<int> codes, const char* field) {
  return Sym::object({{"status", status(std::move(codes))},
                      {field, Sym::object({{"present", Sym::lit(true)}})}});
}
// A response with one of `codes`, each carrying the field its status MUST
// carry (status_fields.h).
Sym answered(std::vector<int> codes) { return statuses_with_fields(std::move(codes)); }
// Any client error (4xx), each with the field its status MUST carry.
const Sym& any_client_error() {
  static const Sym p = [] {
    std::vector<int> codes;
    for (int c = 400; c <= 499; ++c) codes.push_back(c);
    return answered(std::move(codes));
  }();
  return p;
}
// A response that only shows its status: one of `codes`. The oracle runs
// the model for every request in every explanation, so the answers the
// model gives are built once (an immutable table, filled on first use).
Sym status_only(std::initializer_list<int> codes) {
  auto make = [](std::vector<int> c) { return answered(std::move(c)); };
  if (codes.size() == 1 && *codes.begin() >= 100 && *codes.begin() < 600) {
    static const std::vector<Sym> single = [&] {
      std::vector<Sym> v;
      for (int c = 100; c < 600; ++c) v.push_back(make({c}));
      return v;
    }();
    return single[static_cast<std::size_t>(*codes.begin() - 100)];
  }
  static const std::vector<std::pair<std::vector<int>, Sym>> sets = [&] {
    std::vector<std::pair<std::vector<int>, Sym>> v;
    v.emplace_back(std::vector<int>{200, 204}, Sym::object({{"status", status_ok()}}));
    for (std::vector<int> c :
         std::initializer_list<std::vector<int>>{{400, 413, 415},
                                                 {400, 403, 404, 405, 409, 414},
                                                 {405, 501},
                                                 {405, 501, 404},
                                                 {200, 204, 405, 501},
                                                 {200, 204, 405, 501, 404}})
      v.emplace_back(c, make(c));
    return v;
  }();
  for (const auto& [c, sym] : sets)
    if (std::equal(c.begin(), c.end(), codes.begin(), codes.end())) return sym;
  return make(codes);
}

// One lookup per field (the model reads requests for every hypothesis):
// the member, or null when `obj` is no object or lacks it.
const Json* field(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);  // (a string_view key: no strlen per comparison)
  return it == obj.end() ? nullptr : &*it;
}

// Is the field a well-formed `"*" / #entity-tag` (RFC 9110 §13.1.1-2,
// §8.8.3)? A server may treat a malformed one as absent or refuse it.
bool valid_etag_list(const std::vector<std::string>& tags) {
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
Sym list_matches(const std::vector<std::string>& tags, const Resource* r, bool strong) {
  if (!r) return Sym::lit(false);
  Sym any = Sym::lit(false);
  for (const std::string& t : tags) {
    if (t == "*") return Sym::lit(true);
    any = oracle::or_(any, strong ? strong_match(Sym::lit(t), r->etag)
                                  : weak_match(Sym::lit(t), r->etag));
  }
  return any;
}

Tree serve(const PathState& st);
Tree serve_in(const oracle::ModelState& ms);
struct Evaluation;
Tree serve_dav_stated(const std::shared_ptr<const Evaluation>& e);
Tree serve_world(World w);

// Every answer names the RFC clause it implements (oracle::send's clause):
// an explanation that dies on it says which clause the server broke.
using oracle::Clause;
constexpr Clause kGet = "RFC 9110 §9.3.1";
constexpr Clause kCoded = "RFC 9110 §8.4 (a content-coded representation)";
constexpr Clause kHead = "RFC 9110 §9.3.2";
constexpr Clause kPost = "RFC 9110 §9.3.3";
constexpr Clause kPut = "RFC 9110 §9.3.4";
constexpr Clause kDelete = "RFC 9110 §9.3.5";
constexpr Clause kOptions = "RFC 9110 §9.3.7, §15.5.6, §15.6.2";
constexpr Clause kOptionsContent = "RFC 9110 §9.3.7";
constexpr Clause kUnsupported = "RFC 9110 §15.5.6, §15.6.2";  // 405, 501
constexpr Clause kNotFound = "RFC 9110 §15.5.5";
// A 404 despite preconditions: they are ignored when the answer is an error.
constexpr Clause kIgnored = "RFC 9110 §15.5.5, §13.2.1";
constexpr Clause kInvalidField = "RFC 9110 §5.5";
constexpr Clause kIfMatch = "RFC 9110 §13.1.1";
constexpr Clause kIfNoneMatch = "RFC 9110 §13.1.2";
constexpr Clause kIfModifiedSince = "RFC 9110 §13.1.3";
constexpr Clause kIfUnmodifiedSince = "RFC 9110 §13.1.4";
constexpr Clause kIfRange = "RFC 9110 §13.1.5";
// A range request answered in full, or with the parts asked for.
constexpr Clause kRange = "RFC 9110 §14.2, §15.3.7";
constexpr Clause kUnsatisfiable = "RFC 9110 §14.1.2, §15.5.17";
constexpr Clause kHeadLength = "RFC 9110 §9.3.2, §8.6";
constexpr Clause kPatch = "RFC 5789 §2";
// A refusal (Assumptions::writable off): the server will not serve the
// request, and nothing changes.
constexpr Clause kRefused = "RFC 9110 §15.4-§15.6 (a refusal)";
constexpr Clause kUnknownMethod = "RFC 9110 §9.1 (an unknown method: 501 SHOULD)";

// What a server may answer a request it will not serve, whatever it is
// (RFC 9110 §15): each changes nothing, and each is built once per kind of
// request. Read clause by clause:
//  - 401 "MUST send a WWW-Authenticate header field" (§11.6.1, §15.5.2);
//  - 403 for any request (§15.5.4); 404 and 410 where nothing is stored; 404
//    also to a method other than GET and HEAD where something is (a server
//    that "hides" it, §15.5.4-5); to GET and HEAD the model reads 404 as
//    "nothing" (one that hid it there is not told apart from one that lost it);
//  - 405 "MUST generate an Allow header field" (§15.5.6) and 501 (§15.6.2),
//    never for GET or HEAD: "All general-purpose servers MUST support the
//    methods GET and HEAD" (§9.1);
//  - 409, a conflict with the resource's state, for any method but GET and
//    HEAD (§15.5.10: webdav-server answers a POST below a missing
//    collection so); 415 for content the resource will not take (§9.3.4,
//    §15.5.16), 507 when it cannot be stored (RFC 4918 §11.5);
//  - 413, 414 (§15.5.14-15), 429 and 431 (RFC 6585 §4, §5), 503 (§15.6.4;
//    Retry-After is a MAY);
//  - a redirect, 301, 302, 303, 307, 308 (§15.4), which SHOULD carry
//    Location (§15.4.2-15.4.9): required only when strict;
//  - for a method other than GET and HEAD, any other client error: "All
//    other methods are OPTIONAL" (§9.1), and one the server does not
//    implement "SHOULD" get 501 (§9.1): webfs answers OPTIONS, DELETE and
//    PATCH with 400. Not the codes that state what the model judges: 410
//    (nothing there; 404 is above), 412 (a precondition evaluated false,
//    §13.2.2), 416 (no satisfiable range), 423 and 424 (locks, RFC 4918).
//    Only the codes above when strict (the SHOULD as a MUST).
const Sym& refusals(bool get_or_head, bool missing, bool content, bool strict) {
  static const std::vector<Sym> table = [] {
    std::vector<Sym> t;
    for (int i = 0; i < 16; ++i) {
      const bool safe = i & 1, gone = i & 2, body = i & 4, must = i & 8;
      std::vector<int> plain = {401, 403, 413, 414, 429, 431, 503};
      if (gone) plain.insert(plain.end(), {404, 410});
      // 404 also for a resource that exists, for a method other than GET
      // and HEAD: the server "is not willing to disclose that one exists"
      // (§15.5.5; §15.5.4: it MAY hide a forbidden one so). Express's static
      // files answer any other method 404. (GET and HEAD: 404 is nothing.)
      if (!safe) plain.insert(plain.end(), {404, 405, 409, 501});
      if (!safe && !must)
        for (int c = 400; c <= 499; ++c)
          if (c != 410 && c != 412 && c != 416 && c != 423 && c != 424)
            plain.push_back(c);
      if (body) plain.insert(plain.end(), {415, 507});
      std::sort(plain.begin(), plain.end());
      plain.erase(std::unique(plain.begin(), plain.end()), plain.end());
      const std::vector<int> redirects = {301, 302, 303, 307, 308};
      t.push_back(Sym::alt({answered(std::move(plain)),
                            must ? with_field(redirects, "location")
                                 : Sym::object({{"status", status(redirects)}})}));
    }
    return t;
  }();
  return table[(get_or_head ? 1 : 0) + (missing ? 2 : 0) + (content ? 4 : 0) +
               (strict ? 8 : 0)];
}

// A successful POST (RFC 9110 §9.3.3) or PATCH (RFC 5789 §2): any 2xx, or a
// 303 to a resource that shows the result. "If one or more resources has
// been created ... the origin server SHOULD send a 201 (Created) response
// containing a Location header field" (§9.3.3), and a 303 names its
// resource in Location: both required only when strict.
const Sym& processed_pattern(bool post, bool strict) {
  static const std::vector<Sym> table = [] {
    std::vector<Sym> t;
    for (int i = 0; i < 4; ++i) {
      const bool is_post = i & 1, must = i & 2;
      std::vector<int> plain;
      // (202: accepted(), which leaves the state unknown, not fixed.)
      for (int c = 200; c <= 299; ++c)
        if (c != 202 && !(must && is_post && c == 201)) plain.push_back(c);
      // (Built by push_back: GCC 12 warns of a false -Warray-bounds for a
      // one-element initializer list grown afterwards.)
      std::vector<Sym> alts;
      alts.reserve(3);
      alts.push_back(Sym::object({{"status", status(plain)}}));
      if (must && is_post) alts.push_back(with_field({201}, "location"));
      alts.push_back(must ? with_field({303}, "location")
                          : Sym::object({{"status", Sym::lit(303)}}));
      t.push_back(Sym::alt(std::move(alts)));
    }
    return t;
  }();
  return table[(post ? 1 : 0) + (strict ? 2 : 0)];
}

Sym validators(const Sym& etag) {
  // A representation without an ETag has none in any response. One with a
  // tag may still omit it: RFC 9110 §8.8.3 says an origin server SHOULD (not
  // MUST) send it (lighttpd 1.4.69 shows it on the 201 of a PUT, not on GET).
  if (etag.is_const() && etag.value() == "") return Sym::absent();
  return optional(etag);
}

Sym headers_pattern(const Sym& etag) { return Sym::object({{"etag", validators(etag)}}); }
Sym head_headers_pattern(const Sym& etag, std::size_t length) {
  return Sym::object({{"etag", validators(etag)},
                      {"content-length", optional(Sym::lit(std::to_string(length)))}});
}
Sym dates_pattern(const Sym& modified) {
  return optional(Sym::object({{"last-modified", optional(modified)}}));
}
// The same patterns over the model's first variables (a PUT's tag and time
// are fresh variables, numbered from 0 in each explanation), built once:
// every PUT of every explanation stores a representation.
constexpr oracle::VarId kPrebuilt = 64;
const Sym& prebuilt(bool headers, oracle::VarId id) {
  static const std::vector<Sym> table = [] {
    std::vector<Sym> t;
    for (oracle::VarId i = 0; i < kPrebuilt; ++i)
      t.push_back(headers_pattern(Sym::var(i, Sort::Str)));
    for (oracle::VarId i = 0; i < kPrebuilt; ++i)
      t.push_back(dates_pattern(Sym::var(i, Sort::Int)));
    return t;
  }();
  return table[(headers ? 0 : kPrebuilt) + id];
}

Resource make_resource(std::string body, Sym etag, Sym modified) {
  Resource r{std::move(body), std::move(etag), std::move(modified), {}, {}, {}, {}};
  const bool tag_var =
      r.etag.is_var() && r.etag.sort() == Sort::Str && r.etag.var_id() < kPrebuilt;
  const bool time_var = r.modified.is_var() && r.modified.sort() == Sort::Int &&
                        r.modified.var_id() < kPrebuilt;
  r.headers = tag_var ? prebuilt(true, r.etag.var_id()) : headers_pattern(r.etag);
  r.dates = time_var ? prebuilt(false, r.modified.var_id()) : dates_pattern(r.modified);
  r.content = Sym::lit(r.body);
  r.head_headers = head_headers_pattern(r.etag, r.body.size());
  return r;
}

// A representation the model has seen but not read: its content, tag and
// time are variables (bound by the answers that show them).
Resource make_observed(Sym content, Sym etag, Sym modified) {
  Resource r{
      "",  std::move(etag), std::move(modified), {}, {}, {}, std::move(content), false,
      true};
  r.headers = headers_pattern(r.etag);
  r.head_headers = r.headers;  // (its Content-Length is not known)
  r.dates = dates_pattern(r.modified);
  return r;
}

// `f` with validators `etag`, `modified`: as it was otherwise (its bytes
// known or not, seen or stored).
Resource revalidated(const Resource& f, Sym etag, Sym modified) {
  if (!f.known) return make_observed(f.content, std::move(etag), std::move(modified));
  Resource r = make_resource(f.body, std::move(etag), std::move(modified));
  r.seen = f.seen;
  return r;
}

// A state whose seen representation's content `c` is now a constant (an
// earlier answer showed it: oracle::resolve): the same, read (its bytes
// known, so a range is their slice and a HEAD's Content-Length their
// length). nullopt when there is nothing to read.
std::optional<PathState> read_state(const PathState& st, const Sym& c) {
  if (!st.file || st.file->known || !c.is_const() || !c.value().is_string())
    return std::nullopt;
  PathState read = st;
  read.file =
      make_resource(c.value().get<std::string>(), st.file->etag, st.file->modified);
  read.file->seen = true;
  return read;
}
bool unread(const PathState& st) {
  return st.file && !st.file->known && !st.file->content.is_const();
}

// A precondition field (If-Match, If-None-Match) as sent: present or not,
// well-formed or not, and its entity tags.
struct TagField {
  bool present = false;
  bool valid = false;  // a well-formed `"*" / #entity-tag` (RFC 9110 §8.8.3)
  std::vector<std::string> tags;
};
TagField tag_field(const Json* h) {
  TagField f;
  f.present = h != nullptr;
  if (!h || !h->is_string()) return f;
  f.tags = detail::etag_list(h->get_ref<const std::string&>());
  f.valid = valid_etag_list(f.tags);
  return f;
}
// A date field's value, if it is a valid HTTP-date. Parsed only where the
// model reads it (strptime and timegm cost microseconds).
std::optional<long long> date_of(const Json* h) {
  if (!h || !h->is_string()) return std::nullopt;
  return parse_http_date(h->get_ref<const std::string&>());
}

// An If-Range field as sent: an entity tag, an HTTP-date or neither.
struct IfRange {
  bool present = false;
  std::optional<std::string> tag;  // a well-formed entity-tag (weak ones too)
  std::optional<long long> date;
};
IfRange if_range_field(const Json* h) {
  IfRange f;
  f.present = h != nullptr;
  if (!h || !h->is_string()) return f;
  const std::string& v = h->get_ref<const std::string&>();
  if (auto tags = detail::etag_list(v);
      tags.size() == 1 && tags[0] != "*" && valid_etag_list(tags))
    f.tag = tags[0];
  else
    f.date = parse_http_date(v);
  return f;
}

// One request as the model reads it, decoded once per distinct request
// (ServerModel::decode; the oracle runs the model on every request in every
// hypothesis): its fields looked up once, its dates parsed once.
// WebDAV's methods (RFC 4918 §9); Foreign: another partition's request whose
// effect may reach this path (ServerModel::reach, {"foreign": request}).
enum class Method {
  Get,
  Head,
  Put,
  Delete,
  Options,
  Post,     // RFC 9110 §9.3.3
  Patch,    // RFC 5789
  Other,    // a method the model does not know
  Trace,    // RFC 9110 §9.3.8
  Connect,  // RFC 9110 §9.3.6
  Propfind,
  Proppatch,
  Mkcol,
  Copy,
  Move,
  Lock,
  Unlock,
  Foreign
};
struct HttpRequest final : oracle::DecodedRequest {
  // GET and HEAD unanswered (RFC 9110 §9.2.1: safe): a fixed path they would
  // show stays as unknown as fresh variables nobody observes.
  bool unobservable_unanswered() const override { return safe; }
  Method method = Method::Other;
  std::string path;
  bool plain = false;        // plain_path(path)
  bool safe = false;         // GET or HEAD
  bool has_content = false;  // a body that is neither empty nor null
  std::string body;          // the representation a PUT stores (empty for other methods)
  TagField if_match, if_none_match;
  bool has_ius = false;  // If-Unmodified-Since sent (valid or not)
  // If-Unmodified-Since, If-Modified-Since, when valid HTTP-dates.
  std::optional<long long> ius, ims;
  // Range (read for GET only, RFC 9110 §14.2) and If-Range (§13.1.5).
  std::optional<RangeField> range;
  IfRange if_range;
  bool has_if = false;  // WebDAV's If header (RFC 4918 §10.4)
  // A Depth value the method does not define, or an Overwrite that is
  // neither T nor F (RFC 4918 §10.2, §10.6): the server may refuse it.
  bool odd_depth = false;
  bool chunked = false;  // content sent chunked (Transfer-Encoding)
  bool upgrade = false;  // an offer to switch protocols (RFC 9110 §7.8)
  // COPY, MOVE: the path is the Destination or below it (the request may
  // overwrite its own source).
  bool within_destination = false;
  // The defect its syntax was sent with (malformation.h), if any.
  const Malformation* malformed = nullptr;
  // The Host field: absent or the tester's default (the site whose state
  // the model tracks), another valid one, or an invalid one (host.h).
  HostField host = HostField::kDefault;
  // An Expect field with a member other than 100-continue (or none): the
  // server may refuse it with 417 (RFC 9110 §10.1.1).
  bool odd_expect = false;
  // A field sent blind (field_havoc.h): what the server made of its bytes
  // is its own, so nothing of the request is judged.
  bool blind = false;
  // A GET or HEAD whose Accept-Encoding admits a content coding: the server
  // may select a coded representation, whose validators the model does not
  // know (coded), so its preconditions may hold or not. (Without the field
  // the identity representation's validators decide: §12.5.3 would let a
  // server code unasked, but servers code when asked, and reading every
  // conditional GET so would leave none judged.)
  bool codings = false;
  // A resource of the site: a path the server held before the run, sent as
  // it is (no run prefix; Request IR "site": true). Its state is unknown
  // but fixed until an answer shows it (fixed_answer).
  bool site = false;
  // The same, on a server others may write (--shared-server): judged one
  // answer at a time (an unknown state), never against an earlier one.
  bool shared_site = false;
};

// One pass over an object's members, pointing the slot of each wanted one
// at it (a lookup per field costs a tree search each).
void pick(const Json& obj,
          std::initializer_list<std::pair<std::string_view, const Json**>> wanted) {
  if (!obj.is_object()) return;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string_view k = it.key();
    for (const auto& [name, slot] : wanted)
      if (k == name) {
        *slot = &*it;
        break;
      }
  }
}

// A Depth the method does not define (RFC 4918 §10.2: "0" | "1" |
// "infinity", and per method: PROPFIND all three §9.1, COPY 0 or infinity
// §9.8.3, MOVE and DELETE infinity §9.9.2, §9.6.1, LOCK 0 or infinity
// §9.10.3), or an Overwrite on COPY or MOVE that is neither T nor F
// (§10.6). The grammar's literals are case-insensitive (RFC 5234 §2.3). A
// method that defines no Depth ignores it. nginx 1.22 refuses DELETE with
// "Depth: 1" with 400 (a client error, RFC 9110 §15.5.1): judged a
// deletion before, a false alarm.
bool odd_depth(Method m, const Json* depth, const Json* overwrite) {
  auto lower = [](const Json* v) {
    return detail::lower(v->is_string() ? v->get_ref<const std::string&>()
                                        : oracle::dump_json(*v));
  };
  if (overwrite && (m == Method::Copy || m == Method::Move)) {
    const std::string o = lower(overwrite);
    if (o != "t" && o != "f") return true;
  }
  if (!depth) return false;
  const std::string v = lower(depth);
  switch (m) {
    case Method::Propfind:
      return v != "0" && v != "1" && v != "infinity";
    case Method::Copy:
    case Method::Lock:
      return v != "0" && v != "infinity";
    case Method::Move:
    case Method::Delete:
      return v != "infinity";
    default:
      return false;
  }
}

// Expect = #expectation (RFC 9110 §10.1.1); the only one defined is
// "100-continue", case-insensitive. A value that is not a string, or an
// empty list, is not that.
bool expects_only_continue(const Json* v) {
  if (!v->is_string()) return false;
  const auto members = detail::list_members(v->get_ref<const std::string&>());
  return !members.empty() &&
         std::all_of(members.begin(), members.end(),
                     [](const auto& m) { return m == "100-continue"; });
}

std::shared_ptr<const HttpRequest> decode(const Json& r) {
  using namespace std::string_view_literals;
  auto d = std::make_shared<HttpRequest>();
  const Json *method = nullptr, *path = nullptr, *body = nullptr, *headers = nullptr,
             *malformed = nullptr;
  pick(r, {{"method", &method},
           {"path", &path},
           {"body", &body},
           {"headers", &headers},
           {"malformed", &malformed}});
  auto text = [](const Json* v) -> std::string_view {
    return v && v->is_string() ? std::string_view(v->get_ref<const std::string&>())
                               : std::string_view();
  };
  if (const Json* other = field(r, "foreign")) {
    d->method = Method::Foreign;
    d->plain = true;
    // Nor does a blind request's answer say what it did to this path (a 4xx
    // changed nothing is a reading of its bytes).
    d->blind = other->is_object() && field(*other, "havoc") != nullptr;
    return d;
  }
  const std::string_view m = text(method);
  d->method = m == "GET"sv         ? Method::Get
              : m == "HEAD"sv      ? Method::Head
              : m == "PUT"sv       ? Method::Put
              : m == "DELETE"sv    ? Method::Delete
              : m == "OPTIONS"sv   ? Method::Options
              : m == "POST"sv      ? Method::Post
              : m == "PATCH"sv     ? Method::Patch
              : m == "PROPFIND"sv  ? Method::Propfind
              : m == "PROPPATCH"sv ? Method::Proppatch
              : m == "MKCOL"sv     ? Method::Mkcol
              : m == "COPY"sv      ? Method::Copy
              : m == "MOVE"sv      ? Method::Move
              : m == "LOCK"sv      ? Method::Lock
              : m == "UNLOCK"sv    ? Method::Unlock
              : m == "TRACE"sv     ? Method::Trace
              : m == "CONNECT"sv   ? Method::Connect
                                   : Method::Other;
  d->path = std::string(text(path));
  d->plain = plain_path(d->path);
  d->blind = field(r, "havoc") != nullptr;
  if (const Json* site = field(r, "site")) {
    d->site = *site == true;
    d->shared_site = *site == "shared";
  }
  if (malformed) d->malformed = find_malformation(text(malformed));
  d->safe = d->method == Method::Get || d->method == Method::Head;
  d->has_content = body && !body->is_null() &&
                   !(body->is_string() && body->get_ref<const std::string&>().empty());
  // Only a PUT stores (and compares) its content.
  if (body && d->method == Method::Put)
    d->body = body->is_string() ? body->get<std::string>() : oracle::dump_json(*body);
  if (headers) {
    const Json *im = nullptr, *inm = nullptr, *ius = nullptr, *ims = nullptr,
               *range = nullptr, *if_range = nullptr, *if_ = nullptr, *dest = nullptr,
               *depth = nullptr, *overwrite = nullptr, *te = nullptr, *host = nullptr,
               *expect = nullptr, *upgrade = nullptr, *accept_encoding = nullptr;
    pick(*headers, {{"if-match", &im},
                    {"accept-encoding", &accept_encoding},
                    {"upgrade", &upgrade},
                    {"if-none-match", &inm},
                    {"if-unmodified-since", &ius},
                    {"if-modified-since", &ims},
                    {"range", &range},
                    {"if-range", &if_range},
                    {"if", &if_},
                    {"destination", &dest},
                    {"depth", &depth},
                    {"overwrite", &overwrite},
                    {"transfer-encoding", &te},
                    {"host", &host},
                    {"expect", &expect}});
    if (expect) d->odd_expect = !expects_only_continue(expect);
    d->codings = d->safe && accept_encoding &&
                 (!accept_encoding->is_string() ||
                  admits_coding(accept_encoding->get_ref<const std::string&>()));
    // "A server MUST ignore an Upgrade header field that is received in an
    // HTTP/1.0 request" (RFC 9110 §7.8).
    const Json* version = field(r, "version");
    const bool http10 = version && *version == "HTTP/1.0";
    d->upgrade = upgrade && !http10;
    // "A server MUST respond with a 400 ... to any HTTP/1.1 request message
    // that lacks a Host header field" (RFC 9112 §3.2): an HTTP/1.0 request
    // without one may be served (the site's HTTP/1.0 GET may be mutated so),
    // or refused (a server of several sites cannot tell which one).
    static constexpr Malformation kNoHost10{"no-host", Latitude::kMayReject,
                                            "RFC 9112 §3.2 (an HTTP/1.0 request)"};
    if (http10 && d->malformed && d->malformed->name == "no-host")
      d->malformed = &kNoHost10;
    if (host)
      d->host = host->is_string() ? classify_host(text(host)) : HostField::kInvalid;
    d->chunked = te != nullptr;
    // "The presence of a message body in a request is signaled by a
    // Content-Length or Transfer-Encoding header field" (RFC 9112 §6.3):
    // chunked framing is content, even of no bytes (lighttpd refuses a GET
    // so with 400, a DELETE with 415).
    d->has_content = d->has_content || d->chunked;
    d->has_if = if_ != nullptr;
    d->odd_depth = odd_depth(d->method, depth, overwrite);
    if (dest && (d->method == Method::Copy || d->method == Method::Move))
      d->within_destination = oracle::within(
          d->path, destination_path(dest->is_string() ? dest->get<std::string>() : ""));
    if (range && range->is_string() && d->method == Method::Get)
      d->range = parse_range(range->get_ref<const std::string&>());
    d->if_range = if_range_field(if_range);
    d->if_match = tag_field(im);
    d->if_none_match = tag_field(inm);
    d->has_ius = ius != nullptr;
    d->ius = date_of(ius);
    d->ims = date_of(ims);
  }
  return d;
}

// One run of the model on one request in one state, shared by every
// closure of that run, so neither the request nor the path's state is
// copied per branch.
struct Evaluation {
  Request q;
  oracle::ModelState ms;  // owns the path's state
  const PathState* state;
  // The server waiting again as it was (the recv tree that took q): the
  // continuation of every answer that changes nothing (most answers).
  Tree unchanged;
  // Under a weaker consistency, the world the request came into (owned by
  // `ms`; `state` is the view it is served against); null when atomic.
  const World* world = nullptr;
  // A state of this evaluation's own that `state` points to (serve_dav: a
  // seen representation with validators of this request's).
  std::optional<PathState> own;
  const PathState& st() const { return *state; }
  const Resource* file() const { return state->file ? &*state->file : nullptr; }
  // q.decoded: the oracle's decoding, or this evaluation's (no decoder).
  const HttpRequest& req() const { return static_cast<const HttpRequest&>(*q.decoded); }
};
using Ev = std::shared_ptr<const Evaluation>;

// `view`, `world`: under a weaker consistency, the state the request is
// served against and the world (in `ms`) it came into; else the PathState
// in `ms`.
Ev evaluation(const Request& q, const oracle::ModelState& ms, const Tree& waiting,
              const PathState* view = nullptr, const World* world = nullptr) {
  auto e = std::make_shared<Evaluation>();
  e->q = q;
  e->ms = ms;
  e->state = view ? view : ms.get<PathState>();
  if (!q.decoded_as<HttpRequest>()) e->q.decoded = decode(q.json());
  e->unchanged = waiting;
  e->world = world;
  return e;
}

// An answer that changes nothing. Under a weaker consistency a PUT or
// DELETE answered so is still a write in progress until it is answered.
// A precondition of RFC 9110 §13.1 was sent (valid or not, If-Range aside).
bool preconditioned(const HttpRequest& q) {
  return q.if_match.present || q.if_none_match.present || q.has_ius || q.ims;
}

Tree respond(const Ev& e, Sym pattern, Clause clause) {
  if (e->world && (e->req().method == Method::Put || e->req().method == Method::Delete)) {
    World w = *e->world;
    w.pending.push_back(Pending{e->q.conn, std::move(pattern), clause, std::nullopt});
    return serve_world(std::move(w));
  }
  return oracle::send(e->q.conn, std::move(pattern), e->unchanged, clause);
}

// An answer that changes the path's state to `next`: atomically, or, under
// a weaker consistency, a write that is now in progress (serve_world).
Tree respond(const Ev& e, Sym pattern, const PathState& next, Clause clause) {
  if (!e->world) return oracle::send(e->q.conn, std::move(pattern), serve(next), clause);
  World w = *e->world;
  if (next.unknown) {
    // A state the model does not know, now: answered and stored at once,
    // and every write in progress may store before or after it, so they
    // too leave it unknown (one state instead of every interleaving of
    // pending unknowns, which no answer ever prunes).
    w.committed = next;
    for (Pending& p : w.pending)
      if (p.after) p.after = next;
    return oracle::send(e->q.conn, std::move(pattern), serve_world(std::move(w)), clause);
  }
  w.pending.push_back(Pending{e->q.conn, std::move(pattern), clause, next});
  return serve_world(std::move(w));
}

// The shapes of the responses that show a representation (their field
// names are made once).
const Sym::Fields& shown_shape() {
  static const Sym::Fields shape = Sym::fields({"status", "headers", "dates"});
  return shape;
}

// A content-coded form of the representation (RFC 9110 §8.4), which a
// server may send a request without Accept-Encoding as much as one asking
// for it (§12.5.3: no field means "no preferences"). It is a representation
// of its own, with validators of its own (§8.8.3: a strong tag tells them
// apart; nginx makes its tag weak, Apache appends "-gzip"), so its fields
// are not compared; its decoded content is, where the model can decode it
// (normalize_response). A HEAD's, a 206's (a range of the coded bytes) and
// an undecodable coding's content are not. (An alternative of the answer's
// pattern, not a branch: a pending GET costs no second explanation.)
Sym coded(const Resource& r, bool head, bool ranged) {
  static const Sym::Fields shape = Sym::fields({"status", "content-coding", "decoded"});
  static const Sym opaque =
      Sym::object({{"status", Sym::lit(200)}, {"content-coding", Sym::lit("opaque")}});
  static const Sym any_coding = Sym::object(
      {{"status", Sym::lit(200)},
       {"content-coding", Sym::alt({Sym::lit("decoded"), Sym::lit("opaque")})}});
  static const Sym part = Sym::object(
      {{"status", Sym::lit(206)},
       {"content-coding", Sym::alt({Sym::lit("decoded"), Sym::lit("opaque")})}});
  if (head) return any_coding;
  Sym whole = Sym::object(shape, {Sym::lit(200), Sym::lit("decoded"), r.content});
  if (ranged) return Sym::alt({std::move(whole), opaque, part});
  return Sym::alt({std::move(whole), opaque});
}

Tree full(const Ev& e, Clause clause) {
  static const Sym::Fields with_body =
      Sym::fields({"status", "headers", "dates", "body"});
  const Resource& r = *e->file();
  return respond(
      e,
      Sym::alt({Sym::object(with_body, {Sym::lit(200), r.headers, r.dates, r.content}),
                coded(r, false, e->req().range.has_value())}),
      clause);
}

// A 206 with one part: exactly these bytes, and a Content-Range saying so
// with the representation's length or "*" (RFC 9110 §14.4, §15.3.7.1).
Sym single_part(const Resource& r, ByteInterval part) {
  const long long n = static_cast<long long>(r.body.size());
  return Sym::object(
      {{"status", Sym::lit(206)},
       {"headers", r.headers},
       {"dates", r.dates},
       {"body",
        Sym::lit(r.body.substr(static_cast<std::size_t>(part.first),
                               static_cast<std::size_t>(part.last - part.first + 1)))},
       {"content-range",
        Sym::alt({Sym::lit(content_range(part.first, part.last, n)),
                  Sym::lit(content_range(part.first, part.last, std::nullopt))})},
       {"multipart", Sym::absent()}});
}

// A 206 with one part of a range the server chose instead of the one asked
// for. RFC 9110 §14.2 asks for parts that "correspond to the satisfiable
// range(s) requested" only as a SHOULD (busybox httpd answers `bytes=0-0`
// with the whole representation as `bytes 0-83/84`); what §15.3.7.1 makes a
// MUST is that the Content-Range describe the part enclosed and the content
// be that range. So the part's bytes are those of the representation at the
// offsets its Content-Range names, and its complete length the
// representation's (or "*"). Not under --strict: there the SHOULD holds and
// such an answer is the advisory.
struct SliceTest final : oracle::ValueTest {
  bool accepts(const Json& representation, const Json& observed) const override {
    const Json* range = field(observed, "content-range");
    const Json* body = field(observed, "body");
    if (!range || !range->is_string() || !body || !body->is_string()) return false;
    const auto part = content_range_part(range->get_ref<const std::string&>());
    const std::string& bytes = representation.get_ref<const std::string&>();
    const auto n = static_cast<long long>(bytes.size());
    if (!part || part->range.last >= n || (part->complete && *part->complete != n))
      return false;
    const auto first = static_cast<std::size_t>(part->range.first);
    const auto length =
        static_cast<std::size_t>(part->range.last - part->range.first + 1);
    return bytes.compare(first, length, body->get_ref<const std::string&>()) == 0;
  }
  const char* name() const override {
    return "a part whose Content-Range names its bytes (RFC 9110 §15.3.7.1) of";
  }
};

Sym other_part(const Resource& r) {
  static const SliceTest kSlice;
  return Sym::test(kSlice, r.content,
                   Sym::object({{"status", Sym::lit(206)},
                                {"headers", r.headers},
                                {"dates", r.dates},
                                {"multipart", Sym::absent()}}));
}

// The Range of a GET whose preconditions (and If-Range) hold. A server MAY
// ignore Range (§14.2): the full 200 is always correct.
// `other_parts`: whether a part other than the one asked for is the SHOULD
// it breaks (other_part), or, for an invalid set's well-formed specs, no
// answer at all (§14.2 lets a server ignore or reject the set, not serve
// more of it).
Tree ranges(const Ev& e, const RangeField& f, bool other_parts);
Tree ranges(const Ev& e) { return ranges(e, *e->req().range, true); }
Tree ranges(const Ev& e, const RangeField& f, bool other_parts) {
  const Resource& r = *e->file();
  if (!r.known) {
    // Bytes the model has not read: the full 200, or a 206 with this
    // representation's validators (which part it holds is not checked), or
    // a refusal of the range (416, or 400 for an invalid one).
    Sym part = Sym::object(
        {{"status", Sym::lit(206)}, {"headers", r.headers}, {"dates", r.dates}});
    return oracle::choose(full(e, kRange),
                          respond(e, Sym::alt({part, status_only({400, 416})}), kRange));
  }
  const long long n = static_cast<long long>(r.body.size());
  if (f.kind == RangeField::Kind::OtherUnit) return full(e, kRange);
  if (f.kind == RangeField::Kind::Invalid) {  // MAY ignore or reject (§14.2)
    Tree t = oracle::choose(full(e, kRange), respond(e, status_only({400, 416}), kRange));
    // ... or serve its well-formed specs alone (RangeField::well_formed).
    if (!f.well_formed.empty())
      t = oracle::choose(
          std::move(t),
          ranges(e, RangeField{RangeField::Kind::Bytes, f.well_formed, {}}, false));
    return t;
  }
  const std::vector<ByteInterval> parts = satisfiable(f, n);
  if (parts.empty()) {
    // 416, with Content-Range `bytes */n` (a SHOULD, §15.5.17: required
    // only when strict).
    Sym range = Sym::lit(unsatisfied_range(n));
    Sym refused =
        Sym::object({{"status", Sym::lit(416)},
                     {"content-range", e->st().assume.strict ? range : optional(range)}});
    return oracle::choose(full(e, kRange),
                          respond(e, std::move(refused), kUnsatisfiable));
  }
  const bool others = other_parts && !e->st().assume.strict;
  if (f.specs.size() == 1) {  // never multipart for one range (§15.3.7.2)
    Sym part = single_part(r, parts[0]);
    if (others) part = Sym::alt({std::move(part), other_part(r)});
    return oracle::choose(full(e, kRange), respond(e, std::move(part), kRange));
  }
  // Several ranges: multipart/byteranges (its parts are not checked, and no
  // Content-Range in the header section, §15.3.7.2), or one part when the
  // server coalesced them all: from the first byte asked for to the last.
  ByteInterval hull = parts[0];
  for (const ByteInterval& p : parts) {
    hull.first = std::min(hull.first, p.first);
    hull.last = std::max(hull.last, p.last);
  }
  Sym multipart = Sym::object({{"status", Sym::lit(206)},
                               {"headers", r.headers},
                               {"dates", r.dates},
                               {"content-range", Sym::absent()},
                               {"multipart", Sym::lit(true)}});
  std::vector<Sym> partials = {std::move(multipart), single_part(r, hull)};
  if (others) partials.push_back(other_part(r));
  Tree partial = respond(e, Sym::alt(std::move(partials)), kRange);
  Tree answer = oracle::choose(full(e, kRange), std::move(partial));
  // Overlapping or unordered ranges MAY be rejected (§14.2).
  if (overlapping_or_unordered(parts))
    return oracle::choose(std::move(answer), respond(e, status_only({416}), kRange));
  return answer;
}

Tree get(const Ev& e, bool head) {
  const Resource& r = *e->file();
  // HEAD: GET's status and header fields without content; a Range is
  // ignored, range handling being defined for GET only (§9.3.2, §14.2).
  if (head)
    return respond(
        e,
        Sym::alt({Sym::object(shown_shape(), {Sym::lit(200), r.head_headers, r.dates}),
                  coded(r, true, false)}),
        kHeadLength);
  if (!e->req().range) return full(e, kGet);
  // If-Range (§13.1.5): false means the full representation, never a part.
  // True for an entity tag that strongly matches the current one, or the
  // exact Last-Modified if the server holds it as a strong validator
  // (§8.8.2.2: its choice); false for anything else.
  const IfRange& ir = e->req().if_range;
  if (!ir.present) return ranges(e);
  if (ir.tag)
    return oracle::ifx(
        strong_match(Sym::lit(*ir.tag), r.etag), [e] { return ranges(e); },
        [e] { return full(e, kIfRange); });
  if (ir.date)
    return oracle::ifx(
        oracle::eq(r.modified, Sym::lit(*ir.date)),
        [e] { return oracle::choose(ranges(e), full(e, kIfRange)); },
        [e] { return full(e, kIfRange); });
  // Neither a tag nor a date: false, or refused as invalid (§5.5).
  return oracle::choose(full(e, kIfRange), respond(e, status_only({400}), kInvalidField));
}

// `clause`: the precondition that asks for the 304 (If-None-Match or
// If-Modified-Since).
Tree not_modified(const Ev& e, Clause clause) {
  const Resource& r = *e->file();
  static const Sym::Fields shape = Sym::fields({"status", "headers"});
  return respond(e, Sym::object(shape, {Sym::lit(304), r.headers}), clause);
}

// The PUT stored, with Last-Modified `m` and entity tag `tag`.
Tree commit(const Ev& e, const Sym& tag, const Sym& m) {
  const bool exists = e->file() != nullptr;
  // (Built afresh: a copy of the old state would copy the old content too.)
  const PathState next{make_resource(e->req().body, tag, m), m, false, false,
                       e->st().assume};
  Sym pattern = Sym::object(shown_shape(), {exists ? status_ok() : Sym::lit(201),
                                            next.file->headers, next.file->dates});
  return respond(e, std::move(pattern), next, kPut);
}

Tree put(const Ev& e) {
  // Last-Modified: an unknown time, not before any earlier modification.
  return oracle::fresh(Sort::Int, "last-modified", [e](const Sym& m) {
    Tree tagged = oracle::fresh(Sort::Str, "etag", [e, m](const Sym& t) {
      // A strong tag never names two different contents of one resource.
      const Resource* old = e->file();
      if (old && old->known && old->body != e->req().body)
        return oracle::assume(oracle::not_(strong_match(t, old->etag)), commit(e, t, m));
      return commit(e, t, m);
    });
    return oracle::assume(oracle::le(e->st().clock, m), tagged);
  });
}

// A malformed precondition field: evaluated as written, ignored, or refused
// with 400 (RFC 9110 §5.5 lets a recipient reject or ignore an invalid value;
// nginx 1.22 ignores `If-Match: null`).
template <class Ignore, class Evaluate>
Tree malformed_or(const TagField& f, const Ev& e, Ignore ignore, Evaluate evaluate) {
  if (f.valid) return evaluate();
  return oracle::choose(
      evaluate(),
      oracle::choose(ignore(), respond(e, status_only({400}), kInvalidField)));
}

PathState unknown_state(const Ev& e);
PathState fixed_state(const Ev& e);

// POST or PATCH, processed: what it did is the resource's own business
// (§9.3.3: create it, change it, or change nothing), so the path's state is
// one the model does not know, but fixed: the next answer that shows it
// binds it, and later ones must agree (fixed_answer).
Tree processed(const Ev& e) {
  const bool post = e->req().method == Method::Post;
  return respond(e, processed_pattern(post, e->st().assume.strict), fixed_state(e),
                 post ? kPost : kPatch);
}

// A 202 to a request that may change the resource: "accepted for
// processing, but the processing has not been completed. The request might
// or might not eventually be acted upon" (RFC 9110 §15.3.3), at a time the
// model cannot see: from then on the path's state is unknown.
Tree accepted(const Ev& e, Clause clause) {
  return respond(e, status_only({202}), unknown_state(e), clause);
}

// The method itself, once the preconditions hold.
Tree proceed(const Ev& e) {
  if (e->req().safe) return get(e, e->req().method == Method::Head);
  if (e->req().method == Method::Put) return oracle::choose(put(e), accepted(e, kPut));
  if (e->req().method == Method::Post || e->req().method == Method::Patch)
    return oracle::choose(processed(e),
                          accepted(e, e->req().method == Method::Post ? kPost : kPatch));
  // Other methods: a 2xx that changes nothing (see handle).
  if (e->req().method != Method::Delete)
    return respond(e, status_only({200, 204}), kPost);
  // DELETE of an existing resource: gone, or (202) perhaps later.
  const PathState gone{std::nullopt, e->st().clock, false, false, e->st().assume};
  return oracle::choose(respond(e, status_only({200, 204}), gone, kDelete),
                        accepted(e, kDelete));
}

// `clause`: the precondition that failed.
Tree fail412(const Ev& e, Clause clause) {
  return respond(e, status_only({412}), clause);
}

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
Tree fail_precondition(const Ev& e, Clause clause) {
  const Resource* file = e->file();
  if (e->req().method != Method::Put || !file ||
      (file->known && file->body != e->req().body))
    return fail412(e, clause);
  Sym applied = Sym::object(shown_shape(), {status_ok(), file->headers, file->dates});
  return oracle::choose(fail412(e, clause), respond(e, std::move(applied), clause));
}

// Step 4: If-Modified-Since, GET/HEAD only; a server may ignore it.
Tree step4(const Ev& e) {
  const Resource* file = e->file();
  if (auto d = e->req().safe && file ? e->req().ims : std::nullopt) {
    Sym not_since = oracle::le(file->modified, Sym::lit(*d));
    return oracle::choose(
        proceed(e), oracle::ifx(
                        not_since, [e] { return not_modified(e, kIfModifiedSince); },
                        [e] { return proceed(e); }));
  }
  return proceed(e);
}

// Step 3: If-None-Match (weak comparison).
Tree step3(const Ev& e) {
  if (!e->req().if_none_match.present) return step4(e);
  return malformed_or(
      e->req().if_none_match, e, [e] { return step4(e); },
      [e] {
        return oracle::ifx(
            list_matches(e->req().if_none_match.tags, e->file(), false),
            [e] {
              return e->req().safe ? not_modified(e, kIfNoneMatch)
                                   : fail412(e, kIfNoneMatch);
            },
            [e] { return proceed(e); });
      });
}

// RFC 9110 §13.2.2: evaluate preconditions in order, then the method.
Tree preconditions(const Ev& e) {
  // Step 1: If-Match (strong comparison); when true, go on to step 3.
  if (e->req().if_match.present)
    return malformed_or(
        e->req().if_match, e, [e] { return step3(e); },
        [e] {
          return oracle::ifx(
              list_matches(e->req().if_match.tags, e->file(), true),
              [e] { return step3(e); }, [e] { return fail_precondition(e, kIfMatch); });
        });
  // Step 2: If-Unmodified-Since (only without If-Match).
  Sym unmodified = Sym::lit(true);
  const std::optional<long long> d = e->req().ius;
  if (d && e->file())
    unmodified = oracle::le(e->file()->modified, Sym::lit(*d));
  else if (d)  // no representation, no date: either way (§13.1.4; Apache: 412)
    return oracle::choose(step3(e), fail412(e, kIfUnmodifiedSince));
  return oracle::ifx(
      unmodified, [e] { return step3(e); },
      [e] { return fail_precondition(e, kIfUnmodifiedSince); });
}

Tree handle_method(const Ev& e) {
  // Preconditions are ignored when the unconditional answer is an error.
  // (With preconditions, a 412 instead breaks §13.2.1.)
  if ((e->req().safe || e->req().method == Method::Delete) && !e->file()) {
    const HttpRequest& q = e->req();
    Tree missing =
        respond(e, status_only({404}), preconditioned(q) ? kIgnored : kNotFound);
    // A DELETE of nothing: RFC 9110 §9.3.5 asks no 404 of it, and a server
    // for which "gone" is done may say so (200/204, nothing changes; S3
    // does), or accept it for later (202), when it finds what is there then.
    // Such a server evaluates the preconditions (§13.2.1): an If-Match is
    // false where nothing is, a 412 (§13.1.1).
    if (q.method == Method::Delete)
      return oracle::choose(std::move(missing), preconditions(e));
    return missing;
  }
  // A coded representation's validators are its own (coded): a precondition
  // on one may hold (its 200 or 206) or fail (a 304, or a 412).
  if (e->req().codings && e->file() && preconditioned(e->req())) {
    static const Sym failed = status_only({304, 412});
    return oracle::choose(preconditions(e), respond(e, failed, kCoded));
  }
  // The model keeps paths independent, so it cannot know whether /a/b's
  // parent collection exists: a PUT there may fail with 409 and change
  // nothing (RFC 9110 §9.3.4; RFC 4918 §9.7.1 requires it of WebDAV servers).
  if (e->req().method == Method::Put &&
      e->req().path.find('/', 1) != std::string_view::npos)
    return oracle::choose(respond(e, status_only({409}), kPut), preconditions(e));
  return preconditions(e);
}

Tree handle(const Ev& e) {
  const Method method = e->req().method;
  if (method == Method::Post || method == Method::Patch) {
    // Unsupported or not allowed (§9.1: 405 or 501), nothing to process
    // (404), or processed once its preconditions hold; without a
    // representation, If-Match is false (§13.1.1: the method MUST NOT be
    // performed) and If-Unmodified-Since may be (§13.1.4), as
    // preconditions() reads them.
    Tree refuse =
        respond(e, e->file() ? status_only({405, 501}) : status_only({405, 501, 404}),
                kUnsupported);
    return oracle::choose(std::move(refuse), preconditions(e));
  }
  if (method == Method::Options || method == Method::Other) {
    // No resource to apply the method to is a 404 as much as a 405 (RFC 9110
    // §15.5.5; Apache, nginx and lighttpd all answer POST /missing so).
    const bool options = method == Method::Options, missing = !e->file();
    // What POST and other methods do to an existing resource is the
    // resource's own business (RFC 9110 §9.3.3); the model only covers
    // servers where it changes nothing, e.g. a static file answering POST
    // with itself (Apache 2.4) or with an empty 2xx.
    Tree refuse = respond(
        e,
        options ? (missing ? status_only({200, 204, 405, 501, 404})
                           : status_only({200, 204, 405, 501}))
                : (missing ? status_only({405, 501, 404}) : status_only({405, 501})),
        options ? kOptions : kUnsupported);
    // A 2xx answer is subject to the preconditions (RFC 9110 §13.2.1); a
    // refusal takes precedence over them. Without a representation, If-Match
    // is false and If-Unmodified-Since may be (§13.1.1, §13.1.4). Not for
    // OPTIONS: "a server MUST ignore the conditional request header fields
    // ... when received with a request method that does not involve the
    // selection or modification of a selected representation, such as
    // CONNECT, OPTIONS, or TRACE" (§13.2.1): no 304, no 412.
    Tree answer = options     ? std::move(refuse)
                  : e->file() ? oracle::choose(refuse, preconditions(e))
                  : e->req().if_match.present || e->req().has_ius
                      ? oracle::choose(refuse, fail412(e, e->req().if_match.present
                                                              ? kIfMatch
                                                              : kIfUnmodifiedSince))
                      : refuse;
    // OPTIONS content has no defined use, and without a Content-Type it
    // breaks the client's MUST of RFC 9110 §9.3.7: it may be refused (Apache
    // 2.4 with mod_dav: 400, with or without a Content-Type).
    if (options && e->req().has_content)
      return oracle::choose(respond(e, status_only({400, 413, 415}), kOptionsContent),
                            std::move(answer));
    // An unknown method "SHOULD" get 501 (§9.1): any client error is no
    // violation, only an advisory (but a 405 still MUST carry Allow, a 401
    // WWW-Authenticate: §15.5.6, §11.6.1).
    if (!options && !e->st().assume.strict)
      return oracle::choose(respond(e, any_client_error(), kUnknownMethod),
                            std::move(answer));
    return answer;
  }
  // Content in a GET, HEAD or DELETE has no defined semantics and "might
  // lead some implementations to reject the request" (RFC 9110 §9.3.1,
  // §9.3.2, §9.3.5), with no status named: any client error that changes
  // nothing is correct too (nginx: 400, 413, 415; Squid: 411).
  if (method != Method::Put && e->req().has_content)
    return oracle::choose(respond(e, any_client_error(),
                                  method == Method::Get    ? kGet
                                  : method == Method::Head ? kHead
                                                           : kDelete),
                          handle_method(e));
  return handle_method(e);
}

// ---- WebDAV (RFC 4918) ----------------------------------------------------
// The model checks what is cheap and sound: what a method must not change
// (PROPFIND is safe, PROPPATCH changes no content), what cannot succeed on a
// missing or an existing resource, and what its success makes of the path.
// Everything RFC 4918 leaves open (multistatus bodies, Depth, Overwrite,
// lock tokens and timeouts) is accepted. Effects on other paths (COPY's and
// MOVE's Destination, a collection's members) reach their partitions through
// ServerModel::reach, as a Foreign request that makes them unknown.
constexpr Clause kPropfind = "RFC 4918 §9.1";
constexpr Clause kProppatch = "RFC 4918 §9.2, §8.8";
constexpr Clause kMkcol = "RFC 4918 §9.3.1";
constexpr Clause kCopy = "RFC 4918 §9.8";
constexpr Clause kMove = "RFC 4918 §9.9";
constexpr Clause kLock = "RFC 4918 §9.10";
constexpr Clause kUnlock = "RFC 4918 §9.11";
constexpr Clause kLocked = "RFC 4918 §7, §11.3";
constexpr Clause kIfHeader = "RFC 4918 §10.4";
constexpr Clause kDepth = "RFC 4918 §10.2, §10.6";
constexpr Clause kLengthRequired = "RFC 9110 §15.5.12";
constexpr Clause kUpgrade = "RFC 9110 §7.8";
constexpr Clause kUnknownState = "RFC 4918 (a path whose state the model does not know)";

// The statuses 100-599 that `keep` keeps, as one pattern. Each set is built
// once, in a function-local static below (oracles may run in threads).
template <class Keep>
Sym statuses_if(Keep keep) {
  std::vector<int> codes;
  for (int c = 100; c <= 599; ++c)
    if (keep(c)) codes.push_back(c);
  return Sym::object({{"status", status(std::move(codes))}});
}
// Every status from `from` to `to` but `except`.
Sym statuses_except(std::initializer_list<int> except, int from = 100, int to = 599) {
  return statuses_if([&](int c) {
    return c >= from && c <= to &&
           std::find(except.begin(), except.end(), c) == except.end();
  });
}
#define DUALFUZZ_STATUSES(name, ...)                   \
  const Sym& name() {                                  \
    static const Sym s = statuses_except(__VA_ARGS__); \
    return s;                                          \
  }
DUALFUZZ_STATUSES(not_404, {404})
DUALFUZZ_STATUSES(not_deleted, {200, 204})
DUALFUZZ_STATUSES(not_stored, {200, 201, 204})
DUALFUZZ_STATUSES(client_error, {}, 400, 499)
DUALFUZZ_STATUSES(error_status, {}, 400, 599)
DUALFUZZ_STATUSES(not_shown, {200, 404, 410})
// ... and none that only a condition or a range asks for (RFC 9110 §15.3.7
// 206, §15.4.5 304, §15.5.13 412, §15.5.17 416).
DUALFUZZ_STATUSES(not_shown_plain, {200, 206, 304, 404, 410, 412, 416})
#undef DUALFUZZ_STATUSES
// MOVE's answers that leave the source in a state the model does not know:
// neither 201/204 (moved) nor 4xx (nothing moved).
const Sym& not_moved() {
  static const Sym s =
      statuses_if([](int c) { return c != 201 && c != 204 && (c < 400 || c > 499); });
  return s;
}
// Any answer but a 4xx (a request refused so changed nothing).
const Sym& not_client_error() {
  static const Sym s = statuses_if([](int c) { return c < 400 || c > 499; });
  return s;
}
const Sym& anything() {
  static const Sym any = Sym::object(std::vector<std::pair<std::string, Sym>>{});
  return any;
}
// Not a success: redirections, client and server errors (the method did
// not take effect, RFC 9110 §15.4-15.6).
const Sym& refusal() {
  static const Sym s = statuses_except({}, 300, 599);
  return s;
}
const Sym& success() {
  static const Sym s = statuses_except({}, 200, 299);
  return s;
}

PathState unknown_state(const Ev& e) {
  return PathState{std::nullopt, e->st().clock, /*unknown=*/true, /*lockable=*/true,
                   e->st().assume};
}

// The representation kept, its validators possibly new: RFC 4918 §8.8 says
// a server "SHOULD NOT change the ETag (or the Last-Modified time) for a
// resource that has an unchanged body and location" — a SHOULD, so a
// PROPPATCH or a LOCK may change them.
Tree touch(const Ev& e, Sym pattern, bool lockable, Clause clause) {
  return oracle::fresh(Sort::Int, "last-modified", [=](const Sym& m) {
    Tree tagged = oracle::fresh(Sort::Str, "etag", [=](const Sym& t) {
      const Resource& f = *e->file();
      PathState next{revalidated(f, t, m), m, false, lockable || e->st().lockable,
                     e->st().assume};
      return respond(e, pattern, next, clause);
    });
    return oracle::assume(oracle::le(e->st().clock, m), tagged);
  });
}

// A path whose state the model does not know: any answer. Only a PUT or a
// DELETE whose success tells its effect pins the state again: "a
// successful PUT of a given representation would suggest that a subsequent
// GET on that same target resource will result in an equivalent
// representation being sent in a 200" (RFC 9110 §9.3.4), and a DELETE
// answered 200 or 204 was enacted (§9.3.5), as the model holds elsewhere. A
// lock may still cover the path after either (lockable stays).
Tree unknown_answer(const Ev& e) {
  const Method m = e->req().method;
  if (m == Method::Delete)
    return oracle::choose(
        respond(e, not_deleted(), kUnknownState),
        respond(e, status_ok_only(),
                PathState{std::nullopt, e->st().clock, false, true, e->st().assume},
                kDelete));
  if (m != Method::Put) return respond(e, anything(), kUnknownState);
  Tree stored = oracle::fresh(Sort::Int, "last-modified", [e](const Sym& mod) {
    Tree tagged = oracle::fresh(Sort::Str, "etag", [e, mod](const Sym& t) {
      PathState next{make_resource(e->req().body, t, mod), mod, false, true,
                     e->st().assume};
      Sym pattern = Sym::object(
          shown_shape(), {status({200, 201, 204}), next.file->headers, next.file->dates});
      return respond(e, std::move(pattern), next, kPut);
    });
    return oracle::assume(oracle::le(e->st().clock, mod), tagged);
  });
  return oracle::choose(respond(e, not_stored(), kUnknownState), std::move(stored));
}

// A precondition or a range was sent: the answer may be other than 200.
bool conditional(const HttpRequest& q) {
  return preconditioned(q) || q.range || q.if_range.present;
}

PathState fixed_state(const Ev& e) {
  return PathState{std::nullopt,  e->st().clock, false, e->st().lockable, e->st().assume,
                   /*fixed=*/true};
}

constexpr Clause kFixed =
    "RFC 9110 §9.3.1, §8.8 (a resource nobody else changes shows one representation)";

// A path whose state is unknown but fixed (PathState::fixed). GET or HEAD
// answered 200 shows the representation: its content (a GET's), ETag and
// Last-Modified become variables that answer binds, and from then on the
// path is judged as any stored resource (a 304 exactly when the validators
// match, HEAD as GET, a strong tag for one content). 404 or 410: nothing is
// there. Any other answer (a refusal, a 304 or 206 the model does not read)
// leaves it as it was. PUT and DELETE pin it as on an unknown path (an
// answer that stores nothing keeps it fixed); POST, PATCH and the safe
// methods keep it fixed, whatever they answer; WebDAV's other writes, and
// methods the model does not know, make it unknown.
Tree fixed_answer(const Ev& e) {
  const HttpRequest& q = e->req();
  switch (q.method) {
    case Method::Get:
    case Method::Head: {
      const bool head = q.method == Method::Head;
      Tree shown = oracle::fresh(Sort::Str, "content", [e, head](const Sym& c) {
        return oracle::fresh(Sort::Str, "etag", [e, head, c](const Sym& t) {
          return oracle::fresh(Sort::Int, "last-modified", [e, head, c, t](const Sym& m) {
            PathState next{make_observed(c, t, m), e->st().clock, false, e->st().lockable,
                           e->st().assume};
            const Resource& r = *next.file;
            Sym pattern = head ? Sym::object(shown_shape(),
                                             {Sym::lit(200), r.head_headers, r.dates})
                               : Sym::object({{"status", Sym::lit(200)},
                                              {"headers", r.headers},
                                              {"dates", r.dates},
                                              {"body", c}});
            return respond(e, std::move(pattern), next, kFixed);
          });
        });
      });
      const PathState gone{std::nullopt, e->st().clock, false, e->st().lockable,
                           e->st().assume};
      return oracle::choose(
          std::move(shown),
          oracle::choose(
              respond(e, status_only({404, 410}), gone, kNotFound),
              respond(e, conditional(q) ? not_shown() : not_shown_plain(), kFixed)));
    }
    case Method::Put:
    case Method::Delete:
      return unknown_answer(e);
    case Method::Options: {
      // What OPTIONS may answer does not depend on the state (a 404 for
      // nothing there): judged as on a known path, a 405 with Allow.
      Tree t = respond(e, status_only({200, 204, 405, 501, 404}), kOptions);
      if (q.has_content)
        t = oracle::choose(std::move(t),
                           respond(e, status_only({400, 413, 415}), kOptionsContent));
      return t;  // (refusals: serve_dav_stated)
    }
    case Method::Post:
    case Method::Patch:
    case Method::Propfind:
      return respond(e, anything(), kFixed);
    default:
      return respond(e, anything(), unknown_state(e), kUnknownState);
  }
}

// A WebDAV method on a path whose state the model knows.
Tree dav(const Ev& e) {
  const Resource* f = e->file();
  const PathState gone{std::nullopt, e->st().clock, false, e->st().lockable,
                       e->st().assume};
  switch (e->req().method) {
    case Method::Propfind:
      // "This method is both safe and idempotent" (§9.1): it changes
      // nothing. No properties of a missing resource (§9.1: 404 is its
      // answer to an unmapped URL), and an existing one is no 404 (RFC 9110
      // §15.5.5); Depth, the body and 207's content are the server's.
      return respond(e, f ? not_404() : refusal(), kPropfind);
    case Method::Proppatch:
      // Dead properties only: the content stays (§9.2), the validators may
      // change (touch). Nothing to patch on a missing resource.
      // Nothing to patch on a missing resource: a refusal, or a 207 whose
      // property statuses say so (webdav-server 2.6.3); whether such a
      // server made the resource the model cannot tell, so after a 207 the
      // path's state is unknown.
      if (!f)
        return oracle::choose(
            respond(e, refusal(), kProppatch),
            respond(e, status_only({207}), unknown_state(e), kProppatch));
      return oracle::choose(respond(e, refusal(), kProppatch),
                            touch(e, success(), false, kProppatch));
    case Method::Mkcol:
      // "MKCOL can only be executed on an unmapped URL" (§9.3.1: 405).
      // A new collection is a state the model does not follow.
      if (f) return respond(e, refusal(), kMkcol);
      return oracle::choose(respond(e, refusal(), kMkcol),
                            respond(e, success(), unknown_state(e), kMkcol));
    case Method::Copy:
    case Method::Move: {
      const Clause c = e->req().method == Method::Copy ? kCopy : kMove;
      // No source, nothing to copy or move (RFC 9110 §15.5.5).
      if (!f) return respond(e, refusal(), c);
      // A Destination at or above the source may overwrite it (§9.8.4,
      // §9.9.3: Overwrite: T deletes the destination first).
      if (e->req().within_destination) return respond(e, anything(), unknown_state(e), c);
      // COPY only reads its source.
      if (e->req().method == Method::Copy) return respond(e, anything(), c);
      // MOVE: 201 or 204 "the source resource was successfully moved"
      // (§9.9.4): it is gone. A 207 (some members failed) or a server error
      // may leave part of it: unknown. A 4xx moved nothing.
      return oracle::choose(respond(e, client_error(), c),
                            oracle::choose(respond(e, status_only({201, 204}), gone, c),
                                           respond(e, not_moved(), unknown_state(e), c)));
    }
    case Method::Lock:
      // "A successful lock request to an unmapped URL MUST result in the
      // creation of a locked (non-collection) resource with empty content"
      // (§7.3): a state the model does not follow (its validators are the
      // server's). On an existing resource the content stays.
      if (!f)
        return oracle::choose(respond(e, refusal(), kLock),
                              respond(e, success(), unknown_state(e), kLock));
      return oracle::choose(respond(e, refusal(), kLock),
                            touch(e, success(), true, kLock));
    case Method::Unlock:
      // Releases a lock: nothing the model follows changes. Nothing to
      // unlock where no lock was ever taken and nothing exists.
      if (!f && !e->st().lockable) return respond(e, refusal(), kUnlock);
      return respond(e, anything(), kUnlock);
    default:
      return handle(e);
  }
}

bool writes(Method m) {
  return m == Method::Put || m == Method::Delete || m == Method::Proppatch ||
         m == Method::Mkcol || m == Method::Move || m == Method::Copy ||
         m == Method::Lock || m == Method::Other || m == Method::Post ||
         m == Method::Patch;
}

// Every request, WebDAV's looseness around the model of RFC 9110.
Tree serve_dav(const Ev& e) {
  const HttpRequest& q = e->req();
  // Another path's COPY or MOVE (or a collection's DELETE, LOCK...) may
  // have written this one: its answer is judged on its own path.
  // A 4xx answer to it changed nothing (as a refused MOVE moved nothing).
  if (q.method == Method::Foreign)
    return oracle::choose(
        respond(e, client_error(), kUnknownState),
        respond(e, not_client_error(), unknown_state(e), kUnknownState));
  if (e->st().unknown) return unknown_answer(e);
  // A representation the model has only seen: its content is fixed, its
  // validators may have changed since (a server may give the same bytes a
  // new ETag or Last-Modified at any time: a touched file), so each request
  // is served against validators of its own, which its answer binds. What
  // is judged is each answer against its own validators (a 304 exactly when
  // the tags it shows match, §13.1.2) and the content against the first.
  if (e->file() && e->file()->seen)
    return oracle::fresh(Sort::Str, "etag", [e](const Sym& t) {
      return oracle::fresh(Sort::Int, "last-modified", [e, t](const Sym& m) {
        auto r = std::make_shared<Evaluation>(*e);
        r->own = e->st();
        r->own->file = revalidated(*e->file(), t, m);
        r->state = &*r->own;
        return serve_dav_stated(r);
      });
    });
  return serve_dav_stated(e);
}

// serve_dav, once the state to serve against is settled.
Tree serve_dav_stated(const Ev& e) {
  const HttpRequest& q = e->req();
  // A site's resource not yet shown is judged by what it may be; the
  // leniencies below (If, Depth, chunked, locks) hold for it as for any.
  Tree t = e->st().fixed ? fixed_answer(e) : dav(e);
  // Any request may be refused, changing nothing, unless the user said the
  // server takes writes (Assumptions::writable).
  // (Second: an explanation that dies names the request's own clause first.)
  if (!e->st().assume.writable)
    t = oracle::choose(std::move(t),
                       respond(e,
                               refusals(q.safe, !e->file() && !e->st().fixed,
                                        q.has_content, e->st().assume.strict),
                               kRefused));
  // "A successful request for a write lock MUST result in the creation of a
  // lock ... prevents principals without the lock from successfully
  // executing PUT, POST, PROPPATCH, LOCK, UNLOCK, MOVE, DELETE, or MKCOL"
  // (§7): 423 Locked (§11.3), nothing changed.
  if (e->st().lockable && writes(q.method))
    t = oracle::choose(respond(e, status_only({423}), kLocked), std::move(t));
  // "If the header is evaluated and all state lists fail, then the request
  // MUST fail with a 412" (§10.4): the model does not follow lock tokens.
  // Nor does it parse the If grammar (§10.4.2): a malformed one may be
  // refused with 400 (RFC 9110 §5.5, §15.5.1; Apache 2.4 does for `If: null`).
  // A server that also checks the lists against resources the request
  // depends on (Apache 2.4's mod_dav: a DELETE's parent collection) refuses
  // with 424 (§11.4) where one of those does not match: no MUST asks the
  // method be performed when the Request-URI's list holds, and the refusal
  // changes nothing.
  if (q.has_if)
    t = oracle::choose(respond(e, status_only({400, 412, 424}), kIfHeader), std::move(t));
  // A Depth or Overwrite the method does not define may be refused, and
  // the refusal changes nothing.
  if (q.odd_depth)
    t = oracle::choose(respond(e, status_only({400}), kDepth), std::move(t));
  // "The 411 (Length Required) status code indicates that the server refuses
  // to accept the request without a defined Content-Length" (RFC 9110
  // §15.5.12): chunked content may be refused so, and nothing changes.
  if (q.chunked)
    t = oracle::choose(respond(e, status_only({411}), kLengthRequired), std::move(t));
  // A server offered another protocol may switch (§7.8: a 101, and the
  // request's answer comes in that protocol, which the model does not read:
  // a safe request changed nothing, another may have done anything).
  if (q.upgrade)
    t = oracle::choose(std::move(t), q.safe ? respond(e, status_only({101}), kUpgrade)
                                            : respond(e, status_only({101}),
                                                      unknown_state(e), kUpgrade));
  return t;
}

Tree serve(const PathState& state) { return serve_in(oracle::ModelState(state)); }

// A partition's first tree: a request for a resource of the site
// (HttpRequest::site) finds it unknown but fixed (`site`); any other finds
// nothing there (`missing`). `state`: the first tree's own (pristine);
// `shared` is also the state a write of unknown effect leaves (unknown,
// lockable).
// Another path's write that may reach this one (Method::Foreign) says
// nothing of which it is: refused (4xx) it changed nothing and the path is
// still pristine, for its own first request to tell; else (or sent blind)
// the path is unknown. (Taking its `site` flag, false, made a site's file
// "missing" when a malformed request's close left the file's own first
// GET unanswered and a PUT to a path that is not plain came next: nginx's
// 200 to the file's next GET was reported a violation.)
Tree first(oracle::ModelState state, Tree missing, Tree site, Tree shared) {
  return oracle::recv(
      std::move(state),
      [missing = std::move(missing), site = std::move(site), shared = std::move(shared)](
          const Request& q, const Tree& self) -> Tree {
        std::shared_ptr<const HttpRequest> own;
        const HttpRequest* d = q.decoded_as<HttpRequest>();
        if (!d) d = (own = decode(q.json())).get();
        if (d->method == Method::Foreign)
          return d->blind ? oracle::send(q.conn, anything(), shared, kUnknownState)
                          : oracle::choose(
                                oracle::send(q.conn, client_error(), self, kUnknownState),
                                oracle::send(q.conn, not_client_error(), shared,
                                             kUnknownState));
        if (d->shared_site) return shared.step(oracle::Answer(q));
        return (d->site ? site : missing).step(oracle::Answer(q));
      });
}

// The server waiting in `ms` (which holds a PathState). The continuation
// keeps the state through the ModelState (one shared copy).
// TRACE is safe (RFC 9110 §9.2.1): a reflection of the request (§9.3.8)
// or a refusal (servers turn it off), and nothing changes. So for OPTIONS
// "*", which asks about the server, not a resource (§9.3.7). CONNECT asks
// for a tunnel to another host (§9.3.6, its Host is that authority, RFC
// 9112 §3.2): a refusal, or a 2xx that makes the connection a tunnel; no
// resource here changes (reach() sends it nowhere). So any answer, whatever
// the user assumed of the server's resources: the clause, or null for a
// request about a resource.
constexpr Clause kTrace = "RFC 9110 §9.3.8";
constexpr Clause kConnect = "RFC 9110 §9.3.6";
Clause about_no_resource(const HttpRequest& q) {
  return q.method == Method::Trace                      ? kTrace
         : q.method == Method::Connect                  ? kConnect
         : q.method == Method::Options && q.path == "*" ? kOptions
                                                        : nullptr;
}

// One request, whatever the consistency. A path that is not plain may name
// any resource: a server decodes "/%61" to "/a", resolves dot segments,
// drops a query or a trailing slash (RFC 3986 §2.1, §6.2), or refuses it.
// So any answer, and a state the model does not know, never pinned again
// (its writes reach every path: reach()). Judging it as a resource of its
// own rejected a correct server's 200 for "/%61" after a PUT of "/a".
Tree serve_parsed(const Ev& e) {
  // (Also reached from an absolute-form target, whose authority stands for
  // an invalid Host.)
  if (const Clause c = about_no_resource(e->req())) return respond(e, anything(), c);
  if (!e->req().plain)
    // (No clause: the model's own leniency, not one the RFC names.)
    return respond(e, anything(), unknown_state(e), nullptr);
  return serve_dav(e);
}

// Before the request's meaning, its syntax (malformation.h) and its Host.
// A defect the RFC says a server MUST refuse gets 400, or another refusal
// of the message as a whole that a server may have reached first (501 for
// an unknown method, 505, 413, 414, 431: lighttpd answers FOO with a bad
// field line 501), never an answer about the resource; one it may
// refuse, any error that changes nothing, or the request served as if it
// were well-formed (its defect touches nothing the request means). An
// invalid Host MUST be refused (RFC 9112 §3.2) — unless the target is in
// absolute-form, whose authority replaces the Host field (§3.2.2): both
// say MUST, so both answers are taken. A valid Host other than the
// tester's may name another site, whose state the model does not know.
constexpr Clause kHost = "RFC 9112 §3.2";
constexpr Clause kExpect = "RFC 9110 §10.1.1";
Tree serve_message(const Ev& e);
// An expectation other than 100-continue: the server may refuse it (417,
// changing nothing) before anything else, or go on as if it were absent.
Tree serve_expecting(const Ev& e) {
  if (!e->req().odd_expect) return serve_message(e);
  static const Sym expectation_failed = status_only({417});
  return oracle::choose(respond(e, expectation_failed, kExpect), serve_message(e));
}

// Assumptions::http10: what of a request HTTP/1.0 has no word for, which a
// server conformant to HTTP/1.0 only may not know (RFC 9110 §2.5), one bit
// each (Assumptions::http11_honoured, http11_ignored).
enum Http11 : std::uint8_t {
  k11HostCheck = 1,     // RFC 9112 §3.2
  k11IfMatch = 2,       // RFC 9110 §13.1.1
  k11IfNoneMatch = 4,   // §13.1.2
  k11IfUnmodified = 8,  // §13.1.4
  k11Ranges = 16,       // Range, If-Range (§14.2, §13.1.5)
  k11Syntax = 32,       // RFC 9112's syntax MUSTs, absolute-form (§3.2.2)
  k11Upgrade = 64,      // RFC 9110 §7.8
};
std::uint8_t http11_only(const HttpRequest& q) {
  std::uint8_t f = 0;
  if (q.host != HostField::kDefault) f |= k11HostCheck;
  if (q.if_match.present) f |= k11IfMatch;
  if (q.if_none_match.present) f |= k11IfNoneMatch;
  if (q.has_ius) f |= k11IfUnmodified;
  if (q.range || q.if_range.present) f |= k11Ranges;
  if (q.malformed && (q.malformed->latitude == Latitude::kMustReject ||
                      q.malformed->latitude == Latitude::kMustServe))
    f |= k11Syntax;
  if (q.upgrade) f |= k11Upgrade;
  return f;
}
// The request as an HTTP/1.0 server reads it when it knows none of `strip`:
// without those fields, and an HTTP/1.1 syntax defect it MUST refuse one it
// may refuse or ignore; an absolute-form target, which HTTP/1.1 servers
// MUST accept (RFC 9112 §3.2.2), is for proxies only in HTTP/1.0 (RFC 1945
// §5.1.2): one it may refuse (Python's http.server answers 404) or serve.
// What the server has shown of itself on the path is kept with the state:
// a server that honoured If-Match once knows it, and one that ignored it
// does not (a server that ignores it only sometimes is no HTTP/1.0 server:
// it broke §13.1.1).
Ev as_http10(const Ev& e, std::uint8_t strip, std::uint8_t honoured,
             std::uint8_t ignored) {
  static constexpr Malformation kDefect10{
      "http/1.1 syntax", Latitude::kMayReject,
      "RFC 9110 §2.5 (an HTTP/1.0 server: HTTP/1.1's syntax MUSTs do not bind it)"};
  auto r = std::make_shared<HttpRequest>(e->req());
  if (strip & k11HostCheck) r->host = HostField::kDefault;
  if (strip & k11IfMatch) r->if_match = {};
  if (strip & k11IfNoneMatch) r->if_none_match = {};
  if (strip & k11IfUnmodified) {
    r->has_ius = false;
    r->ius.reset();
  }
  if (strip & k11Ranges) {
    r->range.reset();
    r->if_range = {};
  }
  if (strip & k11Syntax) r->malformed = &kDefect10;
  if (strip & k11Upgrade) r->upgrade = false;
  Request q = e->q;
  q.decoded = std::move(r);
  if (e->world) {  // (a weaker consistency: nothing learned)
    const PathState* own = e->ms.get<PathState>();
    return evaluation(q, e->ms, e->unchanged, e->state == own ? nullptr : e->state,
                      e->world);
  }
  PathState st = e->st();
  st.assume.http11_honoured |= honoured;
  st.assume.http11_ignored |= ignored;
  if (st.assume == e->st().assume) return evaluation(q, e->ms, e->unchanged);
  oracle::ModelState ms(st);
  return evaluation(q, ms, serve(st));
}

// Under Assumptions::http10, a request with HTTP/1.1's additions the server
// has not shown it knows or ignores: served both ways.
Tree serve_expecting_as_http10(const Ev& e) {
  const std::uint8_t f = http11_only(e->req());
  const Assumptions& a = e->st().assume;
  const std::uint8_t known = f & a.http11_honoured, ignored = f & a.http11_ignored,
                     open = f & ~known & ~ignored;
  if (!open) return serve_expecting(ignored ? as_http10(e, ignored, 0, 0) : e);
  return oracle::choose(serve_expecting(as_http10(e, ignored, open, 0)),
                        serve_expecting(as_http10(e, ignored | open, 0, open)));
}

Tree serve_request(const Ev& e) {
  // A blind field's request: any answer, like a path that is not plain (its
  // bytes may name another resource, refuse the message, or mean nothing).
  if (e->req().blind) return respond(e, anything(), unknown_state(e), nullptr);
  if (e->st().assume.http10 && http11_only(e->req())) return serve_expecting_as_http10(e);
  return serve_expecting(e);
}
Tree serve_message(const Ev& e) {
  const HttpRequest& q = e->req();
  const Malformation* m = q.malformed;
  const bool absolute = m && m->latitude == Latitude::kMustServe;
  static const Sym message_refused = status_only({400, 413, 414, 431, 501, 505});
  if (q.host == HostField::kInvalid) {
    Tree refuse = respond(e, message_refused, kHost);
    return absolute ? oracle::choose(std::move(refuse), serve_parsed(e)) : refuse;
  }
  if (m && m->latitude == Latitude::kMustReject)
    return respond(e, message_refused, m->clause.data());
  // (about_no_resource first: CONNECT's Host is its target's authority.)
  const Clause no_resource = about_no_resource(q);
  Tree served = no_resource ? respond(e, anything(), no_resource)
                : q.host == HostField::kOther && !absolute
                    ? respond(e, anything(), unknown_state(e), kHost)
                    : serve_parsed(e);
  // Absolute-form with a Host field that is not its authority: the tester
  // broke the client's MUST ("a client MUST send a field value for Host that
  // is identical to that authority component", RFC 9112 §3.2), so a server
  // may take it for a client error (§15.5.1) rather than ignore the Host
  // (§3.2.2): 400, nothing changed (lighttpd 1.4.69; nginx with an empty Host).
  if (absolute && q.host != HostField::kDefault)
    served = oracle::choose(std::move(served), respond(e, status_only({400}), kHost));
  // (An empty line before the request line SHOULD be ignored, RFC 9112
  // §2.2: its refusal is the strict reading's violation, an advisory.)
  if (m && (m->latitude == Latitude::kMayReject ||
            (m->latitude == Latitude::kShouldServe && !e->st().assume.strict)))
    return oracle::choose(respond(e, error_status(), m->clause.data()),
                          std::move(served));
  return served;
}

Tree serve_in(const oracle::ModelState& ms) {
  return oracle::recv(ms, [ms](const Request& q, const Tree& self) -> Tree {
    // A seen representation whose bytes an answer has shown since is read
    // first (read_state), in each explanation that saw them.
    const PathState& st = *ms.get<PathState>();
    if (unread(st))
      return oracle::resolve(st.file->content, [q, ms, self](const Sym& c) -> Tree {
        if (auto read = read_state(*ms.get<PathState>(), c))
          return serve(*read).step(oracle::Answer(q));
        return serve_request(evaluation(q, ms, self));
      });
    return serve_request(evaluation(q, ms, self));
  });
}

// What a server may answer while a write on the path is in progress, under
// a weaker consistency only (no RFC names these; they are the latitude the
// user granted with --consistency).
constexpr Clause kBusy = "consistency interval: busy during a write (409, 423, 503)";
constexpr Clause kTorn = "consistency torn: a read during a write";

// A read that overlaps a write, when reads may be torn: it may see the
// path in any intermediate state of the write — part of the new content,
// the new content over the rest of the old (Apache 2.4 showed "y\0" while
// "y" replaced "ab"), validators of neither (Go's x/net/webdav derives its
// ETag from size and time), the file momentarily absent or unreadable — so
// any content and validators, and the answers a GET or HEAD can give for
// some such state: 200, 206, 304, 412, 416, or 403, 404, 500.
Tree torn_read(const Ev& e) {
  static const Sym any_state =
      Sym::object({{"status", status({200, 206, 304, 403, 404, 412, 416, 500})}});
  return respond(e, any_state, kTorn);
}

// A write in progress finishing in world `w`: the answer it decided when it
// was received, or, since a server that is not atomic may look again when
// it stores, the answer for the state it finds then (RFC 9110 §9.3.4, §9.3.5
// name the answers by what the store found): a PUT that finds no
// representation any more creates one (201), one that finds one replaces it
// (200, 204); a DELETE that finds none answers 404.
Sym finishing(const World& w, const Pending& p) {
  if (!p.after) return p.pattern;
  if (p.after->file) {
    // (One object with a choice of status, not a choice of two objects with
    // the same symbolic headers: the fast path decides the first, a
    // disjunction over the headers would go to Z3.)
    const Sym now = w.committed.file ? status_ok() : Sym::lit(201);
    if (p.pattern.op() == oracle::Op::Object && p.pattern.shape() == shown_shape()) {
      std::vector<Sym> values = p.pattern.args();
      if (values[0] == now) return p.pattern;
      values[0] = Sym::alt({values[0], now});
      return Sym::object(shown_shape(), std::move(values));
    }
    const Resource& r = *p.after->file;
    return Sym::alt({p.pattern, Sym::object(shown_shape(), {now, r.headers, r.dates})});
  }
  if (!w.committed.file) return Sym::alt({p.pattern, status_only({404})});
  return p.pattern;
}

// Request `q` taken in world `ms` (serve_world's recv tree `self`): served
// against the stored state or a state a write in progress will store.
Tree world_request(const oracle::ModelState& ms, const Request& q, const Tree& self) {
  const World& w = *ms.get<World>();
  // Every answer that changes nothing goes back to this world, where the
  // writes in progress may still finish.
  const Tree unchanged = w.pending.empty() ? self : serve_world(w);
  auto view = [&](const PathState& st) { return evaluation(q, ms, unchanged, &st, &w); };
  const Ev stored = view(w.committed);
  Tree answer = serve_request(stored);
  bool storing = false;  // a write in progress stores something
  for (const Pending& p : w.pending) {
    if (!p.after) continue;
    storing = true;
    answer = oracle::choose(serve_request(view(*p.after)), std::move(answer));
  }
  if (storing && w.consistency == Consistency::Torn && stored->req().safe)
    answer = oracle::choose(torn_read(stored), std::move(answer));
  if (!w.pending.empty())
    answer = oracle::choose(respond(stored, status_only({409, 423, 503}), kBusy),
                            std::move(answer));
  return answer;
}

// The server under a weaker consistency: it may finish (answer and store)
// any write in progress, or take the next request and serve it against the
// stored state or the state a write in progress will store. A request on a
// connection whose earlier write is unanswered waits for that answer
// (HTTP/1.1 answers one connection's requests in order).
Tree serve_world(World w) {
  const oracle::ModelState ms(std::move(w));
  const World& world = *ms.get<World>();
  Tree t = oracle::recv(ms, [ms](const Request& q, const Tree& self) -> Tree {
    const World& w = *ms.get<World>();
    for (const Pending& p : w.pending)
      if (p.conn == q.conn) return oracle::assume(Sym::lit(false), self);
    // (As serve_in: a seen representation read once shown; with no write in
    // progress, the only state there is.)
    if (w.pending.empty() && unread(w.committed))
      return oracle::resolve(
          w.committed.file->content, [q, ms, self](const Sym& c) -> Tree {
            if (auto read = read_state(ms.get<World>()->committed, c)) {
              World now = *ms.get<World>();
              now.committed = std::move(*read);
              return serve_world(std::move(now)).step(oracle::Answer(q));
            }
            return world_request(ms, q, self);
          });
    return world_request(ms, q, self);
  });
  // A write in progress finishes: its answer goes out, its state is stored.
  // (Built when the oracle takes that branch: with k writes in progress,
  // building every order at once would cost k! trees per request.)
  for (std::size_t i = world.pending.size(); i-- > 0;) {
    oracle::ServerEvent either{oracle::EventKind::Or, {}, 0, {}, Sort::Bool, {}, nullptr};
    t = Tree::vis(
        std::move(either), [ms, i, rest = std::move(t)](const oracle::Answer& a) {
          if (!std::get<bool>(a)) return rest;
          const World& w = *ms.get<World>();
          World done = w;
          const Pending& p = w.pending[i];
          if (p.after) done.committed = *p.after;
          done.pending.erase(done.pending.begin() + static_cast<std::ptrdiff_t>(i));
          return oracle::send(p.conn, finishing(w, p), serve_world(std::move(done)),
                              p.clause);
        });
  }
  return t;
}

}  // namespace

bool plain_path(std::string_view path) {
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
  return path.find("/./") == std::string_view::npos &&
         path.find("/../") == std::string_view::npos && !path.ends_with("/.") &&
         !path.ends_with("/..");
}

Json normalize_response(Json ir) {
  if (!ir.is_object() || !ir.contains("headers") || !ir["headers"].is_object()) return ir;
  Json dates = Json::object();
  for (const auto& [k, v] : ir["headers"].items())
    if (v.is_string())
      if (auto d = parse_http_date(v.get<std::string>())) dates[k] = *d;
  ir["dates"] = dates;
  // Range answers (RFC 9110 §14.4, §14.6): Content-Range in canonical form
  // (or as received when invalid), and whether the content is
  // multipart/byteranges; and whether an Allow field was sent (§10.2.1).
  const Json& h = ir["headers"];
  if (auto it = h.find("content-range"); it != h.end() && it->is_string()) {
    const std::string& v = it->get_ref<const std::string&>();
    ir["content-range"] = canonical_content_range(v).value_or("invalid: " + v);
  }
  if (auto it = h.find("content-type"); it != h.end() && it->is_string()) {
    std::string type =
        it->get<std::string>().substr(0, it->get_ref<const std::string&>().find(';'));
    std::erase_if(type, [](char c) { return c == ' ' || c == '\t'; });
    if (detail::lower(type) == "multipart/byteranges") ir["multipart"] = true;
  }
  // A content coding (RFC 9110 §8.4): the content compared is the decoded
  // one where the model can decode it ("decoded", the bytes in "decoded";
  // "body" stays as sent), else nothing of it is ("opaque"): coded().
  if (auto it = h.find("content-encoding");
      it != h.end() && it->is_string() && is_coded(it->get_ref<const std::string&>())) {
    std::optional<std::string> plain;
    if (const auto b = ir.find("body"); b != ir.end() && b->is_string())
      plain = decode_content(it->get_ref<const std::string&>(),
                             b->get_ref<const std::string&>());
    ir["content-coding"] = plain ? "decoded" : "opaque";
    if (plain) ir["decoded"] = std::move(*plain);
  }
  // Fields whose presence a status code requires (status_fields.h) or
  // recommends (a redirect's Location).
  if (h.contains("location")) ir["location"] = {{"present", true}};
  return mark_status_fields(std::move(ir));
}

oracle::ServerModel server_model(Consistency consistency, Assumptions assume) {
  // The initial tree is an immutable value: built once per kind of model,
  // shared by every oracle (one per execution when fuzzing).
  static constexpr const char* kNames[] = {"HTTP/1.1", "HTTP/1.1 (consistency: interval)",
                                           "HTTP/1.1 (consistency: torn)"};
  const auto index = static_cast<std::size_t>(consistency) * 8 + (assume.http10 ? 4 : 0) +
                     (assume.writable ? 2 : 0) + (assume.strict ? 1 : 0);
  auto tree = [](std::size_t i, bool unknown) {
    auto build = [](std::size_t i, bool unknown) {
      const Assumptions a{
          .writable = (i & 2) != 0, .strict = (i & 1) != 0, .http10 = (i & 4) != 0};
      const auto c = static_cast<Consistency>(i / 8);
      auto in = [c](const PathState& st) {
        return c == Consistency::Atomic ? serve(st) : serve_world(World{c, st, {}});
      };
      const PathState st{std::nullopt, Sym::lit(0), unknown, unknown, a};
      if (unknown) return in(st);
      PathState site = st, pristine = st, shared = st;
      site.fixed = true;
      pristine.pristine = true;
      shared.unknown = shared.lockable = true;
      return first(c == Consistency::Atomic ? oracle::ModelState(pristine)
                                            : oracle::ModelState(World{c, pristine, {}}),
                   in(st), in(site), in(shared));
    };
    static const std::vector<Tree> initial = [&] {
      std::vector<Tree> v;
      for (std::size_t k = 0; k < 24; ++k) v.push_back(build(k, false));
      return v;
    }();
    static const std::vector<Tree> unknowns = [&] {
      std::vector<Tree> v;
      for (std::size_t k = 0; k < 24; ++k) v.push_back(build(k, true));
      return v;
    }();
    return unknown ? unknowns[i] : initial[i];
  };
  auto initial = [index, tree] { return tree(index, false); };
  auto unknown = [index, tree] { return tree(index, true); };
  std::string name = kNames[static_cast<std::size_t>(consistency)];
  if (assume.writable) name += " (assume writable)";
  if (assume.strict) name += " (strict: SHOULD as MUST)";
  if (assume.http10) name += " (an HTTP/1.0 server)";
  oracle::ServerModel m{name, initial, nullptr, [](const Json& r) { return decode(r); }};
  m.strings = entity_tags();
  // Resources are independent: one server per path (P-compositionality).
  m.partition = [](const Json& r) -> std::optional<std::string> {
    if (const Json* p = field(r, "path"); p && p->is_string())
      return p->get<std::string>();
    return std::nullopt;
  };
  // ...except where WebDAV links them (RFC 4918): COPY and MOVE write their
  // Destination and, for a collection, everything below it (§9.8, §9.9); a
  // DELETE, LOCK (Depth: infinity) or PUT of a collection reaches its
  // members (§9.6.1, §9.10.3); MKCOL, COPY and MOVE make collections. A
  // write to a path that is not plain may land on any path (a server
  // normalises "/a/" to "/a", decodes escapes...).
  m.reach = [](const Json& r) {
    oracle::ServerModel::Reach out;
    const Json *method = field(r, "method"), *path = field(r, "path");
    if (!method || !method->is_string() || !path || !path->is_string()) return out;
    const std::string& m = method->get_ref<const std::string&>();
    const std::string& p = path->get_ref<const std::string&>();
    // A collection's URI with its trailing slash (RFC 4918 §5.2): "/a/" is
    // "/a" to a server that copies or moves it (lighttpd does so only then).
    const bool slash_only = p.size() > 1 && p.back() == '/' &&
                            plain_path(std::string_view(p).substr(0, p.size() - 1));
    // The path a write creates (its Destination for COPY and MOVE).
    std::string written = p;
    if (m == "COPY" || m == "MOVE") {
      const Json* h = field(r, "headers");
      if (const Json* d = h ? field(*h, "destination") : nullptr) {
        written = destination_path(d->is_string() ? d->get<std::string>() : "");
        out.changes.push_back(written);
        out.parents.push_back(written);
      }
      if (m == "MOVE") out.changes.push_back(slash_only ? p.substr(0, p.size() - 1) : p);
    } else if (m == "MKCOL") {
      out.parents.push_back(p);
    } else if (m == "DELETE") {
      out.own_subtree = true;
    } else if (m == "PUT" || m == "LOCK" || m == "POST" || m == "PATCH") {
      // A file made here may serve the paths below it as path info
      // (lighttpd answers GET /f/g with /f), and a collection's PUT or
      // LOCK reaches its members: everything below may change. So may a
      // POST's or a PATCH's, whose effect is the resource's own (a
      // collection's POST may add a member, RFC 9110 §9.3.3).
      out.changes.push_back(p);
    }
    // A write may make the missing collections above its path (nginx's
    // create_full_put_path; RFC 4918 §9.7.1 asks a WebDAV server for 409
    // instead, RFC 9110 leaves it open): each may now be a collection, so
    // its own state is unknown. Not one whose DELETE reaches its members:
    // only a MKCOL makes that link (`parents`), which keeps a server whose
    // paths are independent (the reference server) checked exactly; nginx,
    // the one subject that makes parents so, refuses a DELETE of one (409:
    // a collection's URI ends in a slash there).
    if (m == "PUT" || m == "MKCOL" || m == "COPY" || m == "MOVE" || m == "LOCK")
      for (std::size_t slash = written.find('/', 1); slash != std::string::npos;
           slash = written.find('/', slash + 1))
        out.touches.push_back(written.substr(0, slash));
    // So may any write with a field sent blind (a Destination, a Host...) or
    // to a path that is not plain; not a COPY or MOVE whose source is only
    // written with its slash: it writes its Destination (and MOVE "/a", as
    // above) like any COPY or MOVE. (Else every such script would judge
    // nothing after it, and pass, and fill the black-box pool with mutants
    // that judge nothing either: the planted delete-prefix went from 3 s
    // to 29 s.)
    const bool slash_copy = slash_only && (m == "COPY" || m == "MOVE");
    if (((!plain_path(p) && !slash_copy) || field(r, "havoc")) && m != "GET" &&
        m != "HEAD" && m != "OPTIONS" && m != "PROPFIND" && m != "TRACE" &&
        m != "CONNECT")
      out.changes.push_back("");
    return out;
  };
  m.unknown = unknown;
  return m;
}

}  // namespace dualfuzz::http
