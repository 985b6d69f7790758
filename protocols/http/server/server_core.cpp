#include "dualfuzz/http/server_core.h"

#include <algorithm>
#include <ctime>
#include <stdexcept>

#include "dualfuzz/http/byte_range.h"
#include "dualfuzz/http/date.h"
#include "dualfuzz/http/detail/field_text.h"
#include "dualfuzz/http/host.h"

namespace dualfuzz::http {
namespace {

constexpr long long kEpoch = 1'700'000'000;  // Tue, 14 Nov 2023 22:13:20 GMT

const char* reason(int s) {
  switch (s) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 412:
      return "Precondition Failed";
    case 416:
      return "Range Not Satisfiable";
    case 501:
      return "Not Implemented";
    default:
      return "Unknown";
  }
}

// An entity-tag list (RFC 9110 §8.8.3), split like the model splits it.
std::vector<std::string> tag_list(const std::string& v) {
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
bool is_weak(const std::string& t) { return t.rfind("W/", 0) == 0; }
std::string opaque(const std::string& t) { return is_weak(t) ? t.substr(2) : t; }
// RFC 9110 §8.8.3.2.
bool strong_eq(const std::string& a, const std::string& b) {
  return !is_weak(a) && !is_weak(b) && a == b;
}
bool weak_eq(const std::string& a, const std::string& b) {
  return opaque(a) == opaque(b);
}

using detail::lower;
const std::string* header(const Json& q, const char* name) {
  auto it = q["headers"].find(name);
  return it == q["headers"].end() ? nullptr : it->get_ptr<const std::string*>();
}
// Does a Connection header value list `token`?
bool has_token(const std::string* value, std::string_view token) {
  if (!value) return false;
  for (std::string_view rest = *value;;) {
    auto comma = rest.find(',');
    std::string_view t = rest.substr(0, comma);
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    if (lower(std::string(t)) == token) return true;
    if (comma == std::string_view::npos) return false;
    rest.remove_prefix(comma + 1);
  }
}
std::size_t segments(const std::string& path) {
  return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
}

}  // namespace

const std::vector<BugInfo>& planted_bugs() {
  static const std::vector<BugInfo> bugs = {
      // framing
      {"length-off-by-one", "framing",
       "Content-Length of a 200 response is one short for bodies longer than 5 bytes"},
      {"head-with-body", "framing",
       "HEAD responses carry the body when it is longer than 2 bytes"},
      {"chunked-decimal", "framing",
       "GET bodies of 16 bytes or more are sent chunked with a decimal chunk size"},
      // conditional requests
      {"if-match-weak", "conditional", "If-Match uses weak comparison (W/ tags match)"},
      {"if-match-skipped", "conditional",
       "If-Match is ignored once a resource has 2 or more versions"},
      {"if-match-first-only", "conditional",
       "only the first tag of an If-Match list counts"},
      {"if-none-match-star-ignored", "conditional",
       "PUT with If-None-Match: * overwrites an existing resource"},
      {"if-none-match-strong", "conditional",
       "If-None-Match uses strong comparison, so a W/ tag never matches"},
      {"wrong-304", "conditional",
       "GET with an If-None-Match that does not match answers 304"},
      // range requests
      {"range-end-exclusive", "range",
       "a range `first-last` is served without its last byte (Content-Range still "
       "says first-last)"},
      {"range-unsatisfiable-206", "range",
       "a range starting at or past the end answers 206 with no content instead of 416"},
      {"range-suffix-from-start", "range",
       "a suffix range `-n` is served as the first n bytes (Content-Range still "
       "names the last n)"},
      {"content-range-total", "range",
       "Content-Range gives the part's length as the complete length"},
      {"if-range-stale", "range",
       "If-Range with an entity tag that does not match still answers 206"},
      {"if-range-weak", "range",
       "If-Range compares entity tags weakly, so W/\"tag\" of the current tag answers "
       "206"},
      // methods
      {"head-content-length", "method",
       "HEAD answers Content-Length: 0 where GET would send content"},
      {"head-etag", "method", "HEAD answers with an ETag other than GET's"},
      {"head-range", "method", "HEAD with a Range answers 206 (Range is for GET only)"},
      {"allow-missing", "method", "405 responses carry no Allow field"},
      {"ims-wrong-304", "conditional",
       "If-Modified-Since answers 304 even when modified after the date"},
      {"ius-ignored", "conditional", "If-Unmodified-Since is ignored"},
      {"ius-after-if-match", "conditional",
       "If-Unmodified-Since is evaluated even when If-Match is present"},
      {"412-on-match", "conditional",
       "If-Match of the current tag fails once a resource has 3 versions"},
      // storage
      {"lost-update", "storage",
       "the third PUT to a resource (its second replace) is acknowledged but not stored"},
      {"stale-read", "storage",
       "GET returns the previous body after a replace of a body longer than 3"},
      {"delete-noop", "storage", "DELETE answers 204 but keeps the resource"},
      {"delete-prefix", "storage", "DELETE /p also deletes every resource under /p/"},
      {"wrong-path", "storage",
       "PUT to a path of two or more segments stores at the first segment"},
      {"path-case-folded", "storage",
       "paths longer than 8 bytes are stored and looked up case-insensitively"},
      {"truncate-body", "storage",
       "bodies longer than 8 bytes are stored without their last byte"},
      // validators
      {"etag-reuse", "etag", "a replaced representation keeps its old strong ETag"},
      {"etag-from-length", "etag",
       "the strong ETag of a body longer than 4 bytes is derived from its length"},
      {"lm-backwards", "etag",
       "Last-Modified goes back in time on the third modification"},
      // message syntax
      {"host-unchecked", "syntax",
       "a request without a Host field, with two, or with an invalid one is served"},
      {"absolute-form-path", "syntax",
       "an absolute-form request-target (http://host/p) is taken as the path as sent"},
      // status codes
      {"not-found-403", "status", "GET of a missing resource answers 403"},
      {"create-204", "status", "creating a resource answers 204 instead of 201"},
      {"deep-404", "status",
       "GET of an existing resource three or more segments deep answers 404"},
      {"tombstone-200", "status",
       "GET of a deleted resource answers 200 with an empty body"},
      // connection handling
      {"pipeline-reorder", "connection",
       "two pipelined responses on one connection are swapped"},
      {"pipeline-drop", "connection",
       "the second of two pipelined requests is never answered"},
      {"wrong-connection", "connection",
       "responses go to the lowest other open connection when three are open"},
      // concurrency, realised deterministically by the round-robin scheduler
      {"racy-if-match", "concurrency",
       "an If-Match PUT is checked in one round and written in the next, so two "
       "concurrent PUTs with the same tag both succeed"},
      {"torn-write", "concurrency",
       "a replacing PUT writes the body one round before the ETag, so a concurrent "
       "GET sees the new body with the old tag"},
      // Only not atomic: what `--consistency interval` accepts (RFC 9110
      // does not ask a server to apply requests atomically).
      {"two-step-writes", "concurrency",
       "every PUT and DELETE is decided (its status) in one round and stored and "
       "answered "
       "in the next, so overlapping writes race: two creating PUTs both answer 201"},
  };
  return bugs;
}

bool is_known_bug(std::string_view name) {
  const auto& all = planted_bugs();
  return name.empty() || name == "none" ||
         std::any_of(all.begin(), all.end(),
                     [&](const BugInfo& b) { return b.name == name; });
}

Result<HttpServerCore> HttpServerCore::make(ServerOptions options) {
  if (!is_known_bug(options.bug))
    return make_error("unknown planted bug `" + options.bug + "` (see `dualfuzz bugs`)");
  return HttpServerCore(std::move(options));
}

HttpServerCore::HttpServerCore(ServerOptions options)
    : bug_(std::move(options.bug)), seed_(options.seed) {
  if (!is_known_bug(bug_))
    throw std::invalid_argument("unknown planted bug `" + bug_ +
                                "` (see `dualfuzz bugs`)");
  if (bug_ == "none") bug_.clear();
  reset();
}

void HttpServerCore::reset() {
  conns_.clear();
  files_.clear();
  clock_ = kEpoch + static_cast<long long>(seed_ % 1'000'000);
  next_tag_ = 1 + seed_ % 1'000'000;
}

void HttpServerCore::on_data(ConnId c, std::string_view bytes) {
  Conn& conn = conns_[c];
  if (conn.closing || conn.bad) return;
  conn.parser.feed(bytes);
  while (auto q = conn.parser.next()) conn.queue.push_back(std::move(*q));
  conn.bad = conn.parser.failed();
}

std::string HttpServerCore::key(std::string path) const {
  if (bug("path-case-folded") && path.size() > 8) path = lower(std::move(path));
  return path;
}

std::string HttpServerCore::new_tag(const std::string& body) {
  if (bug("etag-from-length") && body.size() > 4)
    return "\"L" + std::to_string(body.size()) + "\"";
  return "\"" + std::to_string(next_tag_++) + "\"";
}

std::string HttpServerCore::render(const Reply& r, bool close) const {
  std::string out =
      "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
  out += "Date: " + format_http_date(clock_) + "\r\nServer: dualfuzz-reference\r\n";
  bool typed = false;
  for (const auto& [k, v] : r.headers) {
    out += k + ": " + v + "\r\n";
    typed = typed || lower(k) == "content-type";
  }
  if (close) out += "Connection: close\r\n";
  const bool bodyless = r.status == 204 || r.status == 304;
  // "A sender that generates a message containing content SHOULD generate a
  // Content-Type header field" (RFC 9110 §8.3); HEAD's as GET's (§9.3.2).
  if (!bodyless && !r.body.empty() && !typed)
    out += "Content-Type: application/octet-stream\r\n";
  const bool chunked =
      bug("chunked-decimal") && r.status == 200 && !r.head && r.body.size() >= 16;
  if (chunked) {
    out += "Transfer-Encoding: chunked\r\n\r\n";
    out += std::to_string(r.body.size()) + "\r\n" + r.body + "\r\n0\r\n\r\n";
    return out;
  }
  if (!bodyless) {
    std::size_t len = r.body.size();
    if (bug("length-off-by-one") && r.status == 200 && len > 5) --len;
    if (bug("head-content-length") && r.head) len = 0;
    out += "Content-Length: " + std::to_string(len) + "\r\n";
  }
  out += "\r\n";
  const bool send_body = !r.head || (bug("head-with-body") && r.body.size() > 2);
  if (!bodyless && send_body) out += r.body;
  return out;
}

// RFC 9110 §13.2.2; nullopt when the method should be applied.
std::optional<HttpServerCore::Reply> HttpServerCore::preconditions(const Json& q,
                                                                   const Resource* r) {
  const std::string& method = q["method"].get_ref<const std::string&>();
  const bool safe = method == "GET" || method == "HEAD";
  const std::string* im = header(q, "if-match");
  if (bug("if-match-skipped") && r && r->versions >= 2) im = nullptr;
  const std::string* ius = header(q, "if-unmodified-since");
  // Step 1: If-Match, strong comparison.
  if (im) {
    bool ok = false;
    auto tags = tag_list(*im);
    if (bug("if-match-first-only") && tags.size() > 1) tags.resize(1);
    for (const std::string& t : tags)
      ok = ok || (r && (t == "*" || (bug("if-match-weak") ? weak_eq(t, r->etag)
                                                          : strong_eq(t, r->etag))));
    if (ok && bug("412-on-match") && r->versions >= 3) ok = false;
    if (!ok) return Reply{412, {}, "", false};
  }
  // Step 2: If-Unmodified-Since, only without If-Match.
  if (ius && r && (!im || bug("ius-after-if-match")) && !bug("ius-ignored"))
    if (auto d = parse_http_date(*ius); d && r->modified > *d)
      return Reply{412, {}, "", false};
  // Step 3: If-None-Match, weak comparison.
  if (const std::string* inm = header(q, "if-none-match")) {
    bool match = false;
    for (const std::string& t : tag_list(*inm))
      match = match ||
              (r && (t == "*" || (bug("if-none-match-strong") ? strong_eq(t, r->etag)
                                                              : weak_eq(t, r->etag))));
    if (bug("if-none-match-star-ignored") && *inm == "*") match = false;
    if (bug("wrong-304") && r && safe) match = true;
    if (!match) return std::nullopt;
    if (!safe) return Reply{412, {}, "", false};
    return Reply{304, {{"ETag", r->etag}}, "", false};
  }
  // Step 4: If-Modified-Since, GET and HEAD only.
  if (const std::string* ims = header(q, "if-modified-since"); ims && r && safe)
    if (auto d = parse_http_date(*ims); d && (r->modified <= *d || bug("ims-wrong-304")))
      return Reply{304, {{"ETag", r->etag}}, "", false};
  return std::nullopt;
}

HttpServerCore::Reply HttpServerCore::put(const Json& q, const std::string& path) {
  std::string body = q["body"].get<std::string>();
  if (bug("truncate-body") && body.size() > 8) body.pop_back();
  ++clock_;
  auto it = files_.find(path);
  if (it == files_.end()) {
    Resource fresh{body, new_tag(body), clock_, 1, ""};
    files_[path] = fresh;
    return {bug("create-204") ? 204 : 201,
            {{"ETag", fresh.etag}, {"Last-Modified", format_http_date(fresh.modified)}},
            "",
            false};
  }
  Resource& r = it->second;
  ++r.versions;
  if (bug("lost-update") && r.versions == 3) return {204, {}, "", false};
  r.previous = r.body;
  r.body = body;
  if (!bug("etag-reuse")) r.etag = new_tag(body);
  r.modified = bug("lm-backwards") && r.versions == 3 ? kEpoch - 100 : clock_;
  return {204,
          {{"ETag", r.etag}, {"Last-Modified", format_http_date(r.modified)}},
          "",
          false};
}

// RFC 9110 §14.2, §13.1.5, §15.3.7: `full` (the 200 a GET gets), or the
// part(s) its Range asks for.
HttpServerCore::Reply HttpServerCore::range(const Json& q, const Resource& r,
                                            Reply full) {
  const std::string* value = header(q, "range");
  if (!value) return full;
  // If-Range: a strong match of the current tag, or its exact Last-Modified
  // (a strong validator here: one modification per clock tick).
  if (const std::string* ir = header(q, "if-range")) {
    const std::string v = *ir;
    const bool match = bug("if-range-weak") ? weak_eq(v, r.etag)
                       : bug("if-range-stale")
                           ? v.size() > 1 && v.front() == '"'
                           : strong_eq(v, r.etag) || parse_http_date(v) == r.modified;
    if (!match) return full;
  }
  const RangeField f = parse_range(*value);
  if (f.kind != RangeField::Kind::Bytes) return full;  // ignored (other unit, invalid)
  const long long n = static_cast<long long>(full.body.size());
  std::vector<ByteInterval> parts = satisfiable(f, n);
  // (The part named stays the right one: a 206 of another part than asked
  // for, named as it is, breaks only a SHOULD of RFC 9110 §14.2.)
  const bool from_start = bug("range-suffix-from-start") && f.specs.size() == 1 &&
                          f.specs[0].suffix && !parts.empty();
  auto slice = [&](ByteInterval p) {
    return full.body.substr(static_cast<std::size_t>(p.first),
                            static_cast<std::size_t>(p.last - p.first + 1));
  };
  Reply part = full;
  part.status = 206;
  if (parts.empty()) {
    if (bug("range-unsatisfiable-206") && n > 0) {
      part.body.clear();
      part.headers.emplace_back("Content-Range", content_range(n - 1, n - 1, n));
      return part;
    }
    if (n == 0) return full;  // nothing to take a part of
    return Reply{416, {{"Content-Range", unsatisfied_range(n)}}, "", false};
  }
  if (parts.size() == 1 && f.specs.size() == 1) {
    ByteInterval p = parts[0];
    part.body = from_start ? slice({0, p.last - p.first}) : slice(p);
    if (bug("range-end-exclusive") && f.specs[0].last && p.last > p.first)
      part.body.pop_back();
    const long long total = bug("content-range-total") ? p.last - p.first + 1 : n;
    part.headers.emplace_back("Content-Range", content_range(p.first, p.last, total));
    return part;
  }
  // Several ranges: overlapping or unordered ones are answered in full
  // (§14.2 lets a server ignore them), others as multipart/byteranges.
  if (overlapping_or_unordered(parts)) return full;
  const std::string boundary = "dualfuzz-byteranges";
  part.body.clear();
  for (const ByteInterval& p : parts)
    part.body += "--" + boundary +
                 "\r\nContent-Range: " + content_range(p.first, p.last, n) + "\r\n\r\n" +
                 slice(p) + "\r\n";
  part.body += "--" + boundary + "--\r\n";
  part.headers.emplace_back("Content-Type", "multipart/byteranges; boundary=" + boundary);
  return part;
}

std::optional<HttpServerCore::Reply> HttpServerCore::handle(const Json& q, Conn& c) {
  const std::string& method = q["method"].get_ref<const std::string&>();
  const bool get = method == "GET", head = method == "HEAD";
  std::string path = q["path"].get<std::string>();
  // RFC 9112 §3.2.2: an absolute-form target's authority replaces the Host
  // field, which is then ignored; otherwise an HTTP/1.1 request needs
  // exactly one valid Host (§3.2: two lines arrive joined, so invalid).
  const bool absolute = path.size() > 7 && lower(path.substr(0, 7)) == "http://" &&
                        !bug("absolute-form-path");
  if (absolute) {
    const std::size_t slash = path.find('/', 7);
    path = slash == std::string::npos ? "/" : path.substr(slash);
  } else if (!bug("host-unchecked")) {
    const std::string* host = header(q, "host");
    if (host ? !valid_host(*host) : q["version"] == "HTTP/1.1")
      return Reply{400, {}, "", false};
  }
  if (!get && !head && method != "PUT" && method != "DELETE") {
    static const char* kAllow = "GET, HEAD, PUT, DELETE, OPTIONS";
    if (method == "OPTIONS") return Reply{204, {{"Allow", kAllow}}, "", false};
    // Known methods this server does not support: 405 with Allow (RFC 9110
    // §15.5.6); others: 501 (§9.1, §15.6.2).
    static const char* kKnown[] = {"POST", "CONNECT", "TRACE", "PATCH"};
    if (std::find(std::begin(kKnown), std::end(kKnown), method) == std::end(kKnown))
      return Reply{501, {}, "", false};
    if (bug("allow-missing")) return Reply{405, {}, "", false};
    return Reply{405, {{"Allow", kAllow}}, "", false};
  }
  if (bug("wrong-path") && method == "PUT") {
    auto second = path.find('/', 1);
    if (second != std::string::npos && second + 1 < path.size()) path.resize(second);
  }
  path = key(std::move(path));
  auto it = files_.find(path);
  Resource* r = it == files_.end() ? nullptr : &it->second;
  if (r && get && bug("deep-404") && segments(path) >= 3) r = nullptr;
  if (!r && method != "PUT") {
    if (get && bug("tombstone-200") && files_.count("\x7f" + path))
      return Reply{200, {}, "", false};
    return Reply{bug("not-found-403") && get ? 403 : 404, {}, "", false};
  }
  if (auto failed = preconditions(q, r)) return failed;

  if (get || head) {
    std::string body = r->body;
    if (bug("stale-read") && r->versions >= 2 && r->body.size() > 3) body = r->previous;
    Reply full{200,
               {{"ETag", head && bug("head-etag") ? "\"h" + r->etag.substr(1) : r->etag},
                {"Last-Modified", format_http_date(r->modified)}},
               std::move(body),
               head};
    if (get || bug("head-range")) return range(q, *r, std::move(full));
    return full;
  }
  if (method == "DELETE") {
    if (bug("two-step-writes")) {
      c.pending = PendingPut{q, path, true, true};
      return std::nullopt;
    }
    ++clock_;
    if (bug("delete-prefix"))
      std::erase_if(files_,
                    [&](const auto& f) { return f.first.rfind(path + "/", 0) == 0; });
    if (bug("tombstone-200")) files_["\x7f" + path];  // remembered as deleted
    if (!bug("delete-noop")) files_.erase(path);
    return Reply{204, {}, "", false};
  }
  // PUT. The concurrency bugs split it across two scheduler rounds.
  if (bug("two-step-writes")) {
    c.pending = PendingPut{q, path, r != nullptr, false};
    return std::nullopt;
  }
  if (r && bug("racy-if-match") && header(q, "if-match")) {
    c.pending = PendingPut{q, path};
    return std::nullopt;
  }
  if (r && bug("torn-write")) {
    r->body = q["body"].get<std::string>();  // the tag follows next round
    c.pending = PendingPut{q, path};
    return std::nullopt;
  }
  return put(q, path);
}

void HttpServerCore::emit(ConnId id, Conn& c, const Json* q, Reply reply,
                          std::vector<Output>& out) {
  bool close = !q;  // a 400 always closes
  if (q) {
    const std::string* conn = header(*q, "connection");
    close = has_token(conn, "close") ||
            ((*q)["version"] == "HTTP/1.0" && !has_token(conn, "keep-alive"));
  }
  Output o{id, render(reply, close), close};
  if (close) {
    c.closing = true;
    c.queue.clear();
    c.pending.reset();
  }
  ++c.served_this_poll;
  if (bug("pipeline-drop") && c.served_this_poll == 2) return;
  if (bug("wrong-connection") && conns_.size() >= 3)
    for (const auto& [other, oc] : conns_)
      if (other != id) {
        o.conn = other;
        break;
      }
  // pipeline-reorder: hold a response back while the next one is queued.
  if (bug("pipeline-reorder") && !c.held && !c.queue.empty() && !close) {
    c.held = std::move(o);
    return;
  }
  out.push_back(std::move(o));
  if (c.held) {
    out.push_back(std::move(*c.held));
    c.held.reset();
  }
}

bool HttpServerCore::step(ConnId id, Conn& c, std::vector<Output>& out) {
  if (c.closing) return false;
  if (c.pending) {
    PendingPut p = std::move(*c.pending);
    c.pending.reset();
    if (p.remove) {  // two-step-writes
      ++clock_;
      files_.erase(p.path);
      emit(id, c, &p.request, Reply{204, {}, "", false}, out);
      return true;
    }
    Reply stored = put(p.request, p.path);
    if (bug("two-step-writes")) stored.status = p.existed ? 204 : 201;
    emit(id, c, &p.request, std::move(stored), out);
    return true;
  }
  if (!c.queue.empty()) {
    Json q = std::move(c.queue.front());
    c.queue.pop_front();
    if (auto reply = handle(q, c)) emit(id, c, &q, std::move(*reply), out);
    return true;
  }
  if (c.bad) {
    emit(id, c, nullptr, Reply{400, {}, "", false}, out);
    return true;
  }
  return false;
}

std::vector<HttpServerCore::Output> HttpServerCore::poll() {
  std::vector<Output> out;
  for (auto& [id, c] : conns_) c.served_this_poll = 0;
  // Round-robin: one request per connection per round, so requests of
  // different connections interleave the way concurrent clients would.
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& [id, c] : conns_) progress = step(id, c, out) || progress;
  }
  for (auto& [id, c] : conns_)
    if (c.held) {
      out.push_back(std::move(*c.held));
      c.held.reset();
    }
  return out;
}

}  // namespace dualfuzz::http
