#include "dualfuzz/servers/http_server_core.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>
#include <stdexcept>

namespace dualfuzz::servers {
namespace {

constexpr long long kEpoch = 1'700'000'000;
constexpr std::size_t kMaxRequest = 1 << 20;

const char* reason(int s) {
  switch (s) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
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
    default:
      return "Status";
  }
}

std::string http_date(long long t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}
std::optional<long long> parse_date(const std::string& s) {
  std::tm tm{};
  const char* end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end) return std::nullopt;
  return static_cast<long long>(timegm(&tm));
}

std::vector<std::string> tag_list(const std::string& v) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == ',')) ++i;
    std::size_t s = i;
    if (v.compare(i, 2, "W/") == 0) i += 2;
    if (i < v.size() && v[i] == '"') {
      auto e = v.find('"', i + 1);
      i = e == std::string::npos ? v.size() : e + 1;
    } else {
      while (i < v.size() && v[i] != ',') ++i;
    }
    if (i > s) out.push_back(v.substr(s, i - s));
  }
  return out;
}
std::string opaque(const std::string& t) {
  return t.rfind("W/", 0) == 0 ? t.substr(2) : t;
}
bool strong_eq(const std::string& a, const std::string& b) {
  return a.rfind("W/", 0) != 0 && b.rfind("W/", 0) != 0 && !a.empty() && a == b;
}
bool weak_eq(const std::string& a, const std::string& b) {
  return !opaque(a).empty() && opaque(a) == opaque(b);
}

}  // namespace

const std::vector<BugInfo>& planted_bugs() {
  static const std::vector<BugInfo> bugs = {
      {"etag-reuse", "etag", "a replaced representation keeps its old strong ETag"},
      {"if-match-weak", "conditional", "If-Match uses weak comparison (W/ tags match)"},
      {"if-match-skipped", "conditional",
       "If-Match is ignored on the second and later PUTs"},
      {"if-none-match-star-ignored", "conditional",
       "PUT with If-None-Match: * overwrites"},
      {"wrong-304", "conditional", "If-None-Match with a stale tag answers 304"},
      {"ims-wrong-304", "conditional",
       "If-Modified-Since answers 304 even when modified after"},
      {"ius-ignored", "conditional", "If-Unmodified-Since is ignored"},
      {"412-on-match", "conditional",
       "If-Match of the current tag fails once a resource has 3 versions"},
      {"lost-update", "storage",
       "the third replace of a resource is acknowledged but not stored"},
      {"stale-read", "storage",
       "GET returns the previous body after a replace of a body longer than 3"},
      {"delete-noop", "storage", "DELETE answers 204 but keeps the resource"},
      {"wrong-path", "storage",
       "PUT to a path of two or more segments stores at the first segment"},
      {"truncate-body", "storage",
       "bodies longer than 8 bytes are stored without their last byte"},
      {"lm-backwards", "etag",
       "Last-Modified goes back in time on the third modification"},
      {"not-found-403", "status", "GET of a missing resource answers 403"},
      {"create-204", "status", "creating a resource answers 204 instead of 201"},
      {"length-off-by-one", "framing",
       "Content-Length of a 200 body longer than 5 is one short"},
      {"pipeline-reorder", "connection",
       "two pipelined responses on one connection are swapped"},
      {"pipeline-drop", "connection",
       "the second of two pipelined requests is never answered"},
      {"wrong-connection", "connection",
       "a response goes to the lowest other open connection when three are open"},
  };
  return bugs;
}

HttpServerCore::HttpServerCore(ServerOptions options) : bug_(options.bug) {
  if (bug_ == "none") bug_.clear();
  if (!bug_.empty()) {
    const auto& all = planted_bugs();
    if (std::none_of(all.begin(), all.end(),
                     [&](const BugInfo& b) { return b.name == bug_; }))
      throw std::invalid_argument("unknown planted bug `" + bug_ + "` (see --bug list)");
  }
  reset();
}

void HttpServerCore::reset() {
  conns_.clear();
  files_.clear();
  clock_ = kEpoch;
  next_tag_ = 1;
}

void HttpServerCore::on_data(ConnId c, std::string_view bytes) {
  Conn& conn = conns_[c];
  if (conn.in.size() + bytes.size() > kMaxRequest) {
    conn.in.clear();
    conn.closing = true;
    return;
  }
  conn.in.append(bytes);
}

std::optional<HttpServerCore::Request> HttpServerCore::take_request(Conn& c, bool& bad) {
  auto end = c.in.find("\r\n\r\n");
  if (end == std::string::npos) return std::nullopt;
  Request q;
  std::string head = c.in.substr(0, end);
  std::size_t line_end = head.find("\r\n");
  std::string line = head.substr(0, line_end);
  auto sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1 || line.substr(sp2 + 1) != "HTTP/1.1") {
    bad = true;
    return std::nullopt;
  }
  q.method = line.substr(0, sp1);
  q.path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    std::size_t e = head.find("\r\n", pos);
    if (e == std::string::npos) e = head.size();
    std::string h = head.substr(pos, e - pos);
    auto colon = h.find(':');
    if (colon == std::string::npos || colon == 0) {
      bad = true;
      return std::nullopt;
    }
    std::string name = h.substr(0, colon);
    for (char& ch : name)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::size_t vs = h.find_first_not_of(' ', colon + 1);
    q.headers[name] = vs == std::string::npos ? "" : h.substr(vs);
    pos = e + 2;
  }
  std::size_t len = 0;
  if (auto it = q.headers.find("content-length"); it != q.headers.end()) {
    auto [p, ec] =
        std::from_chars(it->second.data(), it->second.data() + it->second.size(), len);
    if (ec != std::errc() || p != it->second.data() + it->second.size() ||
        len > kMaxRequest) {
      bad = true;
      return std::nullopt;
    }
  }
  if (c.in.size() < end + 4 + len) return std::nullopt;
  q.body = c.in.substr(end + 4, len);
  c.in.erase(0, end + 4 + len);
  return q;
}

std::string HttpServerCore::respond(
    int status, const std::vector<std::pair<std::string, std::string>>& headers,
    const std::string& body, bool head) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\n";
  out += "Date: " + http_date(clock_) + "\r\nServer: dualfuzz-reference\r\n";
  for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
  if (status != 204 && status != 304) {
    std::size_t len = body.size();
    if (bug("length-off-by-one") && status == 200 && len > 5) --len;
    out += "Content-Length: " + std::to_string(len) + "\r\n";
  }
  out += "\r\n";
  if (!head && status != 204 && status != 304) out += body;
  return out;
}

std::string HttpServerCore::handle(const Request& q) {
  const bool get = q.method == "GET", head = q.method == "HEAD";
  std::string path = q.path;
  if (bug("wrong-path") && q.method == "PUT") {
    auto second = path.find('/', 1);
    if (second != std::string::npos && second + 1 < path.size())
      path = path.substr(0, second);
  }
  auto it = files_.find(path);
  Resource* r = it == files_.end() ? nullptr : &it->second;
  auto hdr = [&](const char* n) -> const std::string* {
    auto h = q.headers.find(n);
    return h == q.headers.end() ? nullptr : &h->second;
  };
  auto validators = [&](const Resource& x) {
    return std::vector<std::pair<std::string, std::string>>{
        {"ETag", x.etag}, {"Last-Modified", http_date(x.modified)}};
  };
  if (!get && !head && q.method != "PUT" && q.method != "DELETE")
    return respond(405, {{"Allow", "GET, HEAD, PUT, DELETE"}}, "");
  if (!r && q.method != "PUT")
    return respond(bug("not-found-403") && get ? 403 : 404, {}, "");

  // RFC 9110 §13.2.2.
  bool skip_if_match = bug("if-match-skipped") && r && r->versions >= 2;
  if (const std::string* im = hdr("if-match"); im && !skip_if_match) {
    bool ok = false;
    for (const std::string& t : tag_list(*im))
      ok = ok || (t == "*" && r) ||
           (r && (bug("if-match-weak") ? weak_eq(t, r->etag) : strong_eq(t, r->etag)));
    if (ok && bug("412-on-match") && r->versions >= 3) ok = false;
    if (!ok) return respond(412, {}, "");
  } else if (const std::string* ius = hdr("if-unmodified-since");
             ius && r && !bug("ius-ignored")) {
    if (auto d = parse_date(*ius); d && r->modified > *d) return respond(412, {}, "");
  }
  if (const std::string* inm = hdr("if-none-match")) {
    bool match = false;
    for (const std::string& t : tag_list(*inm))
      match = match || (t == "*" && r) || (r && weak_eq(t, r->etag));
    if (bug("if-none-match-star-ignored") && *inm == "*") match = false;
    if (bug("wrong-304") && r && (get || head) && !match) match = true;
    if (match)
      return (get || head) ? respond(304, {{"ETag", r->etag}}, "") : respond(412, {}, "");
  } else if (const std::string* ims = hdr("if-modified-since");
             ims && r && (get || head)) {
    if (auto d = parse_date(*ims); d && (r->modified <= *d || bug("ims-wrong-304")))
      return respond(304, {{"ETag", r->etag}}, "");
  }

  if (get || head) {
    std::string body = r->body;
    if (bug("stale-read") && r->versions >= 2 && r->body.size() > 3) body = r->previous;
    return respond(200, validators(*r), body, head);
  }
  if (q.method == "DELETE") {
    if (!bug("delete-noop")) files_.erase(it);
    return respond(204, {}, "");
  }
  // PUT
  std::string body = q.body;
  if (bug("truncate-body") && body.size() > 8) body.pop_back();
  ++clock_;
  if (!r) {
    Resource fresh{body, "\"" + std::to_string(next_tag_++) + "\"", clock_, 1, ""};
    files_[path] = fresh;
    return respond(bug("create-204") ? 204 : 201, validators(fresh), "");
  }
  if (bug("lost-update") && r->versions == 2) {
    ++r->versions;
    return respond(204, {}, "");
  }
  r->previous = r->body;
  r->body = body;
  ++r->versions;
  if (!bug("etag-reuse")) r->etag = "\"" + std::to_string(next_tag_++) + "\"";
  r->modified = bug("lm-backwards") && r->versions == 3 ? kEpoch - 100 : clock_;
  return respond(204, validators(*r), "");
}

std::vector<HttpServerCore::Output> HttpServerCore::poll() {
  std::vector<Output> out;
  for (auto& [id, c] : conns_) {
    std::vector<Output> batch;
    while (!c.closing) {
      bool bad = false;
      auto q = take_request(c, bad);
      if (bad) {
        batch.push_back({id, respond(400, {{"Connection", "close"}}, ""), true});
        c.closing = true;
        break;
      }
      if (!q) break;
      batch.push_back({id, handle(*q), false});
    }
    if (batch.size() >= 2 && bug("pipeline-reorder")) std::swap(batch[0], batch[1]);
    if (batch.size() >= 2 && bug("pipeline-drop")) batch.erase(batch.begin() + 1);
    if (bug("wrong-connection") && conns_.size() >= 3)
      for (Output& o : batch)
        for (const auto& [other, oc] : conns_)
          if (other != id) {
            o.conn = other;
            break;
          }
    out.insert(out.end(), batch.begin(), batch.end());
  }
  return out;
}

}  // namespace dualfuzz::servers
